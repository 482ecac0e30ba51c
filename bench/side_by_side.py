#!/usr/bin/env python3
"""kiln against PyTorch on one GPU, in one run: same architecture, batch, precision and inputs.

Run on the GPU machine (python3 with torch 2.x, numpy; onnx optional), beside plans made by
bench/prepare.sh on a build machine:

  python3 bench/side_by_side.py --kiln-run build-rt/bin/kiln-run --plans .device/bench \\
      [--models resnet50 bert_encoder_b32 ...] [--out results.json]

For each case (resnet50 b1/b64, mobilenet_v2 b1, vit_b_16 b1, bert_encoder seq 128 b1/b32):
  kiln     PLANS/<model>_b<batch>.plan: one checked run (kiln-run --compare with the reference
           data prepare.sh carried, when present; the output is also compared with PyTorch's fp32
           eager output), then `kiln-run --device gpu --bench --warmup W --iterations N --json=F`
           (p50 latency, throughput, time to first result, device memory). A weight-stripped plan,
           PLANS/<model>_b<batch>.stripped.plan, is refitted first with kiln-refit and the weights
           of --refit-from DIR (see bench/README.md).
  PyTorch  the same module from scripts/kiln_models.py (same seeds, so the same weights and
           inputs as the exported ONNX), eager and torch.compile(mode="reduce-overhead"),
           channels_last for CNNs, fp32 (what kiln plans are today) and fp16 (reference for later);
           CUDA-event timing as /work/shared/bench/peers.py: warm-up, then p50 over N iterations.
All kiln runs come first, while the GPU holds nothing of PyTorch's. Work is ordered so that a
time budget (--budget-s) cuts the least useful part: fp32 of cases with plans first, then fp16,
then cases without plans. A failure in one case is recorded and the others go on.
"""

import argparse
import datetime
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import traceback

sys.dont_write_bytecode = True

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, ".."))
SEQ = 128
# (model, batch): the cases this benchmark knows.
CASES = [("resnet50", 1), ("resnet50", 64), ("mobilenet_v2", 1), ("vit_b_16", 1),
         ("bert_encoder", 1), ("bert_encoder", 32)]
# Run only when named in --models.
EXTRA_CASES = [("resnext50_32x4d", 1), ("resnext50_32x4d", 32), ("googlenet", 1),
               ("googlenet", 64), ("bert_hf", 1), ("bert_hf", 32), ("efficientnet_b0", 1),
               ("mobilenet_v3_large", 1), ("mobilenet_v3_small", 1), ("shufflenet_v2_x1_0", 1),
               ("squeezenet1_1", 1), ("regnet_y_400mf", 1), ("densenet121", 1),
               ("convnext_tiny", 1), ("swin_t", 1)]
CNNS = ("resnet50", "mobilenet_v2", "efficientnet_b0", "resnext50_32x4d", "googlenet",
        "mobilenet_v3_large", "mobilenet_v3_small", "shufflenet_v2_x1_0", "squeezenet1_1",
        "regnet_y_400mf", "densenet121", "convnext_tiny")
# Rough torch.compile(reduce-overhead) cost of one case on an H200 (compile + warm-up + timing),
# used only to decide whether it still fits in --budget-s.
COMPILE_COST_S = 45.0
EAGER_COST_S = 5.0


def log(msg):
    print(msg, flush=True)


def key(model, batch):
    return "%s_b%d" % (model, batch)


