# mixedprec.run: numpy arrays in, trajectory and final parameters out, in
# process on the C API's engine. The numbers are checked against NumPy: the
# losses and parameters of three SGD steps of a linear regression, and the
# accuracy it reports against the returned parameters' predictions; and
# against mp-run: the same module, seed and data give bit-identical losses,
# loss scales and parameters.
# REQUIRES: numpy
# RUN: %python %s | FileCheck %s

import numpy as np

import mixedprec

rng = np.random.default_rng(7)

# Linear regression, full batch (8 samples, batch 8, file order), SGD.
step = mixedprec.TrainStep()
w = step.param("w", (3, 4))
x = step.input("x", (8, 4))
t = step.input("t", (8, 3))
pred = step.linear(x, w)
text = step.build(step.mse(pred, t), mixedprec.SGD(lr=0.1), predict=pred)
X = rng.normal(size=(8, 4)).astype(np.float32)
T = rng.normal(size=(8, 3)).astype(np.float32)
W = rng.normal(size=(3, 4)).astype(np.float32)

result = mixedprec.run(text, steps=3, data=[X, T], params=[W], shuffle=False)
losses, Wn = [], W.astype(np.float64)
for _ in range(3):
    error = X @ Wn.T - T
    losses.append((error ** 2).mean())
    Wn = Wn - 0.1 * 2 * error.T @ X / error.size
print(result)
print("losses match:", np.allclose(result.losses, losses, rtol=1e-5))
print("params match:", len(result.params), result.params[0].dtype,
      np.allclose(result.params[0], Wn, rtol=1e-5, atol=1e-6))
print("skipped:", result.skipped.tolist(), "scales:", result.loss_scales.tolist())
print("indices:", result.param_indices, "accuracy:", result.accuracy)
# CHECK: <mixedprec.RunResult 3 steps, final loss {{[0-9.]+}}, 0 skipped>
# CHECK-NEXT: losses match: True
# CHECK-NEXT: params match: 1 float32 True
# CHECK-NEXT: skipped: [False, False, False] scales: [nan, nan, nan]
# CHECK-NEXT: indices: [0] accuracy: None

# threads=2 (mp-run --threads): the same losses and parameters bit for bit.
two = mixedprec.run(text, steps=3, data=[X, T], params=[W], shuffle=False, threads=2)
print("threads=2 identical:", two.losses.tobytes() == result.losses.tobytes(),
      two.params[0].tobytes() == result.params[0].tobytes())
# CHECK-NEXT: threads=2 identical: True True

# The default, threads=0: all cores, or the first number of OMP_NUM_THREADS
# where set (lit sets 1: one thread, no OpenMP).
import os
from mixedprec import runner
saved = os.environ.get("OMP_NUM_THREADS")
os.environ["OMP_NUM_THREADS"] = "3,1"
print("threads:", runner._threads(0), runner._threads(2))
os.environ["OMP_NUM_THREADS"] = "none"
print("all cores:", runner._threads(0) == len(os.sched_getaffinity(0)))
os.environ["OMP_NUM_THREADS"] = saved or "1"
# CHECK-NEXT: threads: 3 2
# CHECK-NEXT: all cores: True

# The same step compiled for f16 with dynamic loss scaling (GradScaler): the
# first scaled loss (about 2.5 * 65536) overflows f16, so step 1 is skipped
# and the scale halves; steps 2 and 3 are then the f32 steps 1 and 2 (within
# f16 rounding). The masters stay f32.
f16 = mixedprec.run(mixedprec.compile(text, compute_type="f16"), steps=3, data={2: T, 1: X},
                    params={0: W}, shuffle=False)
print("f16:", f16.loss_scales.tolist(), f16.skipped.tolist(), f16.params[0].dtype,
      np.allclose(f16.losses, [losses[0], losses[0], losses[1]], rtol=1e-2))
# CHECK-NEXT: f16: [65536.0, 32768.0, 32768.0] [True, False, False] float32 True

# A classifier: mp-run's accuracy is that of @predict with the returned
# parameters, which NumPy recomputes.
step = mixedprec.TrainStep()
w1 = step.param("w1", (16, 6))
b1 = step.param("b1", (16,))
w2 = step.param("w2", (3, 16))
x = step.input("x", (10, 6))
labels = step.input("labels", (10,), "i64")
logits = step.linear(step.relu(step.linear(x, w1, b1)), w2)
text = step.build(step.cross_entropy(logits, labels), mixedprec.Adam(lr=0.05),
                  predict=logits, predict_batch=7)
