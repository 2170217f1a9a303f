//===- FeatureModel.h - A stand-in cost model for the tests -----*- C++ -*-===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//

#ifndef TCL_UNITTESTS_TUNING_FEATUREMODEL_H
#define TCL_UNITTESTS_TUNING_FEATUREMODEL_H

#include "tcl/Tuning/CostModel.h"

namespace mlir::tcl::test {

/// A stand-in model whose score is a program's first feature and whose
/// embedding is its features (two of them, where the test embeds);
/// counts its updates in `updates` (if given).
class FeatureModel : public CostModel {
public:
  explicit FeatureModel(unsigned *updates = nullptr) : updates(updates) {}
  llvm::StringRef getName() const override { return "features"; }
  llvm::Error update(llvm::ArrayRef<CostSample>) override {
    if (updates)
      ++*updates;
    return llvm::Error::success();
  }
  std::vector<double>
  predict(llvm::ArrayRef<std::vector<float>> features) override {
    std::vector<double> scores;
    for (const std::vector<float> &program : features)
      scores.push_back(program[0]);
    return scores;
  }
  llvm::Expected<ProgramEmbeddings>
  embed(llvm::ArrayRef<std::vector<float>> features) override {
    ProgramEmbeddings result;
    result.width = 2;
    for (const std::vector<float> &program : features)
      result.values.insert(result.values.end(), program.begin(), program.end());
    return result;
  }
  llvm::Error save(llvm::StringRef) const override {
    return llvm::Error::success();
  }
  llvm::Error load(llvm::StringRef) override { return llvm::Error::success(); }

private:
  unsigned *updates;
};

} // namespace mlir::tcl::test

#endif // TCL_UNITTESTS_TUNING_FEATUREMODEL_H
