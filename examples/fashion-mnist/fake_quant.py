#!/usr/bin/python3
"""Fake-quantizes a trained Fashion-MNIST network in PyTorch and exports it as an explicitly quantized
(QDQ) ONNX model: the model a QAT or PyTorch quantization flow hands to kiln.

    /usr/bin/python3 examples/fashion-mnist/fake_quant.py --weights resnet.pt --out-dir /tmp/qdq

BatchNorms are folded into their convolutions first (as deployment does), then every Conv2d and Linear
reads its input through torch.fake_quantize_per_tensor_affine (symmetric int8, scale = max|x| / 127
over the first --calib-images training images) and its weight through
torch.fake_quantize_per_channel_affine (per output channel, max|w| / 127). The export (opset 13) turns
each into a QuantizeLinear/DequantizeLinear pair. Writes OUT/NAME_qdq.onnx and OUT/NAME_qdq.json with
the fake-quantized model's PyTorch accuracy on the 10 000 test images (eval.py --model-json compares
a plan with it).
"""
import argparse
import copy
import json
import os
import sys

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from fmnist import BATCH, CLASSES, MEAN, STD, SUBSET, load, preprocess  # noqa: E402
from train import ARCHS, evaluate  # noqa: E402


def fold_batch_norms(module):
    """Folds every Conv2d followed by a BatchNorm2d (as attributes or in a Sequential) in place."""
    from torch.nn.utils.fusion import fuse_conv_bn_eval
    for name, child in module.named_children():
        fold_batch_norms(child)
    if isinstance(module, nn.Sequential):
        mods = list(module)
        for i in range(len(mods) - 1):
            if isinstance(mods[i], nn.Conv2d) and isinstance(mods[i + 1], nn.BatchNorm2d):
                module[i] = fuse_conv_bn_eval(mods[i], mods[i + 1])
                module[i + 1] = nn.Identity()
    for conv, bn in (("conv1", "bn1"), ("conv2", "bn2")):
        if isinstance(getattr(module, conv, None), nn.Conv2d) and \
                isinstance(getattr(module, bn, None), nn.BatchNorm2d):
            setattr(module, conv, fuse_conv_bn_eval(getattr(module, conv), getattr(module, bn)))
            setattr(module, bn, nn.Identity())


class FakeQuant(nn.Module):
    """A Conv2d or Linear with int8 fake quantization of its input (per tensor) and weight (per
    output channel), symmetric."""

    def __init__(self, layer):
        super().__init__()
        self.layer = layer
        self.register_buffer("amax", torch.zeros(()))
        self.calibrating = True

    def forward(self, x):
        if self.calibrating:
            self.amax = torch.maximum(self.amax, x.detach().abs().max())
            return self.layer(x)
        scale = float(max(self.amax.item(), 1e-12) / 127)
        x = torch.fake_quantize_per_tensor_affine(x, scale, 0, -128, 127)
        w = torch.fake_quantize_per_channel_affine(
            self.layer.weight, self.wscale, self.wzero, 0, -128, 127)
        if isinstance(self.layer, nn.Conv2d):
            return F.conv2d(x, w, self.layer.bias, self.layer.stride, self.layer.padding,
                            self.layer.dilation, self.layer.groups)
        return F.linear(x, w, self.layer.bias)


def wrap(module):
    for name, child in module.named_children():
        if isinstance(child, (nn.Conv2d, nn.Linear)):
            setattr(module, name, FakeQuant(child))
        else:
            wrap(child)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--arch", choices=sorted(ARCHS), default="resnet")
    ap.add_argument("--weights", required=True, help="NAME.pt from train.py --weights-only")
    ap.add_argument("--calib-images", type=int, default=500)
    ap.add_argument("--out-dir", required=True)
    args = ap.parse_args()
    torch.set_num_threads(2)
    make, name, description = ARCHS[args.arch]
    model = make()
    model.load_state_dict(torch.load(args.weights, map_location="cpu"))
    model.eval()
    fold_batch_norms(model)
    wrap(model)
    train_u8, _ = load("train")
    test_u8, test_y = load("t10k")
    x_cal, x_test = preprocess(train_u8[:args.calib_images]), preprocess(test_u8)
    with torch.no_grad():
        for i in range(0, len(x_cal), BATCH):
            model(torch.from_numpy(x_cal[i:i + BATCH]))
    fq = [m for m in model.modules() if isinstance(m, FakeQuant)]
    for m in fq:
        m.calibrating = False
        # Constant weight scales (buffers), so that the export holds them as initializers.
        w = m.layer.weight.detach()
        m.register_buffer("wscale", (w.abs().flatten(1).max(1).values / 127).clamp_min(1e-12))
        m.register_buffer("wzero", torch.zeros(w.shape[0], dtype=torch.int32))
    pred = evaluate(model, x_test, test_y)
    acc = float((pred == test_y).mean() * 100)
    acc_subset = float((pred[:SUBSET] == test_y[:SUBSET]).mean() * 100)
    print(f"PyTorch fake-quant accuracy: {acc:.2f}% on {len(test_y)} images "
          f"({acc_subset:.2f}% on the first {SUBSET}); {len(fq)} layers quantized")
    os.makedirs(args.out_dir, exist_ok=True)
    onnx_path = os.path.join(args.out_dir, name + "_qdq.onnx")
    torch.onnx.export(copy.deepcopy(model), torch.from_numpy(x_test[:BATCH]), onnx_path,
                      opset_version=13, do_constant_folding=True,
                      input_names=["image"], output_names=["logits"])
    info = {"model": description + ", BatchNorms folded, int8 fake quantization (QDQ)",
            "quantization": {"layers": len(fq), "activations": "per tensor, symmetric, max|x|/127 over "
                             f"the first {args.calib_images} training images",
                             "weights": "per output channel, symmetric, max|w|/127"},
            "onnx": {"file": name + "_qdq.onnx", "opset": 13, "input": "image",
                     "input_shape": [BATCH, 1, 28, 28], "output": "logits", "output_shape": [BATCH, 10]},
            "preprocessing": {"layout": "NCHW float32", "divisor": 255.0, "mean": MEAN, "std": STD,
                              "formula": "(x / 255 - mean) / std"},
            "classes": CLASSES,
            "pytorch_test_accuracy": round(acc, 2), "pytorch_test_images": int(len(test_y)),
            "pytorch_subset_accuracy": round(acc_subset, 2), "pytorch_subset_images": SUBSET,
            "torch": torch.__version__}
    with open(os.path.join(args.out_dir, name + "_qdq.json"), "w") as f:
        json.dump(info, f, indent=2)
        f.write("\n")
    print(f"wrote {onnx_path} and {name}_qdq.json")
    return 0


if __name__ == "__main__":
    sys.exit(main())
