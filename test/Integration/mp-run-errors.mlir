// Bad input gets a clear error and a non-zero exit status, never a crash,
// and nothing half-written: --json and --save outputs are absent after an
// error.

// RUN: rm -rf %t && mkdir -p %t/empty %t/bad %t/wrongtype %t/corrupt %t/fmnist %t/data %t/labels
// RUN: %python -c "import struct; open('%t/bad/arg0.npy', 'wb').write(b'\x93NUMPY\x01\x00' + struct.pack('<H', 118) + b\"{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }\".ljust(117) + b'\n' + bytes(12))"
// RUN: %python -c "import struct; open('%t/wrongtype/arg0.npy', 'wb').write(b'\x93NUMPY\x01\x00' + struct.pack('<H', 118) + b\"{'descr': '<i8', 'fortran_order': False, 'shape': (2,), }\".ljust(117) + b'\n' + bytes(16))"
// RUN: %python -c "open('%t/corrupt/arg0.npy', 'wb').write(b'not a numpy file')"
// RUN: %python -c "open('%t/fmnist/train-images-idx3-ubyte.gz', 'wb').write(b'\x1f\x8b' + bytes(30)); open('%t/fmnist/train-labels-idx1-ubyte.gz', 'wb').write(b'\x1f\x8b' + bytes(30))"
// RUN: %python -c "import struct; open('%t/data/arg1.npy', 'wb').write(b'\x93NUMPY\x01\x00' + struct.pack('<H', 118) + b\"{'descr': '<f4', 'fortran_order': False, 'shape': (8, 3), }\".ljust(117) + b'\n' + bytes(96))"

// RUN: not mp-run %s --function=nope 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: mp-run: error: no function '@nope' in '{{.*}}mp-run-errors.mlir'

// RUN: not mp-run %s --function=no_loss 2>&1 | FileCheck %s --check-prefix=NO-LOSS
// NO-LOSS: mp-run: error: '@no_loss' is not a train step: no result is marked mp.loss (see docs/TrainStep.md)

// RUN: not mp-run %s --function=dynamic 2>&1 | FileCheck %s --check-prefix=DYNAMIC
// DYNAMIC: mp-run: error: argument 1 of '@dynamic' has type tensor<?xf32>; mp-run binds statically shaped tensors of f32, f16, bf16, f8E4M3FN, f8E5M2, f64, i64, i32, i8 or i1

// RUN: not mp-run %s --function=step --load %t/empty 2>&1 | FileCheck %s --check-prefix=NO-FILE
// NO-FILE: mp-run: error: cannot read '{{.*}}empty{{/|\\}}arg0.npy': No such file or directory

// RUN: not mp-run %s --function=step --load %t/bad 2>&1 | FileCheck %s --check-prefix=SHAPE
// SHAPE: mp-run: error: '{{.*}}arg0.npy' holds tensor<3xf32>, but argument 0 of '@step' is tensor<2xf32> (expected a .npy of tensor<2xf32>)

// RUN: not mp-run %s --function=step --load %t/wrongtype 2>&1 | FileCheck %s --check-prefix=TYPE
// TYPE: mp-run: error: '{{.*}}arg0.npy' holds tensor<2xi64>, but argument 0 of '@step' is tensor<2xf32> (expected a .npy of tensor<2xf32>)

// RUN: not mp-run %s --function=step --load %t/corrupt 2>&1 | FileCheck %s --check-prefix=CORRUPT
// CORRUPT: mp-run: error: cannot read '{{.*}}arg0.npy': not a .npy file

// RUN: not mp-run %s --function=step --data=npy:%t/data 2>&1 | FileCheck %s --check-prefix=SAMPLES
// SAMPLES: mp-run: error: '{{.*}}arg1.npy' holds tensor<8x3xf32>, but data argument 1 of '@step' (tensor<4x2xf32>) needs samples stacked along dimension 0: tensor<-1x2xf32>

