//===- ScoreCorrection.h - A tuning run's correction of a model -*- C++ -*-===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// How a pretrained cost model learns from the measurements of one tuning run
// without forgetting what it learned before: its network stays as it is,
// and a Gaussian process over its embeddings (the pooled hidden state the
// decoder reads) learns where the run's measurements disagree with its
// scores. Fine-tuning the whole network on a run's few hundred
// measurements, a few dozen steps an update, stalled in the search (issue
// 17); refitting from scratch on every update, as the search does with
// XGBoost, is what this does for the part the run can teach: per task,
//
//   corrected(x) = mean_t + b * (score(x) - meanScore_t)
//                  + k(x, X_t) (K_t + noise I)^-1 r_t,
//
// where X_t are the task's measured programs, r_t their labels' residuals
// from the first two terms, k an RBF kernel over embeddings and b one scale
// for all tasks (least squares on the run's measurements, never negative).
// The kernel's length scale and its share of the residuals' variance are
// the likeliest of a few given the measurements, no kernel at all among
// them: where the residuals look like noise the model's scores stand.
// With no measurement of a task the scores keep the model's order; near
// measured programs they follow the measurements. Labels are relative to
// each task's best, so tasks never share a kernel: a candidate's residual
// is read from its own task's measurements only.
//
//===----------------------------------------------------------------------===//

#ifndef TCL_TUNING_LEARNED_SCORECORRECTION_H
#define TCL_TUNING_LEARNED_SCORECORRECTION_H

#include "llvm/ADT/ArrayRef.h"

#include <cstddef>
#include <vector>

namespace mlir::tcl::learned {

/// A program as the correction sees it: the model's score and embedding.
struct ScoredProgram {
  float score = 0;
  llvm::ArrayRef<float> embedding;
};

struct ScoreCorrectionOptions {
  /// The shares of the residuals' variance the kernel may explain (the
  /// rest is noise, at least minNoiseVariance: a label's timing spread of
  /// ~3 %); none competes too (the residuals are noise, the kernel off).
  std::vector<double> kernelShares = {0.5, 0.8, 0.95};
  double minNoiseVariance = 0.03 * 0.03;
  /// The kernel's length scales to choose from, as multiples of the median
  /// distance between two measured programs of one task: the one under
  /// which the run's measurements are likeliest (marginal likelihood).
  std::vector<double> lengthScaleFactors = {0.125, 0.25, 0.5, 1.0, 2.0};
  /// The most recent measured programs of a task the kernel reads (the
  /// solve is cubic in them).
  size_t maxProgramsPerTask = 256;
};

class ScoreCorrection {
public:
  explicit ScoreCorrection(ScoreCorrectionOptions options = {})
      : options(options) {}

  /// Fits to measured programs: their model view, label and task (any
  /// unsigned id). Replaces the previous fit; embeddings are copied.
  void fit(llvm::ArrayRef<ScoredProgram> programs, llvm::ArrayRef<float> labels,
           llvm::ArrayRef<unsigned> tasks);

  /// Corrected scores of `programs` of task `task` (the model's own scores,
  /// scaled, for a task without measurements).
  std::vector<double> correct(unsigned task,
                              llvm::ArrayRef<ScoredProgram> programs) const;

  bool isFitted() const { return fitted; }
  /// The scale b of the model's scores (0: the run's measurements do not
  /// follow them; the kernel alone ranks).
  double getScoreScale() const { return scale; }
  /// The kernel's length scale and variance (0: no kernel; the residuals
  /// look like noise, or no task has two programs).
  double getLengthScale() const { return lengthScale; }
  double getKernelVariance() const { return kernelVariance; }

private:
  struct TaskFit {
    unsigned task = 0;
    double meanLabel = 0, meanScore = 0;
    unsigned width = 0;
    /// Measured programs' embeddings, row after row, and their weights
    /// (K + noise I)^-1 r.
    std::vector<float> embeddings;
    std::vector<double> weights;
  };
  const TaskFit *find(unsigned task) const;

  ScoreCorrectionOptions options;
  std::vector<TaskFit> fits;
  double scale = 1, lengthScale = 0, kernelVariance = 0;
  bool fitted = false;
};

} // namespace mlir::tcl::learned

#endif // TCL_TUNING_LEARNED_SCORECORRECTION_H
