// Numerics 3, dynamic loss scaling. An f16 model (mp-autocast) with f32
// master weights, Adam, and GradScaler-style dynamic scaling
// (mp-loss-scaling, growth interval 3, initial scale 1024) runs 16 steps;
// the data multiplies the predictions by 1e30 at steps 4, 5 and 11, so the
// gradients of those steps overflow. The check replays GradScaler's rules:
// - exactly the injected steps are skipped, and on each of them every
//   parameter and every piece of optimizer state (Adam moments, step count)
//   comes back bit-identical;
// - the scale halves on each skipped step and doubles after 3 finite steps
//   in a row: the whole trajectory equals the reference, step by step.
// REQUIRES: numpy

// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %s.py inputs %t
// RUN: mp-run %s --data=npy:%t --shuffle=false --steps 16 --json %t/run.json \
// RUN:     --pipeline='mp-mixed-precision-pipeline{compute-type=f16 loss-scaling=dynamic growth-interval=3 init-scale=1024}' \
// RUN:   | FileCheck %s --check-prefix=STEPS
// RUN: %python %s.py check %t | FileCheck %s

// STEPS: step 3 loss {{.*}} scale 1024 ok
// STEPS-NEXT: step 4 loss {{.*}} scale 2048 skipped
// STEPS-NEXT: step 5 loss {{.*}} scale 1024 skipped
// STEPS-NEXT: step 6 loss {{.*}} scale 512 ok

// CHECK: step  1 scale 1024 (reference 1024) skipped False (reference False) unchanged False
// CHECK: step  4 scale 2048 (reference 2048) skipped True (reference True) unchanged True
// CHECK: step  5 scale 1024 (reference 1024) skipped True (reference True) unchanged True
// CHECK: step 11 scale {{[0-9]+}} (reference {{[0-9]+}}) skipped True (reference True) unchanged True
// CHECK: step 16
// CHECK: final scale {{[0-9]+}} (reference {{[0-9]+}})
// CHECK: TRAJECTORY MATCHES GRADSCALER

func.func @train_step(
    %w: tensor<8x16xf32> {mp.param},
    %m: tensor<8x16xf32> {mp.state = "adam.exp_avg"},
    %v: tensor<8x16xf32> {mp.state = "adam.exp_avg_sq"},
    %step: tensor<i64> {mp.state = "step"},
    %x: tensor<4x16xf32>, %target: tensor<4x8xf32>, %k: tensor<4x8xf32>)
    -> (tensor<f32> {mp.loss}, tensor<8x16xf32> {mp.updates = 0 : i64},
        tensor<8x16xf32> {mp.updates = 1 : i64},
        tensor<8x16xf32> {mp.updates = 2 : i64},
        tensor<i64> {mp.updates = 3 : i64}) {
  %y = mp.linear %x, %w acc(f32)
      : (tensor<4x16xf32>, tensor<8x16xf32>) -> tensor<4x8xf32>
  %yk = mp.mul %y, %k : tensor<4x8xf32>, tensor<4x8xf32>
  %loss = mp.mse %yk, %target : tensor<4x8xf32>
  %g = mp.grad %loss wrt %w : tensor<f32>, tensor<8x16xf32>
  %one = arith.constant dense<1> : tensor<i64>
  %step1 = arith.addi %step, %one : tensor<i64>
  %w1, %m1, %v1 = mp.adam %w, %g, %m, %v, %step1 {lr = 1.0e-02 : f64}
      : tensor<8x16xf32>, tensor<i64>
  return %loss, %w1, %m1, %v1, %step1
      : tensor<f32>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<i64>
}
