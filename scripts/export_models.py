#!/usr/bin/python3
"""Export the kiln reference models to ONNX, with conformance-style test data.

Run with Debian's system Python (torch 1.13 / torchvision 0.14 / onnx 1.12):

    /usr/bin/python3 scripts/export_models.py --out DIR [--opset 13 17]
        [--models resnet50 mobilenet_v2 efficientnet_b0 vit_b_16 bert_encoder]
        [--batch 1] [--seq 128] [--dynamic-batch] [--list-ops] [--portable-weights]

For each model M and opset N this writes
    DIR/M_opN.onnx
    DIR/M_opN/test_data_set_0/input_K.pb, output_K.pb   (onnx TensorProto)
Model definitions live in scripts/kiln_models.py (shared with benchmarks).

--portable-weights replaces the large float tensors by values that
scripts/portable_weights.py regenerates bit-exactly from a recipe, and also writes
    DIR/M_opN.recipe.json, DIR/M_opN.skeleton.onnx   (model without those tensors)
The model is then exported with training=PRESERVE (the module is in eval mode, so
this is inference; it only keeps BatchNormalization unfused) so that every
reweighted tensor is a parameter/buffer of the torch module or its transpose: the
new values are loaded back into the module and the reference outputs are
computed by PyTorch from them.
Exit status is non-zero if any export or check failed.
"""

import argparse
import collections
import os
import sys
import tempfile
import time
import traceback
import warnings

sys.dont_write_bytecode = True  # keep scripts/ free of __pycache__
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as np  # noqa: E402
import onnx  # noqa: E402
from onnx import numpy_helper  # noqa: E402
import torch  # noqa: E402

import kiln_models  # noqa: E402
import portable_weights  # noqa: E402

DEFAULT_OPSETS = [13, 17]


def log(msg):
    print(msg, flush=True)


def _atomic_write_bytes(path, data):
    d = os.path.dirname(path)
    fd, tmp = tempfile.mkstemp(dir=d, prefix=".tmp-", suffix=os.path.basename(path))
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def _iter_nodes(graph):
    """All nodes of a graph, including those in subgraphs (If/Loop/Scan)."""
    for node in graph.node:
        yield node
        for attr in node.attribute:
            if attr.type == onnx.AttributeProto.GRAPH:
                yield from _iter_nodes(attr.g)
            elif attr.type == onnx.AttributeProto.GRAPHS:
                for g in attr.graphs:
                    yield from _iter_nodes(g)


def op_counts(model):
    c = collections.Counter()
    for node in _iter_nodes(model.graph):
        c[(node.domain or "ai.onnx", node.op_type)] += 1
    return c


def _to_numpy(t):
    if isinstance(t, (list, tuple)):
        raise TypeError("nested outputs are not supported")
    return t.detach().cpu().numpy()


def _pin_output_dims(model, output_names, ref_np, dynamic_axes):
    """Replace exporter-invented symbolic output dims (e.g. the sequence dim of
    bert_encoder under --dynamic-batch) with the static size from the reference
    output, for every dim that was not requested dynamic. Returns True if changed."""
    changed = False
    shapes = dict(zip(output_names, (y.shape for y in ref_np)))
    for out in model.graph.output:
        if out.name not in shapes or not out.type.tensor_type.HasField("shape"):
            continue
        dyn = set((dynamic_axes or {}).get(out.name, {}))
        for i, dim in enumerate(out.type.tensor_type.shape.dim):
            if i not in dyn and dim.HasField("dim_param") and i < len(shapes[out.name]):
                dim.dim_value = int(shapes[out.name][i])  # clears dim_param (oneof)
                changed = True
    return changed


def _views_of(a, shape):
    """(rows, transposed) views of parameter `a` that the exporter may have
    turned into an initializer of `shape`: the whole tensor or a block of rows
    (nn.MultiheadAttention's in_proj split into q/k/v), possibly transposed
    (Linear weights folded into MatMul)."""
    for transposed in (False, True):
        want = tuple(shape[::-1]) if transposed else tuple(shape)
        if transposed and len(shape) != 2:
            continue
        if a.shape == want:
            yield slice(None), transposed
        elif (a.ndim == len(want) and a.ndim >= 1 and a.shape[1:] == want[1:]
              and want[0] and a.shape[0] % want[0] == 0):
            for i in range(0, a.shape[0], want[0]):
                yield slice(i, i + want[0]), transposed


