#!/usr/bin/env python3
"""ONNX operator conformance: runs Debian's libonnx-testdata cases through kilnc and kiln-run.

Every case directory (model.onnx + test_data_set_*/input_K.pb, output_K.pb) is compiled for the
host with `kilnc --target host`, run with `kiln-run` on each data set and compared with the stored
outputs. Each case ends up in one status:

  pass         compiles, runs, and every output of every data set is within tolerance; when kilnc
               asks for `--input-value NAME=FILE` (an operand plans need at build time is a graph
               input), the case is built with those inputs fixed from each data set's input_K.pb
               and its line says so ("pass: with --input-value NAME")
  unsupported  kilnc or kiln-run refuses it with an error (the reason is its first error line)
  fail         compiles but gives wrong numbers, or kiln-run cannot run the plan kilnc made
               (both kiln bugs), or a tool timed out
  crash        kilnc or kiln-run died of a signal: never acceptable

--check EXPECTATIONS fails when the statuses differ from the file (a pass regressed, an
unsupported/fail case changed or started passing, a case is missing or stale) or anything crashed.
--update EXPECTATIONS rewrites the file (only the lines of the folders that were run).
--kilnc-arg ARG (repeatable) is appended to every kilnc call: the same expectations then check
another configuration (ctest conformance.nhwc: --kilnc-arg=--layout=nhwc on the conv, pooling
and batch-norm cases). --require-report KEY=N also fails unless at least N cases'
build reports (kilnc --json) have KEY > 0, so that such a run cannot pass with the option inert.
Standard library only; runs with any python3 >= 3.7.
"""

import argparse
import collections
import concurrent.futures
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

DEFAULT_DATA = "/usr/share/libonnx-testdata/data"
# "real" is left out: Debian ships only data.json (download URLs) there, no models.
DEFAULT_FOLDERS = ["node", "simple", "pytorch-converted", "pytorch-operator"]

# rtol as ONNX's backend tests; atol 1e-5 rather than their 1e-7 so that float32 rounding of
# results near zero needs no per-case table.
RTOL = 1e-3
ATOL = 1e-5

# Per-case (rtol, atol, why) for cases whose reference data cannot be met at the default
# tolerance by a correct implementation. Do not add entries to hide wrong results.
TOLERANCE_OVERRIDES = {
}

REASON_MAX = 120
FIXED_NOTE = "with --input-value "
STATUSES = ("pass", "unsupported", "fail", "crash")


def short_reason(text, paths):
    """First error line of a tool's output, without paths, trimmed to REASON_MAX chars."""
    lines = [l.strip() for l in text.splitlines() if l.strip()]
    line = next((l for l in lines if "error" in l.lower()), lines[0] if lines else "no message")
    for p in paths:
        line = line.replace(p + "/", "").replace(p, "")
    line = re.sub(r"^(error|kilnc|kiln-run):\s*", "", line)
    line = re.sub(r"^(error|kilnc|kiln-run):\s*", "", line)
    # any other absolute path (not the NODE/then_branch/NAME of a node in an If branch)
    line = re.sub(r"(?<![\w.-])(/[^\s:'\"]+)+/([^\s/:'\"]+)", r"\2", line)
    line = re.sub(r"^model\.onnx:\s*", "", line)
    line = " ".join(line.split())
    if len(line) > REASON_MAX:
        line = line[: REASON_MAX - 3] + "..."
    return line or "no message"


def run_error(text, paths):
    """kiln-run's error, with the cause of a plan that does not load up front."""
    m = re.search(r"undefined symbol: (\S+?);?(\s|$)", text)
    if m:
        return "plan does not load: undefined symbol %s" % m.group(1)
    return short_reason(text, paths)


def group_reason(reason):
    """Reason without node names and numbers, to count cases per kind of failure."""
    r = re.sub(r"node '[^']*':\s*", "", reason)
    r = re.sub(r"'[^']*'", "'...'", r)
    r = re.sub(r"\b\d+(\.\d+)?(e[-+]?\d+)?\b", "N", r)
    r = r.split("; ")[0].split(" (it is ")[0].split(": kiln has no")[0]
    if r.endswith("..."):
        r = r[:-3]
    return r[:90]


