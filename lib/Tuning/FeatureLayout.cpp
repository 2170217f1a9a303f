//===- FeatureLayout.cpp - What the search and the learned models share ---===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// The parts of the cost-model interface (CostModel.h) that the learned
// models' library (libTclLearned.so, loaded only when a search asks for a
// learned model) needs as much as the search: the base class's defaults and
// the layout of the features. A small library of its own, linked into both,
// so that the library does not need the search and the search does not load
// libtorch.
//
//===----------------------------------------------------------------------===//

#include "tcl/Tuning/CostModel.h"

using namespace mlir;
using namespace mlir::tcl;

CostModel::~CostModel() = default;

llvm::Expected<ProgramEmbeddings>
CostModel::embed(llvm::ArrayRef<std::vector<float>>) {
  return llvm::createStringError(
      llvm::inconvertibleErrorCode(),
      "the " + getName() +
          " cost model has no embedding of programs (mamba, tlp and mlp do)");
}

llvm::Error CostModel::startActiveColumn() {
  return llvm::createStringError(
      llvm::inconvertibleErrorCode(),
      "the " + getName() +
          " cost model has no active column to learn a new platform in "
          "(mamba, tlp and mlp loaded from a file do)");
}

namespace {

/// The summary: sum and max of each token column, the length, then the
/// task and hardware columns (scheduleFeatures).
constexpr unsigned kSummaryScheduleWidth = 2 * Tokenizer::kTokenWidth + 1;
constexpr unsigned kSummaryWidth =
    kSummaryScheduleWidth + Tokenizer::kTaskWidth + Tokenizer::kHardwareWidth;

} // namespace

std::string mlir::tcl::getFeatureLayout(FeatureKind kind) {
  std::string version = "-v" + std::to_string(Tokenizer::kLayoutVersion) + "-";
  if (kind == FeatureKind::Summary)
    return "summary" + version + "1x" + std::to_string(kSummaryWidth);
  return "tokens" + version + std::to_string(Tokenizer().getMaxLength()) + "x" +
         std::to_string(Tokenizer::kWidth);
}

FeatureColumns mlir::tcl::getFeatureColumns(FeatureKind kind,
                                            FeaturePart part) {
  // Both layouts: schedule columns, then task, then hardware, in rows of
  // `width`.
  unsigned schedule = kind == FeatureKind::Summary ? kSummaryScheduleWidth
                                                   : Tokenizer::kTokenWidth;
  unsigned width = kind == FeatureKind::Summary ? kSummaryWidth
                                                : unsigned(Tokenizer::kWidth);
  unsigned begin = part == FeaturePart::Schedule ? 0
                   : part == FeaturePart::Task
                       ? schedule
                       : schedule + Tokenizer::kTaskWidth;
  unsigned end = part == FeaturePart::Schedule ? schedule
                 : part == FeaturePart::Task ? schedule + Tokenizer::kTaskWidth
                                             : width;
  return {begin, end, width};
}

void mlir::tcl::clearFeaturePart(std::vector<float> &features, FeatureKind kind,
                                 FeaturePart part) {
  FeatureColumns columns = getFeatureColumns(kind, part);
  for (size_t row = 0; row + columns.rowWidth <= features.size();
       row += columns.rowWidth)
    std::fill(features.begin() + row + columns.begin,
              features.begin() + row + columns.end, 0.0f);
}
