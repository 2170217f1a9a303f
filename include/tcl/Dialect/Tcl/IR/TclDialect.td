//===- TclDialect.td - The tcl dialect ---------------------*- tablegen -*-===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//

#ifndef TCL_DIALECT_TCL_IR_TCLDIALECT_TD
#define TCL_DIALECT_TCL_IR_TCLDIALECT_TD

include "mlir/IR/OpBase.td"

def Tcl_Dialect : Dialect {
  let name = "tcl";
  let cppNamespace = "::mlir::tcl";
  let summary = "tcl: schedules over linalg operations";
  let description = [{
    The `tcl` dialect holds the schedule programs of the tcl tensor compiler
    (`tcl.sched.*`). A schedule is a short program of schedule primitives over
    one anchor linalg operation. It is at once the search's genotype, the cost
    model's token sequence and what the tuning database stores; it is applied
    by lowering it onto the upstream transform dialect.
  }];
  let extraClassDeclaration = [{
    /// Names of the platforms a schedule may target. The dialect keeps only
    /// the names, so that verifying a schedule does not need code
    /// generation; the Target layer, which knows what the names mean, adds
    /// them when the dialect is loaded (registerTclDialects's extension).
    void addKnownTargets(::llvm::ArrayRef<::llvm::StringRef> names);
    bool isKnownTarget(::llvm::StringRef name) const;
    ::llvm::ArrayRef<std::string> getKnownTargets() const {
      return knownTargets;
    }

  private:
    std::vector<std::string> knownTargets;

  public:
  }];
}

class Tcl_Op<string mnemonic, list<Trait> traits = []>
    : Op<Tcl_Dialect, mnemonic, traits>;

#endif // TCL_DIALECT_TCL_IR_TCLDIALECT_TD
