//===- ModelConfig.cpp - Plain types of the learned cost models -----------===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// The names of the model and loss kinds, and ProgramSet.
//
//===----------------------------------------------------------------------===//

#include "tcl/Tuning/Learned/ModelConfig.h"

#include "llvm/ADT/StringSwitch.h"

#include <cmath>

using namespace mlir::tcl::learned;

llvm::StringRef mlir::tcl::learned::getModelKindName(ModelKind kind) {
  switch (kind) {
  case ModelKind::Mamba:
    return "mamba";
  case ModelKind::Transformer:
    return "tlp";
  case ModelKind::MLP:
    return "mlp";
  }
  return "unknown";
}

std::optional<ModelKind>
mlir::tcl::learned::parseModelKind(llvm::StringRef name) {
  return llvm::StringSwitch<std::optional<ModelKind>>(name)
      .Case("mamba", ModelKind::Mamba)
      .Case("tlp", ModelKind::Transformer)
      .Case("mlp", ModelKind::MLP)
      .Default(std::nullopt);
}

llvm::StringRef mlir::tcl::learned::getLossKindName(LossKind kind) {
  switch (kind) {
  case LossKind::LambdaRank:
    return "lambdarank";
  case LossKind::MSE:
    return "mse";
  case LossKind::LambdaRankMSE:
    return "lambdarank+mse";
  }
  return "";
}

std::optional<LossKind>
mlir::tcl::learned::parseLossKind(llvm::StringRef name) {
  return llvm::StringSwitch<std::optional<LossKind>>(name)
      .Case("lambdarank", LossKind::LambdaRank)
      .Case("mse", LossKind::MSE)
      .Case("lambdarank+mse", LossKind::LambdaRankMSE)
      .Default(std::nullopt);
}

void ProgramSet::append(const float *input, float label, unsigned group) {
  inputs.insert(inputs.end(), input, input + size_t(rows) * width);
  labels.push_back(label);
  groups.push_back(group);
}

llvm::Error ProgramSet::verify() const {
  if (groups.size() != labels.size())
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "program set has %zu labels but %zu groups",
                                   labels.size(), groups.size());
  if (inputs.size() != labels.size() * rows * width)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "program set of %zu programs of [%u, %u] should have %zu inputs, "
        "has %zu",
        labels.size(), rows, width, labels.size() * rows * width,
        inputs.size());
  for (size_t i = 0; i < labels.size(); ++i)
    if (!std::isfinite(labels[i]))
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "label of program %zu is not finite", i);
  return llvm::Error::success();
}
