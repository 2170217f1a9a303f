//===- Measure.cpp - Isolated measurement of candidate kernels ------------===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//

#include "tcl/Runtime/Measure.h"
#include "tcl/Runtime/Kernel.h"
#include "tcl/Target/Platform.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstring>
#include <map>
#include <poll.h>
#include <sstream>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace mlir;
using namespace mlir::tcl;

llvm::StringRef mlir::tcl::toString(MeasureStatus status) {
  switch (status) {
  case MeasureStatus::Ok:
    return "ok";
  case MeasureStatus::CompileError:
    return "compile-error";
  case MeasureStatus::WrongResult:
    return "wrong-result";
  case MeasureStatus::RuntimeCrash:
    return "runtime-crash";
  case MeasureStatus::Timeout:
    return "timeout";
  case MeasureStatus::WorkerError:
    return "worker-error";
  }
  llvm_unreachable("unknown status");
}

static std::optional<MeasureStatus> parseStatus(llvm::StringRef text) {
  for (MeasureStatus status :
       {MeasureStatus::Ok, MeasureStatus::CompileError,
        MeasureStatus::WrongResult, MeasureStatus::RuntimeCrash,
        MeasureStatus::Timeout, MeasureStatus::WorkerError})
    if (toString(status) == text)
      return status;
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// Timing
//===----------------------------------------------------------------------===//

TimingStats mlir::tcl::timeRuns(const std::function<void()> &run,
                                unsigned warmup, unsigned repeats,
                                bool flushCache) {
  // Larger than the last-level cache of the machines tcl targets.
  static constexpr size_t kFlushBytes = 64 << 20;
  std::vector<char> flush(flushCache ? kFlushBytes : 0);
  for (unsigned i = 0; i < warmup; ++i)
    run();
  std::vector<double> seconds;
  for (unsigned i = 0; i < std::max(1u, repeats); ++i) {
    if (flushCache)
      for (size_t byte = 0; byte < flush.size(); byte += 64)
        flush[byte] = static_cast<char>(i + byte);
    auto start = std::chrono::steady_clock::now();
    run();
    auto end = std::chrono::steady_clock::now();
    seconds.push_back(std::chrono::duration<double>(end - start).count());
  }
  std::sort(seconds.begin(), seconds.end());
  TimingStats stats;
  stats.repeats = seconds.size();
  stats.minSeconds = seconds.front();
  stats.maxSeconds = seconds.back();
  size_t mid = seconds.size() / 2;
  stats.medianSeconds = seconds.size() % 2
                            ? seconds[mid]
                            : 0.5 * (seconds[mid - 1] + seconds[mid]);
  return stats;
}

//===----------------------------------------------------------------------===//
// Framing
//===----------------------------------------------------------------------===//

namespace {
/// Reads lines and byte blocks from a socket, optionally with a deadline.
class Reader {
public:
  explicit Reader(int fd) : fd(fd) {}

  using Deadline = std::optional<std::chrono::steady_clock::time_point>;
  enum class Outcome { Ok, Closed, TimedOut };

  Outcome readLine(std::string &line, Deadline deadline) {
    while (true) {
      size_t newline = buffer.find('\n');
      if (newline != std::string::npos) {
        line = buffer.substr(0, newline);
        buffer.erase(0, newline + 1);
        return Outcome::Ok;
      }
      if (Outcome outcome = fill(deadline); outcome != Outcome::Ok)
        return outcome;
    }
  }

  Outcome readBytes(size_t count, std::string &bytes, Deadline deadline) {
    while (buffer.size() < count)
      if (Outcome outcome = fill(deadline); outcome != Outcome::Ok)
        return outcome;
    bytes = buffer.substr(0, count);
    buffer.erase(0, count);
    return Outcome::Ok;
  }

private:
  Outcome fill(Deadline deadline) {
    if (deadline) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          *deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0)
        return Outcome::TimedOut;
      pollfd request{fd, POLLIN, 0};
      int ready = poll(&request, 1, static_cast<int>(left.count()));
      if (ready == 0)
        return Outcome::TimedOut;
      if (ready < 0 && errno == EINTR)
        return Outcome::Ok;
    }
    char chunk[1 << 16];
    ssize_t count = ::read(fd, chunk, sizeof(chunk));
    if (count < 0 && errno == EINTR)
      return Outcome::Ok;
    if (count <= 0)
      return Outcome::Closed;
    buffer.append(chunk, count);
    return Outcome::Ok;
  }

  int fd;
  std::string buffer;
};

