#!/usr/bin/env python3
"""GPU conformance suite: the ONNX conformance cases that pass on the host, run on a GPU.

Plans are built where MLIR is (no GPU needed) and run where the GPU is (no MLIR there), so the
suite has two halves:

  pack  (build machine)  every case that test/conformance/expectations.txt lists as `pass` is
                         compiled with `kilnc --target sm_90a` into DIR/FOLDER/CASE/model.plan,
                         beside a copy of its test_data_set_*/*.pb files; DIR/manifest.json records
                         each case's compile result (ok, or kilnc's error) and its tolerances.
  run   (GPU machine)    runs every packed plan with `kiln-run --device gpu --input-dir D
                         --compare D --rtol R --atol A` on each data set, in parallel, and reports
                         pass / mismatch / error / timeout / crash, plus the cases that did not
                         compile for the GPU (from the manifest). Exit 1 on any failure.

A case that passes on the host but does not compile for the GPU, gives other numbers, or cannot
run is a failure: the GPU target must match the host. Tolerances (and the rules for reading
kiln-run's report) come from test/conformance/run_conformance.py, imported by path.

  python3 test/gpu/gpu_suite.py pack --build-dir build --target sm_90a --out .device/gpu-suite
  python3 test/gpu/gpu_suite.py run --kiln-run build-rt/bin/kiln-run --dir .device/gpu-suite
Check the halves without a GPU: `pack --target sm_90a,host` then `run --device host`.
Standard library only; python3 >= 3.7.
"""

import argparse
import collections
import concurrent.futures
import importlib.util
import json
import os
import re
import shutil
import sys
import time

sys.dont_write_bytecode = True  # keep test/ free of __pycache__

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
CONFORMANCE = os.path.join(ROOT, "test", "conformance", "run_conformance.py")
MANIFEST = "manifest.json"
SIZE_LIMIT = 50 * 1000 * 1000  # what one GPU call may comfortably carry (64 MiB with the tree)


def load_conformance():
    """test/conformance/run_conformance.py as a module (tolerances, expectations, messages)."""
    spec = importlib.util.spec_from_file_location("kiln_run_conformance", CONFORMANCE)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


rc_mod = load_conformance()


def tolerances(name):
    """(rtol, atol) of a case, by run_conformance's rules."""
    if name in rc_mod.TOLERANCE_OVERRIDES:
        rtol, atol = rc_mod.TOLERANCE_OVERRIDES[name][:2]
        return rtol, atol
    return rc_mod.RTOL, rc_mod.ATOL


# kilnc's remedy when an operand that plans need at build time is a graph input:
# "... --input-value NAME=FILE ...". run_conformance then builds with that input fixed from each
# data set's input_K.pb (one plan per data set); pack does the same, with its regex when it has one.
INPUT_VALUE_REMEDY = getattr(rc_mod, "INPUT_VALUE_REMEDY", None) or re.compile(
    r"--input-value (\S+?)=FILE")


def graph_inputs(model):
    """Non-initializer graph inputs in order (run_conformance.graph_input_names), or None."""
    fn = getattr(rc_mod, "graph_input_names", None)
    try:
        if fn is not None:
            return fn(model)
        import onnx  # older run_conformance: ask the onnx package, when there is one
        g = onnx.load(model, load_external_data=False).graph
        inits = {t.name for t in g.initializer}
        return [i.name for i in g.input if i.name not in inits]
    except Exception:  # noqa: BLE001
        return None


def dir_size(path):
    total = 0
    for dp, _, files in os.walk(path):
        for f in files:
            total += os.path.getsize(os.path.join(dp, f))
    return total


def mb(n):
    return "%.1f MB" % (n / 1e6)


# ----------------------------------------------------------------------------------------- pack

