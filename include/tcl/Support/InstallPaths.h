//===- InstallPaths.h - Files beside the running program --------*- C++ -*-===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// The build tree and an installation lay tcl out alike: programs in bin/,
// libraries that are opened at run time in lib/ (the CUDA runtime layer,
// the learned cost models), data in share/tcl/ (pretrained cost models).
// Programs find those from where they run. Header-only: every layer that
// looks for such a file shares it.
//
//===----------------------------------------------------------------------===//

#ifndef TCL_SUPPORT_INSTALLPATHS_H
#define TCL_SUPPORT_INSTALLPATHS_H

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <string>

namespace mlir::tcl {

/// `relative` (e.g. "lib/libTclLearned.so") under the directory that holds
/// the running program's bin/; "" where the program's path is unknown.
inline std::string getInstallPath(llvm::StringRef relative) {
  // Any address in this binary identifies it to getMainExecutable (Linux
  // reads /proc/self/exe).
  static int anchor;
  std::string executable = llvm::sys::fs::getMainExecutable(nullptr, &anchor);
  if (executable.empty())
    return "";
  llvm::SmallString<256> path(
      llvm::sys::path::parent_path(llvm::sys::path::parent_path(executable)));
  llvm::sys::path::append(path, relative);
  return std::string(path);
}

} // namespace mlir::tcl

#endif // TCL_SUPPORT_INSTALLPATHS_H