/// Writes everything; never raises SIGPIPE (a dead peer is an error).
bool writeAll(int fd, const std::string &data) {
  size_t done = 0;
  while (done < data.size()) {
    ssize_t count =
        ::send(fd, data.data() + done, data.size() - done, MSG_NOSIGNAL);
    if (count < 0 && errno == EINTR)
      continue;
    if (count <= 0)
      return false;
    done += count;
  }
  return true;
}
} // namespace

//===----------------------------------------------------------------------===//
// Measurer (parent side)
//===----------------------------------------------------------------------===//

static std::string getDefaultWorkerPath() {
  if (const char *path = std::getenv("TCL_MEASURE_WORKER"))
    return path;
  static int anchor;
  std::string self = llvm::sys::fs::getMainExecutable(nullptr, &anchor);
  llvm::SmallString<256> path(llvm::sys::path::parent_path(self));
  llvm::sys::path::append(path, "tcl-measure-worker");
  return std::string(path);
}

Measurer::Measurer(MeasureOptions options, std::string workerPath)
    : options(options), workerPath(workerPath.empty() ? getDefaultWorkerPath()
                                                      : std::move(workerPath)) {
}

Measurer::~Measurer() { stopWorker(/*kill=*/false); }

bool Measurer::ensureWorker(std::string &error) {
  if (worker > 0)
    return true;
  if (!llvm::sys::fs::can_execute(workerPath)) {
    error = "no measurement worker at " + workerPath;
    return false;
  }
  int fds[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) {
    error = std::string("socketpair: ") + std::strerror(errno);
    return false;
  }
  pid_t pid = fork();
  if (pid < 0) {
    error = std::string("fork: ") + std::strerror(errno);
    close(fds[0]);
    close(fds[1]);
    return false;
  }
  if (pid == 0) {
    // The worker talks on stdin/stdout; dup2 clears CLOEXEC on the copies.
    dup2(fds[1], STDIN_FILENO);
    dup2(fds[1], STDOUT_FILENO);
    execl(workerPath.c_str(), workerPath.c_str(), static_cast<char *>(nullptr));
    _exit(127);
  }
  close(fds[1]);
  worker = pid;
  socket = fds[0];
  ++workersStarted;
  return true;
}

std::string Measurer::stopWorker(bool kill) {
  if (worker <= 0)
    return "";
  if (kill)
    ::kill(worker, SIGKILL);
  close(socket);
  socket = -1;
  int status = 0;
  waitpid(worker, &status, 0);
  worker = -1;
  if (WIFSIGNALED(status))
    return std::string("killed by signal ") + std::to_string(WTERMSIG(status)) +
           " (" + strsignal(WTERMSIG(status)) + ")";
  if (WIFEXITED(status))
    return "exited with status " + std::to_string(WEXITSTATUS(status));
  return "ended";
}

std::vector<MeasureResult>
Measurer::measure(llvm::ArrayRef<MeasureInput> batch) {
  std::vector<MeasureResult> results;
  results.reserve(batch.size());
  for (const MeasureInput &input : batch)
    results.push_back(measureOne(input));
  return results;
}