def _load_reweighted(module, changes, model, recipe):
    """Copies the reweighted tensors into the torch module: each must equal
    exactly one float parameter/buffer, a block of its rows, or the transpose
    of either. A tensor that equals none (the exporter computed it from
    parameters: Swin's relative position biases, say) gets its original
    values back in `model` and leaves `recipe`: it stays in the skeleton."""
    state = module.state_dict()
    inits = {t.name: t for t in model.graph.initializer}
    arrays = {k: v.detach().cpu().numpy() for k, v in state.items()
              if v.dtype == torch.float32}
    for name, (orig, new) in changes.items():
        hits = []
        for k, a in arrays.items():
            for rows, transposed in _views_of(a, orig.shape):
                v = a[rows]
                if np.array_equal(v.T if transposed else v, orig):
                    hits.append((k, rows, transposed))
        if not hits and name in inits:
            inits[name].CopyFrom(numpy_helper.from_array(orig, name))
            recipe["tensors"] = [e for e in recipe["tensors"] if e["name"] != name]
            continue
        if len({(state[k].data_ptr(), str(r)) for k, r, _ in hits}) != 1:
            raise RuntimeError(
                "--portable-weights: reweighted tensor %r matches %s of the torch module "
                "(expected exactly one parameter); compute references with ONNX Runtime "
                "instead" % (name, ", ".join(k for k, _, _ in hits) or "no parameter"))
        with torch.no_grad():
            for k, rows, transposed in hits:
                state[k][rows].copy_(torch.from_numpy(
                    np.ascontiguousarray(new.T if transposed else new)))


def _recalibrated_stats(module, model, names):
    """Measures the module's batch-norm statistics again and writes them into
    the model's initializers `names` (each a running_mean/running_var
    buffer of the module, by name)."""
    kiln_models.recalibrate_batch_norms(module)
    state = module.state_dict()
    inits = {t.name: t for t in model.graph.initializer}
    for n in names:
        if n not in state or n not in inits:
            raise RuntimeError("--portable-weights: batch-norm statistic %r is not both an "
                               "initializer and a buffer of the torch module" % n)
        inits[n].CopyFrom(numpy_helper.from_array(
            state[n].detach().cpu().numpy().astype(np.float32), n))


