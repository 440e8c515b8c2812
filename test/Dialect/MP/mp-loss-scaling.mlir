// RUN: mp-opt %s -split-input-file --mp-loss-scaling | FileCheck %s --check-prefix=DYN
// RUN: mp-opt %s -split-input-file --mp-loss-scaling="mode=static init-scale=1024" | FileCheck %s --check-prefix=STATIC
// RUN: mp-opt %s -split-input-file --mp-loss-scaling="mode=static init-scale=1024 skip-nonfinite=false" | FileCheck %s --check-prefix=NOSKIP
// RUN: mp-opt %s -split-input-file --mp-loss-scaling="hysteresis=2 min-scale=1 max-scale=1048576 growth-interval=100 growth-factor=4 backoff-factor=0.25" | FileCheck %s --check-prefix=HYST
// Running the pass twice scales once.
// RUN: mp-opt %s -split-input-file --mp-loss-scaling > %t.once
// RUN: mp-opt %s -split-input-file --mp-loss-scaling --mp-loss-scaling | diff %t.once -

// A train step whose forward ran in f16 (after mp-autocast): the gradient of
// the f32 parameter is f32 (through the cast), the optimizer is Adam.

// DYN-LABEL: func.func @adam_step
// DYN-SAME: (%[[W:[^:]*]]: tensor<4x3xf32> {mp.param}, %[[M:[^:]*]]: tensor<4x3xf32> {mp.state = "adam.exp_avg"}, %[[V:[^:]*]]: tensor<4x3xf32> {mp.state = "adam.exp_avg_sq"}, %[[STEP:[^:]*]]: tensor<i64> {mp.state = "step"}, %{{.*}}: tensor<2x3xf32>, %{{.*}}: tensor<2xi64>,
// DYN-SAME: %[[S:[^:]*]]: tensor<f32> {mp.init = 6.553600e+04 : f32, mp.state = "loss_scale"}, %[[T:[^:]*]]: tensor<i32> {mp.state = "growth_tracker"})
// DYN-SAME: -> (tensor<f32> {mp.loss}, tensor<4x3xf32> {mp.updates = 0 : i64}, tensor<4x3xf32> {mp.updates = 1 : i64}, tensor<4x3xf32> {mp.updates = 2 : i64}, tensor<i64> {mp.updates = 3 : i64}, tensor<f32> {mp.updates = 6 : i64}, tensor<i32> {mp.updates = 7 : i64}, tensor<i1> {mp.skipped})
// DYN-SAME: attributes {mp.loss_scaling = "dynamic"}
// DYN: %[[LOSS:.*]] = mp.cross_entropy
// DYN-NEXT: %[[SL:.*]] = mp.scale %[[LOSS]] by %[[S]] : tensor<f32>
// DYN-NEXT: %[[G:.*]] = mp.grad %[[SL]] wrt %[[W]] : tensor<f32>, tensor<4x3xf32>
// DYN-NEXT: %[[S64:.*]] = arith.extf %[[S]] : tensor<f32> to tensor<f64>
// DYN-NEXT: %[[ONE:.*]] = arith.constant dense<1.000000e+00> : tensor<f64>
// DYN-NEXT: %[[INV64:.*]] = arith.divf %[[ONE]], %[[S64]] : tensor<f64>
// DYN-NEXT: %[[INV:.*]] = arith.truncf %[[INV64]] : tensor<f64> to tensor<f32>
// DYN-NEXT: %[[U:.*]] = mp.scale %[[G]] by %[[INV]] : tensor<4x3xf32>
// DYN: %[[STEP1:.*]] = arith.addi %[[STEP]]
// DYN: %[[NW:.*]], %[[NM:.*]], %[[NV:.*]] = mp.adam %[[W]], %[[U]], %[[M]], %[[V]], %[[STEP1]]
// DYN-NEXT: %[[OK:.*]] = mp.all_finite %[[U]] : tensor<4x3xf32>
// DYN-NEXT: %[[TRUE:.*]] = arith.constant dense<true> : tensor<i1>
// DYN-NEXT: %[[INF:.*]] = arith.xori %[[OK]], %[[TRUE]] : tensor<i1>
// DYN-NEXT: %[[C:.*]] = tensor.extract %[[OK]][] : tensor<i1>
// DYN-NEXT: %[[W2:.*]] = arith.select %[[C]], %[[NW]], %[[W]] : tensor<4x3xf32>
// DYN-NEXT: %[[M2:.*]] = arith.select %[[C]], %[[NM]], %[[M]] : tensor<4x3xf32>
// DYN-NEXT: %[[V2:.*]] = arith.select %[[C]], %[[NV]], %[[V]] : tensor<4x3xf32>
// DYN-NEXT: %[[STEP2:.*]] = arith.select %[[C]], %[[STEP1]], %[[STEP]] : tensor<i64>
// DYN-NEXT: %[[NS:.*]], %[[NT:.*]] = mp.update_loss_scale %[[S]], %[[T]], %[[INF]]{{$}}
// DYN-NEXT: return %[[LOSS]], %[[W2]], %[[M2]], %[[V2]], %[[STEP2]], %[[NS]], %[[NT]], %[[INF]]

