//===- TaskExtraction.cpp - A model's tuning tasks ------------------------===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//

#include "tcl/Transforms/TaskExtraction.h"
#include "tcl/Dialect/Tcl/IR/TclOps.h"
#include "tcl/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::tcl {
#define GEN_PASS_DEF_EXTRACTTASKS
#include "tcl/Transforms/Passes.h.inc"
} // namespace mlir::tcl

using namespace mlir;
using namespace mlir::tcl;

/// An elementwise consumer that can be fused into `producer`'s task: an
/// all-parallel generic whose output has the producer's result shape and
/// that reads the producer's result through an identity map.
static linalg::GenericOp getEpilogueConsumer(Operation *producer) {
  if (producer->getNumResults() != 1 || !producer->getResult(0).hasOneUse())
    return nullptr;
  Value result = producer->getResult(0);
  auto consumer = dyn_cast<linalg::GenericOp>(*result.getUsers().begin());
  if (!consumer || consumer->getNumResults() != 1 ||
      consumer.getNumReductionLoops() != 0 ||
      consumer->getBlock() != producer->getBlock() ||
      consumer->hasAttr(kTaskAttrName) ||
      consumer->hasAttr(kEpilogueAttrName) ||
      consumer->getResult(0).getType() != result.getType())
    return nullptr;
  for (OpOperand *input : consumer.getDpsInputOperands())
    if (input->get() == result &&
        !consumer.getMatchingIndexingMap(input).isIdentity())
      return nullptr;
  if (!consumer.getIndexingMapMatchingResult(consumer->getResult(0))
           .isIdentity())
    return nullptr;
  return consumer;
}

/// A stable text for the parts of an op that define its workload.
static std::string describeOp(Operation *op) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << op->getName() << "(";
  llvm::interleaveComma(op->getOperandTypes(), os);
  os << ")";
  for (NamedAttribute attr : op->getAttrs()) {
    // tcl's tags and linalg's caches and bookkeeping are not the workload.
    StringRef name = attr.getName().getValue();
    if (name.starts_with("tcl.") || name.starts_with("__") ||
        name == "linalg.memoized_indexing_maps" ||
        name == "operandSegmentSizes")
      continue;
    os << " " << attr.getName().getValue() << "=" << attr.getValue();
  }
  // The body of a generic: its operations in order, and the tensors it
  // reads with tensor.extract from outside (a gather's table): two gathers
  // from tables of different sizes are different workloads.
  if (auto generic = dyn_cast<linalg::GenericOp>(op)) {
    os << " {";
    for (Operation &inner : generic.getBody()->without_terminator())
      os << inner.getName() << ";";
    os << "}";
    llvm::SetVector<Value> captured;
    getUsedValuesDefinedAbove(generic.getRegion(), captured);
    for (Value value : captured)
      if (isa<TensorType>(value.getType()))
        os << " reads " << value.getType();
  }
  return text;
}

bool mlir::tcl::isTaskAnchor(linalg::LinalgOp op) {
  return op.hasPureTensorSemantics() && op.getNumLoops() > 0 &&
         lookupAnchor(op);
}

double mlir::tcl::countFlops(linalg::LinalgOp linalgOp) {
  double points = 1;
  for (int64_t extent : linalgOp.getStaticLoopRanges()) {
    if (ShapedType::isDynamic(extent))
      return 0;
    points *= extent;
  }
  // Arithmetic per iteration point: the ops of the payload region, so a
  // multiply-accumulate counts 2 and a max-pool window step counts 1.
  unsigned opsPerPoint = 0;
  for (Operation &inner : linalgOp.getBlock()->without_terminator())
    opsPerPoint += inner.getNumResults() > 0;
  return points * opsPerPoint;
}

double mlir::tcl::countAnchorFlops(Operation *root) {
  double flops = 0;
  root->walk([&](linalg::LinalgOp op) {
    if (isTaskAnchor(op))
      flops += countFlops(op);
  });
  return flops;
}

