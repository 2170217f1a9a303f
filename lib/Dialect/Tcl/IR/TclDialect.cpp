//===- TclDialect.cpp - The tcl dialect -----------------------------------===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//

#include "tcl/Dialect/Tcl/IR/TclDialect.h"
#include "tcl/Dialect/Tcl/IR/TclOps.h"

using namespace mlir;
using namespace mlir::tcl;

#include "tcl/Dialect/Tcl/IR/TclDialect.cpp.inc"

void TclDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "tcl/Dialect/Tcl/IR/TclSchedOps.cpp.inc"
      >();
}

void TclDialect::addKnownTargets(llvm::ArrayRef<llvm::StringRef> names) {
  for (llvm::StringRef name : names)
    if (!isKnownTarget(name))
      knownTargets.push_back(name.str());
}

bool TclDialect::isKnownTarget(llvm::StringRef name) const {
  return llvm::is_contained(knownTargets, name);
}
