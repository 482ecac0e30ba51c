"""Cases for elementwise import tests: unary ops and activations, binary,
compare and logical ops, variadic Sum/Mean/Max/Min, Pow, Cast, Clip, Where.

Loaded by gen_onnx.py, which injects `case`, `model`, `vi` and `weight`.
"""
import numpy as np
from onnx import TensorProto, helper, numpy_helper

F = TensorProto.FLOAT
I32 = TensorProto.INT32
I64 = TensorProto.INT64
B = TensorProto.BOOL
U8 = TensorProto.UINT8
F16 = TensorProto.FLOAT16

_UNARY13 = ["Relu", "Sigmoid", "Tanh", "Erf", "Sqrt", "Exp", "Log",
            "Reciprocal", "Floor", "Ceil", "Round", "Sin", "Cos", "Tan", "Asin",
            "Acos", "Atan", "Sinh", "Cosh", "Asinh", "Acosh", "Atanh",
            "Softplus", "Softsign", "Abs", "Neg", "Sign"]


def _chain(ops, x="x", prefix="u"):
    """A chain of single-input nodes; returns (nodes, last output name)."""
    nodes, cur = [], x
    for i, spec in enumerate(ops):
        op, attrs = spec if isinstance(spec, tuple) else (spec, {})
        out = "%s%d" % (prefix, i)
        nodes.append(helper.make_node(op, [cur], [out], name=op.lower(), **attrs))
        cur = out
    return nodes, cur


@case
def unary_chain():
    """Every attribute-free float unary op of opset 13, chained."""
    nodes, last = _chain(_UNARY13)
    nodes.append(helper.make_node("Identity", [last], ["y"], name="identity"))
    return model(nodes, [vi("x", F, [2, 3])], [vi("y", F, [2, 3])])


@case
def activations():
    """Activations with attributes, all set to non-default values."""
    nodes, last = _chain([
        ("LeakyRelu", {"alpha": 0.25}),
        ("Elu", {"alpha": 0.5}),
        ("Selu", {"alpha": 1.5, "gamma": 2.0}),
        ("Celu", {"alpha": 2.0}),
        ("HardSigmoid", {"alpha": 0.25, "beta": 0.75}),
        ("ThresholdedRelu", {"alpha": 0.5}),
        ("Shrink", {"bias": 0.25, "lambd": 0.75}),
        ("HardSwish", {}),
    ])
    nodes.append(helper.make_node("PRelu", [last, "slope"], ["y"], name="prelu"))
    return model(nodes, [vi("x", F, [1, 4, 2]), vi("slope", F, [4, 1])],
                 [vi("y", F, [1, 4, 2])], opset=14)


@case
def activations_defaults():
    """LeakyRelu, Elu and HardSigmoid without attributes get ONNX defaults."""
    nodes, last = _chain(["LeakyRelu", "Elu", "HardSigmoid"])
    nodes.append(helper.make_node("Identity", [last], ["y"], name="identity"))
    return model(nodes, [vi("x", F, [5])], [vi("y", F, [5])])


@case
def unary_opset20():
    """Mish (18), Gelu (20), IsInf/IsNaN and BitwiseNot (18)."""
    nodes = [
        helper.make_node("Mish", ["x"], ["m"], name="mish"),
        helper.make_node("Gelu", ["m"], ["g"], name="gelu", approximate="tanh"),
        helper.make_node("IsInf", ["g"], ["inf"], name="isinf", detect_negative=0),
        helper.make_node("IsNaN", ["x"], ["nan"], name="isnan"),
        helper.make_node("Not", ["nan"], ["notnan"], name="not"),
        helper.make_node("BitwiseNot", ["i"], ["ni"], name="bitwise_not"),
    ]
    return model(nodes, [vi("x", F, [3, 2]), vi("i", I32, [4])],
                 [vi("inf", B, [3, 2]), vi("notnan", B, [3, 2]), vi("ni", I32, [4])],
                 opset=20, ir=9)


