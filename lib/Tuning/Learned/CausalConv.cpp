//===- CausalConv.cpp - Causal depthwise convolution, fused ---------------===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// Like the scan, the kernels walk a chunk of the batch at a time with the
// channel as the innermost, vectorized loop. Backward keeps the weight and
// bias gradients per chunk of the batch and adds the chunks up in a fixed
// order at the end, which keeps training deterministic for a given thread
// count.
//
//===----------------------------------------------------------------------===//

#include "CausalConv.h"

#include "KernelDispatch.h"

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <vector>

using namespace mlir::tcl::learned;

namespace {

//===----------------------------------------------------------------------===//
// Causal depthwise convolution kernels
//===----------------------------------------------------------------------===//

template <typename T> struct ConvArgs {
  // x, y, gy, dx [B, L, D]; weight transposed to [K, D]; bias [D].
  const T *x, *wt, *bias, *gy;
  T *y, *dx;
  // Per chunk: dwt [K, D] and dbias [D] partials.
  T *dwtPartials, *dbiasPartials;
  int64_t L, D, K;
};

template <typename T>
TCL_ALWAYS_INLINE void convForwardRange(const ConvArgs<T> &a, int64_t,
                                        int64_t begin, int64_t end) {
  const int64_t L = a.L, D = a.D, K = a.K;
  for (int64_t b = begin; b < end; ++b) {
    const T *__restrict__ x = a.x + b * L * D;
    T *__restrict__ y = a.y + b * L * D;
    for (int64_t t = 0; t < L; ++t) {
      T *__restrict__ yt = y + t * D;
      const T *__restrict__ bias = a.bias;
      for (int64_t d = 0; d < D; ++d)
        yt[d] = bias[d];
      for (int64_t k = std::max<int64_t>(0, K - 1 - t); k < K; ++k) {
        const T *__restrict__ xs = x + (t - K + 1 + k) * D;
        const T *__restrict__ wk = a.wt + k * D;
        for (int64_t d = 0; d < D; ++d)
          yt[d] += wk[d] * xs[d];
      }
    }
  }
}

template <typename T>
TCL_ALWAYS_INLINE void convBackwardRange(const ConvArgs<T> &a, int64_t chunk,
                                         int64_t begin, int64_t end) {
  const int64_t L = a.L, D = a.D, K = a.K;
  T *__restrict__ dwt = a.dwtPartials + chunk * K * D;
  T *__restrict__ dbias = a.dbiasPartials + chunk * D;
  for (int64_t b = begin; b < end; ++b) {
    const T *__restrict__ x = a.x + b * L * D;
    const T *__restrict__ gy = a.gy + b * L * D;
    T *__restrict__ dx = a.dx + b * L * D;
    for (int64_t s = 0; s < L; ++s) {
      T *__restrict__ dxs = dx + s * D;
      for (int64_t d = 0; d < D; ++d)
        dxs[d] = 0;
      // x[s] feeds y[s + K - 1 - k] through weight k.
      for (int64_t k = 0; k < K; ++k) {
        int64_t t = s + K - 1 - k;
        if (t >= L)
          continue;
        const T *__restrict__ gyt = gy + t * D;
        const T *__restrict__ wk = a.wt + k * D;
        const T *__restrict__ xs = x + s * D;
        T *__restrict__ dwk = dwt + k * D;
        for (int64_t d = 0; d < D; ++d) {
          dxs[d] += gyt[d] * wk[d];
          dwk[d] += gyt[d] * xs[d];
        }
      }
      const T *__restrict__ gys = gy + s * D;
      for (int64_t d = 0; d < D; ++d)
        dbias[d] += gys[d];
    }
  }
}

void checkConvInputs(const torch::Tensor &x, const torch::Tensor &wt,
                     const torch::Tensor &bias) {
  TORCH_CHECK(x.dim() == 3 && wt.dim() == 2 && wt.size(1) == x.size(2) &&
                  bias.dim() == 1 && bias.size(0) == x.size(2),
              "causal conv: x [B, L, D], weight [D, K], bias [D] expected");
  for (const torch::Tensor *t : {&x, &wt, &bias})
    TORCH_CHECK(t->scalar_type() == x.scalar_type() && t->is_contiguous() &&
                    t->device().is_cpu(),
                "causal conv: inputs must be contiguous CPU tensors of one "
                "type");
}

class CausalConvFunction
    : public torch::autograd::Function<CausalConvFunction> {
public:
  /// wt is the weight transposed to [K, D].
  static torch::Tensor forward(torch::autograd::AutogradContext *ctx,
                               torch::Tensor x, torch::Tensor wt,
                               torch::Tensor bias) {
    checkConvInputs(x, wt, bias);
    if (ctx)
      ctx->save_for_backward({x, wt, bias});
    torch::Tensor y = torch::empty_like(x);
    AT_DISPATCH_FLOATING_TYPES(x.scalar_type(), "causal_conv_forward", [&] {
      ConvArgs<scalar_t> args{};
      args.x = dataOf<scalar_t>(x);
      args.wt = dataOf<scalar_t>(wt);
      args.bias = dataOf<scalar_t>(bias);
      args.y = mutableDataOf<scalar_t>(y);
      args.L = x.size(1);
      args.D = x.size(2);
      args.K = wt.size(0);
      forEachChunk(x.size(0), [&](int64_t c, int64_t begin, int64_t end) {
        if constexpr (std::is_same_v<scalar_t, float>)
          runBest<ConvArgs<scalar_t>, convForwardRange<scalar_t>>(args, c,
                                                                  begin, end);
        else
          convForwardRange<scalar_t>(args, c, begin, end);
      });
    });
    return y;
  }

  static torch::autograd::variable_list
  backward(torch::autograd::AutogradContext *ctx,
           torch::autograd::variable_list gradOutputs) {
    torch::autograd::variable_list saved = ctx->get_saved_variables();
    const torch::Tensor &x = saved[0], &wt = saved[1], &bias = saved[2];
    torch::Tensor gy = gradOutputs[0].contiguous();
    torch::Tensor dx = torch::empty_like(x);
    torch::Tensor dwt = torch::zeros_like(wt), dbias = torch::zeros_like(bias);
    AT_DISPATCH_FLOATING_TYPES(x.scalar_type(), "causal_conv_backward", [&] {
      const int64_t batch = x.size(0), K = wt.size(0), D = x.size(2);
      int64_t chunks = std::max<int64_t>(
          1, std::min<int64_t>(batch,
                               static_cast<int64_t>(at::get_num_threads())));
      std::vector<scalar_t> dwtPartials(chunks * K * D),
          dbiasPartials(chunks * D);
      ConvArgs<scalar_t> args{};
      args.x = dataOf<scalar_t>(x);
      args.wt = dataOf<scalar_t>(wt);
      args.gy = dataOf<scalar_t>(gy);
      args.dx = mutableDataOf<scalar_t>(dx);
      args.dwtPartials = dwtPartials.data();
      args.dbiasPartials = dbiasPartials.data();
      args.L = x.size(1);
      args.D = D;
      args.K = K;
      int64_t used =
          forEachChunk(batch, [&](int64_t c, int64_t begin, int64_t end) {
            if constexpr (std::is_same_v<scalar_t, float>)
              runBest<ConvArgs<scalar_t>, convBackwardRange<scalar_t>>(
                  args, c, begin, end);
            else
              convBackwardRange<scalar_t>(args, c, begin, end);
          });
      scalar_t *dw = mutableDataOf<scalar_t>(dwt);
      scalar_t *db = mutableDataOf<scalar_t>(dbias);
      for (int64_t c = 0; c < used; ++c) {
        for (int64_t i = 0; i < K * D; ++i)
          dw[i] += dwtPartials[c * K * D + i];
        for (int64_t i = 0; i < D; ++i)
          db[i] += dbiasPartials[c * D + i];
      }
    });
    return {dx, dwt, dbias};
  }
};

} // namespace

torch::Tensor mlir::tcl::learned::causalConv(const torch::Tensor &x,
                                             const torch::Tensor &weight,
                                             const torch::Tensor &bias) {
  torch::Tensor wt = weight.t().contiguous();
  if (!torch::GradMode::is_enabled())
    return CausalConvFunction::forward(nullptr, x.contiguous(), wt,
                                       bias.contiguous());
  return CausalConvFunction::apply(x.contiguous(), wt, bias.contiguous());
}

torch::Tensor
mlir::tcl::learned::causalConvReference(const torch::Tensor &x,
                                        const torch::Tensor &weight,
                                        const torch::Tensor &bias) {
  const int64_t L = x.size(1), D = x.size(2), K = weight.size(1);
  torch::Tensor y = torch::conv1d(x.transpose(1, 2), weight.unsqueeze(1), bias,
                                  /*stride=*/1, /*padding=*/K - 1,
                                  /*dilation=*/1, /*groups=*/D);
  return y.narrow(2, 0, L).transpose(1, 2);
}
