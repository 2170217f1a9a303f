//===- ToolOptions.h - Command-line flags the tools share -------*- C++ -*-===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// Flags that several tools take, declared once: each tool instantiates a
// group (statically, in the option category its --help lists) with its own
// defaults, and reads the option struct the flags stand for.
//
//===----------------------------------------------------------------------===//

#ifndef TCL_DRIVER_TOOLOPTIONS_H
#define TCL_DRIVER_TOOLOPTIONS_H

#include "tcl/Runtime/Measure.h"
#include "tcl/Target/Platform.h"

#include "llvm/Support/CommandLine.h"

namespace mlir::tcl {

/// --target and --num-threads: the platform to compile for.
class PlatformFlags {
public:
  /// `defaultTargetHelp` says what an absent --target means.
  PlatformFlags(llvm::cl::OptionCategory &category,
                llvm::StringRef defaultTargetHelp);
  /// The target named by --target; null without one; an error naming the
  /// known targets for an unknown one.
  llvm::Expected<const TargetArch *> getTarget() const;
  unsigned getThreads() const { return threads; }
  /// The platform of --target (else `fallback`) and --num-threads.
  llvm::Expected<Platform> getPlatform(const TargetArch &fallback) const;

private:
  std::string targetHelp;
  llvm::cl::opt<std::string> target;
  llvm::cl::opt<unsigned> threads;
};

/// --measure-repeats, --measure-timeout, --measure-cold-caches and
/// --parallel-builds: how candidates are measured (MeasureOptions).
class MeasureFlags {
public:
  MeasureFlags(llvm::cl::OptionCategory &category,
               const MeasureOptions &defaults);
  /// The flags' MeasureOptions (--parallel-builds 0: one build a core).
  MeasureOptions get() const;

private:
  MeasureOptions defaults;
  llvm::cl::opt<unsigned> repeats;
  llvm::cl::opt<double> timeoutSeconds;
  llvm::cl::opt<bool> coldCaches;
  llvm::cl::opt<unsigned> parallelBuilds;
};

/// --seed, --batch-size, --sampler and --committee-members of a search.
class SearchFlags {
public:
  SearchFlags(llvm::cl::OptionCategory &category, llvm::StringRef seedHelp,
              llvm::StringRef batchHelp, unsigned defaultBatchSize);
  uint64_t getSeed() const { return seed; }
  bool hasSeed() const { return seed.getNumOccurrences() > 0; }
  unsigned getBatchSize() const { return batchSize; }
  /// Which candidates of a round to measure (createSampler's names), and
  /// whether --sampler was given (else the tool chooses).
  const std::string &getSampler() const { return sampler; }
  bool hasSampler() const { return sampler.getNumOccurrences() > 0; }
  /// Models beside the search's whose spread is RDU's uncertainty.
  unsigned getCommitteeMembers() const { return committeeMembers; }

private:
  llvm::cl::opt<uint64_t> seed;
  llvm::cl::opt<unsigned> batchSize;
  llvm::cl::opt<std::string> sampler;
  llvm::cl::opt<unsigned> committeeMembers;
};

/// The pretrained checkpoint shipped for the learned cost model `name`:
/// share/tcl/cost-models/<name>-cpu.bin beside the bin/ directory of the
/// running tool (getInstallPath), in the build tree as in an installation;
/// "" if there is none.
std::string findPretrainedCostModel(llvm::StringRef name);

} // namespace mlir::tcl

#endif // TCL_DRIVER_TOOLOPTIONS_H
