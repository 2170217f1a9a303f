//===- PlainLoops.h - Outputs checked against plain loops -------*- C++ -*-===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//

#ifndef TCL_UNITTESTS_SUPPORT_PLAINLOOPS_H
#define TCL_UNITTESTS_SUPPORT_PLAINLOOPS_H

#include "tcl/Runtime/Kernel.h"
#include "tcl/Transforms/Pipelines.h"

#include <gtest/gtest.h>

namespace mlir::tcl::test {

/// Runs `kernel` and the function `entry` of `source` as plain loops on
/// this host (no schedules) on the same random inputs of `seed`: their
/// outputs must agree within kOutputTolerance. `what` names the case.
inline void expectMatchesPlainLoops(Kernel &kernel, llvm::StringRef source,
                                    llvm::StringRef entry, uint64_t seed,
                                    const std::string &what) {
  auto naiveSource = stripSchedules(source);
  ASSERT_TRUE(bool(naiveSource)) << llvm::toString(naiveSource.takeError());
  auto naive = Kernel::jit(*naiveSource, entry,
                           LoweringOptions(Platform::host(), false));
  ASSERT_TRUE(bool(naive)) << llvm::toString(naive.takeError());
  std::vector<Buffer> inputs = kernel.getSignature().makeRandomInputs(seed);
  std::vector<Buffer> outputs = kernel.getSignature().makeOutputs();
  std::vector<Buffer> expected = naive->getSignature().makeOutputs();
  llvm::Error run = kernel.run(inputs, outputs);
  ASSERT_FALSE(bool(run)) << what << ": " << llvm::toString(std::move(run));
  ASSERT_FALSE(bool(naive->run(inputs, expected)));
  EXPECT_LE(maxRelativeError(outputs, expected), kOutputTolerance) << what;
}

} // namespace mlir::tcl::test

#endif // TCL_UNITTESTS_SUPPORT_PLAINLOOPS_H
