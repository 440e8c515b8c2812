// A train step referenced from the module it is compiled in: mp-loss-scaling
// adds the loss-scale state and the `mp.skipped` flag to its signature, which
// a caller cannot supply, so each reference is an error (the pass used to
// leave a `func.call` that no longer verified). A caller is written after the
// pass. Functions whose signature does not change may be called.
// RUN: mp-opt %s -split-input-file -verify-diagnostics --mp-loss-scaling
// RUN: mp-opt %s -split-input-file -verify-diagnostics --mp-loss-scaling=mode=static
// RUN: mp-opt %s -split-input-file -verify-diagnostics --mp-mixed-precision-pipeline
// Static scaling without skipping keeps the signature: the call stays valid.
// RUN: mp-opt %s -split-input-file --mp-loss-scaling="mode=static skip-nonfinite=false" | FileCheck %s --check-prefix=KEEP

// expected-note @+1 {{type changed from}}
func.func @step(%w: tensor<4xf32> {mp.param}, %t: tensor<4xf32>)
    -> (tensor<f32> {mp.loss}, tensor<4xf32> {mp.updates = 0 : i64}) {
  %loss = mp.mse %w, %t : tensor<4xf32>
  %g = mp.grad %loss wrt %w : tensor<f32>, tensor<4xf32>
  %w1 = mp.sgd %w, %g {lr = 0.1 : f64} : tensor<4xf32>
  return %loss, %w1 : tensor<f32>, tensor<4xf32>
}

func.func @main(%w: tensor<4xf32>, %t: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error-re @+1 {{'func.call' op refers to @step, whose signature mp-{{loss-scaling|master-weights}} changes: a train step cannot be called from the module it is compiled in (write its caller after the pass)}}
  %loss, %w1 = func.call @step(%w, %t) : (tensor<4xf32>, tensor<4xf32>) -> (tensor<f32>, tensor<4xf32>)
  return %w1 : tensor<4xf32>
}

// KEEP-LABEL: func.func @step
// KEEP-SAME: -> (tensor<f32> {mp.loss}, tensor<4xf32> {mp.updates = 0 : i64})
// KEEP-SAME: attributes {mp.loss_scaling = "static"}
// KEEP-LABEL: func.func @main
// KEEP: call @step(%{{.*}}, %{{.*}}) : (tensor<4xf32>, tensor<4xf32>) -> (tensor<f32>, tensor<4xf32>)

// -----

// Every reference is reported, not only calls, and every train step.

// expected-note @+1 {{type changed from '(tensor<4xf32>, tensor<4xf32>) -> (tensor<f32>, tensor<4xf32>)' to}}
func.func private @step_a(%w: tensor<4xf32> {mp.param}, %t: tensor<4xf32>)
    -> (tensor<f32> {mp.loss}, tensor<4xf32> {mp.updates = 0 : i64}) {
  %loss = mp.mse %w, %t : tensor<4xf32>
  %g = mp.grad %loss wrt %w : tensor<f32>, tensor<4xf32>
  %w1 = mp.sgd %w, %g {lr = 0.1 : f64} : tensor<4xf32>
  return %loss, %w1 : tensor<f32>, tensor<4xf32>
}

// expected-note @+1 {{type changed from}}
func.func private @step_b(%w: tensor<4xf32> {mp.param}, %t: tensor<4xf32>)
    -> (tensor<f32> {mp.loss}, tensor<4xf32> {mp.updates = 0 : i64}) {
  %loss = mp.mse %w, %t : tensor<4xf32>
  %g = mp.grad %loss wrt %w : tensor<f32>, tensor<4xf32>
  %w1 = mp.sgd %w, %g {lr = 0.1 : f64} : tensor<4xf32>
  return %loss, %w1 : tensor<f32>, tensor<4xf32>
}

func.func @refer() -> ((tensor<4xf32>, tensor<4xf32>) -> (tensor<f32>, tensor<4xf32>)) {
  // expected-error @+1 {{'func.constant' op refers to @step_a}}
  %f = func.constant @step_a : (tensor<4xf32>, tensor<4xf32>) -> (tensor<f32>, tensor<4xf32>)
  return %f : (tensor<4xf32>, tensor<4xf32>) -> (tensor<f32>, tensor<4xf32>)
}

func.func @twice(%w: tensor<4xf32>, %t: tensor<4xf32>) {
  // expected-error @+1 {{'func.call' op refers to @step_b}}
  %l0, %w0 = func.call @step_b(%w, %t) : (tensor<4xf32>, tensor<4xf32>) -> (tensor<f32>, tensor<4xf32>)
  // expected-error @+1 {{'func.call' op refers to @step_b}}
  %l1, %w1 = func.call @step_b(%w0, %t) : (tensor<4xf32>, tensor<4xf32>) -> (tensor<f32>, tensor<4xf32>)
  return
}

// KEEP-LABEL: func.func private @step_a
// KEEP: constant @step_a

// -----

// A train step may call other functions, and functions the pass leaves alone
// may be called from anywhere.

func.func private @normalise(%t: tensor<4xf32>) -> tensor<4xf32> {
  %n = mp.tanh %t : tensor<4xf32>
  return %n : tensor<4xf32>
}

func.func @step_calling(%w: tensor<4xf32> {mp.param}, %t: tensor<4xf32>)
    -> (tensor<f32> {mp.loss}, tensor<4xf32> {mp.updates = 0 : i64}) {
  %n = func.call @normalise(%t) : (tensor<4xf32>) -> tensor<4xf32>
  %loss = mp.mse %w, %n : tensor<4xf32>
  %g = mp.grad %loss wrt %w : tensor<f32>, tensor<4xf32>
  %w1 = mp.sgd %w, %g {lr = 0.1 : f64} : tensor<4xf32>
  return %loss, %w1 : tensor<f32>, tensor<4xf32>
}

func.func @main(%t: tensor<4xf32>) -> tensor<4xf32> {
  %n = func.call @normalise(%t) : (tensor<4xf32>) -> tensor<4xf32>
  return %n : tensor<4xf32>
}

// KEEP-LABEL: func.func @step_calling
// KEEP: call @normalise
// KEEP-LABEL: func.func @main
// KEEP: call @normalise