inputs = rng.normal(size=(100, 6)).astype(np.float32)
classes = (inputs[:, 0] > 0).astype(np.int64) + (inputs[:, 1] > 0.5)
result = mixedprec.run(text, steps=40, data=[inputs, classes],
                       eval_data=(inputs[:50], classes[:50]), seed=3)
p1, q1, p2 = result.params
ours = (np.maximum(inputs[:50] @ p1.T + q1, 0) @ p2.T).argmax(axis=1)
print("accuracy:", result.accuracy == (ours == classes[:50]).mean(), result.accuracy > 0.6,
      "loss falls:", result.losses[-5:].mean() < result.losses[:5].mean())
print("eval:", result.eval["correct"], result.eval["total"])
# CHECK-NEXT: accuracy: True True loss falls: True
# CHECK-NEXT: eval: {{[0-9]+}} 50

# Random data and initialisation from the seed: reproducible.
a = mixedprec.run(text, steps=2, seed=5)
b = mixedprec.run(text, steps=2, seed=5)
print("random:", a.losses.tolist() == b.losses.tolist(),
      [p.shape for p in a.params], all((p == q).all() for p, q in zip(a.params, b.params)))
# CHECK-NEXT: random: True [(16, 6), (16,), (3, 16)] True

# The same runs through mp-run (a subprocess): identical losses, loss scales
# and final parameters, bit for bit, for kaiming-uniform parameters and
# random data from the seed, for arrays in shuffled order with an evaluation,
# and for an f16 step with dynamic loss scaling.
import json  # noqa: E402
import os  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402

from mixedprec import runner  # noqa: E402


def mp_run(module, steps, seed, data_arrays=None, eval_arrays=None, init=None,
           num_classes=10, data=None, pipeline=None):
    with tempfile.TemporaryDirectory() as directory:
        path = os.path.join(directory, "step.mlir")
        with open(path, "w") as file:
            file.write(module)
        command = [runner.mp_run_path(), path, "--steps=%d" % steps, "--seed=%d" % seed,
                   "--print-every=0", "--num-classes=%d" % num_classes,
                   "--json=" + os.path.join(directory, "out.json"),
                   "--save=" + os.path.join(directory, "final")]
        if init:
            command.append("--init=" + init)
        if data_arrays is not None:
            os.mkdir(os.path.join(directory, "data"))
            for index, array in data_arrays.items():
                np.save(os.path.join(directory, "data", "arg%d.npy" % index), array)
            if eval_arrays is not None:
                np.save(os.path.join(directory, "data", "eval_inputs.npy"), eval_arrays[0])
                np.save(os.path.join(directory, "data", "eval_labels.npy"), eval_arrays[1])
                command.append("--eval")
            command.append("--data=npy:" + os.path.join(directory, "data"))
        if data is not None:
            command.append("--data=" + data)
        if pipeline is not None:
            command.append("--pipeline=" + pipeline)
        subprocess.run(command, check=True, capture_output=True)
        with open(os.path.join(directory, "out.json")) as file:
            trajectory = json.load(file)
        params = {int(f[3:-4]): np.load(os.path.join(directory, "final", f))
                  for f in os.listdir(os.path.join(directory, "final"))}
    return trajectory, params


def same(ours, theirs_trajectory, theirs_params):
    steps = theirs_trajectory["steps"]
    scales = [np.nan if s.get("loss_scale") is None else s["loss_scale"] for s in steps]
    return (ours.losses.tolist() == [s["loss"] for s in steps]
            and np.array_equal(ours.loss_scales, scales, equal_nan=True)
            and ours.skipped.tolist() == [bool(s["skipped"]) for s in steps]
            and all(np.array_equal(p, theirs_params[i])
                    for p, i in zip(ours.params, ours.param_indices))
            and (ours.eval or {}).get("correct") == (theirs_trajectory.get("eval") or {}).get(
                "correct"))


# (Random labels in [0, 3): the classifier has 3 classes.)
print("mp-run random:", same(mixedprec.run(text, steps=3, seed=11, init="normal", num_classes=3),
                             *mp_run(text, 3, 11, init="normal", num_classes=3)))