std::vector<TaskSummary> mlir::tcl::extractTasks(ModuleOp module) {
  // Anchors in program order; an op claimed as an epilogue is not an anchor.
  SmallVector<linalg::LinalgOp> anchors;
  module.walk([&](linalg::LinalgOp op) {
    if (op->getParentOfType<ScheduleOp>() || op->hasAttr(kEpilogueAttrName) ||
        op->hasAttr(kTaskAttrName) || !isTaskAnchor(op))
      return;
    anchors.push_back(op);
  });

  llvm::StringMap<std::string> nameOfKey;
  llvm::StringMap<unsigned> namesUsed;
  MLIRContext *ctx = module.getContext();
  for (linalg::LinalgOp anchor : anchors) {
    if (anchor->hasAttr(kEpilogueAttrName))
      continue; // Claimed by an earlier anchor's epilogue.
    SmallVector<Operation *> epilogue;
    for (Operation *op = anchor;
         linalg::GenericOp next = getEpilogueConsumer(op); op = next)
      epilogue.push_back(next);
    std::string key = describeOp(anchor);
    for (Operation *op : epilogue)
      key += " | " + describeOp(op);
    std::string &name = nameOfKey[key];
    if (name.empty()) {
      // e.g. conv_2d_nchw_fchw_0, matmul_1: readable, unique, deterministic.
      StringRef anchorName = getAnchorName(anchor);
      std::string base = anchorName.substr(anchorName.rfind('.') + 1).str();
      name = base + "_" + std::to_string(namesUsed[base]++);
    }
    StringAttr tag = StringAttr::get(ctx, name);
    anchor->setAttr(kTaskAttrName, tag);
    for (Operation *op : epilogue)
      op->setAttr(kEpilogueAttrName, tag);
  }
  return summarizeTasks(module);
}

std::vector<TaskSummary> mlir::tcl::summarizeTasks(ModuleOp module) {
  llvm::MapVector<StringRef, TaskSummary> tasks;
  module.walk([&](linalg::LinalgOp op) {
    if (auto task = op->getAttrOfType<StringAttr>(kTaskAttrName)) {
      TaskSummary &summary = tasks[task.getValue()];
      if (summary.weight++ == 0) {
        summary.name = task.getValue().str();
        summary.anchorName = getAnchorName(op).str();
        summary.key = describeOp(op);
        summary.flops = countFlops(cast<linalg::LinalgOp>(op));
      }
    } else if (auto task = op->getAttrOfType<StringAttr>(kEpilogueAttrName)) {
      TaskSummary &summary = tasks[task.getValue()];
      if (summary.weight <= 1) {
        ++summary.epilogueOps;
        summary.key += " | " + describeOp(op);
      }
    }
  });
  std::vector<TaskSummary> result;
  for (auto &[name, summary] : tasks)
    result.push_back(summary);
  return result;
}

Operation *mlir::tcl::findTaskAnchor(ModuleOp module) {
  Operation *anchor = nullptr;
  module.walk([&](Operation *op) {
    if (!anchor && op->hasAttr(kTaskAttrName) &&
        !op->getParentOfType<ScheduleOp>())
      anchor = op;
  });
  return anchor;
}

/// Ops a workload clones instead of taking their results as arguments.
static bool isCheapToClone(Operation *op) {
  if (auto constant = dyn_cast<arith::ConstantOp>(op))
    return !isa<ShapedType>(constant.getType());
  if (isa<tensor::EmptyOp>(op))
    return true;
  // A fill of a reshaped empty tensor (the init of a 1x1 convolution done as
  // a matmul, or of a reduction over a collapsed batch) is the anchor's init
  // as much as a fill of tensor.empty: taken as an argument, the workload
  // would accumulate onto it, and time code without the fill the model runs
  // (and which its tile loops take in).
  if (isa<linalg::FillOp, tensor::CollapseShapeOp, tensor::ExpandShapeOp>(op))
    return llvm::all_of(op->getOperands(), [](Value operand) {
      Operation *producer = operand.getDefiningOp();
      return producer && isCheapToClone(producer);
    });
  return false;
}

