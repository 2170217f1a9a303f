//===- bench_kernels.cpp - tcl kernels vs oneDNN, side by side ------------===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// For each workload (matmuls incl. BERT-base shapes, ResNet-18 convolutions,
// MobileNetV2 depthwise and pointwise convolutions, grouped convolutions with
// groups of 8 channels), in one process with one thread count:
// tcl with its default schedule (after the graph optimizations tcl-compile
// runs, which compute a 1x1 convolution as a matmul and, given the filter
// as a constant as a model has it, pack wide filters into blocks of output
// channels at compile time, as oneDNN reorders its weights outside the
// timing), tcl with a hand schedule of the op as written, and oneDNN; the
// machine's measured FMA peak; GFLOP/s of the median run, % of peak and the
// ratio to oneDNN. Outputs of tcl and oneDNN are compared as well.
//
// Usage: tcl-bench-kernels [threads] [filter] [--rounds=N] [--tune=N
// --tuning-db=PATH] [--block-filters=false] (--help says so; bench/run.sh
// sets
// OMP_NUM_THREADS for oneDNN to the same count).
//
//===----------------------------------------------------------------------===//

#include "tcl/Registration/Registration.h"
#include "tcl/Runtime/Kernel.h"
#include "tcl/Runtime/Machine.h"
#include "tcl/Runtime/Measure.h"
#include "tcl/Transforms/Pipelines.h"
#include "tcl/Transforms/TaskExtraction.h"
#include "tcl/Tuning/TunedSchedules.h"
#include "tcl/Tuning/Tuner.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/FormatVariadic.h"

#include "oneapi/dnnl/dnnl.h"
#include "oneapi/dnnl/dnnl.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

using namespace mlir::tcl;

