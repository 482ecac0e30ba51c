#!/usr/bin/env python3
"""fp16 GEMM, kiln against cuBLAS (torch.matmul), in two halves.

gen (build machine: /usr/bin/python3 with onnx + numpy, kilnc; no GPU):

  /usr/bin/python3 bench/gemm_bench.py gen --build-dir build --out .device/gemm \\
      [--sizes 1024,2048,4096] [--target sm_90a]

  For each size S: OUT/gemm_S.onnx, an fp16-native model (opset 17): inputs A [S,S] and B [S,S]
  float16, one MatMul, output Y [S,S] float16 (the plan's I/O is f16, so no conversion kernels
  run); compiled with `kilnc OUT/gemm_S.onnx -o OUT/gemm_S.plan --target TARGET -q --json` (no
  --precision: the model is f16 already). kilnc's JSON build report goes to OUT/gemm_S.build.json;
  its "tensor_core_ops" (>= 1 expected) is printed. The plan bytes are scanned for the PTX
  instruction names "mma.sync.aligned" and "wgmma.mma_async"; OUT/manifest.json lists sizes, files,
  tensor_core_ops and the instructions found.

run (GPU machine: python3 with torch 2.x + CUDA; standard library + torch only):

  python3 bench/gemm_bench.py run --kiln-run build-rt/bin/kiln-run --dir .device/gemm \\
      [--iterations 200] [--warmup 20] [--json FILE] [--sizes ...]

  For each size S in the manifest:
  1. correctness: seeded fp16 inputs, uniform in [-1, 1) (torch.rand on the CPU, seed 1000+S for A,
     2000+S for B), written as .npy ('<f2', C order) by this script's own writer; one run of
     `kiln-run PLAN --device gpu --input A=a.npy --input B=b.npy --output-dir D --profile=P
     --json=J`; output_0.pb (ONNX TensorProto) read by a minimal protobuf reader; the reference is
     torch.matmul in fp32 (TF32 off) of the same fp16 inputs. Reported: max abs error and max abs
     error / max|ref| ("rel"). The check passes if

         max abs err <= 2e-2 * sqrt(S / 1024) * max(1, max|ref| / 32)

     (fp32 accumulation gives ~half an fp16 ulp of the output, ~0.016 at |y| ~ 50 for S = 1024;
     accumulating in fp16 fails it). cuBLAS's fp16 result is measured against the same reference
     for comparison (not part of the check). The --profile run also gives kiln's GPU kernel time
     (CUDA events around each launch, mean of kiln-run's 20 profile runs).
  2. speed: `kiln-run PLAN --device gpu --bench --warmup W --iterations N --json=F`, p50 from the
     report's latency_ms.p50 (host clock of enqueue + stream synchronize, CUDA graph replay: this
     includes the launch/sync overhead, a few us). cuBLAS: torch.matmul of two fp16 [S,S] CUDA
     tensors, CUDA-event timing as /work/shared/bench/peers.py's cuda_time (warm-up, one event pair
     per iteration, p50), plainly and replayed from a CUDA graph (torch.cuda.graph capture).
  Table: size | kiln p50 ms | kiln TFLOP/s | cuBLAS p50 ms (graph) | cuBLAS TFLOP/s | kiln/cuBLAS %
  | max abs err | check, where TFLOP/s = 2 S^3 / p50 and kiln/cuBLAS % = cuBLAS(graph) p50 / kiln
  p50 * 100 (kiln's throughput as a share of cuBLAS's; 100 = parity, higher is better). Then the
  tensor-core instructions found in each plan's PTX (from the manifest). --json writes everything.
  Exit status 1 if any correctness check fails (or kiln-run fails).

  --device host runs kiln-run on the host instead (no CUDA needed: torch's CPU fp32 matmul is the
  reference, no cuBLAS timing): a way to try the script without a GPU, with a plan built for
  "--target sm_90a,host".
"""

import argparse
import ctypes
import datetime
import json
import math
import os
import platform
import shutil
import statistics
import struct
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True

INSTRUCTIONS = ("mma.sync.aligned", "wgmma.mma_async")


def log(msg):
    print(msg, flush=True)