def export_one(name, opset, args):
    """Export one model/opset; returns a dict with summary info."""
    out_dir = args.out
    onnx_path = os.path.join(out_dir, "%s_op%d.onnx" % (name, opset))
    data_dir = os.path.join(out_dir, "%s_op%d" % (name, opset), "test_data_set_0")

    t0 = time.time()
    module, inputs, input_names, output_names = kiln_models.build(
        name, batch=args.batch, seq=args.seq)
    t_build = time.time() - t0

    # Reference output. Computed with autograd enabled (params require grad) so
    # that torch 1.13 takes the same non-fast-path MHA / encoder-layer code that
    # the exporter traces; then detached.
    t0 = time.time()
    with torch.enable_grad():
        ref = module(*inputs)
    refs = ref if isinstance(ref, (list, tuple)) else (ref,)
    ref_np = [_to_numpy(r) for r in refs]
    t_ref = time.time() - t0

    dynamic_axes = None
    if args.dynamic_batch:
        dynamic_axes = {n: {0: "batch"} for n in list(input_names) + list(output_names)}

    t0 = time.time()
    fd, tmp = tempfile.mkstemp(dir=out_dir, prefix=".tmp-%s_op%d-" % (name, opset),
                               suffix=".onnx")
    os.close(fd)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.onnx.export(
                module, tuple(inputs), tmp,
                export_params=True,
                opset_version=opset,
                do_constant_folding=True,
                input_names=list(input_names),
                output_names=list(output_names),
                dynamic_axes=dynamic_axes,
                training=(torch.onnx.TrainingMode.PRESERVE if args.portable_weights
                          else torch.onnx.TrainingMode.EVAL),
            )
        model = onnx.load(tmp)
        changed = _pin_output_dims(model, output_names, ref_np, dynamic_axes)
        if args.portable_weights:
            # Batch-norm statistics measured on seeded batches are measured
            # again with the new weights (else activations drift away from
            # their scale layer by layer); they stay in the skeleton.
            stats = []
            if kiln_models.calibrates_batch_norms(name):
                stats = [i for n in model.graph.node if n.op_type == "BatchNormalization"
                         for i in n.input[3:5]]
            recipe, changes = portable_weights.reweight(model, keep=stats)
            _load_reweighted(module, changes, model, recipe)
            if stats:
                _recalibrated_stats(module, model, stats)
            with torch.enable_grad():
                ref = module(*inputs)
            refs = ref if isinstance(ref, (list, tuple)) else (ref,)
            ref_np = [_to_numpy(r) for r in refs]
            changed = True
        if changed:
            portable_weights.save(model, tmp)
        onnx.checker.check_model(tmp if args.portable_weights else model)
        os.replace(tmp, onnx_path)
        if args.portable_weights:
            base = os.path.join(out_dir, "%s_op%d" % (name, opset))
            recipe["model_sha256"] = portable_weights._file_sha256(onnx_path)
            portable_weights.save_json(recipe, base + ".recipe.json")
            portable_weights.skeleton(model, recipe)
            portable_weights.save(model, base + ".skeleton.onnx")
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    t_export = time.time() - t0

    # Conformance-layout test data.
    os.makedirs(data_dir, exist_ok=True)
    for k, (n, x) in enumerate(zip(input_names, inputs)):
        tp = numpy_helper.from_array(_to_numpy(x), name=n)
        _atomic_write_bytes(os.path.join(data_dir, "input_%d.pb" % k), tp.SerializeToString())
    for k, (n, y) in enumerate(zip(output_names, ref_np)):
        tp = numpy_helper.from_array(np.ascontiguousarray(y), name=n)
        _atomic_write_bytes(os.path.join(data_dir, "output_%d.pb" % k), tp.SerializeToString())

    opsets = {(o.domain or "ai.onnx"): o.version for o in model.opset_import}
    return {
        "name": name,
        "opset": opset,
        "path": onnx_path,
        "size_mb": os.path.getsize(onnx_path) / 1e6,
        "nodes": len(model.graph.node),
        "model_opset": opsets.get("ai.onnx"),
        "ops": op_counts(model),
        "t_build": t_build,
        "t_ref": t_ref,
        "t_export": t_export,
        "out_shapes": [tuple(y.shape) for y in ref_np],
    }


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", required=True, help="output directory")
    p.add_argument("--opset", type=int, nargs="+", default=DEFAULT_OPSETS)
    p.add_argument("--models", nargs="+", default=list(kiln_models.MODEL_NAMES),
                   choices=list(kiln_models.MODEL_NAMES) + list(kiln_models.SMALL_MODELS) +
                   list(kiln_models.EXTRA_VISION_MODELS) +
                   list(kiln_models.ZOO_VISION_MODELS) +
                   list(kiln_models.EXTRA_TEXT_MODELS))
    p.add_argument("--batch", type=int, default=1)
    p.add_argument("--seq", type=int, default=128, help="sequence length (bert_encoder)")
    p.add_argument("--dynamic-batch", action="store_true",
                   help="mark dim 0 of all inputs/outputs as dynamic ('batch')")
    p.add_argument("--portable-weights", action="store_true",
                   help="replace large float tensors by recipe-regenerable values "
                        "(scripts/portable_weights.py) and compute references with them")
    p.add_argument("--list-ops", action="store_true",
                   help="print (domain, op_type) counts of each exported file")
    args = p.parse_args(argv)

    os.makedirs(args.out, exist_ok=True)
    log("torch %s, torchvision %s, onnx %s; out=%s" % (
        torch.__version__, __import__("torchvision").__version__, onnx.__version__, args.out))

    results, failures = [], []
    for name in args.models:
        for opset in args.opset:
            log("[%s op%d] exporting ..." % (name, opset))
            try:
                r = export_one(name, opset, args)
            except Exception as e:  # noqa: BLE001
                traceback.print_exc()
                log("[%s op%d] FAILED: %s: %s" % (name, opset, type(e).__name__,
                                                  str(e).splitlines()[0] if str(e) else ""))
                failures.append((name, opset, e))
                continue
            results.append(r)
            log("[%s op%d] ok: %s  %.1f MB  %d nodes  opset %s  out %s  "
                "(build %.1fs, ref %.1fs, export+check %.1fs)" % (
                    name, opset, r["path"], r["size_mb"], r["nodes"], r["model_opset"],
                    r["out_shapes"], r["t_build"], r["t_ref"], r["t_export"]))
            if args.list_ops:
                for (dom, op), n in sorted(r["ops"].items()):
                    log("    %-10s %-28s %d" % (dom, op, n))

    log("")
    log("Summary:")
    for r in results:
        log("  %-40s %8.1f MB %6d nodes  opset %s" % (
            os.path.basename(r["path"]), r["size_mb"], r["nodes"], r["model_opset"]))
    if args.list_ops and results:
        union = collections.defaultdict(list)
        for r in results:
            for key in r["ops"]:
                union[key].append("%s_op%d" % (r["name"], r["opset"]))
        log("")
        log("Union of op types (%d):" % len(union))
        for (dom, op), users in sorted(union.items()):
            log("  %-10s %-28s %s" % (dom, op, " ".join(users)))
    if failures:
        log("")
        for name, opset, e in failures:
            log("FAILED: %s opset %d: %s: %s" % (name, opset, type(e).__name__, e))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