MeasureResult Measurer::measureOne(const MeasureInput &input) {
  MeasureResult result;
  std::string error;
  if (!ensureWorker(error)) {
    result.message = error;
    return result;
  }
  std::ostringstream header;
  header << "MEASURE " << input.entry << ' ' << input.target << ' '
         << input.numThreads << ' ' << options.warmup << ' ' << options.repeats
         << ' ' << (options.flushCache ? 1 : 0) << ' ' << options.tolerance
         << ' ' << input.workload.size() << ' ' << input.candidate.size()
         << '\n';
  if (!writeAll(socket, header.str() + input.workload + input.candidate)) {
    result.message = "the worker died before the request (" +
                     stopWorker(/*kill=*/true) + ")";
    return result;
  }

  auto deadline =
      std::chrono::steady_clock::now() +
      std::chrono::duration_cast<std::chrono::steady_clock::duration>(
          std::chrono::duration<double>(options.timeoutSeconds));
  Reader reader(socket);
  std::string phase = "start", line;
  while (true) {
    Reader::Outcome outcome = reader.readLine(line, deadline);
    if (outcome == Reader::Outcome::TimedOut) {
      stopWorker(/*kill=*/true);
      result.status = MeasureStatus::Timeout;
      result.message = "no result within " +
                       std::to_string(options.timeoutSeconds) +
                       " s (phase: " + phase + ")";
      return result;
    }
    if (outcome == Reader::Outcome::Closed) {
      std::string how = stopWorker(/*kill=*/false);
      // A crash while compiling is the compiler's failure on this
      // candidate; a crash while running is the kernel's.
      result.status = phase == "run"       ? MeasureStatus::RuntimeCrash
                      : phase == "compile" ? MeasureStatus::CompileError
                                           : MeasureStatus::WorkerError;
      result.message = "the worker " + how + " (phase: " + phase + ")";
      return result;
    }
    llvm::StringRef text(line);
    if (text.consume_front("PHASE ")) {
      phase = text.str();
      continue;
    }
    if (!text.consume_front("RESULT ")) {
      stopWorker(/*kill=*/true);
      result.message = "unexpected reply from the worker: " + line;
      return result;
    }
    std::istringstream fields{text.str()};
    std::string status;
    size_t messageBytes = 0;
    fields >> status >> result.minSeconds >> result.medianSeconds >>
        result.maxSeconds >> result.repeats >> result.maxError >> messageBytes;
    std::optional<MeasureStatus> parsed = parseStatus(status);
    if (!fields || !parsed ||
        reader.readBytes(messageBytes, result.message, deadline) !=
            Reader::Outcome::Ok) {
      stopWorker(/*kill=*/true);
      result.status = MeasureStatus::WorkerError;
      result.message = "malformed reply from the worker: " + line;
      return result;
    }
    result.status = *parsed;
    return result;
  }
}

//===----------------------------------------------------------------------===//
// Worker
//===----------------------------------------------------------------------===//

namespace {
struct Request {
  std::string entry, target, workload, candidate;
  unsigned threads = 1, warmup = 0, repeats = 1;
  bool flush = false;
  float tolerance = 1e-3f;
};

class Worker {
public:
  explicit Worker(int fd) : fd(fd) {}

  int serve() {
    Reader reader(fd);
    std::string line;
    while (reader.readLine(line, std::nullopt) == Reader::Outcome::Ok) {
      Request request;
      std::istringstream fields(line);
      std::string verb;
      size_t workloadBytes = 0, candidateBytes = 0;
      int flush = 0;
      fields >> verb >> request.entry >> request.target >> request.threads >>
          request.warmup >> request.repeats >> flush >> request.tolerance >>
          workloadBytes >> candidateBytes;
      if (!fields || verb != "MEASURE")
        return 2;
      request.flush = flush != 0;
      if (reader.readBytes(workloadBytes, request.workload, std::nullopt) !=
              Reader::Outcome::Ok ||
          reader.readBytes(candidateBytes, request.candidate, std::nullopt) !=
              Reader::Outcome::Ok)
        return 2;
      if (!reply(handle(request)))
        return 2;
    }
    return 0;
  }

private:
  bool phase(llvm::StringRef name) {
    return writeAll(fd, ("PHASE " + name + "\n").str());
  }

