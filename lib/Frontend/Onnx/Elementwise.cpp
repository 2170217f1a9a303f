//===- Elementwise.cpp - ONNX elementwise ops to linalg.generic -----------===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// Unary and binary arithmetic, comparisons, logical ops, Where, Cast, Clip,
// Pow and Mod: each one linalg.generic over the numpy broadcast of its
// inputs.
//
//===----------------------------------------------------------------------===//

#include "Importer.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace mlir::tcl;
using namespace mlir::tcl::onnx_import;

namespace {

Converter unary(std::function<Value(OpBuilder &, Location, Value)> fn) {
  return [fn](Importer &im, const onnx::NodeProto &node) -> llvm::Error {
    Value x;
    if (llvm::Error e = im.inputs(node, x))
      return e;
    auto result = im.elementwise(
        node, {x}, [&](OpBuilder &b, Location loc, ValueRange args) {
          return fn(b, loc, args[0]);
        });
    return im.define(node, std::move(result));
  };
}

/// f32 constant `value` in a payload body.
Value constantF32(OpBuilder &b, Location loc, float value) {
  return b.create<arith::ConstantOp>(loc, b.getF32FloatAttr(value));
}

/// Unary ops whose body depends on float attributes of the node (alpha,
/// beta, gamma), read once per node with their ONNX defaults.
using ParametricBody =
    std::function<Value(OpBuilder &, Location, Value, llvm::ArrayRef<float>)>;
Converter
parametricUnary(std::vector<std::pair<llvm::StringRef, float>> attributes,
                ParametricBody body) {
  return [attributes, body](Importer &im,
                            const onnx::NodeProto &node) -> llvm::Error {
    std::vector<float> values;
    for (const auto &[name, fallback] : attributes)
      values.push_back(Importer::getFloat(node, name, fallback));
    return unary([&](OpBuilder &b, Location loc, Value x) {
      return body(b, loc, x, values);
    })(im, node);
  };
}

/// gamma * (alpha * (exp(x) - 1)) for x < 0, gamma * x otherwise.
Value exponentialLinear(OpBuilder &b, Location loc, Value x, float alpha,
                        float gamma) {
  Value negative = b.create<arith::CmpFOp>(loc, arith::CmpFPredicate::OLT, x,
                                           constantF32(b, loc, 0));
  Value curve = b.create<arith::MulFOp>(loc, constantF32(b, loc, alpha),
                                        b.create<math::ExpM1Op>(loc, x));
  Value linear = b.create<arith::SelectOp>(loc, negative, curve, x);
  return b.create<arith::MulFOp>(loc, constantF32(b, loc, gamma), linear);
}

/// log(1 + exp(x)) as max(x, 0) + log1p(exp(-|x|)): no overflow.
Value softplus(OpBuilder &b, Location loc, Value x) {
  Value positive = b.create<arith::MaximumFOp>(loc, x, constantF32(b, loc, 0));
  Value decay = b.create<math::ExpOp>(
      loc, b.create<arith::NegFOp>(loc, b.create<math::AbsFOp>(loc, x)));
  return b.create<arith::AddFOp>(loc, positive,
                                 b.create<math::Log1pOp>(loc, decay));
}

/// max(0, min(1, alpha * x + beta)).
Value hardSigmoid(OpBuilder &b, Location loc, Value x, float alpha,
                  float beta) {
  Value line = b.create<arith::AddFOp>(
      loc, b.create<arith::MulFOp>(loc, constantF32(b, loc, alpha), x),
      constantF32(b, loc, beta));
  return b.create<arith::MaximumFOp>(
      loc, constantF32(b, loc, 0),
      b.create<arith::MinimumFOp>(loc, constantF32(b, loc, 1), line));
}

/// Unary ops that are one MLIR op.
template <typename OpTy> Converter unaryOp() {
  return unary([](OpBuilder &b, Location loc, Value x) {
    return b.create<OpTy>(loc, x).getResult();
  });
}

/// Integer division as ONNX's Div (truncating) that cannot trap, as x86's
/// idiv does on a zero divisor and on INT64_MIN / -1: a zero divisor gives
/// 0 (as numpy), and -1 negates with wraparound.
Value divideWithoutTrap(OpBuilder &b, Location loc, Value dividend,
                        Value divisor) {
  Type type = dividend.getType();
  auto constant = [&](int64_t value) -> Value {
    return b.create<arith::ConstantOp>(loc, b.getIntegerAttr(type, value));
  };
  Value zero = constant(0);
  Value byZero =
      b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq, divisor, zero);
  Value byMinusOne = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq,
                                             divisor, constant(-1));
  Value special = b.create<arith::OrIOp>(loc, byZero, byMinusOne);
  Value safe = b.create<arith::SelectOp>(loc, special, constant(1), divisor);
  Value quotient = b.create<arith::DivSIOp>(loc, dividend, safe);
  Value negated = b.create<arith::SubIOp>(loc, zero, dividend);
  quotient = b.create<arith::SelectOp>(loc, byMinusOne, negated, quotient);
  return b.create<arith::SelectOp>(loc, byZero, zero, quotient);
}

