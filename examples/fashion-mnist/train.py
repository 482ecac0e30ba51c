#!/usr/bin/python3
"""Trains a small CNN on Fashion-MNIST and exports it for kiln.

Run with Debian's python (torch 1.13, torchvision, onnx):

    /usr/bin/python3 examples/fashion-mnist/train.py [--epochs 4] [--out-dir DIR]
    python3 train.py --arch resnet --device cuda --epochs 10 --weights-only   # on a GPU
    /usr/bin/python3 train.py --arch resnet --epochs 10 --from-weights resnet.pt  # export here

Data: Debian's dataset-fashion-mnist package (/usr/share/datasets/fashion-mnist).
Writes (atomically) DIR/NAME.onnx (opset 13, input "image" f32 [100,1,28,28],
output "logits" f32 [100,10]) and DIR/NAME.json (preprocessing and the PyTorch
test accuracy on all 10 000 test images and on the first 1 000), NAME "model"
for --arch cnn and "resnet" for --arch resnet.
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


class BasicBlock(nn.Module):
    """ResNet's basic block: two 3x3 conv+BN, a 1x1 conv+BN shortcut where the shape changes."""

    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.shortcut = nn.Sequential()
        if stride != 1 or cin != cout:
            self.shortcut = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False),
                                          nn.BatchNorm2d(cout))

    def forward(self, x):
        y = torch.relu(self.bn1(self.conv1(x)))
        return torch.relu(self.bn2(self.conv2(y)) + self.shortcut(x))


class ResNet18Narrow(nn.Module):
    """ResNet-18's layout (a 3x3 stem, 4 stages of 2 basic blocks, global pooling, one linear)
    at widths 16-32-64-128 for 28x28 inputs: 20 convs, residual adds, 0.7 M parameters."""

    def __init__(self, widths=(16, 32, 64, 128)):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(1, widths[0], 3, 1, 1, bias=False),
                                  nn.BatchNorm2d(widths[0]), nn.ReLU())
        blocks, cin = [], widths[0]
        for i, w in enumerate(widths):
            blocks += [BasicBlock(cin, w, 1 if i == 0 else 2), BasicBlock(w, w, 1)]
            cin = w
        self.blocks = nn.Sequential(*blocks)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(cin, 10)

    def forward(self, x):
        return self.fc(torch.flatten(self.pool(self.blocks(self.stem(x))), 1))


ARCHS = {
    "cnn": (SmallCNN, "model", "SmallCNN: Conv(1->16,3)+BN+ReLU+MaxPool2, Conv(16->32,3)+BN+ReLU+"
            "MaxPool2, Flatten, Linear(800->64)+ReLU, Linear(64->10)"),
    "resnet": (ResNet18Narrow, "resnet", "ResNet18Narrow: ResNet-18's layout at widths "
               "16-32-64-128 (3x3 stem, 8 basic blocks, global average pool, Linear(128->10))"),
}