def load_kiln_models():
    import importlib.util
    spec = importlib.util.spec_from_file_location(
        "kiln_models", os.path.join(ROOT, "scripts", "kiln_models.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def short(text, n=200):
    text = " ".join(str(text).split())
    return text if len(text) <= n else text[: n - 3] + "..."


# ------------------------------------------------------------------------------------- kiln side

def run_cmd(cmd, timeout):
    """(rc or None on timeout, stdout+stderr)."""
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           timeout=timeout, universal_newlines=True, errors="replace")
        return p.returncode, p.stdout
    except subprocess.TimeoutExpired as e:
        return None, (e.output or "") if isinstance(e.output, str) else ""
    except OSError as e:
        return 127, str(e)


def read_json(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def find_weights(refit_dir, model, batch):
    for name in (key(model, batch) + ".onnx", "%s_op17.onnx" % model, model + ".onnx",
                 os.path.join("b%d" % batch, "%s_op17.onnx" % model)):
        p = os.path.join(refit_dir, name)
        if os.path.isfile(p):
            return p
    return None


def locate_plan(args, model, batch, work, row):
    """Path of a runnable plan for the case, refitting a stripped one; None (row says why)."""
    full = os.path.join(args.plans, key(model, batch) + ".plan")
    if os.path.isfile(full):
        return full
    stripped = os.path.join(args.plans, key(model, batch) + ".stripped.plan")
    if not os.path.isfile(stripped):
        row["kiln"] = {"status": "no plan"}
        return None
    if not args.refit_from:
        row["kiln"] = {"status": "no plan",
                       "note": "%s is weight-stripped: give --refit-from DIR" % stripped}
        return None
    weights = find_weights(args.refit_from, model, batch)
    if not weights:
        row["kiln"] = {"status": "no plan",
                       "note": "no weights for %s in %s" % (key(model, batch), args.refit_from)}
        return None
    out = os.path.join(work, key(model, batch) + ".plan")
    t0 = time.time()
    rc, text = run_cmd([args.kiln_refit, stripped, "--weights-from", weights, "-o", out],
                       args.timeout)
    row["refit"] = {"weights": weights, "seconds": round(time.time() - t0, 2), "rc": rc}
    if rc != 0 or not os.path.isfile(out):
        row["kiln"] = {"status": "error", "error": "kiln-refit: " + short(text or "timed out")}
        return None
    return out


def save_inputs(km, model, batch, work):
    """Seeded example inputs as .npy (the exported test data's inputs); [(name, path)]."""
    import numpy as np
    inputs = km.example_inputs(model, batch, SEQ)
    names = ["input_ids", "attention_mask"] if model.startswith("bert") else ["input"]
    files = []
    for n, t in zip(names, inputs):
        p = os.path.join(work, "%s_%s.npy" % (key(model, batch), n))
        np.save(p, t.numpy())
        files.append((n, p))
    return files


def kiln_case(args, km, model, batch, work, row):
    plan = locate_plan(args, model, batch, work, row)
    if not plan:
        return
    k = row["kiln"] = {"status": "ok", "plan": plan, "plan_bytes": os.path.getsize(plan)}
    inputs = save_inputs(km, model, batch, work)
    in_args = []
    for n, p in inputs:
        in_args += ["--input", "%s=%s" % (n, p)]
    base = [args.kiln_run, plan, "--device", args.device] + in_args

    # 1. One run whose outputs are kept: compared with the reference data prepare.sh carried
    #    (here) and with PyTorch's fp32 eager outputs (later).
    outdir = os.path.join(work, key(model, batch) + ".out")
    os.makedirs(outdir, exist_ok=True)
    jf = os.path.join(work, key(model, batch) + ".check.json")
    t0 = time.time()
    rc, text = run_cmd(base + ["--output-dir", outdir, "--json=" + jf], args.timeout)
    rep = read_json(jf) or {}
    k["check_run_s"] = round(time.time() - t0, 2)
    k["device"] = rep.get("device")
    k["output_dir"] = outdir
    if rc != 0:
        k.update(status="error", error="kiln-run %s: %s" % (
            "timed out" if rc is None else "exit %d" % rc, short(rep.get("error") or text)))
        return
    if rep.get("device") and rep["device"] != args.device:
        k.update(status="error", error="ran on the %s: %s" % (rep["device"],
                                                              rep.get("device_note", "")))
        return
    data = os.path.join(args.plans, key(model, batch) + ".data")
    if os.path.isdir(data):
        try:
            k["reference"] = compare(read_pb_outputs(outdir), read_pb_outputs(data), args.tol)
        except Exception as e:  # noqa: BLE001
            k["reference"] = {"error": "%s: %s" % (type(e).__name__, short(e, 120))}

    # 2. Gauge, then the benchmark with as many iterations as fit in --kiln-seconds.
    gj = os.path.join(work, key(model, batch) + ".gauge.json")
    rc, text = run_cmd(base + ["--bench", "--warmup", "2", "--iterations", "3", "--json=" + gj],
                       args.timeout)
    g = read_json(gj) or {}
    per = ((g.get("latency_ms") or {}).get("p50") or 0) / 1e3
    if rc != 0 or per <= 0:
        k.update(status="error", error="kiln-run --bench (gauge) exit %s: %s" % (
            rc, short(g.get("error") or text)))
        return
    iters = int(max(args.kiln_min_iterations,
                    min(args.kiln_iterations, args.kiln_seconds / per)))
    warm = int(min(args.kiln_warmup, max(2, iters // 4)))
    bj = os.path.join(work, key(model, batch) + ".bench.json")
    rc, text = run_cmd(base + ["--bench", "--warmup", str(warm), "--iterations", str(iters),
                               "--json=" + bj], args.timeout + 2 * per * (iters + warm))
    b = read_json(bj) or {}
    if rc != 0 or not b.get("latency_ms"):
        k.update(status="error", error="kiln-run --bench exit %s: %s" % (
            rc, short(b.get("error") or text)))
        return
    lat = b["latency_ms"]
    mem = b.get("device_memory") or {}
    ij = os.path.join(work, key(model, batch) + ".info.json")
    rc, _ = run_cmd([args.kiln_run, plan, "--info", "--json=" + ij], args.timeout)
    info = read_json(ij) or {}
    # Launches per inference: those of the module the run used.
    fmt = b.get("module_format")
    k["launches"] = next((m.get("launches") for m in info.get("modules") or []
                          if m.get("target") == b.get("target") and m.get("format") == fmt),
                         None) if rc == 0 else None
    k.update(p50_ms=lat.get("p50"), p90_ms=lat.get("p90"), p99_ms=lat.get("p99"),
             min_ms=lat.get("min"), items_per_s=b.get("throughput_items_per_s"),
             first_result_ms=b.get("first_result_ms"), load_ms=b.get("load_ms"),
             warmup=warm, iterations=iters, cuda_graph=b.get("cuda_graph"),
             device_name=b.get("device_name"), target=b.get("target"),
             module_format=b.get("module_format"),
             device_memory_bytes=b.get("peak_device_memory_bytes"),
             device_memory_measured_bytes=mem.get("measured_contexts_bytes"),
             weights_bytes=mem.get("weights_bytes"), bench=b)


def read_pb_outputs(outdir):
    """[numpy arrays] from kiln-run --output-dir (needs the onnx package)."""
    from onnx import TensorProto, numpy_helper
    outs, i = [], 0
    while os.path.isfile(os.path.join(outdir, "output_%d.pb" % i)):
        t = TensorProto()
        with open(os.path.join(outdir, "output_%d.pb" % i), "rb") as f:
            t.ParseFromString(f.read())
        outs.append(numpy_helper.to_array(t))
        i += 1
    return outs


# ------------------------------------------------------------------------------------ torch side

def torch_time(fn, warmup, iters, seconds, min_iters, device):
    """peers.py's cuda_time, with the iteration count fitted to `seconds`."""
    import torch
    cuda = device.startswith("cuda")
    sync = torch.cuda.synchronize if cuda else (lambda: None)
    for _ in range(warmup):
        fn()
    sync()
    t0 = time.perf_counter()
    for _ in range(3):
        fn()
    sync()
    per = (time.perf_counter() - t0) / 3
    n = int(max(min_iters, min(iters, seconds / max(per, 1e-6))))
    ts = []
    for _ in range(n):
        if cuda:
            s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            s.record(); fn(); e.record(); e.synchronize()
            ts.append(s.elapsed_time(e))
        else:
            t = time.perf_counter(); fn(); ts.append((time.perf_counter() - t) * 1e3)
    ts.sort()
    pick = lambda q: ts[min(len(ts) - 1, int(q * len(ts)))]  # noqa: E731
    return {"p50_ms": statistics.median(ts), "p90_ms": pick(0.9), "p99_ms": pick(0.99),
            "min_ms": ts[0], "iterations": n, "warmup": warmup}


def torch_case(args, km, model, batch, prec, row, budget_left, kiln_outputs):
    """Eager and torch.compile timings of one case at one precision into row['torch'][prec]."""
    import torch
    res = row.setdefault("torch", {}).setdefault(prec, {})
    dt = {"fp32": torch.float32, "fp16": torch.float16}[prec]
    dev = args.torch_device
    module, inputs, _, _ = km.build(model, batch, SEQ)
    module = module.to(dev).to(dt)
    x = tuple(t.to(dev) for t in inputs)
    x = tuple(t.to(dt) if t.is_floating_point() else t for t in x)
    if model in CNNS and args.channels_last:
        module = module.to(memory_format=torch.channels_last)
        x = tuple(t.to(memory_format=torch.channels_last) if t.dim() == 4 else t for t in x)
    for mode in args.modes:
        if mode in res:
            continue
        cost = COMPILE_COST_S if mode == "compile" else EAGER_COST_S
        if budget_left() < cost:
            res[mode] = {"status": "skipped", "note": "time budget (--budget-s %d)" % args.budget_s}
            continue
        if mode == "compile" and not hasattr(torch, "compile"):
            res[mode] = {"status": "skipped",
                         "note": "torch %s has no torch.compile" % torch.__version__}
            continue
        try:
            if dev.startswith("cuda"):
                torch.cuda.empty_cache()
                torch.cuda.reset_peak_memory_stats()
            if mode == "compile":
                torch._dynamo.reset()
            t0 = time.time()
            fn = torch.compile(module, mode="reduce-overhead", dynamic=False) \
                if mode == "compile" else module
            with torch.inference_mode():
                y = fn(*x)
                if dev.startswith("cuda"):
                    torch.cuda.synchronize()
                first = time.time() - t0
                if mode == "eager" and prec == KILN_PREC and kiln_outputs is not None:
                    res["kiln_vs_eager"] = compare(kiln_outputs, y, args.tol)
                y = None  # reduce-overhead's CUDA graphs reuse output memory: hold none
                t = torch_time(lambda: fn(*x), args.torch_warmup, args.torch_iterations,
                               args.torch_seconds, args.torch_min_iterations, dev)
            t.update(status="ok", first_result_s=round(first, 3),
                     items_per_s=batch / (t["p50_ms"] * 1e-3))
            if dev.startswith("cuda"):
                t["mem_peak_bytes"] = torch.cuda.max_memory_allocated()
            res[mode] = t
        except Exception as e:  # noqa: BLE001
            res[mode] = {"status": "error", "error": "%s: %s" % (type(e).__name__, short(e, 300))}
            log("    %s %s %s failed: %s" % (key(model, batch), prec, mode, res[mode]["error"]))
            if args.verbose:
                traceback.print_exc()
        finally:
            fn = None
            if mode == "compile":
                try:
                    torch._dynamo.reset()
                except Exception:  # noqa: BLE001
                    pass
    module = x = None
    if dev.startswith("cuda"):
        torch.cuda.empty_cache()


def compare(got, want, tol):
    """Largest error of kiln's outputs against reference arrays (numpy or torch), scaled by the
    reference's largest magnitude: random-init models give tiny logits (MobileNetV2's are ~1e-9),
    so a fixed atol would say nothing. ok: scaled error <= tol."""
    import numpy as np
    want = [w.detach().float().cpu().numpy() if hasattr(w, "detach") else np.asarray(w)
            for w in (want if isinstance(want, (list, tuple)) else (want,))]
    if len(got) != len(want):
        return {"error": "%d kiln outputs, %d reference outputs" % (len(got), len(want))}
    worst, scale = 0.0, 0.0
    for a, b in zip(got, want):
        if tuple(a.shape) != tuple(b.shape):
            return {"error": "shape %s vs %s" % (tuple(a.shape), tuple(b.shape))}
        a, b = a.astype(np.float64), b.astype(np.float64)
        if (np.isnan(a) != np.isnan(b)).any():
            return {"error": "NaN mismatch", "ok": False}
        if a.size:
            worst = max(worst, float(np.nanmax(np.abs(a - b))))
            scale = max(scale, float(np.nanmax(np.abs(b))))
    scaled = worst / scale if scale > 0 else worst
    return {"max_abs_err": worst, "ref_max_abs": scale, "scaled_err": scaled,
            "ok": bool(scaled <= tol)}


# --------------------------------------------------------------------------------------- report

def fnum(v, fmt="%.3f"):
    return fmt % v if isinstance(v, (int, float)) else "-"


def ratio(a, b):
    """b / a: > 1 when a (kiln) is faster than b."""
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) and a > 0:
        return "%.2fx" % (b / a)
    return "-"


# Precision of the kiln plans given (kilnc --precision): the kiln columns
# sit on the PyTorch rows of this precision.
KILN_PREC = "fp32"
KILN_LABEL = "fp32"  # tf32 plans: in the fp32 rows


def print_table(rows, precisions):
    hdr = ("model", "batch", "prec", "kiln p50", "eager p50", "compile p50",
           "vs eager", "vs compile", "kiln it/s", "eager it/s", "compile it/s", "kiln check")
    lines = []
    for r in rows:
        k = r.get("kiln") or {}
        for prec in precisions:
            t = (r.get("torch") or {}).get(prec, {})
            e, c = t.get("eager") or {}, t.get("compile") or {}
            kp = k.get("p50_ms") if prec == KILN_PREC else None
            kcol = fnum(kp) if kp is not None else (
                k.get("status", "-") if prec == KILN_PREC else "(no plan)")
            if prec == KILN_PREC and k.get("status") == "error":
                kcol = "ERROR"
            tcol = lambda m: fnum(m.get("p50_ms")) if m.get("status") == "ok" else (  # noqa: E731
                m.get("status") or "-")
            check = "-"
            if prec == KILN_PREC and k.get("status") == "ok":
                parts = []
                for what, cmp in (("ref", k.get("reference")), ("torch", t.get("kiln_vs_eager"))):
                    if cmp:
                        parts.append("%s %s" % (what, cmp.get("error") or "%.1e%s" % (
                            cmp["scaled_err"], "" if cmp["ok"] else " FAIL")))
                check = ", ".join(parts) or "-"
            lines.append((r["model"], str(r["batch"]), prec, kcol, tcol(e), tcol(c),
                          ratio(kp, e.get("p50_ms")), ratio(kp, c.get("p50_ms")),
                          fnum(k.get("items_per_s") if prec == KILN_PREC else None, "%.1f"),
                          fnum(e.get("items_per_s"), "%.1f"), fnum(c.get("items_per_s"), "%.1f"),
                          check))
    w = [max(len(h), *(len(l[i]) for l in lines)) if lines else len(h) for i, h in enumerate(hdr)]
    fmt = lambda cells: "  ".join(  # noqa: E731
        c.ljust(w[i]) if i in (0, 2, 11) else c.rjust(w[i]) for i, c in enumerate(cells))
    log("")
    log("latency p50 in ms (lower is better); 'vs eager' / 'vs compile' = torch p50 / kiln p50, so")
    log("> 1.00x means kiln is FASTER, < 1.00x kiln is slower; it/s = items (images, sequences) per s")
    log("(kiln plans are %s (--kiln-precision); rows of other precisions are PyTorch-only)"
        % KILN_LABEL)
    log(fmt(hdr))
    log(fmt(tuple("-" * x for x in w)))
    for l in lines:
        log(fmt(l))
    log("")
    log("kiln details: time to first result (plan read + load + first run), device memory")
    for r in rows:
        k = r.get("kiln") or {}
        if k.get("status") == "ok":
            mem = k.get("device_memory_bytes")
            log("  %-14s b%-3d first %8s ms  load %8s ms  mem %8s MiB (measured %s)  graphs %s  "
                "launches %s  %d iterations" % (
                    r["model"], r["batch"], fnum(k.get("first_result_ms"), "%.1f"),
                                   fnum(k.get("load_ms"), "%.1f"),
                                   fnum(mem / 2**20 if mem else None, "%.1f"),
                                   fnum(k["device_memory_measured_bytes"] / 2**20 if
                                        k.get("device_memory_measured_bytes") else None, "%.1f"),
                                   k.get("cuda_graph"), k.get("launches") or "-",
                                   k.get("iterations", 0)))
        elif k.get("status") not in (None, "ok"):
            log("  %-14s b%-3d %s%s" % (r["model"], r["batch"], k.get("status"),
                                        ": " + (k.get("error") or k.get("note") or "")
                                        if (k.get("error") or k.get("note")) else ""))
    notes = set()
    for r in rows:
        for prec, t in (r.get("torch") or {}).items():
            for mode in ("eager", "compile"):
                m = t.get(mode) or {}
                if m.get("status") == "ok" and mode == "compile":
                    log("  torch.compile %-14s b%-3d %s: first result %.1f s" % (
                        r["model"], r["batch"], prec, m["first_result_s"]))
                elif m.get("status") in ("skipped", "error"):
                    notes.add("torch %s %s: %s" % (mode, m["status"], m.get("note") or m.get("error")))
    for n in sorted(notes):
        log("  note: " + n)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split("\n\n", 1)[1])
    ap.add_argument("--kiln-run", dest="kiln_run", required=True, help="kiln-run binary")
    ap.add_argument("--kiln-refit", dest="kiln_refit",
                    help="kiln-refit binary (default: beside kiln-run)")
    ap.add_argument("--plans", required=True, help="folder of <model>_b<batch>.plan (prepare.sh)")
    ap.add_argument("--refit-from", help="folder of ONNX weights for stripped plans "
                    "(<model>_b<batch>.onnx, <model>_op17.onnx or <model>.onnx)")
    ap.add_argument("--models", nargs="+", help="cases to run: model names (all batches) or "
                    "<model>_b<batch> (default: all: %s)" % " ".join(key(*c) for c in CASES))
    ap.add_argument("--out", default="side_by_side.json", help="JSON results (side_by_side.json)")
    ap.add_argument("--device", default="gpu", choices=["gpu", "host"], help="kiln-run --device")
    ap.add_argument("--torch-device", default=None,
                    help="PyTorch device (default cuda when available, else PyTorch is skipped; "
                    "'none' skips it)")
    ap.add_argument("--precisions", default="fp32,fp16", help="PyTorch precisions (fp32,fp16)")
    ap.add_argument("--kiln-precision", default="fp32", choices=("fp32", "tf32", "fp16"),
                    help="precision the kiln plans were built with (kilnc --precision); tf32 "
                    "plans sit in the fp32 rows, against PyTorch's fp32 with TF32 on (--tf32)")
    ap.add_argument("--modes", default="eager,compile", help="PyTorch modes (eager,compile)")
    ap.add_argument("--no-channels-last", dest="channels_last", action="store_false")
    ap.add_argument("--tf32", action="store_true",
                    help="let PyTorch's fp32 use TF32 tensor cores (default off: strict fp32, as kiln)")
    ap.add_argument("--torch-without-plan", choices=["yes", "no"], default="yes",
                    help="time PyTorch for cases without a kiln plan too, last (default yes)")
    ap.add_argument("--budget-s", type=int, default=330,
                    help="stop starting PyTorch runs that would not fit in this many seconds "
                    "of total run time (default 330)")
    ap.add_argument("--kiln-warmup", type=int, default=20)
    ap.add_argument("--kiln-iterations", type=int, default=200, help="at most (200)")
    ap.add_argument("--kiln-min-iterations", type=int, default=5)
    ap.add_argument("--kiln-seconds", type=float, default=4.0,
                    help="fit kiln's timed iterations in about this many seconds (4)")
    ap.add_argument("--torch-warmup", type=int, default=10)
    ap.add_argument("--torch-iterations", type=int, default=100, help="at most (100)")
    ap.add_argument("--torch-min-iterations", type=int, default=10)
    ap.add_argument("--torch-seconds", type=float, default=2.0,
                    help="fit each PyTorch timing in about this many seconds (2)")
    ap.add_argument("--tol", type=float, default=1e-3,
                    help="largest kiln error against the reference data and PyTorch fp32 eager, "
                    "as a fraction of the reference's largest magnitude (1e-3)")
    ap.add_argument("--timeout", type=int, default=300, help="seconds per kiln-run (300)")
    ap.add_argument("--keep", help="keep kiln's work files (inputs, outputs, JSON) here")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()
    start = time.time()
    budget_left = lambda: args.budget_s - (time.time() - start)  # noqa: E731
    args.precisions = [p for p in args.precisions.split(",") if p]
    global KILN_PREC, KILN_LABEL
    KILN_PREC = KILN_LABEL = args.kiln_precision
    if KILN_PREC == "tf32":
        # tf32 plans keep f32 values: the fair peer is PyTorch's fp32 with TF32 tensor cores.
        KILN_PREC = "fp32"
        args.tf32 = True
    args.modes = [m for m in args.modes.split(",") if m]
    args.kiln_refit = args.kiln_refit or os.path.join(
        os.path.dirname(os.path.abspath(args.kiln_run)), "kiln-refit")

    cases = CASES
    if args.models:
        want = set(args.models)
        known = CASES + EXTRA_CASES
        cases = [c for c in known if c[0] in want or key(*c) in want]
        unknown = want - {c[0] for c in known} - {key(*c) for c in known}
        if unknown:
            sys.exit("error: unknown case(s) %s; known: %s" % (
                ", ".join(sorted(unknown)), " ".join(key(*c) for c in known)))

    import torch
    km = load_kiln_models()
    if args.torch_device is None:
        args.torch_device = "cuda" if torch.cuda.is_available() else None
    elif args.torch_device == "none":
        args.torch_device = None
    info = {"date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "host": platform.node(), "torch": torch.__version__,
            "torch_cuda": getattr(torch.version, "cuda", None), "torch_device": args.torch_device,
            "kiln_run": os.path.abspath(args.kiln_run), "plans": os.path.abspath(args.plans),
            "options": {k: v for k, v in vars(args).items() if k not in ("kiln_run", "plans")}}
    if not os.access(args.kiln_run, os.X_OK):
        sys.exit("error: %s is not an executable" % args.kiln_run)
    work = args.keep or tempfile.mkdtemp(prefix="kiln-bench-")
    os.makedirs(work, exist_ok=True)
    rows = [{"model": m, "batch": b, "seq": SEQ if m.startswith("bert") else None}
            for m, b in cases]

    # Phase 1: kiln, alone on the GPU.
    log("== kiln (%s) ==" % args.kiln_run)
    for r in rows:
        t0 = time.time()
        try:
            kiln_case(args, km, r["model"], r["batch"], work, r)
        except Exception as e:  # noqa: BLE001
            r["kiln"] = {"status": "error", "error": "%s: %s" % (type(e).__name__, short(e))}
            if args.verbose:
                traceback.print_exc()
        k = r["kiln"]
        log("  %-18s %s  (%.1f s)" % (key(r["model"], r["batch"]),
                                      "p50 %.3f ms, %d iterations" % (k["p50_ms"], k["iterations"])
                                      if k.get("status") == "ok" and "p50_ms" in k
                                      else k.get("status") + (": " + (k.get("error") or k.get("note"))
                                                              if k.get("error") or k.get("note") else ""),
                                      time.time() - t0))
    gpu = next((r["kiln"].get("device_name") for r in rows if r["kiln"].get("device_name")), None)

    # Phase 2: PyTorch; fp32 of cases with plans, then fp16, then cases without plans.
    if args.torch_device is None:
        log("== PyTorch skipped: no CUDA device (torch %s); give --torch-device cpu to try it "
            "on the CPU ==" % torch.__version__)
    else:
        if args.torch_device.startswith("cuda"):
            gpu = torch.cuda.get_device_name()
            torch.backends.cudnn.benchmark = True
            # kiln's fp32 plans compute in fp32: so does PyTorch's fp32 here, unless --tf32.
            torch.backends.cuda.matmul.allow_tf32 = args.tf32
            torch.backends.cudnn.allow_tf32 = args.tf32
            info["cudnn"] = torch.backends.cudnn.version()
        log("== PyTorch %s on %s ==" % (torch.__version__, gpu or args.torch_device))
        have = [r for r in rows if (r.get("kiln") or {}).get("status") == "ok"]
        rest = [r for r in rows if r not in have] if args.torch_without_plan == "yes" else []
        order = []
        for group in (have, rest):
            for prec in args.precisions:
                order += [(r, prec) for r in group]
        for r, prec in order:
            t0 = time.time()
            kout = None
            k = r.get("kiln") or {}
            if prec == KILN_PREC and k.get("status") == "ok":
                try:
                    kout = read_pb_outputs(k["output_dir"])
                except Exception as e:  # noqa: BLE001
                    r.setdefault("torch", {}).setdefault("fp32", {})["kiln_vs_eager"] = {
                        "error": "cannot read kiln's outputs: %s" % short(e, 80)}
            try:
                torch_case(args, km, r["model"], r["batch"], prec, r, budget_left, kout)
            except Exception as e:  # noqa: BLE001
                r.setdefault("torch", {}).setdefault(prec, {})["error"] = "%s: %s" % (
                    type(e).__name__, short(e, 300))
                log("    %s %s failed: %s" % (key(r["model"], r["batch"]), prec, short(e)))
            t = r["torch"][prec]
            log("  %-18s %s  %s  (%.1f s)" % (
                key(r["model"], r["batch"]), prec,
                ", ".join("%s %s" % (m, fnum((t.get(m) or {}).get("p50_ms")) + " ms"
                                     if (t.get(m) or {}).get("status") == "ok"
                                     else (t.get(m) or {}).get("status", "-"))
                          for m in args.modes), time.time() - t0))

    info["gpu"] = gpu
    info["wall_s"] = round(time.time() - start, 1)
    print_table(rows, args.precisions)
    for r in rows:  # keep the JSON readable: kiln-run's full bench report stays, paths go
        (r.get("kiln") or {}).pop("output_dir", None)
    with open(args.out, "w") as f:
        json.dump({**info, "cases": rows}, f, indent=1)
        f.write("\n")
    log("\nwrote %s (%.0f s in all)" % (args.out, time.time() - start))
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    bad = [r for r in rows if (r.get("kiln") or {}).get("status") == "error"]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