/// Binary ops, and variadic ones (Max, Min, Sum) folded left to right: the
/// float op, or the integer one on integers (none: an error).
template <typename FloatOp, typename IntOp = void> Converter binary() {
  return [](Importer &im, const onnx::NodeProto &node) -> llvm::Error {
    std::vector<Value> inputs;
    if (llvm::Error e = im.allInputs(node, inputs))
      return e;
    bool onFloats = isa<FloatType>(Importer::elementTypeOf(inputs[0]));
    if constexpr (std::is_void_v<IntOp>) {
      if (!onFloats)
        return error(Importer::describe(node) +
                     ": integer operands are not supported");
    }
    auto result = im.elementwise(
        node, inputs, [&](OpBuilder &b, Location loc, ValueRange args) {
          Value acc = args[0];
          for (Value next : args.drop_front().drop_back()) {
            if constexpr (!std::is_void_v<IntOp>) {
              if (!onFloats) {
                if constexpr (std::is_same_v<IntOp, arith::DivSIOp>)
                  acc = divideWithoutTrap(b, loc, acc, next);
                else
                  acc = b.create<IntOp>(loc, acc, next);
                continue;
              }
            }
            acc = b.create<FloatOp>(loc, acc, next);
          }
          return acc;
        });
    return im.define(node, std::move(result));
  };
}

/// Pow: float bases; float or integer exponents.
llvm::Error convertPow(Importer &im, const onnx::NodeProto &node) {
  Value base, exponent;
  if (llvm::Error e = im.inputs(node, base, exponent))
    return e;
  if (!Importer::elementTypeOf(base).isF32())
    return error(Importer::describe(node) +
                 ": integer bases are not supported");
  auto result = im.elementwise(
      node, {base, exponent}, [](OpBuilder &b, Location loc, ValueRange args) {
        Value power = args[1];
        if (!isa<FloatType>(power.getType()))
          power = b.create<arith::SIToFPOp>(loc, b.getF32Type(), power);
        return b.create<math::PowFOp>(loc, args[0], power).getResult();
      });
  return im.define(node, std::move(result));
}

