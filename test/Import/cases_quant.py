"""Cases for quantization import tests: QuantizeLinear, DequantizeLinear
(per tensor and per axis), QLinearConv, QLinearMatMul, MatMulInteger and
ConvInteger.

Loaded by gen_onnx.py, which injects `case`, `model`, `vi` and `weight`.
"""
import numpy as np
from onnx import TensorProto, helper, numpy_helper

F = TensorProto.FLOAT
U8 = TensorProto.UINT8
I8 = TensorProto.INT8
I32 = TensorProto.INT32


def _t(name, values, dtype):
    return numpy_helper.from_array(np.array(values, dtype), name)


@case
def quantize_per_tensor():
    """QuantizeLinear with an i8 zero point, and without one (ui8 zero)."""
    nodes = [
        helper.make_node("QuantizeLinear", ["x", "s", "zp"], ["q"], name="quant_i8"),
        helper.make_node("QuantizeLinear", ["x", "s"], ["qu"], name="quant_u8"),
        helper.make_node("DequantizeLinear", ["q", "s", "zp"], ["y"], name="dequant"),
    ]
    return model(nodes, [vi("x", F, [2, 3])],
                 [vi("qu", U8, [2, 3]), vi("y", F, [2, 3])],
                 inits=[_t("s", 0.5, np.float32), _t("zp", -3, np.int8)])


@case
def dequantize_per_axis():
    """DequantizeLinear 13 per axis 0 of an i8 weight [4, 3] (scale [4])."""
    w = numpy_helper.from_array(np.arange(-6, 6, dtype=np.int8).reshape(4, 3), "w")
    nodes = [
        helper.make_node("DequantizeLinear", ["w", "ws", "wz"], ["wf"], name="dq_axis0",
                         axis=0),
        helper.make_node("QuantizeLinear", ["x", "xs", "xz"], ["q"], name="q_axis1", axis=-1),
    ]
    return model(nodes, [vi("x", F, [2, 3])], [vi("wf", F, [4, 3]), vi("q", U8, [2, 3])],
                 inits=[w, _t("ws", [0.1, 0.2, 0.3, 0.4], np.float32),
                        _t("wz", [0, 1, -1, 2], np.int8),
                        _t("xs", [0.5, 0.25, 0.125], np.float32),
                        _t("xz", [128, 127, 126], np.uint8)])


@case
def qlinear_conv():
    """QLinearConv u8 x i8 with a per-channel filter scale and an i32 bias."""
    w = numpy_helper.from_array(
        np.random.default_rng(0).integers(-8, 8, [4, 2, 3, 3]).astype(np.int8), "w")
    nodes = [helper.make_node(
        "QLinearConv", ["x", "xs", "xz", "w", "ws", "wz", "ys", "yz", "b"], ["y"],
        name="qconv", pads=[1, 1, 1, 1], strides=[2, 2])]
    return model(nodes, [vi("x", U8, [1, 2, 5, 5])], [vi("y", U8, [1, 4, 3, 3])],
                 inits=[_t("xs", 0.02, np.float32), _t("xz", 128, np.uint8), w,
                        _t("ws", [0.1, 0.2, 0.3, 0.4], np.float32), _t("wz", 0, np.int8),
                        _t("ys", 0.05, np.float32), _t("yz", 10, np.uint8),
                        _t("b", [1, 2, 3, 4], np.int32)])


@case
def qlinear_matmul():
    nodes = [helper.make_node(
        "QLinearMatMul", ["a", "as", "az", "b", "bs", "bz", "ys", "yz"], ["y"],
        name="qmatmul")]
    return model(nodes, [vi("a", U8, [2, 2, 3]), vi("b", U8, [3, 4])],
                 [vi("y", I8, [2, 2, 4])],
                 inits=[_t("as", 0.1, np.float32), _t("az", 1, np.uint8),
                        _t("bs", 0.2, np.float32), _t("bz", 2, np.uint8),
                        _t("ys", 0.3, np.float32), _t("yz", -1, np.int8)])


@case
def matmul_integer():
    """MatMulInteger without zero points (materialized as zeros), and with one."""
    nodes = [
        helper.make_node("MatMulInteger", ["a", "b"], ["y"], name="mmi"),
        helper.make_node("MatMulInteger", ["a", "b", "az"], ["z"], name="mmi_zp"),
    ]
    return model(nodes, [vi("a", U8, [2, 3]), vi("b", I8, [3, 4])],
                 [vi("y", I32, [2, 4]), vi("z", I32, [2, 4])],
                 inits=[_t("az", 5, np.uint8)])


@case
def conv_integer():
    nodes = [helper.make_node("ConvInteger", ["x", "w", "xz"], ["y"], name="convint")]
    return model(nodes, [vi("x", U8, [1, 1, 4, 4]), vi("w", U8, [2, 1, 2, 2])],
                 [vi("y", I32, [1, 2, 3, 3])], inits=[_t("xz", 3, np.uint8)])
