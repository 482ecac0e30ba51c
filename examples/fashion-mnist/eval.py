#!/usr/bin/python3
"""Evaluates a kiln plan of model.onnx on the Fashion-MNIST test set.

    /usr/bin/python3 examples/fashion-mnist/eval.py PLAN [--limit N] [--kiln-run PATH]

Reads the test images and labels from Debian's dataset-fashion-mnist package,
preprocesses them as model.json says, and runs them through the plan in
batches of 100 (the model's static batch), one `kiln-run PLAN --input
image=BATCH.npy --output-dir DIR` process per batch. Prints the accuracy,
the throughput (wall time of the kiln-run calls, so it includes a process
start-up and plan load per batch) and a confusion summary, and compares the
accuracy with the PyTorch accuracy stored in model.json for the same images.

Exit status: 0 ok, 1 accuracy differs from PyTorch's by more than --tolerance
points, 2 error.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True   # no __pycache__ in the source tree (lit runs this)
sys.path.insert(0, HERE)
from fmnist import BATCH, load, preprocess  # noqa: E402


def read_tensor(path):
    """Reads an ONNX TensorProto (.pb) into a numpy array."""
    import onnx
    from onnx import numpy_helper
    t = onnx.TensorProto()
    with open(path, "rb") as f:
        t.ParseFromString(f.read())
    return t.name, numpy_helper.to_array(t)


def default_kiln_run():
    built = os.path.join(HERE, "..", "..", "build", "bin", "kiln-run")
    return os.path.normpath(built) if os.path.exists(built) else (shutil.which("kiln-run") or "kiln-run")


def main():
    ap = argparse.ArgumentParser(description="Fashion-MNIST accuracy of a kiln plan")
    ap.add_argument("plan", help="plan compiled from model.onnx (kilnc model.onnx -o PLAN --target host)")
    ap.add_argument("--limit", type=int, default=10000,
                    help="evaluate the first N test images (a multiple of 100; default all 10 000)")
    ap.add_argument("--kiln-run", default=default_kiln_run(), help="kiln-run binary")
    ap.add_argument("--model-json", default=os.path.join(HERE, "model.json"))
    ap.add_argument("--tolerance", type=float, default=0.1,
                    help="allowed |kiln - PyTorch| accuracy difference in points (default 0.1)")
    ap.add_argument("--device", choices=["host", "gpu"], default="host")
    args = ap.parse_args()

    with open(args.model_json) as f:
        info = json.load(f)
    pre = info["preprocessing"]
    images, labels = load("t10k")
    n = min(args.limit, len(labels))
    if n <= 0 or n % BATCH:
        print(f"error: --limit must be a positive multiple of {BATCH}", file=sys.stderr)
        return 2
    images, labels = images[:n], labels[:n].astype(np.int64)
    x = preprocess(images, pre["divisor"], pre["mean"], pre["std"])

    print(f"device: {args.device} (kiln-run --device {args.device}; a GPU plan needs kilnc --target sm_90a or another GPU target)")
    print(f"evaluating {args.plan} on {n} test images, {n // BATCH} kiln-run calls of {BATCH} images")
    preds = np.empty(n, dtype=np.int64)
    run_s = 0.0
    with tempfile.TemporaryDirectory(prefix="kiln-fmnist-") as tmp:
        inp, out = os.path.join(tmp, "image.npy"), os.path.join(tmp, "out")
        for b in range(0, n, BATCH):
            np.save(inp, np.ascontiguousarray(x[b:b + BATCH]))
            cmd = [args.kiln_run, args.plan, "--input", f"image={inp}", "--output-dir", out,
                   "--device", args.device]
            t0 = time.perf_counter()
            r = subprocess.run(cmd, capture_output=True, text=True)
            run_s += time.perf_counter() - t0
            if r.returncode != 0:
                print(f"error: {' '.join(cmd)} exited {r.returncode}:\n{r.stdout}{r.stderr}", file=sys.stderr)
                return 2
            name, logits = read_tensor(os.path.join(out, "output_0.pb"))
            if logits.shape != (BATCH, 10) or not np.all(np.isfinite(logits)):
                print(f"error: output '{name}' has shape {logits.shape} (want [{BATCH}, 10]) "
                      f"or non-finite values", file=sys.stderr)
                return 2
            preds[b:b + BATCH] = logits.argmax(1)

    correct = int((preds == labels).sum())
    acc = 100.0 * correct / n
    print(f"kiln accuracy: {acc:.2f}% ({correct}/{n})")
    print(f"throughput: {n / run_s:.0f} images/s ({run_s:.2f} s in {n // BATCH} kiln-run calls; "
          f"includes process start-up and plan load per batch)")

    classes = info["classes"]
    conf = np.zeros((10, 10), dtype=np.int64)
    np.add.at(conf, (labels, preds), 1)
    print("per-class accuracy:")
    for c in range(10):
        tot = conf[c].sum()
        print(f"  {classes[c]:<12} {100.0 * conf[c, c] / max(tot, 1):6.1f}%  ({conf[c, c]}/{tot})")
    off = [(conf[i, j], i, j) for i in range(10) for j in range(10) if i != j and conf[i, j]]
    print("most frequent confusions (true -> predicted):")
    for cnt, i, j in sorted(off, reverse=True)[:5]:
        print(f"  {classes[i]:<12} -> {classes[j]:<12} {cnt}")

    if n == info["pytorch_test_images"]:
        ref = info["pytorch_test_accuracy"]
    elif n == info["pytorch_subset_images"]:
        ref = info["pytorch_subset_accuracy"]
    else:
        print(f"no PyTorch accuracy stored for the first {n} images: not compared")
        return 0
    diff = abs(acc - ref)
    verdict = "OK" if diff <= args.tolerance + 1e-9 else "MISMATCH"
    print(f"PyTorch accuracy on the same {n} images: {ref:.2f}%; difference {diff:.2f} points "
          f"(tolerance {args.tolerance}): {verdict}")
    return 0 if verdict == "OK" else 1


if __name__ == "__main__":
    sys.exit(main())
