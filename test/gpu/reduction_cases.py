#!/usr/bin/env python3
"""Long GPU reductions: fp16 GlobalAveragePool over a 96x48x512 map, in both layouts.

A numeric and a speed test for kiln-gpu-row-reduce's block and column kernels: every channel's
sum of 4608 values in [50, 100) overflows f16 (65504), so a plan that sums in f16 gives inf; kiln
sums in f32 and must match a float64 reference (rtol/atol 1e-2). Two cases:

  gap_nchw   GlobalAveragePool of a 1x512x96x48 input: the reduced dims are contiguous (a
             block of 256 threads per channel)
  gap_nhwc   a 1x1 Conv (16 -> 512 channels, positive weights) then GlobalAveragePool: with the
             fp16 channels-last layout the reduction runs across rows (split column kernels)

Like tactic_cases.py it has two halves:

  gen  (build machine)  writes OUT/CASE/model.onnx, test_data_set_0/{input_0,output_0}.pb and
                        model.plan (`kilnc --target T --precision fp16 -q`), OUT/manifest.json.
                        Needs numpy and onnx.
  run  (GPU machine)    per case: `kiln-run --device gpu --input-dir D --compare D`, then
                        `kiln-run --profile=FILE` and the GPU time of the GlobalAveragePool's
                        launches (each timed on its own with CUDA events, so each includes about
                        3 us of event overhead). Exit 1 when a case mismatches, errors, or its
                        reduction kernel (the pool's longest launch) takes longer than
                        --max-kernel-us (default 10). Standard library only.

  /usr/bin/python3 test/gpu/reduction_cases.py gen --build-dir build --target sm_90a --out .device/reductions
  python3 test/gpu/reduction_cases.py run --kiln-run build/bin/kiln-run --dir .device/reductions
Check the halves without a GPU: `gen --target host` then `run --device host` (numbers only;
test/e2e/gpu-reduction-cases.test).
"""
import argparse
import json
import os
import subprocess
import sys

SHAPE = (96, 48, 512)  # H, W, C of the pooled map


def gen(args):
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    h, w, c = SHAPE
    rng = np.random.default_rng(0)
    cases = {}
    for name in ("gap_nchw", "gap_nhwc"):
        d = os.path.join(args.out, name)
        os.makedirs(os.path.join(d, "test_data_set_0"), exist_ok=True)
        f16 = lambda a: a.astype(np.float16).astype(np.float64)
        if name == "gap_nchw":
            x = rng.uniform(50, 100, (1, c, h, w)).astype(np.float32)
            nodes = [helper.make_node("GlobalAveragePool", ["x"], ["y"])]
            inits = []
            pooled = f16(x)
        else:
            x = rng.uniform(50, 100, (1, 16, h, w)).astype(np.float32)
            wt = rng.uniform(0.05, 0.1, (c, 16, 1, 1)).astype(np.float32)
            nodes = [helper.make_node("Conv", ["x", "w"], ["m"]),
                     helper.make_node("GlobalAveragePool", ["m"], ["y"])]
            inits = [numpy_helper.from_array(wt, "w")]
            pooled = np.einsum("nchw,oc->nohw", f16(x), f16(wt[:, :, 0, 0]))
        ref = pooled.mean(axis=(2, 3), keepdims=True).astype(np.float32)
        graph = helper.make_graph(
            nodes, name, [helper.make_tensor_value_info("x", TensorProto.FLOAT, x.shape)],
            [helper.make_tensor_value_info("y", TensorProto.FLOAT, ref.shape)], inits)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
        onnx.save(model, os.path.join(d, "model.onnx"))
        for file, name_, a in (("input_0.pb", "x", x), ("output_0.pb", "y", ref)):
            with open(os.path.join(d, "test_data_set_0", file), "wb") as f:
                f.write(numpy_helper.from_array(a, name_).SerializeToString())
        p = subprocess.run([args.kilnc or os.path.join(args.build_dir, "bin", "kilnc"),
                            os.path.join(d, "model.onnx"), "-o", os.path.join(d, "model.plan"),
                            "--target", args.target, "--precision", "fp16", "-q"],
                           capture_output=True, text=True)
        cases[name] = {"status": "ok" if p.returncode == 0 else "compile_error",
                       "message": p.stderr.strip()[-2000:]}
        print("gen: %-9s %s" % (name, cases[name]["status"]))
    with open(os.path.join(args.out, "manifest.json"), "w") as f:
        json.dump({"target": args.target, "cases": cases}, f, indent=1)
    return 0 if all(c["status"] == "ok" for c in cases.values()) else 1


def run(args):
    with open(os.path.join(args.dir, "manifest.json")) as f:
        manifest = json.load(f)
    failed = False
    for name, case in sorted(manifest["cases"].items()):
        if case["status"] != "ok":
            print("%-9s not compiled: %s" % (name, case["message"]))
            failed = True
            continue
        d = os.path.join(args.dir, name)
        plan, data = os.path.join(d, "model.plan"), os.path.join(d, "test_data_set_0")
        p = subprocess.run([args.kiln_run, plan, "--device", args.device, "--input-dir", data,
                            "--compare", data, "--rtol", "1e-2", "--atol", "1e-2"],
                           capture_output=True, text=True, timeout=120)
        if p.returncode != 0:
            print("%-9s %s:\n%s" % (name, "mismatch" if p.returncode == 1 else "error",
                                    (p.stdout + p.stderr)[-1500:]))
            failed = True
            continue
        if args.device == "host":
            print("%-9s match (host: no kernel times)" % name)
            continue
        prof = os.path.join(d, "profile.json")
        p = subprocess.run([args.kiln_run, plan, "--device", args.device, "--input-dir", data,
                            "--profile=" + prof], capture_output=True, text=True, timeout=120)
        if p.returncode != 0:
            print("%-9s profile error:\n%s" % (name, (p.stdout + p.stderr)[-1500:]))
            failed = True
            continue
        with open(prof) as f:
            launches = [l for l in json.load(f) if "GlobalAveragePool" in l["kernel"]]
        us = [round(1000 * l["ms"], 1) for l in launches]
        kernel = max(us) if us else float("inf")
        slow = kernel > args.max_kernel_us
        failed |= slow
        print("%-9s match; GlobalAveragePool: %d launches, %.1f us in all (%s us each), "
              "reduction kernel %.1f us%s" %
              (name, len(us), sum(us), " + ".join("%.1f" % u for u in us), kernel,
               " SLOWER than %.1f us" % args.max_kernel_us if slow else ""))
    print("reduction cases: %s" % ("FAILED" if failed else "OK"))
    return 1 if failed else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    g = sub.add_parser("gen")
    g.add_argument("--build-dir", default="build")
    g.add_argument("--kilnc", help="kilnc to use (default BUILD_DIR/bin/kilnc)")
    g.add_argument("--target", default="sm_90a")
    g.add_argument("--out", required=True)
    r = sub.add_parser("run")
    r.add_argument("--kiln-run", required=True)
    r.add_argument("--dir", required=True)
    r.add_argument("--device", default="gpu")
    r.add_argument("--max-kernel-us", type=float, default=10.0)
    args = ap.parse_args()
    return gen(args) if args.cmd == "gen" else run(args)


if __name__ == "__main__":
    sys.exit(main())
