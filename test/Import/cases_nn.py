"""Cases for normalization, softmax and pooling import tests.

Loaded by gen_onnx.py, which injects `case`, `model`, `vi` and `weight`.
"""
import numpy as np
from onnx import TensorProto, helper, numpy_helper

F = TensorProto.FLOAT


@case
def batch_norm():
    inits = [weight(n, [3], seed=i) for i, n in enumerate(["s", "b", "m"])]
    inits.append(numpy_helper.from_array(np.array([1.0, 2.0, 3.0], np.float32), "v"))
    node = helper.make_node("BatchNormalization", ["x", "s", "b", "m", "v"], ["y"],
                            name="bn", epsilon=1e-3)
    return model([node], [vi("x", F, [2, 3, 4, 4])], [vi("y", F, [2, 3, 4, 4])],
                 inits=inits, opset=15)


@case
def batch_norm_training():
    node = helper.make_node("BatchNormalization", ["x", "s", "b", "m", "v"], ["y"],
                            name="bn_train", training_mode=1)
    return model([node], [vi("x", F, [2, 3, 4]), vi("s", F, [3]), vi("b", F, [3]),
                          vi("m", F, [3]), vi("v", F, [3])], [vi("y", F, [2, 3, 4])],
                 opset=15)


@case
def instance_norm():
    node = helper.make_node("InstanceNormalization", ["x", "s", "b"], ["y"],
                            name="in", epsilon=0.01)
    return model([node], [vi("x", F, [1, 2, 5, 5]), vi("s", F, [2]), vi("b", F, [2])],
                 [vi("y", F, [1, 2, 5, 5])])


@case
def layer_norm():
    """LayerNormalization 17 over the last two dims (axis -2), with and without bias."""
    nodes = [
        helper.make_node("LayerNormalization", ["x", "s", "b"], ["l"], name="ln",
                         axis=-2, epsilon=1e-6),
        helper.make_node("LayerNormalization", ["l", "s2"], ["y"], name="ln_nobias"),
    ]
    return model(nodes, [vi("x", F, [2, 3, 4]), vi("s", F, [3, 4]), vi("b", F, [3, 4]),
                         vi("s2", F, [4])],
                 [vi("y", F, [2, 3, 4])], opset=17)


@case
def lrn():
    node = helper.make_node("LRN", ["x"], ["y"], name="lrn", size=3, alpha=2e-4,
                            beta=0.5, bias=2.0)
    return model([node], [vi("x", F, [1, 8, 4, 4])], [vi("y", F, [1, 8, 4, 4])])


@case
def softmax_opset11():
    """Softmax 11 axis=1 on [2, 3, 4]: softmax over the flattened [3 * 4]."""
    nodes = [helper.make_node("Softmax", ["x"], ["y"], name="softmax", axis=1)]
    return model(nodes, [vi("x", F, [2, 3, 4])], [vi("y", F, [2, 3, 4])], opset=11)


@case
def softmax_opset11_last():
    """Softmax 11 with axis = rank - 1 needs no reshape; LogSoftmax default axis 1 on 2-D."""
    nodes = [
        helper.make_node("Softmax", ["x"], ["s"], name="softmax", axis=-1),
        helper.make_node("LogSoftmax", ["z"], ["l"], name="logsoftmax"),
    ]
    return model(nodes, [vi("x", F, [2, 3, 4]), vi("z", F, [5, 6])],
                 [vi("s", F, [2, 3, 4]), vi("l", F, [5, 6])], opset=11)


@case
def softmax_opset13():
    """Softmax 13: one axis (default -1), no reshapes."""
    nodes = [
        helper.make_node("Softmax", ["x"], ["s"], name="softmax", axis=1),
        helper.make_node("LogSoftmax", ["s"], ["y"], name="logsoftmax"),
    ]
    return model(nodes, [vi("x", F, [2, 3, 4])], [vi("y", F, [2, 3, 4])], opset=13)


@case
def max_pool_ceil():
    """MaxPool 3x3 stride 2 on 8x9, pads 1 on H only, ceil_mode: H (8+2-3)/2 -> 5, W (9-3)/2 -> 4."""
    node = helper.make_node("MaxPool", ["x"], ["y"], name="maxpool", kernel_shape=[3, 3],
                            strides=[2, 2], pads=[1, 0, 1, 0], ceil_mode=1)
    return model([node], [vi("x", F, [1, 2, 8, 9])], [vi("y", F, [1, 2, 5, 4])])


@case
def max_pool_floor():
    """As max_pool_ceil without ceil_mode: H rounds down to 4."""
    node = helper.make_node("MaxPool", ["x"], ["y"], name="maxpool", kernel_shape=[3, 3],
                            strides=[2, 2], pads=[1, 0, 1, 0])
    return model([node], [vi("x", F, [1, 2, 8, 9])], [vi("y", F, [1, 2, 4, 4])])


@case
def max_pool_same_dilated():
    """MaxPool 10+ with dilations and auto_pad SAME_UPPER (1-D)."""
    node = helper.make_node("MaxPool", ["x"], ["y"], name="maxpool", kernel_shape=[2],
                            dilations=[2], auto_pad="SAME_UPPER")
    return model([node], [vi("x", F, [1, 1, 6])], [vi("y", F, [1, 1, 6])])


@case
def avg_pool():
    """AveragePool with count_include_pad and one without (default 0)."""
    nodes = [
        helper.make_node("AveragePool", ["x"], ["a"], name="avg_incl", kernel_shape=[2, 2],
                         pads=[1, 1, 1, 1], count_include_pad=1),
        helper.make_node("AveragePool", ["a"], ["y"], name="avg_excl", kernel_shape=[3, 3],
                         strides=[3, 3]),
    ]
    return model(nodes, [vi("x", F, [1, 3, 5, 5])], [vi("y", F, [1, 3, 2, 2])])


@case
def global_pool():
    nodes = [
        helper.make_node("GlobalAveragePool", ["x"], ["a"], name="gap"),
        helper.make_node("GlobalMaxPool", ["z"], ["m"], name="gmp"),
    ]
    return model(nodes, [vi("x", F, [2, 3, 7, 7]), vi("z", F, [1, 4, 2, 3, 5])],
                 [vi("a", F, [2, 3, 1, 1]), vi("m", F, [1, 4, 1, 1, 1])])


@case
def avg_pool_ceil_window_in_pad():
    """ceil_mode where the last window would start in the end padding: 6 with
    kernel 2, stride 2, pads [0, 1] gives 3 (ONNX >= 19, PyTorch, onnxruntime),
    not the 4 of libonnx 1.12's formula. The output's shape is not declared."""
    node = helper.make_node("AveragePool", ["x"], ["y"], name="avgpool", kernel_shape=[2],
                            strides=[2], pads=[0, 1], ceil_mode=1)
    return model([node], [vi("x", F, [1, 1, 6])], [vi("y", F, None)])


@case
def layer_norm_stats():
    """LayerNormalization whose Mean and InvStdDev outputs are graph outputs."""
    import numpy as np
    from onnx import TensorProto, helper, numpy_helper
    F = TensorProto.FLOAT
    node = helper.make_node("LayerNormalization", ["x", "s"], ["y", "mean", "inv_std"],
                            name="ln", axis=-1, epsilon=1e-5)
    s = numpy_helper.from_array(np.ones([4], np.float32), "s")
    return model([node], [vi("x", F, [2, 4])],
                 [vi("y", F, [2, 4]), vi("mean", F, [2, 1]), vi("inv_std", F, [2, 1])],
                 inits=[s], opset=17)
