// RUN: mp-opt %s -split-input-file -verify-diagnostics --mp-mixed-precision-pipeline
// RUN: not mp-opt %s -split-input-file --mp-mixed-precision-pipeline="compute-type=f8" 2>&1 | FileCheck %s --check-prefix=OPTION
// An unknown option or a value that does not parse is an error of the
// pipeline parser (it used to be a line on stderr only).
// RUN: not mp-opt %s --pass-pipeline='builtin.module(mp-mixed-precision-pipeline{bogus=1})' 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not mp-opt %s --pass-pipeline='builtin.module(mp-mixed-precision-pipeline{growth-interval=often})' 2>&1 | FileCheck %s --check-prefix=VALUE
// UNKNOWN: error: <Pass-Options-Parser>: no such option bogus
// VALUE: error: invalid value in the options `growth-interval=often` of mp-mixed-precision-pipeline

// Train steps mp-mixed-precision-pipeline does not support: the pass that
// cannot handle the IR reports it at the op and the pipeline stops (no
// crash, no partly rewritten module printed).

// OPTION: error:

func.func @two_grads(%w: tensor<4xf32> {mp.param}, %t: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %loss = mp.mse %w, %t : tensor<4xf32>
  %g0 = mp.grad %loss wrt %w : tensor<f32>, tensor<4xf32>
  // expected-error @+1 {{mp-loss-scaling expects one mp.grad per function, found 2}}
  %g1 = mp.grad %loss wrt %w : tensor<f32>, tensor<4xf32>
  return %g0, %g1 : tensor<4xf32>, tensor<4xf32>
}

// -----

func.func @no_gradient(%w: tensor<4xf32> {mp.param}, %t: tensor<4xf32>) -> (tensor<f32> {mp.loss}, tensor<4xf32> {mp.updates = 0 : i64}) {
  // expected-error @+1 {{op 'arith.addf' has no gradient}}
  %y = arith.addf %w, %t : tensor<4xf32>
  %loss = mp.mse %y, %t : tensor<4xf32>
  // expected-note @+1 {{on the path from a differentiated value to the loss of this mp.grad}}
  %g = mp.grad %loss wrt %w : tensor<f32>, tensor<4xf32>
  %w1 = mp.sgd %w, %g {lr = 0.1 : f64} : tensor<4xf32>
  return %loss, %w1 : tensor<f32>, tensor<4xf32>
}
