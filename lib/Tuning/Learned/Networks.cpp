//===- Networks.cpp - The cost models' networks ---------------------------===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//

#include "Networks.h"

#include "CausalConv.h"
#include "Dense.h"
#include "SelectiveScan.h"

#include "llvm/ADT/STLExtras.h"

#include <cmath>

using namespace mlir::tcl::learned;

namespace {

/// Mean over the real tokens of each program; an all-padding program pools
/// to zero instead of dividing by zero.
torch::Tensor maskedMean(const torch::Tensor &h, const torch::Tensor &mask) {
  return (h * mask.unsqueeze(-1)).sum(1) / mask.sum(1, true).clamp_min(1);
}

/// The shared decoder: Linear(in, 64) SiLU Linear(64, 32) SiLU Linear(32, 1).
class DecoderImpl : public torch::nn::Module {
public:
  explicit DecoderImpl(int64_t in)
      : fc1(register_module("fc1", Dense(in, 64))),
        fc2(register_module("fc2", Dense(64, 32))),
        fc3(register_module("fc3", Dense(32, 1))) {}

  torch::Tensor forward(const torch::Tensor &x) {
    return fc3(torch::silu(fc2(torch::silu(fc1(x))))).squeeze(-1);
  }

private:
  Dense fc1, fc2, fc3;
};
TORCH_MODULE(Decoder);

class RMSNormImpl : public torch::nn::Module {
public:
  explicit RMSNormImpl(int64_t dim)
      : weight(register_parameter("weight", torch::ones({dim}))) {}

  torch::Tensor forward(const torch::Tensor &x) {
    return x * torch::rsqrt(x.square().mean(-1, /*keepdim=*/true) + 1e-5) *
           weight;
  }

private:
  torch::Tensor weight;
};
TORCH_MODULE(RMSNorm);

//===----------------------------------------------------------------------===//
// Mamba
//===----------------------------------------------------------------------===//

/// One Mamba block (Gu & Dao): input projection to the inner width and a
/// gate, causal depthwise convolution, SiLU, the input-dependent Δ, B and C,
/// the selective scan with a skip (D), the SiLU gate, output projection.
class MambaBlockImpl : public torch::nn::Module {
public:
  MambaBlockImpl(int64_t dModel, int64_t dState, int64_t dConv, int64_t expand,
                 int64_t dtRank)
      : inner(expand * dModel), dState(dState), dtRank(dtRank) {
    inProj = register_module("in_proj", Dense(dModel, 2 * inner, false));
    double convBound = 1.0 / std::sqrt(static_cast<double>(dConv));
    convWeight = register_parameter(
        "conv_weight",
        torch::empty({inner, dConv}).uniform_(-convBound, convBound));
    convBias = register_parameter(
        "conv_bias", torch::empty({inner}).uniform_(-convBound, convBound));
    xProj = register_module("x_proj", Dense(inner, dtRank + 2 * dState, false));
    dtProj = register_module("dt_proj", Dense(dtRank, inner, true));
    {
      // Mamba's initialization: Δ starts log-uniform in [1e-3, 0.1] (the
      // bias is its inverse softplus), so that early on the states neither
      // forget at once nor never.
      torch::NoGradGuard noGrad;
      double bound = 1.0 / std::sqrt(static_cast<double>(dtRank));
      dtProj->weight.uniform_(-bound, bound);
      torch::Tensor dt =
          torch::exp(torch::rand({inner}) * (std::log(0.1) - std::log(1e-3)) +
                     std::log(1e-3));
      dtProj->bias.copy_(dt + torch::log(-torch::expm1(-dt)));
    }
    // A = -exp(aLog) = -(1, 2, ..., N) in every channel (S4D-real): decay
    // rates spread over the state dimensions.
    aLog = register_parameter(
        "a_log", torch::log(torch::arange(1, dState + 1, torch::kFloat))
                     .repeat({inner, 1}));
    dSkip = register_parameter("d_skip", torch::ones({inner}));
    outProj = register_module("out_proj", Dense(inner, dModel, false));
  }

  torch::Tensor forward(const torch::Tensor &x) {
    torch::Tensor xz = inProj(x);
    torch::Tensor xs = xz.narrow(-1, 0, inner);
    torch::Tensor z = xz.narrow(-1, inner, inner);
    torch::Tensor u = torch::silu(causalConv(xs, convWeight, convBias));
    torch::Tensor dbc = xProj(u);
    torch::Tensor delta =
        torch::softplus(dtProj(dbc.narrow(-1, 0, dtRank).contiguous()));
    torch::Tensor b = dbc.narrow(-1, dtRank, dState);
    torch::Tensor c = dbc.narrow(-1, dtRank + dState, dState);
    torch::Tensor y =
        selectiveScan(u, delta, -torch::exp(aLog), b, c) + u * dSkip;
    return outProj(y * torch::silu(z));
  }

private:
  int64_t inner, dState, dtRank;
  Dense inProj{nullptr}, xProj{nullptr}, dtProj{nullptr}, outProj{nullptr};
  torch::Tensor convWeight, convBias, aLog, dSkip;
};
TORCH_MODULE(MambaBlock);

/// METHOD.md §2: token encoder to dModel, one Mamba block with a residual,
/// RMSNorm, mean over the real tokens, decoder.
class MambaNet : public ScoreNet {
public:
  explicit MambaNet(const ModelConfig &c)
      : enc1(register_module("enc1", Dense(c.width, 64))),
        enc2(register_module("enc2", Dense(64, 128))),
        enc3(register_module("enc3", Dense(128, c.dModel))),
        block(register_module("block", MambaBlock(c.dModel, c.dState, c.dConv,
                                                  c.expand, c.dtRank))),
        norm(register_module("norm", RMSNorm(c.dModel))),
        decoder(register_module("decoder", Decoder(c.dModel))),
        width(c.dModel) {}

