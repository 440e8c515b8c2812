// RUN: mp-opt %s -split-input-file -verify-diagnostics

// Negative tests of the random ops (lib/Dialect/MP/IR/MPRandomOps.cpp) and of
// the rng state argument (lib/Dialect/MP/IR/MPDialect.cpp): one case per rule.

// dropout: p must be in [0, 1).
func.func @dropout_p_one(%x: tensor<4xf32>, %s: tensor<2xi64>) {
  // expected-error @+1 {{'mp.dropout' op expects the dropout probability p in [0, 1), got 1.000000e+00}}
  %y, %s1 = mp.dropout %x, %s p(1.0) : tensor<4xf32>
  return
}

// -----

func.func @dropout_p_negative(%x: tensor<4xf32>, %s: tensor<2xi64>) {
  // expected-error @+1 {{'mp.dropout' op expects the dropout probability p in [0, 1), got -1.000000e-01}}
  %y, %s1 = mp.dropout %x, %s p(-0.1) : tensor<4xf32>
  return
}

// -----

// dropout: the state is tensor<2xi64> (generic form).
func.func @dropout_state_shape(%x: tensor<4xf32>, %s: tensor<3xi64>) {
  // expected-error @+1 {{'mp.dropout' op expects the rng state to be tensor<2xi64> ([seed, offset]), got 'tensor<3xi64>'}}
  %y, %s1 = "mp.dropout"(%x, %s) {p = 0.5 : f64} : (tensor<4xf32>, tensor<3xi64>) -> (tensor<4xf32>, tensor<3xi64>)
  return
}

// -----

// dropout: the state must be i64 (ODS constraint).
func.func @dropout_state_type(%x: tensor<4xf32>, %s: tensor<2xi32>) {
  // expected-error @+1 {{'mp.dropout' op operand #1 must be 1D tensor of 64-bit signless integer values}}
  %y, %s1 = "mp.dropout"(%x, %s) {p = 0.5 : f64} : (tensor<4xf32>, tensor<2xi32>) -> (tensor<4xf32>, tensor<2xi32>)
  return
}

// -----

// dropout: f32, f16 or bf16 (not FP8).
func.func @dropout_fp8(%x: tensor<4xf8E4M3FN>, %s: tensor<2xi64>) {
  // expected-error @+1 {{'mp.dropout' op expects input of element type f32, f16 or bf16, got 'f8E4M3FN'}}
  %y, %s1 = mp.dropout %x, %s p(0.5) : tensor<4xf8E4M3FN>
  return
}

// -----

// dropout: the result has the input's type.
func.func @dropout_result_type(%x: tensor<4xf32>, %s: tensor<2xi64>) {
  // expected-error @+1 {{'mp.dropout' op failed to verify that all of {input, result} have same type}}
  %y, %s1 = "mp.dropout"(%x, %s) {p = 0.5 : f64} : (tensor<4xf32>, tensor<2xi64>) -> (tensor<8xf32>, tensor<2xi64>)
  return
}

// -----

func.func @dropout_grad_p(%dy: tensor<4xf32>, %s: tensor<2xi64>) {
  // expected-error @+1 {{'mp.dropout_grad' op expects the dropout probability p in [0, 1), got 2.000000e+00}}
  %dx = mp.dropout_grad %dy, %s p(2.0) : tensor<4xf32>
  return
}

// -----

func.func @dropout_grad_state(%dy: tensor<4xf32>, %s: tensor<4xi64>) {
  // expected-error @+1 {{'mp.dropout_grad' op expects the rng state to be tensor<2xi64> ([seed, offset]), got 'tensor<4xi64>'}}
  %dx = "mp.dropout_grad"(%dy, %s) {p = 0.5 : f64} : (tensor<4xf32>, tensor<4xi64>) -> tensor<4xf32>
  return
}

// -----

