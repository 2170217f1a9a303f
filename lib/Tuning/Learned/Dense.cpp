//===- Dense.cpp - Dense (linear) layers for the cost models --------------===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//

#include "Dense.h"

#include <oneapi/dnnl/dnnl.hpp>

#include <atomic>
#include <cmath>
#include <map>
#include <mutex>
#include <tuple>

using namespace mlir::tcl::learned;

namespace {

std::atomic<DenseBackend> currentBackend{DenseBackend::OneDNN};

/// One plain-layout f32 matmul shape: C[M, N] = A[M, K] B[K, N] (+ bias),
/// with A and B given by strides (so transposed operands need no copy) and
/// C contiguous.
struct MatmulShape {
  int64_t M, K, N;
  int64_t a0, a1, b0, b1;
  bool withBias;
  bool operator<(const MatmulShape &o) const {
    return std::tie(M, K, N, a0, a1, b0, b1, withBias) <
           std::tie(o.M, o.K, o.N, o.a0, o.a1, o.b0, o.b1, o.withBias);
  }
};

/// oneDNN's engine and a cache of primitives by shape. A training run or a
/// scoring pass repeats a handful of shapes thousands of times; creating a
/// primitive descriptor each time would cost more than a small matmul.
class MatmulCache {
public:
  static MatmulCache &get() {
    static MatmulCache cache;
    return cache;
  }

  void run(const MatmulShape &s, const float *a, const float *b,
           const float *bias, float *c) {
    using dt = dnnl::memory::data_type;
    dnnl::matmul primitive = lookup(s);
    dnnl::memory::desc aDesc({s.M, s.K}, dt::f32, {s.a0, s.a1});
    dnnl::memory::desc bDesc({s.K, s.N}, dt::f32, {s.b0, s.b1});
    dnnl::memory::desc cDesc({s.M, s.N}, dt::f32, {s.N, 1});
    // oneDNN takes non-const handles; it does not write the inputs.
    std::unordered_map<int, dnnl::memory> args{
        {DNNL_ARG_SRC, dnnl::memory(aDesc, engine, const_cast<float *>(a))},
        {DNNL_ARG_WEIGHTS, dnnl::memory(bDesc, engine, const_cast<float *>(b))},
        {DNNL_ARG_DST, dnnl::memory(cDesc, engine, c)}};
    if (s.withBias) {
      dnnl::memory::desc biasDesc({1, s.N}, dt::f32, {s.N, 1});
      args.emplace(DNNL_ARG_BIAS,
                   dnnl::memory(biasDesc, engine, const_cast<float *>(bias)));
    }
    // A stream per thread: the primitives may run from several threads.
    thread_local dnnl::stream stream(engine);
    primitive.execute(stream, args);
    stream.wait();
  }

private:
  MatmulCache() : engine(dnnl::engine::kind::cpu, 0) {}

  dnnl::matmul lookup(const MatmulShape &s) {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = primitives.find(s);
    if (it != primitives.end())
      return it->second;
    using dt = dnnl::memory::data_type;
    dnnl::memory::desc aDesc({s.M, s.K}, dt::f32, {s.a0, s.a1});
    dnnl::memory::desc bDesc({s.K, s.N}, dt::f32, {s.b0, s.b1});
    dnnl::memory::desc cDesc({s.M, s.N}, dt::f32, {s.N, 1});
    dnnl::matmul::desc desc =
        s.withBias ? dnnl::matmul::desc(
                         aDesc, bDesc,
                         dnnl::memory::desc({1, s.N}, dt::f32, {s.N, 1}), cDesc)
                   : dnnl::matmul::desc(aDesc, bDesc, cDesc);
    dnnl::matmul primitive(dnnl::matmul::primitive_desc(desc, engine));
    // Scoring with varying chunk sizes could grow the map without bound.
    if (primitives.size() > 256)
      primitives.clear();
    primitives.emplace(s, primitive);
    return primitive;
  }