def compile_plan(args, model, plan, data_dir, inputs, paths):
    """kilnc for one plan, fixing the inputs kilnc asks for (--input-value NAME=FILE) from
    data_dir's input_K.pb. Returns (status, error, error_text, fixed names)."""
    fixed = []
    while True:
        cmd = [args.kilnc, model, "-o", plan, "--target", args.target, "-q"]
        for n in fixed:
            cmd += ["--input-value", "%s=%s" % (n, os.path.join(
                data_dir, "input_%d.pb" % inputs.index(n)))]
        rc, out, err = rc_mod.run_tool(cmd, args.compile_timeout)
        if rc == 0:
            return "ok", "", "", fixed
        if rc is None:
            return "timeout", "kilnc timed out (%d s)" % args.compile_timeout, "", fixed
        if rc < 0:
            return ("crash", "kilnc: %s: %s" % (rc_mod.signal_name(rc),
                                                rc_mod.short_reason(err, paths)),
                    err.strip()[-2000:], fixed)
        asked = sorted({n for n in INPUT_VALUE_REMEDY.findall(err + out)
                        if n not in fixed})
        if (asked and data_dir and inputs is not None and all(n in inputs for n in asked)
                and all(os.path.isfile(os.path.join(data_dir, "input_%d.pb" % inputs.index(n)))
                        for n in asked)):
            fixed += asked
            continue
        return ("compile_error", rc_mod.short_reason(err + out, paths),
                (err + out).strip()[-2000:], fixed)


def pack_case(args, name, case_dir):
    """Compile one case into args.out/NAME; returns its manifest entry.

    DEST/model.plan serves every data set; when kilnc needs inputs fixed at build time
    (--input-value), each data set gets its own plan, DEST/test_data_set_K.plan."""
    dest = os.path.join(args.out, name)
    shutil.rmtree(dest, ignore_errors=True)
    os.makedirs(dest)
    model = os.path.join(case_dir, "model.onnx")
    paths = [case_dir, dest, args.out, args.data]
    rtol, atol = tolerances(name)
    sets = sorted(s for s in os.listdir(case_dir)
                  if s.startswith("test_data_set_") and os.path.isdir(os.path.join(case_dir, s)))
    entry = {"rtol": rtol, "atol": atol, "sets": sets, "plans": {}, "fixed_inputs": []}
    first = os.path.join(case_dir, sets[0]) if sets else None
    inputs = graph_inputs(model)
    t0 = time.time()
    plan = os.path.join(dest, "model.plan")
    status, error, text, fixed = compile_plan(args, model, plan, first, inputs, paths)
    if status == "ok" and fixed:
        os.replace(plan, os.path.join(dest, sets[0] + ".plan"))
        for s in sets[1:]:  # fixed values come from each data set: one plan per data set
            status, error, text, again = compile_plan(
                args, model, os.path.join(dest, s + ".plan"), os.path.join(case_dir, s),
                inputs, paths)
            if status != "ok":
                error = "%s: %s" % (s, error)
                break
    entry["compile_s"] = round(time.time() - t0, 3)
    entry["fixed_inputs"] = fixed
    if status != "ok":
        entry.update(status=status, error=error, error_text=text)
        shutil.rmtree(dest, ignore_errors=True)
        return entry
    for s in sets:
        os.makedirs(os.path.join(dest, s))
        for f in sorted(os.listdir(os.path.join(case_dir, s))):
            if f.endswith(".pb"):
                shutil.copyfile(os.path.join(case_dir, s, f), os.path.join(dest, s, f))
        entry["plans"][s] = (s + ".plan") if fixed else "model.plan"
    entry["status"] = "ok"
    entry["plan_bytes"] = sum(os.path.getsize(os.path.join(dest, p))
                              for p in set(entry["plans"].values()))
    return entry