def evaluate(model, x, y, device="cpu"):
    """Returns the predicted classes of x (eval mode, batches of BATCH)."""
    model.eval()
    preds = []
    with torch.no_grad():
        for i in range(0, len(x), BATCH):
            batch = torch.from_numpy(x[i:i + BATCH]).to(device)
            preds.append(model(batch).argmax(1).cpu().numpy())
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
    ap.add_argument("--arch", choices=sorted(ARCHS), default="cnn",
                    help="cnn: the small CNN (model.onnx); resnet: ResNet18Narrow (resnet.onnx)")
    ap.add_argument("--epochs", type=int, default=4)
    ap.add_argument("--device", default="cpu", help="torch device to train on (cpu, cuda)")
    ap.add_argument("--out-dir", default=HERE)
    ap.add_argument("--weights-only", action="store_true",
                    help="write NAME.pt (the state dict) and stop: export elsewhere with --from-weights")
    ap.add_argument("--from-weights", help="skip training: load this NAME.pt, evaluate on the CPU, export")
    ap.add_argument("--trained-on", default="unknown",
                    help="with --from-weights: where the weights were trained (for NAME.json)")
    args = ap.parse_args()
    make, name, description = ARCHS[args.arch]

    torch.manual_seed(0)
    np.random.seed(0)
    torch.use_deterministic_algorithms(True)
    torch.set_num_threads(2)
    if args.device.startswith("cuda"):
        torch.backends.cudnn.benchmark = False
        os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")

    train_u8, train_y = load("train")
    test_u8, test_y = load("t10k")
    x_train = torch.from_numpy(preprocess(train_u8))
    y_train = torch.from_numpy(train_y.astype(np.int64))
    x_test = preprocess(test_u8)

    model = make()
    if args.from_weights:
        model.load_state_dict(torch.load(args.from_weights, map_location="cpu"))
        return export(args, model, name, description, x_test, test_y, None)
    model.to(args.device)
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
            loss = loss_fn(model(x_train[idx].to(args.device)), y_train[idx].to(args.device))
            loss.backward()
            opt.step()
            sched.step()
            total += loss.item() * len(idx)
        acc = (evaluate(model, x_test, test_y, args.device) == test_y).mean() * 100
        print(f"epoch {epoch + 1}/{args.epochs}: train loss {total / len(x_train):.4f}, "
              f"test accuracy {acc:.2f}% ({time.time() - t0:.0f} s)", flush=True)
    train_s = time.time() - t0
    model.to("cpu")
    if args.weights_only:
        path = os.path.join(args.out_dir, name + ".pt")
        def save(tmp):
            with open(tmp, "wb") as f:  # a file object: torch 1.13 refuses dot-file names
                torch.save(model.state_dict(), f)
        atomic_write(path, save)
        print(f"wrote {path} (trained in {train_s:.0f} s on {args.device})")
        return 0
    training = {"epochs": args.epochs, "batch": 128, "optimizer": "Adam + OneCycleLR(max_lr=3e-3)",
                "seed": 0, "device": args.device, "seconds": round(train_s, 1),
                "torch": torch.__version__}
    return export(args, model, name, description, x_test, test_y, training)


def export(args, model, name, description, x_test, test_y, training):
    """Evaluates `model` on the CPU, writes NAME.onnx and NAME.json."""
    pred = evaluate(model, x_test, test_y)
    acc = float((pred == test_y).mean() * 100)
    acc_subset = float((pred[:SUBSET] == test_y[:SUBSET]).mean() * 100)
    print(f"PyTorch test accuracy: {acc:.2f}% on {len(test_y)} images "
          f"({acc_subset:.2f}% on the first {SUBSET})")

    model.eval()
    onnx_path = os.path.join(args.out_dir, name + ".onnx")
    dummy = torch.from_numpy(x_test[:BATCH])
    atomic_write(onnx_path, lambda tmp: torch.onnx.export(
        model, dummy, tmp, opset_version=13, do_constant_folding=True,
        input_names=["image"], output_names=["logits"]))

    if training is None:  # --from-weights: what the weights' own run recorded
        training = {"from_weights": os.path.basename(args.from_weights),
                    "epochs": args.epochs, "batch": 128,
                    "optimizer": "Adam + OneCycleLR(max_lr=3e-3)", "seed": 0,
                    "trained_on": args.trained_on}
    info = {
        "model": description,
        "onnx": {"file": name + ".onnx", "opset": 13, "input": "image", "input_shape": [BATCH, 1, 28, 28],
                 "output": "logits", "output_shape": [BATCH, 10]},
        "preprocessing": {"layout": "NCHW float32", "divisor": 255.0, "mean": MEAN, "std": STD,
                          "formula": "(x / 255 - mean) / std"},
        "classes": CLASSES,
        "training": training,
        "export_torch": torch.__version__,
        "pytorch_test_accuracy": round(acc, 2),
        "pytorch_test_images": int(len(test_y)),
        "pytorch_subset_accuracy": round(acc_subset, 2),
        "pytorch_subset_images": SUBSET,
    }
    json_path = os.path.join(args.out_dir, name + ".json")

    def write_json(tmp):
        with open(tmp, "w") as f:
            json.dump(info, f, indent=2)
            f.write("\n")
    atomic_write(json_path, write_json)
    print(f"wrote {onnx_path} ({os.path.getsize(onnx_path)} bytes) and {json_path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
