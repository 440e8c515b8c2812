// RUN: mp-opt %s -split-input-file -verify-diagnostics

// Negative tests of the losses, optimizer operands and gradient clipping:
// every verifier and type-inference rule of MPTrainingOps.cpp and the new
// rules of MPOps.cpp (learning rate, SGD step, amsgrad state, label
// smoothing).

func.func @cross_entropy_smoothing(%l: tensor<4x10xf32>, %y: tensor<4xi64>) {
  // expected-error @+1 {{'mp.cross_entropy' op label_smoothing must be in [0, 1], got 1.5}}
  %0 = mp.cross_entropy %l, %y {label_smoothing = 1.5 : f64} : tensor<4x10xf32>, tensor<4xi64>
  return
}

// -----

func.func @cross_entropy_grad_smoothing(%dl: tensor<f32>, %l: tensor<4x10xf32>, %y: tensor<4xi64>) {
  // expected-error @+1 {{'mp.cross_entropy_grad' op label_smoothing must be in [0, 1], got -1.000000e-01}}
  %0 = mp.cross_entropy_grad %dl, %l, %y {label_smoothing = -0.1 : f64} : (tensor<f32>, tensor<4x10xf32>, tensor<4xi64>) -> tensor<4x10xf32>
  return
}

// -----

func.func @nll_loss_rank(%x: tensor<4xf32>, %y: tensor<4xi64>) {
  // expected-error @+2 {{'mp.nll_loss' op expects an input of rank >= 2 ([batch, classes, d...]), got 'tensor<4xf32>'}}
  // expected-error @+1 {{'mp.nll_loss' op failed to infer returned types}}
  %0 = mp.nll_loss %x, %y : tensor<4xf32>, tensor<4xi64> -> tensor<f32>
  return
}

// -----

func.func @nll_loss_targets(%x: tensor<4x10xf32>, %y: tensor<5xi64>) {
  // expected-error @+2 {{'mp.nll_loss' op expects targets of shape [4], got 'tensor<5xi64>'}}
  // expected-error @+1 {{'mp.nll_loss' op failed to infer returned types}}
  %0 = mp.nll_loss %x, %y : tensor<4x10xf32>, tensor<5xi64> -> tensor<f32>
  return
}

// -----

// The K-dimensional form: targets [N, d...].
func.func @nll_loss_kdim_targets(%x: tensor<4x10x3xf32>, %y: tensor<4xi64>) {
  // expected-error @+2 {{'mp.nll_loss' op expects targets of shape [4, 3], got 'tensor<4xi64>'}}
  // expected-error @+1 {{'mp.nll_loss' op failed to infer returned types}}
  %0 = mp.nll_loss %x, %y : tensor<4x10x3xf32>, tensor<4xi64> -> tensor<f32>
  return
}

// -----

// reduction none gives one value per sample.
func.func @nll_loss_none_result(%x: tensor<4x10xf32>, %y: tensor<4xi64>) {
  // expected-error @+2 {{'mp.nll_loss' op inferred type(s) 'tensor<4xf32>' are incompatible with return type(s) of operation 'tensor<f32>'}}
  // expected-error @+1 {{'mp.nll_loss' op failed to infer returned types}}
  %0 = mp.nll_loss %x, %y reduction none : tensor<4x10xf32>, tensor<4xi64> -> tensor<f32>
  return
}

// -----

func.func @nll_loss_grad_output(%dl: tensor<f32>, %y: tensor<4xi64>) {
  // expected-error @+1 {{'mp.nll_loss_grad' op expects grad_output of type 'tensor<4xf32>' for reduction none, got 'tensor<f32>'}}
  %0 = mp.nll_loss_grad %dl, %y reduction none : (tensor<f32>, tensor<4xi64>) -> tensor<4x10xf32>
  return
}

// -----

func.func @nll_loss_grad_result(%dl: tensor<f32>, %y: tensor<4xi64>) {
  // expected-error @+1 {{'mp.nll_loss_grad' op expects targets of shape [8], got 'tensor<4xi64>'}}
  %0 = mp.nll_loss_grad %dl, %y : (tensor<f32>, tensor<4xi64>) -> tensor<8x10xf32>
  return
}

// -----

func.func @clip_no_gradients() {
  // expected-error @+1 {{'mp.clip_grad_norm' op expects at least one gradient}}
  %0 = "mp.clip_grad_norm"() {max_norm = 1.0 : f64} : () -> tensor<f32>
  return
}