// STATIC-LABEL: func.func @adam_step
// STATIC-SAME: %{{[^:]*}}: tensor<2xi64>)
// STATIC-SAME: -> (tensor<f32> {mp.loss}, tensor<4x3xf32> {mp.updates = 0 : i64}, tensor<4x3xf32> {mp.updates = 1 : i64}, tensor<4x3xf32> {mp.updates = 2 : i64}, tensor<i64> {mp.updates = 3 : i64}, tensor<i1> {mp.skipped})
// STATIC-SAME: attributes {mp.loss_scaling = "static"}
// STATIC: %[[S:.*]] = arith.constant dense<1.024000e+03> : tensor<f32>
// STATIC-NEXT: mp.scale %{{.*}} by %[[S]] : tensor<f32>
// STATIC-NEXT: mp.grad
// STATIC-NEXT: %[[INV:.*]] = arith.constant dense<9.765625E-4> : tensor<f32>
// STATIC-NEXT: mp.scale %{{.*}} by %[[INV]] : tensor<4x3xf32>
// STATIC: mp.all_finite
// STATIC-COUNT-4: arith.select
// STATIC-NOT: mp.update_loss_scale

// NOSKIP-LABEL: func.func @adam_step
// NOSKIP-SAME: -> (tensor<f32> {mp.loss}, tensor<4x3xf32> {mp.updates = 0 : i64}, tensor<4x3xf32> {mp.updates = 1 : i64}, tensor<4x3xf32> {mp.updates = 2 : i64}, tensor<i64> {mp.updates = 3 : i64})
// NOSKIP-NOT: arith.select
// NOSKIP: return

// HYST-LABEL: func.func @adam_step
// HYST-SAME: %[[H:[^:]*]]: tensor<i32> {mp.init = 2 : i32, mp.state = "hysteresis_tracker"})
// HYST-SAME: tensor<i32> {mp.updates = 8 : i64}, tensor<i1> {mp.skipped})
// HYST: mp.update_loss_scale %{{.*}}, %{{.*}}, %{{.*}} hysteresis_tracker %[[H]] {backoff_factor = 2.500000e-01 : f64, growth_factor = 4.000000e+00 : f64, growth_interval = 100 : i64, hysteresis = 2 : i64, max_scale = 0x4130000000000000 : f64, min_scale = 1.000000e+00 : f64}
func.func @adam_step(%w: tensor<4x3xf32> {mp.param}, %m: tensor<4x3xf32> {mp.state = "adam.exp_avg"},
                     %v: tensor<4x3xf32> {mp.state = "adam.exp_avg_sq"}, %step: tensor<i64> {mp.state = "step"},
                     %x: tensor<2x3xf32>, %y: tensor<2xi64>)
    -> (tensor<f32> {mp.loss}, tensor<4x3xf32> {mp.updates = 0 : i64}, tensor<4x3xf32> {mp.updates = 1 : i64},
        tensor<4x3xf32> {mp.updates = 2 : i64}, tensor<i64> {mp.updates = 3 : i64}) {
  %xh = mp.cast %x : tensor<2x3xf32> to tensor<2x3xf16>
  %wh = mp.cast %w : tensor<4x3xf32> to tensor<4x3xf16>
  %l = mp.linear %xh, %wh acc(f32) : (tensor<2x3xf16>, tensor<4x3xf16>) -> tensor<2x4xf16>
  %lf = mp.cast %l : tensor<2x4xf16> to tensor<2x4xf32>
  %loss = mp.cross_entropy %lf, %y : tensor<2x4xf32>, tensor<2xi64>
  %g = mp.grad %loss wrt %w : tensor<f32>, tensor<4x3xf32>
  %one = arith.constant dense<1> : tensor<i64>
  %s1 = arith.addi %step, %one : tensor<i64>
  %w1, %m1, %v1 = mp.adam %w, %g, %m, %v, %s1 : tensor<4x3xf32>, tensor<i64>
  return %loss, %w1, %m1, %v1, %s1 : tensor<f32>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<i64>
}