// Labels the step would read outside its logits: an explicit --num-classes
// above the step's 4 classes, and sampled labels beyond them, are errors;
// the default 10 draws below 4.
// RUN: not mp-run %s --function=few_classes --num-classes=5 --json %t/classes.json 2>&1 | FileCheck %s --check-prefix=CLASSES
// CLASSES: mp-run: error: --num-classes=5 draws labels beyond the step's: data argument 2 of '@few_classes' indexes 4 classes of mp.cross_entropy at {{.*}}mp-run-errors.mlir:{{[0-9]+}}:11 (give --num-classes=4 or fewer)
// RUN: test ! -e %t/classes.json
// RUN: mp-run %s --function=few_classes --steps 2 --print-every 0 | FileCheck %s --check-prefix=FEW
// FEW: final: loss {{[0-9.]+}}  skipped 0/2
// RUN: %python -c "import struct; open('%t/labels/arg1.npy', 'wb').write(b'\x93NUMPY\x01\x00' + struct.pack('<H', 118) + b\"{'descr': '<f4', 'fortran_order': False, 'shape': (3, 3), }\".ljust(117) + b'\n' + bytes(36))"
// RUN: %python -c "import struct; open('%t/labels/arg2.npy', 'wb').write(b'\x93NUMPY\x01\x00' + struct.pack('<H', 118) + b\"{'descr': '<i8', 'fortran_order': False, 'shape': (3, 1), }\".ljust(117) + b'\n' + struct.pack('<3q', 3, 7, -100))"
// RUN: not mp-run %s --function=few_classes --data=npy:%t/labels 2>&1 | FileCheck %s --check-prefix=LABELS
// LABELS: mp-run: error: the data of argument 2 (--data=npy:{{.*}}labels) holds 7 at element 1, outside [0, 4): data argument 2 of '@few_classes' indexes 4 classes of mp.cross_entropy at {{.*}}mp-run-errors.mlir:{{[0-9]+}}:11

// RUN: not mp-run %s --function=step --data=fashion-mnist:%t/nowhere 2>&1 | FileCheck %s --check-prefix=NO-DATA
// NO-DATA: mp-run: error: '@step' does not take classifier data: expected one float argument [batch, ...] with 784 values per sample and one integer label argument [batch] besides its mp.param and mp.state arguments

// RUN: not mp-run %s --function=classifier --data=fashion-mnist:%t/nowhere 2>&1 | FileCheck %s --check-prefix=NO-FMNIST
// NO-FMNIST: mp-run: error: cannot read the Fashion-MNIST file '{{.*}}nowhere/train-images-idx3-ubyte[.gz]': No such file or directory (install the Debian package dataset-fashion-mnist, or give --data=fashion-mnist:DIR)

// RUN: not mp-run %s --function=classifier --data=fashion-mnist:%t/fmnist 2>&1 | FileCheck %s --check-prefix=BAD-GZ
// BAD-GZ: mp-run: error: '{{.*}}train-images-idx3-ubyte.gz' is not a valid gzip file (corrupt or truncated)

// RUN: not mp-run %s --function=step --data=tape 2>&1 | FileCheck %s --check-prefix=UNKNOWN-DATA
// UNKNOWN-DATA: mp-run: error: unknown --data 'tape' (expected random, npy:DIR, fashion-mnist[:DIR] or text:FILE)

// RUN: not mp-run %s --function=step --pipeline='no-such-pass' 2>&1 | FileCheck %s --check-prefix=PIPELINE
// PIPELINE: mp-run: error: invalid --pipeline 'no-such-pass': {{.*}}'no-such-pass' does not refer to a registered pass or pass pipeline

// RUN: not mp-run %s --function=step --steps 2 --eval --json %t/out.json --save %t/saved 2>&1 | FileCheck %s --check-prefix=EVAL
// EVAL: step 2
// EVAL: mp-run: error: --eval: no function '@predict' in '{{.*}}mp-run-errors.mlir'
// RUN: not ls %t/out.json
// RUN: not ls %t/out.json.tmp
// RUN: not ls %t/saved/arg0.npy

