#!/usr/bin/python3
"""Writes exported-style ONNX models whose shapes are static but computed by subgraphs, with
inputs and numpy reference outputs, for kiln's e2e tests.

Usage: gen_computed_shapes.py CASE DIR  ->  DIR/model.onnx, DIR/input_K.pb, DIR/output_K.pb
       gen_computed_shapes.py --list
(the layout `kiln-run --input-dir DIR --compare DIR` reads). The models mimic what exporters
write: tf2onnx's Pad whose pads come from Shape/Cast/Ceil/Slice/Concat arithmetic (in ONNX's
[begin..., end...] order, and in TF's [rank, 2] order through Transpose and Reshape), Resize
with scales or sizes computed from Shape, Reshape/Expand/Tile/ConstantOfShape/Range operands
computed from Shape, LSTM voice-activity models with an If on the sample rate (a graph input
fixed with kilnc --input-value) or on a shape expression, and a paddle-style squeeze-and-excite
block. References are computed here with numpy in float64 and rounded to float32 at the end.
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

RNG = np.random.RandomState(20261203)
F = TensorProto.FLOAT
I64 = TensorProto.INT64
B = TensorProto.BOOL

CASES = {}


def case(fn):
    CASES[fn.__name__[len("case_"):]] = fn
    return fn


def rand(*shape, scale=1.0):
    return (RNG.standard_normal(shape) * scale).astype(np.float32)


def const(name, array):
    return numpy_helper.from_array(np.asarray(array), name)


def node(op, ins, outs, **attrs):
    return helper.make_node(op, ins, outs, name=outs[0] + "_" + op.lower(), **attrs)


def vi(name, array_or_elem, shape=None):
    if shape is None:
        a = np.asarray(array_or_elem)
        return helper.make_tensor_value_info(name, helper.np_dtype_to_tensor_dtype(a.dtype)
                                             if hasattr(helper, "np_dtype_to_tensor_dtype")
                                             else onnx.mapping.NP_TYPE_TO_TENSOR_TYPE[a.dtype],
                                             a.shape)
    return helper.make_tensor_value_info(name, array_or_elem, shape)


def save(out, nodes, inputs, outputs, inits, opset=13, input_types=None):
    """inputs: [(name, array)], outputs: [(name, reference array)]; input_types overrides the
    declared type of an input (a dynamic dim, say)."""
    input_types = input_types or {}
    graph = helper.make_graph(
        nodes, "computed", [input_types.get(n) or vi(n, a) for n, a in inputs],
        [vi(n, np.asarray(a, np.float32)) for n, a in outputs], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                              producer_name="kiln-tests")
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, os.path.join(out, "model.onnx"))
    for k, (name, a) in enumerate(inputs):
        write(os.path.join(out, f"input_{k}.pb"), a, name)
    for k, (name, a) in enumerate(outputs):
        write(os.path.join(out, f"output_{k}.pb"), np.asarray(a, np.float32), name)


def write(path, array, name):
    with open(path, "wb") as f:
        f.write(numpy_helper.from_array(np.asarray(array), name).SerializeToString())


def sigmoid(x):
    return 1 / (1 + np.exp(-x))


# --- tf2onnx-style Pad -------------------------------------------------------------------------


def _pad_amounts(nodes, inits, x, multiple):
    """need[i] = (multiple - dim_i % multiple) % multiple for the spatial dims 1, 2 of NHWC x, 0
    for the others, as int64 [4], from Shape(x) (what TF's "pad to a multiple" exports to)."""
    inits += [const("m", np.array([1, multiple, multiple, 1], np.int64))]
    nodes += [node("Shape", [x], ["shp"]),
              node("Mod", ["shp", "m"], ["rem"]),
              node("Sub", ["m", "rem"], ["gap"]),
              node("Mod", ["gap", "m"], ["need"])]
    return "need"


def _same_pad_amounts(nodes, inits, x, kernel, stride):
    """TF's SAME padding of a kernel/stride window on dims 1, 2 of NHWC x, as tf2onnx computes it
    when it cannot at conversion time: need = max((ceil(dim / stride) - 1) * stride + kernel - dim,
    0) in float (Cast, Div, Ceil, Cast), masked to the spatial dims; int64 [4]."""
    inits += [const("stride_f", np.array(stride, np.float32)),
              const("stride_i", np.array(stride, np.int64)),
              const("kernel_i", np.array(kernel, np.int64)),
              const("one_i", np.array(1, np.int64)), const("zero_i", np.array(0, np.int64)),
              const("spatial", np.array([0, 1, 1, 0], np.int64))]
    nodes += [node("Shape", [x], ["shp"]),
              node("Cast", ["shp"], ["shp_f"], to=F),
              node("Div", ["shp_f", "stride_f"], ["steps_f"]),
              node("Ceil", ["steps_f"], ["steps_c"]),
              node("Cast", ["steps_c"], ["steps"], to=I64),
              node("Sub", ["steps", "one_i"], ["steps_m1"]),
              node("Mul", ["steps_m1", "stride_i"], ["span"]),
              node("Add", ["span", "kernel_i"], ["span_k"]),
              node("Sub", ["span_k", "shp"], ["raw"]),
              node("Max", ["raw", "zero_i"], ["pos"]),
              node("Mul", ["pos", "spatial"], ["need"])]
    return "need"


@case
def case_tf_pad_begin_end(out):
    """TF SAME padding (kernel 3, stride 2) computed from Shape(x) with Ceil, split as tf2onnx
    does into pads = Concat(Slice(need / 2), need - need / 2) in ONNX's [begin..., end...]
    order; reflect."""
    x = rand(1, 5, 6, 3)
    nodes, inits = [], []
    need = _same_pad_amounts(nodes, inits, "x", 3, 2)
    inits += [const("two", np.array(2, np.int64)), const("s0", np.array([0], np.int64)),
              const("s4", np.array([4], np.int64))]
    nodes += [node("Div", [need, "two"], ["half"]),
              node("Slice", ["half", "s0", "s4"], ["begin"]),
              node("Sub", [need, "half"], ["end"]),
              node("Concat", ["begin", "end"], ["pads"], axis=0),
              node("Pad", ["x", "pads"], ["y"], mode="reflect")]
    dims = np.array(x.shape)
    need_v = np.maximum((np.ceil(dims / 2).astype(np.int64) - 1) * 2 + 3 - dims, 0)
    need_v *= np.array([0, 1, 1, 0])
    half = need_v // 2
    y = np.pad(x.astype(np.float64), list(zip(half, need_v - half)), mode="reflect")
    save(out, nodes, [("x", x)], [("y", y)], inits, opset=13)


@case
def case_tf_pad_rank_by_2(out):
    """TF's paddings [rank, 2] (begin, end per dim) built by Concat of Unsqueezes, then
    Transpose(perm 1, 0) and Reshape(-1) to ONNX order, as tf2onnx writes; constant 0.5 pad."""
    x = rand(1, 7, 5, 2)
    nodes, inits = [], []
    need = _pad_amounts(nodes, inits, "x", 4)
    inits += [const("zeros4", np.zeros(4, np.int64)), const("ax1", np.array([1], np.int64)),
              const("flat", np.array([-1], np.int64)), const("cval", np.array(0.5, np.float32))]
    nodes += [node("Unsqueeze", ["zeros4", "ax1"], ["b_col"]),
              node("Unsqueeze", [need, "ax1"], ["e_col"]),
              node("Concat", ["b_col", "e_col"], ["paddings"], axis=1),
              node("Transpose", ["paddings"], ["pads_t"], perm=[1, 0]),
              node("Reshape", ["pads_t", "flat"], ["pads_i64"]),
              node("Cast", ["pads_i64"], ["pads32"], to=TensorProto.INT32),
              node("Cast", ["pads32"], ["pads"], to=TensorProto.INT64),
              node("Pad", ["x", "pads", "cval"], ["y"], mode="constant")]
    need_v = (4 - np.array(x.shape) % 4) % 4 * np.array([0, 1, 1, 0])
    y = np.pad(x.astype(np.float64), [(0, n) for n in need_v], constant_values=0.5)
    save(out, nodes, [("x", x)], [("y", y)], inits, opset=13)


# --- Resize with computed scales and sizes -----------------------------------------------------


@case
def case_resize_computed_scales(out):
    """scales = Concat([1, 1], Div(Cast([12, 10]), Cast(Shape(x)[2:4]))): x [1, 2, 4, 5] to
    [1, 2, 12, 10] (nearest, asymmetric, floor: integer factors 3 and 2)."""
    x = rand(1, 2, 4, 5)
    inits = [const("s2", np.array([2], np.int64)), const("s4", np.array([4], np.int64)),
             const("target", np.array([12, 10], np.int64)),
             const("ones", np.array([1.0, 1.0], np.float32))]
    nodes = [node("Shape", ["x"], ["shp"]),
             node("Slice", ["shp", "s2", "s4"], ["hw"]),
             node("Cast", ["hw"], ["hw_f"], to=F),
             node("Cast", ["target"], ["target_f"], to=F),
             node("Div", ["target_f", "hw_f"], ["factors"]),
             node("Concat", ["ones", "factors"], ["scales"], axis=0),
             node("Resize", ["x", "", "scales"], ["y"], mode="nearest",
                  coordinate_transformation_mode="asymmetric", nearest_mode="floor")]
    y = x.repeat(3, axis=2).repeat(2, axis=3)
    save(out, nodes, [("x", x)], [("y", y)], inits, opset=13)


@case
def case_resize_computed_sizes(out):
    """sizes = Concat(Shape(x)[0:2], Cast(Floor(Mul(Cast(Shape(x)[2:4]), 2.0)))) as torch's
    interpolate(scale_factor=2) exports at opset 11+; nearest."""
    x = rand(1, 3, 3, 4)
    inits = [const("s0", np.array([0], np.int64)), const("s2", np.array([2], np.int64)),
             const("s4", np.array([4], np.int64)), const("two", np.array(2.0, np.float32))]
    nodes = [node("Shape", ["x"], ["shp"]),
             node("Slice", ["shp", "s0", "s2"], ["nc"]),
             node("Slice", ["shp", "s2", "s4"], ["hw"]),
             node("Cast", ["hw"], ["hw_f"], to=F),
             node("Mul", ["hw_f", "two"], ["hw2"]),
             node("Floor", ["hw2"], ["hw2_floor"]),
             node("Cast", ["hw2_floor"], ["hw2_i"], to=I64),
             node("Concat", ["nc", "hw2_i"], ["sizes"], axis=0),
             node("Resize", ["x", "", "", "sizes"], ["y"], mode="nearest",
                  coordinate_transformation_mode="asymmetric", nearest_mode="floor")]
    y = x.repeat(2, axis=2).repeat(2, axis=3)
    save(out, nodes, [("x", x)], [("y", y)], inits, opset=13)


# --- Shape arithmetic --------------------------------------------------------------------------


@case
def case_shape_arith(out):
    """x [2, 3, 4, 5]: Reshape to [d0, d1*d2, d3] from Gather/Mul/Unsqueeze/Concat of Shape(x);
    Expand of a [1, 5] row to Shape(r)'s [d1*d2, d3]... and Tile, ConstantOfShape, Range, Where,
    ReduceProd, Size, Max, Min, Equal and Not, all from shapes."""
    x = rand(2, 3, 4, 5)
    row = rand(1, 5)
    ax0 = const("ax0", np.array([0], np.int64))
    inits = [ax0, const("i0", np.array(0, np.int64)), const("i1", np.array(1, np.int64)),
             const("i2", np.array(2, np.int64)), const("i3", np.array(3, np.int64)),
             const("row", row), const("one", np.array(1, np.int64)),
             const("big", np.array(1000, np.int64)), const("fill1", np.array([1], np.int64)),
             const("seven", np.array([7], np.int64))]
    nodes = [node("Shape", ["x"], ["shp"])]
    for i in range(4):
        nodes += [node("Gather", ["shp", f"i{i}"], [f"d{i}"], axis=0),
                  node("Unsqueeze", [f"d{i}", "ax0"], [f"u{i}"])]
    nodes += [node("Mul", ["u1", "u2"], ["u12"]),
              node("Concat", ["u0", "u12", "u3"], ["rshape"], axis=0),
              node("Reshape", ["x", "rshape"], ["r"]),                       # [2, 12, 5]
              # Expand row [1, 5] to [12, 5] = Shape(r)[1:]
              node("Shape", ["r"], ["rshp"], start=1),
              node("Expand", ["row", "rshp"], ["rows"]),
              node("Add", ["r", "rows"], ["a"]),
              # Tile by [1, Size(x) / Size(x), d0 - 1] -> [2, 12, 5]: repeats [1, 1, 1] ...
              node("Size", ["x"], ["n"]),
              node("Div", ["n", "n"], ["n1"]),
              node("Unsqueeze", ["n1", "ax0"], ["n1u"]),
              node("Sub", ["u0", "fill1"], ["d0m1"]),
              node("Concat", ["n1u", "d0m1", "n1u"], ["reps"], axis=0),         # [1, 1, 1]
              node("Max", ["reps", "fill1"], ["reps1"]),
              node("Min", ["reps1", "u0"], ["reps2"]),
              node("Tile", ["a", "reps2"], ["t"]),
              # ... then doubled along dim 0 when d3 == 5 (Where on Equal)
              node("Equal", ["u3", "seven"], ["is7"]),
              node("Not", ["is7"], ["not7"]),
              node("Concat", ["u0", "fill1", "fill1"], ["twice"], axis=0),
              node("Concat", ["fill1", "fill1", "fill1"], ["once"], axis=0),
              node("Where", ["not7", "twice", "once"], ["reps3"]),
              node("Tile", ["t", "reps3"], ["t2"]),                              # [4, 12, 5]
              # ConstantOfShape(Shape(t2)) of 0.25 plus Range(0, ReduceProd(u3)) as float
              node("Shape", ["t2"], ["t2shp"]),
              node("ConstantOfShape", ["t2shp"], ["quarter"],
                   value=numpy_helper.from_array(np.array([0.25], np.float32))),
              node("ReduceProd", ["u3"], ["d3p"], keepdims=0),
              node("Range", ["i0", "d3p", "one"], ["ramp_i"]),
              node("Cast", ["ramp_i"], ["ramp"], to=F),
              node("Add", ["t2", "quarter"], ["s"]),
              node("Add", ["s", "ramp"], ["y"])]
    r = x.astype(np.float64).reshape(2, 12, 5)
    a = r + np.broadcast_to(row, (12, 5))
    t2 = np.tile(a, (2, 1, 1))
    y = t2 + 0.25 + np.arange(5)
    save(out, nodes, [("x", x)], [("y", y)], inits, opset=15)


# --- LSTM voice-activity models with an If -----------------------------------------------------


def lstm_ref(x, w, r, b):
    """ONNX LSTM, one direction, zero initial state; x [T, N, I] -> Y [T, 1, N, H]."""
    h_size = r.shape[-1]
    w, r, b = w[0].astype(np.float64), r[0].astype(np.float64), b[0].astype(np.float64)
    h = np.zeros((x.shape[1], h_size))
    c = np.zeros((x.shape[1], h_size))
    ys = []
    for t in range(x.shape[0]):
        g = x[t].astype(np.float64) @ w.T + h @ r.T + b[:4 * h_size] + b[4 * h_size:]
        i, o, f, cc = np.split(g, 4, axis=1)
        i, o, f, cc = sigmoid(i), sigmoid(o), sigmoid(f), np.tanh(cc)
        c = f * c + i * cc
        h = o * np.tanh(c)
        ys.append(h)
    return np.stack(ys)[:, None]


def _lstm_weights(prefix, inp, hidden):
    return (rand(1, 4 * hidden, inp, scale=0.4), rand(1, 4 * hidden, hidden, scale=0.4),
            rand(1, 8 * hidden, scale=0.1))


def _vad_branch(tag, frames, frame_len, hidden, w, r, b, x_name):
    """A branch: reshape the audio to [frames, 1, frame_len], LSTM, last step -> [1, hidden]."""
    nodes = [helper.make_node("Reshape", [x_name, f"{tag}_fshape"], [f"{tag}_frames"],
                              name=f"{tag}_reshape"),
             helper.make_node("LSTM", [f"{tag}_frames", f"{tag}_W", f"{tag}_R", f"{tag}_B"],
                              [f"{tag}_Y"], name=f"{tag}_lstm", hidden_size=hidden),
             helper.make_node("Gather", [f"{tag}_Y", f"{tag}_last"], [f"{tag}_ylast"],
                              name=f"{tag}_gather", axis=0),
             helper.make_node("Squeeze", [f"{tag}_ylast", f"{tag}_ax0"], [f"{tag}_out"],
                              name=f"{tag}_squeeze")]
    inits = [const(f"{tag}_fshape", np.array([frames, 1, frame_len], np.int64)),
             const(f"{tag}_W", w), const(f"{tag}_R", r), const(f"{tag}_B", b),
             const(f"{tag}_last", np.array(frames - 1, np.int64)),
             const(f"{tag}_ax0", np.array([0], np.int64))]
    g = helper.make_graph(nodes, tag, [], [vi(f"{tag}_out", F, [1, hidden])], inits)
    return g


def _vad_head(nodes, inits, hidden):
    wo, bo = rand(hidden, 1, scale=0.5), rand(1, scale=0.1)
    inits += [const("head_w", wo), const("head_b", bo)]
    nodes += [node("MatMul", ["h", "head_w"], ["logit"]),
              node("Add", ["logit", "head_b"], ["logit_b"]),
              node("Sigmoid", ["logit_b"], ["prob"])]
    return wo, bo


@case
def case_lstm_if_sample_rate(out):
    """Silero-style VAD: audio x [1, 256], scalar int64 input sr; If Equal(sr, 16000) runs the
    16 kHz LSTM (frames of 32) else the 8 kHz one (frames of 16); the then branch holds a nested
    If on a Constant (true). Build with --input-value sr=input_1.pb."""
    hidden = 6
    x = rand(1, 256, scale=0.5)
    w16, r16, b16 = _lstm_weights("k16", 32, hidden)
    w8, r8, b8 = _lstm_weights("k8", 16, hidden)
    then_inner = _vad_branch("k16", 8, 32, hidden, w16, r16, b16, "xs")
    # The then branch scales the audio, then a nested If (constant true) runs the LSTM.
    nested = helper.make_node("If", ["always"], ["k16_res"], name="nested_if",
                              then_branch=then_inner,
                              else_branch=helper.make_graph(
                                  [helper.make_node("Identity", ["zeros_h"], ["never"],
                                                    name="never_id")],
                                  "never", [], [vi("never", F, [1, hidden])]))
    then_g = helper.make_graph(
        [helper.make_node("Mul", ["x", "gain"], ["xs"], name="then_gain"),
         helper.make_node("Constant", [], ["always"], name="always_c",
                          value=numpy_helper.from_array(np.array(True), "always")),
         nested],
        "then", [], [vi("k16_res", F, [1, hidden])])
    else_g = _vad_branch("k8", 16, 16, hidden, w8, r8, b8, "x")
    inits = [const("k16000", np.array(16000, np.int64)), const("gain", np.array(2.0, np.float32)),
             const("zeros_h", np.zeros((1, hidden), np.float32))]
    nodes = [node("Equal", ["sr", "k16000"], ["is16k"]),
             helper.make_node("If", ["is16k"], ["h"], name="rate_if", then_branch=then_g,
                              else_branch=else_g)]
    wo, bo = _vad_head(nodes, inits, hidden)
    h = lstm_ref((x * 2.0).reshape(8, 1, 32), w16, r16, b16)[-1, 0]
    prob = sigmoid(h @ wo + bo)
    sr = np.array(16000, np.int64)
    save(out, nodes, [("x", x), ("sr", sr)], [("prob", prob)], inits, opset=16)
    # The other rate, for a second build.
    write(os.path.join(out, "sr_8k.pb"), np.array(8000, np.int64), "sr")
    h8 = lstm_ref(x.reshape(16, 1, 16), w8, r8, b8)[-1, 0]
    os.makedirs(os.path.join(out, "8k"), exist_ok=True)
    write(os.path.join(out, "8k", "input_0.pb"), x, "x")
    write(os.path.join(out, "8k", "input_1.pb"), np.array(8000, np.int64), "sr")
    write(os.path.join(out, "8k", "output_0.pb"),
          sigmoid(h8 @ wo + bo).astype(np.float32), "prob")


@case
def case_lstm_if_shape(out):
    """If Equal(Gather(Shape(x), 1), 512): the branch is picked by the audio length, known once
    x's shape is static (x is declared [1, samples]: build with --input-shape x=1x512)."""
    hidden = 5
    x = rand(1, 512, scale=0.5)
    w_long, r_long, b_long = _lstm_weights("long", 64, hidden)
    w_short, r_short, b_short = _lstm_weights("short", 32, hidden)
    then_g = _vad_branch("long", 8, 64, hidden, w_long, r_long, b_long, "x")
    else_g = _vad_branch("short", 16, 32, hidden, w_short, r_short, b_short, "x")
    inits = [const("k512", np.array(512, np.int64)), const("one", np.array(1, np.int64))]
    nodes = [node("Shape", ["x"], ["shp"]),
             node("Gather", ["shp", "one"], ["samples"], axis=0),
             node("Equal", ["samples", "k512"], ["is512"]),
             helper.make_node("If", ["is512"], ["h"], name="length_if", then_branch=then_g,
                              else_branch=else_g)]
    wo, bo = _vad_head(nodes, inits, hidden)
    h = lstm_ref(x.reshape(8, 1, 64), w_long, r_long, b_long)[-1, 0]
    prob = sigmoid(h @ wo + bo)
    save(out, nodes, [("x", x)], [("prob", prob)], inits, opset=16,
         input_types={"x": vi("x", F, [1, "samples"])})


@case
def case_torch_vad_if(out):
    """The VAD pattern as torch.onnx (Debian torch 1.13) exports it from TorchScript: `if sr ==
    16000` becomes Equal, Cast and an If whose branches hold the LSTMs. References are torch's own
    outputs for both rates (out/ and out/8k/)."""
    import torch

    class Vad(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.lstm16 = torch.nn.LSTM(32, 6)
            self.lstm8 = torch.nn.LSTM(16, 6)
            self.head = torch.nn.Linear(6, 1)

        def forward(self, x, sr):
            if bool(sr == 16000):
                y, _ = self.lstm16(x.reshape(8, 1, 32))
            else:
                y, _ = self.lstm8(x.reshape(16, 1, 16))
            return torch.sigmoid(self.head(y[-1]))

    torch.manual_seed(20261203)
    module = torch.jit.script(Vad().eval())
    x = torch.randn(1, 256)
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(module, (x, torch.tensor(16000)), os.path.join(out, "model.onnx"),
                          input_names=["x", "sr"], output_names=["prob"], opset_version=16)
    for sub, rate in (("", 16000), ("8k", 8000)):
        d = os.path.join(out, sub)
        os.makedirs(d, exist_ok=True)
        with torch.no_grad():
            prob = module(x, torch.tensor(rate)).numpy()
        write(os.path.join(d, "input_0.pb"), x.numpy(), "x")
        write(os.path.join(d, "input_1.pb"), np.array(rate, np.int64), "sr")
        write(os.path.join(d, "output_0.pb"), prob.astype(np.float32), "prob")


# --- paddle-style squeeze-and-excite -----------------------------------------------------------


@case
def case_paddle_se_block(out):
    """Paddle2ONNX's SE block: GlobalAveragePool, Reshape to Concat(Shape(x)[0:2]) ([N, C]), two
    MatMul+Add (Relu, HardSigmoid), Reshape back to Concat(Shape(x)[0:2], [1, 1]), Mul."""
    x = rand(1, 8, 5, 5)
    w1, b1 = rand(8, 2, scale=0.5), rand(2, scale=0.1)
    w2, b2 = rand(2, 8, scale=0.5), rand(8, scale=0.1)
    inits = [const("s0", np.array([0], np.int64)), const("s2", np.array([2], np.int64)),
             const("ones2", np.array([1, 1], np.int64)), const("w1", w1), const("b1", b1),
             const("w2", w2), const("b2", b2)]
    nodes = [node("GlobalAveragePool", ["x"], ["pooled"]),
             node("Shape", ["x"], ["shp"]),
             node("Slice", ["shp", "s0", "s2"], ["nc"]),
             node("Reshape", ["pooled", "nc"], ["flat"]),
             node("MatMul", ["flat", "w1"], ["fc1"]),
             node("Add", ["fc1", "b1"], ["fc1b"]),
             node("Relu", ["fc1b"], ["act1"]),
             node("MatMul", ["act1", "w2"], ["fc2"]),
             node("Add", ["fc2", "b2"], ["fc2b"]),
             node("HardSigmoid", ["fc2b"], ["gate"], alpha=0.2, beta=0.5),
             node("Concat", ["nc", "ones2"], ["gshape"], axis=0),
             node("Reshape", ["gate", "gshape"], ["gate4"]),
             node("Mul", ["x", "gate4"], ["y"])]
    xd = x.astype(np.float64)
    pooled = xd.mean(axis=(2, 3))
    act1 = np.maximum(pooled @ w1 + b1, 0)
    gate = np.clip(0.2 * (act1 @ w2 + b2) + 0.5, 0, 1)
    y = xd * gate[:, :, None, None]
    save(out, nodes, [("x", x)], [("y", y)], inits, opset=13)


def main(argv):
    if len(argv) == 2 and argv[1] == "--list":
        print("\n".join(sorted(CASES)))
        return 0
    if len(argv) != 3 or argv[1] not in CASES:
        sys.stderr.write("usage: gen_computed_shapes.py CASE DIR | --list\n")
        return 2
    os.makedirs(argv[2], exist_ok=True)
    CASES[argv[1]](argv[2])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