// -----

func.func @clip_max_norm(%g: tensor<4xf32>) {
  // expected-error @+1 {{'mp.clip_grad_norm' op max_norm must be a finite number >= 0, got -1.000000e+00}}
  %0:2 = mp.clip_grad_norm %g max_norm -1.0 : tensor<4xf32>
  return
}

// -----

func.func @sgd_both_lr(%p: tensor<4xf32>, %g: tensor<4xf32>, %lr: tensor<f32>) {
  // expected-error @+1 {{'mp.sgd' op expects either an lr attribute or an lr operand, got both}}
  %0 = mp.sgd %p, %g lr(%lr : tensor<f32>) {lr = 0.1 : f64} : tensor<4xf32>
  return
}

// -----

func.func @sgd_negative_lr(%p: tensor<4xf32>, %g: tensor<4xf32>) {
  // expected-error @+1 {{'mp.sgd' op lr must be a finite number >= 0.000000e+00, got -1.000000e-01}}
  %0 = mp.sgd %p, %g {lr = -0.1 : f64} : tensor<4xf32>
  return
}

// -----

// The learning-rate operand is a 0-d f32 or f64 tensor.
func.func @sgd_lr_type(%p: tensor<4xf32>, %g: tensor<4xf32>, %lr: tensor<f16>) {
  // expected-error @+1 {{'mp.sgd' op operand #2 must be 0D tensor of 32-bit float or 64-bit float values, but got 'tensor<f16>'}}
  %0 = mp.sgd %p, %g lr(%lr : tensor<f16>) : tensor<4xf32>
  return
}

// -----

func.func @sgd_step_without_momentum(%p: tensor<4xf32>, %g: tensor<4xf32>, %s: tensor<i64>) {
  // expected-error @+1 {{'mp.sgd' op a step operand requires momentum > 0 (it selects the first step's buffer rule)}}
  %0 = mp.sgd %p, %g step(%s : tensor<i64>) {lr = 0.1 : f64} : tensor<4xf32>
  return
}

// -----

func.func @sgd_dampening_without_step(%p: tensor<4xf32>, %g: tensor<4xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{'mp.sgd' op dampening 5.000000e-01 requires a step operand: the first step sets the buffer to the gradient undampened}}
  %0:2 = mp.sgd %p, %g momentum_buffer %b {lr = 0.1 : f64, momentum = 0.9 : f64, dampening = 0.5 : f64} : tensor<4xf32>, tensor<4xf32>
  return
}

// -----

func.func @adam_both_lr(%p: tensor<4xf32>, %g: tensor<4xf32>, %s: tensor<i64>, %lr: tensor<f64>) {
  // expected-error @+1 {{'mp.adam' op expects either an lr attribute or an lr operand, got both}}
  %0:3 = mp.adam %p, %g, %p, %p, %s lr(%lr : tensor<f64>) {lr = 1.0e-3 : f64} : tensor<4xf32>, tensor<i64>
  return
}

// -----

// amsgrad's state has the parameter type (generic form: the custom form
// infers it).
func.func @adamw_amsgrad_type(%p: tensor<4xf32>, %g: tensor<4xf32>, %s: tensor<i64>, %x: tensor<4xf16>) {
  // expected-error @+1 {{'mp.adamw' op failed to verify that max_exp_avg_sq has the parameter type}}
  %0:4 = "mp.adamw"(%p, %g, %p, %p, %s, %x) <{operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 0>}> : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<i64>, tensor<4xf16>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
  return
}

// -----

// amsgrad returns the new max_exp_avg_sq as a fourth result.
func.func @adam_amsgrad_results(%p: tensor<4xf32>, %g: tensor<4xf32>, %s: tensor<i64>) {
  // expected-error @+2 {{'mp.adam' op inferred type(s) 'tensor<4xf32>', 'tensor<4xf32>', 'tensor<4xf32>', 'tensor<4xf32>' are incompatible with return type(s) of operation 'tensor<4xf32>', 'tensor<4xf32>', 'tensor<4xf32>'}}
  // expected-error @+1 {{'mp.adam' op failed to infer returned types}}
  %0:3 = "mp.adam"(%p, %g, %p, %p, %s, %p) <{operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 0>}> : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<i64>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
  return
}
