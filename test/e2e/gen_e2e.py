#!/usr/bin/env python3
"""Writes an ONNX model, its inputs and numpy reference outputs for kiln's e2e tests.

Usage: gen_e2e.py CASE DIR  ->  DIR/model.onnx, DIR/input_K.pb, DIR/output_K.pb
(the layout `kiln-run --input-dir DIR --compare DIR` reads). References are
computed here with numpy in float64 and rounded to float32 once at the end.
"""
import os
import shutil
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

RNG = np.random.RandomState(20240607)


def rand(*shape, scale=1.0):
    return (RNG.standard_normal(shape) * scale).astype(np.float32)


def init(name, array):
    return numpy_helper.from_array(np.asarray(array), name)


def vi(name, shape):
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, shape)


def save(out, nodes, inputs, outputs, inits, feeds, refs):
    graph = helper.make_graph(nodes, "e2e", [vi(n, a.shape) for n, a in inputs],
                              [vi(n, a.shape) for n, a in zip(outputs, refs)],
                              inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 7
    onnx.checker.check_model(model)
    onnx.save(model, os.path.join(out, "model.onnx"))
    for k, (name, a) in enumerate(inputs):
        write(os.path.join(out, f"input_{k}.pb"), a, name)
    for k, (name, a) in enumerate(zip(outputs, refs)):
        write(os.path.join(out, f"output_{k}.pb"), a, name)


def write(path, array, name):
    with open(path, "wb") as f:
        f.write(numpy_helper.from_array(np.asarray(array, np.float32), name).SerializeToString())


def softmax(x, axis):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def case_mlp(out):
    """Gemm + Relu + Gemm + Softmax (transB on the first Gemm only)."""
    x = rand(4, 16)
    w1, b1 = rand(32, 16, scale=0.3), rand(32, scale=0.1)
    w2, b2 = rand(32, 10, scale=0.3), rand(10, scale=0.1)
    h = np.maximum(x.astype(np.float64) @ w1.T + b1, 0)
    y = softmax(h @ w2 + b2, axis=1)
    nodes = [
        helper.make_node("Gemm", ["x", "w1", "b1"], ["h"], transB=1),
        helper.make_node("Relu", ["h"], ["r"]),
        helper.make_node("Gemm", ["r", "w2", "b2"], ["logits"]),
        helper.make_node("Softmax", ["logits"], ["y"], axis=1),
    ]
    save(out, nodes, [("x", x)], ["y"],
         [init("w1", w1), init("b1", b1), init("w2", w2), init("b2", b2)],
         None, [y])


def conv2d(x, w, b, pad):
    n, c, h, wd = x.shape
    f, _, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    oh, ow = h + 2 * pad - kh + 1, wd + 2 * pad - kw + 1
    y = np.zeros((n, f, oh, ow))
    for i in range(kh):
        for j in range(kw):
            y += np.einsum("nchw,fc->nfhw", xp[:, :, i:i + oh, j:j + ow], w[:, :, i, j])
    return y + b.reshape(1, f, 1, 1)


def case_cnn(out):
    """Conv + BatchNormalization + Relu + MaxPool + GlobalAveragePool + Flatten + Gemm."""
    x = rand(2, 3, 12, 12)
    w, b = rand(8, 3, 3, 3, scale=0.3), rand(8, scale=0.1)
    scale, bias = rand(8, scale=0.2) + 1, rand(8, scale=0.1)
    mean = rand(8, scale=0.1)
    var = (np.abs(rand(8)) + 0.5).astype(np.float32)
    fw, fb = rand(10, 8, scale=0.3), rand(10, scale=0.1)
    eps = 1e-5
    c = conv2d(x.astype(np.float64), w, b, 1)
    bn = (c - mean.reshape(1, -1, 1, 1)) / np.sqrt(var.reshape(1, -1, 1, 1) + eps) \
        * scale.reshape(1, -1, 1, 1) + bias.reshape(1, -1, 1, 1)
    r = np.maximum(bn, 0)
    p = r.reshape(2, 8, 6, 2, 6, 2).max(axis=(3, 5))
    g = p.mean(axis=(2, 3))
    y = g @ fw.T + fb
    nodes = [
        helper.make_node("Conv", ["x", "w", "b"], ["c"], kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
        helper.make_node("BatchNormalization", ["c", "scale", "bias", "mean", "var"], ["bn"], epsilon=eps),
        helper.make_node("Relu", ["bn"], ["r"]),
        helper.make_node("MaxPool", ["r"], ["p"], kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("GlobalAveragePool", ["p"], ["g"]),
        helper.make_node("Flatten", ["g"], ["f"], axis=1),
        helper.make_node("Gemm", ["f", "fw", "fb"], ["y"], transB=1),
    ]
    save(out, nodes, [("x", x)], ["y"],
         [init("w", w), init("b", b), init("scale", scale), init("bias", bias),
          init("mean", mean), init("var", var), init("fw", fw), init("fb", fb)],
         None, [y])


def case_fire(out):
    """A SqueezeNet fire module at batch 2: a 1x1 squeeze conv, then 1x1 and 3x3
    expand convs (each with its ReLU) concatenated along the channels, read by
    a 1x1 conv. The concat's inputs are written into their slices of its
    buffer by the expand kernels."""
    x = rand(2, 32, 14, 14)
    ws, bs = rand(16, 32, 1, 1, scale=0.3), rand(16, scale=0.1)
    w1, b1 = rand(64, 16, 1, 1, scale=0.3), rand(64, scale=0.1)
    w3, b3 = rand(64, 16, 3, 3, scale=0.1), rand(64, scale=0.1)
    wo, bo = rand(32, 128, 1, 1, scale=0.1), rand(32, scale=0.1)
    s = np.maximum(conv2d(x.astype(np.float64), ws, bs, 0), 0)
    e1 = np.maximum(conv2d(s, w1, b1, 0), 0)
    e3 = np.maximum(conv2d(s, w3, b3, 1), 0)
    y = conv2d(np.concatenate([e1, e3], axis=1), wo, bo, 0)
    nodes = [
        helper.make_node("Conv", ["x", "ws", "bs"], ["sc"], kernel_shape=[1, 1]),
        helper.make_node("Relu", ["sc"], ["s"]),
        helper.make_node("Conv", ["s", "w1", "b1"], ["c1"], kernel_shape=[1, 1]),
        helper.make_node("Relu", ["c1"], ["e1"]),
        helper.make_node("Conv", ["s", "w3", "b3"], ["c3"], kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c3"], ["e3"]),
        helper.make_node("Concat", ["e1", "e3"], ["cat"], axis=1),
        helper.make_node("Conv", ["cat", "wo", "bo"], ["y"], kernel_shape=[1, 1]),
    ]
    save(out, nodes, [("x", x)], ["y"],
         [init("ws", ws), init("bs", bs), init("w1", w1), init("b1", b1),
          init("w3", w3), init("b3", b3), init("wo", wo), init("bo", bo)],
         None, [y])


def case_bottleneck(out):
    """ResNet's first bottleneck block at batch 2 with unfolded batch norms: a
    1x1 reduction (BN, ReLU), a 3x3 conv (BN, ReLU), a 1x1 expansion (BN), a
    1x1 downsample of the block's input (BN, no ReLU), the residual add and
    its ReLU. The reduction and the downsample are sibling convs."""
    x = rand(2, 32, 12, 12)
    eps = 1e-5

    def bn_params(c):
        return (rand(c, scale=0.2) + 1, rand(c, scale=0.1), rand(c, scale=0.1),
                (np.abs(rand(c)) + 0.5).astype(np.float32))

    def bn(v, p):
        s, b, m, var = (a.reshape(1, -1, 1, 1) for a in p)
        return (v - m) / np.sqrt(var + eps) * s + b

    w1, w2 = rand(32, 32, 1, 1, scale=0.3), rand(32, 32, 3, 3, scale=0.1)
    w3, wd = rand(64, 32, 1, 1, scale=0.3), rand(64, 32, 1, 1, scale=0.3)
    p1, p2, p3, pd = bn_params(32), bn_params(32), bn_params(64), bn_params(64)
    zero32, zero64 = np.zeros(32), np.zeros(64)
    xd = x.astype(np.float64)
    r1 = np.maximum(bn(conv2d(xd, w1, zero32, 0), p1), 0)
    r2 = np.maximum(bn(conv2d(r1, w2, zero32, 1), p2), 0)
    y = np.maximum(bn(conv2d(r2, w3, zero64, 0), p3) +
                   bn(conv2d(xd, wd, zero64, 0), pd), 0)
    names = ["scale", "bias", "mean", "var"]

    def bn_node(src, dst, tag):
        return helper.make_node("BatchNormalization",
                                [src] + [f"{n}{tag}" for n in names], [dst],
                                epsilon=eps)

    nodes = [
        helper.make_node("Conv", ["x", "w1"], ["c1"], kernel_shape=[1, 1]),
        bn_node("c1", "b1", "1"),
        helper.make_node("Relu", ["b1"], ["r1"]),
        helper.make_node("Conv", ["r1", "w2"], ["c2"], kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
        bn_node("c2", "b2", "2"),
        helper.make_node("Relu", ["b2"], ["r2"]),
        helper.make_node("Conv", ["r2", "w3"], ["c3"], kernel_shape=[1, 1]),
        bn_node("c3", "b3", "3"),
        helper.make_node("Conv", ["x", "wd"], ["cd"], kernel_shape=[1, 1]),
        bn_node("cd", "bd", "d"),
        helper.make_node("Add", ["b3", "bd"], ["s"]),
        helper.make_node("Relu", ["s"], ["y"]),
    ]
    inits = [init("w1", w1), init("w2", w2), init("w3", w3), init("wd", wd)]
    for tag, p in (("1", p1), ("2", p2), ("3", p3), ("d", pd)):
        inits += [init(f"{n}{tag}", a) for n, a in zip(names, p)]
    save(out, nodes, [("x", x)], ["y"], inits, None, [y])


def case_broadcast(out):
    """Elementwise broadcasting over three inputs and a weight; a second output
    that is a Reshape of an input (a view the plan must copy)."""
    a, b, c = rand(2, 3, 4), rand(3, 1), rand(4)
    d = rand(1, 3, 1)
    y = np.maximum((a.astype(np.float64) + b) * c - d, 0) / (1 + np.abs(c))
    nodes = [
        helper.make_node("Add", ["a", "b"], ["s"]),
        helper.make_node("Mul", ["s", "c"], ["m"]),
        helper.make_node("Sub", ["m", "d"], ["t"]),
        helper.make_node("Relu", ["t"], ["r"]),
        helper.make_node("Abs", ["c"], ["ac"]),
        helper.make_node("Add", ["ac", "one"], ["den"]),
        helper.make_node("Div", ["r", "den"], ["y"]),
        helper.make_node("Reshape", ["a", "shape"], ["z"]),
    ]
    save(out, nodes, [("a", a), ("b", b), ("c", c)], ["y", "z"],
         [init("d", d), init("one", np.array(1, np.float32)),
          init("shape", np.array([6, 4], np.int64))],
         None, [y, a.reshape(6, 4)])


def case_light(out, name):
    """An ONNX backend 'light' model with its recorded output (PROVENANCE.md)."""
    src = os.environ.get("KILN_LIGHT_MODELS", "")
    shared = "/work/shared/onnx-backend-data/light"
    shutil.copy(os.path.join(src, f"light_{name}.onnx"), os.path.join(out, "model.onnx"))
    n = 1 * 3 * 224 * 224
    x = (np.arange(n).reshape(1, 3, 224, 224) / n).astype(np.float32)
    write(os.path.join(out, "input_0.pb"), x,
          onnx.load(os.path.join(out, "model.onnx")).graph.input[0].name)
    ref = None
    for d in (src, shared):
        p = os.path.join(d, f"light_{name}_output_0.pb")
        if os.path.exists(p):
            ref = p
            break
    if ref is None:
        sys.exit(f"no expected output for light_{name}")
    shutil.copy(ref, os.path.join(out, "output_0.pb"))


def case_fixed_axes(out):
    """ReduceSum over axes that arrive as a graph input (int64 [0, 2]), for kilnc --input-value;
    other_axes.pb holds a different value of the same shape."""
    x = rand(2, 3, 4)
    axes = np.array([0, 2], np.int64)
    node = helper.make_node("ReduceSum", ["x", "axes"], ["y"], name="sum", keepdims=0)
    y = x.astype(np.float64).sum(axis=(0, 2)).astype(np.float32)
    graph = helper.make_graph(
        [node], "e2e", [vi("x", x.shape),
                        helper.make_tensor_value_info("axes", TensorProto.INT64, [2])],
        [vi("y", y.shape)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 7
    onnx.checker.check_model(model)
    onnx.save(model, os.path.join(out, "model.onnx"))
    write(os.path.join(out, "input_0.pb"), x, "x")
    for name, value in (("input_1.pb", axes), ("other_axes.pb", np.array([1, 2], np.int64))):
        with open(os.path.join(out, name), "wb") as f:
            f.write(numpy_helper.from_array(value, "axes").SerializeToString())
    write(os.path.join(out, "output_0.pb"), y, "y")


def case_fp16_avg_pool(out):
    """A 7x7 AveragePool over values near 2000 (in f16's range) whose window sums (about 98 000)
    are not: an f16 plan must sum in f32. Also a 2x2 one with pads (count_include_pad = 0)."""
    x = (2000.0 + 40.0 * RNG.random_sample((1, 4, 7, 7))).astype(np.float32)
    big = helper.make_node("AveragePool", ["x"], ["y"], name="pool7", kernel_shape=[7, 7])
    small = helper.make_node("AveragePool", ["x"], ["z"], name="pool2", kernel_shape=[2, 2],
                             pads=[1, 1, 1, 1], strides=[2, 2])
    y = x.astype(np.float64).mean(axis=(2, 3), keepdims=True).astype(np.float32)
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (1, 1), (1, 1)), constant_values=np.nan)
    z = np.zeros((1, 4, 4, 4))
    for i in range(4):
        for j in range(4):
            z[:, :, i, j] = np.nanmean(xp[:, :, 2 * i:2 * i + 2, 2 * j:2 * j + 2], axis=(2, 3))
    save(out, [big, small], [("x", x)], ["y", "z"], [], None, [y, z.astype(np.float32)])


def case_attention(out):
    """A batch-first multi-head attention block as torch exports it:
    x [B, S, E] -> transpose to [S, B, E] -> packed QKV MatMul + bias -> three
    Slices -> Reshape [S, B*H, D] -> transposes (K to [B*H, D, S]) -> Q / sqrt(D)
    -> Q K^T -> Softmax -> . V -> transpose back, Reshape [S*B, E] -> output Gemm
    (transB) -> Reshape [S, B, E] -> transpose to [B, S, E] -> residual Add."""
    B, S, E, H = 2, 32, 64, 4
    D = E // H
    x = rand(B, S, E)
    w_in, b_in = rand(E, 3 * E, scale=0.15), rand(3 * E, scale=0.1)
    w_out, b_out = rand(E, E, scale=0.15), rand(E, scale=0.1)
    xd = x.astype(np.float64)
    qkv = xd.transpose(1, 0, 2) @ w_in + b_in                       # [S, B, 3E]
    def heads(t):                                                   # [S, B, E] -> [B*H, S, D]
        return t.reshape(S, B * H, D).transpose(1, 0, 2)
    q, k, v = (heads(qkv[:, :, i * E:(i + 1) * E]) for i in range(3))
    a = softmax((q / np.sqrt(D)) @ k.transpose(0, 2, 1), axis=2) @ v  # [B*H, S, D]
    o = a.transpose(1, 0, 2).reshape(S * B, E) @ w_out.T + b_out
    y = xd + o.reshape(S, B, E).transpose(1, 0, 2)
    consts = []
    def c(*v):
        t = init(f"c{len(consts)}", np.array(v, np.int64))
        consts.append(t)
        return t.name
    nodes = [
        helper.make_node("Transpose", ["x"], ["xt"], perm=[1, 0, 2]),
        helper.make_node("MatMul", ["xt", "w_in"], ["p"]),
        helper.make_node("Add", ["b_in", "p"], ["qkv"]),
    ]
    axes, seq_heads = c(2), c(S, B * H, D)
    for i, name in enumerate("qkv"):
        nodes.append(helper.make_node("Slice", ["qkv", c(i * E), c((i + 1) * E), axes],
                                      [name + "s"]))
        nodes.append(helper.make_node("Reshape", [name + "s", seq_heads], [name + "r"]))
    nodes += [
        helper.make_node("Transpose", ["qr"], ["qt"], perm=[1, 0, 2]),
        helper.make_node("Div", ["qt", "scale"], ["qd"]),
        helper.make_node("Transpose", ["kr"], ["kt"], perm=[1, 2, 0]),
        helper.make_node("Transpose", ["vr"], ["vt"], perm=[1, 0, 2]),
        helper.make_node("MatMul", ["qd", "kt"], ["scores"]),
        helper.make_node("Softmax", ["scores"], ["probs"], axis=-1),
        helper.make_node("MatMul", ["probs", "vt"], ["a"]),
        helper.make_node("Transpose", ["a"], ["at"], perm=[1, 0, 2]),
        helper.make_node("Reshape", ["at", c(S * B, E)], ["af"]),
        helper.make_node("Gemm", ["af", "w_out", "b_out"], ["o"], transB=1),
        helper.make_node("Reshape", ["o", c(S, B, E)], ["o3"]),
        helper.make_node("Transpose", ["o3"], ["ot"], perm=[1, 0, 2]),
        helper.make_node("Add", ["x", "ot"], ["y"]),
    ]
    save(out, nodes, [("x", x)], ["y"],
         [init("w_in", w_in), init("b_in", b_in), init("w_out", w_out),
          init("b_out", b_out), init("scale", np.array(np.sqrt(D), np.float32))] + consts,
         None, [y])


def case_attention_hf(out):
    """Self-attention as Hugging Face BERT exports it: separate query, key and
    value projections of x [B, S, E] (MatMul with [E, E] weights + bias Add,
    sharing x), Reshape [B, S, H, D] + Transpose to heads, Q K^T / sqrt(D),
    Softmax, . V, back to [B, S, E], an output projection and a residual Add.
    kilnc runs the three projections as one batched matmul (horizontal
    fusion)."""
    B, S, E, H = 2, 32, 128, 4
    D = E // H
    x = rand(B, S, E)
    ws = [rand(E, E, scale=0.1) for _ in range(3)]
    bs = [rand(E, scale=0.1) for _ in range(3)]
    w_o, b_o = rand(E, E, scale=0.1), rand(E, scale=0.1)
    xd = x.astype(np.float64)
    def heads(t):                                                   # [B, S, E] -> [B, H, S, D]
        return t.reshape(B, S, H, D).transpose(0, 2, 1, 3)
    q, k, v = (heads(xd @ w + b) for w, b in zip(ws, bs))
    a = softmax(q @ k.transpose(0, 1, 3, 2) / np.sqrt(D), axis=3) @ v  # [B, H, S, D]
    y = xd + a.transpose(0, 2, 1, 3).reshape(B, S, E) @ w_o + b_o
    shape4, shape3 = init("shape4", np.array([B, S, H, D], np.int64)), \
        init("shape3", np.array([B, S, E], np.int64))
    nodes = []
    for i, name in enumerate("qkv"):
        nodes += [helper.make_node("MatMul", ["x", "w" + name], [name + "m"]),
                  helper.make_node("Add", [name + "m", "b" + name], [name + "b"]),
                  helper.make_node("Reshape", [name + "b", "shape4"], [name + "r"]),
                  helper.make_node("Transpose", [name + "r"], [name + "t"],
                                   perm=[0, 2, 3, 1] if name == "k" else [0, 2, 1, 3])]
    nodes += [
        helper.make_node("MatMul", ["qt", "kt"], ["scores"]),
        helper.make_node("Div", ["scores", "scale"], ["scaled"]),
        helper.make_node("Softmax", ["scaled"], ["probs"], axis=-1),
        helper.make_node("MatMul", ["probs", "vt"], ["a"]),
        helper.make_node("Transpose", ["a"], ["at"], perm=[0, 2, 1, 3]),
        helper.make_node("Reshape", ["at", "shape3"], ["af"]),
        helper.make_node("MatMul", ["af", "wo"], ["om"]),
        helper.make_node("Add", ["om", "bo"], ["o"]),
        helper.make_node("Add", ["x", "o"], ["y"]),
    ]
    inits = [init("w" + n, w) for n, w in zip("qkv", ws)] + \
        [init("b" + n, b) for n, b in zip("qkv", bs)] + \
        [init("wo", w_o), init("bo", b_o), shape4, shape3,
         init("scale", np.array(np.sqrt(D), np.float32))]
    save(out, nodes, [("x", x)], ["y"], inits, None, [y])


def case_ffn_down(out):
    """A transformer FFN's down-projection at batch 1: x [128, 1024] @ W [1024, 256]
    + bias + residual. Few output tiles and a long K: on sm_90 the tensor-core
    kernel splits K over thread-block clusters."""
    M, K, N = 128, 1024, 256
    x, r = rand(M, K, scale=0.5), rand(M, N)
    w, bias = rand(K, N, scale=0.05), rand(N, scale=0.1)
    y = x.astype(np.float64) @ w + bias + r
    nodes = [helper.make_node("MatMul", ["x", "w"], ["p"]),
             helper.make_node("Add", ["p", "bias"], ["pb"]),
             helper.make_node("Add", ["pb", "r"], ["y"])]
    save(out, nodes, [("x", x), ("r", r)], ["y"], [init("w", w), init("bias", bias)],
         None, [y])


def case_ffn_up(out):
    """A transformer FFN's up-projection at batch 4, seq 128: x [512, 768] @ W
    [768, 3072] + bias. Enough output tiles for the sm_90a wgmma kernel, whose
    operands (an activation and a weight) are plain matrices: TMA loads them."""
    M, K, N = 512, 768, 3072
    x = rand(M, K, scale=0.5)
    w, bias = rand(K, N, scale=0.05), rand(N, scale=0.1)
    y = x.astype(np.float64) @ w + bias
    nodes = [helper.make_node("MatMul", ["x", "w"], ["p"]),
             helper.make_node("Add", ["p", "bias"], ["y"])]
    save(out, nodes, [("x", x)], ["y"], [init("w", w), init("bias", bias)],
         None, [y])


def case_profiles(out):
    """Conv + Relu + GlobalAveragePool + Flatten + Gemm + Add of a second input,
    with a dynamic batch 'N' shared by both inputs: the model for one plan with
    several profiles. Writes the model, and per batch size B in 1, 2, 5 (the
    profiles the test builds) and 3 (none) a folder bB with its inputs and
    references."""
    w, b = rand(6, 3, 3, 3, scale=0.3), rand(6, scale=0.1)
    fw, fb = rand(5, 6, scale=0.3), rand(5, scale=0.1)
    nodes = [
        helper.make_node("Conv", ["x", "w", "b"], ["c"], kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c"], ["r"]),
        helper.make_node("GlobalAveragePool", ["r"], ["g"]),
        helper.make_node("Flatten", ["g"], ["f"], axis=1),
        helper.make_node("Gemm", ["f", "fw", "fb"], ["h"], transB=1),
        helper.make_node("Add", ["h", "m"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes, "profiles",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 3, 8, 8]),
         helper.make_tensor_value_info("m", TensorProto.FLOAT, ["N", 5])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 5])],
        [init("w", w), init("b", b), init("fw", fw), init("fb", fb)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 7
    onnx.checker.check_model(model)
    onnx.save(model, os.path.join(out, "model.onnx"))
    for batch in (1, 2, 5, 3):
        d = os.path.join(out, f"b{batch}")
        os.makedirs(d, exist_ok=True)
        x, m = rand(batch, 3, 8, 8), rand(batch, 5)
        r = np.maximum(conv2d(x.astype(np.float64), w, b, 1), 0)
        y = r.mean(axis=(2, 3)) @ fw.T + fb + m
        write(os.path.join(d, "input_0.pb"), x, "x")
        write(os.path.join(d, "input_1.pb"), m, "m")
        write(os.path.join(d, "output_0.pb"), y, "y")


def main():
    case, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    if case.startswith("light_"):
        case_light(out, case[len("light_"):])
    else:
        globals()["case_" + case](out)


if __name__ == "__main__":
    main()
