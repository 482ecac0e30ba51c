#!/usr/bin/python3
"""Mutates kiln plans field by field and runs kiln-run on every mutant.

    test/fuzz/mutate_plan.py PLAN... --kiln-run BIN [--count N] [--seed S]
        [--device host|gpu] [--timeout SECONDS] [--keep DIR]

Each mutant changes one integer of the plan's FlatBuffer: a field that
bounds memory accesses (argument buffer/offset/extent, buffer kind, size,
offset and alignment, the arena size, binding buffers and shapes,
grid/block/shared memory, tensor maps), or any 1 to 8 bytes at a random
offset outside the modules' bytes. The checksum is recomputed (XXH64, as
plan/PlanHeader.cpp), so the mutant reaches the FlatBuffer verifier and the
plan's validation. Fields a kernel takes its sizes from (Step.dims,
Step.kernel, kernel symbols) are left alone: a kernel sized by a mutated dim
ignores its extent, which no validation can see.

Every mutant is classified from kiln-run's exit: refused (exit 2 with an
error message), ran (exit 0), crashed (a signal, an ASan/UBSan report, exit
134 or 139, or a non-zero exit without an error) or hung (timeout). Exits 1
when anything crashed or hung, after copying those mutants to --keep.
No flatbuffers module needed: the FlatBuffer is walked by hand.
"""

import argparse
import concurrent.futures
import os
import random
import struct
import shutil
import subprocess
import sys
import tempfile

HEADER = struct.Struct("<8sII16sQIIQQ")  # PlanHeader, 64 bytes
M64 = (1 << 64) - 1
P1, P2, P3, P4, P5 = (0x9E3779B185EBCA87, 0xC2B2AE3D27D4EB4F,
                      0x165667B19E3779F9, 0x85EBCA77C2B2AE63,
                      0x27D4EB2F165667C5)


def _rotl(x, r):
    return ((x << r) | (x >> (64 - r))) & M64


def _round(acc, lane):
    acc = (acc + lane * P2) & M64
    return (_rotl(acc, 31) * P1) & M64


