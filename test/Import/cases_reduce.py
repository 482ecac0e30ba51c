"""Cases for reductions, ArgMax/ArgMin, CumSum and TopK import tests.

Loaded by gen_onnx.py, which injects `case`, `model`, `vi` and `weight`.
"""
import numpy as np
from onnx import TensorProto, helper, numpy_helper

F = TensorProto.FLOAT
I32 = TensorProto.INT32
I64 = TensorProto.INT64


def _i64(name, values):
    return numpy_helper.from_array(np.array(values, np.int64), name)


@case
def reduce_attr_axes():
    """Opset 13: axes as attributes (negative, unsorted), keepdims 0 and 1, all axes."""
    nodes = [
        helper.make_node("ReduceMean", ["x"], ["mean"], name="mean", axes=[-1, 1]),
        helper.make_node("ReduceMax", ["x"], ["max"], name="max", axes=[0], keepdims=0),
        helper.make_node("ReduceMin", ["x"], ["min"], name="min"),
        helper.make_node("ReduceProd", ["x"], ["prod"], name="prod", axes=[2], keepdims=0),
        helper.make_node("ReduceL1", ["x"], ["l1"], name="l1", axes=[1]),
        helper.make_node("ReduceL2", ["x"], ["l2"], name="l2", axes=[1]),
        helper.make_node("ReduceLogSum", ["x"], ["ls"], name="logsum", axes=[1]),
        helper.make_node("ReduceLogSumExp", ["x"], ["lse"], name="logsumexp", axes=[1]),
        helper.make_node("ReduceSumSquare", ["x"], ["ss"], name="sumsquare", axes=[1]),
    ]
    x = [2, 3, 4]
    return model(nodes, [vi("x", F, x)],
                 [vi("mean", F, [2, 1, 1]), vi("max", F, [3, 4]), vi("min", F, [1, 1, 1]),
                  vi("prod", F, [2, 3]), vi("l1", F, [2, 1, 4]), vi("l2", F, [2, 1, 4]),
                  vi("ls", F, [2, 1, 4]), vi("lse", F, [2, 1, 4]), vi("ss", F, [2, 1, 4])])


@case
def reduce_sum_opset13():
    """ReduceSum 13 takes axes as an input; without it, all dims."""
    nodes = [
        helper.make_node("ReduceSum", ["x", "ax"], ["s"], name="sum_axes", keepdims=0),
        helper.make_node("ReduceSum", ["x"], ["all"], name="sum_all"),
    ]
    return model(nodes, [vi("x", F, [2, 3, 4])],
                 [vi("s", F, [3]), vi("all", F, [1, 1, 1])], inits=[_i64("ax", [0, -1])])


@case
def reduce_input_axes():
    """Opset 18: axes as a constant input, empty axes, noop_with_empty_axes."""
    nodes = [
        helper.make_node("ReduceMean", ["x", "ax"], ["mean"], name="mean", keepdims=0),
        helper.make_node("ReduceMax", ["x", "empty"], ["max_all"], name="max_all"),
        helper.make_node("ReduceMin", ["x", "empty"], ["noop"], name="min_noop",
                         noop_with_empty_axes=1),
        helper.make_node("ReduceL2", ["noop"], ["l2"], name="l2_noaxes", keepdims=0),
        helper.make_node("ReduceSumSquare", ["x", "ax1"], ["ss"], name="sumsquare"),
    ]
    return model(nodes, [vi("x", F, [2, 3, 4])],
                 [vi("mean", F, [3]), vi("max_all", F, [1, 1, 1]), vi("l2", F, []),
                  vi("ss", F, [2, 1, 4])],
                 inits=[_i64("ax", [2, 0]), _i64("empty", np.zeros([0], np.int64)),
                        _i64("ax1", [1])], opset=18)


@case
def reduce_runtime_axes():
    """Opset 18 axes computed at run time are rejected."""
    nodes = [helper.make_node("ReduceMean", ["x", "ax"], ["y"], name="mean_rt")]
    return model(nodes, [vi("x", F, [2, 3]), vi("ax", I64, [1])], [vi("y", F, None)],
                 opset=18)


@case
def arg_max_min():
    nodes = [
        helper.make_node("ArgMax", ["x"], ["amax"], name="argmax", axis=-1, keepdims=0),
        helper.make_node("ArgMin", ["x"], ["amin"], name="argmin", axis=1,
                         select_last_index=1),
        helper.make_node("ArgMax", ["x"], ["adef"], name="argmax_default"),
    ]
    return model(nodes, [vi("x", F, [2, 3, 4])],
                 [vi("amax", I64, [2, 3]), vi("amin", I64, [2, 1, 4]),
                  vi("adef", I64, [1, 3, 4])])


@case
def cumsum():
    nodes = [
        helper.make_node("CumSum", ["x", "axis"], ["c"], name="cumsum", exclusive=1,
                         reverse=1),
        helper.make_node("CumSum", ["c", "axis0"], ["y"], name="cumsum0"),
    ]
    axis = numpy_helper.from_array(np.array(-1, np.int32), "axis")
    return model(nodes, [vi("x", F, [2, 3])], [vi("y", F, [2, 3])],
                 inits=[axis, _i64("axis0", [0])])


@case
def topk():
    """TopK 11 with K as a constant input: values and i64 indices."""
    nodes = [helper.make_node("TopK", ["x", "k"], ["v", "i"], name="topk", axis=1,
                              largest=0)]
    return model(nodes, [vi("x", F, [2, 5, 3])],
                 [vi("v", F, [2, 2, 3]), vi("i", I64, [2, 2, 3])], inits=[_i64("k", [2])],
                 opset=11)


@case
def topk_opset9():
    """TopK 1 (k attribute, last axis) when only the values are used."""
    nodes = [
        helper.make_node("TopK", ["x"], ["v", "i"], name="topk", k=3),
        helper.make_node("Relu", ["v"], ["y"], name="relu"),
    ]
    return model(nodes, [vi("x", F, [4, 6])], [vi("y", F, [4, 3])], opset=9, ir=4)
