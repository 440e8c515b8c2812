// The ops of MPTrainingOps.td and the new operands and attributes of the
// losses and optimizers round-trip: custom form, generic form, and
// print -> parse -> print is a fixed point.
// RUN: mp-opt %s | mp-opt | FileCheck %s
// RUN: mp-opt %s -mlir-print-op-generic | mp-opt | FileCheck %s
// RUN: mp-opt %s -mlir-print-op-generic | mp-opt -mlir-print-op-generic > %t.generic
// RUN: mp-opt %t.generic -mlir-print-op-generic | diff %t.generic -
// RUN: mp-opt %s > %t.1 && mp-opt %t.1 > %t.2 && diff %t.1 %t.2

// CHECK-LABEL: func.func @losses(
func.func @losses(%logits: tensor<8x10xf32>, %labels: tensor<8xi64>, %h: tensor<8x10xbf16>, %t32: tensor<8xi32>, %dl: tensor<f32>, %dn: tensor<8xf32>) {
  // CHECK: mp.cross_entropy %{{.*}}, %{{.*}} : tensor<8x10xf32>, tensor<8xi64>
  %0 = mp.cross_entropy %logits, %labels : tensor<8x10xf32>, tensor<8xi64>
  // CHECK: mp.cross_entropy %{{.*}}, %{{.*}} {ignore_index = 0 : i64, label_smoothing = 1.000000e-01 : f64} : tensor<8x10xf32>, tensor<8xi64>
  %1 = mp.cross_entropy %logits, %labels {ignore_index = 0 : i64, label_smoothing = 0.1 : f64} : tensor<8x10xf32>, tensor<8xi64>
  // CHECK: mp.cross_entropy_grad %{{.*}}, %{{.*}}, %{{.*}} {label_smoothing = 2.000000e-01 : f64} : (tensor<f32>, tensor<8x10xf32>, tensor<8xi64>) -> tensor<8x10xf32>
  %2 = mp.cross_entropy_grad %dl, %logits, %labels {label_smoothing = 0.2 : f64} : (tensor<f32>, tensor<8x10xf32>, tensor<8xi64>) -> tensor<8x10xf32>
  // CHECK: mp.nll_loss %{{.*}}, %{{.*}} : tensor<8x10xbf16>, tensor<8xi32> -> tensor<bf16>
  %3 = mp.nll_loss %h, %t32 : tensor<8x10xbf16>, tensor<8xi32> -> tensor<bf16>
  // CHECK: mp.nll_loss %{{.*}}, %{{.*}} reduction sum : tensor<8x10xf32>, tensor<8xi64> -> tensor<f32>
  %4 = mp.nll_loss %logits, %labels reduction sum : tensor<8x10xf32>, tensor<8xi64> -> tensor<f32>
  // CHECK: mp.nll_loss %{{.*}}, %{{.*}} reduction none {ignore_index = 3 : i64} : tensor<8x10xf32>, tensor<8xi64> -> tensor<8xf32>
  %5 = mp.nll_loss %logits, %labels reduction none {ignore_index = 3 : i64} : tensor<8x10xf32>, tensor<8xi64> -> tensor<8xf32>
  // CHECK: mp.nll_loss_grad %{{.*}}, %{{.*}} : (tensor<f32>, tensor<8xi64>) -> tensor<8x10xf32>
  %6 = mp.nll_loss_grad %dl, %labels : (tensor<f32>, tensor<8xi64>) -> tensor<8x10xf32>
  // CHECK: mp.nll_loss_grad %{{.*}}, %{{.*}} reduction none : (tensor<8xf32>, tensor<8xi64>) -> tensor<8x10xf32>
  %7 = mp.nll_loss_grad %dn, %labels reduction none : (tensor<8xf32>, tensor<8xi64>) -> tensor<8x10xf32>
  return
}

// CHECK-LABEL: func.func @clip(
func.func @clip(%a: tensor<4x8xf32>, %b: tensor<8xf16>) {
  // CHECK: %{{.*}}:2, %{{.*}} = mp.clip_grad_norm %{{.*}}, %{{.*}} max_norm 1.000000e+00 : tensor<4x8xf32>, tensor<8xf16>
  %0:3 = mp.clip_grad_norm %a, %b max_norm 1.0 : tensor<4x8xf32>, tensor<8xf16>
  // CHECK: mp.clip_grad_norm %{{.*}} max_norm 5.000000e-01 norm_type inf : tensor<8xf16>
  %1:2 = mp.clip_grad_norm %b max_norm 0.5 norm_type inf : tensor<8xf16>
  return
}

// CHECK-LABEL: func.func @optimizers(
func.func @optimizers(%p: tensor<16xf32>, %g: tensor<16xf32>, %b: tensor<16xf32>, %s: tensor<i64>, %s32: tensor<i32>, %lr: tensor<f32>, %lr64: tensor<f64>) {
  // CHECK: mp.sgd %{{.*}}, %{{.*}} momentum_buffer %{{.*}} step(%{{.*}} : tensor<i64>) {dampening = 5.000000e-01 : f64, lr = 1.000000e-01 : f64, maximize, momentum = 9.000000e-01 : f64} : tensor<16xf32>, tensor<16xf32>
  %0:2 = mp.sgd %p, %g momentum_buffer %b step(%s : tensor<i64>) {lr = 0.1 : f64, momentum = 0.9 : f64, dampening = 0.5 : f64, maximize} : tensor<16xf32>, tensor<16xf32>
  // CHECK: mp.sgd %{{.*}}, %{{.*}} lr(%{{.*}} : tensor<f32>) : tensor<16xf32>
  %1 = mp.sgd %p, %g lr(%lr : tensor<f32>) : tensor<16xf32>
  // CHECK: mp.sgd %{{.*}}, %{{.*}} momentum_buffer %{{.*}} step(%{{.*}} : tensor<i32>) lr(%{{.*}} : tensor<f64>) {momentum = 9.000000e-01 : f64, nesterov} : tensor<16xf32>, tensor<16xf32>
  %2:2 = mp.sgd %p, %g momentum_buffer %b step(%s32 : tensor<i32>) lr(%lr64 : tensor<f64>) {momentum = 0.9 : f64, nesterov} : tensor<16xf32>, tensor<16xf32>
  // CHECK: mp.adam %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} amsgrad %{{.*}} lr(%{{.*}} : tensor<f64>) {maximize} : tensor<16xf32>, tensor<i64>
  %3:4 = mp.adam %p, %g, %b, %b, %s amsgrad %b lr(%lr64 : tensor<f64>) {maximize} : tensor<16xf32>, tensor<i64>
  // CHECK: mp.adamw %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} lr(%{{.*}} : tensor<f32>) : tensor<16xf32>, tensor<i64>
  %4:3 = mp.adamw %p, %g, %b, %b, %s lr(%lr : tensor<f32>) : tensor<16xf32>, tensor<i64>
  // CHECK: mp.adamw %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} amsgrad %{{.*}} {lr = 2.000000e-03 : f64} : tensor<16xf32>, tensor<i64>
  %5:4 = mp.adamw %p, %g, %b, %b, %s amsgrad %b {lr = 2.0e-3 : f64} : tensor<16xf32>, tensor<i64>
  return
}
