#!/usr/bin/python3
"""Compiles the plans test/python/gpu_test.py runs, into a folder to carry to
a GPU machine (which needs only the runtime-only build and PyTorch).

    PYTHONPATH=build/python /usr/bin/python3 test/python/make_gpu_plans.py OUT_DIR [--target sm_90a]

Writes OUT_DIR/mlp.plan (the two-input, two-output model of api_test.py)
and OUT_DIR/fmnist.plan (examples/fashion-mnist/model.onnx), both for the
GPU target and host, so that gpu_test.py compares the GPU's results with
the host's from the same plan; plus OUT_DIR/fmnist_fp16.plan (GPU only,
--precision fp16) and OUT_DIR/mlp.npz (the MLP's weights, the reference).
"""
import argparse
import os
import sys

import numpy as np

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kiln  # noqa: E402
from api_test import FMNIST, mlp_model  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out_dir")
    ap.add_argument("--target", default="sm_90a", help="GPU architecture (default sm_90a: H100/H200)")
    args = ap.parse_args()
    os.makedirs(args.out_dir, exist_ok=True)
    model, w, b = mlp_model()
    builds = [
        ("mlp.plan", model, dict(target=[args.target, "host"])),
        ("fmnist.plan", FMNIST, dict(target=[args.target, "host"])),
        ("fmnist_fp16.plan", FMNIST, dict(target=args.target, precision="fp16")),
    ]
    for name, m, options in builds:
        plan = kiln.compile(m, **options)
        plan.save(os.path.join(args.out_dir, name))
        print(f"{name}: {len(plan)} bytes, targets {plan.info.targets}, "
              f"{plan.report['kernels']} kernels")
    np.savez(os.path.join(args.out_dir, "mlp.npz"), W=w, b=b)


if __name__ == "__main__":
    main()
