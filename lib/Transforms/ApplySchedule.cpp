//===- ApplySchedule.cpp - Schedules applied to their task instances ------===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// Finds the payload instances of each schedule's task, tags them so that the
// schedule's transform sequence (TransformEmitter.cpp) finds them, and runs
// that sequence with MLIR's transform interpreter, one instance at a time.
//
//===----------------------------------------------------------------------===//

#include "tcl/Transforms/ApplySchedule.h"
#include "TaskInstanceTags.h"
#include "tcl/Target/Platform.h"
#include "tcl/Transforms/Passes.h"
#include "tcl/Transforms/TransformOps.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/TransformOps/LinalgTransformOps.h"
#include "mlir/Dialect/SCF/TransformOps/SCFTransformOps.h"
#include "mlir/Dialect/Tensor/TransformOps/TensorTransformOps.h"
#include "mlir/Dialect/Transform/IR/TransformOps.h"
#include "mlir/Dialect/Transform/LoopExtension/LoopExtensionOps.h"
#include "mlir/Dialect/Transform/Transforms/TransformInterpreterUtils.h"
#include "mlir/Dialect/Vector/TransformOps/VectorTransformOps.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::tcl {
#define GEN_PASS_DEF_APPLYSCHEDULE
#include "tcl/Transforms/Passes.h.inc"
} // namespace mlir::tcl

using namespace mlir;
using namespace mlir::tcl;

//===----------------------------------------------------------------------===//
// Payload
//===----------------------------------------------------------------------===//

static std::string formatKinds(ArrayRef<utils::IteratorType> kinds) {
  std::string text;
  for (utils::IteratorType kind : kinds)
    text.push_back(kind == utils::IteratorType::reduction ? 'r' : 'p');
  return text;
}

/// The linalg.fill that initializes `anchor`'s output, if `anchor` is its
/// only user: fusing it keeps the output tile in cache.
linalg::FillOp mlir::tcl::getAnchorFill(Operation *anchor) {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(anchor);
  if (!linalgOp || linalgOp.getNumDpsInits() != 1)
    return nullptr;
  auto fill = linalgOp.getDpsInits()[0].getDefiningOp<linalg::FillOp>();
  if (!fill || !fill->hasOneUse())
    return nullptr;
  return fill;
}

FailureOr<SmallVector<TaskInstance>>
mlir::tcl::findTaskInstances(ScheduleOp schedule, Operation *root) {
  SmallVector<TaskInstance> instances;
  bool failedCheck = false;
  root->walk([&](Operation *op) {
    auto task = op->getAttrOfType<StringAttr>(kTaskAttrName);
    if (!task || task.getValue() != schedule.getTask())
      return;
    auto fail = [&](const Twine &message) {
      InFlightDiagnostic diag = schedule.emitOpError(message);
      diag.attachNote(op->getLoc()) << "task instance here";
      failedCheck = true;
    };
    if (getAnchorName(op) != schedule.getAnchor())
      return fail("expects anchor " + schedule.getAnchor() + " but task '" +
                  schedule.getTask() + "' is anchored on " + getAnchorName(op));
    auto linalgOp = cast<linalg::LinalgOp>(op);
    SmallVector<int64_t> extents = linalgOp.getStaticLoopRanges();
    std::string kinds = formatKinds(linalgOp.getIteratorTypesArray());
    if (extents != schedule.getExtents() || kinds != schedule.getLoopKinds())
      return fail("declares loops " + formatSizes(schedule.getExtents()) +
                  " '" + schedule.getLoopKinds() + "' but the anchor has " +
                  formatSizes(extents) + " '" + kinds + "'");

    // The epilogue: the chain of tagged ops each consuming the previous
    // result as its only user (the rule tcl-extract-tasks tags by). Tagged
    // ops further on belong to other instances of the same task.
    TaskInstance instance{op, {}};
    for (Operation *producer = op; producer->getNumResults() == 1 &&
                                   producer->getResult(0).hasOneUse();) {
      Operation *user = *producer->getResult(0).getUsers().begin();
      auto tag = user->getAttrOfType<StringAttr>(kEpilogueAttrName);
      if (!tag || tag.getValue() != schedule.getTask())
        break;
      if (!isa<linalg::LinalgOp>(user) || user->getBlock() != op->getBlock())
        return fail("epilogue op " + user->getName().getStringRef() +
                    " must be a linalg op in the anchor's block");
      instance.epilogue.push_back(user);
      producer = user;
    }
    instances.push_back(std::move(instance));
  });
  if (failedCheck)
    return failure();
  if (instances.empty())
    return schedule.emitOpError("finds no operation tagged ")
           << kTaskAttrName << " = \"" << schedule.getTask() << "\"";
  return instances;
}