eval_arrays = (inputs[:50], classes[:50])
print("mp-run arrays:", same(mixedprec.run(text, steps=25, data=[inputs, classes], seed=4,
                                           eval_data=eval_arrays),
                             *mp_run(text, 25, 4, {10: inputs, 11: classes}, eval_arrays)))
f16_text = mixedprec.compile(text, compute_type="f16", init_scale=2.0 ** 20)
f16 = mixedprec.run(f16_text, steps=8, seed=2, num_classes=3)
print("mp-run f16:", same(f16, *mp_run(f16_text, 8, 2, num_classes=3)),
      int(f16.skipped.sum()), "skipped")
# CHECK-NEXT: mp-run random: True
# CHECK-NEXT: mp-run arrays: True
# CHECK-NEXT: mp-run f16: True {{[1-9]}} skipped

# data="text:FILE" (mp-run's --data=text:FILE): a character-level language
# model on the bytes of a file, [4, 16] windows of token ids and next-token
# labels, the vocabulary read from the mp.embedding (128: ASCII). 40 steps
# run through more than one shuffled epoch of the 28 batches; FP32 and BF16
# AMP give the same losses and parameters as mp-run, bit for bit.
char_lm = """
func.func @train_step(%emb: tensor<128x8xf32> {mp.param}, %w: tensor<128x8xf32> {mp.param},
                      %b: tensor<128xf32> {mp.param},
                      %ids: tensor<4x16xi64>, %labels: tensor<4x16xi64>)
    -> (tensor<f32> {mp.loss}, tensor<128x8xf32> {mp.updates = 0 : i64},
        tensor<128x8xf32> {mp.updates = 1 : i64}, tensor<128xf32> {mp.updates = 2 : i64}) {
  %x = mp.embedding %emb[%ids] : tensor<128x8xf32>, tensor<4x16xi64>
  %y = mp.linear %x, %w, %b acc(f32)
      : (tensor<4x16x8xf32>, tensor<128x8xf32>, tensor<128xf32>) -> tensor<4x16x128xf32>
  %logits = mp.reshape %y : tensor<4x16x128xf32> to tensor<64x128xf32>
  %targets = mp.reshape %labels : tensor<4x16xi64> to tensor<64xi64>
  %loss = mp.cross_entropy %logits, %targets : tensor<64x128xf32>, tensor<64xi64>
  %de, %dw, %db = mp.grad %loss wrt %emb, %w, %b
      : tensor<f32>, tensor<128x8xf32>, tensor<128x8xf32>, tensor<128xf32>
  %e1 = mp.sgd %emb, %de {lr = 0.5 : f64} : tensor<128x8xf32>
  %w1 = mp.sgd %w, %dw {lr = 0.5 : f64} : tensor<128x8xf32>
  %b1 = mp.sgd %b, %db {lr = 0.5 : f64} : tensor<128xf32>
  return %loss, %e1, %w1, %b1 : tensor<f32>, tensor<128x8xf32>, tensor<128x8xf32>, tensor<128xf32>
}
"""
with tempfile.TemporaryDirectory() as directory:
    corpus = os.path.join(directory, "corpus.txt")
    with open(corpus, "wb") as file:
        file.write(b"the quick brown fox jumps over the lazy dog; " * 40)  # 1800 bytes
    lm = mixedprec.run(char_lm, steps=40, data="text:" + corpus, seed=3)
    print("text:", lm, lm.losses[-5:].mean() < lm.losses[0] - 1,
          same(lm, *mp_run(char_lm, 40, 3, data="text:" + corpus)))
    bf16 = "mp-mixed-precision-pipeline{compute-type=bf16}"
    print("text bf16:", same(mixedprec.run(char_lm, steps=12, data="text:" + corpus, seed=4,
                                           pipeline=bf16),
                             *mp_run(char_lm, 12, 4, data="text:" + corpus, pipeline=bf16)))
    # The errors of mp-run's --data=text: a step without [B, T] ids and
    # labels, a byte outside the vocabulary, a file shorter than a window.
    with open(os.path.join(directory, "wide.txt"), "wb") as file:
        file.write(b"caf\xc3\xa9 " * 10)
    with open(os.path.join(directory, "short.txt"), "wb") as file:
        file.write(b"short")
    for module, name in [(text, "corpus.txt"), (char_lm, "wide.txt"), (char_lm, "short.txt"),
                         (char_lm, "missing.txt")]:
        try:
            mixedprec.run(module, steps=1, data="text:" + os.path.join(directory, name))
            print("no error")
        except ValueError as error:
            print("ValueError:", str(error).replace(directory + os.sep, ""))
