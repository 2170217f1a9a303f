//===- SkipZeroBorderProducts.cpp - rows of a tile that read padding ------===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// tcl.skip_zero_border_products: a convolution's register tile that spans
// its whole output width reads, for its first and last kernel columns, one
// column of zero padding. After vectorization each reduction step is a
// vector.contract over the tile's rows; this narrows it to the rows whose
// input is not padding (see the op's description). The vendor library's
// generated kernels skip those products too.
//
//===----------------------------------------------------------------------===//

#include "PaddedSlices.h"
#include "tcl/Transforms/TransformOps.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace mlir::tcl;

namespace {
/// A row dimension of a contraction's left-hand side that reads a
/// zero-padded tensor: which rows read its padding depends on `offsets`.
struct PaddedRows {
  vector::ContractionOp contract;
  /// The rows' dimension in the left-hand side and in the accumulator.
  unsigned lhsDim = 0, accDim = 0;
  int64_t rows = 0;
  /// The padding before the source along the padded dimension, and the
  /// source's extent there.
  int64_t low = 0, extent = 0;
  /// The offsets along that dimension of the slices between the padded
  /// tensor and what the contraction reads; the first row reads at their
  /// sum.
  SmallVector<OpFoldResult> offsets;
};
} // namespace

/// The rows of every add-contraction under `scope` that read a zero-padded
/// tensor (see SkipZeroBorderProductsOp).
static SmallVector<PaddedRows> findPaddedRows(Operation *scope) {
  SmallVector<PaddedRows> found;
  scope->walk([&](vector::ContractionOp contract) {
    auto read = contract.getLhs().getDefiningOp<vector::TransferReadOp>();
    if (contract.getKind() != vector::CombiningKind::ADD ||
        isa<vector::MaskOp>(contract->getParentOp()) || !read ||
        read.getMask() || read.hasOutOfBoundsDim() ||
        !read.getPermutationMap().isMinorIdentity() ||
        read.getVectorType().getRank() !=
            cast<ShapedType>(read.getSource().getType()).getRank() ||
        !llvm::all_of(read.getIndices(), [](Value index) {
          return matchPattern(index, m_Zero());
        }))
      return;
    SmallVector<AffineMap> maps = contract.getIndexingMapsArray();
    SmallVector<vector::IteratorType> iterators =
        contract.getIteratorTypesArray();
    for (unsigned lhsDim = 0; lhsDim < maps[0].getNumResults(); ++lhsDim) {
      auto iterator = dyn_cast<AffineDimExpr>(maps[0].getResult(lhsDim));
      int64_t rows = read.getVectorType().getDimSize(lhsDim);
      if (!iterator || rows < 2 ||
          iterators[iterator.getPosition()] != vector::IteratorType::parallel ||
          maps[1].isFunctionOfDim(iterator.getPosition()))
        continue;
      std::optional<unsigned> accDim = maps[2].getResultPosition(iterator);
      unsigned dim = lhsDim;
      SmallVector<OpFoldResult> offsets;
      tensor::PadOp pad = getPaddedSource(read.getSource(), dim, offsets);
      if (!accDim || !pad || !isZeroConstant(pad.getConstantPaddingValue()) ||
          pad.getSourceType().isDynamicDim(dim) ||
          ShapedType::isDynamic(pad.getStaticLow()[dim]))
        continue;
      found.push_back({contract, lhsDim, *accDim, rows, pad.getStaticLow()[dim],
                       pad.getSourceType().getDimSize(dim), offsets});
    }
  });
  return found;
}

