// RUN: mp-opt %s --mp-loss-scaling | FileCheck %s
// RUN: mp-opt %s --mp-master-weights --mp-loss-scaling | FileCheck %s --check-prefix=MASTER

// GradScaler's documented order: unscale_ (×1/S) before clip_grad_norm_, so
// mp.clip_grad_norm consumes the unscaled gradients; its total norm joins
// found_inf, so a non-finite norm skips the step; the schedule counter
// (forward state) advances on a skipped step.

// CHECK-LABEL: func.func @step(
// CHECK-SAME:    %[[W:[a-z0-9]+]]: tensor<4x3xf32> {mp.param}, %[[B:[a-z0-9]+]]: tensor<4xf32> {mp.param}, %[[E:[a-z0-9]+]]: tensor<i64> {mp.state = "lr_scheduler.last_epoch"}
// CHECK-SAME:    %[[S:[a-z0-9]+]]: tensor<f32> {mp.init = 6.553600e+04 : f32, mp.state = "loss_scale"}
// CHECK:         %[[SL:.*]] = mp.scale %{{.*}} by %[[S]] : tensor<f32>
// CHECK:         %[[G:.*]]:2 = mp.grad %[[SL]] wrt %[[W]], %[[B]]
// CHECK:         %[[INV:.*]] = arith.truncf %{{.*}} : tensor<f64> to tensor<f32>
// CHECK-NEXT:    %[[UW:.*]] = mp.scale %[[G]]#0 by %[[INV]] : tensor<4x3xf32>
// CHECK-NEXT:    %[[UB:.*]] = mp.scale %[[G]]#1 by %[[INV]] : tensor<4xf32>
// CHECK-NEXT:    %[[C:.*]]:2, %[[NORM:.*]] = mp.clip_grad_norm %[[UW]], %[[UB]] max_norm 1.000000e+00 : tensor<4x3xf32>, tensor<4xf32>
// CHECK-NEXT:    %[[NW:.*]] = mp.sgd %[[W]], %[[C]]#0
// CHECK-NEXT:    %[[NB:.*]] = mp.sgd %[[B]], %[[C]]#1
// CHECK:         %[[E1:.*]] = arith.addi %[[E]], %{{.*}} : tensor<i64>
// CHECK:         %[[OK:.*]] = mp.all_finite %[[UW]], %[[UB]], %[[NORM]] : tensor<4x3xf32>, tensor<4xf32>, tensor<f32>
// CHECK:         %[[FIN:.*]] = tensor.extract %[[OK]][] : tensor<i1>
// CHECK-NEXT:    %[[RW:.*]] = arith.select %[[FIN]], %[[NW]], %[[W]] : tensor<4x3xf32>
// CHECK-NEXT:    %[[RB:.*]] = arith.select %[[FIN]], %[[NB]], %[[B]] : tensor<4xf32>
// CHECK:         return %{{.*}}, %[[RW]], %[[RB]], %[[E1]],

// With f16 parameters, master weights rebuild the clip on the f32 gradients
// of the masters (clipping runs in f32), and loss scaling unscales those.
// MASTER-LABEL: func.func @step_f16(
// MASTER-SAME:    %[[W:[a-z0-9]+]]: tensor<4x3xf32> {mp.param}
// MASTER:         %[[G:.*]] = mp.grad %{{.*}} wrt %[[W]] : tensor<f32>, tensor<4x3xf32>
// MASTER:         %[[U:.*]] = mp.scale %[[G]] by %{{.*}} : tensor<4x3xf32>
// MASTER:         %[[C:.*]], %[[NORM:.*]] = mp.clip_grad_norm %[[U]] max_norm 2.000000e+00 norm_type inf : tensor<4x3xf32>
// MASTER-NEXT:    %[[NW:.*]] = mp.sgd %[[W]], %[[C]] {lr = 1.000000e-01 : f64} : tensor<4x3xf32>
// MASTER:         mp.all_finite %[[U]], %[[NORM]] : tensor<4x3xf32>, tensor<f32>
func.func @step(%w: tensor<4x3xf32> {mp.param}, %b: tensor<4xf32> {mp.param},
                %e: tensor<i64> {mp.state = "lr_scheduler.last_epoch"},
                %x: tensor<2x3xf32>, %y: tensor<2xi64>)
    -> (tensor<f32> {mp.loss}, tensor<4x3xf32> {mp.updates = 0 : i64},
        tensor<4xf32> {mp.updates = 1 : i64}, tensor<i64> {mp.updates = 2 : i64}) {
  %l = mp.linear %x, %w, %b acc(f32) : (tensor<2x3xf32>, tensor<4x3xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  %loss = mp.cross_entropy %l, %y : tensor<2x4xf32>, tensor<2xi64>
  %gw, %gb = mp.grad %loss wrt %w, %b : tensor<f32>, tensor<4x3xf32>, tensor<4xf32>
  %cw, %cb, %norm = mp.clip_grad_norm %gw, %gb max_norm 1.0 : tensor<4x3xf32>, tensor<4xf32>
  %w1 = mp.sgd %w, %cw {lr = 0.1 : f64} : tensor<4x3xf32>
  %b1 = mp.sgd %b, %cb {lr = 0.1 : f64} : tensor<4xf32>
  %one = arith.constant dense<1> : tensor<i64>
  %e1 = arith.addi %e, %one : tensor<i64>
  return %loss, %w1, %b1, %e1 : tensor<f32>, tensor<4x3xf32>, tensor<4xf32>, tensor<i64>
}

func.func @step_f16(%w: tensor<4x3xf16> {mp.param}, %x: tensor<2x3xf16>, %y: tensor<2xi64>)
    -> (tensor<f32> {mp.loss}, tensor<4x3xf16> {mp.updates = 0 : i64}) {
  %l = mp.linear %x, %w acc(f32) : (tensor<2x3xf16>, tensor<4x3xf16>) -> tensor<2x4xf32>
  %loss = mp.cross_entropy %l, %y : tensor<2x4xf32>, tensor<2xi64>
  %g = mp.grad %loss wrt %w : tensor<f32>, tensor<4x3xf16>
  %c, %norm = mp.clip_grad_norm %g max_norm 2.0 norm_type inf : tensor<4x3xf16>
  %w1 = mp.sgd %w, %c {lr = 0.1 : f64} : tensor<4x3xf16>
  return %loss, %w1 : tensor<f32>, tensor<4x3xf16>
}
