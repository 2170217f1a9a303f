//===- LearnedCostModel.h - Samples as a learned model's input --*- C++ -*-===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// The bridge from the search's samples (CostModel.h) to the learned models'
// plain program sets (tcl/Tuning/Learned/ModelConfig.h): the token matrices
// of the sequence models, the summary vectors of the MLP.
//
//===----------------------------------------------------------------------===//

#ifndef TCL_TUNING_LEARNED_LEARNEDCOSTMODEL_H
#define TCL_TUNING_LEARNED_LEARNEDCOSTMODEL_H

#include "tcl/Tuning/CostModel.h"
#include "tcl/Tuning/Learned/ModelConfig.h"

namespace mlir::tcl {

/// `samples` (features of `kind`, all of one width) as a program set:
/// [Tokenizer rows, Tokenizer::kWidth] programs for Sequence features,
/// [1, width] for Summary ones. An error if the widths differ.
llvm::Expected<learned::ProgramSet>
makeProgramSet(llvm::ArrayRef<CostSample> samples, FeatureKind kind);

/// The training options of `options` for one training run from scratch
/// (options.epochs; the seed is the caller's). An error for an unknown loss.
llvm::Expected<learned::TrainOptions>
makeTrainOptions(const LearnedModelOptions &options);

} // namespace mlir::tcl

#endif // TCL_TUNING_LEARNED_LEARNEDCOSTMODEL_H
