#!/usr/bin/python3
"""Trains a small CNN on Fashion-MNIST and exports it for kiln.

Run with Debian's python (torch 1.13, torchvision, onnx):

    /usr/bin/python3 examples/fashion-mnist/train.py [--epochs 4] [--out-dir DIR]

Data: Debian's dataset-fashion-mnist package (/usr/share/datasets/fashion-mnist).
Writes (atomically) DIR/model.onnx (opset 13, input "image" f32 [100,1,28,28],
output "logits" f32 [100,10]) and DIR/model.json (preprocessing and the PyTorch
test accuracy on all 10 000 test images and on the first 1 000).
"""
import argparse
import json
import os
import sys
import tempfile
import time

import numpy as np
import torch
import torch.nn as nn

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from fmnist import BATCH, CLASSES, MEAN, STD, SUBSET, load, preprocess  # noqa: E402


class SmallCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 16, 3), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2),   # 16x13x13
            nn.Conv2d(16, 32, 3), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2),  # 32x5x5
        )
        self.classifier = nn.Sequential(
            nn.Flatten(), nn.Linear(32 * 5 * 5, 64), nn.ReLU(), nn.Linear(64, 10))

    def forward(self, x):
        return self.classifier(self.features(x))


def evaluate(model, x, y):
    """Returns the predicted classes of x (eval mode, batches of BATCH)."""
    model.eval()
    preds = []
    with torch.no_grad():
        for i in range(0, len(x), BATCH):
            preds.append(model(torch.from_numpy(x[i:i + BATCH])).argmax(1).numpy())
    return np.concatenate(preds)


def atomic_write(path, write):
    """Calls write(tmp_path) on a temporary file next to path, then renames it."""
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), prefix=".tmp-")
    os.close(fd)
    try:
        write(tmp)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--epochs", type=int, default=4)
    ap.add_argument("--out-dir", default=HERE)
    args = ap.parse_args()

    torch.manual_seed(0)
    np.random.seed(0)
    torch.use_deterministic_algorithms(True)
    torch.set_num_threads(2)

    train_u8, train_y = load("train")
    test_u8, test_y = load("t10k")
    x_train = torch.from_numpy(preprocess(train_u8))
    y_train = torch.from_numpy(train_y.astype(np.int64))
    x_test = preprocess(test_u8)

    model = SmallCNN()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    sched = torch.optim.lr_scheduler.OneCycleLR(
        opt, max_lr=3e-3, epochs=args.epochs, steps_per_epoch=(len(x_train) + 127) // 128)
    loss_fn = nn.CrossEntropyLoss()
    gen = torch.Generator().manual_seed(0)

    t0 = time.time()
    for epoch in range(args.epochs):
        model.train()
        perm = torch.randperm(len(x_train), generator=gen)
        total = 0.0
        for i in range(0, len(x_train), 128):
            idx = perm[i:i + 128]
            opt.zero_grad()
            loss = loss_fn(model(x_train[idx]), y_train[idx])
            loss.backward()
            opt.step()
            sched.step()
            total += loss.item() * len(idx)
        acc = (evaluate(model, x_test, test_y) == test_y).mean() * 100
        print(f"epoch {epoch + 1}/{args.epochs}: train loss {total / len(x_train):.4f}, "
              f"test accuracy {acc:.2f}% ({time.time() - t0:.0f} s)", flush=True)
    train_s = time.time() - t0

    pred = evaluate(model, x_test, test_y)
    acc = float((pred == test_y).mean() * 100)
    acc_subset = float((pred[:SUBSET] == test_y[:SUBSET]).mean() * 100)
    print(f"PyTorch test accuracy: {acc:.2f}% on {len(test_y)} images "
          f"({acc_subset:.2f}% on the first {SUBSET}); training took {train_s:.0f} s")

    model.eval()
    onnx_path = os.path.join(args.out_dir, "model.onnx")
    dummy = torch.from_numpy(x_test[:BATCH])
    atomic_write(onnx_path, lambda tmp: torch.onnx.export(
        model, dummy, tmp, opset_version=13, do_constant_folding=True,
        input_names=["image"], output_names=["logits"]))

    info = {
        "model": "SmallCNN: Conv(1->16,3)+BN+ReLU+MaxPool2, Conv(16->32,3)+BN+ReLU+MaxPool2, "
                 "Flatten, Linear(800->64)+ReLU, Linear(64->10)",
        "onnx": {"file": "model.onnx", "opset": 13, "input": "image", "input_shape": [BATCH, 1, 28, 28],
                 "output": "logits", "output_shape": [BATCH, 10]},
        "preprocessing": {"layout": "NCHW float32", "divisor": 255.0, "mean": MEAN, "std": STD,
                          "formula": "(x / 255 - mean) / std"},
        "classes": CLASSES,
        "training": {"epochs": args.epochs, "batch": 128, "optimizer": "Adam + OneCycleLR(max_lr=3e-3)",
                     "seed": 0, "threads": 2, "seconds": round(train_s, 1),
                     "torch": torch.__version__},
        "pytorch_test_accuracy": round(acc, 2),
        "pytorch_test_images": int(len(test_y)),
        "pytorch_subset_accuracy": round(acc_subset, 2),
        "pytorch_subset_images": SUBSET,
    }
    json_path = os.path.join(args.out_dir, "model.json")

    def write_json(tmp):
        with open(tmp, "w") as f:
            json.dump(info, f, indent=2)
            f.write("\n")
    atomic_write(json_path, write_json)
    print(f"wrote {onnx_path} ({os.path.getsize(onnx_path)} bytes) and {json_path}")


if __name__ == "__main__":
    sys.exit(main())