namespace {

/// The median of `values` (not empty): the mean of the middle two of an
/// even count. (The upper one of them made a table of two rounds report
/// each row's better round.)
double median(std::vector<double> values) {
  size_t middle = values.size() / 2;
  std::nth_element(values.begin(), values.begin() + middle, values.end());
  double upper = values[middle];
  if (values.size() % 2 != 0)
    return upper;
  double lower = *std::max_element(values.begin(), values.begin() + middle);
  return (lower + upper) / 2;
}

constexpr unsigned kWarmup = 2;
constexpr unsigned kRepeats = 7;

//===----------------------------------------------------------------------===//
// Workloads
//===----------------------------------------------------------------------===//

std::string shape(std::vector<int64_t> dims) {
  std::string text = "tensor<";
  for (int64_t dim : dims)
    text += std::to_string(dim) + "x";
  return text + "f32>";
}

struct Workload {
  std::string name;
  /// Counted from the source (countWorkloadFlops).
  double flops = 0;
  std::string source; // func.func @f, anchor tagged tcl.task = "t"
  /// The argument of @f that is a convolution's filter: the default and
  /// tuned contenders compile it as a constant (a model's weights).
  std::optional<unsigned> filterArgument;
  std::string handSchedule;
  std::function<void(const std::vector<Buffer> &, std::vector<float> &,
                     std::function<void(std::function<void()>)>)>
      oneDNN;
};

std::string matmulSource(int64_t m, int64_t n, int64_t k) {
  std::string a = shape({m, k}), b = shape({k, n}), c = shape({m, n});
  return "func.func @f(%a: " + a + ", %b: " + b + ") -> " + c +
         " {\n  %zero = arith.constant 0.0 : f32\n  %e = tensor.empty() : " +
         c + "\n  %c = linalg.fill ins(%zero : f32) outs(%e : " + c + ") -> " +
         c + "\n  %0 = linalg.matmul {tcl.task = \"t\"} ins(%a, %b : " + a +
         ", " + b + ") outs(%c : " + c + ") -> " + c + "\n  return %0 : " + c +
         "\n}\n";
}

std::string schedule(std::string anchor, std::vector<int64_t> extents,
                     std::string kinds, std::vector<std::string> primitives) {
  std::string text = "tcl.sched.schedule task \"t\" anchor \"" + anchor +
                     "\" target \"x86-avx512\" loops [";
  for (size_t i = 0; i < extents.size(); ++i)
    text += (i ? ", " : "") + std::to_string(extents[i]) +
            (kinds[i] == 'r' ? " reduction" : " parallel");
  text += "] {\n";
  for (const std::string &primitive : primitives)
    text += "  tcl.sched." + primitive + "\n";
  return text + "}\n";
}

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

/// The largest divisor of `extent` that is at most `limit`.
int64_t largestDivisor(int64_t extent, int64_t limit) {
  for (int64_t size = std::min(extent, limit); size > 1; --size)
    if (extent % size == 0)
      return size;
  return 1;
}

/// `source` after the graph optimizations tcl-compile runs on imported
/// models (a 1x1 convolution becomes a matmul, a wide constant filter is
/// packed into blocks), or "" if they fail. With `constant`, argument
/// `constant->first` of @f becomes a constant of the values of
/// `constant->second`, as a model's weights are (packed into blocks unless
/// `blockFilters` is false). Winograd's algorithm is
/// left out: the table compares direct convolutions (oneDNN's too); the
/// models measure it. The task tag stays on the op that computes the
/// workload, or moves to the form it is rewritten into.
std::string
graphOptimized(const std::string &source,
               std::optional<std::pair<unsigned, const Buffer *>> constant,
               bool blockFilters) {
  mlir::DialectRegistry registry;
  registerTclDialects(registry);
  mlir::MLIRContext context(registry);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(source, &context);
  if (!module)
    return "";
  if (constant) {
    auto function = module->lookupSymbol<mlir::func::FuncOp>("f");
    mlir::BlockArgument argument = function.getArgument(constant->first);
    auto type = llvm::cast<mlir::RankedTensorType>(argument.getType());
    mlir::OpBuilder builder(function.getBody());
    auto value = builder.create<mlir::arith::ConstantOp>(
        function.getLoc(), type,
        mlir::DenseElementsAttr::get(
            type, llvm::ArrayRef<float>(constant->second->data)));
    argument.replaceAllUsesWith(value);
    function.eraseArgument(constant->first);
    // The task tag names the convolution before the rewrite; the rewritten
    // form is tagged again below.
    function.walk([](mlir::Operation *op) { op->removeAttr(kTaskAttrName); });
  }
  GraphOptions graph;
  graph.winograd = false;
  graph.blockFilters = blockFilters;
  if (mlir::failed(optimizeGraph(*module, nullptr, graph)))
    return "";
  if (constant) {
    mlir::Operation *anchor = nullptr;
    module->walk([&](mlir::linalg::LinalgOp op) {
      if (!anchor && op.getNumReductionLoops() > 0)
        anchor = op;
    });
    if (!anchor)
      return "";
    anchor->setAttr(kTaskAttrName, mlir::StringAttr::get(&context, "t"));
  }
  std::string text;
  llvm::raw_string_ostream os(text);
  module->print(os);
  return text;
}

/// The workload's FLOPs, counted as every report counts them
/// (countAnchorFlops).
double countWorkloadFlops(const std::string &source) {
  mlir::DialectRegistry registry;
  registerTclDialects(registry);
  mlir::MLIRContext context(registry);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(source, &context);
  return module ? countAnchorFlops(*module) : 0;
}

Workload matmul(int64_t m, int64_t n, int64_t k, unsigned threads) {
  Workload w;
  w.name = "matmul " + std::to_string(m) + "x" + std::to_string(n) + "x" +
           std::to_string(k);
  w.source = matmulSource(m, n, k);
  // Hand schedule: B packed into a contiguous panel per cache tile, A read
  // in place (RECIPES.md: the best of the schedules tried before the
  // project; packing A as well ran no faster, stop 46).
  std::vector<std::string> p;
  int64_t rows = threads > 1 ? ceilDiv(m, threads) : m;
  int64_t mc = std::min<int64_t>(rows, 128), nc = std::min<int64_t>(n, 256),
          kc = std::min<int64_t>(k, 256);
  if (threads > 1) {
    p.push_back("tile [" + std::to_string(ceilDiv(m, threads)) + ", 0, 0]");
    p.push_back("parallelize");
  }
  // GotoBLAS order: for each B panel (kc x nc, packed once and reused by all
  // row tiles), stream row tiles of A.
  p.push_back("tile [" + std::to_string(mc) + ", " + std::to_string(nc) + ", " +
              std::to_string(kc) + "]");
  p.push_back("interchange [1, 2, 0]");
  p.push_back("pad [1] hoist 1");
  p.push_back("tile [8, 32, 1]");
  p.push_back("vectorize");
  p.push_back("hoist_accumulators");
  p.push_back("unroll level " + std::to_string(threads > 1 ? 2 : 1) +
              " dim 2 by 4");
  w.handSchedule = schedule("linalg.matmul", {m, n, k}, "ppr", p);
  w.oneDNN = [m, n, k](const std::vector<Buffer> &in, std::vector<float> &out,
                       std::function<void(std::function<void()>)> time) {
    out.assign(m * n, 0.0f);
    time([&] {
      dnnl_sgemm('N', 'N', m, n, k, 1.0f, in[0].data.data(), k,
                 in[1].data.data(), n, 0.0f, out.data(), n);
    });
  };
  return w;
}

/// The input of a convolution workload as tcl's function takes it: the
/// unpadded NHWC input, which the function pads itself with `tensor.pad`,
/// as imported models do (so tcl's time includes the padding, and its
/// schedules may skip kernel taps that read only the zero border, as
/// oneDNN's do); unpadded convolutions take the part of the input they read.
struct ConvInput {
  /// The function's argument type.
  std::string argumentType;
  /// What the convolution reads: "%in", or the padding of it.
  std::string prologue;
  /// The padded type the convolution reads.
  std::string paddedType;
};

ConvInput convInput(int64_t inHW, int64_t paddedHW, int64_t pad,
                    std::vector<int64_t> channels) {
  auto type = [&](int64_t hw) {
    std::vector<int64_t> dims = {1, hw, hw};
    dims.insert(dims.end(), channels.begin(), channels.end());
    return shape(dims);
  };
  ConvInput input;
  input.paddedType = type(paddedHW);
  if (pad == 0) {
    input.argumentType = input.paddedType;
    return input;
  }
  // The rows the last output row's window ends before (no further).
  int64_t high = paddedHW - inHW - pad;
  if (high < 0) {
    std::fprintf(stderr, "a workload's stride skips more than its padding\n");
    std::exit(2);
  }
  std::string lowList =
                  "0, " + std::to_string(pad) + ", " + std::to_string(pad),
              highList =
                  "0, " + std::to_string(high) + ", " + std::to_string(high);
  std::string indices = "%i0: index, %i1: index, %i2: index";
  for (size_t i = 0; i < channels.size(); ++i) {
    lowList += ", 0";
    highList += ", 0";
    indices += ", %c" + std::to_string(i) + ": index";
  }
  input.argumentType = type(inHW);
  input.prologue =
      "  %in = tensor.pad %x low[" + lowList + "] high[" + highList +
      "] {\n  ^bb0(" + indices +
      "):\n    tensor.yield %zero : f32\n  } : " + input.argumentType + " to " +
      input.paddedType + "\n";
  return input;
}

/// oneDNN's NHWC input from tcl's (`tclInput`, either unpadded or the rows
/// and columns an unpadded convolution reads).
std::vector<float> oneDNNInput(const Buffer &tclInput, int64_t inHW,
                               int64_t channels) {
  int64_t hw = tclInput.shape[1];
  std::vector<float> src(inHW * inHW * channels, 0.0f);
  for (int64_t y = 0; y < std::min(inHW, hw); ++y)
    for (int64_t x = 0; x < std::min(inHW, hw); ++x)
      for (int64_t ch = 0; ch < channels; ++ch)
        src[(y * inHW + x) * channels + ch] =
            tclInput.data[(y * hw + x) * channels + ch];
  return src;
}

/// NHWC convolution, batch 1: tcl's function pads the unpadded input itself
/// (convInput), oneDNN is given it with the same padding.
Workload conv(std::string label, int64_t inHW, int64_t c, int64_t f,
              int64_t kernel, int64_t stride, int64_t pad, bool depthwise,
              unsigned threads) {
  int64_t outHW = (inHW + 2 * pad - kernel) / stride + 1;
  int64_t paddedHW = (outHW - 1) * stride + kernel;
  Workload w;
  w.name = label;
  if (!depthwise)
    w.filterArgument = 1;
  int64_t outC = depthwise ? c : f;
  ConvInput input = convInput(inHW, paddedHW, pad, {c});
  std::string in = input.paddedType;
  std::string wt =
      depthwise ? shape({kernel, kernel, c}) : shape({kernel, kernel, c, f});
  std::string out = shape({1, outHW, outHW, outC});
  std::string op = depthwise ? "linalg.depthwise_conv_2d_nhwc_hwc"
                             : "linalg.conv_2d_nhwc_hwcf";
  std::string s = std::to_string(stride);
  w.source = "func.func @f(%" + std::string(pad ? "x" : "in") + ": " +
             input.argumentType + ", %w: " + wt + ") -> " + out +
             " {\n  %zero = arith.constant 0.0 : f32\n" + input.prologue +
             "  %e = tensor.empty() : " + out +
             "\n  %o = linalg.fill ins(%zero : f32) outs(%e : " + out +
             ") -> " + out + "\n  %0 = " + op +
             " {tcl.task = \"t\", dilations = dense<1> : tensor<2xi64>, "
             "strides = dense<" +
             s + "> : tensor<2xi64>} ins(%in, %w : " + in + ", " + wt +
             ") outs(%o : " + out + ") -> " + out + "\n  return %0 : " + out +
             "\n}\n";
  // Hand schedule: a wider output tile (16 columns when they divide) and
  // 4 input channels per step.
  int64_t cols =
      outHW % 16 == 0 ? 16 : (outHW % 8 == 0 ? 8 : (outHW % 7 == 0 ? 7 : 1));
  std::vector<std::string> p;
  if (threads > 1) {
    p.push_back("tile [0, " + std::to_string(ceilDiv(outHW, threads)) +
                (depthwise ? ", 0, 0, 0, 0]" : ", 0, 0, 0, 0, 0]"));
    p.push_back("parallelize");
  }
  if (depthwise) {
    p.push_back("tile [0, 1, " + std::to_string(cols) + ", " +
                std::to_string(largestDivisor(c, 32)) + ", 1, 0]");
    p.push_back("decompose");
    p.push_back("vectorize");
    p.push_back("hoist_accumulators");
    p.push_back("unroll level " + std::to_string(threads > 1 ? 1 : 0) +
                " dim 4 by " + std::to_string(kernel));
    w.handSchedule =
        schedule(op, {1, outHW, outHW, c, kernel, kernel}, "pppprr", p);
  } else {
    int64_t fc = largestDivisor(f, 32);
    int64_t cc = c % 4 == 0 ? 4 : 1;
    p.push_back("tile [0, 1, " + std::to_string(cols) + ", " +
                std::to_string(fc) + ", 1, 1, " + std::to_string(cc) + "]");
    p.push_back("decompose");
    p.push_back("vectorize");
    p.push_back("hoist_accumulators");
    w.handSchedule =
        schedule(op, {1, outHW, outHW, f, kernel, kernel, c}, "pppprrr", p);
  }
  w.oneDNN = [=](const std::vector<Buffer> &inputs, std::vector<float> &result,
                 std::function<void(std::function<void()>)> time) {
    using namespace dnnl;
    engine eng(engine::kind::cpu, 0);
    stream strm(eng);
    using tag = memory::format_tag;
    using dt = memory::data_type;
    memory::dims srcDims = {1, c, inHW, inHW};
    memory::dims dstDims = {1, outC, outHW, outHW};
    memory::dims wDims = depthwise ? memory::dims{c, 1, 1, kernel, kernel}
                                   : memory::dims{f, c, kernel, kernel};
    memory::desc srcMd(srcDims, dt::f32, tag::nhwc);
    memory::desc dstMd(dstDims, dt::f32, tag::nhwc);
    memory::desc wAny(wDims, dt::f32, tag::any);
    convolution_forward::desc desc(
        prop_kind::forward_inference, algorithm::convolution_direct, srcMd,
        wAny, dstMd, {stride, stride}, {pad, pad}, {pad, pad});
    convolution_forward::primitive_desc pd(desc, eng);
    std::vector<float> src = oneDNNInput(inputs[0], inHW, c);
    // Weights from HWCF/HWC to oneDNN's preferred layout, outside timing.
    memory::desc wUser(wDims, dt::f32, depthwise ? tag::hwigo : tag::hwio);
    memory wUserMem(wUser, eng, const_cast<float *>(inputs[1].data.data()));
    memory wMem(pd.weights_desc(), eng);
    reorder(wUserMem, wMem).execute(strm, wUserMem, wMem);
    memory srcMem(srcMd, eng, src.data());
    result.assign(outHW * outHW * outC, 0.0f);
    memory dstMem(dstMd, eng, result.data());
    convolution_forward prim(pd);
    time([&] {
      prim.execute(strm, {{DNNL_ARG_SRC, srcMem},
                          {DNNL_ARG_WEIGHTS, wMem},
                          {DNNL_ARG_DST, dstMem}});
      strm.wait();
    });
  };
  return w;
}

/// Grouped NHWC convolution (groups of c / groups channels), batch 1, as
/// tcl's grouped form (tcl/Support/GroupedConv.h): the input viewed as
/// [1, H, W, G, C/G], weights [G, KH, KW, C/G, F/G], output [1, OH, OW, G,
/// F/G], the same memory as NHWC input and output.
Workload groupedConv(std::string label, int64_t inHW, int64_t c, int64_t f,
                     int64_t groups, int64_t kernel, int64_t stride,
                     int64_t pad, unsigned threads) {
  int64_t outHW = (inHW + 2 * pad - kernel) / stride + 1;
  int64_t paddedHW = (outHW - 1) * stride + kernel;
  int64_t cg = c / groups, fg = f / groups;
  Workload w;
  w.name = label;
  ConvInput input = convInput(inHW, paddedHW, pad, {groups, cg});
  std::string in = input.paddedType;
  std::string wt = shape({groups, kernel, kernel, cg, fg});
  std::string out = shape({1, outHW, outHW, groups, fg});
  std::string s = std::to_string(stride);
  std::string dims = "(n, oh, ow, g, f, kh, kw, c)";
  w.source =
      "func.func @f(%" + std::string(pad ? "x" : "in") + ": " +
      input.argumentType + ", %w: " + wt + ") -> " + out +
      " {\n  %zero = arith.constant 0.0 : f32\n" + input.prologue +
      "  %e = tensor.empty() : " + out +
      "\n  %o = linalg.fill ins(%zero : f32) outs(%e : " + out + ") -> " + out +
      "\n  %0 = linalg.generic {indexing_maps = [affine_map<" + dims +
      " -> (n, oh * " + s + " + kh, ow * " + s + " + kw, g, c)>, affine_map<" +
      dims + " -> (g, kh, kw, c, f)>, affine_map<" + dims +
      " -> (n, oh, ow, g, f)>], iterator_types = [\"parallel\", "
      "\"parallel\", \"parallel\", \"parallel\", \"parallel\", "
      "\"reduction\", \"reduction\", \"reduction\"]} ins(%in, %w : " +
      in + ", " + wt + ") outs(%o : " + out +
      ") attrs = {tcl.task = \"t\"} {\n  ^bb0(%a: f32, %b: f32, %acc: "
      "f32):\n    %p = arith.mulf %a, %b : f32\n    %r = arith.addf %acc, "
      "%p : f32\n    linalg.yield %r : f32\n  } -> " +
      out + "\n  return %0 : " + out + "\n}\n";
  // Hand schedule: 8 (or 7) output columns, all of a group's output
  // channels (up to 32), one input channel per step (more per step measured
  // slower: 2 halved the speed of the first workload).
  int64_t cols = outHW % 8 == 0 ? 8 : (outHW % 7 == 0 ? 7 : 1);
  std::vector<std::string> p;
  if (threads > 1) {
    p.push_back("tile [0, " + std::to_string(ceilDiv(outHW, threads)) +
                ", 0, 0, 0, 0, 0, 0]");
    p.push_back("parallelize");
  }
  p.push_back("tile [0, 1, " + std::to_string(cols) + ", 1, " +
              std::to_string(largestDivisor(fg, 32)) + ", 1, 1, 1]");
  p.push_back("decompose");
  p.push_back("vectorize");
  p.push_back("hoist_accumulators");
  w.handSchedule = schedule("linalg.generic.conv_2d_nhwgc_ghwcf",
                            {1, outHW, outHW, groups, fg, kernel, kernel, cg},
                            "ppppprrr", p);
  w.oneDNN = [=](const std::vector<Buffer> &inputs, std::vector<float> &result,
                 std::function<void(std::function<void()>)> time) {
    using namespace dnnl;
    engine eng(engine::kind::cpu, 0);
    stream strm(eng);
    using tag = memory::format_tag;
    using dt = memory::data_type;
    memory::desc srcMd({1, c, inHW, inHW}, dt::f32, tag::nhwc);
    memory::desc dstMd({1, f, outHW, outHW}, dt::f32, tag::nhwc);
    memory::dims wDims = {groups, fg, cg, kernel, kernel};
    memory::desc wAny(wDims, dt::f32, tag::any);
    convolution_forward::desc desc(
        prop_kind::forward_inference, algorithm::convolution_direct, srcMd,
        wAny, dstMd, {stride, stride}, {pad, pad}, {pad, pad});
    convolution_forward::primitive_desc pd(desc, eng);
    std::vector<float> src = oneDNNInput(inputs[0], inHW, c);
    // tcl's [G, KH, KW, C/G, F/G] is oneDNN's ghwio.
    memory::desc wUser(wDims, dt::f32, tag::ghwio);
    memory wUserMem(wUser, eng, const_cast<float *>(inputs[1].data.data()));
    memory wMem(pd.weights_desc(), eng);
    reorder(wUserMem, wMem).execute(strm, wUserMem, wMem);
    memory srcMem(srcMd, eng, src.data());
    result.assign(outHW * outHW * f, 0.0f);
    memory dstMem(dstMd, eng, result.data());
    convolution_forward prim(pd);
    time([&] {
      prim.execute(strm, {{DNNL_ARG_SRC, srcMem},
                          {DNNL_ARG_WEIGHTS, wMem},
                          {DNNL_ARG_DST, dstMem}});
      strm.wait();
    });
  };
  return w;
}

struct Row {
  std::string name;
  double defaultGflops = 0, handGflops = 0, tunedGflops = 0, oneDNNGflops = 0,
         maxError = 0;
  std::string note;
};

/// With --tune=N --tuning-db=PATH: the workload tuned by tcl's search (N
/// trials, continuing what the database holds), as source with the best
/// schedule. Empty if tuning is off or found nothing.
std::string tunedSource(const std::string &source, unsigned threads,
                        unsigned trials, const std::string &databasePath) {
  if (trials == 0 || databasePath.empty())
    return "";
  mlir::DialectRegistry registry;
  registerTclDialects(registry);
  mlir::MLIRContext context(registry);
  context.loadAllAvailableDialects();
  auto module = mlir::parseSourceString<mlir::ModuleOp>(source, &context);
  auto database = TuningDatabase::open(databasePath);
  if (!module || !database) {
    if (!database)
      llvm::consumeError(database.takeError());
    return "";
  }
  TuningOptions options;
  options.platform = Platform::host(threads);
  options.trials = trials;
  options.resume = true;
  Measurer measurer;
  Tuner tuner(**database, options, [&](llvm::ArrayRef<MeasureInput> batch) {
    return measurer.measure(batch);
  });
  auto report = tuner.tune(*module);
  if (!report) {
    llvm::consumeError(report.takeError());
    return "";
  }
  auto applied =
      applyTunedSchedules(*module, **database, Platform::host(threads));
  if (!applied || *applied == 0) {
    if (!applied)
      llvm::consumeError(applied.takeError());
    return "";
  }
  std::string text;
  llvm::raw_string_ostream os(text);
  module->print(os);
  return os.str();
}

} // namespace

