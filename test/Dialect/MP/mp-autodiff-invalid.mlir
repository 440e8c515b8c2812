// mp-autodiff errors: ops without a gradient on the path to the loss,
// second-order differentiation, ops with regions, FP8 contractions, values
// defined outside the block of mp.grad.
// RUN: mp-opt %s -mp-autodiff -split-input-file -verify-diagnostics
// On an error the function is left as it was: no backward op remains.
// RUN: not mp-opt %s -mp-autodiff -split-input-file --mlir-print-ir-after-failure 2>&1 | FileCheck %s --check-prefix=ROLLBACK

func.func @other_dialect(%w: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{op 'arith.addf' has no gradient}}
  %y = arith.addf %w, %w : tensor<4xf32>
  %l = mp.reduce_sum %y dims [0] : tensor<4xf32>
  // expected-note @+1 {{on the path from a differentiated value to the loss of this mp.grad}}
  %dw = mp.grad %l wrt %w : tensor<f32>, tensor<4xf32>
  return %dw : tensor<4xf32>
}

// -----

func.func @backward_op(%w: tensor<4xf32>, %x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{op 'mp.relu_grad' has no gradient: mp-autodiff differentiates forward ops, not backward, gradient or optimizer ops (second-order differentiation is not supported)}}
  %y = mp.relu_grad %w, %x : tensor<4xf32>
  %l = mp.reduce_sum %y dims [0] : tensor<4xf32>
  // expected-note @+1 {{on the path}}
  %dw = mp.grad %l wrt %w : tensor<f32>, tensor<4xf32>
  return %dw : tensor<4xf32>
}

// -----

func.func @second_order(%w: tensor<4xf32>) -> tensor<4xf32> {
  %e = mp.exp %w : tensor<4xf32>
  %l = mp.reduce_sum %e dims [0] : tensor<4xf32>
  // expected-error @+1 {{op 'mp.grad' has no gradient}}
  %g = mp.grad %l wrt %w : tensor<f32>, tensor<4xf32>
  %l2 = mp.reduce_sum %g dims [0] : tensor<4xf32>
  // expected-note @+1 {{on the path}}
  %gg = mp.grad %l2 wrt %w : tensor<f32>, tensor<4xf32>
  return %gg : tensor<4xf32>
}

// -----

func.func @region_op(%w: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{op 'scf.execute_region' has no gradient: mp-autodiff does not differentiate through ops with regions}}
  %y = scf.execute_region -> tensor<4xf32> {
    %e = mp.exp %w : tensor<4xf32>
    scf.yield %e : tensor<4xf32>
  }
  %l = mp.reduce_sum %y dims [0] : tensor<4xf32>
  // expected-note @+1 {{on the path}}
  %dw = mp.grad %l wrt %w : tensor<f32>, tensor<4xf32>
  return %dw : tensor<4xf32>
}

// -----

// The backward of the reduction was built before the matmul failed: it is
// removed again.
// ROLLBACK-LABEL: func.func @fp8_matmul
// ROLLBACK-NEXT:  mp.cast
// ROLLBACK-NEXT:  mp.matmul
// ROLLBACK-NEXT:  mp.reduce_sum
// ROLLBACK-NEXT:  mp.grad
// ROLLBACK-NEXT:  return
func.func @fp8_matmul(%x: tensor<16x16xf8E4M3FN>, %w: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %w8 = mp.cast %w : tensor<16x16xf32> to tensor<16x16xf8E4M3FN>
  // expected-error @+1 {{'mp.matmul' op has no gradient for operands of type 'f8E4M3FN': mp-autodiff differentiates f32, f16 and bf16 contractions}}
  %y = mp.matmul %x, %w8 acc(f32) : tensor<16x16xf8E4M3FN>, tensor<16x16xf8E4M3FN> -> tensor<16x16xf32>
  %l = mp.reduce_sum %y dims [0, 1] : tensor<16x16xf32>
  %dw = mp.grad %l wrt %w : tensor<f32>, tensor<16x16xf32>
  return %dw : tensor<16x16xf32>
}

// -----

func.func @value_outside_block(%w: tensor<4xf32>) -> tensor<4xf32> {
  %r = scf.execute_region -> tensor<4xf32> {
    %e = mp.exp %w : tensor<4xf32>
    %l = mp.reduce_sum %e dims [0] : tensor<4xf32>
    // expected-error @+1 {{'mp.grad' op value #0 is not defined in the block of this op before it: mp-autodiff differentiates with respect to arguments of the block or results of earlier ops in it}}
    %dw = mp.grad %l wrt %w : tensor<f32>, tensor<4xf32>
    scf.yield %dw : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}
