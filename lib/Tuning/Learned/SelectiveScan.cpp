//===- SelectiveScan.cpp - Mamba's selective scan, fused ------------------===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// The kernels walk one batch element and one block of W channels at a time
// (W = one 64-byte vector: 16 floats), with the channel as the innermost,
// vectorized loop. A block's states ([N][W]) stay in registers or L1 in
// forward; backward first recomputes the block's states and decay factors
// for all L steps ([L][N][W] each, 32 KiB for L = 32, N = 16) and then walks
// time backwards. Nothing of size [B, L, D, N] is ever allocated.
//
// Sums over channels (dB, dC) and over the batch (dA) are kept per vector
// lane and per chunk of the batch and reduced in a fixed order at the end:
// the vectorizer needs lane-wise sums (it may not reorder a float
// reduction), and a fixed order keeps training deterministic for a given
// thread count. KernelDispatch.h runs the kernels on the batch's chunks, in
// their AVX-512 or AVX2 clone where the CPU has one.
//
//===----------------------------------------------------------------------===//

#include "SelectiveScan.h"

#include "KernelDispatch.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

using namespace mlir::tcl::learned;

namespace {

//===----------------------------------------------------------------------===//
// Scalar helpers
//===----------------------------------------------------------------------===//

/// exp for the scan's decay factors. std::exp is a library call the
/// vectorizer cannot widen (and the scan needs B*L*D*N of them), so float
/// uses range reduction and a polynomial, plain arithmetic that vectorizes:
/// exp(x) = 2^n exp(r) with n = round(x / ln 2) and |r| <= ln(2) / 2, where
/// the Taylor series of exp(r) to r^7 is accurate to below float epsilon.
TCL_ALWAYS_INLINE float expOf(float x) {
  x = std::min(std::max(x, -87.0f), 88.0f);
  // Round to nearest by adding and subtracting 1.5 * 2^23 (exact without
  // -ffast-math, and unlike floor it needs no SSE4.1 for the generic build).
  const float shifter = 12582912.0f;
  float n = (x * 1.44269504088896341f + shifter) - shifter;
  // ln 2 split in two so that n * ln2Hi is exact for |n| < 2^15.
  const float ln2Hi = 0.693359375f, ln2Lo = -2.12194440054690583e-4f;
  float r = (x - n * ln2Hi) - n * ln2Lo;
  float p = 1.0f / 5040;
  p = p * r + 1.0f / 720;
  p = p * r + 1.0f / 120;
  p = p * r + 1.0f / 24;
  p = p * r + 1.0f / 6;
  p = p * r + 0.5f;
  p = p * r + 1.0f;
  p = p * r + 1.0f;
  int32_t bits = (static_cast<int32_t>(n) + 127) << 23;
  float scale;
  std::memcpy(&scale, &bits, sizeof(scale));
  return p * scale;
}

/// Double runs only in tests: exactness over speed.
TCL_ALWAYS_INLINE double expOf(double x) { return std::exp(x); }

/// Channels per block: one 64-byte vector.
template <typename T> constexpr int kLanes = 64 / sizeof(T);

//===----------------------------------------------------------------------===//
// Selective scan kernels
//===----------------------------------------------------------------------===//

template <typename T> struct ScanArgs {
  // Inputs: u, delta, gy [B, L, D]; At = A transposed [N, D]; B, C [B, L, N].
  const T *u, *delta, *At, *B, *C, *gy;
  // Outputs: y, du, ddelta [B, L, D]; dB, dC [B, L, N]; dAt one [N, D]
  // partial per chunk.
  T *y, *du, *ddelta, *dB, *dC, *dAtPartials;
  int64_t L, D, N;
};

/// Forward over channels [d0, d0 + W) of one batch element. Pointers are
/// offset to the element (and u/delta/y/At to channel d0); h is scratch for
/// N * W states.
template <typename T, int W>
TCL_ALWAYS_INLINE void
scanForwardBlock(const T *__restrict__ u, const T *__restrict__ delta,
                 const T *__restrict__ At, const T *__restrict__ B,
                 const T *__restrict__ C, T *__restrict__ y, T *__restrict__ h,
                 int64_t L, int64_t D, int64_t N) {
  for (int64_t i = 0; i < N * W; ++i)
    h[i] = 0;
  for (int64_t t = 0; t < L; ++t) {
    const T *__restrict__ ut = u + t * D;
    const T *__restrict__ dt = delta + t * D;
    T du[W], acc[W];
    for (int k = 0; k < W; ++k) {
      du[k] = dt[k] * ut[k];
      acc[k] = 0;
    }
    for (int64_t n = 0; n < N; ++n) {
      const T *__restrict__ an = At + n * D;
      T *__restrict__ hn = h + n * W;
      T bn = B[t * N + n], cn = C[t * N + n];
      for (int k = 0; k < W; ++k) {
        T hv = expOf(dt[k] * an[k]) * hn[k] + du[k] * bn;
        hn[k] = hv;
        acc[k] += cn * hv;
      }
    }
    for (int k = 0; k < W; ++k)
      y[t * D + k] = acc[k];
  }
}

template <typename T>
TCL_ALWAYS_INLINE void scanForwardRange(const ScanArgs<T> &a, int64_t,
                                        int64_t begin, int64_t end) {
  constexpr int W = kLanes<T>;
  const int64_t L = a.L, D = a.D, N = a.N;
  std::vector<T> h(N * W);
  for (int64_t b = begin; b < end; ++b) {
    const int64_t x = b * L * D, s = b * L * N;
    int64_t d0 = 0;
    for (; d0 + W <= D; d0 += W)
      scanForwardBlock<T, W>(a.u + x + d0, a.delta + x + d0, a.At + d0, a.B + s,
                             a.C + s, a.y + x + d0, h.data(), L, D, N);
    for (; d0 < D; ++d0)
      scanForwardBlock<T, 1>(a.u + x + d0, a.delta + x + d0, a.At + d0, a.B + s,
                             a.C + s, a.y + x + d0, h.data(), L, D, N);
  }
}

/// Scratch of one chunk's backward pass.
template <typename T> struct BackwardScratch {
  // States after each step and decay factors, [L][N][W]; gradient carried
  // to the previous step's states and zeros, [N][W].
  std::vector<T> H, E, g, zeros;
  // Lane-wise partial dB and dC of the current batch element, [L][N][S].
  std::vector<T> dBLanes, dCLanes;
  BackwardScratch(int64_t L, int64_t N, int W)
      : H(L * N * W), E(L * N * W), g(N * W), zeros(N * W), dBLanes(L * N * W),
        dCLanes(L * N * W) {}
};

/// Backward over channels [d0, d0 + W) of one batch element: recomputes the
/// states, then walks time backwards with g = dLoss/dh of the next step.
/// S is the lane stride of dBLanes/dCLanes (W of the full blocks).
template <typename T, int W, int S>
TCL_ALWAYS_INLINE void scanBackwardBlock(
    const T *__restrict__ u, const T *__restrict__ delta,
    const T *__restrict__ At, const T *__restrict__ B, const T *__restrict__ C,
    const T *__restrict__ gy, T *__restrict__ du, T *__restrict__ ddelta,
    T *__restrict__ dAt, T *__restrict__ dBLanes, T *__restrict__ dCLanes,
    T *__restrict__ H, T *__restrict__ E, T *__restrict__ g,
    const T *__restrict__ zeros, int64_t L, int64_t D, int64_t N) {
  for (int64_t t = 0; t < L; ++t) {
    const T *__restrict__ ut = u + t * D;
    const T *__restrict__ dt = delta + t * D;
    const T *__restrict__ hp = t ? H + (t - 1) * N * W : zeros;
    T *__restrict__ ht = H + t * N * W;
    T *__restrict__ et = E + t * N * W;
    T du_[W];
    for (int k = 0; k < W; ++k)
      du_[k] = dt[k] * ut[k];
    for (int64_t n = 0; n < N; ++n) {
      const T *__restrict__ an = At + n * D;
      T bn = B[t * N + n];
      for (int k = 0; k < W; ++k) {
        T e = expOf(dt[k] * an[k]);
        et[n * W + k] = e;
        ht[n * W + k] = e * hp[n * W + k] + du_[k] * bn;
      }
    }
  }

  for (int64_t i = 0; i < N * W; ++i)
    g[i] = 0;
  for (int64_t t = L - 1; t >= 0; --t) {
    const T *__restrict__ ut = u + t * D;
    const T *__restrict__ dt = delta + t * D;
    const T *__restrict__ gyt = gy + t * D;
    const T *__restrict__ hp = t ? H + (t - 1) * N * W : zeros;
    const T *__restrict__ ht = H + t * N * W;
    const T *__restrict__ et = E + t * N * W;
    T gu[W], gd[W];
    for (int k = 0; k < W; ++k)
      gu[k] = gd[k] = 0;
    for (int64_t n = 0; n < N; ++n) {
      const T *__restrict__ an = At + n * D;
      T *__restrict__ dan = dAt + n * D;
      T *__restrict__ gn = g + n * W;
      T *__restrict__ dBn = dBLanes + (t * N + n) * S;
      T *__restrict__ dCn = dCLanes + (t * N + n) * S;
      T bn = B[t * N + n], cn = C[t * N + n];
      for (int k = 0; k < W; ++k) {
        // Everything that reads h[t]: y[t] directly, h[t+1] through g.
        T gv = gn[k] + gyt[k] * cn;
        dCn[k] += gyt[k] * ht[n * W + k];
        // h[t] = e h[t-1] + delta u B with e = exp(delta A).
        T gExp = gv * et[n * W + k] * hp[n * W + k];
        gd[k] += gExp * an[k] + gv * bn * ut[k];
        dan[k] += gExp * dt[k];
        dBn[k] += gv * dt[k] * ut[k];
        gu[k] += gv * dt[k] * bn;
        gn[k] = gv * et[n * W + k];
      }
    }
    for (int k = 0; k < W; ++k) {
      du[t * D + k] = gu[k];
      ddelta[t * D + k] = gd[k];
    }
  }
}

template <typename T>
TCL_ALWAYS_INLINE void scanBackwardRange(const ScanArgs<T> &a, int64_t chunk,
                                         int64_t begin, int64_t end) {
  constexpr int W = kLanes<T>;
  const int64_t L = a.L, D = a.D, N = a.N;
  BackwardScratch<T> s(L, N, W);
  T *dAt = a.dAtPartials + chunk * N * D;
  for (int64_t b = begin; b < end; ++b) {
    const int64_t x = b * L * D, bn = b * L * N;
    std::fill(s.dBLanes.begin(), s.dBLanes.end(), T(0));
    std::fill(s.dCLanes.begin(), s.dCLanes.end(), T(0));
    int64_t d0 = 0;
    for (; d0 + W <= D; d0 += W)
      scanBackwardBlock<T, W, W>(
          a.u + x + d0, a.delta + x + d0, a.At + d0, a.B + bn, a.C + bn,
          a.gy + x + d0, a.du + x + d0, a.ddelta + x + d0, dAt + d0,
          s.dBLanes.data(), s.dCLanes.data(), s.H.data(), s.E.data(),
          s.g.data(), s.zeros.data(), L, D, N);
    for (; d0 < D; ++d0)
      scanBackwardBlock<T, 1, W>(
          a.u + x + d0, a.delta + x + d0, a.At + d0, a.B + bn, a.C + bn,
          a.gy + x + d0, a.du + x + d0, a.ddelta + x + d0, dAt + d0,
          s.dBLanes.data(), s.dCLanes.data(), s.H.data(), s.E.data(),
          s.g.data(), s.zeros.data(), L, D, N);
    for (int64_t i = 0; i < L * N; ++i) {
      T sumB = 0, sumC = 0;
      for (int k = 0; k < W; ++k) {
        sumB += s.dBLanes[i * W + k];
        sumC += s.dCLanes[i * W + k];
      }
      a.dB[bn + i] = sumB;
      a.dC[bn + i] = sumC;
    }
  }
}

template <typename T> void scanForwardTyped(ScanArgs<T> &args, int64_t batch) {
  forEachChunk(batch, [&](int64_t c, int64_t begin, int64_t end) {
    if constexpr (std::is_same_v<T, float>)
      runBest<ScanArgs<T>, scanForwardRange<T>>(args, c, begin, end);
    else
      scanForwardRange<T>(args, c, begin, end);
  });
}

template <typename T>
void scanBackwardTyped(ScanArgs<T> &args, int64_t batch,
                       std::vector<T> &partials, T *dAt) {
  int64_t chunks = std::max<int64_t>(
      1, std::min<int64_t>(batch, static_cast<int64_t>(at::get_num_threads())));
  partials.assign(chunks * args.N * args.D, T(0));
  args.dAtPartials = partials.data();
  int64_t used =
      forEachChunk(batch, [&](int64_t c, int64_t begin, int64_t end) {
        if constexpr (std::is_same_v<T, float>)
          runBest<ScanArgs<T>, scanBackwardRange<T>>(args, c, begin, end);
        else
          scanBackwardRange<T>(args, c, begin, end);
      });
  const int64_t size = args.N * args.D;
  std::fill(dAt, dAt + size, T(0));
  for (int64_t c = 0; c < used; ++c)
    for (int64_t i = 0; i < size; ++i)
      dAt[i] += partials[c * size + i];
}

void checkScanInputs(const torch::Tensor &u, const torch::Tensor &delta,
                     const torch::Tensor &At, const torch::Tensor &B,
                     const torch::Tensor &C) {
  TORCH_CHECK(u.dim() == 3 && delta.sizes() == u.sizes(),
              "selective scan: u and delta must both be [B, L, D]");
  TORCH_CHECK(At.dim() == 2 && At.size(1) == u.size(2),
              "selective scan: A must be [D, N]");
  TORCH_CHECK(B.dim() == 3 && B.size(0) == u.size(0) &&
                  B.size(1) == u.size(1) && B.size(2) == At.size(0) &&
                  C.sizes() == B.sizes(),
              "selective scan: B and C must be [B, L, N]");
  for (const torch::Tensor *t : {&u, &delta, &At, &B, &C})
    TORCH_CHECK(t->scalar_type() == u.scalar_type() && t->is_contiguous() &&
                    t->device().is_cpu(),
                "selective scan: inputs must be contiguous CPU tensors of "
                "one type");
  TORCH_CHECK(u.scalar_type() == torch::kFloat ||
                  u.scalar_type() == torch::kDouble,
              "selective scan: float or double only");
}

/// Forward with A transposed to [N, D] so that the channel loop reads it
/// contiguously.
torch::Tensor scanForward(const torch::Tensor &u, const torch::Tensor &delta,
                          const torch::Tensor &At, const torch::Tensor &B,
                          const torch::Tensor &C) {
  checkScanInputs(u, delta, At, B, C);
  torch::Tensor y = torch::empty_like(u);
  AT_DISPATCH_FLOATING_TYPES(u.scalar_type(), "selective_scan_forward", [&] {
    ScanArgs<scalar_t> args{};
    args.u = dataOf<scalar_t>(u);
    args.delta = dataOf<scalar_t>(delta);
    args.At = dataOf<scalar_t>(At);
    args.B = dataOf<scalar_t>(B);
    args.C = dataOf<scalar_t>(C);
    args.y = mutableDataOf<scalar_t>(y);
    args.L = u.size(1);
    args.D = u.size(2);
    args.N = At.size(0);
    scanForwardTyped(args, u.size(0));
  });
  return y;
}

class SelectiveScanFunction
    : public torch::autograd::Function<SelectiveScanFunction> {
public:
  static torch::Tensor forward(torch::autograd::AutogradContext *ctx,
                               torch::Tensor u, torch::Tensor delta,
                               torch::Tensor At, torch::Tensor B,
                               torch::Tensor C) {
    ctx->save_for_backward({u, delta, At, B, C});
    return scanForward(u, delta, At, B, C);
  }

  static torch::autograd::variable_list
  backward(torch::autograd::AutogradContext *ctx,
           torch::autograd::variable_list gradOutputs) {
    torch::autograd::variable_list saved = ctx->get_saved_variables();
    const torch::Tensor &u = saved[0], &delta = saved[1], &At = saved[2],
                        &B = saved[3], &C = saved[4];
    torch::Tensor gy = gradOutputs[0].contiguous();
    torch::Tensor du = torch::empty_like(u), ddelta = torch::empty_like(u);
    torch::Tensor dAt = torch::empty_like(At);
    torch::Tensor dB = torch::empty_like(B), dC = torch::empty_like(C);
    AT_DISPATCH_FLOATING_TYPES(u.scalar_type(), "selective_scan_backward", [&] {
      ScanArgs<scalar_t> args{};
      args.u = dataOf<scalar_t>(u);
      args.delta = dataOf<scalar_t>(delta);
      args.At = dataOf<scalar_t>(At);
      args.B = dataOf<scalar_t>(B);
      args.C = dataOf<scalar_t>(C);
      args.gy = dataOf<scalar_t>(gy);
      args.du = mutableDataOf<scalar_t>(du);
      args.ddelta = mutableDataOf<scalar_t>(ddelta);
      args.dB = mutableDataOf<scalar_t>(dB);
      args.dC = mutableDataOf<scalar_t>(dC);
      args.L = u.size(1);
      args.D = u.size(2);
      args.N = At.size(0);
      std::vector<scalar_t> partials;
      scanBackwardTyped(args, u.size(0), partials,
                        mutableDataOf<scalar_t>(dAt));
    });
    return {du, ddelta, dAt, dB, dC};
  }
};

} // namespace

