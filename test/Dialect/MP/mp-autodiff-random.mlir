// mp-autodiff through the random ops: dropout's backward is mp.dropout_grad
// of the output gradient with the SAME state operand and p as the forward
// (the mask is regenerated, no mask tensor is kept); the random samplers
// have no float operands, so they are constants of differentiation.
// RUN: mp-opt %s -mp-autodiff -split-input-file -verify-diagnostics | FileCheck %s

// CHECK-LABEL: func.func @dropout_then_uniform
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<4x8xf32>, %[[W:[a-z0-9]+]]: tensor<8x8xf32>, %[[S:[a-z0-9]+]]: tensor<2xi64>)
// CHECK:      %[[H:.*]] = mp.matmul %[[X]], %[[W]] acc(f32)
// CHECK-NEXT: %[[D:[a-z_0-9]+]], %[[S1:[a-z_0-9]+]] = mp.dropout %[[H]], %[[S]] p(2.500000e-01) : tensor<4x8xf32>
// CHECK-NEXT: %[[R:[a-z_0-9]+]], %[[S2:[a-z_0-9]+]] = mp.random_uniform %[[S1]] : tensor<4x8xf32>
// CHECK-NEXT: mp.mul %[[D]], %[[R]]
// CHECK:      %[[DM:.*]] = mp.mul %{{.*}}, %[[R]] : tensor<4x8xf32>, tensor<4x8xf32>
// CHECK-NEXT: %[[DH:.*]] = mp.dropout_grad %[[DM]], %[[S]] p(2.500000e-01) : tensor<4x8xf32>
// CHECK-NEXT: %[[DW:.*]] = mp.matmul %[[X]], %[[DH]] transpose_lhs acc(f32)
// CHECK-NEXT: return %[[DW]], %[[S2]]
func.func @dropout_then_uniform(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>, %s: tensor<2xi64>)
    -> (tensor<8x8xf32>, tensor<2xi64>) {
  %h = mp.matmul %x, %w acc(f32) : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  %d, %s1 = mp.dropout %h, %s p(0.25) : tensor<4x8xf32>
  %r, %s2 = mp.random_uniform %s1 : tensor<4x8xf32>
  %m = mp.mul %d, %r : tensor<4x8xf32>, tensor<4x8xf32>
  %l = mp.reduce_sum %m dims [0, 1] : tensor<4x8xf32>
  %dw = mp.grad %l wrt %w : tensor<f32>, tensor<8x8xf32>
  return %dw, %s2 : tensor<8x8xf32>, tensor<2xi64>
}

// -----

// Two dropouts in a row: each backward uses its own forward's input state,
// in reverse order; bf16 stays bf16.
// CHECK-LABEL: func.func @two_dropouts
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<16xbf16>, %[[S:[a-z0-9]+]]: tensor<2xi64>)
// CHECK:      %[[A:[a-z_0-9]+]], %[[S1:[a-z_0-9]+]] = mp.dropout %[[X]], %[[S]] p(1.000000e-01) : tensor<16xbf16>
// CHECK-NEXT: %[[B:[a-z_0-9]+]], %[[S2:[a-z_0-9]+]] = mp.dropout %[[A]], %[[S1]] p(5.000000e-01) : tensor<16xbf16>
// CHECK:      %[[DA:.*]] = mp.dropout_grad %{{.*}}, %[[S1]] p(5.000000e-01) : tensor<16xbf16>
// CHECK-NEXT: %[[DX:.*]] = mp.dropout_grad %[[DA]], %[[S]] p(1.000000e-01) : tensor<16xbf16>
// CHECK-NEXT: return %[[DX]], %[[S2]]
func.func @two_dropouts(%x: tensor<16xbf16>, %s: tensor<2xi64>) -> (tensor<16xbf16>, tensor<2xi64>) {
  %a, %s1 = mp.dropout %x, %s p(0.1) : tensor<16xbf16>
  %b, %s2 = mp.dropout %a, %s1 p(0.5) : tensor<16xbf16>
  %l = mp.reduce_sum %b dims [0] : tensor<16xbf16>
  %dx = mp.grad %l wrt %x : tensor<bf16>, tensor<16xbf16>
  return %dx, %s2 : tensor<16xbf16>, tensor<2xi64>
}

// -----

// A sample is a constant of differentiation: d(w·n)/dw = n.
// CHECK-LABEL: func.func @sample_is_constant
// CHECK:      %[[N:[a-z_0-9]+]], %{{.*}} = mp.random_normal
// CHECK:      %[[SEED:.*]] = mp.broadcast
// CHECK-NEXT: %[[DW:.*]] = mp.mul %[[SEED]], %[[N]] : tensor<8xf32>, tensor<8xf32>
// CHECK-NEXT: return %[[DW]]
func.func @sample_is_constant(%w: tensor<8xf32>, %s: tensor<2xi64>) -> tensor<8xf32> {
  %n, %s1 = mp.random_normal %s : tensor<8xf32>
  %y = mp.mul %w, %n : tensor<8xf32>, tensor<8xf32>
  %l = mp.reduce_sum %y dims [0] : tensor<8xf32>
  %dw = mp.grad %l wrt %w : tensor<f32>, tensor<8xf32>
  return %dw : tensor<8xf32>
}
