#!/usr/bin/python3
"""Exports the end-to-end test models to ONNX with seeded random weights.

For each model, writes <out>/<name>/model.onnx and one ONNX test data set,
<out>/<name>/test_data_set_0/{input_N.pb,output_N.pb}, whose outputs PyTorch
computed. Uses Debian's python3-torch, python3-torchvision and python3-onnx.

MODELS are the end-to-end test models (scripts/e2e-models.sh, bench/models.py,
opset 13); ZOO is the wider model zoo of bench/zoo.py (opset 17): more
torchvision CNNs and transformer blocks at small inputs. Without names,
exports MODELS.

Usage: /usr/bin/python3 models/generate.py OUT_DIR [NAME ...]
"""

import os
import sys

import onnx
import onnx.numpy_helper
import torch
import torchvision

OPSET = 13
ZOO_OPSET = 17


class EncoderLayer(torch.nn.Module):
    """A BERT-style encoder layer with the attention written out (PyTorch
    1.13's fused TransformerEncoderLayer does not export) and fixed shapes,
    so the export has constant reshape targets."""

    def __init__(self, seq, hidden, heads, ffn):
        super().__init__()
        self.seq, self.hidden, self.heads = seq, hidden, heads
        self.head_dim = hidden // heads
        self.qkv = torch.nn.Linear(hidden, 3 * hidden)
        self.out = torch.nn.Linear(hidden, hidden)
        self.norm1 = torch.nn.LayerNorm(hidden)
        self.ff1 = torch.nn.Linear(hidden, ffn)
        self.ff2 = torch.nn.Linear(ffn, hidden)
        self.norm2 = torch.nn.LayerNorm(hidden)

    def forward(self, x):
        qkv = self.qkv(x).reshape(1, self.seq, 3, self.heads, self.head_dim)
        q = qkv[:, :, 0].transpose(1, 2)
        k = qkv[:, :, 1].transpose(1, 2)
        v = qkv[:, :, 2].transpose(1, 2)
        scores = torch.matmul(q, k.transpose(2, 3)) / (self.head_dim ** 0.5)
        attention = torch.matmul(torch.softmax(scores, dim=-1), v)
        attention = attention.transpose(1, 2).reshape(1, self.seq, self.hidden)
        x = self.norm1(x + self.out(attention))
        ff = self.ff2(torch.nn.functional.gelu(self.ff1(x)))
        return self.norm2(x + ff)


class Encoder(torch.nn.Module):
    def __init__(self, layers=2, seq=64, hidden=256, heads=4, ffn=1024):
        super().__init__()
        self.layers = torch.nn.ModuleList(
            [EncoderLayer(seq, hidden, heads, ffn) for _ in range(layers)])

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x


class CausalSelfAttention(torch.nn.Module):
    """GPT-2 style pre-norm block: causal multi-head self-attention (the
    mask a constant lower triangle, masked_fill -> Where) and a GELU MLP."""

    def __init__(self, seq, hidden, heads):
        super().__init__()
        self.seq, self.hidden, self.heads = seq, hidden, heads
        self.head_dim = hidden // heads
        self.norm1 = torch.nn.LayerNorm(hidden)
        self.qkv = torch.nn.Linear(hidden, 3 * hidden)
        self.proj = torch.nn.Linear(hidden, hidden)
        self.norm2 = torch.nn.LayerNorm(hidden)
        self.mlp = torch.nn.Sequential(
            torch.nn.Linear(hidden, 4 * hidden), torch.nn.GELU(approximate="tanh"),
            torch.nn.Linear(4 * hidden, hidden))
        self.register_buffer(
            "causal", torch.tril(torch.ones(seq, seq, dtype=torch.bool)))

    def forward(self, x):
        q, k, v = self.qkv(self.norm1(x)).split(self.hidden, dim=2)
        q, k, v = (t.reshape(1, self.seq, self.heads, self.head_dim).transpose(1, 2)
                   for t in (q, k, v))
        scores = torch.matmul(q, k.transpose(2, 3)) / (self.head_dim ** 0.5)
        scores = scores.masked_fill(~self.causal, float("-inf"))
        attention = torch.matmul(torch.softmax(scores, dim=-1), v)
        attention = attention.transpose(1, 2).reshape(1, self.seq, self.hidden)
        x = x + self.proj(attention)
        return x + self.mlp(self.norm2(x))


class Gpt(torch.nn.Module):
    """A small GPT: int64 token ids -> token and position embeddings ->
    causal blocks -> final LayerNorm -> logits (weights tied to the token
    embedding)."""

    def __init__(self, vocab=512, seq=32, hidden=128, heads=4, layers=2):
        super().__init__()
        self.tokens = torch.nn.Embedding(vocab, hidden)
        self.positions = torch.nn.Parameter(torch.randn(1, seq, hidden) * 0.02)
        self.blocks = torch.nn.Sequential(
            *[CausalSelfAttention(seq, hidden, heads) for _ in range(layers)])
        self.norm = torch.nn.LayerNorm(hidden)

    def forward(self, ids):
        x = self.blocks(self.tokens(ids) + self.positions)
        return torch.matmul(self.norm(x), self.tokens.weight.t())