// -----

// Gradients in f16 (pure f16 training, no master weights): each is unscaled
// in f32; a user that needs f16 gets the unscaled gradient cast back, a cast
// to f32 of the gradient is the unscaled gradient itself.

// DYN-LABEL: func.func @f16_gradients
// DYN: %[[G:.*]]:2 = mp.grad %{{.*}} wrt %{{.*}}, %{{.*}} : tensor<f32>, tensor<4xf16>, tensor<4xf32>
// DYN: %[[G0:.*]] = mp.cast %[[G]]#0 : tensor<4xf16> to tensor<4xf32>
// DYN-NEXT: %[[U0:.*]] = mp.scale %[[G0]] by %[[INV:.*]] : tensor<4xf32>
// DYN-NEXT: %[[B0:.*]] = mp.cast %[[U0]] : tensor<4xf32> to tensor<4xf16>
// DYN-NEXT: %[[U1:.*]] = mp.scale %[[G]]#1 by %[[INV]] : tensor<4xf32>
// DYN-NEXT: mp.sgd %{{.*}}, %[[B0]] {lr = 1.000000e-01 : f64} : tensor<4xf16>
// DYN-NEXT: mp.sgd %{{.*}}, %[[U1]] {lr = 1.000000e-01 : f64} : tensor<4xf32>
// DYN-NEXT: %[[NORM:.*]] = mp.reduce_sum %[[U0]] dims [0] : tensor<4xf32>
// DYN-NEXT: mp.all_finite %[[U0]], %[[U1]] : tensor<4xf32>, tensor<4xf32>
func.func @f16_gradients(%a: tensor<4xf16> {mp.param}, %b: tensor<4xf32> {mp.param}, %t: tensor<4xf32>)
    -> (tensor<f32> {mp.loss}, tensor<4xf16> {mp.updates = 0 : i64}, tensor<4xf32> {mp.updates = 1 : i64}, tensor<f32>) {
  %af = mp.cast %a : tensor<4xf16> to tensor<4xf32>
  %p = mp.mul %af, %b : tensor<4xf32>, tensor<4xf32>
  %loss = mp.mse %p, %t : tensor<4xf32>
  %g:2 = mp.grad %loss wrt %a, %b : tensor<f32>, tensor<4xf16>, tensor<4xf32>
  %a1 = mp.sgd %a, %g#0 {lr = 0.1 : f64} : tensor<4xf16>
  %b1 = mp.sgd %b, %g#1 {lr = 0.1 : f64} : tensor<4xf32>
  %g0f = mp.cast %g#0 : tensor<4xf16> to tensor<4xf32>
  %norm = mp.reduce_sum %g0f dims [0] : tensor<4xf32>
  return %loss, %a1, %b1, %norm : tensor<f32>, tensor<4xf16>, tensor<4xf32>, tensor<f32>
}

// -----

// No mp.grad: nothing to scale.
// DYN-LABEL: func.func @no_grad
// DYN-SAME: (%{{.*}}: tensor<4xf32>) -> tensor<4xf32> {
// DYN-NEXT: return
func.func @no_grad(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
