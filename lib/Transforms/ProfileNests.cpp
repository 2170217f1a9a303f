//===- ProfileNests.cpp - Time counters around outlined loop nests --------===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// Counts, in the compiled code itself, the time of every call of an
// outlined loop nest and of every function's whole run (see the pass
// description in Passes.td): what `tcl-run --profile` prints, split into the
// tasks' nests and everything else.
//
//===----------------------------------------------------------------------===//

#include "tcl/Dialect/Tcl/IR/TclOps.h"
#include "tcl/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringExtras.h"

namespace mlir::tcl {
#define GEN_PASS_DEF_PROFILENESTS
#include "tcl/Transforms/Passes.h.inc"
} // namespace mlir::tcl

using namespace mlir;

namespace {

/// The task of `function`'s loops (findNestTask); empty for leftover ops.
std::string getTaskName(func::FuncOp function) {
  StringAttr task = tcl::findNestTask(function);
  return task ? task.str() : "";
}

/// What `function` computes, for a reader who sees only its name: its
/// outermost loops' kind, then the distinct linalg ops in it (e.g.
/// "fill,copy" for a pad, "scf.for,fill" for a tiled convolution whose
/// tiles fill their own output).
std::string describeOps(func::FuncOp function) {
  llvm::SetVector<StringRef> names;
  for (Operation &op : function.getBody().getOps())
    if (isa<LoopLikeOpInterface>(op))
      names.insert(op.getName().getStringRef());
  function.walk(
      [&](linalg::LinalgOp op) { names.insert(op->getName().stripDialect()); });
  return llvm::join(names, ",");
}

struct ProfileNestsPass
    : public tcl::impl::ProfileNestsBase<ProfileNestsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (module.lookupSymbol(tcl::kProfileCountersSymbol) ||
        module.lookupSymbol(tcl::kProfileSitesSymbol)) {
      module.emitError("is profiled already (it has a symbol named ")
          << tcl::kProfileCountersSymbol << " or " << tcl::kProfileSitesSymbol
          << ")";
      return signalPassFailure();
    }
    SymbolTable symbols(module);
    // Sites in program order: each function's whole run, then its calls.
    SmallVector<std::pair<func::FuncOp, SmallVector<func::CallOp>>> functions;
    for (auto function : module.getOps<func::FuncOp>()) {
      if (function.isExternal() || function.isPrivate())
        continue;
      SmallVector<func::CallOp> calls;
      function.walk([&](func::CallOp call) {
        auto callee = symbols.lookup<func::FuncOp>(call.getCallee());
        if (callee && !callee.isExternal() && callee.isPrivate())
          calls.push_back(call);
      });
      if (!calls.empty())
        functions.emplace_back(function, std::move(calls));
    }
    if (functions.empty())
      return;

    std::string sites;
    int64_t siteCount = 0;
    for (auto &[function, calls] : functions) {
      siteCount += 1 + calls.size();
      sites += (function.getSymName() + "\t\t\t\n").str();
      for (func::CallOp call : calls) {
        auto callee = symbols.lookup<func::FuncOp>(call.getCallee());
        sites += (function.getSymName() + "\t" + call.getCallee() + "\t" +
                  getTaskName(callee) + "\t" + describeOps(callee) + "\n")
                     .str();
      }
    }

    OpBuilder b(module.getBodyRegion());
    b.setInsertionPointToStart(module.getBody());
    Location loc = module.getLoc();
    auto countersType = MemRefType::get({siteCount, 2}, b.getI64Type());
    b.create<memref::GlobalOp>(
        loc, tcl::kProfileCountersSymbol, b.getStringAttr("public"),
        countersType,
        DenseElementsAttr::get(
            RankedTensorType::get(countersType.getShape(), b.getI64Type()),
            b.getI64IntegerAttr(0)),
        /*constant=*/false, /*alignment=*/IntegerAttr());
    // NUL-terminated: a reader learns the count of sites from the text.
    sites.push_back('\0');
    SmallVector<int8_t> bytes(sites.begin(), sites.end());
    auto sitesType =
        MemRefType::get({static_cast<int64_t>(bytes.size())}, b.getI8Type());
    b.create<memref::GlobalOp>(
        loc, tcl::kProfileSitesSymbol, b.getStringAttr("public"), sitesType,
        DenseElementsAttr::get(
            RankedTensorType::get(sitesType.getShape(), b.getI8Type()),
            llvm::ArrayRef(bytes)),
        /*constant=*/true, /*alignment=*/IntegerAttr());

    int64_t site = 0;
    for (auto &[function, calls] : functions) {
      // The whole run: from the first op to every return.
      Block &entryBlock = function.getBody().front();
      b.setInsertionPointToStart(&entryBlock);
      Value start = readClock(b, loc);
      Value counters = b.create<memref::GetGlobalOp>(
          loc, countersType, tcl::kProfileCountersSymbol);
      int64_t wholeSite = site++;
      function.walk([&](func::ReturnOp ret) {
        b.setInsertionPoint(ret);
        count(b, ret.getLoc(), counters, wholeSite, start);
      });
      for (func::CallOp call : calls) {
        b.setInsertionPoint(call);
        Value before = readClock(b, call.getLoc());
        b.setInsertionPointAfter(call);
        count(b, call.getLoc(), counters, site++, before);
      }
    }
  }

  static Value readClock(OpBuilder &b, Location loc) {
    return b
        .create<LLVM::CallIntrinsicOp>(loc, b.getI64Type(),
                                       "llvm.readcyclecounter", ValueRange())
        .getResult(0);
  }

  /// Adds the ticks since `start` and one call to site `site`'s counters.
  static void count(OpBuilder &b, Location loc, Value counters, int64_t site,
                    Value start) {
    Value now = readClock(b, loc);
    Value row = b.create<arith::ConstantIndexOp>(loc, site);
    Value ticksColumn = b.create<arith::ConstantIndexOp>(loc, 0);
    Value callsColumn = b.create<arith::ConstantIndexOp>(loc, 1);
    Value elapsed = b.create<arith::SubIOp>(loc, now, start);
    Value one = b.create<arith::ConstantIntOp>(loc, 1, 64);
    for (auto [column, increment] :
         {std::pair(ticksColumn, elapsed), std::pair(callsColumn, one)}) {
      Value old = b.create<memref::LoadOp>(loc, counters,
                                           ValueRange{row, column});
      Value sum = b.create<arith::AddIOp>(loc, old, increment);
      b.create<memref::StoreOp>(loc, sum, counters, ValueRange{row, column});
    }
  }
};

} // namespace