def transformer_encoder_layer():
    """torch.nn.TransformerEncoderLayer, batch_first, GELU."""
    return torch.nn.TransformerEncoderLayer(
        d_model=128, nhead=4, dim_feedforward=256, activation="gelu",
        batch_first=True)


class UNet(torch.nn.Module):
    """A two-level UNet: conv blocks, max pooling, upsampling (Resize:
    bilinear, or ConvTranspose2d with deconv=True) and skip
    concatenations."""

    def __init__(self, channels=(16, 32, 64), deconv=False):
        super().__init__()

        def block(cin, cout):
            return torch.nn.Sequential(
                torch.nn.Conv2d(cin, cout, 3, padding=1), torch.nn.BatchNorm2d(cout),
                torch.nn.ReLU(), torch.nn.Conv2d(cout, cout, 3, padding=1),
                torch.nn.ReLU())

        def up(cin, cout):
            if deconv:
                return torch.nn.ConvTranspose2d(cin, cout, 2, stride=2)
            return torch.nn.Sequential(
                torch.nn.Upsample(scale_factor=2, mode="bilinear",
                                  align_corners=False),
                torch.nn.Conv2d(cin, cout, 1))

        c0, c1, c2 = channels
        self.down0, self.down1 = block(3, c0), block(c0, c1)
        self.bottom = block(c1, c2)
        self.up1, self.dec1 = up(c2, c1), block(2 * c1, c1)
        self.up0, self.dec0 = up(c1, c0), block(2 * c0, c0)
        self.head = torch.nn.Conv2d(c0, 2, 1)

    def forward(self, x):
        d0 = self.down0(x)
        d1 = self.down1(torch.nn.functional.max_pool2d(d0, 2))
        b = self.bottom(torch.nn.functional.max_pool2d(d1, 2))
        u1 = self.dec1(torch.cat([self.up1(b), d1], dim=1))
        u0 = self.dec0(torch.cat([self.up0(u1), d0], dim=1))
        return torch.sigmoid(self.head(u0))


class TemporalConvNet(torch.nn.Module):
    """A sequence model without recurrence: residual blocks of causal
    dilated Conv1d (left padding), GELU and LayerNorm over channels, then
    mean pooling over time and a classifier."""

    def __init__(self, features=16, channels=64, levels=3, classes=10):
        super().__init__()
        self.inp = torch.nn.Conv1d(features, channels, 1)
        self.convs = torch.nn.ModuleList(
            [torch.nn.Conv1d(channels, channels, 3, dilation=2 ** level)
             for level in range(levels)])
        self.norms = torch.nn.ModuleList(
            [torch.nn.LayerNorm(channels) for _ in range(levels)])
        self.head = torch.nn.Linear(channels, classes)

    def forward(self, x):
        x = self.inp(x)
        for conv, norm in zip(self.convs, self.norms):
            y = conv(torch.nn.functional.pad(x, (2 * conv.dilation[0], 0)))
            y = norm(torch.nn.functional.gelu(y).transpose(1, 2)).transpose(1, 2)
            x = x + y
        return self.head(x.mean(dim=2))


def vit():
    """torchvision's VisionTransformer, small: patch embedding conv, class
    token, position embedding, pre-norm encoder blocks. Its head starts at
    zero (every output 0); it gets Linear's random initialization instead."""
    model = torchvision.models.VisionTransformer(
        image_size=32, patch_size=8, num_layers=2, num_heads=4,
        hidden_dim=128, mlp_dim=256, num_classes=10)
    model.heads.head.reset_parameters()
    return model


def tokens(seq, vocab):
    """Example inputs for a token model: int64 ids, shape (1, seq)."""
    return lambda generator: (
        torch.randint(vocab, (1, seq), generator=generator),)


MODELS = {
    "resnet18": (lambda: torchvision.models.resnet18(), (1, 3, 224, 224)),
    "mobilenet_v2": (lambda: torchvision.models.mobilenet_v2(), (1, 3, 224, 224)),
    "bert_encoder": (lambda: Encoder(), (1, 64, 256)),
    # Grouped convolutions with groups of 8 channels.
    "regnet_y_400mf": (lambda: torchvision.models.regnet_y_400mf(),
                       (1, 3, 224, 224)),
}

