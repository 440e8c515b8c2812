// RUN: mp-opt %s -split-input-file -verify-diagnostics

// Negative tests of mp.batch_norm and mp.batch_norm_grad: one case per
// verifier rule (lib/Dialect/MP/IR/MPOps.cpp, checkBatchNorm) and the ODS
// constraints on the statistics.

func.func @rank(%x: tensor<8x4x5xf32>, %rm: tensor<4xf32>, %rv: tensor<4xf32>, %n: tensor<i64>) {
  // expected-error @+1 {{'mp.batch_norm' op expects an input of rank 2 ([N, C]) or 4 ([N, C, H, W]), got rank 3}}
  %y:4 = mp.batch_norm %x stats(%rm, %rv, %n) training : (tensor<8x4x5xf32>, tensor<4xf32>, tensor<4xf32>, tensor<i64>) -> (tensor<8x4x5xf32>, tensor<4xf32>, tensor<4xf32>, tensor<i64>)
  return
}

// -----

func.func @weight_shape(%x: tensor<8x4xf32>, %g: tensor<5xf32>, %rm: tensor<4xf32>, %rv: tensor<4xf32>, %n: tensor<i64>) {
  // expected-error @+1 {{'mp.batch_norm' op expects weight of shape [4] and element type 'f32' or f32, got 'tensor<5xf32>'}}
  %y:4 = mp.batch_norm %x weight %g stats(%rm, %rv, %n) training : (tensor<8x4xf32>, tensor<5xf32>, tensor<4xf32>, tensor<4xf32>, tensor<i64>) -> (tensor<8x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<i64>)
  return
}

// -----

func.func @bias_type(%x: tensor<8x4xf16>, %b: tensor<4xbf16>, %rm: tensor<4xf32>, %rv: tensor<4xf32>, %n: tensor<i64>) {
  // expected-error @+1 {{'mp.batch_norm' op expects bias of shape [4] and element type 'f16' or f32, got 'tensor<4xbf16>'}}
  %y:4 = mp.batch_norm %x bias %b stats(%rm, %rv, %n) training : (tensor<8x4xf16>, tensor<4xbf16>, tensor<4xf32>, tensor<4xf32>, tensor<i64>) -> (tensor<8x4xf16>, tensor<4xf32>, tensor<4xf32>, tensor<i64>)
  return
}

// -----

func.func @running_mean_shape(%x: tensor<8x4xf32>, %rm: tensor<3xf32>, %rv: tensor<4xf32>, %n: tensor<i64>) {
  // expected-error @+1 {{'mp.batch_norm' op expects running_mean of type 'tensor<4xf32>' (one f32 statistic per channel), got 'tensor<3xf32>'}}
  %y:4 = mp.batch_norm %x stats(%rm, %rv, %n) training : (tensor<8x4xf32>, tensor<3xf32>, tensor<4xf32>, tensor<i64>) -> (tensor<8x4xf32>, tensor<3xf32>, tensor<4xf32>, tensor<i64>)
  return
}

// -----

func.func @running_var_type(%x: tensor<8x4xf16>, %rm: tensor<4xf32>, %rv: tensor<4xf16>, %n: tensor<i64>) {
  // expected-error @+1 {{'mp.batch_norm' op operand #2 must be 1D tensor of 32-bit float values, but got 'tensor<4xf16>'}}
  %y:4 = mp.batch_norm %x stats(%rm, %rv, %n) training : (tensor<8x4xf16>, tensor<4xf32>, tensor<4xf16>, tensor<i64>) -> (tensor<8x4xf16>, tensor<4xf32>, tensor<4xf16>, tensor<i64>)
  return
}

// -----

func.func @count_type(%x: tensor<8x4xf32>, %rm: tensor<4xf32>, %rv: tensor<4xf32>, %n: tensor<i32>) {
  // expected-error @+1 {{'mp.batch_norm' op operand #3 must be 0D tensor of 64-bit signless integer values, but got 'tensor<i32>'}}
  %y:4 = mp.batch_norm %x stats(%rm, %rv, %n) training : (tensor<8x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<i32>) -> (tensor<8x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<i32>)
  return
}

// -----

func.func @eps(%x: tensor<8x4xf32>, %rm: tensor<4xf32>, %rv: tensor<4xf32>, %n: tensor<i64>) {
  // expected-error @+1 {{'mp.batch_norm' op eps must be a finite number >= 0.000000e+00, got -1.000000e+00}}
  %y:4 = mp.batch_norm %x stats(%rm, %rv, %n) training eps -1.0 : (tensor<8x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<i64>) -> (tensor<8x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<i64>)
  return
}

// -----

func.func @one_value(%x: tensor<1x4x1x1xf32>, %rm: tensor<4xf32>, %rv: tensor<4xf32>, %n: tensor<i64>) {
  // expected-error @+1 {{'mp.batch_norm' op expects more than 1 value per channel in training mode, got input shape [1, 4, 1, 1]}}
  %y:4 = mp.batch_norm %x stats(%rm, %rv, %n) training : (tensor<1x4x1x1xf32>, tensor<4xf32>, tensor<4xf32>, tensor<i64>) -> (tensor<1x4x1x1xf32>, tensor<4xf32>, tensor<4xf32>, tensor<i64>)
  return
}

// -----

