"""Cases for Conv and ConvTranspose import tests (auto_pad, groups,
dilation, bias, 1-D and 3-D, output_shape, output_padding).

Loaded by gen_onnx.py, which injects `case`, `model`, `vi` and `weight`.
"""
from onnx import TensorProto, helper

F = TensorProto.FLOAT


def _conv(x_shape, w_shape, y_shape, bias=False, op="Conv", **attrs):
    inits = [weight("w", w_shape)]
    ins = ["x", "w"]
    if bias:
        # ConvTranspose's bias has one value per output channel.
        inits.append(weight("b", [y_shape[1]], seed=1))
        ins.append("b")
    node = helper.make_node(op, ins, ["y"], name=op.lower() + "0", **attrs)
    return model([node], [vi("x", F, x_shape)], [vi("y", F, y_shape)], inits=inits)


@case
def conv_same_upper():
    """8x8, kernel 3, stride 2: 4x4 output, total pad 1 goes to the end."""
    return _conv([1, 3, 8, 8], [5, 3, 3, 3], [1, 5, 4, 4], auto_pad="SAME_UPPER",
                 strides=[2, 2])


@case
def conv_same_lower():
    """As conv_same_upper with SAME_LOWER: the odd pad goes to the beginning."""
    return _conv([1, 3, 8, 8], [5, 3, 3, 3], [1, 5, 4, 4], auto_pad="SAME_LOWER",
                 strides=[2, 2])


@case
def conv_valid():
    """auto_pad VALID: no padding, 7x7 -> 5x5 with a 3x3 kernel."""
    return _conv([1, 3, 7, 7], [2, 3, 3, 3], [1, 2, 5, 5], auto_pad="VALID")


@case
def conv_group_bias():
    """group 2 (filter [6, 2, 3, 3]) with explicit pads and a bias."""
    return _conv([1, 4, 5, 5], [6, 2, 3, 3], [1, 6, 5, 5], bias=True, group=2,
                 pads=[1, 1, 1, 1], kernel_shape=[3, 3])


@case
def conv_depthwise_dilated():
    """Depthwise (group = channels) 3x3 with dilation 2 and asymmetric pads."""
    return _conv([1, 4, 6, 6], [4, 1, 3, 3], [1, 4, 5, 4], group=4,
                 dilations=[2, 2], pads=[2, 1, 1, 1])


@case
def conv_1d():
    """1-D conv: length 10, kernel 3, stride 2, pads 1 -> length 5."""
    return _conv([1, 2, 10], [4, 2, 3], [1, 4, 5], strides=[2], pads=[1, 1])


@case
def conv_3d():
    """3-D conv with bias: [4, 6, 6], kernel 3, strides [1, 2, 2], pads 1."""
    return _conv([1, 2, 4, 6, 6], [3, 2, 3, 3, 3], [1, 3, 4, 3, 3], bias=True,
                 strides=[1, 2, 2], pads=[1, 1, 1, 1, 1, 1])


@case
def conv_transpose_output_padding():
    """stride 2, pads 1, output_padding 1: 3x3 -> 2*2 + 1 + 3 - 2 = 6x6."""
    return _conv([1, 4, 3, 3], [4, 2, 3, 3], [1, 2, 6, 6], op="ConvTranspose",
                 bias=True, strides=[2, 2], pads=[1, 1, 1, 1], output_padding=[1, 1])


@case
def conv_transpose_output_shape():
    """output_shape [6, 7]: total pads 1 and 0, begin gets the larger half."""
    return _conv([1, 4, 3, 3], [4, 2, 3, 3], [1, 2, 6, 7], op="ConvTranspose",
                 strides=[2, 2], output_shape=[6, 7])


@case
def conv_transpose_output_shape_full():
    """output_shape given with N and C ([1, 2, 5, 5]), same_upper split."""
    return _conv([1, 4, 3, 3], [4, 2, 3, 3], [1, 2, 5, 5], op="ConvTranspose",
                 strides=[2, 2], output_shape=[1, 2, 5, 5], auto_pad="SAME_UPPER")


@case
def conv_transpose_group_1d():
    """1-D grouped transposed conv: 2 groups, filter [4, 1, 2] -> 2 channels."""
    return _conv([1, 4, 5], [4, 1, 2], [1, 2, 6], op="ConvTranspose", group=2)
