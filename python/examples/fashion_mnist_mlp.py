#!/usr/bin/python3
"""Fashion-MNIST with mixedprec: the 784-256-10 MLP written with the
TrainStep builder, compiled in FP32 and with bf16 and fp16 autocast policies
(f32 master weights; dynamic loss scaling for fp16), trained on the CPU with
mixedprec.run on numpy arrays, and evaluated on the test set.

    PYTHONPATH=build/python_packages /usr/bin/python3 python/examples/fashion_mnist_mlp.py

The images come from the Debian package dataset-fashion-mnist
(/usr/share/datasets/fashion-mnist); pixels are scaled to [0, 1].
"""

import argparse
import gzip
import os
import sys

import numpy as np

import mixedprec

DATA_DIR = "/usr/share/datasets/fashion-mnist"


def read_idx(path):
    """An IDX file (gzipped or not) as a numpy array."""
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as file:
        data = file.read()
    dims = data[3]
    shape = [int.from_bytes(data[4 + 4 * i:8 + 4 * i], "big") for i in range(dims)]
    return np.frombuffer(data, dtype=np.uint8, offset=4 + 4 * dims).reshape(shape)


def load(data_dir, split, samples):
    def find(name):
        for candidate in (name + ".gz", name):
            if os.path.exists(os.path.join(data_dir, candidate)):
                return os.path.join(data_dir, candidate)
        sys.exit("fashion_mnist_mlp: %s not found in %s (Debian: dataset-fashion-mnist)"
                 % (name, data_dir))
    images = read_idx(find("%s-images-idx3-ubyte" % split))
    labels = read_idx(find("%s-labels-idx1-ubyte" % split))
    images = images.reshape(len(images), -1).astype(np.float32) / 255.0
    if samples:
        images, labels = images[:samples], labels[:samples]
    return images, labels.astype(np.int64)


def mlp_train_step(batch, eval_batch, hidden=256, classes=10, lr=1e-3):
    """The train step (and @predict) of the MLP, as mp IR text."""
    step = mixedprec.TrainStep("train_step")
    w1 = step.param("w1", (hidden, 784))
    b1 = step.param("b1", (hidden,))
    w2 = step.param("w2", (classes, hidden))
    b2 = step.param("b2", (classes,))
    x = step.input("x", (batch, 784))
    labels = step.input("labels", (batch,), "i64")
    logits = step.linear(step.relu(step.linear(x, w1, b1)), w2, b2)
    loss = step.cross_entropy(logits, labels)
    return step.build(loss, mixedprec.Adam(lr=lr), predict=logits, predict_batch=eval_batch)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=2000)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--train-samples", type=int, default=0, help="0: all 60000")
    parser.add_argument("--test-samples", type=int, default=0, help="0: all 10000")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--data-dir", default=DATA_DIR)
    args = parser.parse_args()

    train = load(args.data_dir, "train", args.train_samples)
    test = load(args.data_dir, "t10k", args.test_samples)
    eval_batch = 250 if len(test[0]) >= 250 else len(test[0])
    step = mlp_train_step(args.batch, eval_batch)

    modes = [
        ("FP32", dict(compute_type="f32")),
        ("BF16", dict(policy=mixedprec.Policy(compute_type="bf16"))),
        ("FP16", dict(policy=mixedprec.Policy(compute_type="f16"))),
    ]
    print("Fashion-MNIST MLP 784-256-10, Adam, batch %d, %d steps, %d train / %d test images"
          % (args.batch, args.steps, len(train[0]), len(test[0])))
    print("%-5s %9s %11s %8s %10s %8s" % ("mode", "accuracy", "final loss", "skipped",
                                          "final S", "steps/s"))
    for name, options in modes:
        compiled = mixedprec.compile(step, **options)
        result = mixedprec.run(compiled, steps=args.steps, data=list(train), eval_data=test,
                               seed=args.seed)
        scale = result.loss_scales[-1]
        print("%-5s %8.2f%% %11.4f %8d %10s %8.0f" % (
            name, 100 * result.accuracy, result.final_loss, result.skipped.sum(),
            "-" if np.isnan(scale) else "%g" % scale, result.steps_per_second))


if __name__ == "__main__":
    main()
