"""Cases for shape-op import tests: Shape (start/end), Size, ConstantOfShape,
Range, and shape subgraphs that fold to constants.

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
def shape_fold_chain():
    """Static Shape -> Gather -> Concat -> Reshape: the shape math folds away."""
    nodes = [
        helper.make_node("Shape", ["x"], ["s"], name="shape"),
        helper.make_node("Gather", ["s", "i0"], ["d0"], name="gather"),
        helper.make_node("Unsqueeze", ["d0", "ax0"], ["d0v"], name="unsqueeze"),
        helper.make_node("Concat", ["d0v", "minus1"], ["ns"], name="concat", axis=0),
        helper.make_node("Reshape", ["x", "ns"], ["y"], name="reshape"),
    ]
    return model(nodes, [vi("x", F, [2, 3, 4])], [vi("y", F, [2, 12])],
                 inits=[_i64("i0", 0), _i64("ax0", [0]), _i64("minus1", [-1])])


@case
def shape_dynamic():
    """With a dynamic batch dim the Shape stays; Size of a static tensor folds."""
    nodes = [
        helper.make_node("Shape", ["x"], ["s"], name="shape"),
        helper.make_node("Shape", ["x"], ["tail"], name="shape_tail", start=1),
        helper.make_node("Shape", ["x"], ["mid"], name="shape_mid", start=-2, end=-1),
        helper.make_node("Size", ["z"], ["n"], name="size"),
    ]
    x = vi("x", F, ["batch", 3, 4])
    return model(nodes, [x, vi("z", F, [2, 5])],
                 [vi("s", I64, [3]), vi("tail", I64, [2]), vi("mid", I64, [1]),
                  vi("n", I64, [])], opset=15)


@case
def shape_size_dynamic():
    """Size of a tensor with a dynamic dim is a kiln.size op."""
    nodes = [helper.make_node("Size", ["x"], ["n"], name="size")]
    return model(nodes, [vi("x", F, ["n", 4])], [vi("n", I64, [])])


@case
def constant_of_shape():
    """ConstantOfShape of a constant shape folds; of a run-time shape it stays."""
    value = numpy_helper.from_array(np.array([7], np.int32), "value")
    nodes = [
        helper.make_node("ConstantOfShape", ["cs"], ["c"], name="cos_const", value=value),
        helper.make_node("Add", ["i", "c"], ["y"], name="add"),
        helper.make_node("ConstantOfShape", ["s"], ["z"], name="cos_dynamic"),
    ]
    return model(nodes, [vi("i", I32, [2, 3]), vi("s", I64, [2])],
                 [vi("y", I32, [2, 3]), vi("z", F, [None, None])],
                 inits=[_i64("cs", [2, 3])])


@case
def range_op():
    """Range of constants folds; of run-time scalars it is kiln.range."""
    nodes = [
        helper.make_node("Range", ["c0", "c5", "c2"], ["r"], name="range_const"),
        helper.make_node("Add", ["v", "r"], ["y"], name="add"),
        helper.make_node("Range", ["a", "b", "d"], ["z"], name="range_dynamic"),
    ]
    return model(nodes, [vi("v", I64, [3]), vi("a", F, []), vi("b", F, []), vi("d", F, [])],
                 [vi("y", I64, [3]), vi("z", F, [None])],
                 inits=[_i64("c0", 0), _i64("c5", 5), _i64("c2", 2)], opset=11)