@case
def binary_arith():
    """Add/Sub/Mul/Div broadcasting [2,1,4] with [3,1] and scalars."""
    nodes = [
        helper.make_node("Add", ["a", "b"], ["s0"], name="add"),
        helper.make_node("Sub", ["s0", "b"], ["s1"], name="sub"),
        helper.make_node("Mul", ["s1", "c"], ["s2"], name="mul"),
        helper.make_node("Div", ["c", "s2"], ["y"], name="div"),
    ]
    return model(nodes, [vi("a", F, [2, 1, 4]), vi("b", F, [3, 1]), vi("c", F, [])],
                 [vi("y", F, [2, 3, 4])])


@case
def binary_int():
    """Integer Mod (fmod 0), float Mod (fmod 1), BitShift and Bitwise ops."""
    nodes = [
        helper.make_node("Mod", ["i", "j"], ["m"], name="mod_int"),
        helper.make_node("Mod", ["f", "g"], ["fm"], name="mod_float", fmod=1),
        helper.make_node("BitShift", ["u", "v"], ["sh"], name="shift", direction="RIGHT"),
        helper.make_node("BitwiseAnd", ["i", "j"], ["ba"], name="band"),
        helper.make_node("BitwiseOr", ["ba", "j"], ["bo"], name="bor"),
        helper.make_node("BitwiseXor", ["bo", "m"], ["bx"], name="bxor"),
    ]
    return model(nodes, [vi("i", I32, [4]), vi("j", I32, [4]), vi("f", F, [2, 4]),
                         vi("g", F, [4]), vi("u", U8, [3]), vi("v", U8, [3])],
                 [vi("fm", F, [2, 4]), vi("sh", U8, [3]), vi("bx", I32, [4])],
                 opset=18, ir=8)


@case
def compare_logical():
    """Comparisons give i1; And/Or/Xor/Not combine them."""
    nodes = [
        helper.make_node("Equal", ["a", "b"], ["eq"], name="eq"),
        helper.make_node("Less", ["a", "b"], ["lt"], name="lt"),
        helper.make_node("LessOrEqual", ["a", "b"], ["le"], name="le"),
        helper.make_node("Greater", ["a", "b"], ["gt"], name="gt"),
        helper.make_node("GreaterOrEqual", ["a", "b"], ["ge"], name="ge"),
        helper.make_node("And", ["eq", "lt"], ["and"], name="and"),
        helper.make_node("Or", ["and", "le"], ["or"], name="or"),
        helper.make_node("Xor", ["or", "gt"], ["xor"], name="xor"),
        helper.make_node("Or", ["xor", "ge"], ["y"], name="or2"),
    ]
    return model(nodes, [vi("a", F, [2, 3]), vi("b", F, [1, 3])], [vi("y", B, [2, 3])])


@case
def compare_int():
    """Equal on int64 with broadcasting to a rank-2 result."""
    nodes = [helper.make_node("Equal", ["a", "b"], ["y"], name="eq")]
    return model(nodes, [vi("a", I64, [4, 1]), vi("b", I64, [5])], [vi("y", B, [4, 5])])


@case
def variadic():
    """Sum/Max/Min/Mean of three inputs become chains of binary ops."""
    nodes = [
        helper.make_node("Sum", ["a", "b", "c"], ["s"], name="sum"),
        helper.make_node("Max", ["s", "b", "c"], ["mx"], name="max"),
        helper.make_node("Min", ["mx", "a", "c"], ["mn"], name="min"),
        helper.make_node("Mean", ["mn", "a", "b"], ["y"], name="mean"),
    ]
    return model(nodes, [vi("a", F, [2, 3]), vi("b", F, [3]), vi("c", F, [1, 1])],
                 [vi("y", F, [2, 3])])


@case
def variadic_single():
    """Sum and Mean of one input are that input."""
    nodes = [
        helper.make_node("Sum", ["a"], ["s"], name="sum1"),
        helper.make_node("Mean", ["s"], ["m"], name="mean1"),
        helper.make_node("Relu", ["m"], ["y"], name="relu"),
    ]
    return model(nodes, [vi("a", F, [2, 3])], [vi("y", F, [2, 3])])


