//===- tcl-onnx-conformance.cpp - ONNX backend node tests -----------------===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// Runs the ONNX backend node tests (Debian's libonnx-testdata: one directory
// per test with model.onnx and test_data_set_*/{input,output}_*.pb) through
// tcl: import, compile (JIT, default schedules), run, compare with the
// expected outputs (within kOutputTolerance; integers and bools exactly).
// Inputs are passed at run time, or, where integer and bool inputs determine
// shapes, bound to their test values at compile time. Prints per operator
// how many tests pass, fail, or use something tcl does not support yet
// (an operator, attribute value or element type it rejects with an error).
//
// Usage: tcl-onnx-conformance [--filter PREFIX] [--check] [-v] [--jobs N]
//        [DATA_DIR]
//
//===----------------------------------------------------------------------===//

#include "tcl/Frontend/OnnxImporter.h"
#include "tcl/Registration/Registration.h"
#include "tcl/Runtime/Kernel.h"
#include "tcl/Support/CommandLine.h"
#include "tcl/Target/Codegen.h"
#include "tcl/Transforms/Pipelines.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Threading.h"

#include "onnx/onnx_pb.h"

#include <cerrno>
#include <cmath>
#include <csignal>
#include <cstring>
#include <fstream>
#include <map>
#include <optional>
#include <poll.h>
#include <set>
#include <sys/wait.h>
#include <tuple>
#include <unistd.h>

using namespace mlir;
using namespace mlir::tcl;

// The tool's own options, the only ones --help lists (showOnlyInHelp).
static llvm::cl::OptionCategory toolCategory("Options");
static llvm::cl::opt<std::string>
    dataDir(llvm::cl::Positional, llvm::cl::desc("[node test directory]"),
            llvm::cl::init("/usr/share/libonnx-testdata/data/node"),
            llvm::cl::cat(toolCategory));
static llvm::cl::opt<std::string>
    filter("filter", llvm::cl::desc("Only tests whose name starts with this"),
           llvm::cl::init("test_"), llvm::cl::cat(toolCategory));
static llvm::cl::opt<bool> verbose("v", llvm::cl::desc("Print every test"),
                                   llvm::cl::cat(toolCategory));
static llvm::cl::opt<bool>
    check("check",
          llvm::cl::desc("Exit with 1 if a test of a supported "
                         "operator fails (unsupported cases are "
                         "reported, not failures)"),
          llvm::cl::cat(toolCategory));
static llvm::cl::opt<unsigned>
    jobs("jobs",
         llvm::cl::desc("Tests run at once, each in a process of its own "
                        "(default: one per core)"),
         llvm::cl::init(0), llvm::cl::cat(toolCategory));