def short(text, n=300):
    text = " ".join(str(text).split())
    return text if len(text) <= n else text[: n - 3] + "..."


def tolerance(S, ref_max):
    """The correctness bound on the max abs error (see the docstring)."""
    return 2e-2 * math.sqrt(S / 1024.0) * max(1.0, ref_max / 32.0)


# ------------------------------------------------------------------------------------- gen half

def make_model(S, path):
    import onnx
    from onnx import TensorProto, helper
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["A", "B"], ["Y"], name="gemm")], "gemm_%d" % S,
        [helper.make_tensor_value_info("A", TensorProto.FLOAT16, [S, S]),
         helper.make_tensor_value_info("B", TensorProto.FLOAT16, [S, S])],
        [helper.make_tensor_value_info("Y", TensorProto.FLOAT16, [S, S])])
    model = helper.make_model(graph, producer_name="kiln bench/gemm_bench.py",
                              opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, path)


def gen(args):
    kilnc = os.path.join(args.build_dir, "bin", "kilnc")
    if not os.path.isfile(kilnc):
        sys.exit("no kilnc at %s" % kilnc)
    sizes = [int(s) for s in args.sizes.split(",") if s]
    os.makedirs(args.out, exist_ok=True)
    manifest = {"created": datetime.datetime.now().isoformat(timespec="seconds"),
                "target": args.target, "kilnc": os.path.abspath(kilnc), "sizes": {}}
    failed = False
    for S in sizes:
        onnx_path = os.path.join(args.out, "gemm_%d.onnx" % S)
        plan = os.path.join(args.out, "gemm_%d.plan" % S)
        report = os.path.join(args.out, "gemm_%d.build.json" % S)
        make_model(S, onnx_path)
        cmd = [kilnc, onnx_path, "-o", plan, "--target", args.target, "-q",
               "--json"] + args.kilnc_arg
        proc = None
        for attempt in range(3):  # kilnc may be rebuilt under us: retry a missing/busy binary
            try:
                proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                      universal_newlines=True, timeout=args.timeout)
                break
            except OSError as e:
                log("  kilnc: %s, retrying" % e)
                time.sleep(5)
        entry = {"onnx": os.path.basename(onnx_path), "plan": os.path.basename(plan),
                 "build_report": os.path.basename(report)}
        if proc is None or proc.returncode != 0:
            entry["error"] = short(proc.stderr if proc else "kilnc did not start")
            log("gemm_%d: kilnc failed (%s): %s" % (S, proc.returncode if proc else "-",
                                                    entry["error"]))
            manifest["sizes"][str(S)] = entry
            failed = True
            continue
        try:
            rep = json.loads(proc.stdout)
        except ValueError:
            rep = {"unparsed_stdout": proc.stdout}
        with open(report, "w") as f:
            json.dump(rep, f, indent=1)
            f.write("\n")
        with open(plan, "rb") as f:
            blob = f.read()
        found = [i for i in INSTRUCTIONS if i.encode() in blob]
        tc = rep.get("tensor_core_ops")
        entry.update(plan_bytes=len(blob), tensor_core_ops=tc, instructions=found,
                     kernels=rep.get("kernels"), gpu_launches=rep.get("gpu_launches"),
                     precision=rep.get("precision"), build_seconds=rep.get("total_seconds"))
        manifest["sizes"][str(S)] = entry
        log("gemm_%d: %s, %d bytes, tensor_core_ops=%s (%s), kernels=%s, PTX: %s" % (
            S, plan, len(blob), tc,
            "ok: >= 1" if isinstance(tc, int) and tc >= 1 else "NO tensor-core op",
            rep.get("kernels"), ", ".join(found) or "no mma instruction"))
    with open(os.path.join(args.out, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
        f.write("\n")
    total = sum(os.path.getsize(os.path.join(args.out, n)) for n in os.listdir(args.out))
    log("wrote %s (%d files, %.1f KiB)" % (args.out, len(os.listdir(args.out)), total / 1024))
    return 1 if failed else 0


# ------------------------------------------------------------------- .npy and TensorProto I/O

def write_npy(path, data, shape, descr="<f2"):
    """An .npy file (format 1.0, C order) from raw little-endian bytes."""
    header = "{'descr': '%s', 'fortran_order': False, 'shape': %r, }" % (
        descr, tuple(int(d) for d in shape))
    pad = 64 - (10 + len(header) + 1) % 64
    header = header + " " * (pad % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode("latin1"))
        f.write(data)


def _varint(buf, pos):
    result, shift = 0, 0
    while True:
        b = buf[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if not b & 0x80:
            return result, pos
        shift += 7


def read_tensor_pb(path):
    """(name, dims, data_type, raw little-endian bytes) of an ONNX TensorProto file. Handles
    raw_data (field 9), and float_data (4, float) / int32_data (5, float16 bit patterns) when the
    data is not raw. data_type: 1 float, 10 float16."""
    with open(path, "rb") as f:
        buf = f.read()
    pos, dims, dtype, name, raw = 0, [], 0, "", None
    floats, int32s = [], []
    while pos < len(buf):
        tag, pos = _varint(buf, pos)
        field, wire = tag >> 3, tag & 7
        if wire == 0:
            v, pos = _varint(buf, pos)
            if field == 1:
                dims.append(v)
            elif field == 2:
                dtype = v
            elif field == 5:
                int32s.append(v)
        elif wire == 2:
            n, pos = _varint(buf, pos)
            chunk, pos = buf[pos:pos + n], pos + n
            if field == 1:  # packed dims
                p = 0
                while p < len(chunk):
                    v, p = _varint(chunk, p)
                    dims.append(v)
            elif field == 4:
                floats.extend(struct.unpack("<%df" % (len(chunk) // 4), chunk))
            elif field == 5:
                p = 0
                while p < len(chunk):
                    v, p = _varint(chunk, p)
                    int32s.append(v)
            elif field == 8:
                name = chunk.decode("utf-8", "replace")
            elif field == 9:
                raw = bytes(chunk)
        elif wire == 5:
            if field == 4:
                floats.append(struct.unpack("<f", buf[pos:pos + 4])[0])
            pos += 4
        elif wire == 1:
            pos += 8
        else:
            raise ValueError("%s: unsupported protobuf wire type %d" % (path, wire))
    if raw is None:
        if dtype == 1:
            raw = struct.pack("<%df" % len(floats), *floats)
        elif dtype == 10:
            raw = struct.pack("<%dH" % len(int32s), *[v & 0xFFFF for v in int32s])
        else:
            raw = b""
    return name, dims, dtype, raw


# ------------------------------------------------------------------------------------- run half

def run_cmd(cmd, timeout):
    """(rc or None on timeout, stdout+stderr)."""
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           universal_newlines=True, timeout=timeout)
        return p.returncode, p.stdout
    except subprocess.TimeoutExpired as e:
        return None, (e.stdout or "") if isinstance(e.stdout, str) else ""


def load_json(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return {}


def tensor_bytes(t):
    """Raw bytes of a contiguous CPU tensor, without numpy."""
    t = t.contiguous()
    return ctypes.string_at(t.data_ptr(), t.numel() * t.element_size())


def cuda_time(fn, iters, warmup):
    """/work/shared/bench/peers.py's cuda_time: warm-up, one CUDA event pair per iteration."""
    import torch
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    ts = []
    for _ in range(iters):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record(); fn(); e.record(); e.synchronize()
        ts.append(s.elapsed_time(e))
    ts.sort()
    pick = lambda q: ts[min(len(ts) - 1, int(q * len(ts)))]  # noqa: E731
    return {"p50_ms": statistics.median(ts), "p90_ms": pick(0.9), "p99_ms": pick(0.99),
            "min_ms": ts[0], "iterations": iters, "warmup": warmup}


def tflops(S, ms):
    return 2.0 * S ** 3 / (ms * 1e-3) / 1e12 if ms else None


def kiln_size(args, S, entry, work, row):
    """Correctness run (+ profile) and bench of one plan into row['kiln']; returns kiln's output
    (torch fp32 CPU tensor) or None, and the inputs."""
    import torch
    k = row["kiln"] = {"status": "ok"}
    plan = os.path.join(args.dir, entry["plan"])
    if not os.path.isfile(plan):
        k.update(status="error", error="no plan %s" % plan)
        return None, None
    ga, gb = torch.Generator().manual_seed(1000 + S), torch.Generator().manual_seed(2000 + S)
    a = (torch.rand(S, S, generator=ga) * 2 - 1).half()
    b = (torch.rand(S, S, generator=gb) * 2 - 1).half()
    d = os.path.join(work, "gemm_%d" % S)
    os.makedirs(d, exist_ok=True)
    an, bn, out = os.path.join(d, "a.npy"), os.path.join(d, "b.npy"), os.path.join(d, "out")
    write_npy(an, tensor_bytes(a), (S, S))
    write_npy(bn, tensor_bytes(b), (S, S))
    base = [args.kiln_run, plan, "--device", args.device, "--input", "A=" + an, "--input", "B=" + bn]
    jf, pf = os.path.join(d, "check.json"), os.path.join(d, "profile.json")
    extra = ["--profile=" + pf] if args.device == "gpu" else []
    rc, text = run_cmd(base + ["--output-dir", out, "--json=" + jf] + extra, args.timeout)
    rep = load_json(jf)
    if rc != 0:
        k.update(status="error", error="kiln-run %s: %s" % (
            "timed out" if rc is None else "exit %d" % rc, short(rep.get("error") or text)))
        return None, (a, b)
    if rep.get("device") and rep["device"] != args.device:
        k.update(status="error", error="ran on the %s: %s" % (rep["device"],
                                                              rep.get("device_note", "")))
        return None, (a, b)
    prof = load_json(pf) if extra else []
    if isinstance(prof, list) and prof:
        # Each entry's ms is already the mean over kiln-run's profile runs.
        k["kernel_ms"] = sum(p.get("ms", 0) for p in prof)
        k["kernels"] = sorted({p.get("symbol") or p.get("kernel") for p in prof})
        k["launch"] = {"grid": prof[0].get("grid"), "block": prof[0].get("block")}
    name, dims, dtype, raw = read_tensor_pb(os.path.join(out, "output_0.pb"))
    if dims != [S, S] or dtype not in (1, 10):
        k.update(status="error", error="output %r dims %s data_type %d" % (name, dims, dtype))
        return None, (a, b)
    y = torch.frombuffer(bytearray(raw), dtype=torch.float16 if dtype == 10 else torch.float32)
    y = y.reshape(S, S).float()

    bj = os.path.join(d, "bench.json")
    rc, text = run_cmd([args.kiln_run, plan, "--device", args.device, "--bench", "--warmup",
                        str(args.warmup), "--iterations", str(args.iterations), "--json=" + bj],
                       args.timeout)
    br = load_json(bj)
    if rc != 0 or not br.get("latency_ms"):
        k.update(status="error", error="kiln-run --bench %s: %s" % (
            "timed out" if rc is None else "exit %s" % rc, short(br.get("error") or text)))
        return y, (a, b)
    lat = br["latency_ms"]
    k.update(p50_ms=lat.get("p50"), p90_ms=lat.get("p90"), p99_ms=lat.get("p99"),
             min_ms=lat.get("min"), tflops=tflops(S, lat.get("p50")),
             kernel_tflops=tflops(S, k.get("kernel_ms")), cuda_graph=br.get("cuda_graph"),
             device_name=br.get("device_name"), target=br.get("target"),
             warmup=args.warmup, iterations=args.iterations, bench=br)
    return y, (a, b)


def check(S, y, ref):
    import torch
    diff = (y.double() - ref.double()).abs()
    ref_max = float(ref.abs().max())
    err = float(diff.max()) if not torch.isnan(diff).any() else float("nan")
    tol = tolerance(S, ref_max)
    return {"max_abs_err": err, "ref_max_abs": ref_max,
            "max_rel_err": err / ref_max if ref_max > 0 else err, "tolerance": tol,
            "ok": bool(err <= tol)}


def torch_size(args, S, inputs, row):
    """cuBLAS fp16 timings (plain and CUDA graph) and the fp32 reference of one size."""
    import torch
    a, b = inputs
    t = row["cublas"] = {}
    if args.device != "gpu":
        t["status"] = "skipped (--device host)"
        return torch.matmul(a.float(), b.float())
    torch.backends.cuda.matmul.allow_tf32 = False
    ag, bg = a.cuda(), b.cuda()
    ref = torch.matmul(ag.float(), bg.float()).cpu()
    y16 = torch.matmul(ag, bg).float().cpu()
    t["vs_ref"] = check(S, y16, ref)
    t["plain"] = cuda_time(lambda: torch.matmul(ag, bg), args.iterations, args.warmup)
    # CUDA graph, as torch.compile(mode="reduce-overhead") would replay it
    c = torch.empty(S, S, dtype=torch.float16, device="cuda")
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(3):
            torch.matmul(ag, bg, out=c)
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        torch.matmul(ag, bg, out=c)
    t["graph"] = cuda_time(g.replay, args.iterations, args.warmup)
    t["status"] = "ok"
    for m in ("plain", "graph"):
        t[m]["tflops"] = tflops(S, t[m]["p50_ms"])
    t["device_name"] = torch.cuda.get_device_name()
    return ref


def fnum(v, fmt="%.3f"):
    return fmt % v if isinstance(v, (int, float)) and v == v else "-"


def table(rows, manifest):
    hdr = ("size", "kiln p50 ms", "kiln TFLOP/s", "cuBLAS p50 ms (graph)", "cuBLAS TFLOP/s",
           "kiln/cuBLAS %", "max abs err", "check")
    lines = []
    for r in rows:
        k, c = r.get("kiln") or {}, (r.get("cublas") or {}).get("graph") or {}
        chk = r.get("check") or {}
        kp, cp = k.get("p50_ms"), c.get("p50_ms")
        status = ("ok" if chk.get("ok") else "FAIL") if chk else (k.get("status") or "-")
        lines.append((str(r["size"]), fnum(kp), fnum(k.get("tflops"), "%.1f"), fnum(cp),
                      fnum(c.get("tflops"), "%.1f"),
                      fnum(100.0 * cp / kp if kp and cp else None, "%.1f"),
                      fnum(chk.get("max_abs_err"), "%.2e"), status))
    w = [max(len(h), *(len(l[i]) for l in lines)) if lines else len(h) for i, h in enumerate(hdr)]
    fmt = lambda cols: "  ".join(s.rjust(w[i]) for i, s in enumerate(cols))  # noqa: E731
    log(fmt(hdr))
    log("  ".join("-" * x for x in w))
    for l in lines:
        log(fmt(l))
    log("TFLOP/s = 2 S^3 / p50; kiln/cuBLAS % = cuBLAS graph p50 / kiln p50 * 100 (100 = parity).")
    log("check: max abs err <= 2e-2 * sqrt(S/1024) * max(1, max|ref|/32), ref = fp32 matmul of "
        "the fp16 inputs.")
    log("")
    for r in rows:
        k, c, e = r.get("kiln") or {}, r.get("cublas") or {}, manifest["sizes"].get(str(r["size"]), {})
        chk = r.get("check") or {}
        parts = ["PTX: %s" % (", ".join(e.get("instructions") or []) or "no mma instruction"),
                 "tensor_core_ops %s" % e.get("tensor_core_ops")]
        if k.get("kernel_ms") is not None:
            parts.append("kiln kernel %s ms (%s TFLOP/s)" % (fnum(k["kernel_ms"], "%.4f"),
                                                             fnum(k.get("kernel_tflops"), "%.1f")))
        if c.get("plain"):
            parts.append("cuBLAS plain p50 %s ms" % fnum(c["plain"]["p50_ms"], "%.4f"))
        if c.get("vs_ref"):
            parts.append("cuBLAS fp16 max abs err %s" % fnum(c["vs_ref"]["max_abs_err"], "%.2e"))
        if chk:
            parts.append("rel %s, tol %s, max|ref| %s" % (fnum(chk["max_rel_err"], "%.1e"),
                                                         fnum(chk["tolerance"], "%.2e"),
                                                         fnum(chk["ref_max_abs"], "%.1f")))
        if k.get("status") == "error":
            parts.append("kiln error: " + k.get("error", ""))
        log("  %5d  %s" % (r["size"], "; ".join(parts)))


def run(args):
    import torch
    manifest = load_json(os.path.join(args.dir, "manifest.json"))
    if not manifest.get("sizes"):
        sys.exit("no manifest.json with sizes in %s (run the gen half first)" % args.dir)
    if not os.path.isfile(args.kiln_run):
        sys.exit("no kiln-run at %s" % args.kiln_run)
    sizes = sorted(int(s) for s in manifest["sizes"])
    if args.sizes:
        sizes = [s for s in sizes if s in {int(x) for x in args.sizes.split(",")}]
    work = args.keep or tempfile.mkdtemp(prefix="gemm_bench.")
    rows, ok = [], True
    try:
        # all kiln runs first, while the GPU holds nothing of PyTorch's
        kept = {}
        for S in sizes:
            row = {"size": S, "flops": 2 * S ** 3}
            entry = manifest["sizes"][str(S)]
            if entry.get("error"):
                row["kiln"] = {"status": "error", "error": "gen: " + entry["error"]}
                rows.append(row)
                ok = False
                continue
            log("gemm_%d: kiln ..." % S)
            y, inputs = kiln_size(args, S, entry, work, row)
            kept[S] = (y, inputs)
            rows.append(row)
        for row in rows:
            S = row["size"]
            y, inputs = kept.get(S, (None, None))
            if inputs is None:
                ok = False
                continue
            log("gemm_%d: torch ..." % S)
            try:
                ref = torch_size(args, S, inputs, row)
                if args.device == "gpu":
                    torch.cuda.empty_cache()
            except Exception as e:  # noqa: BLE001
                row["cublas"] = {"status": "error", "error": "%s: %s" % (type(e).__name__,
                                                                          short(e))}
                ref = torch.matmul(inputs[0].float(), inputs[1].float())
            if y is None:
                ok = False
            else:
                row["check"] = check(S, y, ref)
                ok &= row["check"]["ok"]
            if (row.get("kiln") or {}).get("status") != "ok":
                ok = False
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    log("")
    table(rows, manifest)
    if args.json:
        out = {"created": datetime.datetime.now().isoformat(timespec="seconds"),
               "host": platform.node(), "torch": torch.__version__,
               "cuda": getattr(torch.version, "cuda", None), "device": args.device,
               "kiln_run": args.kiln_run, "dir": args.dir, "manifest": manifest,
               "iterations": args.iterations, "warmup": args.warmup, "ok": ok, "rows": rows}
        with open(args.json, "w") as f:
            json.dump(out, f, indent=1)
            f.write("\n")
        log("wrote %s" % args.json)
    return 0 if ok else 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd")
    g = sub.add_parser("gen", help="build machine: ONNX models + kilnc plans")
    g.add_argument("--build-dir", default="build")
    g.add_argument("--out", default=".device/gemm")
    g.add_argument("--sizes", default="1024,2048,4096")
    g.add_argument("--target", default="sm_90a")
    g.add_argument("--timeout", type=float, default=600)
    g.add_argument("--kilnc-arg", action="append", default=[],
                   help="extra kilnc argument, repeatable (e.g. --kilnc-arg=--gpu-wgmma=128x128x4)")
    r = sub.add_parser("run", help="GPU machine: check and time kiln against cuBLAS")
    r.add_argument("--kiln-run", required=True)
    r.add_argument("--dir", default=".device/gemm")
    r.add_argument("--sizes", default="", help="subset of the manifest's sizes (default: all)")
    r.add_argument("--iterations", type=int, default=200)
    r.add_argument("--warmup", type=int, default=20)
    r.add_argument("--json", default="")
    r.add_argument("--device", default="gpu", choices=["gpu", "host"])
    r.add_argument("--keep", default="", help="keep inputs, outputs and kiln-run JSON in DIR")
    r.add_argument("--timeout", type=float, default=300)
    args = ap.parse_args()
    if args.cmd == "gen":
        return gen(args)
    if args.cmd == "run":
        return run(args)
    ap.print_help()
    return 2


if __name__ == "__main__":
    sys.exit(main())
