#!/usr/bin/python3
"""numpy reference for kiln's INT8 calibration math (include/kiln/Quant/Calibration.h).

    calibration_reference.py OUT.json

Writes seeded calibration tensors (Gaussian, Laplace with outliers, ReLU'd, uniform, a few values,
all zeros) and, for each, what the C++ must compute from them: the minmax amax, numpy.histogram's
2048 bins of |x| over [0, amax], the entropy (KL) amax as NVIDIA's pytorch-quantization computes it
(zero bin counted as bin 1, levels from bin 128, the last of equal divergences, scipy's entropy),
the 99.9 and 99.99 percentile amax (the upper edge of the first bin the CDF reaches), the mse amax
(candidate upper edges from bin 128, bin centres fake-quantized to int8, round half to even) and
the int8 scale. test/unit/quant/CalibrationTest.cpp reads the file (ctest quant.calibration).
"""
import json
import sys

import numpy as np

BINS, LEVELS = 2048, 128


def kl(p, q):
    p = p / p.sum()
    qs = q.sum()
    if qs <= 0:
        return np.inf
    q = q / qs
    m = p > 0
    if np.any(q[m] <= 0):
        return np.inf
    return float(np.sum(p[m] * np.log(p[m] / q[m])))


def entropy_amax(hist, edges):
    bins = hist.astype(np.float64).copy()
    bins[0] = bins[1]
    best, best_i = np.inf, len(bins)
    for i in range(LEVELS, len(bins) + 1):
        p = bins[:i].copy()
        p[-1] += bins[i:].sum()
        space = np.linspace(0, i, num=LEVELS + 1)
        digit = np.digitize(np.arange(i), space) - 1
        nz = bins[:i] != 0
        counts = np.bincount(digit[nz], weights=bins[:i][nz], minlength=LEVELS)
        members = np.bincount(digit[nz], minlength=LEVELS)
        q = np.zeros(i)
        q[nz] = counts[digit[nz]] / members[digit[nz]]
        d = kl(p, q) if p.sum() > 0 else np.inf
        if d <= best:
            best, best_i = d, i
    return float(edges[best_i])


def percentile_amax(hist, edges, pct):
    cdf = np.cumsum(hist / hist.sum())
    idx = int(np.searchsorted(cdf, pct / 100.0))
    return float(edges[min(idx, len(hist) - 1) + 1])


def mse_amax(hist, edges):
    centres = (edges[:-1] + edges[1:]) / 2
    used = hist > 0
    best, best_i = np.inf, len(hist) - 1
    for i in range(LEVELS, len(hist)):
        amax = edges[i + 1]
        scale = amax / 127.0
        q = np.minimum(127.0, np.round(centres[used] / scale)) * scale
        err = float(np.sum(hist[used] * (centres[used] - q) ** 2)) / hist.sum()
        if err < best:
            best, best_i = err, i
    return float(edges[best_i + 1])


def case(name, x):
    x = np.asarray(x, dtype=np.float32)
    a = np.abs(x.astype(np.float64))
    amax = float(a.max()) if x.size else 0.0
    r = {"name": name, "data": [float(v) for v in x], "amax": amax}
    if amax == 0:
        hist = np.zeros(BINS, dtype=np.int64)
        hist[0] = x.size
        r.update(bins=hist.tolist(), entropy=0.0, percentile_99_9=0.0, percentile_99_99=0.0,
                 mse=0.0, scale=1.0)
        return r
    hist, edges = np.histogram(a, bins=BINS, range=(0, amax))
    r.update(bins=hist.tolist(), entropy=entropy_amax(hist, edges),
             percentile_99_9=percentile_amax(hist, edges, 99.9),
             percentile_99_99=percentile_amax(hist, edges, 99.99),
             mse=mse_amax(hist, edges), scale=float(np.float32(amax / 127.0)))
    return r


def main():
    rng = np.random.default_rng(2026)
    lap = rng.laplace(0, 1, 20000)
    lap[:5] = [40, -35, 30, 25, -60]  # outliers far past the bulk
    relu = np.maximum(rng.normal(0.2, 1, 20000), 0)
    cases = [case("gaussian", rng.normal(0, 1, 20000)),
             case("laplace_outliers", lap),
             case("relu", relu),
             case("uniform", rng.uniform(-3, 3, 20000)),
             case("few", [0.5, -1.5, 2.0, 0.25, 3.0]),
             case("zeros", np.zeros(1000))]
    with open(sys.argv[1], "w") as f:
        json.dump({"bins": BINS, "levels": LEVELS, "cases": cases}, f)


if __name__ == "__main__":
    main()