# name -> (constructor, input shape of one float input, or a function from a
# torch.Generator to the tuple of example inputs).
ZOO = {
    "squeezenet1_1": (lambda: torchvision.models.squeezenet1_1(), (1, 3, 96, 96)),
    "shufflenet_v2_x0_5": (lambda: torchvision.models.shufflenet_v2_x0_5(),
                           (1, 3, 64, 64)),
    "mobilenet_v3_small": (lambda: torchvision.models.mobilenet_v3_small(),
                           (1, 3, 64, 64)),
    "efficientnet_b0": (lambda: torchvision.models.efficientnet_b0(),
                        (1, 3, 64, 64)),
    "mnasnet0_5": (lambda: torchvision.models.mnasnet0_5(), (1, 3, 64, 64)),
    "googlenet": (lambda: torchvision.models.googlenet(
        aux_logits=False, init_weights=True), (1, 3, 64, 64)),
    "densenet121": (lambda: torchvision.models.densenet121(), (1, 3, 64, 64)),
    "resnet50": (lambda: torchvision.models.resnet50(), (1, 3, 64, 64)),
    "regnet_x_400mf": (lambda: torchvision.models.regnet_x_400mf(),
                       (1, 3, 64, 64)),
    "resnext50_32x4d": (lambda: torchvision.models.resnext50_32x4d(),
                        (1, 3, 64, 64)),
    "alexnet": (lambda: torchvision.models.alexnet(num_classes=10),
                (1, 3, 224, 224)),
    "transformer_encoder_layer": (transformer_encoder_layer, (1, 32, 128)),
    "gpt": (lambda: Gpt(), tokens(32, 512)),
    "vit": (vit, (1, 3, 32, 32)),
    "unet": (lambda: UNet(), (1, 3, 64, 64)),
    "unet_deconv": (lambda: UNet(deconv=True), (1, 3, 64, 64)),
    "tcn": (lambda: TemporalConvNet(), (1, 16, 64)),
}


def calibrate_batch_norm(model, shape):
    """Sets the BatchNorm running statistics to those of a batch of 8 seeded
    random inputs of `shape` (batch size aside). PyTorch initializes them to
    mean 0, variance 1, which makes an eval-mode BatchNorm the identity: in
    CNNs whose initialization does not keep the activations' scale
    (MobileNetV2 and V3, EfficientNet, MNASNet) the outputs then vanish
    (1e-8 to 1e-14), and any result passes a check against them."""
    norms = [module for module in model.modules()
             if isinstance(module, torch.nn.modules.batchnorm._BatchNorm)]
    if not norms:
        return
    batch = torch.randn(8, *shape[1:], generator=torch.Generator().manual_seed(2))
    for norm in norms:
        norm.reset_running_stats()
        norm.momentum = None  # a cumulative average: this batch's statistics
        norm.train()
    with torch.no_grad():
        model(batch)
    model.eval()


def instantiate(name):
    """The seeded model `name` (MODELS or ZOO) in eval mode, its example
    inputs (a tuple) and the opset it is exported with."""
    if name in MODELS:
        (make, inputs), opset = MODELS[name], OPSET
    else:
        (make, inputs), opset = ZOO[name], ZOO_OPSET
    torch.manual_seed(0)
    model = make().eval()
    generator = torch.Generator().manual_seed(1)
    if callable(inputs):
        example = inputs(generator)
    else:
        calibrate_batch_norm(model, inputs)
        example = (torch.randn(*inputs, generator=generator),)
    return model, example, opset


def _names(kind, count):
    """Graph input or output names: "input", or "input_0", "input_1", ..."""
    return [kind] if count == 1 else [f"{kind}_{i}" for i in range(count)]


def export(name, out_dir):
    """Writes <out_dir>/<name>/model.onnx and its test data set; returns the
    model's path."""
    model, example, opset = instantiate(name)
    directory = os.path.join(out_dir, name)
    data = os.path.join(directory, "test_data_set_0")
    os.makedirs(data, exist_ok=True)
    path = os.path.join(directory, "model.onnx")
    with torch.no_grad():
        expected = model(*example)
    if isinstance(expected, torch.Tensor):
        expected = (expected,)
    # With autograd on: in eval mode under no_grad, TransformerEncoderLayer
    # and MultiheadAttention take fused fast paths that do not export.
    torch.onnx.export(model, example, path, opset_version=opset,
                      input_names=_names("input", len(example)),
                      output_names=_names("output", len(expected)),
                      do_constant_folding=True)
    for prefix, tensors in (("input", example), ("output", expected)):
        for index, tensor in enumerate(tensors):
            proto = onnx.numpy_helper.from_array(tensor.numpy())
            with open(os.path.join(data, f"{prefix}_{index}.pb"), "wb") as f:
                f.write(proto.SerializeToString())
    onnx.checker.check_model(onnx.load(path))
    print(f"{name}: {path}")
    return path


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    torch.set_num_threads(1)
    for name in sys.argv[2:] or MODELS:
        if name not in MODELS and name not in ZOO:
            sys.exit(f"unknown model '{name}'; known: "
                     f"{', '.join(list(MODELS) + list(ZOO))}")
        export(name, sys.argv[1])


if __name__ == "__main__":
    main()