llvm::Error convertClip(Importer &im, const onnx::NodeProto &node) {
  Value x;
  if (llvm::Error e = im.inputs(node, x))
    return e;
  Type element = Importer::elementTypeOf(x);
  if (Importer::isBool(x))
    return error(Importer::describe(node) + ": bool inputs are not supported");
  bool isFloat = element.isF32();
  // Bounds: attributes (opset < 11), constant inputs, or runtime scalars.
  std::optional<double> lo, hi;
  if (Importer::attribute(node, "min"))
    lo = Importer::getFloat(node, "min", 0);
  if (Importer::attribute(node, "max"))
    hi = Importer::getFloat(node, "max", 0);
  std::vector<Value> inputs = {x};
  int loInput = -1, hiInput = -1;
  for (int index : {1, 2}) {
    if (!im.hasInput(node, index))
      continue;
    if (const ConstantData *bound = im.constant(node, index);
        bound && bound->isFloat() == isFloat && bound->size() == 1) {
      (index == 1 ? lo : hi) = bound->asDouble(0);
      continue;
    }
    Value value;
    if (llvm::Error e = im.input(node, index, value))
      return e;
    if (Importer::elementTypeOf(value) != element)
      return error(Importer::describe(node) +
                   ": the bounds must have the input's element type");
    (index == 1 ? loInput : hiInput) = inputs.size();
    inputs.push_back(value);
  }
  auto result = im.elementwise(
      node, inputs, [&](OpBuilder &b, Location loc, ValueRange args) {
        auto bound = [&](std::optional<double> constant, int input) -> Value {
          if (input >= 0)
            return args[input];
          if (!constant)
            return nullptr;
          if (isFloat)
            return b.create<arith::ConstantOp>(loc,
                                               b.getF32FloatAttr(*constant));
          return b.create<arith::ConstantOp>(
              loc, b.getI64IntegerAttr(static_cast<int64_t>(*constant)));
        };
        Value v = args[0];
        if (Value low = bound(lo, loInput))
          v = isFloat ? b.create<arith::MaximumFOp>(loc, v, low).getResult()
                      : b.create<arith::MaxSIOp>(loc, v, low).getResult();
        if (Value high = bound(hi, hiInput))
          v = isFloat ? b.create<arith::MinimumFOp>(loc, v, high).getResult()
                      : b.create<arith::MinSIOp>(loc, v, high).getResult();
        return v;
      });
  return im.define(node, std::move(result));
}

llvm::Error convertWhere(Importer &im, const onnx::NodeProto &node) {
  Value condition, x, y;
  if (llvm::Error e = im.inputs(node, condition, x, y))
    return e;
  if (!Importer::isBool(condition))
    return error(Importer::describe(node) + ": the condition must be bool");
  auto result = im.elementwise(
      node, {condition, x, y},
      [](OpBuilder &b, Location loc, ValueRange args) {
        return b
            .create<arith::SelectOp>(loc, Importer::byteToBool(b, loc, args[0]),
                                     args[1], args[2])
            .getResult();
      },
      Importer::elementTypeOf(x));
  return im.define(node, std::move(result));
}

/// Equal, Less, Greater, LessOrEqual, GreaterOrEqual: bool results.
Converter comparison(arith::CmpFPredicate floatPredicate,
                     arith::CmpIPredicate intPredicate) {
  return [=](Importer &im, const onnx::NodeProto &node) -> llvm::Error {
    Value lhs, rhs;
    if (llvm::Error e = im.inputs(node, lhs, rhs))
      return e;
    auto result = im.elementwise(
        node, {lhs, rhs},
        [&](OpBuilder &b, Location loc, ValueRange args) -> Value {
          Value flag =
              isa<FloatType>(args[0].getType())
                  ? b.create<arith::CmpFOp>(loc, floatPredicate, args[0],
                                            args[1])
                        .getResult()
                  : b.create<arith::CmpIOp>(loc, intPredicate, args[0], args[1])
                        .getResult();
          return Importer::boolToByte(b, loc, flag);
        },
        im.elementType(ElementKind::Bool));
    return im.define(node, std::move(result));
  };
}

/// The element kind ONNX element type `type` is carried as.
std::optional<ElementKind> kindOfOnnxType(int64_t type) {
  switch (type) {
  case onnx::TensorProto::FLOAT:
  case onnx::TensorProto::DOUBLE:
    return ElementKind::Float;
  case onnx::TensorProto::INT64:
  case onnx::TensorProto::INT32:
  case onnx::TensorProto::INT16:
  case onnx::TensorProto::INT8:
  case onnx::TensorProto::UINT8:
  case onnx::TensorProto::UINT16:
  case onnx::TensorProto::UINT32:
    return ElementKind::Int;
  case onnx::TensorProto::BOOL:
    return ElementKind::Bool;
  default:
    return std::nullopt;
  }
}

} // namespace

llvm::Expected<ElementKind>
onnx_import::castTarget(const onnx::NodeProto &node) {
  int64_t to = Importer::getInt(node, "to", onnx::TensorProto::FLOAT);
  if (std::optional<ElementKind> kind = kindOfOnnxType(to))
    return *kind;
  return error(Importer::describe(node) + ": casting to ONNX element type " +
               std::to_string(to) + " is not supported");
}

