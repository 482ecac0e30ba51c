#!/usr/bin/env python3
"""Writes a small MLP-like ONNX model that exercises kilnc's Q/DQ insertion, and samples for it.

  x [2, 8] -> MatMul(x, W1 [8, 16])  -> h -> Relu -> r
  r        -> Gemm(r, W2 [16, 4], transB=0)        -> y1   (weight axis 1: the N axis)
  r        -> Add(r, r)                             -> y2   (keeps reading f32 r)
  r        -> MatMul(r, Transpose(r))               -> y3   (both operands activations)
Nodes are unnamed (kilnc names them OP#INDEX). OUT/model13.onnx (opset 13: per-channel weight
scales) and OUT/model12.onnx (opset 12: per-tensor), OUT/calib/sample_K.npy (3 seeded samples), OUT/test.npy (a wider one).

  gen_int8_cases.py OUT                         the models and samples
  gen_int8_cases.py ref QDQ.onnx SAMPLE.npy DIR  numpy's outputs of kilnc's Q/DQ model on a sample
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def model(opset):
    rng = np.random.default_rng(1)
    w1 = rng.normal(0, 0.5, (8, 16)).astype(np.float32)
    w2 = rng.normal(0, 0.5, (16, 4)).astype(np.float32)
    w2[:, 2] = 0  # an all-zero output channel: scale 1, no division by zero
    nodes = [
        helper.make_node("MatMul", ["x", "w1"], ["h"]),
        helper.make_node("Relu", ["h"], ["r"]),
        helper.make_node("Gemm", ["r", "w2"], ["y1"], transB=0),
        helper.make_node("Add", ["r", "r"], ["y2"]),
        helper.make_node("Transpose", ["r"], ["rt"]),
        helper.make_node("MatMul", ["r", "rt"], ["y3"]),
    ]
    f = lambda n, s: helper.make_tensor_value_info(n, TensorProto.FLOAT, s)
    g = helper.make_graph(nodes, "int8_cases", [f("x", [2, 8])],
                          [f("y1", [2, 4]), f("y2", [2, 16]), f("y3", [2, 2])],
                          [numpy_helper.from_array(w1, "w1"), numpy_helper.from_array(w2, "w2")])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])


def reference(qdq_path, sample_path, out):
    """The Q/DQ model evaluated in numpy (f32, round half to even as ONNX's QuantizeLinear) on
    one sample: OUT/input_0.pb and OUT/output_K.pb, for `kiln-run --compare`."""
    m = onnx.load(qdq_path)
    env = {t.name: numpy_helper.to_array(t) for t in m.graph.initializer}
    env["x"] = np.load(sample_path)
    for n in m.graph.node:
        a = [env[i] for i in n.input]
        attr = {t.name: helper.get_attribute_value(t) for t in n.attribute}
        if n.op_type in ("QuantizeLinear", "DequantizeLinear"):
            s, z = a[1].astype(np.float32), a[2]
            if s.ndim:  # per axis
                shape = [1] * a[0].ndim
                shape[attr.get("axis", 1)] = -1
                s, z = s.reshape(shape), z.reshape(shape)
            if n.op_type == "QuantizeLinear":
                r = np.clip(np.rint(a[0] / s) + z.astype(np.float32), -128, 127).astype(np.int8)
            else:
                r = ((a[0].astype(np.int32) - z.astype(np.int32)).astype(np.float32) * s)
        elif n.op_type == "MatMul":
            r = a[0] @ a[1]
        elif n.op_type == "Gemm":
            r = a[0] @ (a[1].T if attr.get("transB", 0) else a[1])
        elif n.op_type == "Relu":
            r = np.maximum(a[0], 0)
        elif n.op_type == "Add":
            r = a[0] + a[1]
        elif n.op_type == "Transpose":
            r = a[0].T
        else:
            raise SystemExit("reference: no %s" % n.op_type)
        env[n.output[0]] = r.astype(np.float32) if r.dtype != np.int8 else r
    os.makedirs(out, exist_ok=True)
    tensors = [("x", env["x"])] + [(o.name, env[o.name]) for o in m.graph.output]
    for k, (name, v) in enumerate(tensors):
        f = "input_0.pb" if k == 0 else "output_%d.pb" % (k - 1)
        with open(os.path.join(out, f), "wb") as fh:
            fh.write(numpy_helper.from_array(v, name).SerializeToString())
    return 0


def main():
    if sys.argv[1] == "ref":
        return reference(*sys.argv[2:5])
    out = sys.argv[1]
    os.makedirs(os.path.join(out, "calib"), exist_ok=True)
    for opset in (12, 13):
        onnx.save(model(opset), os.path.join(out, "model%d.onnx" % opset))
    rng = np.random.default_rng(2)
    for k in range(3):
        np.save(os.path.join(out, "calib", "sample_%d.npy" % k),
                rng.normal(0, 1, (2, 8)).astype(np.float32))
    # Wider than the calibration: some values saturate at -128 or 127.
    np.save(os.path.join(out, "test.npy"), rng.normal(0, 3, (2, 8)).astype(np.float32))
    return 0


if __name__ == "__main__":
    sys.exit(main())
