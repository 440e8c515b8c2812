// convert-mp-to-linalg rejects mp.grad (mp-autodiff expands it first) with
// an error at each such op, before converting anything.
// RUN: mp-opt %s --convert-mp-to-linalg -split-input-file -verify-diagnostics

func.func @grad_left(%w: tensor<4x8xf32> {mp.param}, %x: tensor<2x8xf32>) -> tensor<4x8xf32> {
  %y = mp.linear %x, %w acc(f32) : (tensor<2x8xf32>, tensor<4x8xf32>) -> tensor<2x4xf32>
  %l = mp.reduce_sum %y dims [0, 1] : tensor<2x4xf32>
  // expected-error @+1 {{'mp.grad' op cannot be lowered to linalg: run mp-autodiff first to expand it into explicit backward ops}}
  %g = mp.grad %l wrt %w : tensor<f32>, tensor<4x8xf32>
  return %g : tensor<4x8xf32>
}

// -----

// Every mp.grad is reported.
func.func @two_grads(%w: tensor<4xf32>, %v: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %l = mp.reduce_sum %w dims [0] : tensor<4xf32>
  // expected-error @+1 {{run mp-autodiff first}}
  %g = mp.grad %l wrt %w : tensor<f32>, tensor<4xf32>
  %m = mp.reduce_sum %v dims [0] : tensor<4xf32>
  // expected-error @+1 {{run mp-autodiff first}}
  %h = mp.grad %m wrt %v : tensor<f32>, tensor<4xf32>
  return %g, %h : tensor<4xf32>, tensor<4xf32>
}