def run_tool(cmd, timeout):
    """(returncode or None on timeout, stdout, stderr)."""
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=timeout, universal_newlines=True, errors="replace")
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        return None, "", ""


def signal_name(rc):
    try:
        import signal
        return signal.Signals(-rc).name
    except (ValueError, AttributeError):
        return "signal %d" % -rc


def _varint(buf, i):
    v, shift = 0, 0
    while True:
        b = buf[i]
        i += 1
        v |= (b & 0x7F) << shift
        shift += 7
        if b < 0x80:
            return v, i


def _fields(buf):
    """(field number, wire type, value) of a serialized protobuf message."""
    i = 0
    while i < len(buf):
        key, i = _varint(buf, i)
        num, wire = key >> 3, key & 7
        if wire == 0:
            v, i = _varint(buf, i)
        elif wire == 1:
            v, i = buf[i:i + 8], i + 8
        elif wire == 2:
            n, i = _varint(buf, i)
            v, i = buf[i:i + n], i + n
        elif wire == 5:
            v, i = buf[i:i + 4], i + 4
        else:
            raise ValueError("unsupported protobuf wire type %d" % wire)
        yield num, wire, v


def graph_input_names(model_path):
    """Names of the graph inputs that are not initializers, in order: the inputs of the plan,
    which input_K.pb feed (ModelProto.graph = 7; GraphProto.input = 11, initializer = 5;
    ValueInfoProto.name = 1; TensorProto.name = 8)."""
    with open(model_path, "rb") as f:
        model = f.read()
    inputs, initializers = [], set()
    for num, wire, graph in _fields(model):
        if num != 7 or wire != 2:
            continue
        for gnum, gwire, v in _fields(graph):
            if gwire != 2 or gnum not in (5, 11):
                continue
            want = 8 if gnum == 5 else 1
            name = next((x.decode("utf-8", "replace") for n, w, x in _fields(v)
                         if n == want and w == 2), "")
            (initializers.add(name) if gnum == 5 else inputs.append(name))
    return [n for n in inputs if n not in initializers]


# kilnc names this remedy when an operand that must be known at build time is a graph input.
INPUT_VALUE_REMEDY = re.compile(r"--input-value (\S+?)=FILE")


def compile_case(args, case_dir, plan, data_dir, inputs):
    """kilnc for one case; inputs whose value kilnc asks to fix (INPUT_VALUE_REMEDY) are fixed
    from data_dir's input_K.pb and kilnc runs again. Returns (rc, out, err, fixed names)."""
    fixed = []
    while True:
        cmd = [args.kilnc, os.path.join(case_dir, "model.onnx"), "-o", plan,
               "--target", "host", "-q"] + args.kilnc_arg
        if args.require_report:
            cmd.append("--json")
        for n in fixed:
            cmd += ["--input-value", "%s=%s" % (n, os.path.join(
                data_dir, "input_%d.pb" % inputs.index(n)))]
        rc, out, err = run_tool(cmd, args.compile_timeout)
        if rc is None or rc <= 0 or not data_dir:
            return rc, out, err, fixed
        asked = [n for n in INPUT_VALUE_REMEDY.findall(err + out)
                 if n in inputs and n not in fixed]
        if not asked or not os.path.isfile(
                os.path.join(data_dir, "input_%d.pb" % inputs.index(asked[0]))):
            return rc, out, err, fixed
        fixed += sorted(set(asked))


def report_keys(args, out):
    """{KEY: value} of kilnc's JSON build report for the --require-report keys."""
    try:
        rep = json.loads(out)
    except ValueError:
        return {}
    return {k: rep.get(k, 0) for k, _ in args.require_report}