def cmd_pack(args):
    args.kilnc = args.kilnc or os.path.join(args.build_dir, "bin", "kilnc")
    if not os.access(args.kilnc, os.X_OK):
        sys.exit("error: %s is not an executable" % args.kilnc)
    try:
        expected = rc_mod.read_expectations(args.expectations)
    except (OSError, ValueError) as e:
        sys.exit("error: %s" % e)
    cases = []
    for name in sorted(expected):
        status, _ = expected[name]
        if status != "pass" or (args.filter and not re.search(args.filter, name)):
            continue
        d = os.path.join(args.data, name)
        cases.append((name, d))
    if not cases:
        sys.exit("error: no `pass` case in %s%s" % (
            args.expectations, " matches --filter" if args.filter else ""))

    if os.path.exists(os.path.join(args.out, MANIFEST)) or not os.path.exists(args.out):
        shutil.rmtree(args.out, ignore_errors=True)  # a previous pack: start clean
    elif os.listdir(args.out):
        sys.exit("error: %s exists, is not empty and has no %s; not overwriting it"
                 % (args.out, MANIFEST))
    os.makedirs(args.out, exist_ok=True)

    start = time.time()
    entries = {}
    missing = [n for n, d in cases if not os.path.isfile(os.path.join(d, "model.onnx"))]
    for n in missing:
        entries[n] = {"status": "missing", "error": "no model.onnx under %s" % args.data}
    todo = [(n, d) for n, d in cases if n not in missing]
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futures = {pool.submit(pack_case, args, n, d): n for n, d in todo}
        for i, fut in enumerate(concurrent.futures.as_completed(futures), 1):
            n = futures[fut]
            try:
                entries[n] = fut.result()
            except Exception as e:  # noqa: BLE001
                entries[n] = {"status": "pack_error", "error": "%s: %s" % (type(e).__name__, e)}
            if args.verbose or entries[n]["status"] != "ok":
                e = entries[n]
                print("[%d/%d] %s %s%s" % (i, len(todo), n, e["status"],
                                           ": " + e["error"] if e.get("error") else ""),
                      flush=True)
    elapsed = time.time() - start

    manifest = {
        "format": 1,
        "target": args.target,
        "expectations": os.path.relpath(os.path.abspath(args.expectations), ROOT),
        "filter": args.filter,
        "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "kilnc": os.path.abspath(args.kilnc),
        "cases": {n: entries[n] for n in sorted(entries)},
    }
    with open(os.path.join(args.out, MANIFEST), "w") as f:
        json.dump(manifest, f, indent=1, sort_keys=True)
        f.write("\n")

    c = collections.Counter(e["status"] for e in entries.values())
    size = dir_size(args.out)
    bad = sorted(n for n, e in entries.items() if e["status"] != "ok")
    if bad:
        print("\ncases that pass on the host but did not compile for %s (%d):" % (args.target, len(bad)))
        for n in bad:
            print("  %s: %s: %s" % (n, entries[n]["status"], entries[n].get("error", "")))
    print("\npack: %d of %d host-passing cases compiled for %s%s in %.0f s (%d jobs)"
          % (c["ok"], len(entries), args.target,
             "".join(", %d %s" % (v, k) for k, v in sorted(c.items()) if k != "ok"),
             elapsed, args.jobs))
    print("pack: %s in %s (%d files)%s" % (
        mb(size), args.out, sum(len(fs) for _, _, fs in os.walk(args.out)),
        "" if size < SIZE_LIMIT else
        "  -- WARNING: over %s, too big to carry to the GPU machine in one call" % mb(SIZE_LIMIT)))
    return 1 if bad else 0


# ------------------------------------------------------------------------------------------ run

def run_case(args, name, entry):
    """(status, reason, seconds) of one packed case; status in pass/mismatch/error/timeout/crash."""
    case = os.path.join(args.dir, name)
    paths = [case, args.dir]
    rtol, atol = entry.get("rtol", rc_mod.RTOL), entry.get("atol", rc_mod.ATOL)
    sets = entry.get("sets") or []
    t0 = time.time()
    if not sets:
        return "error", "no test_data_set_* packed", 0.0
    worst = None
    for s in sets:
        d = os.path.join(case, s)
        plan = os.path.join(case, (entry.get("plans") or {}).get(s, "model.plan"))
        cmd = [args.kiln_run, plan, "--device", args.device, "--input-dir", d, "--compare", d,
               "--rtol", repr(rtol), "--atol", repr(atol), "--json"] + args.kiln_run_arg
        rc, out, err = rc_mod.run_tool(cmd, args.timeout)
        dt = time.time() - t0
        if rc is None:
            return "timeout", "kiln-run timed out (%d s) on %s" % (args.timeout, s), dt
        if rc < 0:
            return "crash", "kiln-run: %s on %s: %s" % (
                rc_mod.signal_name(rc), s, rc_mod.short_reason(err or out or "no output", paths)), dt
        rep = None
        try:
            rep = json.loads(out)
        except ValueError:
            pass
        if rc == 2 or (rc not in (0, 1)):
            msg = (rep or {}).get("error") if isinstance(rep, dict) else None
            return "error", "kiln-run exit %d: %s" % (
                rc, rc_mod.short_reason(msg, paths) if msg else rc_mod.run_error(err + out, paths)), dt
        if rep is None:
            return "error", "kiln-run printed no JSON report: " + rc_mod.short_reason(err + out, paths), dt
        where = rep.get("device")
        if where and where != args.device:
            return "error", "ran on the %s, not the %s (%s)" % (
                where, args.device, rep.get("device_note", "no note")), dt
        if rc == 1:
            for o in rep.get("outputs", []):
                c = o.get("compare") or {}
                if c.get("ok", True):
                    continue
                e = c.get("max_abs_err")
                if c.get("nan_mismatches") or e is None:
                    e = float("inf")
                if c.get("error"):
                    e = float("inf")
                if worst is None or e > worst[0]:
                    worst = (e, o.get("name", "?"), c.get("nan_mismatches", 0),
                             c.get("mismatches", 0), c.get("elements", 0), s, c.get("error"))
            if worst is None:
                worst = (float("inf"), "?", 0, 0, 0, s, None)
    dt = time.time() - t0
    if worst is not None:
        e, oname, nans, bad, n, s, cerr = worst
        what = cerr or ("NaN mismatch" if nans else "max abs err %.3g" % e)
        return "mismatch", "%s (output '%s', %d/%d elements, %s; rtol %g atol %g)" % (
            what, oname, bad, n, s, rtol, atol), dt
    return "pass", "", dt


