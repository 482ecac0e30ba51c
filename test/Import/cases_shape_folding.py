"""Cases for shape subgraphs through ops the graph dialect has no folder for (Floor, Ceil, Sqrt,
Abs, Sign, Not, Split, Tile, Clip, ReduceMax, ReduceMin): each chain starts at Shape(x) for
x [2, 3, 4, 5] and ends in Reshape's shape, which must fold to a constant.

Loaded by gen_onnx.py, which injects `case`, `model`, `vi` and `weight`.
"""
import numpy as np
from onnx import TensorProto, helper, numpy_helper

F = TensorProto.FLOAT
I64 = TensorProto.INT64
N = helper.make_node


def _c(name, array):
    return numpy_helper.from_array(np.asarray(array), name)


def _reshape_by(chain, inits, out_shape, opset=13):
    nodes = [N("Shape", ["x"], ["s"], name="shape_x")] + chain + \
        [N("Reshape", ["x", "r"], ["y"], name="reshape")]
    return model(nodes, [vi("x", F, [2, 3, 4, 5])], [vi("y", F, out_shape)], inits=inits,
                 opset=opset)


@case
def fold_ceil_floor_sqrt():
    """r = [Ceil(d0 / 4) * 2, Floor(Sqrt(d1 * d1 * 4.0)) * 10] = [2, 60] as float arithmetic."""
    chain = [N("Cast", ["s"], ["sf"], to=F, name="to_float"),
             N("Gather", ["sf", "i0"], ["d0"], axis=0, name="d0"),
             N("Gather", ["sf", "i1"], ["d1"], axis=0, name="d1"),
             N("Div", ["d0", "four"], ["q"], name="quarter"),
             N("Ceil", ["q"], ["cq"], name="ceil"),
             N("Mul", ["cq", "two"], ["a"], name="twice"),
             N("Mul", ["d1", "d1"], ["dd"], name="square"),
             N("Mul", ["dd", "four"], ["dd4"], name="times4"),
             N("Sqrt", ["dd4"], ["root"], name="sqrt"),
             N("Floor", ["root"], ["fr"], name="floor"),
             N("Mul", ["fr", "ten"], ["b"], name="times10"),
             N("Concat", ["a", "b"], ["rf"], axis=0, name="concat"),
             N("Cast", ["rf"], ["r"], to=I64, name="to_int")]
    inits = [_c("i0", np.array([0], np.int64)), _c("i1", np.array([1], np.int64)),
             _c("four", np.array(4.0, np.float32)), _c("two", np.array(2.0, np.float32)),
             _c("ten", np.array(10.0, np.float32))]
    return _reshape_by(chain, inits, [2, 60])


@case
def fold_split_tile_clip():
    """Split(Shape(x)) into [2, 3] and [4, 5]; r = Clip(Tile(Max... of the halves)):
    Tile([2, 3], [2]) = [2, 3, 2, 3]; Clip to [2, 10] -> [2, 3, 2, 3]; then ReduceMax/ReduceMin of
    the second half ([5], [4]) replace the last two -> [2, 3, 5, 4]."""
    chain = [N("Split", ["s"], ["lo", "hi"], axis=0, name="split"),
             N("Tile", ["lo", "two"], ["t"], name="tile"),
             N("Clip", ["t", "cmin", "cmax"], ["tc"], name="clip"),
             N("Slice", ["tc", "z", "two"], ["head"], name="head"),
             N("ReduceMax", ["hi"], ["mx"], keepdims=1, name="max"),
             N("ReduceMin", ["hi"], ["mn"], keepdims=1, name="min"),
             N("Concat", ["head", "mx", "mn"], ["r"], axis=0, name="concat")]
    inits = [_c("two", np.array([2], np.int64)), _c("z", np.array([0], np.int64)),
             _c("cmin", np.array(2, np.int64)), _c("cmax", np.array(10, np.int64))]
    return _reshape_by(chain, inits, [2, 3, 5, 4])


@case
def fold_abs_sign_not():
    """r = Concat(Where(Not(Equal(s, [2, 0, 4, 0])), Abs(Neg(s)) * Sign(s), 1), [-1]) =
    [1, 3, 1, 5, -1]: the dims equal to the constant become 1, the rest goes last (8)."""
    chain = [N("Equal", ["s", "k"], ["e"], name="equal"),
             N("Not", ["e"], ["ne"], name="not"),
             N("Neg", ["s"], ["ns"], name="neg"),
             N("Abs", ["ns"], ["a"], name="abs"),
             N("Sign", ["s"], ["g"], name="sign"),
             N("Mul", ["a", "g"], ["ag"], name="mul"),
             N("Where", ["ne", "ag", "ones"], ["w"], name="where"),
             N("Concat", ["w", "rest"], ["r"], axis=0, name="concat")]
    inits = [_c("k", np.array([2, 0, 4, 0], np.int64)), _c("ones", np.ones(4, np.int64)),
             _c("rest", np.array([-1], np.int64))]
    return _reshape_by(chain, inits, [1, 3, 1, 5, 8])