int main(int argc, char **argv) {
  // Usage: tcl-bench-kernels [threads] [name filter] [--tune=N
  //        --tuning-db=PATH] [--rounds=N] [--block-filters=false]
  unsigned tuneTrials = 0;
  // As tcl-compile's --block-filters: false keeps the filters in HWCF.
  bool blockFilters = true;
  // Rounds: each workload's contenders are timed one after the other, N
  // times over; the table shows the median of the rounds and the spread of
  // the ratio to oneDNN (on a shared host a single round can catch a
  // neighbour's load in one contender and not the next).
  unsigned rounds = 1;
  std::string databasePath;
  std::vector<std::string> positional;
  for (int i = 1; i < argc; ++i) {
    llvm::StringRef arg(argv[i]);
    if (arg == "--help" || arg == "-h") {
      std::printf(
          "usage: tcl-bench-kernels [threads] [name filter] [--rounds=N] "
          "[--tune=N --tuning-db=PATH] [--block-filters=false]\n"
          "Times tcl's kernels (default, hand and tuned schedules) and "
          "oneDNN's, side by side in this process, on the workloads whose "
          "name contains the filter; prints a table.\n");
      return 0;
    }
    if (arg.consume_front("--tune="))
      tuneTrials = std::atoi(arg.str().c_str());
    else if (arg.consume_front("--tuning-db="))
      databasePath = arg.str();
    else if (arg.consume_front("--rounds="))
      rounds = std::max(1, std::atoi(arg.str().c_str()));
    else if (arg.consume_front("--block-filters="))
      blockFilters = arg != "false" && arg != "0";
    else if (arg.starts_with("-")) {
      std::fprintf(stderr,
                   "tcl-bench-kernels: unknown option '%s' (see --help)\n",
                   argv[i]);
      return 2;
    } else
      positional.push_back(arg.str());
  }
  unsigned threads =
      positional.size() > 0 ? std::max(1, std::atoi(positional[0].c_str())) : 1;
  std::string filter = positional.size() > 1 ? positional[1] : "";

  std::vector<Workload> workloads;
  for (int64_t size : {256, 512, 1024, 2048})
    workloads.push_back(matmul(size, size, size, threads));
  workloads.push_back(matmul(128, 768, 768, threads));
  workloads.push_back(matmul(128, 3072, 768, threads));
  workloads.push_back(matmul(128, 768, 3072, threads));
  // ResNet-18 convolutions (NHWC, batch 1).
  workloads.push_back(
      conv("r18 conv1 7x7/2 3->64 @224", 224, 3, 64, 7, 2, 3, false, threads));
  workloads.push_back(
      conv("r18 3x3 64->64 @56", 56, 64, 64, 3, 1, 1, false, threads));
  workloads.push_back(
      conv("r18 3x3/2 64->128 @56", 56, 64, 128, 3, 2, 1, false, threads));
  workloads.push_back(
      conv("r18 1x1/2 64->128 @56", 56, 64, 128, 1, 2, 0, false, threads));
  workloads.push_back(
      conv("r18 3x3 256->256 @14", 14, 256, 256, 3, 1, 1, false, threads));
  workloads.push_back(
      conv("r18 3x3 512->512 @7", 7, 512, 512, 3, 1, 1, false, threads));
  // Odd channel counts and maps that no register tile divides: SqueezeNet's
  // classifier (1000 channels at 13x13), RegNet-Y's last stage (440).
  workloads.push_back(
      conv("sq 1x1 512->1000 @13", 13, 512, 1000, 1, 1, 0, false, threads));
  workloads.push_back(
      conv("regnet 1x1 440->440 @7", 7, 440, 440, 1, 1, 0, false, threads));
  workloads.push_back(
      conv("3x3 52->52 @28", 28, 52, 52, 3, 1, 1, false, threads));
  // MobileNetV2's pointwise (1x1) convolutions: an expansion with few input
  // channels on a large map, a projection, a late stage on a small map.
  workloads.push_back(
      conv("mbv2 1x1 16->96 @112", 112, 16, 96, 1, 1, 0, false, threads));
  workloads.push_back(
      conv("mbv2 1x1 144->24 @56", 56, 144, 24, 1, 1, 0, false, threads));
  workloads.push_back(
      conv("mbv2 1x1 960->160 @7", 7, 960, 160, 1, 1, 0, false, threads));
  // MobileNetV2 depthwise convolutions.
  workloads.push_back(
      conv("mbv2 dw 3x3 32 @112", 112, 32, 32, 3, 1, 1, true, threads));
  workloads.push_back(
      conv("mbv2 dw 3x3/2 96 @112", 112, 96, 96, 3, 2, 1, true, threads));
  workloads.push_back(
      conv("mbv2 dw 3x3 144 @56", 56, 144, 144, 3, 1, 1, true, threads));
  workloads.push_back(
      conv("mbv2 dw 3x3 384 @14", 14, 384, 384, 3, 1, 1, true, threads));

  // Grouped convolutions with groups of 8 channels (ResNeXt/RegNet-style).
  workloads.push_back(
      groupedConv("grouped 3x3 g8x8 64 @56", 56, 64, 64, 8, 3, 1, 1, threads));
  workloads.push_back(groupedConv("grouped 3x3/2 g16x8 128 @56", 56, 128, 128,
                                  16, 3, 2, 1, threads));
  workloads.push_back(groupedConv("grouped 3x3 g32x8 256 @14", 14, 256, 256, 32,
                                  3, 1, 1, threads));

  // The kernels are compiled for the most capable platform this host runs;
  // the peak is that ISA's widest FMA (probeHardware).
  const TargetArch &host = getHostTargetArch();
  llvm::Expected<HardwareFeatures> hardware =
      probeHardware(Platform(host, threads));
  if (!hardware) {
    std::fprintf(stderr, "tcl-bench-kernels: %s\n",
                 llvm::toString(hardware.takeError()).c_str());
    return 1;
  }
  double peak = hardware->peakGflops;
  std::printf("tcl kernel benchmark: %s, %u thread(s), f32, median of %u runs "
              "after %u warm-up runs",
              host.name.str().c_str(), threads, kRepeats, kWarmup);
  if (rounds > 1)
    std::printf("; median of %u interleaved rounds, tcl/oneDNN as median "
                "[min, max] over them",
                rounds);
  std::printf("\n");
  std::printf("measured FMA peak: %.1f GFLOP/s (%u-bit FMA, %u core(s))\n\n",
              peak, host.vectorBits, threads);
  if (tuneTrials)
    std::printf("tcl tuned: the search's best after %u trials per workload "
                "(database %s)\n\n",
                tuneTrials, databasePath.c_str());
  std::printf("| workload | GFLOP | tcl default | tcl hand | tcl tuned | "
              "oneDNN | best tcl %% peak | tcl/oneDNN | max rel err |\n");
  std::printf(
      "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");

  // tcl's kernels run on LLVM's OpenMP runtime, oneDNN on GNU's; each keeps
  // its threads spinning for a while after a parallel region. Let them go
  // idle between the groups of runs so no group competes with the last one.
  double warmupSeconds = getWarmupSeconds(threads);
  // tcl's contenders run with their OpenMP threads bound to CPUs of their
  // own (OpenMPThreadPinning); oneDNN's runtime is not touched.
  auto timeTcl = [&](const Kernel &kernel, const std::vector<Buffer> &inputs,
                     std::vector<Buffer> &outputs) {
    std::optional<OpenMPThreadPinning> pinning;
    if (threads > 1)
      pinning.emplace();
    return timeRuns([&] { llvm::consumeError(kernel.run(inputs, outputs)); },
                    kWarmup, kRepeats, false, warmupSeconds);
  };
  auto settle = [] {
    std::this_thread::sleep_for(std::chrono::milliseconds(400));
  };
  for (Workload &workload : workloads) {
    if (!filter.empty() && workload.name.find(filter) == std::string::npos)
      continue;
    Row row;
    row.name = workload.name;
    workload.flops = countWorkloadFlops(workload.source);
    auto gflops = [&](const TimingStats &stats) {
      return workload.flops / stats.medianSeconds * 1e-9;
    };
    LoweringOptions options;
    options.platform = Platform::host(threads);
    // The default and tuned contenders compile the workload as tcl-compile
    // does (graph optimizations first, a convolution's filter a constant);
    // the hand schedule is written for the op as the workload states it.
    auto handKernel =
        Kernel::jit(workload.source + workload.handSchedule, "f", options);
    if (!handKernel) {
      std::printf(
          "| %s | compile error: %s |\n", workload.name.c_str(),
          llvm::toString(handKernel.takeError()).substr(0, 200).c_str());
      continue;
    }
    std::vector<Buffer> inputs =
        handKernel->getSignature().makeRandomInputs(/*seed=*/1);
    // What the default and tuned kernels take: the inputs but the filter.
    std::vector<Buffer> compiledInputs = inputs;
    std::optional<std::pair<unsigned, const Buffer *>> constant;
    if (workload.filterArgument) {
      constant.emplace(*workload.filterArgument,
                       &inputs[*workload.filterArgument]);
      compiledInputs.erase(compiledInputs.begin() + *workload.filterArgument);
    }
    std::string compiled =
        graphOptimized(workload.source, constant, blockFilters);
    if (compiled.empty()) {
      std::printf("| %s | graph optimizations failed |\n",
                  workload.name.c_str());
      continue;
    }
    auto defaultKernel = Kernel::jit(compiled, "f", options);
    if (!defaultKernel) {
      std::printf(
          "| %s | compile error: %s |\n", workload.name.c_str(),
          llvm::toString(defaultKernel.takeError()).substr(0, 200).c_str());
      continue;
    }
    std::string tuned =
        tunedSource(compiled, threads, tuneTrials, databasePath);
    std::optional<Kernel> tunedKernel;
    if (!tuned.empty()) {
      auto kernel = Kernel::jit(tuned, "f", options);
      if (kernel)
        tunedKernel.emplace(std::move(*kernel));
      else
        llvm::consumeError(kernel.takeError());
    }
    std::vector<Buffer> outDefault =
        defaultKernel->getSignature().makeOutputs();
    std::vector<Buffer> outHand = handKernel->getSignature().makeOutputs();
    std::vector<Buffer> outTuned = defaultKernel->getSignature().makeOutputs();
    std::vector<float> reference;
    std::vector<double> defaults, hands, tuneds, oneDNNs, ratios;
    for (unsigned round = 0; round < rounds; ++round) {
      settle();
      defaults.push_back(
          gflops(timeTcl(*defaultKernel, compiledInputs, outDefault)));
      settle();
      hands.push_back(gflops(timeTcl(*handKernel, inputs, outHand)));
      if (tunedKernel) {
        settle();
        tuneds.push_back(
            gflops(timeTcl(*tunedKernel, compiledInputs, outTuned)));
      }
      workload.oneDNN(inputs, reference, [&](std::function<void()> run) {
        settle();
        oneDNNs.push_back(
            gflops(timeRuns(run, kWarmup, kRepeats, false, warmupSeconds)));
      });
      ratios.push_back(std::max({defaults.back(), hands.back(),
                                 tuneds.empty() ? 0.0 : tuneds.back()}) /
                       oneDNNs.back());
    }
    row.defaultGflops = median(defaults);
    row.handGflops = median(hands);
    row.tunedGflops = tuneds.empty() ? 0 : median(tuneds);
    row.oneDNNGflops = median(oneDNNs);
    std::vector<const std::vector<Buffer> *> checked = {&outDefault, &outHand};
    if (tunedKernel)
      checked.push_back(&outTuned);
    for (const std::vector<Buffer> *out : checked)
      for (size_t i = 0; i < reference.size(); ++i)
        row.maxError = std::max(
            row.maxError, std::fabs(double((*out)[0].data[i]) - reference[i]) /
                              (1.0 + std::fabs(double(reference[i]))));
    double best =
        std::max({row.defaultGflops, row.handGflops, row.tunedGflops});
    std::string ratio =
        rounds > 1 ? llvm::formatv("{0:F2} [{1:F2}, {2:F2}]", median(ratios),
                                   *llvm::min_element(ratios),
                                   *llvm::max_element(ratios))
                         .str()
                   : llvm::formatv("{0:F2}", best / row.oneDNNGflops).str();
    std::printf(
        "| %s | %.3f | %.1f | %.1f | %s | %.1f | %.0f%% | %s | %.1e |\n",
        row.name.c_str(), workload.flops * 1e-9, row.defaultGflops,
        row.handGflops,
        tunedKernel ? llvm::formatv("{0:F1}", row.tunedGflops).str().c_str()
                    : "-",
        row.oneDNNGflops, 100.0 * best / peak, ratio.c_str(), row.maxError);
    std::fflush(stdout);
  }
  return 0;
}