  dnnl::engine engine;
  std::mutex mutex;
  std::map<MatmulShape, dnnl::matmul> primitives;
};

/// C[M, N] = A B (+ bias) with A [M, K] at strides (a0, a1) and B [K, N] at
/// strides (b0, b1).
void matmul(int64_t M, int64_t K, int64_t N, const float *a, int64_t a0,
            int64_t a1, const float *b, int64_t b0, int64_t b1,
            const float *bias, float *c) {
  MatmulCache::get().run({M, K, N, a0, a1, b0, b1, bias != nullptr}, a, b, bias,
                         c);
}

/// y [M, out] = x [M, in] W^T + b on 2-D contiguous float tensors.
torch::Tensor denseForward2d(const torch::Tensor &x, const torch::Tensor &w,
                             const torch::Tensor &b) {
  const int64_t M = x.size(0), K = x.size(1), N = w.size(0);
  torch::Tensor y = torch::empty({M, N}, x.options());
  if (M == 0)
    return y;
  // W^T is W read with strides (1, K).
  matmul(M, K, N, x.data_ptr<float>(), K, 1, w.data_ptr<float>(), 1, K,
         b.numel() ? b.data_ptr<float>() : nullptr, y.data_ptr<float>());
  return y;
}

class DenseFunction : public torch::autograd::Function<DenseFunction> {
public:
  static torch::Tensor forward(torch::autograd::AutogradContext *ctx,
                               torch::Tensor x, torch::Tensor w,
                               torch::Tensor b) {
    ctx->save_for_backward({x, w});
    ctx->saved_data["bias"] = b.numel() > 0;
    return denseForward2d(x, w, b);
  }

  static torch::autograd::variable_list
  backward(torch::autograd::AutogradContext *ctx,
           torch::autograd::variable_list gradOutputs) {
    torch::autograd::variable_list saved = ctx->get_saved_variables();
    const torch::Tensor &x = saved[0], &w = saved[1];
    torch::Tensor gy = gradOutputs[0].contiguous();
    const int64_t M = x.size(0), K = x.size(1), N = w.size(0);
    torch::Tensor dx, dw, db;
    if (ctx->needs_input_grad(0)) {
      // dx [M, K] = gy [M, N] W [N, K].
      dx = torch::empty_like(x);
      if (M)
        matmul(M, N, K, gy.data_ptr<float>(), N, 1, w.data_ptr<float>(), K, 1,
               nullptr, dx.data_ptr<float>());
    }
    if (ctx->needs_input_grad(1)) {
      // dW [N, K] = gy^T [N, M] x [M, K]; gy^T is gy at strides (1, N).
      dw = torch::empty_like(w);
      if (M)
        matmul(N, M, K, gy.data_ptr<float>(), 1, N, x.data_ptr<float>(), K, 1,
               nullptr, dw.data_ptr<float>());
      else
        dw.zero_();
    }
    if (ctx->saved_data["bias"].toBool() && ctx->needs_input_grad(2))
      db = gy.sum(0);
    return {dx, dw, db};
  }
};

} // namespace

void mlir::tcl::learned::setDenseBackend(DenseBackend backend) {
  currentBackend = backend;
}

DenseBackend mlir::tcl::learned::getDenseBackend() { return currentBackend; }

torch::Tensor mlir::tcl::learned::dense(const torch::Tensor &x,
                                        const torch::Tensor &weight,
                                        const torch::Tensor &bias) {
  TORCH_CHECK(x.dim() >= 1 && weight.dim() == 2 && x.size(-1) == weight.size(1),
              "dense: input has ", x.size(-1), " features, the layer takes ",
              weight.size(1));
  if (getDenseBackend() == DenseBackend::Torch ||
      x.scalar_type() != torch::kFloat) {
    if (bias.numel())
      return torch::linear(x, weight, bias);
    return torch::linear(x, weight);
  }
  std::vector<int64_t> outShape(x.sizes().begin(), x.sizes().end());
  outShape.back() = weight.size(0);
  torch::Tensor x2 = x.reshape({-1, x.size(-1)}).contiguous();
  torch::Tensor w = weight.contiguous();
  torch::Tensor b = bias.numel() ? bias.contiguous() : torch::empty({0});
  torch::Tensor y = torch::GradMode::is_enabled()
                        ? DenseFunction::apply(x2, w, b)
                        : denseForward2d(x2, w, b);
  return y.view(outShape);
}

DenseImpl::DenseImpl(int64_t in, int64_t out, bool withBias) {
  double bound = 1.0 / std::sqrt(static_cast<double>(in));
  weight = register_parameter("weight",
                              torch::empty({out, in}).uniform_(-bound, bound));
  if (withBias)
    bias =
        register_parameter("bias", torch::empty({out}).uniform_(-bound, bound));
  else
    bias = torch::empty({0});
}

torch::Tensor DenseImpl::forward(const torch::Tensor &x) {
  return dense(x, weight, bias);
}