  torch::Tensor embed(const torch::Tensor &x,
                      const torch::Tensor &mask) override {
    torch::Tensor h =
        torch::silu(enc3(torch::silu(enc2(torch::silu(enc1(x))))));
    h = norm(h + block(h));
    return maskedMean(h, mask);
  }
  torch::Tensor head(const torch::Tensor &embedding) override {
    return decoder(embedding);
  }
  int64_t getEmbeddingWidth() const override { return width; }

private:
  Dense enc1, enc2, enc3;
  MambaBlock block;
  RMSNorm norm;
  Decoder decoder;
  int64_t width;
};

//===----------------------------------------------------------------------===//
// Transformer (TLP)
//===----------------------------------------------------------------------===//

/// Post-norm encoder layer: multi-head self-attention over the real tokens,
/// residual, LayerNorm, feed-forward (ReLU), residual, LayerNorm. Written
/// out instead of nn::TransformerEncoderLayer, whose inference fast path
/// behaves differently from training in 1.13.
class EncoderLayerImpl : public torch::nn::Module {
public:
  EncoderLayerImpl(int64_t d, int64_t heads, int64_t ffn)
      : d(d), heads(heads), qkv(register_module("qkv", Dense(d, 3 * d))),
        out(register_module("out", Dense(d, d))),
        ffn1(register_module("ffn1", Dense(d, ffn))),
        ffn2(register_module("ffn2", Dense(ffn, d))),
        norm1Weight(register_parameter("norm1_weight", torch::ones({d}))),
        norm1Bias(register_parameter("norm1_bias", torch::zeros({d}))),
        norm2Weight(register_parameter("norm2_weight", torch::ones({d}))),
        norm2Bias(register_parameter("norm2_bias", torch::zeros({d}))) {}

  /// keyBias [B, 1, 1, L]: 0 for real tokens, a large negative number for
  /// padding, added to the attention logits.
  torch::Tensor forward(const torch::Tensor &h, const torch::Tensor &keyBias) {
    const int64_t batch = h.size(0), length = h.size(1), dh = d / heads;
    torch::Tensor parts =
        qkv(h).view({batch, length, 3, heads, dh}).permute({2, 0, 3, 1, 4});
    torch::Tensor q = parts[0], k = parts[1], v = parts[2];
    torch::Tensor logits = torch::matmul(q, k.transpose(-2, -1)) *
                               (1.0 / std::sqrt(static_cast<double>(dh))) +
                           keyBias;
    torch::Tensor attended = torch::matmul(torch::softmax(logits, -1), v)
                                 .permute({0, 2, 1, 3})
                                 .reshape({batch, length, d});
    torch::Tensor x =
        torch::layer_norm(h + out(attended), {d}, norm1Weight, norm1Bias);
    return torch::layer_norm(x + ffn2(torch::relu(ffn1(x))), {d}, norm2Weight,
                             norm2Bias);
  }

private:
  int64_t d, heads;
  Dense qkv, out, ffn1, ffn2;
  torch::Tensor norm1Weight, norm1Bias, norm2Weight, norm2Bias;
};
TORCH_MODULE(EncoderLayer);

/// TLP-style: token embedding plus a learned position embedding (without
/// one, attention and mean pooling could not tell the order of the schedule
/// primitives), encoder layers, mean over real tokens, the shared decoder.
class TransformerNet : public ScoreNet {
public:
  explicit TransformerNet(const ModelConfig &c)
      : tokenEmbed(register_module("embed", Dense(c.width, c.dModel))),
        position(register_parameter(
            "position",
            torch::randn({int64_t(c.rows), int64_t(c.dModel)}) * 0.02)),
        decoder(register_module("decoder", Decoder(c.dModel))),
        width(c.dModel) {
    layers = register_module("layers", torch::nn::ModuleList());
    for (unsigned i = 0; i < c.layers; ++i)
      layers->push_back(EncoderLayer(c.dModel, c.heads, c.ffn));
  }