def run_case(args, name, case_dir, tmp, report):
    """Returns (status, reason) for one case; fills `report` with the --require-report values
    of the first data set's build."""
    work = tempfile.mkdtemp(dir=tmp)
    plan = os.path.join(work, "model.plan")
    paths = [case_dir, work, tmp, args.data]
    sets = sorted(d for d in os.listdir(case_dir) if d.startswith("test_data_set_"))
    try:
        inputs = graph_input_names(os.path.join(case_dir, "model.onnx"))
    except (OSError, ValueError, IndexError):
        inputs = []
    first = os.path.join(case_dir, sets[0]) if sets else None
    rc, out, err, fixed = compile_case(args, case_dir, plan, first, inputs)
    if rc == 0 and args.require_report:
        report.update(report_keys(args, out))
    if rc is None:
        return "fail", "kilnc timed out (%d s)" % args.compile_timeout
    if rc < 0:
        return "crash", "kilnc: %s: %s" % (signal_name(rc), short_reason(err, paths))
    if rc != 0:
        return "unsupported", short_reason(err + out, paths)

    rtol, atol = RTOL, ATOL
    if name in TOLERANCE_OVERRIDES:
        rtol, atol, _ = TOLERANCE_OVERRIDES[name]
    try:
        if not sets:
            return "unsupported", "no test_data_set_* directory"
        worst = None  # (max_abs_err, output name, data set)
        for s in sets:
            d = os.path.join(case_dir, s)
            if fixed and d != first:
                # Fixed values come from each data set: one plan per data set.
                rc, out, err, again = compile_case(args, case_dir, plan, d, inputs)
                if rc is None:
                    return "fail", "kilnc timed out (%d s)" % args.compile_timeout
                if rc < 0:
                    return "crash", "kilnc: %s: %s" % (signal_name(rc),
                                                       short_reason(err, paths))
                if rc != 0:
                    return "unsupported", "%s: %s" % (s, short_reason(err + out, paths))
            rc, out, err = run_tool([args.kiln_run, plan, "--input-dir", d, "--compare", d,
                                     "--rtol", repr(rtol), "--atol", repr(atol), "--json"],
                                    args.run_timeout)
            if rc is None:
                return "fail", "kiln-run timed out (%d s)" % args.run_timeout
            if rc < 0:
                return "crash", "kiln-run: %s: %s" % (signal_name(rc), short_reason(err, paths))
            if rc == 2:
                # kilnc accepted the model, so a plan that kiln-run cannot run is a kiln bug.
                return "fail", "kiln-run: " + run_error(err + out, paths)
            if rc == 1:
                try:
                    rep = json.loads(out)
                except ValueError:
                    return "fail", "wrong result: " + short_reason(err + out, paths)
                for o in rep.get("outputs", []):
                    c = o.get("compare") or {}
                    if c.get("ok", True):
                        continue
                    e = c.get("max_abs_err")
                    if c.get("nan_mismatches"):
                        e = float("inf")
                    if e is None:
                        e = float("inf")
                    if worst is None or e > worst[0]:
                        worst = (e, o.get("name", "?"), c.get("nan_mismatches", 0),
                                 c.get("mismatches", 0), c.get("elements", 0))
                if worst is None:
                    worst = (float("inf"), "?", 0, 0, 0)
            elif rc != 0:
                return "fail", "kiln-run exit %d: %s" % (rc, run_error(err + out, paths))
        if worst is not None:
            e, oname, nans, bad, n = worst
            what = "NaN mismatch" if nans else "max abs err %.2g" % e
            return "fail", "wrong result: %s (output '%s', %d/%d elements)" % (what, oname, bad, n)
        if fixed:
            return "pass", FIXED_NOTE + ", ".join(fixed)
        return "pass", ""
    finally:
        shutil.rmtree(work, ignore_errors=True)


def read_expectations(path):
    """{name: (status, reason)}; raises ValueError on a malformed line."""
    exp = {}
    with open(path) as f:
        for i, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            m = re.match(r"^(\S+) (pass|unsupported|fail|crash)(?:: (.*))?$", line)
            if not m:
                raise ValueError("%s:%d: malformed line: %s" % (path, i, line))
            exp[m.group(1)] = (m.group(2), m.group(3) or "")
    return exp


HEADER = """\
# ONNX operator conformance expectations for kiln (test/conformance/run_conformance.py).
#
# One line per case of Debian's libonnx-testdata (/usr/share/libonnx-testdata/data), named
# FOLDER/CASE (folders: node, simple, pytorch-converted, pytorch-operator), sorted:
#   NAME pass                      compiles for the host, runs, matches (rtol 1e-3, atol 1e-5)
#   NAME unsupported: REASON       kilnc or kiln-run refuses it; REASON is its first error line
#   NAME fail: REASON              compiles, but gives wrong numbers, or kiln-run cannot run the plan
#                                  (kiln bugs: kept visible here), or a tool timed out
#   NAME pass: with --input-value A, B
#                                  passes with graph inputs A, B fixed at build time: kilnc refused
#                                  the model because an operand that plans need at build time (axes,
#                                  shape, scales, K, ...) is a graph input, and named that remedy; the
#                                  runner then builds with `kilnc --input-value A=input_K.pb` from each
#                                  data set, and kiln-run still feeds (and the runtime checks) them
# The ctests conformance.node and conformance.extra run --check against this file: they fail
# when a status changes in either direction (a pass regresses, or an unsupported/fail case now
# passes), when a case crashes, or when cases are missing or stale.
#
# Regenerate after changing kiln (then review the diff):
#   python3 test/conformance/run_conformance.py --build-dir build \\
#       --update test/conformance/expectations.txt
"""


