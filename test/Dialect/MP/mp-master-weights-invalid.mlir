// RUN: mp-opt %s -split-input-file -verify-diagnostics --mp-master-weights
// RUN: not mp-opt %s --mp-master-weights=style=eager 2>&1 | FileCheck %s --check-prefix=STYLE
// RUN: not mp-opt %s --mp-master-weights=master-type=f16 2>&1 | FileCheck %s --check-prefix=TYPE
// STYLE: error: mp-master-weights: style must be 'cast-per-step' or 'stored-copy', got 'eager'
// TYPE: error: mp-master-weights: master-type must be 'f32', got 'f16'

func.func @state_not_an_argument(%w: tensor<4xf16> {mp.param}, %t: tensor<4xf16>) -> tensor<4xf16> {
  %loss = mp.mse %w, %t : tensor<4xf16>
  %g = mp.grad %loss wrt %w : tensor<f16>, tensor<4xf16>
  // expected-error @+1 {{mp-master-weights expects the optimizer's parameter and state to be function arguments}}
  %w1, %b1 = mp.sgd %w, %g momentum_buffer %g {lr = 0.1 : f64, momentum = 0.9 : f64} : tensor<4xf16>, tensor<4xf16>
  return %w1 : tensor<4xf16>
}
