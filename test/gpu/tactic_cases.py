#!/usr/bin/env python3
"""Tensor-core tactic cases: small seeded Conv / MatMul / Gemm models at fp16, bf16 and tf32.

Numeric test for the conv/matmul kernels (tensor cores, fp16/bf16 in, f32 accumulation) across
the shapes that break tiled kernels: channel and K counts that are and are not multiples of
8/16/32/64, K = 1 and 3, odd spatial sizes, strides, dilation, asymmetric kernels, batch > 1,
batched MatMul with both operands as graph inputs, fused bias / Relu / Gelu / residual Add.
Like gpu_suite.py it has two halves:

  gen  (build machine)  writes ~50 models (opset 17, one op family each, weights as
                        initializers) x precisions into OUT/CASE_PREC/ in the ONNX test-data
                        layout (model.onnx, test_data_set_0/input_K.pb, output_0.pb), compiles
                        each with `kilnc --target T --precision P -q [--kilnc-arg ...]` into
                        model.plan and records
                        the result (ok, or kilnc's error) and the case's tolerances in
                        OUT/manifest.json. Needs numpy, onnx and torch (float64 conv reference).
  run  (GPU machine)    runs every compiled plan with `kiln-run --device gpu --input-dir D
                        --compare D --rtol R --atol A --json` and reports pass / mismatch (max
                        abs/rel error, first mismatching index) / error / timeout / crash, plus
                        the cases that did not compile. Exit 1 on any failure. Standard library
                        only (kiln-run's report is read as gpu_suite.py reads it, imported by path).

References are float64 (numpy; conv through torch.nn.functional.conv2d in float64) on the graph
inputs and initializers first rounded to the plan's precision (fp16: float16 round trip; bf16:
round to nearest even), which is what kiln does to inputs and weights; kiln then accumulates in
f32 and rounds each op result to fp16/bf16, which the tolerances cover (see TOLERANCES below).

  /usr/bin/python3 test/gpu/tactic_cases.py gen --build-dir build --target sm_90a --out .device/tactics
  python3 test/gpu/tactic_cases.py run --kiln-run build-rt/bin/kiln-run --dir .device/tactics
Check the halves without a GPU: `gen --target sm_90a,host` then `run --device host` (the host
target computes the same fp16/bf16 math: every case must pass there).
"""

import argparse
import collections
import concurrent.futures
import importlib.util
import json
import os
import re
import shutil
import sys
import time
import zlib

sys.dont_write_bytecode = True  # keep test/ free of __pycache__

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
MANIFEST = "manifest.json"
SIZE_LIMIT = 15 * 1000 * 1000  # the whole pack travels to the GPU machine with the tree
PRECISIONS = ("fp16", "bf16", "tf32")


