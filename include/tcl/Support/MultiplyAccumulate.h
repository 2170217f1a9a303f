//===- MultiplyAccumulate.h - out += lhs * rhs bodies -----------*- C++ -*-===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// The body every contraction of tcl's linalg.generic forms has (a grouped
// convolution, a batch matmul with permuted operands): the output plus the
// product of the two inputs, in f32. Header-only, like the forms.
//
//===----------------------------------------------------------------------===//

#ifndef TCL_SUPPORT_MULTIPLYACCUMULATE_H
#define TCL_SUPPORT_MULTIPLYACCUMULATE_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Builders.h"

namespace mlir::tcl {

/// Builds the body `out + in0 * in1` (f32) at `loc`.
inline void buildMultiplyAccumulate(OpBuilder &b, Location loc,
                                    ValueRange args) {
  Value product = b.create<arith::MulFOp>(loc, args[0], args[1]);
  Value sum = b.create<arith::AddFOp>(loc, args[2], product);
  b.create<linalg::YieldOp>(loc, sum);
}

/// Whether `generic` (two inputs, one output) computes `out + in0 * in1` in
/// f32, either operand order of the product and the sum.
inline bool isMultiplyAccumulate(linalg::GenericOp generic) {
  if (generic.getNumDpsInputs() != 2 || generic.getNumDpsInits() != 1)
    return false;
  Block *body = generic.getBody();
  if (!llvm::all_of(body->getArgumentTypes(),
                    [](Type type) { return type.isF32(); }) ||
      body->getOperations().size() != 3)
    return false;
  auto mul = dyn_cast<arith::MulFOp>(body->front());
  auto add = dyn_cast<arith::AddFOp>(*std::next(body->begin()));
  auto yield = dyn_cast<linalg::YieldOp>(body->back());
  auto isPair = [](Value lhs, Value rhs, Value first, Value second) {
    return (lhs == first && rhs == second) || (lhs == second && rhs == first);
  };
  return mul && add && yield && yield.getNumOperands() == 1 &&
         yield.getOperand(0) == add.getResult() &&
         isPair(mul.getLhs(), mul.getRhs(), body->getArgument(0),
                body->getArgument(1)) &&
         isPair(add.getLhs(), add.getRhs(), body->getArgument(2),
                mul.getResult());
}

} // namespace mlir::tcl

#endif // TCL_SUPPORT_MULTIPLYACCUMULATE_H