namespace {

llvm::Error convertCast(Importer &im, const onnx::NodeProto &node) {
  Value x;
  if (llvm::Error e = im.inputs(node, x))
    return e;
  auto kind = castTarget(node);
  if (!kind)
    return kind.takeError();
  Type to = im.elementType(*kind), from = Importer::elementTypeOf(x);
  if (to == from) {
    im.define(node, x);
    return llvm::Error::success();
  }
  auto result = im.elementwise(
      node, {x},
      [&](OpBuilder &b, Location loc, ValueRange args) -> Value {
        Value v = args[0];
        bool fromBool = from.isInteger(8), toBool = to.isInteger(8);
        if (toBool) {
          Value flag =
              from.isF32()
                  ? b.create<arith::CmpFOp>(
                         loc, arith::CmpFPredicate::UNE, v,
                         b.create<arith::ConstantOp>(loc, b.getF32FloatAttr(0)))
                        .getResult()
                  : b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ne, v,
                                            b.create<arith::ConstantOp>(
                                                loc, b.getIntegerAttr(from, 0)))
                        .getResult();
          return Importer::boolToByte(b, loc, flag);
        }
        if (from.isF32())
          return b.create<arith::FPToSIOp>(loc, to, v);
        if (to.isF32())
          return fromBool ? b.create<arith::UIToFPOp>(loc, to, v).getResult()
                          : b.create<arith::SIToFPOp>(loc, to, v).getResult();
        return b.create<arith::ExtUIOp>(loc, to, v); // bool -> int
      },
      to);
  return im.define(node, std::move(result));
}

/// The elementwise mean of any number of float inputs (broadcast).
llvm::Error convertMean(Importer &im, const onnx::NodeProto &node) {
  std::vector<Value> inputs;
  if (llvm::Error e = im.allInputs(node, inputs))
    return e;
  if (!isa<FloatType>(Importer::elementTypeOf(inputs[0])))
    return error(Importer::describe(node) +
                 ": integer operands are not supported");
  float count = inputs.size();
  auto result = im.elementwise(
      node, inputs, [&](OpBuilder &b, Location loc, ValueRange args) {
        Value sum = args[0];
        for (Value next : args.drop_front().drop_back())
          sum = b.create<arith::AddFOp>(loc, sum, next);
        return b.create<arith::DivFOp>(loc, sum, constantF32(b, loc, count))
            .getResult();
      });
  return im.define(node, std::move(result));
}

/// Not, And, Or, Xor on bools (bytes holding 0 or 1, so the bitwise ops
/// are the logical ones).
template <typename BitOp> Converter logical() {
  return [](Importer &im, const onnx::NodeProto &node) -> llvm::Error {
    std::vector<Value> inputs;
    if (llvm::Error e = im.allInputs(node, inputs))
      return e;
    for (Value input : inputs)
      if (!Importer::isBool(input))
        return error(Importer::describe(node) + ": its inputs must be bool");
    auto result = im.elementwise(
        node, inputs, [](OpBuilder &b, Location loc, ValueRange args) {
          // Not: x xor 1.
          Value rhs =
              args.size() == 2
                  ? b.create<arith::ConstantOp>(loc, b.getI8IntegerAttr(1))
                        .getResult()
                  : args[1];
          return b.create<BitOp>(loc, args[0], rhs).getResult();
        });
    return im.define(node, std::move(result));
  };
}

