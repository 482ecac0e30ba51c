"""Cases for If nodes whose condition is known at build time: a Constant, an initializer, a graph
input fixed with --input-value, a comparison of static shapes; nested branches, branches reading
the outer scope and shadowing its names; and conditions known only at run time.

Loaded by gen_onnx.py, which injects `case`, `model`, `vi` and `weight`.
"""
import numpy as np
from onnx import TensorProto, helper, numpy_helper

F = TensorProto.FLOAT
I64 = TensorProto.INT64
B = TensorProto.BOOL


def _if(cond, outs, then_nodes, then_outs, else_nodes, else_outs, name="if0", inits=()):
    """An If node; each branch is (nodes, [(output name, elem, shape)])."""
    then_g = helper.make_graph(then_nodes, name + "_then", [],
                               [vi(n, e, s) for n, e, s in then_outs], list(inits))
    else_g = helper.make_graph(else_nodes, name + "_else", [],
                               [vi(n, e, s) for n, e, s in else_outs])
    return helper.make_node("If", [cond], outs, name=name, then_branch=then_g,
                            else_branch=else_g)


def _relu_or_neg(cond):
    """If(cond) { t = Relu(x) } else { e = Neg(x) } -> y, both read x [2, 3] of the outer scope."""
    return _if(cond, ["y"],
               [helper.make_node("Relu", ["x"], ["t"], name="then_relu")], [("t", F, [2, 3])],
               [helper.make_node("Neg", ["x"], ["e"], name="else_neg")], [("e", F, [2, 3])])


@case
def if_constant_true():
    """cond is a Constant node (true): the then branch (Relu) is built."""
    nodes = [helper.make_node("Constant", [], ["c"], name="cond",
                              value=numpy_helper.from_array(np.array(True), "c")),
             _relu_or_neg("c")]
    return model(nodes, [vi("x", F, [2, 3])], [vi("y", F, [2, 3])])


@case
def if_initializer_false():
    """cond is an initializer (false): the else branch (Neg) is built."""
    c = numpy_helper.from_array(np.array([False]), "c")
    return model([_relu_or_neg("c")], [vi("x", F, [2, 3])], [vi("y", F, [2, 3])], inits=[c],
                 opset=16)


@case
def if_input_value():
    """cond = Equal(sr, 16000) on scalar int64 graph input 'sr': known with --input-value."""
    k = numpy_helper.from_array(np.array(16000, np.int64), "k")
    nodes = [helper.make_node("Equal", ["sr", "k"], ["c"], name="is_16k"), _relu_or_neg("c")]
    return model(nodes, [vi("x", F, [2, 3]), vi("sr", I64, [])], [vi("y", F, [2, 3])],
                 inits=[k], opset=16)


@case
def if_shape_condition():
    """cond = Equal(Gather(Shape(x), 1), 3): known once x's shape is static (N x 3)."""
    idx = numpy_helper.from_array(np.array(1, np.int64), "idx")
    three = numpy_helper.from_array(np.array(3, np.int64), "three")
    nodes = [helper.make_node("Shape", ["x"], ["s"], name="shape_x"),
             helper.make_node("Gather", ["s", "idx"], ["d1"], name="dim1", axis=0),
             helper.make_node("Equal", ["d1", "three"], ["c"], name="is_3"),
             _if("c", ["y"],
                 [helper.make_node("Relu", ["x"], ["t"], name="then_relu")], [("t", F, ["N", 3])],
                 [helper.make_node("Neg", ["x"], ["e"], name="else_neg")], [("e", F, ["N", 3])])]
    return model(nodes, [vi("x", F, ["N", 3])], [vi("y", F, ["N", 3])],
                 inits=[idx, three], opset=13)


@case
def if_nested_scopes():
    """Outer If (true) whose then branch holds an initializer 'w', a value 'x2' that shadows
    nothing, an inner If on Less(Size(x), 100) (true) reading 'x2' and 'w' from the two enclosing
    scopes, and a branch output renamed to the If's output 'y'; 'v' is computed before the If and
    only read inside it; the then branch also defines 'z', a name the else branch reuses."""
    w = numpy_helper.from_array(np.full([2, 3], 2.0, np.float32), "w")
    hundred = numpy_helper.from_array(np.array(100, np.int64), "hundred")
    inner = _if("small", ["inner_out"],
                [helper.make_node("Mul", ["x2", "w"], ["z"], name="inner_mul")], [("z", F, [2, 3])],
                [helper.make_node("Sub", ["x2", "w"], ["z2"], name="inner_sub")],
                [("z2", F, [2, 3])], name="inner_if")
    then_nodes = [helper.make_node("Add", ["x", "v"], ["x2"], name="then_add"),
                  helper.make_node("Size", ["x"], ["n"], name="then_size"),
                  helper.make_node("Less", ["n", "hundred"], ["small"], name="then_less"),
                  inner]
    outer = _if("c", ["y"], then_nodes, [("inner_out", F, [2, 3])],
                [helper.make_node("Neg", ["x"], ["z"], name="else_neg")], [("z", F, [2, 3])],
                inits=[w])
    nodes = [helper.make_node("Constant", [], ["c"], name="cond",
                              value=numpy_helper.from_array(np.array(True), "c")),
             helper.make_node("Relu", ["x"], ["v"], name="relu_v"),
             outer]
    return model(nodes, [vi("x", F, [2, 3])], [vi("y", F, [2, 3])], inits=[hundred], opset=13)


@case
def if_runtime_condition():
    """cond = Greater(ReduceSum(x), 0): computed from the values of graph input 'x'."""
    zero = numpy_helper.from_array(np.array(0.0, np.float32), "zero")
    nodes = [helper.make_node("ReduceSum", ["x"], ["s"], name="sum", keepdims=0),
             helper.make_node("Greater", ["s", "zero"], ["c"], name="positive"),
             _relu_or_neg("c")]
    return model(nodes, [vi("x", F, [2, 3])], [vi("y", F, [2, 3])], inits=[zero])


@case
def if_dynamic_shape_condition():
    """cond = Equal(Gather(Shape(x), 0), 1) with x [N, 3]: needs a static N."""
    idx = numpy_helper.from_array(np.array(0, np.int64), "idx")
    one = numpy_helper.from_array(np.array(1, np.int64), "one")
    nodes = [helper.make_node("Shape", ["x"], ["s"], name="shape_x"),
             helper.make_node("Gather", ["s", "idx"], ["d0"], name="dim0", axis=0),
             helper.make_node("Equal", ["d0", "one"], ["c"], name="batch1"),
             _if("c", ["y"],
                 [helper.make_node("Relu", ["x"], ["t"], name="then_relu")], [("t", F, ["N", 3])],
                 [helper.make_node("Neg", ["x"], ["e"], name="else_neg")], [("e", F, ["N", 3])])]
    return model(nodes, [vi("x", F, ["N", 3])], [vi("y", F, ["N", 3])], inits=[idx, one])


@case
def if_branch_unsupported():
    """cond true; the taken branch holds an op kiln has no importer for."""
    nodes = [helper.make_node("Constant", [], ["c"], name="cond",
                              value=numpy_helper.from_array(np.array(True), "c")),
             _if("c", ["y"],
                 [helper.make_node("StringNormalizer", ["x"], ["t"], name="then_odd")],
                 [("t", F, [2, 3])],
                 [helper.make_node("Neg", ["x"], ["e"], name="else_neg")], [("e", F, [2, 3])])]
    return model(nodes, [vi("x", F, [2, 3])], [vi("y", F, [2, 3])])