def write_expectations(path, results, folders):
    old = {}
    if os.path.exists(path):
        old = read_expectations(path)
    merged = {n: v for n, v in old.items() if n.split("/", 1)[0] not in folders}
    merged.update(results)
    with open(path, "w") as f:
        f.write(HEADER)
        for name in sorted(merged):
            status, reason = merged[name]
            f.write("%s %s%s\n" % (name, status, ": " + reason if reason else ""))


def print_totals(results, folders):
    print()
    for folder in folders:
        c = collections.Counter(s for n, (s, _) in results.items() if n.startswith(folder + "/"))
        print("  %-18s %4d pass, %4d unsupported, %3d fail, %2d crash, of %4d" %
              (folder, c["pass"], c["unsupported"], c["fail"], c["crash"], sum(c.values())))
    c = collections.Counter(s for s, _ in results.values())
    reasons = collections.Counter(group_reason(r) for s, r in results.values() if s != "pass")
    print("reasons (top 20, node names and numbers elided):")
    for r, n in reasons.most_common(20):
        print("  %4d  %s" % (n, r))
    print("conformance: %d passed, %d unsupported, %d failed, %d crashed, of %d cases"
          % (c["pass"], c["unsupported"], c["fail"], c["crash"], len(results)))


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build-dir", default=os.path.join(here, "..", "..", "build"),
                    help="build tree with bin/kilnc and bin/kiln-run")
    ap.add_argument("--kilnc", help="kilnc binary (default BUILD_DIR/bin/kilnc)")
    ap.add_argument("--kiln-run", dest="kiln_run", help="kiln-run binary")
    ap.add_argument("--data", default=DEFAULT_DATA, help="libonnx-testdata data directory")
    ap.add_argument("--folder", action="append", choices=DEFAULT_FOLDERS,
                    help="folder to run (repeat; default all: %s)" % ", ".join(DEFAULT_FOLDERS))
    ap.add_argument("--filter", help="only cases whose FOLDER/CASE name matches this regex")
    ap.add_argument("-j", "--jobs", type=int, default=2, help="parallel cases (default 2)")
    ap.add_argument("--compile-timeout", type=int, default=60, help="seconds per kilnc (60)")
    ap.add_argument("--run-timeout", type=int, default=60, help="seconds per kiln-run (60)")
    ap.add_argument("--kilnc-arg", action="append", default=[],
                    help="extra kilnc argument, repeatable, appended to every kilnc call (e.g. "
                         "--kilnc-arg=--layout=nhwc to run the cases channels-last)")
    ap.add_argument("--require-report", action="append", default=[], metavar="KEY=N",
                    help="fail unless at least N cases' kilnc build reports (--json) have KEY > 0 "
                         "(repeatable; e.g. nhwc_convs=20)")
    ap.add_argument("-v", "--verbose", action="store_true", help="print every case's result")
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--check", metavar="EXPECTATIONS", help="compare with EXPECTATIONS")
    mode.add_argument("--update", metavar="EXPECTATIONS", help="rewrite EXPECTATIONS")
    args = ap.parse_args()

    folders = args.folder or DEFAULT_FOLDERS
    args.kilnc = args.kilnc or os.path.join(args.build_dir, "bin", "kilnc")
    args.kiln_run = args.kiln_run or os.path.join(args.build_dir, "bin", "kiln-run")
    for tool in (args.kilnc, args.kiln_run):
        if not os.access(tool, os.X_OK):
            sys.exit("error: %s is not an executable" % tool)
    if args.update and args.filter:
        sys.exit("error: --update runs every case of the folders; drop --filter")
    if args.update and args.kilnc_arg:
        sys.exit("error: the expectations describe plain kilnc; drop --kilnc-arg with --update")
    required = []
    for r in args.require_report:
        m = re.match(r"^(\w+)=(\d+)$", r)
        if not m:
            sys.exit("error: --require-report expects KEY=N, got '%s'" % r)
        required.append((m.group(1), int(m.group(2))))
    args.require_report = required
    expected = None
    if args.check:
        try:
            expected = read_expectations(args.check)
        except (OSError, ValueError) as e:
            sys.exit("error: %s" % e)

    cases = []
    for folder in folders:
        root = os.path.join(args.data, folder)
        if not os.path.isdir(root):
            sys.exit("error: %s does not exist (install libonnx-testdata)" % root)
        for c in sorted(os.listdir(root)):
            d = os.path.join(root, c)
            name = folder + "/" + c
            if os.path.isfile(os.path.join(d, "model.onnx")):
                if not args.filter or re.search(args.filter, name):
                    cases.append((name, d))

    start = time.time()
    tmp = tempfile.mkdtemp(prefix="kiln-conformance-")
    results = {}
    reports = {n: {} for n, _ in cases}
    try:
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            futures = {pool.submit(run_case, args, n, d, tmp, reports[n]): n for n, d in cases}
            for i, fut in enumerate(concurrent.futures.as_completed(futures), 1):
                name = futures[fut]
                results[name] = fut.result()
                if args.verbose:
                    s, r = results[name]
                    print("[%d/%d] %s %s%s" % (i, len(cases), name, s, ": " + r if r else ""),
                          flush=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    elapsed = time.time() - start

    print_totals(results, folders)
    print("wall time: %.0f s (%d jobs)%s" % (elapsed, args.jobs, "".join(
        " kilnc-arg " + a for a in args.kilnc_arg)))
    short = []
    for key, least in args.require_report:
        have = sorted(n for n, r in reports.items() if r.get(key, 0) > 0)
        print("build report: %d cases with %s > 0 (at least %d required)" % (len(have), key, least))
        if len(have) < least:
            short.append("%s > 0 in %d cases, fewer than %d" % (key, len(have), least))

    crashes = sorted(n for n, (s, _) in results.items() if s == "crash")
    if args.update:
        write_expectations(args.update, results, folders)
        print("wrote %s" % args.update)
        for n in crashes:
            print("CRASH %s: %s" % (n, results[n][1]))
        return 1 if crashes else 0
    if expected is None:
        for line in short:
            print("REPORT %s" % line)
        return 1 if crashes or short else 0

    problems = collections.defaultdict(list)
    reason_changes = 0
    for name in sorted(results):
        status, reason = results[name]
        if status == "crash":
            problems["crashed (never acceptable)"].append("%s: %s" % (name, reason))
            continue
        if name not in expected:
            problems["missing from the expectations file"].append("%s %s" % (name, status))
            continue
        est, ereason = expected[name]
        if est == status:
            reason_changes += reason != ereason
            continue
        line = "%s: expected %s, got %s%s" % (name, est, status, ": " + reason if reason else "")
        if est == "pass":
            problems["REGRESSED (passed before)"].append(line)
        elif status == "pass":
            problems["now passes (good!) but the file says otherwise"].append(line)
        else:
            problems["status changed"].append(line)
    if not args.filter:
        stale = sorted(n for n in expected
                       if n.split("/", 1)[0] in folders and n not in results)
        for n in stale:
            problems["in the expectations file but not in the test data"].append(n)
    for line in short:
        problems["build report short of --require-report"].append(line)
    if reason_changes:
        print("note: %d cases kept their status with a different reason" % reason_changes)
    if not problems:
        print("conformance: OK, every case matches %s" % args.check)
        return 0
    print("\nconformance: FAILED")
    for what, items in problems.items():
        print("%s (%d):" % (what, len(items)))
        for it in items:
            print("  " + it)
    if len(problems) > 1 or not short:
        print("\nIf the change is intended, update expectations.txt: run\n"
              "  python3 %s --build-dir BUILD --update %s\nand review the diff."
              % (os.path.relpath(os.path.abspath(__file__)), args.check))
    return 1


if __name__ == "__main__":
    sys.exit(main())
