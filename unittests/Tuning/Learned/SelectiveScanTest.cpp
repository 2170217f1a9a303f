//===- SelectiveScanTest.cpp - Fused kernels against plain torch ----------===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// The fused selective scan, causal convolution and oneDNN dense layer must
// compute what the same operations written in plain torch ops compute, in
// value and in gradient (autograd through the reference).
//
//===----------------------------------------------------------------------===//

#include "SelectiveScan.h"
#include "CausalConv.h"
#include "Dense.h"

#include "gtest/gtest.h"

#include <ATen/Parallel.h>

using namespace mlir::tcl::learned;

namespace {

/// Restores torch's thread count after a test changes it.
class ThreadGuard {
public:
  explicit ThreadGuard(int threads) : saved(at::get_num_threads()) {
    at::set_num_threads(threads);
  }
  ~ThreadGuard() { at::set_num_threads(saved); }

private:
  int saved;
};

struct ScanInputs {
  torch::Tensor u, delta, A, B, C;
  std::vector<torch::Tensor> all() const { return {u, delta, A, B, C}; }
};

/// Random inputs in the ranges a Mamba block produces: delta > 0 (softplus),
/// A < 0. D = 19 leaves a partial block for both float (16 lanes) and
/// double (8 lanes).
ScanInputs makeInputs(torch::ScalarType type, int64_t batch = 3,
                      int64_t length = 7, int64_t D = 19, int64_t N = 5,
                      double deltaScale = 1.0) {
  torch::manual_seed(42);
  torch::TensorOptions options = torch::TensorOptions().dtype(type);
  ScanInputs in;
  in.u = torch::randn({batch, length, D}, options);
  in.delta =
      torch::softplus(torch::randn({batch, length, D}, options)) * deltaScale;
  in.A = -torch::exp(torch::randn({D, N}, options) * 0.5);
  in.B = torch::randn({batch, length, N}, options);
  in.C = torch::randn({batch, length, N}, options);
  return in;
}

/// Value and input gradients of sum(scan(inputs) * weights).
std::vector<torch::Tensor> valueAndGradients(
    const ScanInputs &in, const torch::Tensor &weights,
    torch::Tensor (*scan)(const torch::Tensor &, const torch::Tensor &,
                          const torch::Tensor &, const torch::Tensor &,
                          const torch::Tensor &)) {
  std::vector<torch::Tensor> leaves;
  for (const torch::Tensor &t : in.all())
    leaves.push_back(t.detach().clone().requires_grad_());
  torch::Tensor y = scan(leaves[0], leaves[1], leaves[2], leaves[3], leaves[4]);
  (y * weights).sum().backward();
  std::vector<torch::Tensor> out = {y.detach()};
  for (const torch::Tensor &leaf : leaves)
    out.push_back(leaf.grad());
  return out;
}

const char *kNames[] = {"y", "du", "ddelta", "dA", "dB", "dC"};

TEST(SelectiveScan, DoubleMatchesReferenceExactly) {
  ScanInputs in = makeInputs(torch::kDouble);
  torch::Tensor weights = torch::randn_like(in.u);
  auto fused = valueAndGradients(in, weights, selectiveScan);
  auto reference = valueAndGradients(in, weights, selectiveScanReference);
  for (size_t i = 0; i < fused.size(); ++i)
    EXPECT_TRUE(torch::allclose(fused[i], reference[i], 1e-10, 1e-12))
        << kNames[i] << " max diff "
        << (fused[i] - reference[i]).abs().max().item<double>();
}

TEST(SelectiveScan, FloatMatchesDoubleReference) {
  for (double deltaScale : {1.0, 20.0}) {
    ScanInputs in = makeInputs(torch::kDouble, 4, 9, 37, 16, deltaScale);
    torch::Tensor weights = torch::randn_like(in.u);
    auto reference = valueAndGradients(in, weights, selectiveScanReference);
    ScanInputs inFloat;
    inFloat.u = in.u.to(torch::kFloat);
    inFloat.delta = in.delta.to(torch::kFloat);
    inFloat.A = in.A.to(torch::kFloat);
    inFloat.B = in.B.to(torch::kFloat);
    inFloat.C = in.C.to(torch::kFloat);
    auto fused =
        valueAndGradients(inFloat, weights.to(torch::kFloat), selectiveScan);
    for (size_t i = 0; i < fused.size(); ++i) {
      torch::Tensor expected = reference[i];
      torch::Tensor got = fused[i].to(torch::kDouble);
      // Relative to the tensor's scale: sums over many terms.
      double scale = expected.abs().max().item<double>() + 1e-12;
      double error = (got - expected).abs().max().item<double>() / scale;
      EXPECT_LT(error, 1e-5) << kNames[i] << " delta scale " << deltaScale;
    }
  }
}

TEST(SelectiveScan, ThreadCountDoesNotChangeTheResult) {
  ScanInputs in = makeInputs(torch::kFloat, 6, 5, 40, 16);
  torch::Tensor weights = torch::randn_like(in.u);
  std::vector<torch::Tensor> one, two;
  {
    ThreadGuard threads(1);
    one = valueAndGradients(in, weights, selectiveScan);
  }
  {
    ThreadGuard threads(2);
    two = valueAndGradients(in, weights, selectiveScan);
  }
  for (size_t i = 0; i < one.size(); ++i)
    EXPECT_TRUE(torch::allclose(one[i], two[i], 1e-5, 1e-6)) << kNames[i];
  // Per-batch outputs do not depend on the split at all.
  EXPECT_TRUE(torch::equal(one[0], two[0]));
}

TEST(SelectiveScan, WithoutGradientItMatchesToo) {
  ScanInputs in = makeInputs(torch::kFloat);
  torch::Tensor withGrad = selectiveScan(in.u, in.delta, in.A, in.B, in.C);
  torch::NoGradGuard noGrad;
  torch::Tensor without = selectiveScan(in.u, in.delta, in.A, in.B, in.C);
  EXPECT_TRUE(torch::equal(withGrad, without));
}

TEST(SelectiveScan, RejectsMismatchedShapes) {
  ScanInputs in = makeInputs(torch::kFloat);
  EXPECT_THROW(selectiveScan(in.u, in.delta, in.A, in.B.narrow(2, 0, 3), in.C),
               c10::Error);
}

TEST(CausalConv, MatchesConv1dInValueAndGradient) {
  for (torch::ScalarType type : {torch::kDouble, torch::kFloat}) {
    torch::manual_seed(3);
    torch::TensorOptions options = torch::TensorOptions().dtype(type);
    torch::Tensor x = torch::randn({3, 6, 21}, options);
    torch::Tensor w = torch::randn({21, 4}, options);
    torch::Tensor b = torch::randn({21}, options);
    torch::Tensor weights = torch::randn({3, 6, 21}, options);
    auto run = [&](auto conv) {
      torch::Tensor xl = x.clone().requires_grad_();
      torch::Tensor wl = w.clone().requires_grad_();
      torch::Tensor bl = b.clone().requires_grad_();
      torch::Tensor y = conv(xl, wl, bl);
      (y * weights).sum().backward();
      return std::vector<torch::Tensor>{y.detach(), xl.grad(), wl.grad(),
                                        bl.grad()};
    };
    auto fused = run(causalConv);
    auto reference = run(causalConvReference);
    double tolerance = type == torch::kDouble ? 1e-12 : 1e-5;
    for (size_t i = 0; i < fused.size(); ++i)
      EXPECT_TRUE(torch::allclose(fused[i], reference[i], tolerance, tolerance))
          << "output " << i;
  }
}

TEST(Dense, OneDnnMatchesTorchLinear) {
  torch::manual_seed(5);
  torch::Tensor x = torch::randn({4, 7, 33});
  torch::Tensor w = torch::randn({19, 33});
  torch::Tensor b = torch::randn({19});
  torch::Tensor weights = torch::randn({4, 7, 19});
  DenseBackend saved = getDenseBackend();
  auto run = [&](DenseBackend backend, bool withBias) {
    setDenseBackend(backend);
    torch::Tensor xl = x.clone().requires_grad_();
    torch::Tensor wl = w.clone().requires_grad_();
    torch::Tensor bl = b.clone().requires_grad_();
    torch::Tensor y = dense(xl, wl, withBias ? bl : torch::empty({0}));
    (y * weights).sum().backward();
    std::vector<torch::Tensor> out = {y.detach(), xl.grad(), wl.grad()};
    if (withBias)
      out.push_back(bl.grad());
    return out;
  };
  for (bool withBias : {true, false}) {
    auto onednn = run(DenseBackend::OneDNN, withBias);
    auto reference = run(DenseBackend::Torch, withBias);
    for (size_t i = 0; i < onednn.size(); ++i)
      EXPECT_TRUE(torch::allclose(onednn[i], reference[i], 1e-4, 1e-4))
          << "output " << i << " bias " << withBias;
  }
  setDenseBackend(saved);
}

} // namespace
