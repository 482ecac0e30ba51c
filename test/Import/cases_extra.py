"""Cases for the import tests of ops decomposed into kiln ops (Trilu, EyeLike,
Hardmax, OneHot, NegativeLogLikelihoodLoss, SoftmaxCrossEntropyLoss,
MeanVarianceNormalization, ReverseSequence, RNN/LSTM unrolled, MaxUnpool, Det)
and of GatherND, ScatterElements, Scatter, ScatterND and GridSample.

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
def trilu():
    """Upper with a run-time k, lower with the default k = 0."""
    nodes = [
        helper.make_node("Trilu", ["x", "k"], ["u"], name="triu0"),
        helper.make_node("Trilu", ["x"], ["l"], name="tril0", upper=0),
    ]
    return model(nodes, [vi("x", F, [2, 3, 4]), vi("k", I64, [])],
                 [vi("u", F, [2, 3, 4]), vi("l", F, [2, 3, 4])], opset=14)


@case
def eyelike():
    """Diagonal 1 of an int32 matrix as float (dtype given)."""
    nodes = [helper.make_node("EyeLike", ["x"], ["y"], name="eye0", k=1,
                              dtype=TensorProto.FLOAT)]
    return model(nodes, [vi("x", I32, [3, 4])], [vi("y", F, [3, 4])], opset=9)


@case
def hardmax():
    """Opset 13 along axis 1; opset 11 form flattens from axis 1."""
    nodes = [helper.make_node("Hardmax", ["x"], ["y"], name="hardmax0", axis=1)]
    return model(nodes, [vi("x", F, [2, 3, 4])], [vi("y", F, [2, 3, 4])])


@case
def hardmax_opset11():
    nodes = [helper.make_node("Hardmax", ["x"], ["y"], name="hardmax0")]
    return model(nodes, [vi("x", F, [2, 3, 4])], [vi("y", F, [2, 3, 4])], opset=11)


@case
def onehot():
    """Constant depth 5 inserted at axis 1; float values."""
    nodes = [helper.make_node("OneHot", ["i", "depth", "values"], ["y"], name="onehot0",
                              axis=1)]
    inits = [numpy_helper.from_array(np.array(5.0, np.float32), "depth")]
    return model(nodes, [vi("i", I64, [2, 3]), vi("values", F, [2])],
                 [vi("y", F, [2, 5, 3])], inits=inits, opset=11)


@case
def onehot_runtime_depth():
    nodes = [helper.make_node("OneHot", ["i", "depth", "values"], ["y"], name="onehot0")]
    return model(nodes, [vi("i", I64, [3]), vi("depth", I64, []), vi("values", F, [2])],
                 [vi("y", F, [3, None])], opset=11)


@case
def nll_loss():
    """Weighted mean with ignore_index over [N, C, d1]."""
    nodes = [helper.make_node("NegativeLogLikelihoodLoss", ["x", "t", "w"], ["y"],
                              name="nll0", reduction="mean", ignore_index=1)]
    return model(nodes, [vi("x", F, [3, 5, 2]), vi("t", I64, [3, 2]), vi("w", F, [5])],
                 [vi("y", F, [])])


@case
def softmax_cross_entropy():
    """reduction none without weights, with the log_prob output."""
    nodes = [helper.make_node("SoftmaxCrossEntropyLoss", ["x", "t"], ["y", "logp"],
                              name="sce0", reduction="none")]
    return model(nodes, [vi("x", F, [3, 5]), vi("t", I64, [3])],
                 [vi("y", F, [3]), vi("logp", F, [3, 5])])


@case
def nll_loss_bad_reduction():
    nodes = [helper.make_node("NegativeLogLikelihoodLoss", ["x", "t"], ["y"],
                              name="nll0", reduction="max")]
    return model(nodes, [vi("x", F, [3, 5]), vi("t", I64, [3])], [vi("y", F, [])])


@case
def mvn():
    nodes = [helper.make_node("MeanVarianceNormalization", ["x"], ["y"], name="mvn0")]
    return model(nodes, [vi("x", F, [2, 3, 4, 5])], [vi("y", F, [2, 3, 4, 5])])


@case
def reverse_sequence():
    nodes = [helper.make_node("ReverseSequence", ["x", "lens"], ["y"], name="rev0",
                              batch_axis=0, time_axis=1)]
    return model(nodes, [vi("x", F, [2, 4, 3]), vi("lens", I64, [2])],
                 [vi("y", F, [2, 4, 3])], opset=10)


@case
def gather_nd_scatter():
    """GatherND with batch dims, ScatterElements (add), Scatter 9, ScatterND (mul)."""
    nodes = [
        helper.make_node("GatherND", ["x", "gi"], ["g"], name="gather_nd0", batch_dims=1),
        helper.make_node("ScatterElements", ["x", "si", "su"], ["s"], name="scatter_el0",
                         axis=-1, reduction="add"),
        helper.make_node("ScatterND", ["x", "ni", "nu"], ["n"], name="scatter_nd0",
                         reduction="mul"),
    ]
    return model(nodes, [vi("x", F, [2, 3, 4]), vi("gi", I32, [2, 1]),
                         vi("si", I64, [2, 3, 2]), vi("su", F, [2, 3, 2]),
                         vi("ni", I64, [5, 2]), vi("nu", F, [5, 4])],
                 [vi("g", F, [2, 4]), vi("s", F, [2, 3, 4]), vi("n", F, [2, 3, 4])],
                 opset=16)


@case
def scatter_opset9():
    nodes = [helper.make_node("Scatter", ["x", "i", "u"], ["y"], name="scatter0", axis=1)]
    return model(nodes, [vi("x", F, [1, 5]), vi("i", I64, [1, 2]), vi("u", F, [1, 2])],
                 [vi("y", F, [1, 5])], opset=9, ir=4)


@case
def scatter_max_opset16():
    nodes = [helper.make_node("ScatterND", ["x", "i", "u"], ["y"], name="scatter_nd0",
                              reduction="max")]
    return model(nodes, [vi("x", F, [4]), vi("i", I64, [2, 1]), vi("u", F, [2])],
                 [vi("y", F, [4])], opset=16)


@case
def rnn_seq_lens():
    """RNN unrolled over 2 steps with bias and run-time sequence_lens."""
    nodes = [helper.make_node("RNN", ["x", "w", "r", "b", "lens"], ["y", "y_h"],
                              name="rnn0", hidden_size=2)]
    return model(nodes, [vi("x", F, [2, 1, 3]), vi("w", F, [1, 2, 3]), vi("r", F, [1, 2, 2]),
                         vi("b", F, [1, 4]), vi("lens", TensorProto.INT32, [1])],
                 [vi("y", F, [2, 1, 1, 2]), vi("y_h", F, [1, 1, 2])], opset=14)


@case
def lstm_input_forget():
    nodes = [helper.make_node("LSTM", ["x", "w", "r"], ["", "y_h"], name="lstm0",
                              hidden_size=2, input_forget=1)]
    return model(nodes, [vi("x", F, [1, 1, 3]), vi("w", F, [1, 8, 3]), vi("r", F, [1, 8, 2])],
                 [vi("y_h", F, [1, 1, 2])], opset=14)


@case
def grid_sample():
    """Opset 16 names: bicubic becomes cubic; reflection padding, align_corners."""
    nodes = [helper.make_node("GridSample", ["x", "g"], ["y"], name="grid0", mode="bicubic",
                              padding_mode="reflection", align_corners=1)]
    return model(nodes, [vi("x", F, [1, 2, 3, 4]), vi("g", F, [1, 5, 6, 2])],
                 [vi("y", F, [1, 2, 5, 6])], opset=16)


@case
def grid_sample_5d():
    nodes = [helper.make_node("GridSample", ["x", "g"], ["y"], name="grid0")]
    return model(nodes, [vi("x", F, [1, 2, 3, 4, 5]), vi("g", F, [1, 2, 2, 2, 3])],
                 [vi("y", F, [1, 2, 2, 2, 2])], opset=20)


@case
def max_unpool():
    """Output size from kernel, strides and pads: (2 - 1) * 2 - 0 + 2 = 4."""
    nodes = [helper.make_node("MaxUnpool", ["x", "i"], ["y"], name="unpool0",
                              kernel_shape=[2, 2], strides=[2, 2])]
    return model(nodes, [vi("x", F, [1, 1, 2, 2]), vi("i", I64, [1, 1, 2, 2])],
                 [vi("y", F, [1, 1, 4, 4])], opset=11)


@case
def det():
    nodes = [helper.make_node("Det", ["x"], ["y"], name="det0")]
    return model(nodes, [vi("x", F, [3, 2, 2])], [vi("y", F, [3])], opset=11)


@case
def det_too_large():
    nodes = [helper.make_node("Det", ["x"], ["y"], name="det0")]
    return model(nodes, [vi("x", F, [5, 5])], [vi("y", F, [])], opset=11)