torch::Tensor mlir::tcl::learned::selectiveScan(const torch::Tensor &u,
                                                const torch::Tensor &delta,
                                                const torch::Tensor &A,
                                                const torch::Tensor &B,
                                                const torch::Tensor &C) {
  torch::Tensor At = A.t().contiguous();
  // Without autograd (scoring), skip the Function's bookkeeping.
  if (!torch::GradMode::is_enabled())
    return scanForward(u.contiguous(), delta.contiguous(), At, B.contiguous(),
                       C.contiguous());
  return SelectiveScanFunction::apply(u.contiguous(), delta.contiguous(), At,
                                      B.contiguous(), C.contiguous());
}

torch::Tensor mlir::tcl::learned::selectiveScanReference(
    const torch::Tensor &u, const torch::Tensor &delta, const torch::Tensor &A,
    const torch::Tensor &B, const torch::Tensor &C) {
  const int64_t L = u.size(1);
  torch::Tensor h =
      torch::zeros({u.size(0), u.size(2), A.size(1)}, u.options());
  std::vector<torch::Tensor> ys;
  ys.reserve(L);
  for (int64_t t = 0; t < L; ++t) {
    torch::Tensor dt = delta.select(1, t).unsqueeze(-1); // [B, D, 1]
    torch::Tensor ut = u.select(1, t).unsqueeze(-1);     // [B, D, 1]
    torch::Tensor bt = B.select(1, t).unsqueeze(1);      // [B, 1, N]
    torch::Tensor ct = C.select(1, t).unsqueeze(1);      // [B, 1, N]
    h = torch::exp(dt * A.unsqueeze(0)) * h + dt * ut * bt;
    ys.push_back((h * ct).sum(-1));
  }
  return torch::stack(ys, 1);
}