/// `value` as a constant, with `iv` (if any) taken as `ivValue`: constants,
/// the induction variable and affine.apply or index additions,
/// subtractions and multiplications of those.
static std::optional<int64_t> evaluate(OpFoldResult value, Value iv,
                                       int64_t ivValue, unsigned depth = 0) {
  if (std::optional<int64_t> constant = getConstantIntValue(value))
    return constant;
  auto v = dyn_cast<Value>(value);
  if (!v || depth > 8)
    return std::nullopt;
  if (v == iv)
    return ivValue;
  Operation *def = v.getDefiningOp();
  if (auto apply = dyn_cast_or_null<affine::AffineApplyOp>(def)) {
    SmallVector<Attribute> operands, results;
    Builder builder(apply.getContext());
    for (Value operand : apply.getOperands()) {
      std::optional<int64_t> known = evaluate(operand, iv, ivValue, depth + 1);
      if (!known)
        return std::nullopt;
      operands.push_back(builder.getIndexAttr(*known));
    }
    if (failed(apply.getAffineMap().constantFold(operands, results)) ||
        results.size() != 1 || !isa<IntegerAttr>(results.front()))
      return std::nullopt;
    return cast<IntegerAttr>(results.front()).getInt();
  }
  if (!isa_and_nonnull<arith::AddIOp, arith::SubIOp, arith::MulIOp>(def))
    return std::nullopt;
  std::optional<int64_t> lhs = evaluate(def->getOperand(0), iv, ivValue,
                                        depth + 1),
                         rhs = evaluate(def->getOperand(1), iv, ivValue,
                                        depth + 1);
  if (!lhs || !rhs)
    return std::nullopt;
  if (isa<arith::AddIOp>(def))
    return *lhs + *rhs;
  if (isa<arith::SubIOp>(def))
    return *lhs - *rhs;
  return *lhs * *rhs;
}

/// The offset of the first row of `rows`, `iv` taken as `ivValue`.
static std::optional<int64_t> evaluateOffset(const PaddedRows &rows, Value iv,
                                             int64_t ivValue) {
  int64_t sum = 0;
  for (OpFoldResult offset : rows.offsets) {
    std::optional<int64_t> known = evaluate(offset, iv, ivValue);
    if (!known)
      return std::nullopt;
    sum += *known;
  }
  return sum;
}

/// The rows [first, end) of `rows` that read inside the padded tensor's
/// source when the first row reads at `offset`.
static std::pair<int64_t, int64_t> getRowsInside(const PaddedRows &rows,
                                                 int64_t offset) {
  int64_t first = std::clamp<int64_t>(rows.low - offset, 0, rows.rows);
  int64_t end =
      std::clamp<int64_t>(rows.low + rows.extent - offset, first, rows.rows);
  return {first, end};
}

/// The loop enclosing `rows`'s contraction whose iterations read padding
/// in some and not in others (a kernel column loop), where unrolling it
/// makes the offset a constant in each copy; null if there is none.
static scf::ForOp findLoopToUnroll(const PaddedRows &rows) {
  constexpr int64_t kMaxTrips = 16;
  // Constant already (a loop the schedule unrolled): narrowed as it is.
  if (evaluateOffset(rows, Value(), 0))
    return {};
  for (auto loop = rows.contract->getParentOfType<scf::ForOp>(); loop;
       loop = loop->getParentOfType<scf::ForOp>()) {
    std::optional<int64_t> lower = getConstantIntValue(loop.getLowerBound()),
                           upper = getConstantIntValue(loop.getUpperBound()),
                           step = getConstantIntValue(loop.getStep());
    if (!lower || !upper || !step || *step <= 0 ||
        (*upper - *lower + *step - 1) / *step > kMaxTrips)
      continue;
    bool known = true, somePadded = false;
    for (int64_t iv = *lower; iv < *upper && known; iv += *step) {
      std::optional<int64_t> offset =
          evaluateOffset(rows, loop.getInductionVar(), iv);
      known = offset.has_value();
      if (known) {
        auto [first, end] = getRowsInside(rows, *offset);
        somePadded |= first > 0 || end < rows.rows;
      }
    }
    if (known)
      return somePadded ? loop : scf::ForOp();
  }
  return {};
}

/// Replaces `loop` (constant bounds, findLoopToUnroll) by its iterations,
/// one after another, each with its induction variable a constant. (Through
/// `rewriter`, so that the transform state forgets the loop.)
static void unrollFully(RewriterBase &rewriter, scf::ForOp loop) {
  int64_t lower = *getConstantIntValue(loop.getLowerBound()),
          upper = *getConstantIntValue(loop.getUpperBound()),
          step = *getConstantIntValue(loop.getStep());
  rewriter.setInsertionPoint(loop);
  SmallVector<Value> carried(loop.getInitArgs());
  for (int64_t iv = lower; iv < upper; iv += step) {
    IRMapping mapping;
    mapping.map(loop.getInductionVar(),
                rewriter.create<arith::ConstantIndexOp>(loop.getLoc(), iv));
    mapping.map(loop.getRegionIterArgs(), carried);
    for (Operation &op : loop.getBody()->without_terminator())
      rewriter.clone(op, mapping);
    carried = llvm::map_to_vector(
        loop.getBody()->getTerminator()->getOperands(),
        [&](Value value) { return mapping.lookupOrDefault(value); });
  }
  rewriter.replaceOp(loop, carried);
}

