"""Cases of bad input for the import error tests in errors/: unsupported
versions, unknown ops and domains, control flow, wrongly typed attributes,
inconsistent shapes, unsorted graphs, malformed tensors and broken files.

Loaded by gen_onnx.py, which injects `case`, `model`, `vi` and `weight`.
"""
import numpy as np
from onnx import AttributeProto, TensorProto, helper, numpy_helper

F = TensorProto.FLOAT
B = TensorProto.BOOL
I64 = TensorProto.INT64


def _relu_model(**kw):
    return model([helper.make_node("Relu", ["x"], ["y"], name="relu0")],
                 [vi("x", F, [2, 3])], [vi("y", F, [2, 3])], **kw)


@case
def err_ir_too_new():
    return _relu_model(ir=99)


@case
def err_opset_too_new():
    return _relu_model(opset=99)


@case
def err_opset_too_old():
    return _relu_model(opset=0, ir=3)


@case
def err_unknown_op():
    nodes = [helper.make_node("FrobnicateTensor", ["x"], ["y"], name="frob0")]
    return model(nodes, [vi("x", F, [2, 3])], [vi("y", F, [2, 3])])


@case
def err_unknown_domain():
    nodes = [helper.make_node("Relu", ["x"], ["y"], name="custom_relu",
                              domain="com.example")]
    graph = helper.make_graph(nodes, "g", [vi("x", F, [2, 3])], [vi("y", F, [2, 3])])
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13),
                                                helper.make_opsetid("com.example", 1)])
    m.ir_version = 8
    return m


def _body(name, inputs, outputs, nodes):
    return helper.make_graph(nodes, name, inputs, outputs)


@case
def err_if():
    then_g = _body("then", [], [vi("t", F, [2])],
                   [helper.make_node("Relu", ["x"], ["t"], name="then_relu")])
    else_g = _body("else", [], [vi("e", F, [2])],
                   [helper.make_node("Neg", ["x"], ["e"], name="else_neg")])
    nodes = [helper.make_node("If", ["c"], ["y"], name="if0", then_branch=then_g,
                              else_branch=else_g)]
    return model(nodes, [vi("c", B, []), vi("x", F, [2])], [vi("y", F, [2])])


@case
def err_loop():
    body = _body("body", [vi("i", I64, []), vi("cond_in", B, []), vi("acc_in", F, [2])],
                 [vi("cond_out", B, []), vi("acc_out", F, [2])],
                 [helper.make_node("Identity", ["cond_in"], ["cond_out"], name="keep"),
                  helper.make_node("Relu", ["acc_in"], ["acc_out"], name="body_relu")])
    nodes = [helper.make_node("Loop", ["n", "", "x"], ["y"], name="loop0", body=body)]
    return model(nodes, [vi("n", I64, []), vi("x", F, [2])], [vi("y", F, [2])])


@case
def err_loop_cond_computed():
    """Loop with a trip count of 5 whose body's condition is computed from x's values."""
    body = _body("body", [vi("i", I64, []), vi("cond_in", B, []), vi("acc_in", F, [2])],
                 [vi("cond_out", B, []), vi("acc_out", F, [2])],
                 [helper.make_node("ReduceSum", ["acc_in"], ["sum"], name="sum", keepdims=0),
                  helper.make_node("Constant", [], ["lim"], name="lim",
                                   value=numpy_helper.from_array(np.array(10.0, np.float32))),
                  helper.make_node("Less", ["sum", "lim"], ["cond_out"], name="under"),
                  helper.make_node("Relu", ["acc_in"], ["acc_out"], name="body_relu")])
    five = numpy_helper.from_array(np.array(5, np.int64), "five")
    yes = numpy_helper.from_array(np.array(True), "yes")
    nodes = [helper.make_node("Loop", ["five", "yes", "x"], ["y"], name="loop0", body=body)]
    return model(nodes, [vi("x", F, [2])], [vi("y", F, [2])], inits=[five, yes])


@case
def err_scan():
    body = _body("body", [vi("s_in", F, [2]), vi("e", F, [2])],
                 [vi("s_out", F, [2]), vi("o", F, [2])],
                 [helper.make_node("Add", ["s_in", "e"], ["s_out"], name="body_add"),
                  helper.make_node("Identity", ["s_out"], ["o"], name="body_id")])
    nodes = [helper.make_node("Scan", ["s", "xs"], ["final", "ys"], name="scan0", body=body,
                              num_scan_inputs=1)]
    return model(nodes, [vi("s", F, [2]), vi("xs", F, [3, 2])],
                 [vi("final", F, [2]), vi("ys", F, [3, 2])], opset=11)


@case
def err_attr_conv_strides_float():
    node = helper.make_node("Conv", ["x", "w"], ["y"], name="conv_bad")
    bad = AttributeProto(name="strides", type=AttributeProto.FLOAT, f=2.0)
    node.attribute.append(bad)
    return model([node], [vi("x", F, [1, 1, 4, 4]), vi("w", F, [1, 1, 3, 3])],
                 [vi("y", F, None)])


@case
def err_attr_concat_axis_string():
    node = helper.make_node("Concat", ["a", "b"], ["y"], name="concat_bad", axis="1")
    return model([node], [vi("a", F, [2, 3]), vi("b", F, [2, 3])], [vi("y", F, None)])


@case
def err_shape_add():
    nodes = [helper.make_node("Add", ["a", "b"], ["y"], name="add_bad")]
    return model(nodes, [vi("a", F, [3]), vi("b", F, [4])], [vi("y", F, None)])


