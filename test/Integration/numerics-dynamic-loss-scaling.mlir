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
// RUN: mp-run %s --function=train_step --data=npy:%t --shuffle=false --steps 16 --json %t/run.json \
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

// Fault injection (docs/Reliability.md) into @two_layers, a two-layer MLP
// whose loss adds sum(w1 * p1) + sum(w2 * p2) for data p1, p2 that are 0
// except where a fault is injected: dloss/dw_i = ... + p_i, so a non-finite
// element of p_i is a non-finite element of exactly that layer's gradient.
// 16 steps of 8 samples; injected: a NaN target (the loss itself is NaN) at
// step 2, a NaN in one element of w2's gradient at step 5, +inf in one
// element of w1's gradient at step 6, -inf in one element of w2's gradient
// at step 9, an input beyond the f16 range (f16 overflow in the forward) at
// step 12. Both master-weight styles: the check replays GradScaler and
// requires every injected step, and only those, to be skipped with every
// parameter (f32 master), working copy, Adam moment and step count
// bit-identical, and training to go on: every other step has a finite
// loss and updates the state, and the saved parameters are finite.
// RUN: %python %s.py faults-inputs %t
// RUN: mp-run %s --function=two_layers --data=npy:%t --shuffle=false --steps 16 \
// RUN:     --json %t/faults.json --save %t/faults-params \
// RUN:     --pipeline='mp-mixed-precision-pipeline{compute-type=f16 loss-scaling=dynamic growth-interval=3 init-scale=1024}' \
// RUN:   | FileCheck %s --check-prefix=FAULT-STEPS
// RUN: %python %s.py faults-check %t faults.json faults-params | FileCheck %s --check-prefix=FAULTS
// RUN: mp-run %s --function=two_layers --data=npy:%t --shuffle=false --steps 16 \
// RUN:     --json %t/faults-o2.json --save %t/faults-o2-params \
// RUN:     --pipeline='mp-mixed-precision-pipeline{compute-type=f16 master-weights=stored-copy loss-scaling=dynamic growth-interval=3 init-scale=1024}' \
// RUN:   | FileCheck %s --check-prefix=FAULT-STEPS
// RUN: %python %s.py faults-check %t faults-o2.json faults-o2-params | FileCheck %s --check-prefix=FAULTS

// FAULT-STEPS: step 1 loss {{[0-9.e+-]+}} scale 1024 ok
// FAULT-STEPS-NEXT: step 2 loss nan scale 1024 skipped
// FAULT-STEPS: step 5 loss nan scale {{.*}} skipped
// FAULT-STEPS-NEXT: step 6 loss {{-?}}inf scale {{.*}} skipped

// FAULTS: step  2 skipped True (reference True) unchanged True
// FAULTS: step  5 skipped True (reference True) unchanged True
// FAULTS: step  6 skipped True (reference True) unchanged True
// FAULTS: step  9 skipped True (reference True) unchanged True
// FAULTS: step 12 skipped True (reference True) unchanged True
// FAULTS: step 16 skipped False (reference False) unchanged False
// FAULTS: FAULTS SKIPPED, STATE KEPT, TRAINING CONTINUED

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

func.func @two_layers(
    %w1: tensor<8x16xf32> {mp.param}, %w2: tensor<8x8xf32> {mp.param},
    %m1: tensor<8x16xf32> {mp.state = "adam.exp_avg"},
    %v1: tensor<8x16xf32> {mp.state = "adam.exp_avg_sq"},
    %m2: tensor<8x8xf32> {mp.state = "adam.exp_avg"},
    %v2: tensor<8x8xf32> {mp.state = "adam.exp_avg_sq"},
    %step: tensor<i64> {mp.state = "step"},
    %x: tensor<8x16xf32>, %target: tensor<8x8xf32>,
    %p1: tensor<8x16xf32>, %p2: tensor<8x8xf32>)
    -> (tensor<f32> {mp.loss},
        tensor<8x16xf32> {mp.updates = 0 : i64},
        tensor<8x8xf32> {mp.updates = 1 : i64},
        tensor<8x16xf32> {mp.updates = 2 : i64},
        tensor<8x16xf32> {mp.updates = 3 : i64},
        tensor<8x8xf32> {mp.updates = 4 : i64},
        tensor<8x8xf32> {mp.updates = 5 : i64},
        tensor<i64> {mp.updates = 6 : i64}) {
  %h0 = mp.linear %x, %w1 acc(f32)
      : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x8xf32>
  %h = mp.relu %h0 : tensor<8x8xf32>
  %y = mp.linear %h, %w2 acc(f32)
      : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
  %mse = mp.mse %y, %target : tensor<8x8xf32>
  %q1 = mp.mul %w1, %p1 : tensor<8x16xf32>, tensor<8x16xf32>
  %s1 = mp.reduce_sum %q1 dims [0, 1] : tensor<8x16xf32>
  %q2 = mp.mul %w2, %p2 : tensor<8x8xf32>, tensor<8x8xf32>
  %s2 = mp.reduce_sum %q2 dims [0, 1] : tensor<8x8xf32>
  %l1 = mp.add %mse, %s1 : tensor<f32>, tensor<f32>
  %loss = mp.add %l1, %s2 : tensor<f32>, tensor<f32>
  %g1, %g2 = mp.grad %loss wrt %w1, %w2
      : tensor<f32>, tensor<8x16xf32>, tensor<8x8xf32>
  %one = arith.constant dense<1> : tensor<i64>
  %step1 = arith.addi %step, %one : tensor<i64>
  %w1n, %m1n, %v1n = mp.adam %w1, %g1, %m1, %v1, %step1 {lr = 1.0e-02 : f64}
      : tensor<8x16xf32>, tensor<i64>
  %w2n, %m2n, %v2n = mp.adam %w2, %g2, %m2, %v2, %step1 {lr = 1.0e-02 : f64}
      : tensor<8x8xf32>, tensor<i64>
  return %loss, %w1n, %w2n, %m1n, %v1n, %m2n, %v2n, %step1
      : tensor<f32>, tensor<8x16xf32>, tensor<8x8xf32>, tensor<8x16xf32>,
        tensor<8x16xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<i64>
}