  torch::Tensor embed(const torch::Tensor &x,
                      const torch::Tensor &mask) override {
    // x may be cropped to fewer rows than the model reads.
    torch::Tensor h = tokenEmbed(x) + position.narrow(0, 0, x.size(1));
    torch::Tensor keyBias = ((1 - mask) * -1e9).unsqueeze(1).unsqueeze(1);
    for (const std::shared_ptr<torch::nn::Module> &layer : *layers)
      h = layer->as<EncoderLayer>()->forward(h, keyBias);
    return maskedMean(h, mask);
  }
  torch::Tensor head(const torch::Tensor &embedding) override {
    return decoder(embedding);
  }
  int64_t getEmbeddingWidth() const override { return width; }

private:
  Dense tokenEmbed;
  torch::Tensor position;
  torch::nn::ModuleList layers{nullptr};
  Decoder decoder;
  int64_t width;
};

//===----------------------------------------------------------------------===//
// MLP (Tenset)
//===----------------------------------------------------------------------===//

/// Tenset-MLP: Linear to the hidden width, ReLU, residual blocks
/// relu(h + Linear(relu(Linear(h)))), Linear to the score. Reads the whole
/// [rows, width] matrix flattened.
class MLPNet : public ScoreNet {
public:
  explicit MLPNet(const ModelConfig &c)
      : in(register_module("in",
                           Dense(int64_t(c.rows) * c.width, c.mlpHidden))),
        out(register_module("out", Dense(c.mlpHidden, 1))), width(c.mlpHidden) {
    blocks = register_module("blocks", torch::nn::ModuleList());
    for (unsigned i = 0; i < c.mlpBlocks; ++i) {
      blocks->push_back(Dense(c.mlpHidden, c.mlpHidden));
      blocks->push_back(Dense(c.mlpHidden, c.mlpHidden));
    }
  }

  torch::Tensor embed(const torch::Tensor &x, const torch::Tensor &) override {
    torch::Tensor h = torch::relu(in(x.reshape({x.size(0), -1})));
    for (size_t i = 0; i + 1 < blocks->size(); i += 2) {
      torch::Tensor inner = torch::relu(blocks[i]->as<Dense>()->forward(h));
      h = torch::relu(h + blocks[i + 1]->as<Dense>()->forward(inner));
    }
    return h;
  }
  torch::Tensor head(const torch::Tensor &embedding) override {
    return out(embedding).squeeze(-1);
  }
  int64_t getEmbeddingWidth() const override { return width; }

private:
  Dense in, out;
  torch::nn::ModuleList blocks{nullptr};
  int64_t width;
};

} // namespace

llvm::Error mlir::tcl::learned::verifyConfig(const ModelConfig &c) {
  auto fail = [&](const llvm::Twine &why) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "invalid " + getModelKindName(c.kind) +
                                       " model config: " + why);
  };
  // Bounds keep a corrupt file from asking for absurd allocations.
  const unsigned kMaxSize = 1u << 16;
  auto sizeOk = [&](unsigned v) { return v >= 1 && v <= kMaxSize; };
  if (!sizeOk(c.rows) || !sizeOk(c.width))
    return fail("rows and width must be in [1, 65536]");
  if (c.inputs.size() > 256 ||
      llvm::any_of(c.inputs, [](char ch) { return ch <= ' ' || ch > '~'; }))
    return fail("the inputs' name must be at most 256 printable characters "
                "without spaces");
  switch (c.kind) {
  case ModelKind::Mamba:
    if (!sizeOk(c.dModel) || !sizeOk(c.dState) || !sizeOk(c.dConv) ||
        !sizeOk(c.expand) || !sizeOk(c.dtRank) ||
        uint64_t(c.expand) * c.dModel > kMaxSize)
      return fail("d_model, d_state, d_conv, expand and dt_rank must be "
                  "positive and not huge");
    break;
  case ModelKind::Transformer:
    if (!sizeOk(c.dModel) || !sizeOk(c.heads) || !sizeOk(c.ffn) ||
        c.layers > 64)
      return fail("d_model, heads and ffn must be positive, at most 64 "
                  "layers");
    if (c.dModel % c.heads != 0)
      return fail("heads (" + llvm::Twine(c.heads) + ") must divide d_model (" +
                  llvm::Twine(c.dModel) + ")");
    break;
  case ModelKind::MLP:
    if (!sizeOk(c.mlpHidden) || c.mlpBlocks > 64 ||
        uint64_t(c.rows) * c.width > kMaxSize * 16)
      return fail("mlp_hidden must be positive, at most 64 blocks, and "
                  "rows * width at most 2^20");
    break;
  }
  return llvm::Error::success();
}

std::shared_ptr<ScoreNet>
mlir::tcl::learned::createNetwork(const ModelConfig &config) {
  switch (config.kind) {
  case ModelKind::Mamba:
    return std::make_shared<MambaNet>(config);
  case ModelKind::Transformer:
    return std::make_shared<TransformerNet>(config);
  case ModelKind::MLP:
    return std::make_shared<MLPNet>(config);
  }
  return nullptr;
}