def load_gpu_suite():
    """test/gpu/gpu_suite.py as a module (kiln-run report reading, run_conformance helpers)."""
    spec = importlib.util.spec_from_file_location("kiln_gpu_suite",
                                                  os.path.join(HERE, "gpu_suite.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


gs = load_gpu_suite()
rc_mod = gs.rc_mod

# ------------------------------------------------------------------------------------ TOLERANCES
#
# kiln-run checks |a - b| <= atol + rtol * |b| per element; M = max |ref| of the case.
#   fp16: rtol 4e-3 (1e-2 when op results are rounded twice or more before the output: a bias or
#         residual Add after the contraction, the Gelu chain), atol 2e-3 * M + 1e-3.
#   bf16: rtol 3e-2, atol 1.6e-2 * M + 1e-2.
#   tf32: rtol 2e-3, atol 1e-3 * M + 1e-5. Values stay f32; only the conv/matmul operands are
#         rounded to tf32 (10 mantissa bits, ties away from zero), as the reference's are (it
#         rounds every input and initializer: a bias too, off by 2^-11 of itself at most), so
#         the error is f32 accumulation and op results in f32: far inside. The host target
#         (plain f32, unrounded operands) is off by ~2^-12 * M over K products of random sign,
#         a quarter of atol; a dropped K slice (s = 8 of K = 64: ~0.12 * M) is 100x outside.
# Why they pass a correct answer: rounding the result costs 2^-11 = 4.9e-4 (fp16) / 2^-8 = 3.9e-3
# (bf16) relative, far inside rtol; f32 accumulation over K <= 4608 adds < 1e-6 * M; an
# intermediate rounding before a bias/residual Add (error <= half an ulp of the pre-Add value,
# <= 2^-11 * M resp. 2^-8 * M) can be large relative to a result that cancels to ~0, which the
# M-proportional atol (4x / 4x that bound) absorbs.
# Why they fail a wrong answer: inputs are U[-1, 1) (variance 1/3) and weights U[-1, 1)/sqrt(K),
# so every output of a contraction over K has std ~ 1/3 and M ~ 1-1.5. Dropping a slice of s of
# the K terms (a missing K tile, a lost channel group, a wrong tail) changes an output by a term
# of std ~ (1/3) * sqrt(s / K): s = 8 of K = 64 gives ~0.12 per element against atol ~4e-3 (fp16)
# / ~3e-2 (bf16), i.e. 30x / 4x outside on a typical element, and the worst of hundreds of
# elements (3-4 sigma) further still; s = 8 of K = 512 gives std 0.042 (worst ~0.15, 5x the bf16
# tolerance). A single lost K element of K = 512 (std 0.015) is caught at fp16 (atol ~4e-3) but
# is at the edge of what bf16 can resolve.
# `gen` checks this for every case: it evaluates the reference with the last min(8, K/2) K slice
# of the weight (or second operand) zeroed and records in the manifest (wrong_excess) how many
# times the tolerance the worst element of that wrong answer is off; it warns when < 2. Measured
# (sm_90a,host pack): wrong_excess >= 5.0 (matmul_64x512x64_bf16), >= 37 for fp16 cases, while
# the host plans' actual errors are <= 0.15 of the tolerance (median 0.06).

FP16_RTOL, FP16_RTOL_CHAINED = 4e-3, 1e-2
BF16_RTOL = 3e-2
TF32_RTOL = 2e-3


def tolerances(prec, max_ref, chained):
    if prec == "fp16":
        return (FP16_RTOL_CHAINED if chained else FP16_RTOL), 2e-3 * max_ref + 1e-3
    if prec == "tf32":
        return TF32_RTOL, 1e-3 * max_ref + 1e-5
    return BF16_RTOL, 1.6e-2 * max_ref + 1e-2


def dir_size(path):
    return gs.dir_size(path)


def mb(n):
    return gs.mb(n)


# ------------------------------------------------------------------------------------------ gen
# numpy / onnx / torch are imported inside the gen half only.

def rounded(a, prec):
    """float32 array -> float64 values after rounding to prec (what kiln stores/computes)."""
    import numpy as np
    a = np.ascontiguousarray(a, dtype=np.float32)
    if prec == "fp16":
        return a.astype(np.float16).astype(np.float64)
    if prec == "bf16":  # round to nearest even on the upper 16 bits (no NaN/Inf here)
        u = a.view(np.uint32).astype(np.uint64)
        u = (u + 0x7FFF + ((u >> 16) & 1)) & 0xFFFF0000
        return u.astype(np.uint32).view(np.float32).astype(np.float64)
    if prec == "tf32":  # cvt.rna.tf32.f32: ties away from zero on the upper 19 bits
        u = a.view(np.uint32).astype(np.uint64)
        u = (u + 0x1000) & 0xFFFFE000
        return u.astype(np.uint32).view(np.float32).astype(np.float64)
    return a.astype(np.float64)


class Case:
    """One model: graph inputs, initializers, nodes, output; evaluated in float64 by evaluate()."""

    def __init__(self, name, family, chained=False):
        self.name, self.family, self.chained = name, family, chained
        self.rng = None
        self.inputs = []   # (name, float32 array)
        self.inits = collections.OrderedDict()
        self.nodes = []    # (op, inputs, output, attrs)
        self.output = None
        self.kslice = None  # (tensor, axis): the contracted axis of an operand, for wrong_excess
        self._n = 0

    def seed(self):
        import numpy as np
        self.rng = np.random.RandomState(zlib.crc32(self.name.encode()) & 0x7FFFFFFF)
        return self

    def uniform(self, shape, scale=1.0):
        import numpy as np
        return (self.rng.uniform(-1.0, 1.0, size=shape) * scale).astype(np.float32)

    def tmp(self):
        self._n += 1
        return "t%d" % self._n

    def node(self, op, inputs, attrs=None, out=None):
        out = out or self.tmp()
        self.nodes.append((op, list(inputs), out, dict(attrs or {})))
        return out

    def const(self, name, value):
        import numpy as np
        self.inits[name] = np.array(value, dtype=np.float32)
        return name


def evaluate(case, vals):
    """float64 reference of case's graph on vals (name -> float64 array)."""
    import numpy as np
    import torch
    env = dict(vals)
    for op, ins, out, at in case.nodes:
        a = [env[i] for i in ins]
        if op == "Conv":
            p = at.get("pads", [0, 0, 0, 0])
            assert p[0] == p[2] and p[1] == p[3], "symmetric pads only"
            t = torch.nn.functional.conv2d(
                torch.from_numpy(a[0]), torch.from_numpy(a[1]),
                torch.from_numpy(a[2]) if len(a) > 2 else None,
                stride=tuple(at.get("strides", [1, 1])), padding=(p[0], p[1]),
                dilation=tuple(at.get("dilations", [1, 1])), groups=at.get("group", 1))
            env[out] = t.numpy()
        elif op == "MatMul":
            env[out] = np.matmul(a[0], a[1])
        elif op == "Gemm":
            x = a[0].T if at.get("transA") else a[0]
            w = a[1].T if at.get("transB") else a[1]
            r = at.get("alpha", 1.0) * (x @ w)
            env[out] = r + at.get("beta", 1.0) * a[2] if len(a) > 2 else r
        elif op == "Add":
            env[out] = a[0] + a[1]
        elif op == "Mul":
            env[out] = a[0] * a[1]
        elif op == "Relu":
            env[out] = np.maximum(a[0], 0.0)
        elif op == "Tanh":
            env[out] = np.tanh(a[0])
        else:
            raise ValueError("no reference for %s" % op)
    return env[case.output]


# --- case builders -------------------------------------------------------------------------------

def conv_case(name, n, c, h, w, f, k, stride=1, pad=(0, 0), dil=1, bias=True, post=None,
              group=1):
    """Conv NCHW [n,c,h,w] * W[f,c/group,kh,kw]; post: None, 'relu' or 'residual' (Add input,
    Relu)."""
    kh, kw = k
    family = ("conv" if group == 1 else
              "depthwise conv" if group == c == f else "grouped conv")
    case = Case(name, family, chained=post == "residual").seed()
    x = case.uniform((n, c, h, w))
    case.inputs.append(("x", x))
    cg = c // group
    case.inits["w"] = case.uniform((f, cg, kh, kw), 1.0 / (cg * kh * kw) ** 0.5)
    ins = ["x", "w"]
    if bias:
        case.inits["b"] = case.uniform((f,), 0.5)
        ins.append("b")
    attrs = {"kernel_shape": [kh, kw], "strides": [stride, stride],
             "pads": [pad[0], pad[1], pad[0], pad[1]], "dilations": [dil, dil], "group": group}
    y = case.node("Conv", ins, attrs)
    oh = (h + 2 * pad[0] - dil * (kh - 1) - 1) // stride + 1
    ow = (w + 2 * pad[1] - dil * (kw - 1) - 1) // stride + 1
    if post == "residual":
        case.inputs.append(("r", case.uniform((n, f, oh, ow))))
        y = case.node("Add", [y, "r"])
        y = case.node("Relu", [y])
    elif post == "relu":
        y = case.node("Relu", [y])
    case.nodes[-1] = case.nodes[-1][:2] + ("y",) + case.nodes[-1][3:]
    case.output, case.kslice = "y", ("w", 1)
    return case


def gelu_tanh(case, h):
    """0.5 h (1 + tanh(sqrt(2/pi) (h + 0.044715 h^3))), as exporters write it."""
    h3 = case.node("Mul", [case.node("Mul", [h, h]), h])
    u = case.node("Add", [h, case.node("Mul", [h3, case.const("c_0044715", 0.044715)])])
    t = case.node("Tanh", [case.node("Mul", [u, case.const("c_sqrt2pi", 0.7978845608028654)])])
    p = case.node("Add", [t, case.const("c_one", 1.0)])
    return case.node("Mul", [case.node("Mul", [h, case.const("c_half", 0.5)]), p])


def matmul_case(name, a_shape, b_shape, b_input=False, bias=False, post=None):
    """MatMul a x b (b an initializer unless b_input), optional Add bias[N] and Relu/Gelu."""
    k = a_shape[-1]
    case = Case(name, "bmm" if b_input else "matmul",
                chained=bias or post == "gelu").seed()
    case.inputs.append(("a", case.uniform(a_shape)))
    if b_input:
        case.inputs.append(("b", case.uniform(b_shape, 1.0 / k ** 0.5)))
    else:
        case.inits["b"] = case.uniform(b_shape, 1.0 / k ** 0.5)
    y = case.node("MatMul", ["a", "b"])
    if bias:
        case.inits["bias"] = case.uniform((b_shape[-1],), 0.5)
        y = case.node("Add", [y, "bias"])
    if post == "relu":
        y = case.node("Relu", [y])
    elif post == "gelu":
        y = gelu_tanh(case, y)
    case.nodes[-1] = case.nodes[-1][:2] + ("y",) + case.nodes[-1][3:]
    case.output, case.kslice = "y", ("b", len(b_shape) - 2)
    return case


def gemm_case(name, m, k, n, post=None):
    """Gemm(a[M,K], w[N,K], bias[N], transB=1): a Linear layer; post None or 'relu'."""
    case = Case(name, "gemm").seed()
    case.inputs.append(("a", case.uniform((m, k))))
    case.inits["w"] = case.uniform((n, k), 1.0 / k ** 0.5)
    case.inits["bias"] = case.uniform((n,), 0.5)
    y = case.node("Gemm", ["a", "w", "bias"], {"transB": 1, "alpha": 1.0, "beta": 1.0})
    if post == "relu":
        y = case.node("Relu", [y])
    case.nodes[-1] = case.nodes[-1][:2] + ("y",) + case.nodes[-1][3:]
    case.output, case.kslice = "y", ("w", 1)
    return case


def all_cases():
    C = conv_case
    M = matmul_case
    cases = [
        # Conv 1x1
        C("conv1x1_c16_f32_14x14", 1, 16, 14, 14, 32, (1, 1)),
        C("conv1x1_c3_f7_5x7_nobias", 1, 3, 5, 7, 7, (1, 1), bias=False),
        C("conv1x1_s2_c64_f130_14x14", 1, 64, 14, 14, 130, (1, 1), stride=2),
        C("conv1x1_s2_c96_f64_b3_14x14", 3, 96, 14, 14, 64, (1, 1), stride=2),
        C("conv1x1_c64_f130_b3_1x1", 3, 64, 1, 1, 130, (1, 1)),
        C("conv1x1_c5_f1_b3_5x7_relu", 3, 5, 5, 7, 1, (1, 1), post="relu"),
        # Conv 3x3
        C("conv3x3_p1_c3_f16_28x28", 1, 3, 28, 28, 16, (3, 3), pad=(1, 1)),
        C("conv3x3_p1_c16_f32_b3_14x14", 3, 16, 14, 14, 32, (3, 3), pad=(1, 1)),
        C("conv3x3_s2_p1_c32_f64_14x14", 1, 32, 14, 14, 64, (3, 3), stride=2, pad=(1, 1)),
        C("conv3x3_p1_c5_f7_5x7_nobias", 1, 5, 5, 7, 7, (3, 3), pad=(1, 1), bias=False),
        C("conv3x3_p2_d2_c16_f32_14x14", 1, 16, 14, 14, 32, (3, 3), pad=(2, 2), dil=2),
        C("conv3x3_p1_c64_f64_14x14_relu", 1, 64, 14, 14, 64, (3, 3), pad=(1, 1), post="relu"),
        C("conv3x3_c16_f130_5x7", 1, 16, 5, 7, 130, (3, 3)),
        C("conv3x3_p1_c96_f1_5x7", 1, 96, 5, 7, 1, (3, 3), pad=(1, 1)),
        C("conv3x3_p1_c16_f16_b3_1x1", 3, 16, 1, 1, 16, (3, 3), pad=(1, 1)),
        C("conv3x3_s2_p1_c32_f130_5x7_nobias", 1, 32, 5, 7, 130, (3, 3), stride=2, pad=(1, 1),
          bias=False),
        C("conv3x3_p1_c16_f16_b3_28x28_relu", 3, 16, 28, 28, 16, (3, 3), pad=(1, 1), post="relu"),
        # Grouped convs (ResNeXt, RegNet): channels-last, one implicit GEMM per group
        C("gconv3x3_g2_p1_c64_f128_14x14_relu", 1, 64, 14, 14, 128, (3, 3), pad=(1, 1),
          post="relu", group=2),
        C("gconv3x3_g4_s2_p1_c32_f32_b3_14x14", 3, 32, 14, 14, 32, (3, 3), stride=2, pad=(1, 1),
          group=4),
        C("gconv3x3_g8_p1_c128_f128_28x28_res", 1, 128, 28, 28, 128, (3, 3), pad=(1, 1),
          post="residual", group=8),
        C("gconv3x3_g32_p1_c256_f256_b8_14x14_relu", 8, 256, 14, 14, 256, (3, 3), pad=(1, 1),
          post="relu", group=32),
        C("gconv3x3_g32_p1_c128_f128_56x56_relu", 1, 128, 56, 56, 128, (3, 3), pad=(1, 1),
          post="relu", group=32),
        C("gconv3x3_g3_c12_f9_5x7_nobias", 1, 12, 5, 7, 9, (3, 3), bias=False, group=3),
        C("gconv1x1_g2_c16_f32_b3_7x7", 3, 16, 7, 7, 32, (1, 1), group=2),
        C("gconv3x3_g8_p1_c8_f16_14x14_mult2", 1, 8, 14, 14, 16, (3, 3), pad=(1, 1), group=8),
        # Depthwise convs (MobileNet, EfficientNet): one direct kernel (kiln-gpu-depthwise-conv),
        # 8 channels a thread where C allows, else 1; padding, strides, dilation, epilogues
        C("dwconv3x3_p1_c32_28x28_relu", 1, 32, 28, 28, 32, (3, 3), pad=(1, 1), post="relu",
          group=32),
        C("dwconv3x3_s2_p1_c64_b3_14x14", 3, 64, 14, 14, 64, (3, 3), stride=2, pad=(1, 1),
          group=64),
        C("dwconv5x5_p2_c96_14x14_relu", 1, 96, 14, 14, 96, (5, 5), pad=(2, 2), post="relu",
          group=96),
        C("dwconv3x3_p2_d2_c16_14x14", 1, 16, 14, 14, 16, (3, 3), pad=(2, 2), dil=2, group=16),
        C("dwconv3x3_p1_c20_7x9_nobias", 1, 20, 7, 9, 20, (3, 3), pad=(1, 1), bias=False,
          group=20),
        C("dwconv7x7_p3_c24_14x14_res", 1, 24, 14, 14, 24, (7, 7), pad=(3, 3), post="residual",
          group=24),
        C("dwconv3x3_c8_5x5", 1, 8, 5, 5, 8, (3, 3), group=8),
        # Conv 7x7 stride 2 (ResNet stem), asymmetric kernels
        C("conv7x7_s2_p3_c3_f64_28x28_relu", 1, 3, 28, 28, 64, (7, 7), stride=2, pad=(3, 3),
          post="relu"),
        C("conv7x7_s2_p3_c5_f16_b3_14x14_nobias", 3, 5, 14, 14, 16, (7, 7), stride=2, pad=(3, 3),
          bias=False),
        C("conv1x3_p01_c16_f32_14x14", 1, 16, 14, 14, 32, (1, 3), pad=(0, 1)),
        C("conv3x1_p10_c32_f7_b3_5x7", 3, 32, 5, 7, 7, (3, 1), pad=(1, 0)),
        # Conv + Add(residual) + Relu
        C("conv3x3_p1_c32_f32_14x14_residual", 1, 32, 14, 14, 32, (3, 3), pad=(1, 1),
          post="residual"),
        C("conv1x1_c64_f64_b3_5x7_residual", 3, 64, 5, 7, 64, (1, 1), post="residual"),
        # MatMul 2-D, weight initializer
        M("matmul_1x64x128", (1, 64), (64, 128)),
        M("matmul_7x1x33", (7, 1), (1, 33)),
        M("matmul_16x3x16", (16, 3), (3, 16)),
        M("matmul_33x100x7", (33, 100), (100, 7)),
        M("matmul_64x257x64", (64, 257), (257, 64)),
        M("matmul_100x33x257", (100, 33), (33, 257)),
        M("matmul_64x512x64", (64, 512), (512, 64)),
        M("matmul_257x128x1", (257, 128), (128, 1)),
        M("matmul_512x7x16", (512, 7), (7, 16)),
        M("matmul_in_64x64x33", (64, 64), (64, 33), b_input=True),
        # MatMul 3-D x 2-D (weight initializer)
        M("matmul3d_2x7x64x33", (2, 7, 64), (64, 33)),
        M("matmul3d_3x128x64x128", (3, 128, 64), (64, 128)),
        M("matmul3d_1x33x257x100", (1, 33, 257), (257, 100)),
        # batched 3-D x 3-D, both graph inputs
        M("bmm_4x128x64x128", (4, 128, 64), (4, 64, 128), b_input=True),  # attention QK^T
        M("bmm_2x7x33x16", (2, 7, 33), (2, 33, 16), b_input=True),
        M("bmm_4x100x3x64", (4, 100, 3), (4, 3, 64), b_input=True),
        M("bmm_12x33x128x16", (12, 33, 128), (12, 128, 16), b_input=True),
        # Gemm transB=1 + bias (Linear)
        gemm_case("gemm_tb_16x128x100", 16, 128, 100),
        gemm_case("gemm_tb_1x257x64", 1, 257, 64),
        gemm_case("gemm_tb_33x64x130_relu", 33, 64, 130, post="relu"),
        # MatMul + Add bias + Relu / Gelu (tanh formula)
        M("matmul_33x100x64_bias_relu", (33, 100), (100, 64), bias=True, post="relu"),
        M("matmul_7x64x128_bias_gelu", (7, 64), (64, 128), bias=True, post="gelu"),
        M("matmul3d_3x16x128x257_bias_gelu", (3, 16, 128), (128, 257), bias=True, post="gelu"),
        # Contiguous extents that are multiples of 8 (16-byte loads) but not of a tile: the
        # shapes the sm_90a wgmma kernel takes (cp.async with zero fill, bounds-checked stores);
        # A contiguous along M (1x1 conv) or K, B along N or K, K from one chunk to 16 steps.
        C("conv1x1_c24_f40_b2_7x8", 2, 24, 7, 8, 40, (1, 1)),
        C("conv1x1_c64_f96_16x16_residual", 1, 64, 16, 16, 96, (1, 1), post="residual"),
        M("matmul_200x136x264", (200, 136), (136, 264)),
        M("matmul_128x520x72_bias_relu", (128, 520), (520, 72), bias=True, post="relu"),
        M("matmul_72x8x136", (72, 8), (8, 136)),
        gemm_case("gemm_tb_136x200x72", 136, 200, 72),
        M("bmm_5x72x96x40", (5, 72, 96), (5, 96, 40), b_input=True),
        # More tiles than a GPU's CTAs at 64x128: persistent CTAs take several each.
        M("bmm_24x136x72x136", (24, 136, 72), (24, 72, 136), b_input=True),
    ]
    names = [c.name for c in cases]
    assert len(names) == len(set(names)), "duplicate case names"
    return cases


# --- writing and compiling -----------------------------------------------------------------------

def to_onnx(case):
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    nodes = []
    for i, (op, ins, out, at) in enumerate(case.nodes):
        nodes.append(helper.make_node(op, ins, [out], name="%s_%d" % (op.lower(), i), **at))
    y_shape = list(case.ref_shape)
    graph = helper.make_graph(
        nodes, case.name,
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, list(a.shape)) for n, a in case.inputs],
        [helper.make_tensor_value_info(case.output, TensorProto.FLOAT, y_shape)],
        initializer=[numpy_helper.from_array(a, n) for n, a in case.inits.items()])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)],
                              producer_name="kiln tactic_cases.py")
    onnx.checker.check_model(model)
    return model