namespace {
enum class Outcome { Pass, Fail, Unsupported };

struct Tally {
  unsigned pass = 0, fail = 0, unsupported = 0;
  std::vector<std::string> failures;
};

std::string firstLine(const std::string &text) {
  return text.substr(0, text.find('\n'));
}

/// The operator a node test exercises: the type of its only node. Tests of
/// a function expanded into several nodes are grouped apart.
std::string opTypeOf(const std::string &modelPath) {
  std::ifstream stream(modelPath, std::ios::binary);
  onnx::ModelProto model;
  if (!stream || !model.ParseFromIstream(&stream) ||
      model.graph().node_size() == 0)
    return "?";
  if (model.graph().node_size() > 1)
    return "(multi-node)";
  return model.graph().node(0).op_type();
}

/// The graph inputs a node test feeds (initializers excluded), in order,
/// and whether each is a float tensor.
std::vector<std::pair<std::string, bool>>
graphInputsOf(const std::string &modelPath) {
  std::ifstream stream(modelPath, std::ios::binary);
  onnx::ModelProto model;
  std::vector<std::pair<std::string, bool>> inputs;
  if (!stream || !model.ParseFromIstream(&stream))
    return inputs;
  std::set<std::string> initializers;
  for (const onnx::TensorProto &init : model.graph().initializer())
    initializers.insert(init.name());
  for (const onnx::ValueInfoProto &in : model.graph().input())
    if (!initializers.count(in.name()))
      inputs.emplace_back(in.name(), in.type().tensor_type().elem_type() ==
                                         onnx::TensorProto::FLOAT);
  return inputs;
}

/// Imports, compiles and runs the test on one data set, with the inputs
/// whose indices are in `bound` bound to the data set's values at compile
/// time and the others passed at run time.
Outcome runDataSet(const std::string &dir, const std::string &set,
                   const std::set<size_t> &bound, std::string &message) {
  DialectRegistry registry;
  registerTclDialects(registry);
  registerLLVMTranslations(registry);
  MLIRContext context(registry);
  context.printOpOnDiagnostic(false);
  OnnxImportOptions options;
  std::vector<std::string> runtimeInputs;
  for (auto [index, input] :
       llvm::enumerate(graphInputsOf(dir + "/model.onnx"))) {
    std::string path = set + "/input_" + std::to_string(index) + ".pb";
    if (bound.count(index))
      options.boundInputs[input.first] = path;
    else
      runtimeInputs.push_back(path);
  }
  auto module = importOnnxFile(dir + "/model.onnx", &context, options);
  if (!module) {
    message = llvm::toString(module.takeError());
    return Outcome::Unsupported;
  }
  if (failed(optimizeGraph(**module))) {
    message = "graph optimization failed";
    return Outcome::Fail;
  }
  auto kernel = Kernel::jit(**module, kOnnxEntryName, LoweringOptions{});
  if (!kernel) {
    message = "compile: " + llvm::toString(kernel.takeError());
    return Outcome::Fail;
  }
  std::vector<Buffer> inputs;
  for (const std::string &path : runtimeInputs) {
    auto buffer = readOnnxTensorFile(path);
    if (!buffer) {
      message = llvm::toString(buffer.takeError());
      return Outcome::Unsupported;
    }
    inputs.push_back(std::move(*buffer));
  }
  auto expected =
      readOnnxTestData(set, "output_", kernel->getSignature().outputs.size());
  if (!expected) {
    message = llvm::toString(expected.takeError());
    return Outcome::Unsupported;
  }
  std::vector<Buffer> outputs = kernel->getSignature().makeOutputs();
  if (llvm::Error error = kernel->run(inputs, outputs)) {
    message = llvm::toString(std::move(error));
    return Outcome::Fail;
  }
  for (auto [o, tensor] : llvm::enumerate(*expected)) {
    if (outputs[o].type != tensor.type) {
      message = "output " + std::to_string(o) + " is " +
                getElementTypeName(outputs[o].type).str() + ", expected " +
                getElementTypeName(tensor.type).str();
      return Outcome::Fail;
    }
    if (outputs[o].size() != tensor.size()) {
      message = "output " + std::to_string(o) + " has the wrong size";
      return Outcome::Fail;
    }
  }
  OutputError largest = findLargestError(outputs, *expected);
  if (largest.error <= kOutputTolerance)
    return Outcome::Pass;
  size_t o = largest.output, i = largest.index;
  message = "output " + std::to_string(o) + "[" + std::to_string(i) +
            "] = " + std::to_string(outputs[o].getAsDouble(i)) + ", expected " +
            std::to_string((*expected)[o].getAsDouble(i)) +
            " (relative error " + std::to_string(largest.error) + ")";
  return Outcome::Fail;
}

/// Runs one data set as a user would: every input at run time. Integer and
/// bool inputs often determine shapes (Slice bounds, Reshape targets), which
/// tcl needs at compile time: if the model does not import with them at run
/// time, they are bound to the data set's values (--bind-input) instead.
Outcome runDataSet(const std::string &dir, const std::string &set,
                   std::string &message) {
  Outcome outcome = runDataSet(dir, set, {}, message);
  if (outcome != Outcome::Unsupported)
    return outcome;
  std::set<size_t> nonFloat;
  for (auto [index, input] :
       llvm::enumerate(graphInputsOf(dir + "/model.onnx")))
    if (!input.second)
      nonFloat.insert(index);
  if (nonFloat.empty())
    return outcome;
  return runDataSet(dir, set, nonFloat, message);
}

Outcome runTestInProcess(const std::string &dir, std::string &message) {
  unsigned sets = 0;
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(dir, ec), end; it != end && !ec;
       it.increment(ec)) {
    std::string set = it->path();
    if (!llvm::StringRef(llvm::sys::path::filename(set))
             .starts_with("test_data_set_"))
      continue;
    ++sets;
    Outcome outcome = runDataSet(dir, set, message);
    if (outcome != Outcome::Pass)
      return outcome;
  }
  if (sets == 0) {
    message = "no test data";
    return Outcome::Unsupported;
  }
  return Outcome::Pass;
}
/// A test running in a child process, so that a test that crashes the
/// compiler or the kernel is a failure of that test, not of the run.
struct ChildTest {
  size_t index;
  pid_t pid;
  int replyFd;
  std::string reply;
};