/// Replaces `rows`'s contraction by one over the rows [first, end) of its
/// left-hand side and accumulator (by the accumulator where none is left).
static void narrowContraction(RewriterBase &rewriter, const PaddedRows &rows,
                              int64_t first, int64_t end) {
  vector::ContractionOp contract = rows.contract;
  if (first >= end) {
    rewriter.replaceOp(contract, contract.getAcc());
    return;
  }
  rewriter.setInsertionPoint(contract);
  Location loc = contract.getLoc();
  auto slice = [&](Value vector, unsigned dim) {
    auto type = cast<VectorType>(vector.getType());
    SmallVector<int64_t> offsets(type.getRank(), 0),
        sizes(type.getShape().begin(), type.getShape().end()),
        strides(type.getRank(), 1);
    offsets[dim] = first;
    sizes[dim] = end - first;
    return rewriter.create<vector::ExtractStridedSliceOp>(loc, vector, offsets,
                                                          sizes, strides);
  };
  Value lhs = slice(contract.getLhs(), rows.lhsDim);
  Value acc = slice(contract.getAcc(), rows.accDim);
  Value narrowed = rewriter.create<vector::ContractionOp>(
      loc, lhs, contract.getRhs(), acc, contract.getIndexingMaps(),
      contract.getIteratorTypes(), contract.getKind());
  auto accType = cast<VectorType>(contract.getAcc().getType());
  SmallVector<int64_t> offsets(accType.getRank(), 0),
      strides(accType.getRank(), 1);
  offsets[rows.accDim] = first;
  rewriter.replaceOpWithNewOp<vector::InsertStridedSliceOp>(
      contract, narrowed, contract.getAcc(), offsets, strides);
}

DiagnosedSilenceableFailure
SkipZeroBorderProductsOp::apply(transform::TransformRewriter &rewriter,
                                transform::TransformResults &,
                                transform::TransformState &state) {
  for (Operation *scope : state.getPayloadOps(getTarget())) {
    // Unroll the loops that move the rows over the border, so that each
    // copy reads at a constant offset.
    llvm::SetVector<Operation *> unroll;
    for (const PaddedRows &rows : findPaddedRows(scope))
      if (scf::ForOp loop = findLoopToUnroll(rows))
        unroll.insert(loop);
    // Inner loops first: unrolling an outer one clones (and erases) those
    // inside it.
    SmallVector<Operation *> loops = unroll.takeVector();
    auto depth = [](Operation *op) {
      unsigned ancestors = 0;
      while ((op = op->getParentOp()))
        ++ancestors;
      return ancestors;
    };
    llvm::sort(loops,
               [&](Operation *a, Operation *b) { return depth(a) > depth(b); });
    for (Operation *loop : loops)
      unrollFully(rewriter, cast<scf::ForOp>(loop));
    // The same contraction may read padding along several dimensions;
    // each is narrowed once, along the first.
    llvm::SmallPtrSet<Operation *, 16> narrowed;
    for (const PaddedRows &rows : findPaddedRows(scope)) {
      if (narrowed.contains(rows.contract))
        continue;
      std::optional<int64_t> offset = evaluateOffset(rows, Value(), 0);
      if (!offset)
        continue;
      auto [first, end] = getRowsInside(rows, *offset);
      if (first == 0 && end == rows.rows)
        continue;
      narrowed.insert(rows.contract);
      narrowContraction(rewriter, rows, first, end);
    }
  }
  return DiagnosedSilenceableFailure::success();
}

void SkipZeroBorderProductsOp::getEffects(
    SmallVectorImpl<MemoryEffects::EffectInstance> &effects) {
  transform::onlyReadsHandle(getTargetMutable(), effects);
  transform::modifiesPayload(effects);
}
