// A train step referenced from the module it is compiled in: with the delayed
// recipe mp-fp8-scaling threads an amax history and a scale per FP8 tensor
// through the signature, which a caller cannot supply, so each reference is
// an error (the pass used to leave a `func.call` that no longer verified).
// The current recipe keeps the signature, so the call stays valid.
// RUN: mp-opt %s -verify-diagnostics --pass-pipeline='builtin.module(func.func(mp-autodiff),mp-fp8-scaling{include-first-last=true})'
// RUN: mp-opt %s --pass-pipeline='builtin.module(func.func(mp-autodiff),mp-fp8-scaling{include-first-last=true recipe=current})' | FileCheck %s --check-prefix=CURRENT

// expected-note @+1 {{type changed from}}
func.func @step(%w: tensor<4x3xf32> {mp.param}, %x: tensor<2x3xf32>, %y: tensor<2xi64>)
    -> (tensor<f32> {mp.loss}, tensor<4x3xf32> {mp.updates = 0 : i64}) {
  %l = mp.linear %x, %w acc(f32) : (tensor<2x3xf32>, tensor<4x3xf32>) -> tensor<2x4xf32>
  %loss = mp.cross_entropy %l, %y : tensor<2x4xf32>, tensor<2xi64>
  %g = mp.grad %loss wrt %w : tensor<f32>, tensor<4x3xf32>
  %w1 = mp.sgd %w, %g {lr = 0.1 : f64} : tensor<4x3xf32>
  return %loss, %w1 : tensor<f32>, tensor<4x3xf32>
}

func.func @main(%w: tensor<4x3xf32>, %x: tensor<2x3xf32>, %y: tensor<2xi64>) -> tensor<f32> {
  // expected-error @+1 {{'func.call' op refers to @step, whose signature mp-fp8-scaling changes: a train step cannot be called from the module it is compiled in (write its caller after the pass)}}
  %l, %w1 = func.call @step(%w, %x, %y) : (tensor<4x3xf32>, tensor<2x3xf32>, tensor<2xi64>) -> (tensor<f32>, tensor<4x3xf32>)
  return %l : tensor<f32>
}

// CURRENT-LABEL: func.func @step
// CURRENT-SAME: -> (tensor<f32> {mp.loss}, tensor<4x3xf32> {mp.updates = 0 : i64})
// CURRENT: mp.cast %{{.*}} saturate : tensor<2x3xf32> to tensor<2x3xf8E4M3FN>
// CURRENT-LABEL: func.func @main
// CURRENT: call @step(%{{.*}}, %{{.*}}, %{{.*}}) : (tensor<4x3xf32>, tensor<2x3xf32>, tensor<2xi64>) -> (tensor<f32>, tensor<4x3xf32>)