/// Starts test `index` (directory `dir`) in a child process that writes its
/// outcome and message to a pipe; nullopt (with `message`) if it could not.
std::optional<ChildTest> startTest(size_t index, const std::string &dir,
                                   std::string &message) {
  int fds[2];
  if (pipe(fds) != 0) {
    message = "pipe failed";
    return std::nullopt;
  }
  pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    message = "fork failed";
    return std::nullopt;
  }
  if (pid == 0) {
    close(fds[0]);
    std::string childMessage;
    Outcome outcome = runTestInProcess(dir, childMessage);
    std::string reply =
        std::to_string(static_cast<int>(outcome)) + "\n" + childMessage;
    (void)!write(fds[1], reply.data(), reply.size());
    _exit(0);
  }
  close(fds[1]);
  return ChildTest{index, pid, fds[0], {}};
}

/// The outcome of a finished child: its reply, or how it died.
Outcome finishTest(ChildTest &child, std::string &message) {
  close(child.replyFd);
  int status = 0;
  waitpid(child.pid, &status, 0);
  if (!WIFEXITED(status) || child.reply.empty()) {
    message = WIFSIGNALED(status)
                  ? std::string("crashed: ") + strsignal(WTERMSIG(status))
                  : "the test process failed";
    return Outcome::Fail;
  }
  auto [outcome, childMessage] = llvm::StringRef(child.reply).split('\n');
  unsigned value = 0;
  if (outcome.getAsInteger(10, value) ||
      value > static_cast<unsigned>(Outcome::Unsupported)) {
    message = "the test process gave no outcome";
    return Outcome::Fail;
  }
  message = childMessage.str();
  return static_cast<Outcome>(value);
}

