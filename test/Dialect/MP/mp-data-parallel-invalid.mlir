// RUN: mp-opt %s -split-input-file -verify-diagnostics --mp-data-parallel='grid-size=2'
// RUN: not mp-opt %s -split-input-file --mp-data-parallel='reduce-type=f8E4M3FN' 2>&1 | FileCheck %s --check-prefix=TYPE
// RUN: not mp-opt %s -split-input-file --mp-data-parallel='grid-size=-1' 2>&1 | FileCheck %s --check-prefix=SIZE

// TYPE: error: mp-data-parallel: reduce-type must be f32, bf16 or f16, got 'f8E4M3FN'
// SIZE: error: mp-data-parallel: grid-size must be >= 0 (0: set by the runtime), got -1

// A train step whose mp.grad is already expanded (after mp-autodiff).
// expected-error @+1 {{mp-data-parallel expects the train step's gradients as mp.grad results (run it before mp-autodiff)}}
func.func @expanded(%w: tensor<4xf32> {mp.param})
    -> (tensor<f32> {mp.loss}, tensor<4xf32> {mp.updates = 0 : i64}) {
  %loss = mp.reduce_sum %w dims [0] : tensor<4xf32>
  %one = arith.constant dense<1.0> : tensor<4xf32>
  %w1 = mp.sgd %w, %one {lr = 0.1 : f64} : tensor<4xf32>
  return %loss, %w1 : tensor<f32>, tensor<4xf32>
}

// -----

func.func @two_grads(%w: tensor<4xf32> {mp.param})
    -> (tensor<f32> {mp.loss}, tensor<4xf32> {mp.updates = 0 : i64}) {
  %loss = mp.reduce_sum %w dims [0] : tensor<4xf32>
  %g = mp.grad %loss wrt %w : tensor<f32>, tensor<4xf32>
  // expected-error @+1 {{mp-data-parallel expects one mp.grad per function, found 2}}
  %h = mp.grad %loss wrt %w : tensor<f32>, tensor<4xf32>
  %s = mp.add %g, %h : tensor<4xf32>, tensor<4xf32>
  %w1 = mp.sgd %w, %s {lr = 0.1 : f64} : tensor<4xf32>
  return %loss, %w1 : tensor<f32>, tensor<4xf32>
}

// -----

func.func @nested(%w: tensor<4xf32> {mp.param})
    -> (tensor<f32> {mp.loss}, tensor<4xf32> {mp.updates = 0 : i64}) {
  %loss = mp.reduce_sum %w dims [0] : tensor<4xf32>
  %g = scf.execute_region -> tensor<4xf32> {
    // expected-error @+1 {{mp-data-parallel expects mp.grad directly in the body of a single-block function ending in func.return}}
    %h = mp.grad %loss wrt %w : tensor<f32>, tensor<4xf32>
    scf.yield %h : tensor<4xf32>
  }
  %w1 = mp.sgd %w, %g {lr = 0.1 : f64} : tensor<4xf32>
  return %loss, %w1 : tensor<f32>, tensor<4xf32>
}

// -----

// The grid's symbol is taken.
// expected-error @+1 {{mp-data-parallel: symbol '@mp_data_parallel' must be a 1-D shard.grid of shape 2}}
func.func private @mp_data_parallel()

func.func @step(%w: tensor<4xf32> {mp.param})
    -> (tensor<f32> {mp.loss}, tensor<4xf32> {mp.updates = 0 : i64}) {
  %loss = mp.reduce_sum %w dims [0] : tensor<4xf32>
  %g = mp.grad %loss wrt %w : tensor<f32>, tensor<4xf32>
  %w1 = mp.sgd %w, %g {lr = 0.1 : f64} : tensor<4xf32>
  return %loss, %w1 : tensor<f32>, tensor<4xf32>
}

// -----

// A grid of another size.
// expected-error @+1 {{mp-data-parallel: symbol '@mp_data_parallel' must be a 1-D shard.grid of shape 2}}
shard.grid @mp_data_parallel(shape = 3)

func.func @step(%w: tensor<4xf32> {mp.param})
    -> (tensor<f32> {mp.loss}, tensor<4xf32> {mp.updates = 0 : i64}) {
  %loss = mp.reduce_sum %w dims [0] : tensor<4xf32>
  %g = mp.grad %loss wrt %w : tensor<f32>, tensor<4xf32>
  %w1 = mp.sgd %w, %g {lr = 0.1 : f64} : tensor<4xf32>
  return %loss, %w1 : tensor<f32>, tensor<4xf32>
}