void mlir::tcl::tagTaskInstance(const TaskInstance &instance) {
  Builder builder(instance.anchor->getContext());
  instance.anchor->setAttr(kMatchAttrName,
                           builder.getI64IntegerAttr(kAnchorKey));
  if (linalg::FillOp fill = getAnchorFill(instance.anchor))
    fill->setAttr(kMatchAttrName, builder.getI64IntegerAttr(kAnchorFillKey));
  for (auto [index, op] : llvm::enumerate(instance.epilogue))
    op->setAttr(kMatchAttrName,
                builder.getI64IntegerAttr(kEpilogueKeyBase + index));
}

void mlir::tcl::untagTaskInstances(Operation *root) {
  root->walk([](Operation *op) {
    SmallVector<StringAttr> temporary;
    for (NamedAttribute attr : op->getAttrs())
      if (attr.getName().getValue().starts_with(kTempAttrPrefix))
        temporary.push_back(attr.getName());
    for (StringAttr name : temporary)
      op->removeAttr(name);
  });
}

/// Temporary mark of the top-level ops that exist before a task instance's
/// sequence runs (markTaskNests tells the ones it makes by its absence).
static constexpr StringLiteral kExistingAttrName = "__tcl_sched_existing";

static Operation *getTopLevelAncestor(Operation *op, Operation *root) {
  while (op && op->getParentOp() != root)
    op = op->getParentOp();
  return op;
}

/// Marks each top-level op of `root` with kExistingAttrName.
static void markExistingOps(Operation *root) {
  UnitAttr unit = UnitAttr::get(root->getContext());
  for (Region &region : root->getRegions())
    for (Block &block : region)
      for (Operation &op : block)
        op.setAttr(kExistingAttrName, unit);
}

/// Marks `nest` and every loop in it with the task's name: clean-ups that
/// fold a loop of one iteration (a peeled last tile's) into its parent leave
/// the loops inside it marked.
static void markNest(Operation *nest, StringAttr task) {
  nest->setAttr(kTaskNestAttrName, task);
  nest->walk([&](LoopLikeOpInterface loop) {
    loop->setAttr(kTaskNestAttrName, task);
  });
}

/// Marks the top-level ops of `root` that hold the task instance just
/// scheduled with the task's name (kTaskNestAttrName): outlined functions
/// and profiles name them after it. They are the ancestors of its tagged
/// ops (loops, a peeled last tile, an untiled anchor) and the loops and
/// linalg ops the sequence made (those without kExistingAttrName, placed
/// before it ran): a loop the clean-ups rebuilt, or code whose tagged ops
/// vectorization replaced, has no tagged op left.
static void markTaskNests(Operation *root, StringAttr task) {
  llvm::SetVector<Operation *> nests;
  root->walk([&](Operation *op) {
    bool tagged = llvm::any_of(op->getAttrs(), [](NamedAttribute attr) {
      StringRef name = attr.getName().getValue();
      return name.starts_with(kTempAttrPrefix) && name != kExistingAttrName;
    });
    if (!tagged)
      return;
    if (Operation *topLevel = getTopLevelAncestor(op, root))
      nests.insert(topLevel);
  });
  for (Region &region : root->getRegions())
    for (Block &block : region)
      for (Operation &op : block)
        if (!op.hasAttr(kExistingAttrName) && !op.hasAttr(kTaskNestAttrName) &&
            (op.getNumRegions() > 0 || isa<linalg::LinalgOp>(op)))
          nests.insert(&op);
  for (Operation *nest : nests)
    markNest(nest, task);
}

/// The payload root a task instance's sequence runs on: its function.
static Operation *getPayloadRoot(const TaskInstance &instance) {
  if (auto func = instance.anchor->getParentOfType<FunctionOpInterface>())
    return func;
  return instance.anchor->getParentOp();
}