/// Mod: the remainder with the sign of the dividend (fmod=1, C's fmod; the
/// only mode ONNX defines on floats) or of the divisor (fmod=0, Python's %).
llvm::Error convertMod(Importer &im, const onnx::NodeProto &node) {
  Value a, n;
  if (llvm::Error e = im.inputs(node, a, n))
    return e;
  bool truncated = Importer::getInt(node, "fmod", 0) != 0;
  Type type = Importer::elementTypeOf(a);
  if (Importer::isBool(a) || type != Importer::elementTypeOf(n))
    return error(Importer::describe(node) +
                 ": its inputs must both be float or both integer");
  if (type.isF32() && !truncated)
    return error(Importer::describe(node) +
                 ": fmod=0 on floats is not defined by ONNX (set fmod=1)");
  auto result = im.elementwise(
      node, {a, n}, [&](OpBuilder &b, Location loc, ValueRange args) -> Value {
        if (type.isF32())
          return b.create<arith::RemFOp>(loc, args[0], args[1]);
        // A zero divisor gives 0, as in numpy, instead of a trap.
        Value zero = b.create<arith::ConstantOp>(loc, b.getI64IntegerAttr(0));
        Value one = b.create<arith::ConstantOp>(loc, b.getI64IntegerAttr(1));
        Value byZero = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq,
                                               args[1], zero);
        Value divisor = b.create<arith::SelectOp>(loc, byZero, one, args[1]);
        Value rem = b.create<arith::RemSIOp>(loc, args[0], divisor);
        if (!truncated) {
          // Move a nonzero remainder whose sign differs from the divisor's
          // into the divisor's sign.
          Value nonzero =
              b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ne, rem, zero);
          Value remNegative = b.create<arith::CmpIOp>(
              loc, arith::CmpIPredicate::slt, rem, zero);
          Value divisorNegative = b.create<arith::CmpIOp>(
              loc, arith::CmpIPredicate::slt, divisor, zero);
          Value differ =
              b.create<arith::XOrIOp>(loc, remNegative, divisorNegative);
          Value fix = b.create<arith::AndIOp>(loc, nonzero, differ);
          rem = b.create<arith::SelectOp>(
              loc, fix, b.create<arith::AddIOp>(loc, rem, divisor), rem);
        }
        return b.create<arith::SelectOp>(loc, byZero, zero, rem);
      });
  return im.define(node, std::move(result));
}

/// PRelu: x where x >= 0, slope * x below; the slope broadcasts to x.
llvm::Error convertPRelu(Importer &im, const onnx::NodeProto &node) {
  Value x, slope;
  if (llvm::Error e = im.inputs(node, x, slope))
    return e;
  if (!Importer::elementTypeOf(x).isF32() ||
      !Importer::elementTypeOf(slope).isF32())
    return error(Importer::describe(node) +
                 ": integer operands are not supported");
  // Unidirectional: the result has x's shape.
  if (broadcastShapes({Importer::shapeOf(x), Importer::shapeOf(slope)}) !=
      std::vector<int64_t>(Importer::shapeOf(x)))
    return error(Importer::describe(node) + ": slope " +
                 formatShape(Importer::shapeOf(slope)) +
                 " does not broadcast to the input's shape " +
                 formatShape(Importer::shapeOf(x)));
  auto result = im.elementwise(
      node, {x, slope}, [](OpBuilder &b, Location loc, ValueRange args) {
        Value negative = b.create<arith::CmpFOp>(
            loc, arith::CmpFPredicate::OLT, args[0], constantF32(b, loc, 0));
        return b
            .create<arith::SelectOp>(
                loc, negative, b.create<arith::MulFOp>(loc, args[0], args[1]),
                args[0])
            .getResult();
      });
  return im.define(node, std::move(result));
}

/// Gelu (opset 20): x * Phi(x), with the exact normal CDF
/// 0.5 * (1 + erf(x / sqrt(2))) or, with approximate="tanh",
/// 0.5 * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 x^3))).
llvm::Error convertGelu(Importer &im, const onnx::NodeProto &node) {
  std::string approximate = Importer::getString(node, "approximate", "none");
  if (approximate != "none" && approximate != "tanh")
    return error(Importer::describe(node) + ": approximate '" + approximate +
                 "' is not supported (none and tanh are)");
  bool useTanh = approximate == "tanh";
  return unary([useTanh](OpBuilder &b, Location loc, Value x) -> Value {
    Value phi;
    if (useTanh) {
      Value cube =
          b.create<arith::MulFOp>(loc, x, b.create<arith::MulFOp>(loc, x, x));
      Value inner = b.create<arith::AddFOp>(
          loc, x,
          b.create<arith::MulFOp>(loc, constantF32(b, loc, 0.044715f), cube));
      phi = b.create<math::TanhOp>(
          loc, b.create<arith::MulFOp>(
                   loc, constantF32(b, loc, 0.7978845608028654f), inner));
    } else {
      phi = b.create<math::ErfOp>(
          loc, b.create<arith::MulFOp>(
                   loc, x, constantF32(b, loc, 0.7071067811865476f)));
    }
    Value half = b.create<arith::MulFOp>(loc, constantF32(b, loc, 0.5f), x);
    return b.create<arith::MulFOp>(
        loc, half, b.create<arith::AddFOp>(loc, constantF32(b, loc, 1), phi));
  })(im, node);
}

} // namespace

