//===- TempFile.h - A temporary file for the model tests --------*- C++ -*-===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//

#ifndef TCL_UNITTESTS_TUNING_LEARNED_TEMPFILE_H
#define TCL_UNITTESTS_TUNING_LEARNED_TEMPFILE_H

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"

#include "gtest/gtest.h"

#include <string>

namespace mlir::tcl::learned::test {

/// A path in the temporary directory, removed at the end of the test.
class TempFile {
public:
  TempFile() {
    llvm::SmallString<128> p;
    if (std::error_code ec =
            llvm::sys::fs::createTemporaryFile("tcl-learned", "model", p))
      ADD_FAILURE() << ec.message();
    path = std::string(p);
  }
  ~TempFile() { llvm::sys::fs::remove(path); }
  TempFile(const TempFile &) = delete;
  TempFile &operator=(const TempFile &) = delete;
  std::string path;
};

} // namespace mlir::tcl::learned::test

#endif // TCL_UNITTESTS_TUNING_LEARNED_TEMPFILE_H