RUN_STATUSES = ("pass", "mismatch", "error", "timeout", "crash", "not compiled")


def run_cases(todo, run_one, jobs, label, device, verbose, results):
    """Runs run_one(name, entry) -> (status, reason, seconds) for each (name, entry) of `todo` into
    `results`: one case first (a machine without a usable GPU fails every case the same way: then
    None is returned), the rest on `jobs` threads, printing what did not pass. Returns the seconds."""
    start = time.time()
    if todo:
        n, e = todo[0]
        results[n] = run_one(n, e)
        if verbose or results[n][0] != "pass":
            print("[first] %s %s%s" % (n, results[n][0], ": " + results[n][1] if results[n][1] else ""),
                  flush=True)
        if results[n][0] == "error" and re.search(
                r"CUDA driver|no CUDA|no GPU|cuInit|CUDA_ERROR_NO_DEVICE", results[n][1]):
            print("%s: cannot run on the %s: %s" % (label, device, results[n][1]))
            return None
        todo = todo[1:]
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        futures = {pool.submit(run_one, n, e): n for n, e in todo}
        for i, fut in enumerate(concurrent.futures.as_completed(futures), 1):
            n = futures[fut]
            try:
                results[n] = fut.result()
            except Exception as ex:  # noqa: BLE001
                results[n] = ("error", "%s: %s: %s" % (label, type(ex).__name__, ex), 0.0)
            st, r, _ = results[n]
            if verbose or st != "pass":
                print("[%d/%d] %s %s%s" % (i, len(todo), n, st, ": " + r if r else ""), flush=True)
    return time.time() - start


