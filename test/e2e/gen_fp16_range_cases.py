#!/usr/bin/env python3
"""Writes a model whose fp16 plan is silently wrong without range analysis, and samples for it.

An embedding head that L2-normalizes its features, on raw 0..255 inputs:

  x [1, 256] -> MatMul(x, W1 [256, 128]) -> h        (|h| up to about 500)
  h -> ReduceSumSquare(axes=[1], keepdims=1) -> s    (about 1e7: beyond f16's 65504)
  s -> Sqrt -> n -> Div(h, n) -> e                    (unit length)
  e -> MatMul(e, W2 [128, 10]) -> Add(b) -> y

In fp16, s is infinite, e is 0 and y is the bias alone, for every input: no NaN,
no error. Writes OUT/model.onnx, OUT/calib/sample_K.npy (4 seeded samples),
OUT/test/input_0.pb and OUT/test/output_0.pb (another input and numpy's float64
reference output, ONNX test-data layout for kiln-run --compare).
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def main():
    out = sys.argv[1]
    rng = np.random.default_rng(7)
    w1 = rng.normal(0, 0.1, (256, 128)).astype(np.float32)
    w2 = rng.normal(0, 1.0, (128, 10)).astype(np.float32)
    b = rng.normal(0, 0.1, (10,)).astype(np.float32)
    nodes = [
        helper.make_node("MatMul", ["x", "w1"], ["h"], name="embed"),
        helper.make_node("ReduceSumSquare", ["h"], ["s"], name="sumsq", axes=[1], keepdims=1),
        helper.make_node("Sqrt", ["s"], ["n"], name="norm"),
        helper.make_node("Div", ["h", "n"], ["e"], name="normalize"),
        helper.make_node("MatMul", ["e", "w2"], ["z"], name="head"),
        helper.make_node("Add", ["z", "b"], ["y"], name="bias"),
    ]
    f = lambda n, s: helper.make_tensor_value_info(n, TensorProto.FLOAT, s)
    g = helper.make_graph(nodes, "fp16_ranges", [f("x", [1, 256])], [f("y", [1, 10])],
                          [numpy_helper.from_array(w1, "w1"), numpy_helper.from_array(w2, "w2"),
                           numpy_helper.from_array(b, "b")])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    onnx.checker.check_model(m)
    os.makedirs(os.path.join(out, "calib"), exist_ok=True)
    os.makedirs(os.path.join(out, "test"), exist_ok=True)
    onnx.save(m, os.path.join(out, "model.onnx"))
    for k in range(4):
        x = rng.uniform(0, 255, (1, 256)).astype(np.float32)
        np.save(os.path.join(out, "calib", "sample_%d.npy" % k), x)
    x = rng.uniform(0, 255, (1, 256)).astype(np.float32)
    h = x.astype(np.float64) @ w1
    e = h / np.sqrt((h * h).sum(axis=1, keepdims=True))
    y = (e @ w2 + b).astype(np.float32)
    for name, a in (("input_0", x), ("output_0", y)):
        with open(os.path.join(out, "test", name + ".pb"), "wb") as fh:
            fh.write(numpy_helper.from_array(a, name).SerializeToString())
    print("max |h| %.0f, sum of squares %.3g, max |y| %.3f" %
          (np.abs(h).max(), (h * h).sum(), np.abs(y).max()))


if __name__ == "__main__":
    main()
