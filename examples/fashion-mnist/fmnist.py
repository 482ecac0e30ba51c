"""Fashion-MNIST data shared by train.py and eval.py (numpy only, no torch)."""
import gzip
import os

import numpy as np

# Debian's dataset-fashion-mnist package; FASHION_MNIST_DIR for a copy elsewhere (a GPU machine).
DATA_DIR = os.environ.get("FASHION_MNIST_DIR", "/usr/share/datasets/fashion-mnist")
BATCH = 100           # the exported (static) batch; kilnc plans need static shapes
SUBSET = 1000         # the lit test evaluates the first SUBSET test images
MEAN, STD = 0.2860, 0.3530   # Fashion-MNIST training-set pixel statistics (of x/255)
CLASSES = ["T-shirt/top", "Trouser", "Pullover", "Dress", "Coat",
           "Sandal", "Shirt", "Sneaker", "Bag", "Ankle boot"]


def load(kind, data_dir=DATA_DIR):
    """Returns (images uint8 [N,28,28], labels uint8 [N]) of kind 'train' or 't10k'."""
    with gzip.open(os.path.join(data_dir, f"{kind}-labels-idx1-ubyte.gz"), "rb") as f:
        raw = f.read()
    assert int.from_bytes(raw[:4], "big") == 2049, "bad label file magic"
    labels = np.frombuffer(raw, dtype=np.uint8, offset=8)
    with gzip.open(os.path.join(data_dir, f"{kind}-images-idx3-ubyte.gz"), "rb") as f:
        raw = f.read()
    assert int.from_bytes(raw[:4], "big") == 2051, "bad image file magic"
    n, rows, cols = (int.from_bytes(raw[i:i + 4], "big") for i in (4, 8, 12))
    images = np.frombuffer(raw, dtype=np.uint8, offset=16).reshape(n, rows, cols)
    assert n == len(labels)
    return images, labels


def preprocess(images_u8, divisor=255.0, mean=MEAN, std=STD):
    """uint8 [N,28,28] -> float32 [N,1,28,28]: (x / divisor - mean) / std."""
    x = (images_u8.astype(np.float32) / np.float32(divisor) - np.float32(mean)) / np.float32(std)
    return x[:, None, :, :].astype(np.float32)
