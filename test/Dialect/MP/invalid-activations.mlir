// RUN: mp-opt %s -split-input-file -verify-diagnostics

// Negative tests of select, compare, clamp, leaky_relu and their gradients
// (MPActivationOps.td), and of the shape ops on integer tensors: every
// verifier and type-inference rule of those sections of
// lib/Dialect/MP/IR/MPOps.cpp, plus the ODS element-type constraints.

// -----

// select: the values share one element type.
func.func @case0(%c: tensor<4xi1>, %x: tensor<4xf32>, %y: tensor<4xf16>) {
  // expected-error @+1 {{'mp.select' op expects true_value and false_value of one element type, got 'f32' and 'f16'}}
  %0 = mp.select %c, %x, %y : tensor<4xi1>, tensor<4xf32>, tensor<4xf16>
  return
}

// -----

// select: the three operands broadcast.
func.func @case1(%c: tensor<3xi1>, %x: tensor<4xf32>, %y: tensor<4xf32>) {
  // expected-error @+1 {{'mp.select' op shape [4] of true_value does not broadcast with [3]}}
  %0 = mp.select %c, %x, %y : tensor<3xi1>, tensor<4xf32>, tensor<4xf32>
  return
}

// -----

// select: the false value broadcasts too.
func.func @case2(%c: tensor<2x4xi1>, %x: tensor<4xf32>, %y: tensor<3x1xf32>) {
  // expected-error @+1 {{'mp.select' op shape [3, 1] of false_value does not broadcast with [2, 4]}}
  %0 = mp.select %c, %x, %y : tensor<2x4xi1>, tensor<4xf32>, tensor<3x1xf32>
  return
}

// -----

// select: the condition is i1 (ODS).
func.func @case3(%c: tensor<4xi32>, %x: tensor<4xf32>) {
  // expected-error @+1 {{'mp.select' op operand #0 must be statically shaped tensor of 1-bit signless integer values}}
  %0 = mp.select %c, %x, %x : tensor<4xi32>, tensor<4xf32>, tensor<4xf32>
  return
}

// -----

// compare: the operands share one element type.
func.func @case4(%x: tensor<4xf32>, %i: tensor<4xi64>) {
  // expected-error @+1 {{'mp.compare' op expects operands of one element type, got 'f32' and 'i64'}}
  %0 = mp.compare lt, %x, %i : tensor<4xf32>, tensor<4xi64>
  return
}

// -----

// compare: the operands broadcast.
func.func @case5(%x: tensor<4xf32>, %y: tensor<3xf32>) {
  // expected-error @+1 {{'mp.compare' op operand shapes [4] and [3] do not broadcast}}
  %0 = mp.compare ge, %x, %y : tensor<4xf32>, tensor<3xf32>
  return
}

// -----

// compare: the predicate is one of eq, ne, lt, le, gt, ge.
func.func @case6(%x: tensor<4xf32>) {
  // expected-error @+2 {{expected ::mlir::mp::ComparePredicate to be one of: eq, ne, lt, le, gt, ge}}
  // expected-error @+1 {{failed to parse MP_ComparePredicateAttr parameter 'value'}}
  %0 = mp.compare approx, %x, %x : tensor<4xf32>, tensor<4xf32>
  return
}

// -----

// clamp: at least one bound.
func.func @case7(%x: tensor<4xf32>) {
  // expected-error @+1 {{'mp.clamp' op expects at least one of min and max}}
  %0 = mp.clamp %x : tensor<4xf32>
  return
}

// -----

// clamp: bounds are not NaN.
func.func @case8(%x: tensor<4xf32>) {
  // expected-error @+1 {{'mp.clamp' op max must not be NaN}}
  %0 = mp.clamp %x min 0.0 max 0x7FF8000000000000 : tensor<4xf32>
  return
}

// -----

// clamp: hardtanh needs both bounds.
func.func @case9(%x: tensor<4xf32>) {
  // expected-error @+1 {{'mp.clamp' op hardtanh requires both min and max}}
  %0 = mp.clamp %x min 0.0 hardtanh : tensor<4xf32>
  return
}

// -----

// clamp: hardtanh needs min <= max.
func.func @case10(%x: tensor<4xf32>) {
  // expected-error @+1 {{'mp.clamp' op hardtanh requires min <= max, got min 2.000000e+00 and max 1.000000e+00}}
  %0 = mp.clamp %x min 2.0 max 1.0 hardtanh : tensor<4xf32>
  return
}

// -----

// clamp_grad: the same bound rules.
func.func @case11(%dy: tensor<4xf32>, %x: tensor<4xf32>) {
  // expected-error @+1 {{'mp.clamp_grad' op min must not be NaN}}
  %0 = mp.clamp_grad %dy, %x min 0x7FF8000000000000 : tensor<4xf32>
  return
}

// -----

// leaky_relu: the slope is finite.
func.func @case12(%x: tensor<4xf32>) {
  // expected-error @+1 {{'mp.leaky_relu' op negative_slope must be finite, got INF}}
  %0 = mp.leaky_relu %x negative_slope 0x7FF0000000000000 : tensor<4xf32>
  return
}

// -----

// leaky_relu_grad: the slope is finite.
func.func @case13(%dy: tensor<4xf32>, %x: tensor<4xf32>) {
  // expected-error @+1 {{'mp.leaky_relu_grad' op negative_slope must be finite, got -INF}}
  %0 = mp.leaky_relu_grad %dy, %x negative_slope 0xFFF0000000000000 : tensor<4xf32>
  return
}

// -----

// reshape: integer tensors keep their element type.
func.func @case14(%l: tensor<2x8xi64>) {
  // expected-error @+1 {{'mp.reshape' op expects the result element type 'i64', got 'i32'}}
  %0 = mp.reshape %l : tensor<2x8xi64> to tensor<16xi32>
  return
}

// -----

// concat: integer inputs share one element type.
func.func @case15(%a: tensor<4xi64>, %b: tensor<4xi32>) {
  // expected-error @+1 {{'mp.concat' op expects inputs of one element type, got 'i64' and 'i32'}}
  %0 = mp.concat %a, %b dim 0 : tensor<4xi64>, tensor<4xi32>
  return
}

// -----

// broadcast: integer tensors keep their element type.
func.func @case16(%m: tensor<4xi1>) {
  // expected-error @+1 {{'mp.broadcast' op expects the result element type 'i1', got 'i32'}}
  %0 = mp.broadcast %m : tensor<4xi1> to tensor<2x4xi32>
  return
}

// -----

// Shape ops accept no other integer type (ODS).
func.func @case17(%x: tensor<4xi8>) {
  // expected-error @+1 {{'mp.transpose' op operand #0 must be statically shaped tensor of}}
  %0 = mp.transpose %x perm [0] : tensor<4xi8>
  return
}
