#!/usr/bin/env python3
"""Writes Fashion-MNIST training images as INT8 calibration samples for kilnc.

Each sample is one batch of the model's input, image f32 [100, 1, 28, 28], preprocessed as
training did (fmnist.preprocess), saved as OUT/batch_NNN.npy: the layout `kilnc --precision int8
--calib OUT` reads for a one-input model. The images are the first --images of the training set
(never the test images that eval.py scores).

  /usr/bin/python3 examples/fashion-mnist/calib.py --out /tmp/calib            # 500 images
"""
import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fmnist  # noqa: E402

BATCH = 100  # the model's fixed batch


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True, help="folder for the .npy samples")
    ap.add_argument("--images", type=int, default=500,
                    help="training images to write, a multiple of %d (default 500)" % BATCH)
    args = ap.parse_args()
    if args.images <= 0 or args.images % BATCH:
        ap.error("--images must be a positive multiple of %d (the model's batch)" % BATCH)
    images, _ = fmnist.load("train")
    if args.images > len(images):
        ap.error("--images: the training set has %d images" % len(images))
    x = fmnist.preprocess(images[:args.images])
    os.makedirs(args.out, exist_ok=True)
    for b in range(args.images // BATCH):
        np.save(os.path.join(args.out, "batch_%03d.npy" % b), x[b * BATCH:(b + 1) * BATCH])
    print("wrote %d samples of %d images to %s" % (args.images // BATCH, BATCH, args.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