# CHECK-NEXT: text: <mixedprec.RunResult 40 steps, final loss {{[0-9.]+}}, 0 skipped> True True
# CHECK-NEXT: text bf16: True
# CHECK-NEXT: ValueError: '@train_step' does not take language-model data: data='text:FILE' expects two integer data arguments [batch, tokens] of one shape (token ids, then next-token labels)
# CHECK-NEXT: ValueError: the text file 'wide.txt' holds the byte 195 at offset 3, outside the step's vocabulary of 128 tokens (a token is a byte; a vocabulary of 256 takes any file)
# CHECK-NEXT: ValueError: the text file 'short.txt' holds 5 bytes, fewer than one window of 16 tokens and its next token
# CHECK-NEXT: ValueError: cannot read the text file 'missing.txt': No such file or directory

# Errors: arrays that do not fit (ValueError), a failure of the pipeline (a
# CompileError naming the op and its line), a module that does not parse.
for attempt in [
        lambda: mixedprec.run(text, steps=1, data=[inputs]),
        lambda: mixedprec.run(text, steps=1, data=[inputs[:, :5], classes]),
        lambda: mixedprec.run(text, steps=1, data={9: inputs, 11: classes}),
        lambda: mixedprec.run(text, steps=1, params=[np.zeros((16, 6))]),
        lambda: mixedprec.run(text, steps=1, params=[np.zeros((16, 5)), np.zeros(16), np.zeros((3, 16))]),
        lambda: mixedprec.run(text, steps=1, eval_data=(inputs, classes)),
        lambda: mixedprec.run(text, steps=1, data=[inputs, classes],
                              eval_data=(inputs, classes[:3])),
        lambda: mixedprec.run(text, steps=1, pipeline="mp-no-such-pass"),
        lambda: mixedprec.run(text, steps=1, data=[inputs[:5], classes[:5]]),
        lambda: mixedprec.run(text, steps=1, data=[inputs, classes], eval_data=(inputs, classes),
                              eval_function="nope"),
        lambda: mixedprec.run("func.func @f() {", steps=1),
        lambda: mixedprec.run("func.func @f() { return }", steps=1),
]:
    try:
        attempt()
        print("no error")
    except (ValueError, mixedprec.CompileError) as error:
        print("%s: %s" % (type(error).__name__, str(error).splitlines()[0]))
# CHECK-NEXT: ValueError: data: 2 arrays expected (arguments [10, 11]), got 1
# CHECK-NEXT: ValueError: data argument 10: shape [100, 5] does not fit tensor<10x6xf32> (samples along dimension 0)
# CHECK-NEXT: ValueError: data: no data argument number [9] (they are [10, 11])
# CHECK-NEXT: ValueError: params: 3 arrays expected (arguments [0, 1, 2]), got 1
# CHECK-NEXT: ValueError: parameter 0: shape [16, 5] does not fit tensor<16x6xf32>
# CHECK-NEXT: ValueError: eval_data arrays need data given as arrays
# CHECK-NEXT: ValueError: eval_data: labels must be [N] for inputs [N, ...]
# CHECK-NEXT: CompileError: invalid pipeline: invalid pass pipeline 'mp-no-such-pass'
# CHECK-NEXT: ValueError: data: 5 samples, fewer than one batch of 10
# CHECK-NEXT: ValueError: eval_function: no function '@nope' in the module
# CHECK-NEXT: CompileError: parse error: cannot parse '<mixedprec.run>'
# CHECK-NEXT: ValueError: expected exactly one function with an mp.loss result, found 0

# A module that does not verify: the CompileError names the op and its line.
bad = """func.func @train_step(%w: tensor<4xf32> {mp.param}, %x: tensor<4xf32>)
    -> (tensor<f32> {mp.loss}) {
  %y = mp.add %w, %x : tensor<4xf32>, tensor<4xf32>
  %l = mp.reduce_mean %y dims [3] : tensor<4xf32>
  return %l : tensor<f32>
}
"""
try:
    mixedprec.run(bad, steps=1)
except mixedprec.CompileError as error:
    print(error.diagnostics.strip())
# CHECK-NEXT: <mixedprec.run>:4:8: error: 'mp.reduce_mean' op reduction dimension 3 is out of range for rank 1
