#!/usr/bin/python3
"""Host plans with 2-D convolutions forced channels-last (kilnc --layout=nhwc) against PyTorch.

    check_nhwc.py BIN_DIR MODELS_DIR WORK_DIR

auto picks NHWC only for fp16/bf16/tf32 on GPU targets, so without this test kiln-layout-nhwc and the
channels_last lowerings never meet real data in fp32. Two models, each compiled with
`kilnc --target host --layout=L --json` and run with `kiln-run --compare` on PyTorch's outputs:

  nhwc_cnn       exported here (seed 0, batch 2, 3x30x30): conv -> batch norm -> relu -> max pool
                 (ceil mode) -> depthwise conv -> batch norm -> relu6 -> 1x1 conv -> batch norm,
                 a 1x1-conv shortcut, add, relu; outputs a keepdims ReduceMean over H, W and a
                 keepdims ReduceMax over C. Batch norm is kept unfused (training=PRESERVE, module
                 in eval mode) with random per-channel statistics and affine parameters, so a
                 wrong channel axis changes the result (untrained torchvision BN is the same for
                 every channel and would hide it). Run in both layouts.
  resnet50_op13  the models.torchvision export (BN folded into the convs; max pool, residual adds,
                 global average pool) with its test_data_set_0. NHWC only (oracle.ort covers NCHW).

The build report must show the expected number of channels-last convs (0 for nchw), so the test
cannot pass with the option inert. Tolerances (|a - b| <= atol + rtol |b|): fp32 on both sides,
differing only in summation order. nhwc_cnn sums at most 144 products per output (|err| ~1e-6):
rtol 1e-3, atol 1e-5 as the conformance suite. ResNet-50 accumulates over 50 layers: rtol 1e-3,
atol 1e-4 as oracle.ort (see test/oracle/README.md). A wrong layout gives errors of order 0.1.
"""

import json
import os
import subprocess
import sys
import time
import warnings

sys.dont_write_bytecode = True

import numpy as np  # noqa: E402
import onnx  # noqa: E402
from onnx import numpy_helper  # noqa: E402
import torch  # noqa: E402
from torch import nn  # noqa: E402


