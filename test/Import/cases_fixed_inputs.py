"""Cases for graph inputs whose value kilnc --input-value fixes at build time, operands that stay
dynamic (Clip bounds, Dropout's mask), and models of opsets 1 to 6.

Loaded by gen_onnx.py, which injects `case`, `model`, `vi` and `weight`.
"""
import numpy as np
from onnx import TensorProto, helper, numpy_helper

F = TensorProto.FLOAT
I64 = TensorProto.INT64
B = TensorProto.BOOL


@case
def reduce_sum_axes_input():
    """ReduceSum 13 whose axes are graph input 'axes' (int64 [2]); y's shape is left to kiln."""
    nodes = [helper.make_node("ReduceSum", ["data", "axes"], ["y"], name="sum", keepdims=1)]
    return model(nodes, [vi("data", F, [2, 3, 4]), vi("axes", I64, [2])], [vi("y", F, None)])


@case
def range_input_limit():
    """Range with its limit a graph input: the result's length depends on a value."""
    nodes = [helper.make_node("Range", ["start", "limit", "delta"], ["y"], name="range")]
    return model(nodes, [vi("start", F, []), vi("limit", F, []), vi("delta", F, [])],
                 [vi("y", F, None)], opset=13)


@case
def clip_input_bounds():
    """Clip 13 with both bounds graph inputs: max(x, min) then min(., max)."""
    nodes = [helper.make_node("Clip", ["x", "lo", "hi"], ["y"], name="clip")]
    return model(nodes, [vi("x", F, [2, 3]), vi("lo", F, []), vi("hi", F, [])],
                 [vi("y", F, [2, 3])])


@case
def dropout_mask():
    """Dropout 13 in inference with its mask output used: the mask is all true."""
    nodes = [helper.make_node("Dropout", ["x"], ["y", "mask"], name="drop")]
    return model(nodes, [vi("x", F, [2, 3])], [vi("y", F, [2, 3]), vi("mask", B, [2, 3])])


@case
def legacy_opset1():
    """Opset 1: Add with broadcast/axis (B [3] aligned at axis 1 of A [2,3,4]), Mul with
    numpy-compatible trailing broadcast, Reshape's shape attribute, Concat's default axis 1,
    Cast's string 'to', and consumed_inputs everywhere it existed."""
    nodes = [
        helper.make_node("Add", ["a", "b"], ["s"], name="add", broadcast=1, axis=1,
                         consumed_inputs=[0, 0]),
        helper.make_node("Mul", ["s", "c"], ["m"], name="mul", broadcast=1),
        helper.make_node("Reshape", ["m"], ["r"], name="reshape", shape=[2, 12],
                         consumed_inputs=[0]),
        helper.make_node("Concat", ["r", "r"], ["cat"], name="concat"),
        helper.make_node("Cast", ["cat"], ["y"], name="cast", to="DOUBLE"),
    ]
    return model(nodes, [vi("a", F, [2, 3, 4]), vi("b", F, [3]), vi("c", F, [4])],
                 [vi("y", TensorProto.DOUBLE, [2, 24])], opset=1, ir=3)


@case
def legacy_batchnorm_opset6():
    """BatchNormalization 6 with is_test = 1 and spatial = 1: inference."""
    c = 3
    inits = [numpy_helper.from_array(np.full([c], v, np.float32), n)
             for n, v in (("scale", 2.0), ("bias", 0.5), ("mean", 0.0), ("var", 1.0))]
    nodes = [helper.make_node("BatchNormalization", ["x", "scale", "bias", "mean", "var"],
                              ["y"], name="bn", is_test=1, epsilon=1e-5)]
    return model(nodes, [vi("x", F, [1, c, 2, 2])], [vi("y", F, [1, c, 2, 2])],
                 inits=inits, opset=6, ir=3)


@case
def legacy_add_no_broadcast():
    """Add 6 whose operands differ in shape without broadcast = 1: refused."""
    nodes = [helper.make_node("Add", ["a", "b"], ["y"], name="add")]
    return model(nodes, [vi("a", F, [2, 3]), vi("b", F, [3])], [vi("y", F, [2, 3])],
                 opset=6, ir=3)


@case
def legacy_prelu_opset6():
    """PRelu 6 with one slope per channel of x [2, 3, 4]: the slope gets a trailing unit dim."""
    nodes = [helper.make_node("PRelu", ["x", "slope"], ["y"], name="prelu")]
    return model(nodes, [vi("x", F, [2, 3, 4]), vi("slope", F, [3])], [vi("y", F, [2, 3, 4])],
                 opset=6, ir=3)
