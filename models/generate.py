#!/usr/bin/python3
"""Exports the end-to-end test models to ONNX with seeded random weights.

For each model, writes <out>/<name>/model.onnx and one ONNX test data set,
<out>/<name>/test_data_set_0/{input_0.pb,output_0.pb}, whose output PyTorch
computed. Uses Debian's python3-torch, python3-torchvision and python3-onnx.

Usage: /usr/bin/python3 models/generate.py OUT_DIR [NAME ...]
"""

import os
import sys

import onnx
import onnx.numpy_helper
import torch
import torchvision

OPSET = 13


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


MODELS = {
    "resnet18": (lambda: torchvision.models.resnet18(), (1, 3, 224, 224)),
    "mobilenet_v2": (lambda: torchvision.models.mobilenet_v2(), (1, 3, 224, 224)),
    "bert_encoder": (lambda: Encoder(), (1, 64, 256)),
    # Grouped convolutions with groups of 8 channels (not in the default e2e
    # set: bash scripts/e2e-models.sh build regnet_y_400mf).
    "regnet_y_400mf": (lambda: torchvision.models.regnet_y_400mf(),
                       (1, 3, 224, 224)),
}


def export(name, out_dir):
    make, shape = MODELS[name]
    torch.manual_seed(0)
    model = make().eval()
    example = torch.randn(*shape, generator=torch.Generator().manual_seed(1))
    directory = os.path.join(out_dir, name)
    data = os.path.join(directory, "test_data_set_0")
    os.makedirs(data, exist_ok=True)
    path = os.path.join(directory, "model.onnx")
    with torch.no_grad():
        torch.onnx.export(model, example, path, opset_version=OPSET,
                          input_names=["input"], output_names=["output"],
                          do_constant_folding=True)
        expected = model(example)
    for tensor, file in ((example, "input_0.pb"), (expected, "output_0.pb")):
        proto = onnx.numpy_helper.from_array(tensor.numpy())
        with open(os.path.join(data, file), "wb") as f:
            f.write(proto.SerializeToString())
    onnx.checker.check_model(onnx.load(path))
    print(f"{name}: {path}")


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    torch.set_num_threads(1)
    for name in sys.argv[2:] or MODELS:
        if name not in MODELS:
            sys.exit(f"unknown model '{name}'; known: {', '.join(MODELS)}")
        export(name, sys.argv[1])


if __name__ == "__main__":
    main()