def cmd_run(args):
    if not os.access(args.kiln_run, os.X_OK):
        sys.exit("error: %s is not an executable" % args.kiln_run)
    try:
        with open(os.path.join(args.dir, MANIFEST)) as f:
            manifest = json.load(f)
    except (OSError, ValueError) as e:
        sys.exit("error: cannot read %s: %s (run `pack` first)" % (os.path.join(args.dir, MANIFEST), e))
    cases = manifest.get("cases", {})
    results = {}
    for n, e in cases.items():
        if args.filter and not re.search(args.filter, n):
            continue
        if e.get("status") != "ok":
            results[n] = ("not compiled", "%s: %s" % (e.get("status"), e.get("error", "")), 0.0)
    todo = [(n, e) for n, e in sorted(cases.items())
            if e.get("status") == "ok" and (not args.filter or re.search(args.filter, n))]
    print("gpu suite: %d packed plans (target %s, packed %s) on --device %s with %s, %d workers"
          % (len(todo), manifest.get("target"), manifest.get("created"), args.device,
             args.kiln_run, args.jobs), flush=True)
    elapsed = run_cases(todo, lambda n, e: run_case(args, n, e), args.jobs, "gpu suite",
                        args.device, args.verbose, results)
    if elapsed is None:
        return 2

    c = collections.Counter(s for s, _, _ in results.values())
    print()
    for folder in sorted({n.split("/", 1)[0] for n in results}):
        cf = collections.Counter(s for n, (s, _, _) in results.items() if n.startswith(folder + "/"))
        print("  %-18s %s, of %d" % (folder, ", ".join("%d %s" % (cf[s], s) for s in RUN_STATUSES),
                                      sum(cf.values())))
    failures = sorted(n for n, (s, _, _) in results.items() if s != "pass")
    if failures:
        print("\nfailures (%d):" % len(failures))
        for s in RUN_STATUSES[1:]:
            for n in failures:
                if results[n][0] == s:
                    print("  %-12s %s: %s" % (s.upper(), n, results[n][1]))
        groups = collections.Counter("%s: %s" % (results[n][0], rc_mod.group_reason(results[n][1]))
                                     for n in failures)
        print("failures by kind (names and numbers elided):")
        for g, k in groups.most_common(15):
            print("  %4d  %s" % (k, g))
    slow = sorted(((t, n) for n, (s, _, t) in results.items() if t > 0), reverse=True)[:5]
    if slow:
        print("slowest: " + ", ".join("%s %.1f s" % (n, t) for t, n in slow))
    print("\ngpu suite: %d passed, %d mismatched, %d errors, %d timed out, %d crashed, "
          "%d did not compile, of %d cases (wall %.0f s, %d workers): %s"
          % (c["pass"], c["mismatch"], c["error"], c["timeout"], c["crash"], c["not compiled"],
             len(results), elapsed, args.jobs, "OK" if not failures else "FAILED"))
    if args.json:
        doc = {"target": manifest.get("target"), "device": args.device,
               "packed": manifest.get("created"),
               "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
               "wall_s": round(elapsed, 1), "totals": dict(c),
               "cases": {n: {"status": s, "reason": r, "seconds": round(t, 3)}
                         for n, (s, r, t) in sorted(results.items())}}
        with open(args.json, "w") as f:
            json.dump(doc, f, indent=1)
            f.write("\n")
        print("wrote %s" % args.json)
    return 1 if failures or not results else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split("\n\n", 1)[1])
    sub = ap.add_subparsers(dest="cmd")
    sub.required = True
    p = sub.add_parser("pack", help="compile the host-passing cases for a GPU target (needs kilnc)")
    p.add_argument("--build-dir", default=os.path.join(ROOT, "build"), help="tree with bin/kilnc")
    p.add_argument("--kilnc", help="kilnc binary (default BUILD_DIR/bin/kilnc)")
    p.add_argument("--target", default="sm_90a", help="kilnc --target (default sm_90a)")
    p.add_argument("--out", required=True, help="folder to fill (replaced if it holds a pack)")
    p.add_argument("--expectations", default=os.path.join(ROOT, "test", "conformance",
                                                          "expectations.txt"))
    p.add_argument("--data", default=rc_mod.DEFAULT_DATA, help="libonnx-testdata data folder")
    p.add_argument("--filter", help="only cases whose FOLDER/CASE matches this regex")
    p.add_argument("-j", "--jobs", type=int, default=2, help="parallel kilnc (default 2)")
    p.add_argument("--compile-timeout", type=int, default=120, help="seconds per kilnc (120)")
    p.add_argument("-v", "--verbose", action="store_true")
    r = sub.add_parser("run", help="run the packed plans with kiln-run (on the GPU machine)")
    r.add_argument("--kiln-run", dest="kiln_run", required=True, help="kiln-run binary")
    r.add_argument("--dir", required=True, help="folder made by `pack`")
    r.add_argument("--device", default="gpu", choices=["gpu", "host"],
                   help="kiln-run --device (default gpu; host checks a sm_90a,host pack here)")
    r.add_argument("--json", help="write every case's result to this file")
    r.add_argument("--filter", help="only cases whose FOLDER/CASE matches this regex")
    r.add_argument("-j", "--jobs", type=int, default=8, help="parallel kiln-run (default 8)")
    r.add_argument("--timeout", type=int, default=120, help="seconds per kiln-run (120)")
    r.add_argument("--kiln-run-arg", action="append", default=[],
                   help="extra kiln-run argument (repeat), e.g. --kiln-run-arg=--no-cuda-graph")
    r.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()
    return cmd_pack(args) if args.cmd == "pack" else cmd_run(args)


if __name__ == "__main__":
    sys.exit(main())