@case
def err_shape_matmul():
    nodes = [helper.make_node("MatMul", ["a", "b"], ["y"], name="matmul_bad")]
    return model(nodes, [vi("a", F, [2, 3]), vi("b", F, [4, 5])], [vi("y", F, None)])


@case
def err_shape_declared():
    """Transpose of [2, 3] declared as [2, 3] (kiln computes [3, 2])."""
    nodes = [helper.make_node("Transpose", ["x"], ["y"], name="transpose0")]
    return model(nodes, [vi("x", F, [2, 3])], [vi("y", F, [2, 3])])


@case
def err_not_sorted():
    nodes = [
        helper.make_node("Neg", ["h"], ["y"], name="neg_first"),
        helper.make_node("Relu", ["x"], ["h"], name="relu_second"),
    ]
    return model(nodes, [vi("x", F, [2, 3])], [vi("y", F, [2, 3])])


@case
def err_raw_data_size():
    w = TensorProto(name="w", data_type=F, dims=[3], raw_data=b"\x00" * 10)
    nodes = [helper.make_node("Add", ["x", "w"], ["y"], name="add0")]
    return model(nodes, [vi("x", F, [3])], [vi("y", F, [3])], inits=[w])


@case
def err_random_bytes():
    # Seeded, so the file is the same every run; checked to not parse as a model.
    return np.random.default_rng(1234).integers(0, 256, 4096, dtype=np.uint8).tobytes()


@case
def err_truncated():
    """The first half of a valid model whose weight is 1000 floats of raw data."""
    m = model([helper.make_node("Add", ["x", "w"], ["y"], name="add0")],
              [vi("x", F, [1000])], [vi("y", F, [1000])], inits=[weight("w", [1000])])
    data = m.SerializeToString()
    return data[:len(data) // 2]


@case
def err_duplicate_definition():
    """Two nodes define 'y' (ONNX graphs are in SSA form)."""
    nodes = [
        helper.make_node("Relu", ["x"], ["y"], name="relu_first"),
        helper.make_node("Neg", ["x"], ["y"], name="neg_second"),
    ]
    return model(nodes, [vi("x", F, [2])], [vi("y", F, [2])])


# --- Models that break ONNX's rules in ways its checker may let through.


@case
def err_conv_kernel_shape():
    """kernel_shape [5, 5] on a Conv whose filter is 3x3."""
    node = helper.make_node("Conv", ["x", "w"], ["y"], name="conv_k", kernel_shape=[5, 5])
    return model([node], [vi("x", F, [1, 1, 8, 8])], [vi("y", F, None)],
                 inits=[weight("w", [2, 1, 3, 3])])


@case
def err_conv_transpose_kernel_shape():
    """kernel_shape [2, 2] on a ConvTranspose whose filter is 3x3."""
    node = helper.make_node("ConvTranspose", ["x", "w"], ["y"], name="deconv_k",
                            kernel_shape=[2, 2])
    return model([node], [vi("x", F, [1, 2, 4, 4])], [vi("y", F, None)],
                 inits=[weight("w", [2, 1, 3, 3])])


@case
def err_pool_kernel_rank():
    """A 3-D kernel_shape on the 2-D spatial dims of a MaxPool input."""
    node = helper.make_node("MaxPool", ["x"], ["y"], name="pool_k", kernel_shape=[2, 2, 2])
    return model([node], [vi("x", F, [1, 1, 8, 8])], [vi("y", F, None)])


@case
def err_pool_kernel_too_large():
    """A 5x5 AveragePool window over a 4x4 input without padding."""
    node = helper.make_node("AveragePool", ["x"], ["y"], name="pool_big", kernel_shape=[5, 5])
    return model([node], [vi("x", F, [1, 1, 4, 4])], [vi("y", F, None)])


@case
def err_no_outputs():
    return model([helper.make_node("Relu", ["x"], ["y"], name="relu0")],
                 [vi("x", F, [2, 3])], [])


@case
def err_empty_graph():
    """No nodes and no outputs."""
    return model([], [vi("x", F, [2, 3])], [])


@case
def err_empty_graph_output_undefined():
    """No nodes; the output is neither an input nor an initializer."""
    return model([], [vi("x", F, [2, 3])], [vi("y", F, [2, 3])])


@case
def empty_graph_passthrough():
    """No nodes; the output is the input itself (legal ONNX)."""
    return model([], [vi("x", F, [2, 3])], [vi("x", F, [2, 3])])


def _elem_input_model(elem):
    return model([helper.make_node("Identity", ["x"], ["y"], name="id0")],
                 [vi("x", elem, [2])], [vi("y", elem, [2])])


@case
def err_input_string():
    return _elem_input_model(TensorProto.STRING)


@case
def err_input_undefined():
    return _elem_input_model(TensorProto.UNDEFINED)


@case
def err_input_bad_enum():
    return _elem_input_model(77)


def _elem_init_model(tensor):
    return model([helper.make_node("Identity", ["w"], ["y"], name="id0")],
                 [], [vi("y", F, None)], inits=[tensor])


@case
def err_init_string():
    return _elem_init_model(helper.make_tensor("w", TensorProto.STRING, [2], [b"a", b"b"]))


@case
def err_init_undefined():
    return _elem_init_model(TensorProto(name="w", data_type=TensorProto.UNDEFINED, dims=[2],
                                        raw_data=b"\x00" * 8))


@case
def err_init_bad_enum():
    return _elem_init_model(TensorProto(name="w", data_type=77, dims=[2], raw_data=b"\x00" * 8))
