"""Cases for constants and weights: Constant node forms, dense vs
dense_resource initializers, external data, and model-level features
(dynamic dims, missing input shapes, other-domain opset imports).

Loaded by gen_onnx.py, which injects `case`, `model`, `vi` and `weight`.
"""
import os
import sys

import numpy as np
from onnx import TensorProto, external_data_helper, helper, numpy_helper

F = TensorProto.FLOAT
I64 = TensorProto.INT64


@case
def constant_forms():
    """Constant with value (tensor), value_float(s) and value_int(s)."""
    nodes = [
        helper.make_node("Constant", [], ["t"], name="c_tensor",
                         value=numpy_helper.from_array(
                             np.array([[1.5, 2.5]], np.float32), "ignored")),
        helper.make_node("Constant", [], ["f"], name="c_float", value_float=0.25),
        helper.make_node("Constant", [], ["fs"], name="c_floats", value_floats=[1.0, -2.0]),
        helper.make_node("Constant", [], ["i"], name="c_int", value_int=-7),
        helper.make_node("Constant", [], ["is"], name="c_ints", value_ints=[4, 5, 6, 7]),
        helper.make_node("Add", ["x", "t"], ["a"], name="add_t"),
        helper.make_node("Mul", ["a", "f"], ["b"], name="mul_f"),
        helper.make_node("Sub", ["b", "fs"], ["y"], name="sub_fs"),
        helper.make_node("Add", ["n", "i"], ["m"], name="add_i"),
        helper.make_node("Mul", ["m", "is"], ["z"], name="mul_is"),
    ]
    return model(nodes, [vi("x", F, [3, 1]), vi("n", I64, [4])],
                 [vi("y", F, [3, 2]), vi("z", I64, [4])])


@case
def constant_big():
    """A Constant node with 12 floats becomes a dense_resource named after its output."""
    value = numpy_helper.from_array(np.arange(12, dtype=np.float32).reshape(3, 4), "")
    nodes = [
        helper.make_node("Constant", [], ["big_const"], name="c_big", value=value),
        helper.make_node("MatMul", ["x", "big_const"], ["y"], name="matmul"),
    ]
    return model(nodes, [vi("x", F, [2, 3])], [vi("y", F, [2, 4])])


@case
def weights():
    """Initializers at the dense/dense_resource thresholds, a big splat, a
    name that is not an identifier, and an unused initializer."""
    inits = [
        numpy_helper.from_array(np.arange(1, 9, dtype=np.float32), "f8"),
        numpy_helper.from_array(np.arange(1, 10, dtype=np.float32), "conv1/weight:0"),
        numpy_helper.from_array(np.arange(64, dtype=np.int64), "i64"),
        numpy_helper.from_array(np.arange(65, dtype=np.int64), "i65"),
        numpy_helper.from_array(np.full([100], 0.5, np.float32), "splat"),
        numpy_helper.from_array(np.zeros([3], np.float32), "unused"),
    ]
    nodes = [
        helper.make_node("Add", ["a", "f8"], ["y8"], name="add8"),
        helper.make_node("Add", ["b", "conv1/weight:0"], ["y9"], name="add9"),
        helper.make_node("Add", ["c", "i64"], ["z64"], name="add64"),
        helper.make_node("Add", ["d", "i65"], ["z65"], name="add65"),
        helper.make_node("Add", ["e", "splat"], ["ys"], name="add_splat"),
    ]
    return model(nodes, [vi("a", F, [8]), vi("b", F, [9]), vi("c", I64, [64]),
                         vi("d", I64, [65]), vi("e", F, [100])],
                 [vi("y8", F, [8]), vi("y9", F, [9]), vi("z64", I64, [64]),
                  vi("z65", I64, [65]), vi("ys", F, [100])], inits=inits)


def _external_model(location=None):
    w = numpy_helper.from_array(np.arange(1, 13, dtype=np.float32).reshape(3, 4), "w")
    b = numpy_helper.from_array(np.array([0.5, -0.5, 1.5, -1.5], np.float32), "b")
    nodes = [
        helper.make_node("MatMul", ["x", "w"], ["xw"], name="matmul"),
        helper.make_node("Add", ["xw", "b"], ["y"], name="add"),
    ]
    m = model(nodes, [vi("x", F, [2, 3])], [vi("y", F, [2, 4])], inits=[w, b])
    # Both tensors go to one side file next to the model (b at an offset).
    out = sys.argv[2]
    side = location or os.path.basename(out) + ".data"
    external_data_helper.convert_model_to_external_data(
        m, all_tensors_to_one_file=True, location=side, size_threshold=0)
    if location is None:
        external_data_helper.write_external_data_tensors(m, os.path.dirname(out) or ".")
    return m


@case
def external_data():
    """Weights in a side file OUT.onnx.data, written with external_data_helper."""
    return _external_model()


@case
def external_data_dotdot():
    """An external data location that climbs out of the model's directory."""
    return _external_model(location="../escape.bin")


@case
def external_data_missing():
    """An external data location naming a file that does not exist."""
    return _external_model(location="no_such_weights.bin")


@case
def dynamic_dims():
    """dim_param inputs keep '?' and their names in kiln.dims."""
    nodes = [
        helper.make_node("MatMul", ["x", "w"], ["h"], name="matmul"),
        helper.make_node("Relu", ["h"], ["y"], name="relu"),
    ]
    return model(nodes, [vi("x", F, ["batch", "seq", 8])],
                 [vi("y", F, ["batch", "seq", 4])], inits=[weight("w", [8, 4])])


@case
def dynamic_unnamed():
    """A dim with neither dim_value nor dim_param is '?' in kiln.dims."""
    x = vi("x", F, [None, 3])
    nodes = [helper.make_node("Relu", ["x"], ["y"], name="relu")]
    return model(nodes, [x], [vi("y", F, [None, 3])])


@case
def no_input_shape():
    """An input with an element type but no shape at all."""
    nodes = [helper.make_node("Relu", ["x"], ["y"], name="relu")]
    return model(nodes, [vi("x", F, None)], [vi("y", F, None)])


@case
def other_domain_opset():
    """An unused ai.onnx.ml opset import next to the default domain."""
    nodes = [helper.make_node("Relu", ["x"], ["y"], name="relu")]
    graph = helper.make_graph(nodes, "g", [vi("x", F, [2, 2])], [vi("y", F, [2, 2])])
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13),
                                                helper.make_opsetid("ai.onnx.ml", 3)])
    m.ir_version = 8
    return m