def write_case(case, prec, dest):
    """Model, data and reference of case at prec into dest; returns the manifest entry."""
    import numpy as np
    import onnx
    from onnx import numpy_helper
    vals = {n: rounded(a, prec) for n, a in case.inputs}
    vals.update({n: rounded(a, prec) for n, a in case.inits.items()})
    ref = evaluate(case, vals)
    case.ref_shape = ref.shape
    max_ref = float(np.max(np.abs(ref)))
    rtol, atol = tolerances(prec, max_ref, case.chained)
    # A wrong answer the tolerance must reject: the last min(8, K/2) K slice dropped.
    t, axis = case.kslice
    kdim = vals[t].shape[axis]
    s = min(8, max(1, kdim // 2))
    bad = dict(vals)
    bad[t] = vals[t].copy()
    idx = [slice(None)] * bad[t].ndim
    idx[axis] = slice(kdim - s, kdim)
    bad[t][tuple(idx)] = 0.0
    wrong = evaluate(case, bad)
    excess = float(np.max(np.abs(wrong - ref) / (atol + rtol * np.abs(ref))))

    os.makedirs(os.path.join(dest, "test_data_set_0"))
    onnx.save(to_onnx(case), os.path.join(dest, "model.onnx"))
    for i, (n, a) in enumerate(case.inputs):
        with open(os.path.join(dest, "test_data_set_0", "input_%d.pb" % i), "wb") as f:
            f.write(numpy_helper.from_array(a, n).SerializeToString())
    with open(os.path.join(dest, "test_data_set_0", "output_0.pb"), "wb") as f:
        f.write(numpy_helper.from_array(ref.astype(np.float32), case.output).SerializeToString())
    return {"family": case.family, "precision": prec, "chained": case.chained,
            "rtol": rtol, "atol": float("%.4g" % atol), "max_abs_ref": round(max_ref, 6),
            "inputs": {n: list(a.shape) for n, a in case.inputs},
            "output": list(ref.shape), "ops": [op for op, _, _, _ in case.nodes],
            "wrong_excess": round(excess, 2), "wrong_slice": "%s axis %d: last %d of %d"
            % (t, axis, s, kdim), "sets": ["test_data_set_0"]}


def compile_case(args, name, entry):
    dest = os.path.join(args.out, name)
    cmd = [args.kilnc, os.path.join(dest, "model.onnx"), "-o", os.path.join(dest, "model.plan"),
           "--target", args.target, "--precision", entry["precision"], "-q"] + args.kilnc_arg
    t0 = time.time()
    rc, out, err = rc_mod.run_tool(cmd, args.compile_timeout)
    entry["compile_s"] = round(time.time() - t0, 3)
    paths = [dest, args.out]
    if rc == 0 and os.path.isfile(os.path.join(dest, "model.plan")):
        entry.update(status="ok", plans={"test_data_set_0": "model.plan"},
                     plan_bytes=os.path.getsize(os.path.join(dest, "model.plan")))
    elif rc is None:
        entry.update(status="timeout", error="kilnc timed out (%d s)" % args.compile_timeout)
    elif rc < 0:
        entry.update(status="crash", error="kilnc: %s: %s" % (
            rc_mod.signal_name(rc), rc_mod.short_reason(err, paths)), error_text=err.strip()[-4000:])
    else:
        entry.update(status="compile_error", error=rc_mod.short_reason(err + out, paths),
                     error_text=(err + out).strip()[-4000:])
    return entry


def cmd_gen(args):
    args.kilnc = args.kilnc or os.path.join(args.build_dir, "bin", "kilnc")
    if not os.access(args.kilnc, os.X_OK):
        sys.exit("error: %s is not an executable" % args.kilnc)
    precs = [p.strip() for p in args.precisions.split(",") if p.strip()]
    for p in precs:
        if p not in PRECISIONS:
            sys.exit("error: --precisions: %s is not one of %s" % (p, ", ".join(PRECISIONS)))
    if os.path.exists(os.path.join(args.out, MANIFEST)) or not os.path.exists(args.out):
        shutil.rmtree(args.out, ignore_errors=True)  # a previous pack: start clean
    elif os.listdir(args.out):
        sys.exit("error: %s exists, is not empty and has no %s; not overwriting it"
                 % (args.out, MANIFEST))
    os.makedirs(args.out, exist_ok=True)

    start = time.time()
    entries = {}
    for case in all_cases():
        for p in precs:
            name = "%s_%s" % (case.name, p)
            if args.filter and not re.search(args.filter, name):
                continue
            entries[name] = write_case(case, p, os.path.join(args.out, name))
            if entries[name]["wrong_excess"] < 2:
                print("warning: %s: a dropped K slice is only %.2fx the tolerance"
                      % (name, entries[name]["wrong_excess"]))
    if not entries:
        sys.exit("error: no case matches --filter %s" % args.filter)
    gen_s = time.time() - start
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futures = {pool.submit(compile_case, args, n, e): n for n, e in entries.items()}
        for i, fut in enumerate(concurrent.futures.as_completed(futures), 1):
            n = futures[fut]
            try:
                fut.result()
            except Exception as ex:  # noqa: BLE001
                entries[n].update(status="gen_error", error="%s: %s" % (type(ex).__name__, ex))
            e = entries[n]
            if args.verbose or e["status"] != "ok":
                print("[%d/%d] %s %s%s" % (i, len(entries), n, e["status"],
                                           ": " + e["error"] if e.get("error") else ""), flush=True)
    elapsed = time.time() - start

    manifest = {
        "format": 1,
        "suite": "tactic_cases",
        "target": args.target,
        "precisions": precs,
        "filter": args.filter,
        "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "kilnc": os.path.abspath(args.kilnc),
        "cases": {n: entries[n] for n in sorted(entries)},
    }
    with open(os.path.join(args.out, MANIFEST), "w") as f:
        json.dump(manifest, f, indent=1, sort_keys=True)
        f.write("\n")

    c = collections.Counter(e["status"] for e in entries.values())
    size = dir_size(args.out)
    bad = sorted(n for n, e in entries.items() if e["status"] != "ok")
    if bad:
        print("\ncases that did not compile for %s (%d):" % (args.target, len(bad)))
        for n in bad:
            print("  %s: %s: %s" % (n, entries[n]["status"], entries[n].get("error", "")))
    weakest = min(entries.items(), key=lambda kv: kv[1]["wrong_excess"])
    print("\ngen: %d of %d cases compiled for %s%s in %.0f s (models and references %.0f s, "
          "%d jobs)" % (c["ok"], len(entries), args.target,
                        "".join(", %d %s" % (v, k) for k, v in sorted(c.items()) if k != "ok"),
                        elapsed, gen_s, args.jobs))
    print("gen: a dropped K slice is >= %.1fx the tolerance in every case (least: %s)"
          % (weakest[1]["wrong_excess"], weakest[0]))
    print("gen: %s in %s (%d files)%s" % (
        mb(size), args.out, sum(len(fs) for _, _, fs in os.walk(args.out)),
        "" if size < SIZE_LIMIT else "  -- WARNING: over %s" % mb(SIZE_LIMIT)))
    return 1 if bad else 0


# ------------------------------------------------------------------------------------------ run

def unravel(index, shape):
    """Flat index -> [i, j, ...] in a row-major shape (None when it does not fit)."""
    if index is None or index < 0 or not shape:
        return None
    out = []
    for d in reversed(shape):
        if d <= 0:
            return None
        out.append(index % d)
        index //= d
    return list(reversed(out)) if index == 0 else None


def run_case(args, name, entry):
    """(status, reason, seconds) of one compiled case, reading kiln-run's --json report as
    gpu_suite.run_case does; a mismatch says max abs/rel error and the first bad element."""
    case = os.path.join(args.dir, name)
    paths = [case, args.dir]
    rtol, atol = entry["rtol"], entry["atol"]
    t0 = time.time()
    worst = None
    for s in entry.get("sets") or []:
        d = os.path.join(case, s)
        plan = os.path.join(case, (entry.get("plans") or {}).get(s, "model.plan"))
        cmd = [args.kiln_run, plan, "--device", args.device, "--input-dir", d, "--compare", d,
               "--rtol", repr(rtol), "--atol", repr(atol), "--json"] + args.kiln_run_arg
        rc, out, err = rc_mod.run_tool(cmd, args.timeout)
        dt = time.time() - t0
        if rc is None:
            return "timeout", "kiln-run timed out (%d s)" % args.timeout, dt
        if rc < 0:
            return "crash", "kiln-run: %s: %s" % (
                rc_mod.signal_name(rc), rc_mod.short_reason(err or out or "no output", paths)), dt
        try:
            rep = json.loads(out)
        except ValueError:
            rep = None
        if rc not in (0, 1):
            msg = rep.get("error") if isinstance(rep, dict) else None
            return "error", "kiln-run exit %d: %s" % (
                rc, rc_mod.short_reason(msg, paths) if msg else rc_mod.run_error(err + out, paths)), dt
        if not isinstance(rep, dict):
            return "error", "kiln-run printed no JSON report: " + rc_mod.short_reason(
                err + out, paths), dt
        where = rep.get("device")
        if where and where != args.device:
            return "error", "ran on the %s, not the %s (%s)" % (
                where, args.device, rep.get("device_note", "no note")), dt
        if rc == 0:
            continue
        for o in rep.get("outputs", []):
            c = o.get("compare") or {}
            if c.get("ok", True):
                continue
            e = c.get("max_abs_err")
            if c.get("nan_mismatches") or c.get("error") or e is None:
                e = float("inf")
            if worst is None or e > worst["e"]:
                worst = {"e": e, "o": o, "c": c}
        if worst is None:
            worst = {"e": float("inf"), "o": {}, "c": {"error": "exit 1 without a failed compare"}}
    dt = time.time() - t0
    if worst is None:
        return "pass", "", dt
    o, c = worst["o"], worst["c"]
    if c.get("error"):
        what = c["error"]
    elif c.get("nan_mismatches"):
        what = "%d NaN mismatches" % c["nan_mismatches"]
    else:
        what = "max abs err %.4g, max rel err %.4g" % (c.get("max_abs_err", float("nan")),
                                                      c.get("max_rel_err", float("nan")))
    at = unravel(c.get("first_mismatch"), o.get("shape"))
    return "mismatch", "%s (output '%s' %s, %d/%d elements bad, first at %s; max|ref| %g, "\
        "rtol %g atol %g)" % (what, o.get("name", "?"), o.get("shape"), c.get("mismatches", 0),
                              c.get("elements", 0), at if at is not None else c.get("first_mismatch"),
                              entry.get("max_abs_ref", float("nan")), rtol, atol), dt


RUN_STATUSES = gs.RUN_STATUSES


def cmd_run(args):
    if not os.access(args.kiln_run, os.X_OK):
        sys.exit("error: %s is not an executable" % args.kiln_run)
    try:
        with open(os.path.join(args.dir, MANIFEST)) as f:
            manifest = json.load(f)
    except (OSError, ValueError) as e:
        sys.exit("error: cannot read %s: %s (run `gen` first)" % (os.path.join(args.dir, MANIFEST), e))
    cases = {n: e for n, e in manifest.get("cases", {}).items()
             if not args.filter or re.search(args.filter, n)}
    results = {n: ("not compiled", "%s: %s" % (e.get("status"), e.get("error", "")), 0.0)
               for n, e in cases.items() if e.get("status") != "ok"}
    todo = [(n, e) for n, e in sorted(cases.items()) if e.get("status") == "ok"]
    print("tactic cases: %d compiled plans (target %s, made %s) on --device %s with %s, %d workers"
          % (len(todo), manifest.get("target"), manifest.get("created"), args.device,
             args.kiln_run, args.jobs), flush=True)
    elapsed = gs.run_cases(todo, lambda n, e: run_case(args, n, e), args.jobs,
                           "tactic cases", args.device, args.verbose, results)
    if elapsed is None:
        return 2

    c = collections.Counter(s for s, _, _ in results.values())
    print()
    groups = collections.defaultdict(collections.Counter)
    for n, (s, _, _) in results.items():
        e = cases[n]
        groups["%s %s" % (e.get("family", "?"), e.get("precision", "?"))][s] += 1
    for g in sorted(groups):
        cf = groups[g]
        print("  %-14s %s, of %d" % (g, ", ".join("%d %s" % (cf[s], s) for s in RUN_STATUSES),
                                     sum(cf.values())))
    failures = sorted(n for n, (s, _, _) in results.items() if s != "pass")
    if failures:
        print("\nfailures (%d):" % len(failures))
        for s in RUN_STATUSES[1:]:
            for n in failures:
                if results[n][0] == s:
                    print("  %-12s %s: %s" % (s.upper(), n, results[n][1]))
    print("\ntactic cases: %d passed, %d mismatched, %d errors, %d timed out, %d crashed, "
          "%d did not compile, of %d cases (wall %.0f s, %d workers): %s"
          % (c["pass"], c["mismatch"], c["error"], c["timeout"], c["crash"], c["not compiled"],
             len(results), elapsed, args.jobs, "OK" if not failures and results else "FAILED"))
    if args.json:
        doc = {"target": manifest.get("target"), "device": args.device,
               "packed": manifest.get("created"),
               "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
               "wall_s": round(elapsed, 1), "totals": dict(c),
               "cases": {n: {"status": s, "reason": r, "seconds": round(t, 3),
                             "precision": cases[n].get("precision"),
                             "family": cases[n].get("family")}
                         for n, (s, r, t) in sorted(results.items())}}
        with open(args.json, "w") as f:
            json.dump(doc, f, indent=1)
            f.write("\n")
        print("wrote %s" % args.json)
    return 1 if failures or not results else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split("\n\n", 1)[1])
    sub = ap.add_subparsers(dest="cmd")
    sub.required = True
    p = sub.add_parser("gen", help="write the models and references, compile them (needs kilnc, "
                                   "numpy, onnx, torch)")
    p.add_argument("--build-dir", default=os.path.join(ROOT, "build"), help="tree with bin/kilnc")
    p.add_argument("--kilnc", help="kilnc binary (default BUILD_DIR/bin/kilnc)")
    p.add_argument("--target", default="sm_90a", help="kilnc --target (default sm_90a)")
    p.add_argument("--out", required=True, help="folder to fill (replaced if it holds a pack)")
    p.add_argument("--precisions", default="fp16,bf16", help="comma-separated (default fp16,bf16)")
    p.add_argument("--filter", help="only cases whose CASE_PREC name matches this regex")
    p.add_argument("-j", "--jobs", type=int, default=2, help="parallel kilnc (default 2)")
    p.add_argument("--compile-timeout", type=int, default=300, help="seconds per kilnc (300)")
    p.add_argument("--kilnc-arg", action="append", default=[],
                   help="extra kilnc argument, repeatable (e.g. --kilnc-arg=--gpu-wgmma=128x128x3 "
                        "to run every case that allows it on the sm_90a wgmma kernel)")
    p.add_argument("-v", "--verbose", action="store_true")
    r = sub.add_parser("run", help="run the compiled plans with kiln-run (on the GPU machine)")
    r.add_argument("--kiln-run", dest="kiln_run", required=True, help="kiln-run binary")
    r.add_argument("--dir", required=True, help="folder made by `gen`")
    r.add_argument("--device", default="gpu", choices=["gpu", "host"],
                   help="kiln-run --device (default gpu; host checks a sm_90a,host pack here)")
    r.add_argument("--json", help="write every case's result to this file")
    r.add_argument("--filter", help="only cases whose CASE_PREC name matches this regex")
    r.add_argument("-j", "--jobs", type=int, default=8, help="parallel kiln-run (default 8)")
    r.add_argument("--timeout", type=int, default=120, help="seconds per kiln-run (120)")
    r.add_argument("--kiln-run-arg", action="append", default=[],
                   help="extra kiln-run argument (repeat), e.g. --kiln-run-arg=--no-cuda-graph")
    r.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()
    return cmd_gen(args) if args.cmd == "gen" else cmd_run(args)


if __name__ == "__main__":
    sys.exit(main())