func.func @dropout_grad_fp8(%dy: tensor<4xf8E5M2>, %s: tensor<2xi64>) {
  // expected-error @+1 {{'mp.dropout_grad' op expects grad_output of element type f32, f16 or bf16, got 'f8E5M2'}}
  %dx = mp.dropout_grad %dy, %s p(0.5) : tensor<4xf8E5M2>
  return
}

// -----

func.func @uniform_range(%s: tensor<2xi64>) {
  // expected-error @+1 {{'mp.random_uniform' op expects low < high, got low = 1.000000e+00 and high = 1.000000e+00}}
  %u, %s1 = mp.random_uniform %s low(1.0) high(1.0) : tensor<4xf32>
  return
}

// -----

func.func @uniform_finite(%s: tensor<2xi64>) {
  // expected-error @+1 {{'mp.random_uniform' op expects finite low and high, got 0.000000e+00 and INF}}
  %u, %s1 = mp.random_uniform %s high(0x7FF0000000000000) : tensor<4xf32>
  return
}

// -----

func.func @uniform_state(%s: tensor<2x1xi64>) {
  // expected-error @+1 {{'mp.random_uniform' op operand #0 must be 1D tensor of 64-bit signless integer values}}
  %u, %s1 = "mp.random_uniform"(%s) : (tensor<2x1xi64>) -> (tensor<4xf32>, tensor<2x1xi64>)
  return
}

// -----

// Samples are f32, f16 or bf16.
func.func @uniform_fp8(%s: tensor<2xi64>) {
  // expected-error @+1 {{'mp.random_uniform' op result #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type values}}
  %u, %s1 = mp.random_uniform %s : tensor<4xf8E4M3FN>
  return
}

// -----

func.func @normal_std(%s: tensor<2xi64>) {
  // expected-error @+1 {{'mp.random_normal' op expects std >= 0, got -1.000000e+00}}
  %n, %s1 = mp.random_normal %s std(-1.0) : tensor<4xf32>
  return
}

// -----

func.func @normal_finite(%s: tensor<2xi64>) {
  // expected-error @+1 {{'mp.random_normal' op expects finite mean and std, got nan and 1.000000e+00}}
  %n, %s1 = mp.random_normal %s mean(0x7FF8000000000000) : tensor<4xf32>
  return
}

// -----

func.func @normal_state(%s: tensor<5xi64>) {
  // expected-error @+1 {{'mp.random_normal' op expects the rng state to be tensor<2xi64> ([seed, offset]), got 'tensor<5xi64>'}}
  %n, %s1 = "mp.random_normal"(%s) : (tensor<5xi64>) -> (tensor<4xf32>, tensor<5xi64>)
  return
}

// -----

func.func @bits_state(%s: tensor<1xi64>) {
  // expected-error @+1 {{'mp.random_bits' op expects the rng state to be tensor<2xi64> ([seed, offset]), got 'tensor<1xi64>'}}
  %b, %s1 = "mp.random_bits"(%s) : (tensor<1xi64>) -> (tensor<4xi32>, tensor<1xi64>)
  return
}

// -----

func.func @bits_type(%s: tensor<2xi64>) {
  // expected-error @+1 {{'mp.random_bits' op result #0 must be statically shaped tensor of 32-bit signless integer values}}
  %b, %s1 = mp.random_bits %s : tensor<4xi64>
  return
}

// -----

// An rng state argument is tensor<2xi64>.
// expected-error @+1 {{'mp.state' = "rng" on argument 0 requires tensor<2xi64> ([seed, offset]), got 'tensor<2xi32>'}}
func.func @rng_state_argument_type(%s: tensor<2xi32> {mp.state = "rng"}) {
  return
}

// -----

// Its mp.init holds both words, not a splat.
// expected-error @+1 {{'mp.init' of the rng state argument 0 must be dense<[seed, offset]> : tensor<2xi64>, got a scalar}}
func.func @rng_state_scalar_init(%s: tensor<2xi64> {mp.state = "rng", mp.init = 7 : i64}) {
  return
}