// Eval mode normalises with the running statistics: one value is fine.
func.func @one_value_eval(%x: tensor<1x4x1x1xf32>, %rm: tensor<4xf32>, %rv: tensor<4xf32>, %n: tensor<i64>) {
  %y:4 = mp.batch_norm %x stats(%rm, %rv, %n) eval : (tensor<1x4x1x1xf32>, tensor<4xf32>, tensor<4xf32>, tensor<i64>) -> (tensor<1x4x1x1xf32>, tensor<4xf32>, tensor<4xf32>, tensor<i64>)
  return
}

// -----

func.func @momentum(%x: tensor<8x4xf32>, %rm: tensor<4xf32>, %rv: tensor<4xf32>, %n: tensor<i64>) {
  // expected-error @+1 {{'mp.batch_norm' op momentum must be in [0, 1], got 1.500000e+00}}
  %y:4 = mp.batch_norm %x stats(%rm, %rv, %n) training momentum 1.5 : (tensor<8x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<i64>) -> (tensor<8x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<i64>)
  return
}

// -----

func.func @cumulative_momentum(%x: tensor<8x4xf32>, %rm: tensor<4xf32>, %rv: tensor<4xf32>, %n: tensor<i64>) {
  // expected-error @+1 {{'mp.batch_norm' op cumulative_average (PyTorch's momentum=None) replaces momentum; got momentum 2.000000e-01}}
  %y:4 = mp.batch_norm %x stats(%rm, %rv, %n) training momentum 0.2 cumulative_average : (tensor<8x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<i64>) -> (tensor<8x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<i64>)
  return
}

// -----

func.func @result_type(%x: tensor<8x4xf32>, %rm: tensor<4xf32>, %rv: tensor<4xf32>, %n: tensor<i64>) {
  // expected-error @+2 {{'mp.batch_norm' op inferred type(s) 'tensor<8x4xf32>', 'tensor<4xf32>', 'tensor<4xf32>', 'tensor<i64>' are incompatible with return type(s) of operation 'tensor<8x4xf16>', 'tensor<4xf32>', 'tensor<4xf32>', 'tensor<i64>'}}
  // expected-error @+1 {{'mp.batch_norm' op failed to infer returned types}}
  %y:4 = mp.batch_norm %x stats(%rm, %rv, %n) training : (tensor<8x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<i64>) -> (tensor<8x4xf16>, tensor<4xf32>, tensor<4xf32>, tensor<i64>)
  return
}

// -----

func.func @grad_weight_grad(%dy: tensor<8x4xf32>, %x: tensor<8x4xf32>, %rm: tensor<4xf32>, %rv: tensor<4xf32>) {
  // expected-error @+1 {{'mp.batch_norm_grad' op expects weight_grad of shape [4] and element type 'f32' or f32, got 'tensor<8xf32>'}}
  %g:3 = mp.batch_norm_grad %dy, %x stats(%rm, %rv) training : (tensor<8x4xf32>, tensor<8x4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<8x4xf32>, tensor<8xf32>, tensor<4xf32>)
  return
}

// -----

func.func @grad_bias_grad(%dy: tensor<8x4xf16>, %x: tensor<8x4xf16>, %rm: tensor<4xf32>, %rv: tensor<4xf32>) {
  // expected-error @+1 {{'mp.batch_norm_grad' op expects bias_grad of shape [4] and element type 'f16' or f32, got 'tensor<4xbf16>'}}
  %g:3 = mp.batch_norm_grad %dy, %x stats(%rm, %rv) training : (tensor<8x4xf16>, tensor<8x4xf16>, tensor<4xf32>, tensor<4xf32>) -> (tensor<8x4xf16>, tensor<4xf16>, tensor<4xbf16>)
  return
}

// -----

func.func @grad_rank(%dy: tensor<8xf32>, %x: tensor<8xf32>, %rm: tensor<4xf32>, %rv: tensor<4xf32>) {
  // expected-error @+1 {{'mp.batch_norm_grad' op expects an input of rank 2 ([N, C]) or 4 ([N, C, H, W]), got rank 1}}
  %g:3 = mp.batch_norm_grad %dy, %x stats(%rm, %rv) eval : (tensor<8xf32>, tensor<8xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<8xf32>, tensor<4xf32>, tensor<4xf32>)
  return
}

// -----

func.func @grad_one_value(%dy: tensor<1x4xf32>, %x: tensor<1x4xf32>, %rm: tensor<4xf32>, %rv: tensor<4xf32>) {
  // expected-error @+1 {{'mp.batch_norm_grad' op expects more than 1 value per channel in training mode, got input shape [1, 4]}}
  %g:3 = mp.batch_norm_grad %dy, %x stats(%rm, %rv) training : (tensor<1x4xf32>, tensor<1x4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<1x4xf32>, tensor<4xf32>, tensor<4xf32>)
  return
}

// -----

func.func @grad_running_var(%dy: tensor<8x4xf32>, %x: tensor<8x4xf32>, %rm: tensor<4xf32>, %rv: tensor<5xf32>) {
  // expected-error @+1 {{'mp.batch_norm_grad' op expects running_var of type 'tensor<4xf32>' (one f32 statistic per channel), got 'tensor<5xf32>'}}
  %g:3 = mp.batch_norm_grad %dy, %x stats(%rm, %rv) eval : (tensor<8x4xf32>, tensor<8x4xf32>, tensor<4xf32>, tensor<5xf32>) -> (tensor<8x4xf32>, tensor<4xf32>, tensor<4xf32>)
  return
}
