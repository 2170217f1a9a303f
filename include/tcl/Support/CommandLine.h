//===- CommandLine.h - What the tools' --help lists -------------*- C++ -*-===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// LLVM registers several hundred command-line options (AMDGPU, AArch64,
// codegen internals) in every program that links it; listed in --help, they
// bury the tool's own few. Header-only: the tools share it without a library.
//
//===----------------------------------------------------------------------===//

#ifndef TCL_SUPPORT_COMMANDLINE_H
#define TCL_SUPPORT_COMMANDLINE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/CommandLine.h"

namespace mlir::tcl {

/// Moves every option outside `categories` (and LLVM's generic ones, such as
/// --help) from --help to --help-hidden. Unlike llvm::cl::HideUnrelatedOptions,
/// which hides them from both, --help-hidden still lists LLVM's and MLIR's
/// options (--mlir-print-debuginfo, ...), which all stay accepted. Call it
/// after registering options and before parsing.
inline void
showOnlyInHelp(llvm::ArrayRef<const llvm::cl::OptionCategory *> categories) {
  for (auto &nameAndOption : llvm::cl::getRegisteredOptions()) {
    llvm::cl::Option *option = nameAndOption.second;
    bool listed = llvm::any_of(
        option->Categories, [&](const llvm::cl::OptionCategory *category) {
          // LLVM keeps its generic category (--help, --version) private.
          return llvm::is_contained(categories, category) ||
                 category->getName() == "Generic Options";
        });
    if (!listed && option->getOptionHiddenFlag() == llvm::cl::NotHidden)
      option->setHiddenFlag(llvm::cl::Hidden);
  }
}

} // namespace mlir::tcl

#endif // TCL_SUPPORT_COMMANDLINE_H