def xxh64(data, seed=0):
    """XXH64 (github.com/Cyan4973/xxHash, doc/xxhash_spec.md)."""
    n = len(data)
    i = 0
    if n >= 32:
        v = [(seed + P1 + P2) & M64, (seed + P2) & M64, seed,
             (seed - P1) & M64]
        lanes = struct.unpack_from("<%dQ" % ((n // 32) * 4), data)
        for k in range(0, len(lanes), 4):
            v[0] = _round(v[0], lanes[k])
            v[1] = _round(v[1], lanes[k + 1])
            v[2] = _round(v[2], lanes[k + 2])
            v[3] = _round(v[3], lanes[k + 3])
        i = (n // 32) * 32
        h = (_rotl(v[0], 1) + _rotl(v[1], 7) + _rotl(v[2], 12) +
             _rotl(v[3], 18)) & M64
        for x in v:
            h ^= _round(0, x)
            h = (h * P1 + P4) & M64
    else:
        h = (seed + P5) & M64
    h = (h + n) & M64
    while i + 8 <= n:
        h ^= _round(0, struct.unpack_from("<Q", data, i)[0])
        h = (_rotl(h, 27) * P1 + P4) & M64
        i += 8
    if i + 4 <= n:
        h ^= (struct.unpack_from("<I", data, i)[0] * P1) & M64
        h = (_rotl(h, 23) * P2 + P3) & M64
        i += 4
    while i < n:
        h ^= (data[i] * P5) & M64
        h = (_rotl(h, 11) * P1) & M64
        i += 1
    h ^= h >> 33
    h = (h * P2) & M64
    h ^= h >> 29
    h = (h * P3) & M64
    h ^= h >> 32
    return h


def fix_checksum(plan):
    """Recomputes PlanHeader.checksum in place (bytearray)."""
    seed = xxh64(bytes(plan[:56]))
    struct.pack_into("<Q", plan, 56, xxh64(bytes(plan[64:]), seed))


class FlatBuffer:
    """Just enough of the FlatBuffers wire format to find fields."""

    def __init__(self, data, base):
        self.d = data
        self.base = base  # file offset of the FlatBuffer

    def u32(self, at):
        return struct.unpack_from("<I", self.d, self.base + at)[0]

    def field(self, table, index):
        """Offset (in the FlatBuffer) of field `index` of `table`, or None."""
        vtable = table - struct.unpack_from("<i", self.d, self.base + table)[0]
        vsize = struct.unpack_from("<H", self.d, self.base + vtable)[0]
        if 4 + 2 * index + 2 > vsize:
            return None
        off = struct.unpack_from("<H", self.d, self.base + vtable + 4 +
                                 2 * index)[0]
        return table + off if off else None

    def deref(self, at):
        return at + self.u32(at)

    def vector(self, table, index):
        """(first element offset, length) of a vector field, or None."""
        at = self.field(table, index)
        if at is None:
            return None
        v = self.deref(at)
        return v + 4, self.u32(v)

    def tables(self, table, index):
        vec = self.vector(table, index)
        if not vec:
            return []
        start, n = vec
        return [self.deref(start + 4 * k) for k in range(n)]


# Field indices (include/kiln/Plan/Plan.fbs).
PLAN_INPUTS, PLAN_OUTPUTS, PLAN_BUFFERS, PLAN_ARENA = 3, 4, 5, 6
PLAN_MODULES, PLAN_STEPS, PLAN_TENSOR_MAPS = 9, 11, 14


def locations(plan):
    """(file offset, width, label) of the integers worth mutating, and the
    file ranges (module bytes, dims, kernel indices) to leave alone."""
    fb = FlatBuffer(plan, 64)
    root = fb.u32(0)
    found, avoid = [], []

    def scalar(table, index, width, label):
        at = fb.field(table, index)
        if at is not None:
            found.append((64 + at, width, label))

    scalar(root, PLAN_ARENA, 8, "plan.arena_bytes")
    for kind, index in (("input", PLAN_INPUTS), ("output", PLAN_OUTPUTS)):
        for i, b in enumerate(fb.tables(root, index)):
            scalar(b, 1, 4, "%s[%d].buffer" % (kind, i))
            desc = fb.field(b, 0)
            if desc is not None:
                shape = fb.vector(fb.deref(desc), 2)
                if shape:
                    for k in range(shape[1]):
                        found.append((64 + shape[0] + 8 * k, 8,
                                      "%s[%d].shape[%d]" % (kind, i, k)))
    for i, b in enumerate(fb.tables(root, PLAN_BUFFERS)):
        for index, width, name in ((0, 1, "kind"), (1, 8, "size_bytes"),
                                   (2, 8, "offset"), (3, 4, "alignment")):
            scalar(b, index, width, "buffer[%d].%s" % (i, name))
    for m in fb.tables(root, PLAN_MODULES):
        data = fb.vector(m, 2)
        if data:
            avoid.append((64 + data[0], 64 + data[0] + data[1]))
    for i, s in enumerate(fb.tables(root, PLAN_STEPS)):
        kernel = fb.field(s, 0)
        if kernel is not None:
            avoid.append((64 + kernel, 64 + kernel + 4))
        args = fb.vector(s, 1)
        if args:
            for a in range(args[1]):
                at = 64 + args[0] + 24 * a  # struct Arg: u32, pad, u64, u64
                found += [(at, 4, "step[%d].arg[%d].buffer" % (i, a)),
                          (at + 8, 8, "step[%d].arg[%d].offset" % (i, a)),
                          (at + 16, 8, "step[%d].arg[%d].extent" % (i, a))]
        for index, name in ((2, "grid"), (3, "block")):
            vec = fb.vector(s, index)
            if vec:
                for k in range(vec[1]):
                    found.append((64 + vec[0] + 4 * k, 4,
                                  "step[%d].%s[%d]" % (i, name, k)))
        scalar(s, 4, 4, "step[%d].shared_mem_bytes" % i)
        dims = fb.vector(s, 5)
        if dims:
            avoid.append((64 + dims[0], 64 + dims[0] + 8 * dims[1]))
    for i, m in enumerate(fb.tables(root, PLAN_TENSOR_MAPS)):
        scalar(m, 0, 4, "tensor_map[%d].buffer" % i)
        scalar(m, 1, 4, "tensor_map[%d].source" % i)
        scalar(m, 2, 8, "tensor_map[%d].source_offset" % i)
        for index, width, name in ((4, 8, "dims"), (5, 8, "strides"),
                                   (6, 4, "box")):
            vec = fb.vector(m, index)
            if vec:
                for k in range(vec[1]):
                    found.append((64 + vec[0] + width * k, width,
                                  "tensor_map[%d].%s[%d]" % (i, name, k)))
    # Kernel symbols are strings; a changed one only fails to resolve, but
    # one resolving to another kernel would change its arity: leave them.
    for k in fb.tables(root, 10):
        sym = fb.field(k, 2)
        if sym is not None:
            start = fb.deref(sym)
            avoid.append((64 + start, 64 + start + 4 + fb.u32(start) + 1))
    return found, avoid


def new_value(rng, old, width):
    top = (1 << (8 * width)) - 1
    choices = [0, 1, top, top >> 1, (top >> 1) + 1, old + 1, old - 1,
               old * 2, old + 64, old + 4096, old ^ (1 << rng.randrange(
                   8 * width)), rng.randrange(top + 1), 1 << 32, 1 << 31,
               (1 << 40) + 1, 128, 1024, 1025, 65535, 65536, 232448]
    return rng.choice(choices) & top


def mutate(plan, found, avoid, rng):
    """A mutant of `plan` (bytes) and what was changed."""
    m = bytearray(plan)
    fb_end = 64 + struct.unpack_from("<I", plan, 44)[0]
    if found and rng.random() < 0.8:
        at, width, label = rng.choice(found)
    else:
        width = rng.choice((1, 2, 4, 8))
        for _ in range(100):
            at = rng.randrange(64, fb_end - width + 1)
            if not any(lo < at + width and at < hi for lo, hi in avoid):
                break
        else:
            return None, None
        label = "payload byte %d" % at
    old = int.from_bytes(m[at:at + width], "little")
    value = new_value(rng, old, width)
    if value == old:
        value = old ^ 1
    m[at:at + width] = value.to_bytes(width, "little")
    fix_checksum(m)
    return bytes(m), "%s: %d -> %d" % (label, old, value)


def classify(proc_rc, output):
    sanitizer = ("ERROR: AddressSanitizer" in output or
                 "ERROR: LeakSanitizer" in output or
                 "runtime error:" in output)
    if proc_rc < 0 or proc_rc in (134, 139) or sanitizer:
        return "crashed"
    if proc_rc == 0:
        return "ran"
    if proc_rc == 2 and "error" in output:
        return "refused"
    return "crashed"  # a failure that says nothing is not a refusal


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("plans", nargs="+")
    ap.add_argument("--kiln-run", required=True)
    ap.add_argument("--count", type=int, default=1000,
                    help="mutants in all (default 1000)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--device", choices=("host", "gpu"), default="host")
    ap.add_argument("--timeout", type=float, default=20)
    ap.add_argument("--keep", default="mutate-plan-failures",
                    help="where crashing/hanging mutants are copied")
    ap.add_argument("-j", "--jobs", type=int, default=1,
                    help="mutants run at a time (default 1)")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()

    rng = random.Random(args.seed)
    seeds = []
    for path in args.plans:
        with open(path, "rb") as f:
            plan = f.read()
        magic = HEADER.unpack_from(plan)[0]
        if magic != b"KILNPLAN":
            sys.exit("mutate_plan: %s is not a kiln plan" % path)
        found, avoid = locations(plan)
        seeds.append((path, plan, found, avoid))

    counts = {"refused": 0, "ran": 0, "crashed": 0, "hung": 0}
    failures = []

    def run_one(job):
        n, path, file, what = job
        cmd = [args.kiln_run, file, "--device", args.device]
        try:
            p = subprocess.run(cmd, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, timeout=args.timeout)
            output = p.stdout.decode("utf-8", "replace")
            return job, classify(p.returncode, output), output, p.returncode
        except subprocess.TimeoutExpired:
            return job, "hung", "", None

    with tempfile.TemporaryDirectory(prefix="kiln-mutate-") as tmp:
        # The mutants come from one seeded sequence, whatever --jobs is.
        jobs = []
        for n in range(args.count):
            path, plan, found, avoid = seeds[n % len(seeds)]
            mutant, what = mutate(plan, found, avoid, rng)
            if mutant is None:
                continue
            file = os.path.join(tmp, "mutant-%d.plan" % n)
            with open(file, "wb") as f:
                f.write(mutant)
            jobs.append((n, path, file, what))
        with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
            for job, kind, output, rc in pool.map(run_one, jobs):
                n, path, file, what = job
                counts[kind] += 1
                if args.verbose or kind in ("crashed", "hung"):
                    print("%s: %s (%s) exit %s" % (
                        kind, os.path.basename(path), what, rc))
                if kind in ("crashed", "hung"):
                    os.makedirs(args.keep, exist_ok=True)
                    kept = os.path.join(args.keep, "%s-%d.plan" % (
                        os.path.basename(path).rsplit(".", 1)[0], n))
                    shutil.copyfile(file, kept)
                    failures.append((kept, what, output[-2000:]))
                os.unlink(file)
    print("mutate_plan: %d mutants of %d plans on %s: %d refused, %d ran, "
          "%d crashed, %d hung" % (sum(counts.values()), len(seeds),
                                   args.device, counts["refused"],
                                   counts["ran"], counts["crashed"],
                                   counts["hung"]))
    for kept, what, output in failures:
        print("--- %s (%s)\n%s" % (kept, what, output))
    return 1 if counts["crashed"] or counts["hung"] else 0


if __name__ == "__main__":
    sys.exit(main())