/// Runs every test in `dirs`, up to `jobs` at a time, each in a child
/// process; the outcomes and messages in the order of `dirs`.
std::vector<std::pair<Outcome, std::string>>
runTests(const std::vector<std::string> &dirs, unsigned jobs) {
  std::vector<std::pair<Outcome, std::string>> results(
      dirs.size(), {Outcome::Fail, "not run"});
  std::vector<ChildTest> running;
  size_t next = 0;
  while (next < dirs.size() || !running.empty()) {
    while (next < dirs.size() && running.size() < jobs) {
      std::string message;
      if (std::optional<ChildTest> child = startTest(next, dirs[next], message))
        running.push_back(std::move(*child));
      else
        results[next] = {Outcome::Fail, message};
      ++next;
    }
    if (running.empty())
      continue;
    // Read whatever the children have written; a child is done at the end
    // of its pipe (the reply may exceed a pipe's buffer, so it is read
    // while the child runs).
    std::vector<pollfd> fds;
    for (const ChildTest &child : running)
      fds.push_back({child.replyFd, POLLIN, 0});
    if (poll(fds.data(), fds.size(), -1) < 0) {
      if (errno == EINTR)
        continue;
      // Cannot wait for the children: stop them; they and the tests not
      // started count as failures.
      for (ChildTest &child : running) {
        kill(child.pid, SIGKILL);
        std::string message;
        finishTest(child, message);
        results[child.index] = {Outcome::Fail, "poll failed: " + message};
      }
      break;
    }
    for (size_t i = running.size(); i-- > 0;) {
      if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR)))
        continue;
      char buffer[4096];
      ssize_t count = read(running[i].replyFd, buffer, sizeof(buffer));
      if (count > 0) {
        running[i].reply.append(buffer, count);
        continue;
      }
      if (count < 0 && errno == EINTR)
        continue;
      std::string message;
      Outcome outcome = finishTest(running[i], message);
      results[running[i].index] = {outcome, message};
      running.erase(running.begin() + i);
    }
  }
  return results;
}
} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  showOnlyInHelp({&toolCategory});
  llvm::cl::ParseCommandLineOptions(argc, argv, "ONNX node conformance\n");

  std::vector<std::string> tests;
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(dataDir, ec), end; it != end && !ec;
       it.increment(ec))
    if (llvm::StringRef(llvm::sys::path::filename(it->path()))
            .starts_with(filter))
      tests.push_back(it->path());
  if (ec || tests.empty()) {
    llvm::errs() << "tcl-onnx-conformance: no tests under " << dataDir
                 << " (install libonnx-testdata)\n";
    return 1;
  }
  std::sort(tests.begin(), tests.end());

  std::vector<std::string> supported = getSupportedOnnxOps();
  std::map<std::string, Tally> byOp;
  unsigned jobCount =
      jobs ? unsigned(jobs)
           : llvm::heavyweight_hardware_concurrency().compute_thread_count();
  std::vector<std::pair<Outcome, std::string>> results =
      runTests(tests, std::max(1u, jobCount));
  for (auto [dir, result] : llvm::zip_equal(tests, results)) {
    std::string name = llvm::sys::path::filename(dir).str();
    std::string op = opTypeOf(dir + "/model.onnx");
    auto &[outcome, message] = result;
    Tally &tally = byOp[op];
    switch (outcome) {
    case Outcome::Pass:
      ++tally.pass;
      break;
    case Outcome::Fail:
      ++tally.fail;
      tally.failures.push_back(name + ": " + firstLine(message));
      break;
    case Outcome::Unsupported:
      ++tally.unsupported;
      if (llvm::is_contained(supported, op))
        tally.failures.push_back(name +
                                 " (unsupported case): " + firstLine(message));
      break;
    }
    if (verbose)
      llvm::outs() << name << ": "
                   << (outcome == Outcome::Pass   ? "pass"
                       : outcome == Outcome::Fail ? "FAIL"
                                                  : "unsupported")
                   << (message.empty() ? "" : " (" + firstLine(message) + ")")
                   << "\n";
  }

  llvm::outs() << "| operator | tests | pass | fail | unsupported case |\n"
               << "| --- | ---: | ---: | ---: | ---: |\n";
  Tally total;
  for (const auto &[op, tally] : byOp) {
    if (!llvm::is_contained(supported, op))
      continue;
    llvm::outs() << "| " << op << " | "
                 << tally.pass + tally.fail + tally.unsupported << " | "
                 << tally.pass << " | " << tally.fail << " | "
                 << tally.unsupported << " |\n";
    total.pass += tally.pass;
    total.fail += tally.fail;
    total.unsupported += tally.unsupported;
  }
  // Operators without a converter; multi-node tests are counted apart.
  unsigned otherTests = 0, otherOps = 0;
  for (const auto &[op, tally] : byOp)
    if (op != "(multi-node)" && !llvm::is_contained(supported, op)) {
      ++otherOps;
      otherTests += tally.pass + tally.fail + tally.unsupported;
    }
  const Tally &multi = byOp["(multi-node)"];
  llvm::outs() << "\nMulti-node tests (expanded functions): " << multi.pass
               << " pass, " << multi.fail << " fail, " << multi.unsupported
               << " use an unsupported operator or case.\n";
  llvm::outs() << "Not yet supported: " << otherOps << " operator types ("
               << otherTests << " single-node tests).\n";
  llvm::outs() << "\nFailing or unsupported cases of supported operators:\n";
  for (const auto &[op, tally] : byOp)
    if (llvm::is_contained(supported, op))
      for (const std::string &failure : tally.failures)
        llvm::outs() << "  " << failure << "\n";
  llvm::outs() << "\nsupported operators: " << total.pass << " tests pass, "
               << total.fail << " fail, " << total.unsupported
               << " use an unsupported case\n";
  return check && total.fail > 0 ? 1 : 0;
}
