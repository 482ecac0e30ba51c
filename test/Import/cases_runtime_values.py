"""Cases for operands that decide a result's shape (Reshape's shape, Slice's starts, Pad's pads,
...) coming from the values of graph inputs, which plans cannot follow at run time, and for
Reshape shapes that do not hold the input's elements.

Loaded by gen_onnx.py, which injects `case`, `model`, `vi` and `weight`.
"""
import numpy as np
from onnx import TensorProto, helper, numpy_helper

F = TensorProto.FLOAT
I64 = TensorProto.INT64


@case
def reshape_shape_input():
    """Reshape of x [2, 3] to graph input 'shape' (int64 [2]); y declared [3, 2]."""
    nodes = [helper.make_node("Reshape", ["x", "shape"], ["y"], name="reshape")]
    return model(nodes, [vi("x", F, [2, 3]), vi("shape", I64, [2])], [vi("y", F, [3, 2])])


@case
def reshape_shape_computed():
    """Reshape to |shape_in|: computed from graph input 'shape_in'; y declared [3, 2]."""
    nodes = [helper.make_node("Abs", ["shape_in"], ["shape"], name="abs_shape"),
             helper.make_node("Reshape", ["x", "shape"], ["y"], name="reshape")]
    return model(nodes, [vi("x", F, [2, 3]), vi("shape_in", I64, [2])], [vi("y", F, [3, 2])])


@case
def reshape_shape_of_input():
    """Reshape of x [N, 6] to Concat(Shape(x)[0:1], [2, 3]): computed from x's shape only."""
    tail = numpy_helper.from_array(np.array([2, 3], np.int64), "tail")
    nodes = [helper.make_node("Shape", ["x"], ["s"], name="shape_x", end=1),
             helper.make_node("Concat", ["s", "tail"], ["shape"], name="concat", axis=0),
             helper.make_node("Reshape", ["x", "shape"], ["y"], name="reshape")]
    return model(nodes, [vi("x", F, ["N", 6])], [vi("y", F, ["N", 2, 3])], inits=[tail],
                 opset=15)


@case
def reshape_count_constant():
    """Reshape of x [2, 3] (6 elements) to the constant shape [4, 2] (8 elements)."""
    shape = numpy_helper.from_array(np.array([4, 2], np.int64), "shape")
    nodes = [helper.make_node("Reshape", ["x", "shape"], ["y"], name="reshape")]
    return model(nodes, [vi("x", F, [2, 3])], [vi("y", F, None)], inits=[shape])


@case
def reshape_count_declared():
    """Reshape of x [2, 3] to Shape(z) with z [N, 2]: kiln computes [?, 2]; y declared [4, 2]."""
    nodes = [helper.make_node("Shape", ["z"], ["shape"], name="shape_z"),
             helper.make_node("Reshape", ["x", "shape"], ["y"], name="reshape")]
    return model(nodes, [vi("x", F, [2, 3]), vi("z", F, ["N", 2])], [vi("y", F, [4, 2])])


@case
def expand_shape_input():
    nodes = [helper.make_node("Expand", ["x", "shape"], ["y"], name="expand")]
    return model(nodes, [vi("x", F, [1, 3]), vi("shape", I64, [2])], [vi("y", F, [2, 3])])


@case
def tile_repeats_input():
    nodes = [helper.make_node("Tile", ["x", "repeats"], ["y"], name="tile")]
    return model(nodes, [vi("x", F, [2, 3]), vi("repeats", I64, [2])], [vi("y", F, [4, 3])])


@case
def slice_starts_input():
    ends = numpy_helper.from_array(np.array([2], np.int64), "ends")
    axes = numpy_helper.from_array(np.array([1], np.int64), "axes")
    nodes = [helper.make_node("Slice", ["x", "starts", "ends", "axes"], ["y"], name="slice")]
    return model(nodes, [vi("x", F, [2, 3]), vi("starts", I64, [1])], [vi("y", F, [2, 1])],
                 inits=[ends, axes])


@case
def pad_pads_input():
    nodes = [helper.make_node("Pad", ["x", "pads"], ["y"], name="pad")]
    return model(nodes, [vi("x", F, [2, 3]), vi("pads", I64, [4])], [vi("y", F, [4, 5])])


@case
def resize_sizes_input():
    nodes = [helper.make_node("Resize", ["x", "", "", "sizes"], ["y"], name="resize")]
    return model(nodes, [vi("x", F, [1, 1, 2, 2]), vi("sizes", I64, [4])],
                 [vi("y", F, [1, 1, 4, 4])])


@case
def constant_of_shape_input():
    nodes = [helper.make_node("ConstantOfShape", ["shape"], ["y"], name="fill")]
    return model(nodes, [vi("shape", I64, [2])], [vi("y", F, [2, 3])])
