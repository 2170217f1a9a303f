//===- OutlineLoopNests.cpp - One function per top-level loop nest --------===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// Bounds the size of the functions LLVM optimizes: a model's entry function
// becomes a sequence of calls, each loop nest a function of its own (see the
// pass description in Passes.td for why).
//
//===----------------------------------------------------------------------===//

#include "tcl/Dialect/Tcl/IR/TclOps.h"
#include "tcl/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMAttrs.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::tcl {
#define GEN_PASS_DEF_OUTLINELOOPNESTS
#include "tcl/Transforms/Passes.h.inc"
} // namespace mlir::tcl

using namespace mlir;

namespace {

/// An operation worth a function: one with regions that holds a loop (an
/// scf loop, or a linalg op that becomes one). Deallocation conditions,
/// rank-0 computations and other loop-free regions stay where they are.
bool isLoopNest(Operation *op) {
  if (op->getNumRegions() == 0)
    return false;
  return op
      ->walk([](Operation *inner) {
        auto linalgOp = dyn_cast<linalg::LinalgOp>(inner);
        return isa<LoopLikeOpInterface>(inner) ||
                       (linalgOp && linalgOp.getNumLoops() > 0)
                   ? WalkResult::interrupt()
                   : WalkResult::advance();
      })
      .wasInterrupted();
}

/// Values the outlined function recomputes instead of taking them as
/// arguments: results of region-free ops without memory effects (constants,
/// index arithmetic, views of buffers). Cloning them keeps shapes, offsets
/// and strides constant inside the function. Globals (weights) are passed:
/// nests that differ only in their weights are then one function.
bool isRecomputable(Operation *op) {
  return op && !isa<memref::GetGlobalOp>(op) && op->getNumRegions() == 0 &&
         op->getNumResults() > 0 && isMemoryEffectFree(op);
}

/// The values `nest` reads from outside, split into what its function takes
/// as arguments and the ops it clones (operands before users).
struct Captures {
  llvm::SetVector<Value> arguments;
  llvm::SetVector<Operation *> recomputed;

  void add(Value value) {
    Operation *def = value.getDefiningOp();
    if (!isRecomputable(def)) {
      arguments.insert(value);
      return;
    }
    if (recomputed.contains(def))
      return;
    for (Value operand : def->getOperands())
      add(operand);
    recomputed.insert(def);
  }
};

/// What a nest computes, for its function's name (profiles show it): the
/// first task (`tcl.task_nest` on the loops its schedule made, `tcl.task` on
/// an anchor left unscheduled) or else the first named location (an ONNX
/// node) inside, in characters any tool takes; empty if neither.
std::string describeNest(Operation *nest) {
  std::string name;
  if (StringAttr task = tcl::findNestTask(nest))
    name = task.str();
  if (name.empty())
    nest->walk([&](Operation *inner) {
      inner->getLoc()->walk([&](Location loc) {
        if (auto named = dyn_cast<NameLoc>(loc))
          name = named.getName().str();
        return name.empty() ? WalkResult::advance() : WalkResult::interrupt();
      });
      return name.empty() ? WalkResult::advance() : WalkResult::interrupt();
    });
  std::string sanitized;
  for (char c : llvm::StringRef(name).trim("/"))
    sanitized.push_back(llvm::isAlnum(c) || c == '.' ? c : '_');
  return sanitized;
}

} // namespace

StringAttr mlir::tcl::findNestTask(Operation *nest) {
  StringAttr task;
  nest->walk([&](Operation *inner) {
    for (StringRef name : {kTaskAttrName, kTaskNestAttrName})
      if (auto tag = inner->getAttrOfType<StringAttr>(name)) {
        task = tag;
        return WalkResult::interrupt();
      }
    return WalkResult::advance();
  });
  return task;
}

namespace {

struct OutlineLoopNestsPass
    : public tcl::impl::OutlineLoopNestsBase<OutlineLoopNestsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    llvm::StringMap<func::FuncOp> outlinedByText;
    SmallVector<func::FuncOp> functions;
    for (auto function : module.getOps<func::FuncOp>())
      if (!function.isExternal())
        functions.push_back(function);
    for (func::FuncOp function : functions) {
      SmallVector<Operation *> nests;
      for (Block &block : function.getBody())
        for (Operation &op : block)
          if (isLoopNest(&op))
            nests.push_back(&op);
      for (auto [index, nest] : llvm::enumerate(nests))
        outline(nest, function, index, symbols, outlinedByText);
    }
  }

  /// Moves `nest`, the `index`th nest of `parent`, into a function, or calls
  /// the one of `outlinedByText` (the functions made so far, by their text
  /// under one name) that has the same code.
  void outline(Operation *nest, func::FuncOp parent, size_t index,
               SymbolTable &symbols,
               llvm::StringMap<func::FuncOp> &outlinedByText) {
    Captures captures;
    for (Value operand : nest->getOperands())
      captures.add(operand);
    llvm::SetVector<Value> usedAbove;
    getUsedValuesDefinedAbove(nest->getRegions(), usedAbove);
    for (Value value : usedAbove)
      captures.add(value);

    MLIRContext *context = &getContext();
    Location loc = nest->getLoc();
    SmallVector<Type> argumentTypes;
    for (Value value : captures.arguments)
      argumentTypes.push_back(value.getType());
    auto type = FunctionType::get(context, argumentTypes,
                                  llvm::to_vector(nest->getResultTypes()));
    OpBuilder moduleBuilder(context);
    auto function = moduleBuilder.create<func::FuncOp>(loc, "outlined", type);
    Block *body = function.addEntryBlock();
    OpBuilder b = OpBuilder::atBlockBegin(body);
    IRMapping mapping;
    for (auto [value, argument] :
         llvm::zip_equal(captures.arguments, body->getArguments()))
      mapping.map(value, argument);
    for (Operation *op : captures.recomputed)
      b.clone(*op, mapping);
    Operation *moved = b.clone(*nest, mapping);
    b.create<func::ReturnOp>(loc, moved->getResults());

    // Nests of one task (same workload, same schedule) are the same code:
    // compile it once.
    std::string text;
    llvm::raw_string_ostream os(text);
    function->print(os, OpPrintingFlags().useLocalScope());
    auto [known, isNew] = outlinedByText.try_emplace(text, function);
    if (!isNew) {
      function->erase();
      function = known->second;
    } else {
      std::string description = describeNest(nest);
      function.setSymName(
          (parent.getSymName() + "." +
           (description.empty() ? "nest" + std::to_string(index) : description))
              .str());
      function.setPrivate();
      // LLVM inlines a private function called once; keeping each nest
      // apart is the point. Internal linkage keeps the names out of the
      // library's exported symbols.
      function->setAttr("no_inline", UnitAttr::get(context));
      function->setAttr("llvm.linkage", LLVM::LinkageAttr::get(
                                            context, LLVM::Linkage::Internal));
      symbols.insert(function, parent->getIterator());
    }

    OpBuilder callBuilder(nest);
    auto call = callBuilder.create<func::CallOp>(
        loc, function, captures.arguments.getArrayRef());
    nest->replaceAllUsesWith(call.getResults());
    nest->erase();
  }
};

} // namespace
