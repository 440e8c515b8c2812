// The op verifier rejects an mp.grad whose loss is not a 0-d float tensor;
// mp-autodiff must report it too (not crash) on IR that skipped the verifier.
// RUN: mp-opt %s --mlir-very-unsafe-disable-verifier-on-parsing -mp-autodiff -split-input-file -verify-diagnostics

func.func @loss_not_0d(%w: tensor<4xf32>) -> tensor<4xf32> {
  %e = mp.exp %w : tensor<4xf32>
  // expected-error @+1 {{'mp.grad' op expects a 0-d float loss, got 'tensor<4xf32>'}}
  %g = "mp.grad"(%e, %w) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %g : tensor<4xf32>
}

// -----

func.func @loss_not_float(%w: tensor<4xf32>, %n: tensor<i32>) -> tensor<4xf32> {
  // expected-error @+1 {{'mp.grad' op expects a 0-d float loss, got 'tensor<i32>'}}
  %g = "mp.grad"(%n, %w) : (tensor<i32>, tensor<4xf32>) -> tensor<4xf32>
  return %g : tensor<4xf32>
}