// Corrupt, truncated and wrongly shaped data files (Inputs/corrupt_data.py):
// a clear error, exit status 1, no --json or --save output.
// RUN: %python %S/Inputs/corrupt_data.py %t
// RUN: not mp-run %s --function=step --load %t/npy-truncated 2>&1 | FileCheck %s --check-prefix=NPY-TRUNCATED
// NPY-TRUNCATED: mp-run: error: cannot read '{{.*}}arg0.npy': holds 4 data bytes, but its header says 8 (tensor<2xf32>)
// RUN: not mp-run %s --function=step --load %t/npy-header 2>&1 | FileCheck %s --check-prefix=NPY-HEADER
// NPY-HEADER: mp-run: error: cannot read '{{.*}}arg0.npy': truncated header
// RUN: not mp-run %s --function=step --load %t/npy-huge 2>&1 | FileCheck %s --check-prefix=NPY-HUGE
// NPY-HUGE: mp-run: error: cannot read '{{.*}}arg0.npy': holds 8 data bytes, but its header says more than 2^64 (tensor<4294967296x4294967296x2xf32>)
// RUN: not mp-run %s --function=classifier --data=fashion-mnist:%t/idx-truncated --json %t/idx.json --save %t/idx-saved 2>&1 | FileCheck %s --check-prefix=IDX-TRUNCATED
// IDX-TRUNCATED: mp-run: error: '{{.*}}train-images-idx3-ubyte' is not a valid IDX file: holds 10 data bytes, its header says 1568
// RUN: not ls %t/idx.json
// RUN: not ls %t/idx-saved/arg0.npy
// RUN: not mp-run %s --function=classifier --data=fashion-mnist:%t/idx-type 2>&1 | FileCheck %s --check-prefix=IDX-TYPE
// IDX-TYPE: mp-run: error: '{{.*}}train-images-idx3-ubyte' is not a valid IDX file: expected unsigned bytes of rank 3
// RUN: not mp-run %s --function=classifier --data=fashion-mnist:%t/idx-size 2>&1 | FileCheck %s --check-prefix=IDX-SIZE
// IDX-SIZE: mp-run: error: Fashion-MNIST 'train': the images are 29x28 pixels, expected 28x28
// RUN: not mp-run %s --function=classifier --data=fashion-mnist:%t/idx-huge 2>&1 | FileCheck %s --check-prefix=IDX-HUGE
// IDX-HUGE: mp-run: error: '{{.*}}train-images-idx3-ubyte' is not a valid IDX file: its header claims more than 2^64 data bytes
// RUN: not mp-run %s --function=classifier --data=fashion-mnist:%t/idx-gz-truncated 2>&1 | FileCheck %s --check-prefix=IDX-GZ
// IDX-GZ: mp-run: error: '{{.*}}train-images-idx3-ubyte.gz' is not a valid gzip file (corrupt or truncated)
// RUN: not mp-run %s --function=classifier --data=fashion-mnist:%t/idx-labels 2>&1 | FileCheck %s --check-prefix=IDX-LABELS
// IDX-LABELS: mp-run: error: Fashion-MNIST 'train': 3 images but 2 labels
// RUN: not mp-run %s --function=classifier --data=fashion-mnist:%t/idx-label-range 2>&1 | FileCheck %s --check-prefix=IDX-RANGE
// IDX-RANGE: mp-run: error: Fashion-MNIST 'train': label 10 of sample 1 is not in [0, 10)
// RUN: not mp-run %s --function=classifier --data=fashion-mnist:%t/idx-no-labels 2>&1 | FileCheck %s --check-prefix=IDX-NO-LABELS
// IDX-NO-LABELS: mp-run: error: cannot read the Fashion-MNIST file '{{.*}}idx-no-labels/train-labels-idx1-ubyte[.gz]': No such file or directory

// The loss scale at its minimum (docs/Reliability.md): every step's loss is
// NaN, so the scale backs off 4 -> 2 -> 1 = min-scale; the next skipped step
// cannot back off, and mp-run stops with an error instead of skipping
// forever: exit status 1, nothing written. Without min-scale the scale
// falls to 0 (~150 halvings) and the same happens; with hysteresis 2 the
// first skip keeps the scale legitimately.
// RUN: mkdir -p %t/nan
// RUN: %python -c "import struct; open('%t/nan/arg1.npy', 'wb').write(b'\x93NUMPY\x01\x00' + struct.pack('<H', 118) + b\"{'descr': '<f4', 'fortran_order': False, 'shape': (4, 2), }\".ljust(117) + b'\n' + struct.pack('<8f', *[float('nan')] * 8))"
// RUN: not mp-run %s --function=step --data=npy:%t/nan --steps 10 --json %t/min.json --save %t/min-saved \
// RUN:     --pipeline='mp-loss-scaling{init-scale=4 min-scale=1},func.func(mp-autodiff)' 2>&1 | FileCheck %s --check-prefix=MIN-SCALE
// MIN-SCALE: step 1 loss nan scale 4 skipped
// MIN-SCALE: step 2 loss nan scale 2 skipped
// MIN-SCALE: step 3 loss nan scale 1 skipped
// MIN-SCALE: mp-run: error: step 3: the gradients are not finite and the loss scale cannot back off below its minimum 1; every further step would be skipped, so training stops here (the parameters are those before this step; nothing is written)
// RUN: not ls %t/min.json
// RUN: not ls %t/min-saved/arg0.npy
// RUN: not mp-run %s --function=step --data=npy:%t/nan --steps 400 --print-every=0 \
// RUN:     --pipeline='mp-loss-scaling{init-scale=4},func.func(mp-autodiff)' 2>&1 | FileCheck %s --check-prefix=ZERO-SCALE
// ZERO-SCALE: mp-run: error: step {{1[0-9][0-9]}}: the gradients are not finite and the loss scale cannot back off below its minimum 0;
// RUN: not mp-run %s --function=step --data=npy:%t/nan --steps 10 \
// RUN:     --pipeline='mp-loss-scaling{init-scale=4 min-scale=1 hysteresis=2},func.func(mp-autodiff)' 2>&1 | FileCheck %s --check-prefix=HYSTERESIS
// HYSTERESIS: step 1 loss nan scale 4 skipped
// HYSTERESIS: step 2 loss nan scale 4 skipped
// HYSTERESIS: step 3 loss nan scale 2 skipped
// HYSTERESIS: step 4 loss nan scale 1 skipped
// HYSTERESIS: mp-run: error: step 4: the gradients are not finite

