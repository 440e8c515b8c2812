// Numerics 1, stagnation: w = 1.0 updated by -1e-6 per step for 1000 steps.
// In pure f16 every update is lost (the f16 spacing below 1.0 is 2^-11, so
// 1 - 1e-6 rounds back to 1): w stays exactly 1.0. With f32 master weights
// (mp-master-weights) the updates accumulate: w ends within 1e-4 of 0.999.
// The saved parameter is the f16 weight in the first case and the f32 master
// in the second.
// REQUIRES: numpy

// RUN: rm -rf %t && mkdir -p %t/init
// RUN: %python -c "import numpy as np; np.save('%t/init/arg0.npy', np.ones(4, np.float16))"
// RUN: mp-run %s --load %t/init --steps 1000 --print-every 500 --save %t/f16 \
// RUN:   | FileCheck %s --check-prefix=F16
// RUN: mp-run %s --load %t/init --steps 1000 --print-every 500 --save %t/master \
// RUN:     --pipeline='mp-mixed-precision-pipeline{compute-type=f32 loss-scaling=none}' \
// RUN:   | FileCheck %s --check-prefix=MASTER
// RUN: %python %s.py %t | FileCheck %s

// F16: step 500 loss 4 scale - skipped
// F16: step 1000 loss 4 scale - skipped
// F16: final: loss 4 skipped 1000/1000
// MASTER: step 500 loss 3.99
// MASTER: step 1000 loss 3.99
// MASTER: final: loss 3.99{{[0-9]*}} skipped 0/1000

// CHECK: pure f16: dtype float16, w = [1. 1. 1. 1.]
// CHECK-NEXT: pure f16 stagnates: True
// CHECK-NEXT: f32 master: dtype float32, max |w - 0.999| = {{.*}}e-0{{[5-9]}}
// CHECK-NEXT: f32 master within 1e-4 of 0.999: True

// The loss is Σw, so its gradient is 1 and SGD with lr 1e-6 subtracts 1e-6.
func.func @train_step(%w: tensor<4xf16> {mp.param})
    -> (tensor<f16> {mp.loss}, tensor<4xf16> {mp.updates = 0 : i64}) {
  %loss = mp.reduce_sum %w dims [0] : tensor<4xf16>
  %g = mp.grad %loss wrt %w : tensor<f16>, tensor<4xf16>
  %w1 = mp.sgd %w, %g {lr = 1.0e-06 : f64} : tensor<4xf16>
  return %loss, %w1 : tensor<f16>, tensor<4xf16>
}
