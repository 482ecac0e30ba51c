#!/usr/bin/python3
"""Writes small ONNX models for kiln's import tests.

Usage: gen_onnx.py CASE OUT.onnx      (run with Debian's /usr/bin/python3)
       gen_onnx.py --list

Each case is a function below that returns a ModelProto built with
onnx.helper; the lit tests in this folder name the case they import. Cases
for bad input write deliberately broken files.
"""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

CASES = {}


def case(fn):
    CASES[fn.__name__] = fn
    return fn


def vi(name, elem, shape):
    return helper.make_tensor_value_info(name, elem, shape)


def model(nodes, inputs, outputs, inits=(), opset=13, ir=8, name="g", **kw):
    graph = helper.make_graph(nodes, name, inputs, outputs, list(inits))
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], **kw)
    m.ir_version = ir
    return m


def weight(name, shape, seed=0, dtype=np.float32):
    rng = np.random.default_rng(seed)
    return numpy_helper.from_array(rng.standard_normal(shape).astype(dtype), name)


F = TensorProto.FLOAT
I64 = TensorProto.INT64

# --- A representative case; the others live in cases_*.py beside this file.


@case
def add_broadcast():
    return model([helper.make_node("Add", ["a", "b"], ["y"], name="add0")],
                 [vi("a", F, [2, 3]), vi("b", F, [3])], [vi("y", F, [2, 3])])


def _load_more():
    import importlib.util
    import os
    here = os.path.dirname(os.path.abspath(__file__))
    for fname in sorted(os.listdir(here)):
        if fname.startswith("cases_") and fname.endswith(".py"):
            spec = importlib.util.spec_from_file_location(fname[:-3], os.path.join(here, fname))
            mod = importlib.util.module_from_spec(spec)
            mod.case, mod.model, mod.vi, mod.weight = case, model, vi, weight
            spec.loader.exec_module(mod)


def main(argv):
    _load_more()
    if len(argv) == 2 and argv[1] == "--list":
        print("\n".join(sorted(CASES)))
        return 0
    if len(argv) != 3 or argv[1] not in CASES:
        sys.stderr.write("usage: gen_onnx.py CASE OUT.onnx | --list\n")
        return 2
    result = CASES[argv[1]]()
    if isinstance(result, (bytes, bytearray)):
        data = bytes(result)
    else:
        data = result.SerializeToString()
    with open(argv[2], "wb") as f:
        f.write(data)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