FailureOr<OwningOpRef<ModuleOp>>
mlir::tcl::extractTaskWorkload(ModuleOp module, StringRef task, StringRef entry,
                               StringRef renamedTask) {
  Operation *anchor = nullptr;
  module.walk([&](linalg::LinalgOp op) {
    auto tag = op->getAttrOfType<StringAttr>(kTaskAttrName);
    if (!anchor && tag && tag.getValue() == task &&
        !op->getParentOfType<ScheduleOp>())
      anchor = op;
  });
  if (!anchor)
    return failure();
  // The anchor's padded inputs come with their pads: what the model runs
  // reads the unpadded tensor, and the schedule may fold the padding into
  // the anchor's tiles (tcl.fold_padding_into_tiles), so a workload that
  // took the padded tensor as an argument would time other code.
  SmallVector<Operation *> ops;
  for (Value input : cast<linalg::LinalgOp>(anchor).getDpsInputs())
    if (auto pad = input.getDefiningOp<tensor::PadOp>();
        pad && !llvm::is_contained(ops, pad.getOperation()))
      ops.push_back(pad);
  ops.push_back(anchor);
  for (Operation *op = anchor;
       op->getNumResults() == 1 && op->getResult(0).hasOneUse();) {
    Operation *user = *op->getResult(0).getUsers().begin();
    auto tag = user->getAttrOfType<StringAttr>(kEpilogueAttrName);
    if (!tag || tag.getValue() != task)
      break;
    ops.push_back(user);
    op = user;
  }

  MLIRContext *ctx = module.getContext();
  OwningOpRef<ModuleOp> workload = ModuleOp::create(anchor->getLoc());
  OpBuilder builder = OpBuilder::atBlockEnd(workload->getBody());
  auto func = builder.create<func::FuncOp>(anchor->getLoc(), entry,
                                           builder.getFunctionType({}, {}));
  Block *body = func.addEntryBlock();
  builder.setInsertionPointToStart(body);
  IRMapping mapping;
  // Outside values: cloned if cheap (with their operands), else arguments.
  std::function<Value(Value)> bring = [&](Value value) -> Value {
    if (Value mapped = mapping.lookupOrNull(value))
      return mapped;
    Operation *producer = value.getDefiningOp();
    if (producer && isCheapToClone(producer)) {
      for (Value operand : producer->getOperands())
        bring(operand);
      builder.clone(*producer, mapping);
      return mapping.lookup(value);
    }
    Value argument = body->addArgument(value.getType(), value.getLoc());
    mapping.map(value, argument);
    return argument;
  };
  StringAttr newTag = StringAttr::get(ctx, renamedTask);
  for (Operation *op : ops) {
    for (Value operand : op->getOperands())
      if (!llvm::is_contained(ops, operand.getDefiningOp()))
        bring(operand);
    // Values the op's body captures (a generic's scalar constants).
    llvm::SetVector<Value> captured;
    getUsedValuesDefinedAbove(op->getRegions(), captured);
    for (Value value : captured)
      bring(value);
    Operation *clone = builder.clone(*op, mapping);
    if (op == anchor)
      clone->setAttr(kTaskAttrName, newTag);
    else if (op->hasAttr(kEpilogueAttrName))
      clone->setAttr(kEpilogueAttrName, newTag);
  }
  Value result = mapping.lookup(ops.back()->getResult(0));
  builder.create<func::ReturnOp>(anchor->getLoc(), result);
  func.setFunctionType(
      builder.getFunctionType(body->getArgumentTypes(), result.getType()));
  return workload;
}

namespace {
struct ExtractTasksPass
    : public mlir::tcl::impl::ExtractTasksBase<ExtractTasksPass> {
  void runOnOperation() override { extractTasks(getOperation()); }
};
} // namespace