  bool reply(const MeasureResult &result) {
    std::ostringstream out;
    out.precision(17);
    out << "RESULT " << toString(result.status).str() << ' '
        << result.minSeconds << ' ' << result.medianSeconds << ' '
        << result.maxSeconds << ' ' << result.repeats << ' ' << result.maxError
        << ' ' << result.message.size() << '\n'
        << result.message;
    return writeAll(fd, out.str());
  }

  static MeasureResult failure(MeasureStatus status, std::string message) {
    MeasureResult result;
    result.status = status;
    result.message = std::move(message);
    return result;
  }

  MeasureResult handle(const Request &request) {
    const Platform *platform = lookupPlatform(request.target);
    if (!platform || platform->kind != PlatformKind::CPU)
      return failure(MeasureStatus::CompileError,
                     "'" + request.target + "' is not a CPU platform");

    phase("compile");
    LoweringOptions options{request.target, request.threads, true};
    auto candidate = Kernel::jit(request.candidate, request.entry, options);
    if (!candidate)
      return failure(MeasureStatus::CompileError,
                     llvm::toString(candidate.takeError()));

    phase("reference");
    std::string key = request.entry + '\0' + request.workload;
    auto cached = references.find(key);
    if (cached == references.end()) {
      auto workload = stripSchedules(request.workload);
      if (!workload)
        return failure(MeasureStatus::CompileError,
                       "workload: " + llvm::toString(workload.takeError()));
      auto reference = Kernel::jit(*workload, request.entry,
                                   LoweringOptions{request.target, 1, false});
      if (!reference)
        return failure(MeasureStatus::CompileError,
                       "workload: " + llvm::toString(reference.takeError()));
      std::vector<Buffer> inputs =
          reference->getSignature().makeRandomInputs(/*seed=*/0);
      std::vector<Buffer> outputs = reference->getSignature().makeOutputs();
      if (llvm::Error error = reference->run(inputs, outputs))
        return failure(MeasureStatus::CompileError,
                       "workload: " + llvm::toString(std::move(error)));
      cached =
          references
              .emplace(key, Reference{reference->getSignature(),
                                      std::move(inputs), std::move(outputs)})
              .first;
    }
    const Reference &reference = cached->second;
    if (candidate->getSignature().inputs != reference.signature.inputs ||
        candidate->getSignature().outputs != reference.signature.outputs)
      return failure(MeasureStatus::CompileError,
                     "the candidate's signature differs from the workload's");

    phase("run");
    std::vector<Buffer> outputs = candidate->getSignature().makeOutputs();
    if (llvm::Error error = candidate->run(reference.inputs, outputs))
      return failure(MeasureStatus::CompileError,
                     llvm::toString(std::move(error)));
    double maxError = maxRelativeError(outputs, reference.outputs);
    if (maxError > request.tolerance) {
      MeasureResult result =
          failure(MeasureStatus::WrongResult,
                  "output differs from the reference: max relative error " +
                      std::to_string(maxError));
      result.maxError = maxError;
      return result;
    }
    TimingStats stats = timeRuns(
        [&] { llvm::consumeError(candidate->run(reference.inputs, outputs)); },
        request.warmup, request.repeats, request.flush);
    MeasureResult result;
    result.status = MeasureStatus::Ok;
    result.minSeconds = stats.minSeconds;
    result.medianSeconds = stats.medianSeconds;
    result.maxSeconds = stats.maxSeconds;
    result.repeats = stats.repeats;
    result.maxError = maxError;
    return result;
  }

  struct Reference {
    KernelSignature signature;
    std::vector<Buffer> inputs;
    std::vector<Buffer> outputs;
  };

  int fd;
  std::map<std::string, Reference> references;
};
} // namespace

int mlir::tcl::runMeasureWorker(int fd) { return Worker(fd).serve(); }
