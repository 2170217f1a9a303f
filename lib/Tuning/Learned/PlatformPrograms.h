//===- PlatformPrograms.h - A platform's programs, task by task -*- C++ -*-===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// What the continual model (Continual.cpp) reads of a platform's programs
// besides training on them: their tasks, how well a scoring picks each
// task's best, how alike two scorings order them, the tasks held back to
// judge a column, and the hardware columns that say which platform they
// are of. Plain types; no torch.
//
//===----------------------------------------------------------------------===//

#ifndef TCL_LIB_TUNING_LEARNED_PLATFORMPROGRAMS_H
#define TCL_LIB_TUNING_LEARNED_PLATFORMPROGRAMS_H

#include "tcl/Tuning/Learned/ModelConfig.h"

#include "llvm/ADT/ArrayRef.h"

#include <cstdint>
#include <map>
#include <utility>
#include <vector>

namespace mlir::tcl::learned {

/// The indices of `set`'s programs, task by task.
std::map<unsigned, std::vector<size_t>> programsByTask(const ProgramSet &set);

/// Top-1 of `scores` on `set`: over its tasks (alike), the label of the
/// program scored highest relative to the task's best label. Metrics.h's
/// top-k score on labels (throughputs) rather than latencies.
double topOne(const ProgramSet &set, llvm::ArrayRef<float> scores);

/// How alike two scorings of `set` order it: over its tasks (alike), the
/// share of the pairs `reference` orders strictly that `scores` orders the
/// same way.
double orderAgreement(const ProgramSet &set, llvm::ArrayRef<float> reference,
                      llvm::ArrayRef<float> scores);

/// `data` split by task into what a column learns and what judges it: the
/// programs of about `share` of the tasks that can judge a ranking (two
/// programs or more, not all of one label), drawn by `seed`, are held
/// back. Nothing is held back when that would leave fewer than two tasks on
/// either side.
std::pair<ProgramSet, ProgramSet> holdBackTasks(const ProgramSet &data,
                                                double share, uint64_t seed);

/// The hardware columns [begin, end) of `set`'s first row that has any
/// (every program of a platform has the same); empty if none has.
std::vector<float> hardwareOf(const ProgramSet &set, unsigned begin,
                              unsigned end);

/// `rows` rows of `width` floats at `inputs`, each row that has hardware
/// columns (any non-zero in [begin, begin + hardware.size())) taking
/// `hardware` there: the programs as another platform's. Padding rows stay
/// zero.
std::vector<float> withHardware(const float *inputs, size_t rows,
                                unsigned width, unsigned begin,
                                llvm::ArrayRef<float> hardware);

} // namespace mlir::tcl::learned

#endif // TCL_LIB_TUNING_LEARNED_PLATFORMPROGRAMS_H