class NhwcCnn(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(
            nn.Conv2d(3, 16, 3, stride=2, padding=1, bias=False), nn.BatchNorm2d(16), nn.ReLU(),
            nn.MaxPool2d(3, stride=2, padding=1, ceil_mode=True))
        self.block = nn.Sequential(
            nn.Conv2d(16, 16, 3, padding=1, groups=16), nn.BatchNorm2d(16), nn.ReLU6(),
            nn.Conv2d(16, 24, 1, bias=False), nn.BatchNorm2d(24))
        self.shortcut = nn.Conv2d(16, 24, 1)

    def forward(self, x):
        x = self.stem(x)
        y = torch.relu(self.block(x) + self.shortcut(x))
        return y.mean(dim=(2, 3), keepdim=True), y.amax(dim=1, keepdim=True)


def export_cnn(work):
    """Writes WORK/nhwc_cnn.onnx and WORK/nhwc_cnn/test_data_set_0; returns (model, data dir)."""
    torch.manual_seed(0)
    m = NhwcCnn()
    for bn in m.modules():
        if isinstance(bn, nn.BatchNorm2d):
            c = bn.num_features
            bn.running_mean.copy_(torch.randn(c) * 0.5)
            bn.running_var.copy_(torch.rand(c) * 1.5 + 0.5)
            bn.weight.data.copy_(torch.rand(c) + 0.5)
            bn.bias.data.copy_(torch.randn(c) * 0.2)
    m.eval()
    torch.manual_seed(1)
    x = torch.randn(2, 3, 30, 30)
    with torch.no_grad():
        refs = m(x)
    path = os.path.join(work, "nhwc_cnn.onnx")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(m, (x,), path, opset_version=13, do_constant_folding=True,
                          input_names=["input"], output_names=["mean_hw", "max_c"],
                          training=torch.onnx.TrainingMode.PRESERVE)
    ops = {n.op_type for n in onnx.load(path).graph.node}
    want = {"Conv", "BatchNormalization", "MaxPool", "ReduceMean", "ReduceMax", "Add"}
    if not want <= ops:
        sys.exit("FAIL nhwc_cnn export lacks %s (has %s)" % (sorted(want - ops), sorted(ops)))
    data = os.path.join(work, "nhwc_cnn", "test_data_set_0")
    os.makedirs(data, exist_ok=True)
    tensors = [("input_0", "input", x)] + [
        ("output_%d" % k, n, r) for k, (n, r) in enumerate(zip(["mean_hw", "max_c"], refs))]
    for f, n, t in tensors:
        with open(os.path.join(data, f + ".pb"), "wb") as fh:
            fh.write(numpy_helper.from_array(t.numpy().astype(np.float32), n).SerializeToString())
    return path, data


def check(bin_dir, work, name, model, data, layout, convs, rtol, atol):
    """True when the plan reports `convs` channels-last convs and matches the reference."""
    t0 = time.time()
    plan = os.path.join(work, "%s.%s.plan" % (name, layout))
    p = subprocess.run([os.path.join(bin_dir, "kilnc"), model, "-o", plan, "--target", "host",
                        "--layout=" + layout, "-q", "--json"],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
    if p.returncode != 0:
        print("FAIL %s %s: kilnc exited %d\n%s" % (name, layout, p.returncode, p.stderr))
        return False
    got = json.loads(p.stdout).get("nhwc_convs")
    if got != convs:
        print("FAIL %s %s: %s channels-last convs, expected %d" % (name, layout, got, convs))
        return False
    p = subprocess.run([os.path.join(bin_dir, "kiln-run"), plan, "--input-dir", data,
                        "--compare", data, "--rtol", repr(rtol), "--atol", repr(atol), "--json"],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
    os.unlink(plan)
    if p.returncode not in (0, 1):
        print("FAIL %s %s: kiln-run exited %d\n%s" % (name, layout, p.returncode, p.stderr))
        return False
    rep = json.loads(p.stdout)
    parts = ["%s: max_abs %.3g, %d/%d mismatches" % (
        o["name"], o["compare"]["max_abs_err"], o["compare"]["mismatches"],
        o["compare"]["elements"]) for o in rep["outputs"]]
    ok = p.returncode == 0 and rep.get("ok")
    print("%-4s %-14s %s  %d convs channels-last | %s (rtol %g atol %g, %.0f s)" % (
        "ok" if ok else "FAIL", name, layout, got, "; ".join(parts), rtol, atol,
        time.time() - t0), flush=True)
    return ok


def main():
    if len(sys.argv) != 4:
        sys.exit("usage: check_nhwc.py BIN_DIR MODELS_DIR WORK_DIR")
    bin_dir, models, work = sys.argv[1:]
    os.makedirs(work, exist_ok=True)
    r50 = os.path.join(models, "static", "resnet50_op13")
    if not os.path.isfile(os.path.join(r50, "test_data_set_0", "output_0.pb")):
        sys.exit("FAIL: %s.onnx and its test_data_set_0 are missing: run the models.torchvision "
                 "test first" % r50)
    cnn, cnn_data = export_cnn(work)
    ok = True
    for layout, convs in (("nchw", 0), ("nhwc", 4)):
        ok &= check(bin_dir, work, "nhwc_cnn", cnn, cnn_data, layout, convs, 1e-3, 1e-5)
    ok &= check(bin_dir, work, "resnet50_op13", r50 + ".onnx",
                os.path.join(r50, "test_data_set_0"), "nhwc", 53, 1e-3, 1e-4)
    print("models.nhwc: %s" % ("ok" if ok else "FAILED"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
