"""Cases for data-movement import tests: Reshape, Flatten, Transpose,
Squeeze/Unsqueeze, Concat, Split, Slice, Gather, GatherElements, Expand, Tile,
Pad, Resize, Upsample, DepthToSpace and SpaceToDepth.

Loaded by gen_onnx.py, which injects `case`, `model`, `vi` and `weight`.
"""
import numpy as np
from onnx import TensorProto, helper, numpy_helper

F = TensorProto.FLOAT
I32 = TensorProto.INT32
I64 = TensorProto.INT64


def _i64(name, values):
    return numpy_helper.from_array(np.array(values, np.int64), name)


def _f32(name, values):
    return numpy_helper.from_array(np.array(values, np.float32), name)


@case
def reshape():
    """Reshape with 0 (copy the dim) and -1 (inferred), then a 1-D -1."""
    nodes = [
        helper.make_node("Reshape", ["x", "s0"], ["r0"], name="reshape_zero"),
        helper.make_node("Reshape", ["r0", "s1"], ["r1"], name="reshape_infer"),
        helper.make_node("Reshape", ["r1", "s2"], ["y"], name="reshape_flat"),
    ]
    return model(nodes, [vi("x", F, [2, 3, 4])], [vi("y", F, [24])],
                 inits=[_i64("s0", [0, -1]), _i64("s1", [-1, 2, 3]), _i64("s2", [-1])])


@case
def flatten():
    nodes = [
        helper.make_node("Flatten", ["x"], ["a"], name="flatten2", axis=2),
        helper.make_node("Flatten", ["x"], ["b"], name="flatten0", axis=0),
        helper.make_node("Flatten", ["x"], ["c"], name="flatten_neg", axis=-1),
        helper.make_node("Flatten", ["x"], ["d"], name="flatten_default"),
    ]
    return model(nodes, [vi("x", F, [2, 3, 4, 5])],
                 [vi("a", F, [6, 20]), vi("b", F, [1, 120]), vi("c", F, [24, 5]),
                  vi("d", F, [2, 60])])


@case
def transpose():
    nodes = [
        helper.make_node("Transpose", ["x"], ["t"], name="nhwc", perm=[0, 2, 3, 1]),
        helper.make_node("Transpose", ["t"], ["y"], name="reverse"),
    ]
    return model(nodes, [vi("x", F, [1, 2, 3, 4])], [vi("y", F, [2, 4, 3, 1])])


@case
def squeeze_unsqueeze_opset11():
    """Axes as attributes (negative allowed); Squeeze without axes drops all 1s."""
    nodes = [
        helper.make_node("Squeeze", ["x"], ["s"], name="squeeze", axes=[1, -1]),
        helper.make_node("Unsqueeze", ["s"], ["u"], name="unsqueeze", axes=[0, -1]),
        helper.make_node("Squeeze", ["u"], ["y"], name="squeeze_all"),
    ]
    return model(nodes, [vi("x", F, [2, 1, 3, 1])], [vi("y", F, [2, 3])], opset=11)


@case
def squeeze_unsqueeze_opset13():
    """Axes as constant inputs."""
    nodes = [
        helper.make_node("Squeeze", ["x", "sa"], ["s"], name="squeeze"),
        helper.make_node("Unsqueeze", ["s", "ua"], ["y"], name="unsqueeze"),
    ]
    return model(nodes, [vi("x", F, [1, 3, 1, 4])], [vi("y", F, [3, 1, 4, 1, 1])],
                 inits=[_i64("sa", [0]), _i64("ua", [3, 4])])


@case
def concat():
    nodes = [helper.make_node("Concat", ["a", "b", "c"], ["y"], name="concat", axis=-1)]
    return model(nodes, [vi("a", F, [2, 3, 1]), vi("b", F, [2, 3, 4]), vi("c", F, [2, 3, 2])],
                 [vi("y", F, [2, 3, 7])])


@case
def split_opset11():
    """Split 11: sizes as an attribute; and an even split into 3."""
    nodes = [
        helper.make_node("Split", ["x"], ["a", "b"], name="split_sizes", axis=1, split=[2, 4]),
        helper.make_node("Split", ["x"], ["c", "d", "e"], name="split_even", axis=-1),
    ]
    return model(nodes, [vi("x", F, [2, 6, 9])],
                 [vi("a", F, [2, 2, 9]), vi("b", F, [2, 4, 9]), vi("c", F, [2, 6, 3]),
                  vi("d", F, [2, 6, 3]), vi("e", F, [2, 6, 3])], opset=11)


@case
def split_opset13():
    """Split 13: sizes as a constant input; no input means an even split."""
    nodes = [
        helper.make_node("Split", ["x", "sizes"], ["a", "b", "c"], name="split_sizes"),
        helper.make_node("Split", ["x"], ["d", "e"], name="split_even", axis=1),
    ]
    return model(nodes, [vi("x", F, [6, 4])],
                 [vi("a", F, [1, 4]), vi("b", F, [2, 4]), vi("c", F, [3, 4]),
                  vi("d", F, [6, 2]), vi("e", F, [6, 2])], inits=[_i64("sizes", [1, 2, 3])])


@case
def split_opset18():
    """Split 18 num_outputs=3 on a dim of 7: ceil(7/3) = 3, so sizes 3, 3, 1."""
    nodes = [helper.make_node("Split", ["x"], ["a", "b", "c"], name="split_num", axis=0,
                              num_outputs=3)]
    return model(nodes, [vi("x", F, [7, 2])],
                 [vi("a", F, [3, 2]), vi("b", F, [3, 2]), vi("c", F, [1, 2])], opset=18)


