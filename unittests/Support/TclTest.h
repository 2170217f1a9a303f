//===- TclTest.h - A test fixture with tcl's dialects loaded ----*- C++ -*-===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//

#ifndef TCL_UNITTESTS_SUPPORT_TCLTEST_H
#define TCL_UNITTESTS_SUPPORT_TCLTEST_H

#include "tcl/Registration/Registration.h"
#include "tcl/Target/Codegen.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

namespace mlir::tcl::test {

/// A fixture whose context has every dialect tcl uses loaded.
class TclTest : public ::testing::Test {
protected:
  TclTest() {
    DialectRegistry registry;
    registerTclDialects(registry);
    registerLLVMTranslations(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }

  OwningOpRef<ModuleOp> parse(llvm::StringRef source) {
    return parseSourceString<ModuleOp>(source, &context);
  }

  MLIRContext context;
};

} // namespace mlir::tcl::test

#endif // TCL_UNITTESTS_SUPPORT_TCLTEST_H
