#!/usr/bin/python3
"""Fashion-MNIST with a torchvision model through mixedprec.torch: resnet18
(or another torchvision CNN) with its first convolution taking one channel,
imported with mixedprec.torch.import_train_step and trained in process by
mixedprec.torch.Trainer in FP32, BF16 AMP and FP16 AMP (dynamic loss
scaling), beside PyTorch's own FP32 training on the same batches from the
same initial weights; prints each run's test accuracy.

    PYTHONPATH=build/python_packages /usr/bin/python3 \\
        python/examples/torchvision_fashion_mnist.py --steps 300

The images come from the Debian package dataset-fashion-mnist
(/usr/share/datasets/fashion-mnist; see fashion_mnist_mlp.py), scaled to
[0, 1] and normalised with the training set's mean and deviation; the
models come from python3-torchvision.
"""

import argparse
import copy
import os
import sys
import time

import torch
import torch.nn as nn
import torchvision

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fashion_mnist_mlp import DATA_DIR, load  # noqa: E402

import mixedprec.torch as mpt  # noqa: E402

MEAN, STD = 0.2860, 0.3530  # Fashion-MNIST's training images


def one_channel(conv):
    """`conv` with the same settings taking a single input channel."""
    return nn.Conv2d(1, conv.out_channels, conv.kernel_size, conv.stride, conv.padding,
                     bias=conv.bias is not None)


def make_model(name):
    """A torchvision model for 1×28×28 images and 10 classes."""
    if name == "resnet18":
        model = torchvision.models.resnet18(num_classes=10)
    elif name == "resnet10":
        # torchvision's ResNet with one basic block per stage: compiles in
        # about half resnet18's time (the smoke test).
        model = torchvision.models.resnet.ResNet(
            torchvision.models.resnet.BasicBlock, [1, 1, 1, 1], num_classes=10)
    elif name == "mobilenet_v3_small":
        model = torchvision.models.mobilenet_v3_small(num_classes=10)
        model.features[0][0] = one_channel(model.features[0][0])
        return model
    else:
        raise ValueError(name)
    # 28×28 images: a 3×3 stride-1 stem without the max pool keeps 7×7 maps
    # before the last stage.
    model.conv1 = nn.Conv2d(1, 64, 3, 1, 1, bias=False)
    model.maxpool = nn.Identity()
    return model


def accuracy(predict, images, labels, batch):
    """The fraction of test images `predict` (a function of an [batch, 1,
    28, 28] tensor) classifies right, over whole batches."""
    correct = total = 0
    for start in range(0, len(images) - batch + 1, batch):
        logits = predict(images[start:start + batch])
        correct += int((logits.argmax(1) == labels[start:start + batch]).sum())
        total += batch
    return correct / total


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default="resnet18",
                        choices=["resnet18", "resnet10", "mobilenet_v3_small"])
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--lr", type=float, default=0.02)
    parser.add_argument("--train-samples", type=int, default=0, help="0: all 60000")
    parser.add_argument("--test-samples", type=int, default=1000, help="0: all 10000")
    parser.add_argument("--modes", default="fp32,bf16,f16",
                        help="the Trainer runs, of fp32, bf16 and f16")
    parser.add_argument("--cpu-pipeline-options", default="",
                        help="mp-cpu-pipeline options, e.g. vectorize=false")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--data-dir", default=DATA_DIR)
    args = parser.parse_args()

    def tensors(split, samples):
        images, labels = load(args.data_dir, split, samples)
        images = (torch.from_numpy(images).reshape(-1, 1, 28, 28) - MEAN) / STD
        return images, torch.from_numpy(labels)

    train_images, train_labels = tensors("train", args.train_samples)
    test_images, test_labels = tensors("t10k", args.test_samples)
    torch.manual_seed(args.seed)
    order = torch.randperm(len(train_images))
    batches = []
    for i in range(args.steps):
        index = order[torch.arange(i * args.batch, (i + 1) * args.batch) % len(order)]
        batches.append((train_images[index], train_labels[index]))
    initial = make_model(args.model)
    loss_fn = nn.CrossEntropyLoss()

    def optimizer_of(model):
        optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9,
                                    weight_decay=5e-4)
        return optimizer, torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, args.steps)

    print(f"Fashion-MNIST, torchvision {args.model} (1 input channel), SGD momentum + "
          f"cosine, batch {args.batch}, {args.steps} steps, {len(test_images)} test images")
    print("%-14s %9s %11s %8s %9s %9s" % ("run", "accuracy", "final loss", "skipped",
                                          "compile", "ms/step"))

    # PyTorch FP32 (eager) on the same batches.
    model = copy.deepcopy(initial).train()
    optimizer, scheduler = optimizer_of(model)
    start = time.time()
    for x, y in batches:
        optimizer.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        optimizer.step()
        scheduler.step()
    elapsed = time.time() - start
    model.eval()
    with torch.no_grad():
        torch_accuracy = accuracy(model, test_images, test_labels, args.batch)
    print("%-14s %8.2f%% %11.4f %8s %9s %9.1f" % (
        "PyTorch FP32", 100 * torch_accuracy, loss.item(), "-", "-",
        1000 * elapsed / args.steps))

    names = {"fp32": "FP32", "bf16": "BF16 AMP", "f16": "FP16 AMP"}
    for mode in args.modes.split(","):
        model = copy.deepcopy(initial).train()
        optimizer, scheduler = optimizer_of(model)
        x, y = batches[0]
        start = time.time()
        step = mpt.import_train_step(model, x, y, loss_fn, optimizer, scheduler)
        trainer = mpt.Trainer(step, compute_type={"fp32": "f32"}.get(mode, mode),
                              cpu_pipeline_options=args.cpu_pipeline_options)
        compiled = time.time()
        skipped = 0
        for x, y in batches:
            out = trainer.step(x, y)
            skipped += out["skipped"]
        elapsed = time.time() - compiled
        ours = accuracy(trainer.predict, test_images, test_labels, args.batch)
        print("%-14s %8.2f%% %11.4f %8d %8.0fs %9.1f" % (
            "mixedprec " + names[mode], 100 * ours, out["loss"], skipped,
            compiled - start, 1000 * elapsed / args.steps))
        trainer.close()


if __name__ == "__main__":
    main()