void onnx_import::registerElementwiseConverters(ConverterTable &table) {
  using M = std::function<Value(OpBuilder &, Location, Value)>;
  table.insert({
      {"Relu", unary(M([](OpBuilder &b, Location loc, Value x) {
         return b.create<arith::MaximumFOp>(
             loc, x, b.create<arith::ConstantOp>(loc, b.getF32FloatAttr(0)));
       }))},
      {"Sigmoid", unary(M([](OpBuilder &b, Location loc, Value x) {
         Value one = b.create<arith::ConstantOp>(loc, b.getF32FloatAttr(1));
         Value e = b.create<math::ExpOp>(loc, b.create<arith::NegFOp>(loc, x));
         return b.create<arith::DivFOp>(loc, one,
                                        b.create<arith::AddFOp>(loc, one, e));
       }))},
      {"Tanh", unaryOp<math::TanhOp>()},
      {"Sqrt", unaryOp<math::SqrtOp>()},
      {"Exp", unaryOp<math::ExpOp>()},
      {"Log", unaryOp<math::LogOp>()},
      {"Erf", unaryOp<math::ErfOp>()},
      {"Abs", unaryOp<math::AbsFOp>()},
      {"Neg", unaryOp<arith::NegFOp>()},
      {"Floor", unaryOp<math::FloorOp>()},
      {"Ceil", unaryOp<math::CeilOp>()},
      // ONNX rounds halves to even.
      {"Round", unaryOp<math::RoundEvenOp>()},
      {"Sin", unaryOp<math::SinOp>()},
      {"Cos", unaryOp<math::CosOp>()},
      {"Tan", unaryOp<math::TanOp>()},
      {"Atan", unaryOp<math::AtanOp>()},
      {"Reciprocal", unary(M([](OpBuilder &b, Location loc, Value x) {
         return b.create<arith::DivFOp>(loc, constantF32(b, loc, 1), x);
       }))},
      {"Sign", unary(M([](OpBuilder &b, Location loc, Value x) {
         Value zero = constantF32(b, loc, 0);
         Value positive =
             b.create<arith::CmpFOp>(loc, arith::CmpFPredicate::OGT, x, zero);
         Value negative =
             b.create<arith::CmpFOp>(loc, arith::CmpFPredicate::OLT, x, zero);
         return b.create<arith::SelectOp>(
             loc, positive, constantF32(b, loc, 1),
             b.create<arith::SelectOp>(loc, negative, constantF32(b, loc, -1),
                                       zero));
       }))},
      {"Softsign", unary(M([](OpBuilder &b, Location loc, Value x) {
         Value denominator = b.create<arith::AddFOp>(
             loc, constantF32(b, loc, 1), b.create<math::AbsFOp>(loc, x));
         return b.create<arith::DivFOp>(loc, x, denominator);
       }))},
      {"Softplus", unary(softplus)},
      {"LeakyRelu",
       parametricUnary(
           {{"alpha", 0.01f}},
           [](OpBuilder &b, Location loc, Value x,
              llvm::ArrayRef<float> p) -> Value {
             Value negative = b.create<arith::CmpFOp>(
                 loc, arith::CmpFPredicate::OLT, x, constantF32(b, loc, 0));
             return b.create<arith::SelectOp>(
                 loc, negative,
                 b.create<arith::MulFOp>(loc, x, constantF32(b, loc, p[0])), x);
           })},
      {"ThresholdedRelu",
       parametricUnary({{"alpha", 1.0f}},
                       [](OpBuilder &b, Location loc, Value x,
                          llvm::ArrayRef<float> p) -> Value {
                         Value above = b.create<arith::CmpFOp>(
                             loc, arith::CmpFPredicate::OGT, x,
                             constantF32(b, loc, p[0]));
                         return b.create<arith::SelectOp>(
                             loc, above, x, constantF32(b, loc, 0));
                       })},
      // alpha * (exp(x) - 1) below 0, x above (scaled by gamma for Selu).
      {"Elu", parametricUnary({{"alpha", 1.0f}},
                              [](OpBuilder &b, Location loc, Value x,
                                 llvm::ArrayRef<float> p) -> Value {
                                return exponentialLinear(b, loc, x, p[0], 1);
                              })},
      {"Selu", parametricUnary({{"alpha", 1.67326319217681884765625f},
                                {"gamma", 1.05070102214813232421875f}},
                               [](OpBuilder &b, Location loc, Value x,
                                  llvm::ArrayRef<float> p) -> Value {
                                 return exponentialLinear(b, loc, x, p[0],
                                                          p[1]);
                               })},
      // max(0, x) + min(0, alpha * (exp(x / alpha) - 1)).
      {"Celu",
       parametricUnary({{"alpha", 1.0f}},
                       [](OpBuilder &b, Location loc, Value x,
                          llvm::ArrayRef<float> p) -> Value {
                         Value zero = constantF32(b, loc, 0);
                         Value alpha = constantF32(b, loc, p[0]);
                         Value scaled = b.create<arith::DivFOp>(loc, x, alpha);
                         Value curve = b.create<arith::MulFOp>(
                             loc, alpha, b.create<math::ExpM1Op>(loc, scaled));
                         return b.create<arith::AddFOp>(
                             loc, b.create<arith::MaximumFOp>(loc, x, zero),
                             b.create<arith::MinimumFOp>(loc, curve, zero));
                       })},
      // max(0, min(1, alpha * x + beta)).
      {"HardSigmoid", parametricUnary({{"alpha", 0.2f}, {"beta", 0.5f}},
                                      [](OpBuilder &b, Location loc, Value x,
                                         llvm::ArrayRef<float> p) -> Value {
                                        return hardSigmoid(b, loc, x, p[0],
                                                           p[1]);
                                      })},
      {"HardSwish", unary(M([](OpBuilder &b, Location loc, Value x) {
         return b.create<arith::MulFOp>(loc, x,
                                        hardSigmoid(b, loc, x, 1.0f / 6, 0.5f));
       }))},
      {"Add", binary<arith::AddFOp, arith::AddIOp>()},
      {"Sub", binary<arith::SubFOp, arith::SubIOp>()},
      {"Mul", binary<arith::MulFOp, arith::MulIOp>()},
      {"Div", binary<arith::DivFOp, arith::DivSIOp>()},
      {"Pow", convertPow},
      {"Max", binary<arith::MaximumFOp, arith::MaxSIOp>()},
      {"Min", binary<arith::MinimumFOp, arith::MinSIOp>()},
      {"Sum", binary<arith::AddFOp, arith::AddIOp>()},
      {"Mean", convertMean},
      {"Clip", convertClip},
      {"Where", convertWhere},
      {"Equal",
       comparison(arith::CmpFPredicate::OEQ, arith::CmpIPredicate::eq)},
      {"Less",
       comparison(arith::CmpFPredicate::OLT, arith::CmpIPredicate::slt)},
      {"Greater",
       comparison(arith::CmpFPredicate::OGT, arith::CmpIPredicate::sgt)},
      {"LessOrEqual",
       comparison(arith::CmpFPredicate::OLE, arith::CmpIPredicate::sle)},
      {"GreaterOrEqual",
       comparison(arith::CmpFPredicate::OGE, arith::CmpIPredicate::sge)},
      {"Cast", convertCast},
      {"Not", logical<arith::XOrIOp>()},
      {"And", logical<arith::AndIOp>()},
      {"Or", logical<arith::OrIOp>()},
      {"Xor", logical<arith::XOrIOp>()},
      {"Mod", convertMod},
      {"PRelu", convertPRelu},
      {"Gelu", convertGelu},
      // x * tanh(softplus(x)), softplus computed as for Softplus.
      {"Mish", unary(M([](OpBuilder &b, Location loc, Value x) {
         return b.create<arith::MulFOp>(
             loc, x, b.create<math::TanhOp>(loc, softplus(b, loc, x)));
       }))},
  });
}
