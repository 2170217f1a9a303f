//===- ContinualOptions.cpp - The names of the continual model's choices --===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//

#include "tcl/Tuning/Learned/ContinualModel.h"

#include "llvm/ADT/StringSwitch.h"

using namespace mlir::tcl::learned;

llvm::StringRef
mlir::tcl::learned::getColumnStartName(ContinualOptions::ColumnStart start) {
  switch (start) {
  case ContinualOptions::ColumnStart::Copy:
    return "copy";
  case ContinualOptions::ColumnStart::Fresh:
    return "fresh";
  case ContinualOptions::ColumnStart::Choose:
    return "choose";
  }
  return "unknown";
}

std::optional<ContinualOptions::ColumnStart>
mlir::tcl::learned::parseColumnStart(llvm::StringRef name) {
  return llvm::StringSwitch<std::optional<ContinualOptions::ColumnStart>>(name)
      .Case("copy", ContinualOptions::ColumnStart::Copy)
      .Case("fresh", ContinualOptions::ColumnStart::Fresh)
      .Case("choose", ContinualOptions::ColumnStart::Choose)
      .Default(std::nullopt);
}