LogicalResult mlir::tcl::applySchedule(ScheduleOp schedule, Operation *root) {
  FailureOr<SmallVector<TaskInstance>> instances =
      findTaskInstances(schedule, root);
  if (failed(instances))
    return failure();
  MLIRContext *ctx = schedule.getContext();
  for (const TaskInstance &instance : *instances) {
    OpBuilder builder(ctx);
    OwningOpRef<ModuleOp> library = ModuleOp::create(schedule.getLoc());
    (*library)->setAttr(transform::TransformDialect::kWithNamedSequenceAttrName,
                        builder.getUnitAttr());
    builder.setInsertionPointToEnd(library->getBody());
    FailureOr<Operation *> sequence = buildTransformSequence(
        builder, schedule, instance, "__tcl_apply_schedule");
    if (failed(sequence))
      return failure();
    Operation *payloadRoot = getPayloadRoot(instance);
    tagTaskInstance(instance);
    markExistingOps(payloadRoot);
    LogicalResult result = transform::applyTransformNamedSequence(
        payloadRoot, *sequence, *library, transform::TransformOptions());
    markTaskNests(payloadRoot, schedule.getTaskAttr());
    untagTaskInstances(payloadRoot);
    // The sequence's CSE (before hoisting accumulators, over the whole
    // function) merges identical fills again, also the ones of instances
    // still to be scheduled: each anchor must find a fill of its own.
    unshareFills(payloadRoot);
    if (failed(result))
      return schedule.emitOpError("failed to apply to task '")
             << schedule.getTask() << "' (see the diagnostics above)";
  }
  return success();
}

StringRef mlir::tcl::getDefaultTarget(ModuleOp module) {
  StringRef target;
  module.walk([&](ScheduleOp schedule) {
    target = schedule.getTarget();
    return WalkResult::interrupt();
  });
  return target.empty() ? getHostTargetArch().name : target;
}

//===----------------------------------------------------------------------===//
// Pass
//===----------------------------------------------------------------------===//

namespace {
struct ApplySchedulePass
    : public mlir::tcl::impl::ApplyScheduleBase<ApplySchedulePass> {
  using ApplyScheduleBase::ApplyScheduleBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<ScheduleOp> schedules;
    module.walk([&](ScheduleOp schedule) { schedules.push_back(schedule); });
    if (emitTransform) {
      emitTransformSequences(module, schedules);
      return;
    }
    // Check every schedule against the payload before any is applied:
    // applying one ends with canonicalization, which may fold away another
    // task's anchor (e.g. a generic that only copies its input). That task
    // then has nothing left to schedule, which is not an error.
    for (ScheduleOp schedule : schedules)
      if (failed(findTaskInstances(schedule, module)))
        return signalPassFailure();
    for (ScheduleOp schedule : schedules) {
      if (hasTaskInstance(module, schedule.getTask()) &&
          failed(applySchedule(schedule, module)))
        return signalPassFailure();
      schedule.erase();
    }
    // Each sequence cleaned up its own loop nest; the constants and ops
    // around the nests are cleaned once, here.
    if (schedules.empty())
      return;
    OpPassManager cleanup(ModuleOp::getOperationName());
    cleanup.addPass(createCanonicalizerPass());
    cleanup.addPass(createCSEPass());
    if (failed(runPipeline(cleanup, module)))
      return signalPassFailure();
  }

  static bool hasTaskInstance(ModuleOp module, StringRef task) {
    WalkResult result = module.walk([&](Operation *op) {
      auto tag = op->getAttrOfType<StringAttr>(kTaskAttrName);
      return tag && tag.getValue() == task ? WalkResult::interrupt()
                                           : WalkResult::advance();
    });
    return result.wasInterrupted();
  }

  /// Replaces each schedule by the transform sequences it lowers to.
  void emitTransformSequences(ModuleOp module, ArrayRef<ScheduleOp> schedules) {
    OpBuilder builder(module.getContext());
    module->setAttr(transform::TransformDialect::kWithNamedSequenceAttrName,
                    builder.getUnitAttr());
    for (ScheduleOp schedule : schedules) {
      FailureOr<SmallVector<TaskInstance>> instances =
          findTaskInstances(schedule, module);
      if (failed(instances))
        return signalPassFailure();
      builder.setInsertionPoint(schedule);
      for (auto [index, instance] : llvm::enumerate(*instances)) {
        std::string name =
            ("__tcl_" + schedule.getTask() + "_" + Twine(index)).str();
        if (failed(buildTransformSequence(builder, schedule, instance, name)))
          return signalPassFailure();
      }
      schedule.erase();
    }
  }
};
} // namespace