// mp.grad is only lowered after mp-autodiff.
// RUN: not mp-run %s --function=step --pipeline=none 2>&1 | FileCheck %s --check-prefix=LOWERING
// LOWERING: error: 'mp.grad' op
// LOWERING: mp-run: error: lowering '{{.*}}mp-run-errors.mlir' failed (the diagnostics above say where; passes: mp-cpu-pipeline)

// RUN: echo 'func.func @broken(' > %t/broken.mlir
// RUN: not mp-run %t/broken.mlir 2>&1 | FileCheck %s --check-prefix=PARSE
// PARSE: mp-run: error: cannot parse '{{.*}}broken.mlir'

// A lowered module without the signature mp-cpu-pipeline records.
// RUN: echo 'llvm.func @step() { llvm.return }' > %t/lowered.mlir
// RUN: not mp-run %t/lowered.mlir --function=step 2>&1 | FileCheck %s --check-prefix=LOWERED
// LOWERED: mp-run: error: '@step' has no 'mp.signature' recording its tensor signature (lower it with mp-cpu-pipeline, which runs mp-export-entry-points)

func.func @step(%w: tensor<2xf32> {mp.param}, %x: tensor<4x2xf32>)
    -> (tensor<f32> {mp.loss}, tensor<2xf32> {mp.updates = 0 : i64}) {
  %y = mp.mul %x, %w : tensor<4x2xf32>, tensor<2xf32>
  %loss = mp.reduce_mean %y dims [0, 1] : tensor<4x2xf32>
  %g = mp.grad %loss wrt %w : tensor<f32>, tensor<2xf32>
  %w1 = mp.sgd %w, %g {lr = 0.1 : f64} : tensor<2xf32>
  return %loss, %w1 : tensor<f32>, tensor<2xf32>
}

func.func @classifier(%w: tensor<10x784xf32> {mp.param}, %x: tensor<2x784xf32>,
                      %labels: tensor<2xi64>) -> (tensor<f32> {mp.loss}) {
  %logits = mp.linear %x, %w acc(f32)
      : (tensor<2x784xf32>, tensor<10x784xf32>) -> tensor<2x10xf32>
  %loss = mp.cross_entropy %logits, %labels : tensor<2x10xf32>, tensor<2xi64>
  return %loss : tensor<f32>
}

// Labels of 4 classes, given as [2, 1] and reshaped (the bound is found
// through mp.reshape).
func.func @few_classes(%w: tensor<4x3xf32> {mp.param}, %x: tensor<2x3xf32>,
                       %labels: tensor<2x1xi64>) -> (tensor<f32> {mp.loss}) {
  %logits = mp.linear %x, %w acc(f32)
      : (tensor<2x3xf32>, tensor<4x3xf32>) -> tensor<2x4xf32>
  %flat = mp.reshape %labels : tensor<2x1xi64> to tensor<2xi64>
  %loss = mp.cross_entropy %logits, %flat : tensor<2x4xf32>, tensor<2xi64>
  return %loss : tensor<f32>
}

func.func @no_loss(%w: tensor<2xf32> {mp.param}) -> tensor<2xf32> {
  return %w : tensor<2xf32>
}

func.func @dynamic(%w: tensor<2xf32> {mp.param}, %x: tensor<?xf32>)
    -> (tensor<f32> {mp.loss}) {
  %loss = mp.reduce_sum %w dims [0] : tensor<2xf32>
  return %loss : tensor<f32>
}