@case
def slice_opset9():
    """Slice 1-9: starts/ends/axes attributes, negative start, end past the dim."""
    nodes = [helper.make_node("Slice", ["x"], ["y"], name="slice", starts=[1, -3],
                              ends=[3, 1000], axes=[0, 2])]
    return model(nodes, [vi("x", F, [4, 5, 10])], [vi("y", F, [2, 5, 3])], opset=9, ir=4)


@case
def slice_opset13():
    """Slice 13: inputs with negative steps (8, 6, 4, 2 and a full reverse)."""
    nodes = [
        helper.make_node("Slice", ["x", "st", "en", "ax", "sp"], ["a"], name="slice_step"),
        helper.make_node("Slice", ["x", "st2", "en2", "ax2", "sp2"], ["b"], name="slice_rev"),
        helper.make_node("Slice", ["x", "st3", "en3"], ["c"], name="slice_noaxes"),
    ]
    return model(nodes, [vi("x", F, [4, 10])],
                 [vi("a", F, [4, 4]), vi("b", F, [4, 10]), vi("c", F, [2, 10])],
                 inits=[_i64("st", [8]), _i64("en", [1]), _i64("ax", [-1]), _i64("sp", [-2]),
                        _i64("st2", [-1]), _i64("en2", [np.iinfo(np.int64).min]),
                        _i64("ax2", [1]), _i64("sp2", [-1]),
                        _i64("st3", [1]), _i64("en3", [-1])])


@case
def gather():
    nodes = [
        helper.make_node("Gather", ["x", "idx"], ["a"], name="gather0"),
        helper.make_node("Gather", ["x", "one"], ["b"], name="gather_scalar", axis=-1),
    ]
    return model(nodes, [vi("x", F, [5, 4]), vi("idx", I64, [2, 3])],
                 [vi("a", F, [2, 3, 4]), vi("b", F, [5])],
                 inits=[numpy_helper.from_array(np.array(2, np.int32), "one")])


@case
def gather_elements():
    nodes = [helper.make_node("GatherElements", ["x", "idx"], ["y"], name="gather_el",
                              axis=1)]
    return model(nodes, [vi("x", F, [3, 4]), vi("idx", I32, [3, 2])], [vi("y", F, [3, 2])])


@case
def expand_tile():
    nodes = [
        helper.make_node("Expand", ["x", "shape"], ["e"], name="expand"),
        helper.make_node("Tile", ["e", "reps"], ["y"], name="tile"),
    ]
    return model(nodes, [vi("x", F, [3, 1])], [vi("y", F, [2, 6, 8])],
                 inits=[_i64("shape", [2, 1, 4]), _i64("reps", [1, 2, 2])])


@case
def pad_opset11():
    """Pad 11: pads and constant_value as inputs; then reflect mode."""
    nodes = [
        helper.make_node("Pad", ["x", "pads", "val"], ["p"], name="pad_const"),
        helper.make_node("Pad", ["p", "pads2"], ["y"], name="pad_reflect", mode="reflect"),
    ]
    return model(nodes, [vi("x", F, [2, 3])], [vi("y", F, [4, 8])],
                 inits=[_i64("pads", [0, 1, 0, 2]), _f32("val", 1.5),
                        _i64("pads2", [1, 1, 1, 1])])


@case
def pad_opset18_axes():
    """Pad 18 with axes [2, -2]: pads [b2, b1, e2, e1] expand to all dims."""
    nodes = [helper.make_node("Pad", ["x", "pads", "", "axes"], ["y"], name="pad_axes",
                              mode="edge")]
    return model(nodes, [vi("x", F, [2, 3, 4])], [vi("y", F, [2, 5, 8])],
                 inits=[_i64("pads", [1, 2, 3, 0]), _i64("axes", [2, -2])], opset=18)


@case
def pad_opset2():
    """Pad 2: pads and value as attributes."""
    nodes = [helper.make_node("Pad", ["x"], ["y"], name="pad_attr", pads=[1, 0, 0, 2],
                              value=-1.0)]
    return model(nodes, [vi("x", F, [2, 3])], [vi("y", F, [3, 5])], opset=10, ir=5)


@case
def resize_scales():
    """Resize 13 with constant scales (an empty roi), linear, align_corners."""
    nodes = [helper.make_node("Resize", ["x", "", "scales"], ["y"], name="resize_scales",
                              mode="linear", coordinate_transformation_mode="align_corners")]
    return model(nodes, [vi("x", F, [1, 2, 3, 4])], [vi("y", F, [1, 2, 6, 6])],
                 inits=[_f32("scales", [1.0, 1.0, 2.0, 1.5])])


@case
def resize_sizes():
    """Resize 13 with sizes, nearest with nearest_mode floor."""
    nodes = [helper.make_node("Resize", ["x", "", "", "sizes"], ["y"], name="resize_sizes",
                              mode="nearest", nearest_mode="floor")]
    return model(nodes, [vi("x", F, [1, 2, 3, 4])], [vi("y", F, [1, 2, 5, 7])],
                 inits=[_i64("sizes", [1, 2, 5, 7])])


@case
def upsample_opset9():
    """Upsample 9: scales input; asymmetric coordinates."""
    nodes = [helper.make_node("Upsample", ["x", "scales"], ["y"], name="upsample")]
    return model(nodes, [vi("x", F, [1, 2, 3, 4])], [vi("y", F, [1, 2, 6, 8])],
                 inits=[_f32("scales", [1.0, 1.0, 2.0, 2.0])], opset=9, ir=4)


@case
def depth_space():
    nodes = [
        helper.make_node("DepthToSpace", ["x"], ["d"], name="d2s", blocksize=2, mode="CRD"),
        helper.make_node("SpaceToDepth", ["d"], ["y"], name="s2d", blocksize=2),
    ]
    return model(nodes, [vi("x", F, [1, 8, 2, 3])], [vi("y", F, [1, 8, 2, 3])])
