"""Models shaped like the exports of tf2onnx, paddle2onnx and spox: weights in
Constant nodes, NHWC inputs with Transposes, dynamic batch/height/width,
unused opset imports of other domains, opsets 9 to 16."""
import numpy as np
from onnx import TensorProto, helper, numpy_helper

F = TensorProto.FLOAT


def const(name, array):
    return helper.make_node("Constant", [], [name], name=name + "_const",
                            value=numpy_helper.from_array(array, name))


def rnd(shape, seed):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def with_domains(m, *domains):
    for d, v in domains:
        m.opset_import.append(helper.make_opsetid(d, v))
    return m


@case
def tf2onnx_nhwc_dynamic():
    nodes = [
        helper.make_node("Transpose", ["input:0"], ["nchw"], name="transpose_in", perm=[0, 3, 1, 2]),
        const("w0", rnd([16, 3, 3, 3], 1)),
        const("b0", rnd([16], 2)),
        helper.make_node("Conv", ["nchw", "w0", "b0"], ["c0"], name="conv0",
                         auto_pad="SAME_UPPER", strides=[2, 2], kernel_shape=[3, 3]),
        helper.make_node("Relu", ["c0"], ["r0"], name="relu0"),
        helper.make_node("MaxPool", ["r0"], ["p0"], name="pool0", auto_pad="SAME_UPPER",
                         kernel_shape=[2, 2], strides=[2, 2]),
        # Upsample x2 with sizes computed from the run-time shape.
        helper.make_node("Shape", ["p0"], ["s0"], name="shape0"),
        const("hw_start", np.array([2], np.int64)),
        const("hw_end", np.array([4], np.int64)),
        helper.make_node("Slice", ["s0", "hw_start", "hw_end"], ["hw"], name="slice_hw"),
        const("two", np.array([2, 2], np.int64)),
        helper.make_node("Mul", ["hw", "two"], ["hw2"], name="mul_hw"),
        helper.make_node("Slice", ["s0", "zero", "hw_start"], ["nc"], name="slice_nc"),
        const("zero", np.array([0], np.int64)),
        helper.make_node("Concat", ["nc", "hw2"], ["sizes"], name="concat_sizes", axis=0),
        helper.make_node("Resize", ["p0", "", "", "sizes"], ["up"], name="resize0", mode="nearest"),
        helper.make_node("GlobalAveragePool", ["up"], ["gap"], name="gap"),
        const("sq_axes", np.array([2, 3], np.int64)),
        helper.make_node("Squeeze", ["gap", "sq_axes"], ["Identity:0"], name="squeeze0"),
    ]
    # tf2onnx emits nodes in dependency order; "zero" is defined late above on
    # purpose? No: keep the graph topologically sorted.
    order = ["transpose_in", "w0_const", "b0_const", "conv0", "relu0", "pool0", "shape0",
             "hw_start_const", "hw_end_const", "slice_hw", "two_const", "mul_hw", "zero_const",
             "slice_nc", "concat_sizes", "resize0", "gap", "sq_axes_const", "squeeze0"]
    by_name = {n.name: n for n in nodes}
    graph = helper.make_graph(
        [by_name[n] for n in order], "tf2onnx",
        [helper.make_tensor_value_info("input:0", F, ["unk__1", "unk__2", "unk__3", 3])],
        [helper.make_tensor_value_info("Identity:0", F, ["unk__1", 16])])
    m = helper.make_model(graph, producer_name="tf2onnx", producer_version="1.16.1",
                          opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 7
    return with_domains(m, ("ai.onnx.ml", 2), ("com.microsoft", 1))


@case
def paddle2onnx_opset11():
    nodes = [
        const("conv_w", rnd([8, 3, 3, 3], 3)),
        helper.make_node("Conv", ["image", "conv_w"], ["c"], name="conv2d_0",
                         pads=[1, 1, 1, 1], strides=[1, 1], dilations=[1, 1], group=1),
        const("mn", np.array(0.0, np.float32)),
        const("mx", np.array(6.0, np.float32)),
        helper.make_node("Clip", ["c", "mn", "mx"], ["relu6"], name="relu6_0"),
        const("pads", np.array([0, 0, 1, 1, 0, 0, 1, 1], np.int64)),
        const("pad_value", np.array(0.0, np.float32)),
        helper.make_node("Pad", ["relu6", "pads", "pad_value"], ["padded"], name="pad2d_0", mode="reflect"),
        const("roi", np.array([], np.float32)),
        const("scales", np.array([1.0, 1.0, 2.0, 2.0], np.float32)),
        helper.make_node("Resize", ["padded", "roi", "scales"], ["up"], name="bilinear_interp_0",
                         mode="linear", coordinate_transformation_mode="align_corners"),
        helper.make_node("ReduceMean", ["up"], ["mean"], name="reduce_mean_0", axes=[2, 3], keepdims=0),
        helper.make_node("Softmax", ["mean"], ["save_infer_model/scale_0.tmp_0"], name="softmax_0", axis=1),
    ]
    graph = helper.make_graph(
        nodes, "paddle",
        [helper.make_tensor_value_info("image", F, [-1, 3, -1, -1])],
        [helper.make_tensor_value_info("save_infer_model/scale_0.tmp_0", F, [-1, 8])])
    m = helper.make_model(graph, producer_name="PaddlePaddle", opset_imports=[helper.make_opsetid("", 11)])
    m.ir_version = 6
    return m


@case
def spox_opset16():
    nodes = [
        const("W", rnd([64, 32], 4)),
        const("Bias", rnd([32], 5)),
        helper.make_node("Einsum", ["x", "W"], ["proj"], name="Einsum_0", equation="bsd,de->bse"),
        helper.make_node("Add", ["proj", "Bias"], ["biased"], name="Add_0"),
        helper.make_node("ReduceMean", ["biased"], ["mu"], name="ReduceMean_0", axes=[-1]),
        helper.make_node("Sub", ["biased", "mu"], ["centered"], name="Sub_0"),
        helper.make_node("Mul", ["centered", "centered"], ["sq"], name="Mul_0"),
        helper.make_node("ReduceMean", ["sq"], ["var"], name="ReduceMean_1", axes=[-1]),
        const("eps", np.array(1e-5, np.float32)),
        helper.make_node("Add", ["var", "eps"], ["var_eps"], name="Add_1"),
        helper.make_node("Sqrt", ["var_eps"], ["std"], name="Sqrt_0"),
        helper.make_node("Div", ["centered", "std"], ["normed"], name="Div_0"),
        const("sqrt_half", np.array(0.7071067811865476, np.float32)),
        helper.make_node("Mul", ["normed", "sqrt_half"], ["scaled"], name="Mul_1"),
        helper.make_node("Erf", ["scaled"], ["erf"], name="Erf_0"),
        helper.make_node("Where", ["mask", "erf", "normed"], ["y"], name="Where_0"),
    ]
    graph = helper.make_graph(
        nodes, "spox",
        [helper.make_tensor_value_info("x", F, ["N", 10, 64]),
         helper.make_tensor_value_info("mask", TensorProto.BOOL, ["N", 10, 1])],
        [helper.make_tensor_value_info("y", F, ["N", 10, 32])])
    m = helper.make_model(graph, producer_name="spox", opset_imports=[helper.make_opsetid("", 16)])
    m.ir_version = 8
    return m
