//===- tcl-fuzz-schedule.cpp - libFuzzer target: schedules ----------------===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// Feeds each input, as the text of `tcl.sched.schedule` ops, through what
// `tcl-opt --tcl-apply-schedule` and the lowering pipeline do with a
// schedule: the text is appended to a fixed payload of three small tasks,
// parsed and verified (the verifier replays the primitives), and applied by
// the --tcl-apply-schedule pass. Findings: a crash or sanitizer report, a
// failure that emits no error (bad input must say why), and a schedule that
// applies but leaves IR that does not verify. See the README's "Fuzzing".
//
//===----------------------------------------------------------------------===//

#include "tcl/Dialect/Tcl/IR/TclOps.h"
#include "tcl/Registration/Registration.h"
#include "tcl/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <cstdlib>

using namespace mlir;

namespace {

/// The payload: the tasks of the shapes tcl schedules most (a matmul with a
/// bias + ReLU epilogue, a convolution and a pool, each with a partial tile
/// for most tile sizes), small enough that any schedule applies quickly.
/// The seed corpus (fuzz/corpus/schedule) schedules these tasks.
constexpr const char kPayload[] = R"mlir(
func.func @mm(%a: tensor<30x20xf32>, %b: tensor<20x48xf32>,
              %bias: tensor<48xf32>) -> tensor<30x48xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<30x48xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<30x48xf32>) -> tensor<30x48xf32>
  %0 = linalg.matmul {tcl.task = "mm"}
      ins(%a, %b : tensor<30x20xf32>, tensor<20x48xf32>)
      outs(%c : tensor<30x48xf32>) -> tensor<30x48xf32>
  %1 = linalg.generic {tcl.epilogue = "mm",
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>,
                       affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%0, %bias : tensor<30x48xf32>, tensor<48xf32>)
      outs(%e : tensor<30x48xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  } -> tensor<30x48xf32>
  return %1 : tensor<30x48xf32>
}
func.func @conv(%in: tensor<1x10x10x8xf32>, %w: tensor<3x3x8x16xf32>,
                %out: tensor<1x8x8x16xf32>) -> tensor<1x8x8x16xf32> {
  %0 = linalg.conv_2d_nhwc_hwcf {tcl.task = "conv",
      dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%in, %w : tensor<1x10x10x8xf32>, tensor<3x3x8x16xf32>)
      outs(%out : tensor<1x8x8x16xf32>) -> tensor<1x8x8x16xf32>
  return %0 : tensor<1x8x8x16xf32>
}
func.func @pool(%in: tensor<1x8x8x16xf32>, %win: tensor<2x2xf32>,
                %out: tensor<1x4x4x16xf32>) -> tensor<1x4x4x16xf32> {
  %0 = linalg.pooling_nhwc_max {tcl.task = "pool",
      dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%in, %win : tensor<1x8x8x16xf32>, tensor<2x2xf32>)
      outs(%out : tensor<1x4x4x16xf32>) -> tensor<1x4x4x16xf32>
  return %0 : tensor<1x4x4x16xf32>
}
)mlir";
constexpr int kPayloadFunctions = 3;

[[noreturn]] void finding(llvm::StringRef what, llvm::StringRef diagnostics) {
  llvm::errs() << diagnostics << "tcl-fuzz-schedule: " << what << "\n";
  abort();
}

MLIRContext &getContext() {
  // One context for all inputs (creating one costs more than most inputs):
  // what a schedule adds to it (a few attributes, the payload's tile types)
  // is small and bounded by the payload's shapes.
  static MLIRContext *context = [] {
    DialectRegistry registry;
    tcl::registerTclDialects(registry);
    auto *context = new MLIRContext(registry, MLIRContext::Threading::DISABLED);
    context->loadAllAvailableDialects();
    context->printOpOnDiagnostic(false);
    return context;
  }();
  return *context;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  MLIRContext &context = getContext();
  bool error = false;
  std::string diagnostics;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diagnostic) {
    error |= diagnostic.getSeverity() == DiagnosticSeverity::Error;
    diagnostics += diagnostic.str() + "\n";
    return success();
  });

  std::string text = kPayload;
  text.append(reinterpret_cast<const char *>(data), size);
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, &context);
  if (!module) {
    if (!error)
      finding("the input does not parse, without an error", diagnostics);
    return 0;
  }
  // The input may only add schedules; other ops would fuzz MLIR's parser
  // and upstream dialects, not tcl.
  int functions = 0;
  for (Operation &op : module->getBody()->getOperations()) {
    if (isa<func::FuncOp>(op))
      ++functions;
    else if (!isa<tcl::ScheduleOp>(op))
      return -1;
  }
  if (functions != kPayloadFunctions)
    return -1;

  PassManager pm(&context);
  // Verified below, to tell a pass that builds invalid IR from a schedule
  // that is refused.
  pm.enableVerifier(false);
  pm.addPass(tcl::createApplySchedule());
  if (failed(pm.run(*module))) {
    if (!error)
      finding("the schedule is refused without an error", diagnostics);
    return 0;
  }
  if (failed(verify(*module)))
    finding("the schedule applied and left IR that does not verify",
            diagnostics);
  return 0;
}