@case
def pow_mixed():
    """Pow with an f32 base and an i64 exponent; and f16 base with f32 exponent."""
    nodes = [
        helper.make_node("Pow", ["x", "e"], ["p"], name="pow_int_exp"),
        helper.make_node("Pow", ["h", "f"], ["q"], name="pow_f16"),
        helper.make_node("Pow", ["x", "x"], ["r"], name="pow_same"),
    ]
    return model(nodes, [vi("x", F, [2, 3]), vi("e", I64, [3]), vi("h", F16, [4]),
                         vi("f", F, [])],
                 [vi("p", F, [2, 3]), vi("q", F16, [4]), vi("r", F, [2, 3])])


@case
def cast():
    """Cast f32 -> i32 -> f16 -> bool, and CastLike to an i64 tensor."""
    nodes = [
        helper.make_node("Cast", ["x"], ["i"], name="to_i32", to=I32),
        helper.make_node("Cast", ["i"], ["h"], name="to_f16", to=F16),
        helper.make_node("Cast", ["h"], ["b"], name="to_bool", to=B),
        helper.make_node("CastLike", ["x", "like"], ["l"], name="castlike"),
    ]
    return model(nodes, [vi("x", F, [2, 3]), vi("like", I64, [1])],
                 [vi("b", B, [2, 3]), vi("l", I64, [2, 3])], opset=15)


@case
def cast_const_fold():
    """Cast of a constant folds to a constant of the new type."""
    c = numpy_helper.from_array(np.array([1.5, -2.5, 3.0], np.float32), "c")
    nodes = [
        helper.make_node("Cast", ["c"], ["ci"], name="cast_c", to=I64),
        helper.make_node("Add", ["x", "ci"], ["y"], name="add"),
    ]
    return model(nodes, [vi("x", I64, [3])], [vi("y", I64, [3])], inits=[c])


@case
def clip_opset6():
    """Clip 6 (current up to opset 10): bounds are attributes; an absent max is +FLT_MAX."""
    nodes = [
        helper.make_node("Clip", ["x"], ["c"], name="clip_both", min=-1.0, max=6.0),
        helper.make_node("Clip", ["c"], ["y"], name="clip_min", min=0.5),
    ]
    return model(nodes, [vi("x", F, [2, 3])], [vi("y", F, [2, 3])], opset=10, ir=5)


@case
def clip_opset13():
    """Clip 13: bounds are optional constant inputs, made attributes."""
    lo = numpy_helper.from_array(np.array(-2.0, np.float32), "lo")
    hi = numpy_helper.from_array(np.array(3.5, np.float32), "hi")
    nodes = [
        helper.make_node("Clip", ["x", "lo", "hi"], ["c"], name="clip_both"),
        helper.make_node("Clip", ["c", "", "hi"], ["d"], name="clip_max"),
        helper.make_node("Clip", ["d"], ["y"], name="clip_none"),
    ]
    return model(nodes, [vi("x", F, [2, 3])], [vi("y", F, [2, 3])], inits=[lo, hi])


@case
def clip_dynamic_bound():
    """Clip 13 with a bound computed at run time is rejected."""
    nodes = [helper.make_node("Clip", ["x", "lo"], ["y"], name="clip_rt")]
    return model(nodes, [vi("x", F, [2, 3]), vi("lo", F, [])], [vi("y", F, [2, 3])])


@case
def where():
    """Where broadcasts condition [3,1], lhs [1,4] and a scalar rhs."""
    nodes = [helper.make_node("Where", ["c", "a", "b"], ["y"], name="where")]
    return model(nodes, [vi("c", B, [3, 1]), vi("a", F, [1, 4]), vi("b", F, [])],
                 [vi("y", F, [3, 4])])


@case
def pow_int_base():
    """Pow with an i32 base and an f32 exponent: 4 ** 0.5 is 2, so the exponent
    must not be truncated to an integer."""
    nodes = [helper.make_node("Pow", ["x", "e"], ["y"], name="pow_int_base")]
    return model(nodes, [vi("x", I32, [3]), vi("e", F, [3])], [vi("y", I32, [3])], opset=15)
