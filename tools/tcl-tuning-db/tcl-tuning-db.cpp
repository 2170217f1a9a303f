//===- tcl-tuning-db.cpp - Inspect, export and import tuning databases ----===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
//   tcl-tuning-db DB summary            per workload and platform: records,
//                                       failures, best latency and GFLOP/s
//   tcl-tuning-db DB export [-o FILE]   every record as JSON lines
//   tcl-tuning-db DB import FILE        adds the records of a JSON lines file
//   tcl-tuning-db DB evaluate [--platform P]
//                                       trains each cost model on every other
//                                       workload, ranks the held-out ones
//
//===----------------------------------------------------------------------===//

#include "tcl/Registration/Registration.h"
#include "tcl/Tuning/Search/Database.h"
#include "tcl/Tuning/Search/Evaluation.h"

#include "mlir/IR/MLIRContext.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/ToolOutputFile.h"

using namespace mlir::tcl;

static llvm::cl::opt<std::string> databasePath(llvm::cl::Positional,
                                               llvm::cl::desc("<database>"),
                                               llvm::cl::Required);
static llvm::cl::opt<std::string>
    command(llvm::cl::Positional, llvm::cl::desc("<summary | export | import>"),
            llvm::cl::init("summary"));
static llvm::cl::opt<std::string> file(llvm::cl::Positional,
                                       llvm::cl::desc("[file to import]"),
                                       llvm::cl::init(""));
static llvm::cl::opt<std::string>
    outputPath("o", llvm::cl::desc("Export to FILE"), llvm::cl::init("-"));

static llvm::cl::opt<std::string>
    platformName("platform",
                 llvm::cl::desc("Platform whose records to evaluate on"),
                 llvm::cl::init("x86-avx512/1t"));

static int fail(llvm::Error error) {
  llvm::errs() << "tcl-tuning-db: " << llvm::toString(std::move(error)) << "\n";
  return 1;
}

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  llvm::cl::ParseCommandLineOptions(argc, argv, "tcl tuning database tool\n");
  auto database = TuningDatabase::open(databasePath);
  if (!database)
    return fail(database.takeError());
  if (command == "summary") {
    llvm::outs() << "| workload | platform | records | failed | best (ms) "
                    "| GFLOP/s |\n| --- | --- | ---: | ---: | ---: | ---: |\n";
    for (const TuningDatabase::Summary &row : (*database)->summarize()) {
      std::string key = row.workloadKey.substr(0, 100);
      llvm::outs() << "| " << key << (row.workloadKey.size() > 100 ? "..." : "")
                   << " | " << row.platform << " | " << row.records << " | "
                   << row.failures << " | "
                   << llvm::format("%.4f", row.bestSeconds * 1e3) << " | "
                   << llvm::format("%.1f",
                                   row.bestSeconds > 0
                                       ? row.flops / row.bestSeconds * 1e-9
                                       : 0.0)
                   << " |\n";
    }
    return 0;
  }
  if (command == "export") {
    std::error_code ec;
    llvm::ToolOutputFile output(outputPath, ec, llvm::sys::fs::OF_Text);
    if (ec)
      return fail(
          llvm::createStringError(ec, "cannot write '" + outputPath + "'"));
    if (llvm::Error error = (*database)->exportJsonLines(output.os()))
      return fail(std::move(error));
    output.keep();
    return 0;
  }
  if (command == "import") {
    auto buffer = llvm::MemoryBuffer::getFileOrSTDIN(file);
    if (!buffer)
      return fail(llvm::createStringError(buffer.getError(),
                                          "cannot read '" + file + "'"));
    auto added = (*database)->importJsonLines((*buffer)->getBuffer());
    if (!added)
      return fail(added.takeError());
    llvm::outs() << "imported " << *added << " records\n";
    return 0;
  }
  if (command == "evaluate") {
    mlir::DialectRegistry registry;
    registerTclDialects(registry);
    mlir::MLIRContext context(registry);
    context.loadAllAvailableDialects();
    llvm::outs() << "| cost model | train tasks / records | held-out tasks / "
                    "records | top-1 | top-5 | Spearman | NDCG@5 | pairwise "
                    "accuracy | training (s) |\n| --- | --- | --- | ---: | "
                    "---: | ---: | ---: | ---: | ---: |\n";
    for (const std::string &name : getCostModelNames()) {
      std::unique_ptr<CostModel> model = createCostModel(name, /*seed=*/1);
      auto result =
          evaluateCostModel(**database, platformName, *model, &context);
      if (!result)
        return fail(result.takeError());
      llvm::outs() << llvm::formatv(
          "| {0} | {1} / {2} | {3} / {4} | {5:F3} | {6:F3} | {7:F3} | "
          "{8:F3} | {9:F3} | {10:F2} |\n",
          name, result->trainTasks, result->trainRecords, result->testTasks,
          result->testRecords, result->top1, result->top5, result->spearman,
          result->ndcg5, result->pairwiseAccuracy, result->trainSeconds);
    }
    return 0;
  }
  return fail(llvm::createStringError(llvm::inconvertibleErrorCode(),
                                      "unknown command '" + command +
                                          "' (summary, export, import, "
                                          "evaluate)"));
}
