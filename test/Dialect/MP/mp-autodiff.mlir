// mp-autodiff: the exact backward ops of every differentiable op family, the
// types they run in, accumulation, zero gradients with their warnings, and
// several mp.grad ops.
// RUN: mp-opt %s -mp-autodiff -split-input-file -verify-diagnostics | FileCheck %s
// No mp.grad survives, and the result verifies and round-trips.
// RUN: mp-opt %s -mp-autodiff -split-input-file -verify-diagnostics | mp-opt -split-input-file | FileCheck %s --check-prefix=NOGRAD
// NOGRAD-NOT: mp.grad
// NOGRAD: func.func @no_grad
// Running the pass again changes nothing (no mp.grad is left to expand).
// RUN: mp-opt %s -mp-autodiff -mp-autodiff -split-input-file -verify-diagnostics | FileCheck %s

// The seed is 1.0 in the loss type; reduce_sum's adjoint broadcasts it back.
// C = A·B: dA = dC·Bᵀ, dB = Aᵀ·dC, with transpose flags.
// CHECK-LABEL: func.func @matmul
// CHECK-SAME: (%[[A:.*]]: tensor<8x4xf32>, %[[B:.*]]: tensor<4x2xf32>)
// CHECK:      %[[Y:.*]] = mp.matmul %[[A]], %[[B]] acc(f32)
// CHECK-NEXT: mp.reduce_sum %[[Y]] dims [0, 1]
// CHECK-NEXT: %[[SEED:.*]] = arith.constant dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[R:.*]] = mp.reshape %[[SEED]] : tensor<f32> to tensor<1x1xf32>
// CHECK-NEXT: %[[DY:.*]] = mp.broadcast %[[R]] : tensor<1x1xf32> to tensor<8x2xf32>
// CHECK-NEXT: %[[DA:.*]] = mp.matmul %[[DY]], %[[B]] transpose_rhs acc(f32) : tensor<8x2xf32>, tensor<4x2xf32> -> tensor<8x4xf32>
// CHECK-NEXT: %[[DB:.*]] = mp.matmul %[[A]], %[[DY]] transpose_lhs acc(f32) : tensor<8x4xf32>, tensor<8x2xf32> -> tensor<4x2xf32>
// CHECK-NEXT: return %[[DA]], %[[DB]]
func.func @matmul(%a: tensor<8x4xf32>, %b: tensor<4x2xf32>) -> (tensor<8x4xf32>, tensor<4x2xf32>) {
  %y = mp.matmul %a, %b acc(f32) : tensor<8x4xf32>, tensor<4x2xf32> -> tensor<8x2xf32>
  %l = mp.reduce_sum %y dims [0, 1] : tensor<8x2xf32>
  %da, %db = mp.grad %l wrt %a, %b : tensor<f32>, tensor<8x4xf32>, tensor<4x2xf32>
  return %da, %db : tensor<8x4xf32>, tensor<4x2xf32>
}

// -----

// C = Aᵀ·B: dA = B·dCᵀ, dB = A·dC.
// CHECK-LABEL: func.func @matmul_transpose_lhs
// CHECK-SAME: (%[[A:.*]]: tensor<4x8xf32>, %[[B:.*]]: tensor<4x2xf32>)
// CHECK:      %[[DY:.*]] = mp.broadcast
// CHECK-NEXT: %[[DA:.*]] = mp.matmul %[[B]], %[[DY]] transpose_rhs acc(f32) : tensor<4x2xf32>, tensor<8x2xf32> -> tensor<4x8xf32>
// CHECK-NEXT: %[[DB:.*]] = mp.matmul %[[A]], %[[DY]] acc(f32) : tensor<4x8xf32>, tensor<8x2xf32> -> tensor<4x2xf32>
// CHECK-NEXT: return %[[DA]], %[[DB]]
func.func @matmul_transpose_lhs(%a: tensor<4x8xf32>, %b: tensor<4x2xf32>) -> (tensor<4x8xf32>, tensor<4x2xf32>) {
  %y = mp.matmul %a, %b transpose_lhs acc(f32) : tensor<4x8xf32>, tensor<4x2xf32> -> tensor<8x2xf32>
  %l = mp.reduce_sum %y dims [0, 1] : tensor<8x2xf32>
  %da, %db = mp.grad %l wrt %a, %b : tensor<f32>, tensor<4x8xf32>, tensor<4x2xf32>
  return %da, %db : tensor<4x8xf32>, tensor<4x2xf32>
}

// -----

// C = A·Bᵀ: dA = dC·B, dB = dCᵀ·A; the compute mode carries over.
// CHECK-LABEL: func.func @matmul_transpose_rhs_tf32
// CHECK-SAME: (%[[A:.*]]: tensor<8x4xf32>, %[[B:.*]]: tensor<2x4xf32>)
// CHECK:      %[[DY:.*]] = mp.broadcast
// CHECK-NEXT: %[[DA:.*]] = mp.matmul %[[DY]], %[[B]] acc(f32) compute tf32 : tensor<8x2xf32>, tensor<2x4xf32> -> tensor<8x4xf32>
// CHECK-NEXT: %[[DB:.*]] = mp.matmul %[[DY]], %[[A]] transpose_lhs acc(f32) compute tf32 : tensor<8x2xf32>, tensor<8x4xf32> -> tensor<2x4xf32>
// CHECK-NEXT: return %[[DA]], %[[DB]]
func.func @matmul_transpose_rhs_tf32(%a: tensor<8x4xf32>, %b: tensor<2x4xf32>) -> (tensor<8x4xf32>, tensor<2x4xf32>) {
  %y = mp.matmul %a, %b transpose_rhs acc(f32) compute tf32 : tensor<8x4xf32>, tensor<2x4xf32> -> tensor<8x2xf32>
  %l = mp.reduce_sum %y dims [0, 1] : tensor<8x2xf32>
  %da, %db = mp.grad %l wrt %a, %b : tensor<f32>, tensor<8x4xf32>, tensor<2x4xf32>
  return %da, %db : tensor<8x4xf32>, tensor<2x4xf32>
}

// -----

// C = Aᵀ·Bᵀ: dA = Bᵀ·dCᵀ, dB = dCᵀ·Aᵀ.
// CHECK-LABEL: func.func @matmul_transpose_both
// CHECK-SAME: (%[[A:.*]]: tensor<4x8xf32>, %[[B:.*]]: tensor<2x4xf32>)
// CHECK:      %[[DY:.*]] = mp.broadcast
// CHECK-NEXT: %[[DA:.*]] = mp.matmul %[[B]], %[[DY]] transpose_lhs transpose_rhs acc(f32) : tensor<2x4xf32>, tensor<8x2xf32> -> tensor<4x8xf32>
// CHECK-NEXT: %[[DB:.*]] = mp.matmul %[[DY]], %[[A]] transpose_lhs transpose_rhs acc(f32) : tensor<8x2xf32>, tensor<4x8xf32> -> tensor<2x4xf32>
// CHECK-NEXT: return %[[DA]], %[[DB]]
func.func @matmul_transpose_both(%a: tensor<4x8xf32>, %b: tensor<2x4xf32>) -> (tensor<4x8xf32>, tensor<2x4xf32>) {
  %y = mp.matmul %a, %b transpose_lhs transpose_rhs acc(f32) : tensor<4x8xf32>, tensor<2x4xf32> -> tensor<8x2xf32>
  %l = mp.reduce_sum %y dims [0, 1] : tensor<8x2xf32>
  %da, %db = mp.grad %l wrt %a, %b : tensor<f32>, tensor<4x8xf32>, tensor<2x4xf32>
  return %da, %db : tensor<4x8xf32>, tensor<2x4xf32>
}

// -----

// Autocast-style AMP: f32 parameter, f16 forward matmul accumulating in f32.
// The backward matmul is f16 with acc(f32); the gradient is cast back to f32;
// no backward is built for the batch data %x; reduce_mean scales by 1/16.
// CHECK-LABEL: func.func @amp_matmul
// CHECK-SAME: (%[[X:.*]]: tensor<8x4xf32>, %[[W:.*]]: tensor<2x4xf32> {mp.param})
// CHECK:      %[[XH:.*]] = mp.cast %[[X]] : tensor<8x4xf32> to tensor<8x4xf16>
// CHECK-NEXT: %[[WH:.*]] = mp.cast %[[W]] : tensor<2x4xf32> to tensor<2x4xf16>
// CHECK-NEXT: %[[Y:.*]] = mp.matmul %[[XH]], %[[WH]] transpose_rhs acc(f32)
// CHECK-NEXT: %[[YF:.*]] = mp.cast %[[Y]] : tensor<8x2xf16> to tensor<8x2xf32>
// CHECK-NEXT: %[[L:.*]] = mp.reduce_mean %[[YF]] dims [0, 1]
// CHECK-NEXT: %[[SEED:.*]] = arith.constant dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[N:.*]] = arith.constant dense<6.250000e-02> : tensor<f32>
// CHECK-NEXT: %[[S:.*]] = mp.scale %[[SEED]] by %[[N]] : tensor<f32>
// CHECK-NEXT: %[[R:.*]] = mp.reshape %[[S]] : tensor<f32> to tensor<1x1xf32>
// CHECK-NEXT: %[[DYF:.*]] = mp.broadcast %[[R]] : tensor<1x1xf32> to tensor<8x2xf32>
// CHECK-NEXT: %[[DY:.*]] = mp.cast %[[DYF]] : tensor<8x2xf32> to tensor<8x2xf16>
// CHECK-NEXT: %[[DWH:.*]] = mp.matmul %[[DY]], %[[XH]] transpose_lhs acc(f32) : tensor<8x2xf16>, tensor<8x4xf16> -> tensor<2x4xf16>
// CHECK-NEXT: %[[DW:.*]] = mp.cast %[[DWH]] : tensor<2x4xf16> to tensor<2x4xf32>
// CHECK-NEXT: return %[[L]], %[[DW]] : tensor<f32>, tensor<2x4xf32>
func.func @amp_matmul(%x: tensor<8x4xf32>, %w: tensor<2x4xf32> {mp.param}) -> (tensor<f32>, tensor<2x4xf32>) {
  %xh = mp.cast %x : tensor<8x4xf32> to tensor<8x4xf16>
  %wh = mp.cast %w : tensor<2x4xf32> to tensor<2x4xf16>
  %y = mp.matmul %xh, %wh transpose_rhs acc(f32) : tensor<8x4xf16>, tensor<2x4xf16> -> tensor<8x2xf16>
  %yf = mp.cast %y : tensor<8x2xf16> to tensor<8x2xf32>
  %l = mp.reduce_mean %yf dims [0, 1] : tensor<8x2xf32>
  %dw = mp.grad %l wrt %w : tensor<f32>, tensor<2x4xf32>
  return %l, %dw : tensor<f32>, tensor<2x4xf32>
}

// -----

// f16 operands with an f32 result: the result adjoint is cast to f16 first,
// so the backward runs in the operands' precision.
// CHECK-LABEL: func.func @matmul_f16_operands_f32_result
// CHECK-SAME: (%[[A:.*]]: tensor<8x4xf16>, %[[B:.*]]: tensor<4x2xf16>)
// CHECK:      %[[DYF:.*]] = mp.broadcast {{.*}} to tensor<8x2xf32>
// CHECK-NEXT: %[[DY:.*]] = mp.cast %[[DYF]] : tensor<8x2xf32> to tensor<8x2xf16>
// CHECK-NEXT: %[[DB:.*]] = mp.matmul %[[A]], %[[DY]] transpose_lhs acc(f32) : tensor<8x4xf16>, tensor<8x2xf16> -> tensor<4x2xf16>
// CHECK-NEXT: return %[[DB]]
func.func @matmul_f16_operands_f32_result(%a: tensor<8x4xf16>, %b: tensor<4x2xf16>) -> tensor<4x2xf16> {
  %y = mp.matmul %a, %b acc(f32) : tensor<8x4xf16>, tensor<4x2xf16> -> tensor<8x2xf32>
  %l = mp.reduce_sum %y dims [0, 1] : tensor<8x2xf32>
  %db = mp.grad %l wrt %b : tensor<f32>, tensor<4x2xf16>
  return %db : tensor<4x2xf16>
}

// -----

// CHECK-LABEL: func.func @batch_matmul_bf16
// CHECK-SAME: (%[[A:.*]]: tensor<3x8x4xbf16>, %[[B:.*]]: tensor<3x2x4xbf16>)
// CHECK:      %[[SEED:.*]] = arith.constant dense<1.000000e+00> : tensor<bf16>
// CHECK-NEXT: %[[R:.*]] = mp.reshape %[[SEED]] : tensor<bf16> to tensor<1x1x1xbf16>
// CHECK-NEXT: %[[DY:.*]] = mp.broadcast %[[R]] : tensor<1x1x1xbf16> to tensor<3x8x2xbf16>
// CHECK-NEXT: %[[DA:.*]] = mp.batch_matmul %[[DY]], %[[B]] acc(f32) : tensor<3x8x2xbf16>, tensor<3x2x4xbf16> -> tensor<3x8x4xbf16>
// CHECK-NEXT: %[[DB:.*]] = mp.batch_matmul %[[DY]], %[[A]] transpose_lhs acc(f32) : tensor<3x8x2xbf16>, tensor<3x8x4xbf16> -> tensor<3x2x4xbf16>
// CHECK-NEXT: return %[[DA]], %[[DB]]
func.func @batch_matmul_bf16(%a: tensor<3x8x4xbf16>, %b: tensor<3x2x4xbf16>) -> (tensor<3x8x4xbf16>, tensor<3x2x4xbf16>) {
  %y = mp.batch_matmul %a, %b transpose_rhs acc(f32) : tensor<3x8x4xbf16>, tensor<3x2x4xbf16> -> tensor<3x8x2xbf16>
  %l = mp.reduce_sum %y dims [0, 1, 2] : tensor<3x8x2xbf16>
  %da, %db = mp.grad %l wrt %a, %b : tensor<bf16>, tensor<3x8x4xbf16>, tensor<3x2x4xbf16>
  return %da, %db : tensor<3x8x4xbf16>, tensor<3x2x4xbf16>
}

// -----

// linear on [2, 3, 4]: leading dimensions flattened to 6 rows;
// dx = dy·W, dW = dyᵀ·x, db = Σ dy over the leading dimensions.
// CHECK-LABEL: func.func @linear_rank3
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>, %[[W:.*]]: tensor<5x4xf32>, %[[B:.*]]: tensor<5xf32>)
// CHECK:      %[[DY:.*]] = mp.broadcast {{.*}} to tensor<2x3x5xf32>
// CHECK-NEXT: %[[DY2:.*]] = mp.reshape %[[DY]] : tensor<2x3x5xf32> to tensor<6x5xf32>
// CHECK-NEXT: %[[DX2:.*]] = mp.matmul %[[DY2]], %[[W]] acc(f32) : tensor<6x5xf32>, tensor<5x4xf32> -> tensor<6x4xf32>
// CHECK-NEXT: %[[DX:.*]] = mp.reshape %[[DX2]] : tensor<6x4xf32> to tensor<2x3x4xf32>
// CHECK-NEXT: %[[X2:.*]] = mp.reshape %[[X]] : tensor<2x3x4xf32> to tensor<6x4xf32>
// CHECK-NEXT: %[[DW:.*]] = mp.matmul %[[DY2]], %[[X2]] transpose_lhs acc(f32) : tensor<6x5xf32>, tensor<6x4xf32> -> tensor<5x4xf32>
// CHECK-NEXT: %[[DB:.*]] = mp.reduce_sum %[[DY]] dims [0, 1] : tensor<2x3x5xf32>
// CHECK-NEXT: return %[[DX]], %[[DW]], %[[DB]]
func.func @linear_rank3(%x: tensor<2x3x4xf32>, %w: tensor<5x4xf32>, %b: tensor<5xf32>) -> (tensor<2x3x4xf32>, tensor<5x4xf32>, tensor<5xf32>) {
  %y = mp.linear %x, %w, %b acc(f32) : (tensor<2x3x4xf32>, tensor<5x4xf32>, tensor<5xf32>) -> tensor<2x3x5xf32>
  %l = mp.reduce_sum %y dims [0, 1, 2] : tensor<2x3x5xf32>
  %dx, %dw, %db = mp.grad %l wrt %x, %w, %b : tensor<f32>, tensor<2x3x4xf32>, tensor<5x4xf32>, tensor<5xf32>
  return %dx, %dw, %db : tensor<2x3x4xf32>, tensor<5x4xf32>, tensor<5xf32>
}

// -----

// A rank-1 input is one row; only the requested weight gradient is built.
// CHECK-LABEL: func.func @linear_rank1_f16
// CHECK-SAME: (%[[X:.*]]: tensor<4xf16>, %[[W:.*]]: tensor<5x4xf16>)
// CHECK:      %[[DY:.*]] = mp.broadcast {{.*}} to tensor<5xf16>
// CHECK-NEXT: %[[DY2:.*]] = mp.reshape %[[DY]] : tensor<5xf16> to tensor<1x5xf16>
// CHECK-NEXT: %[[X2:.*]] = mp.reshape %[[X]] : tensor<4xf16> to tensor<1x4xf16>
// CHECK-NEXT: %[[DW:.*]] = mp.matmul %[[DY2]], %[[X2]] transpose_lhs acc(f32) : tensor<1x5xf16>, tensor<1x4xf16> -> tensor<5x4xf16>
// CHECK-NEXT: return %[[DW]]
func.func @linear_rank1_f16(%x: tensor<4xf16>, %w: tensor<5x4xf16>) -> tensor<5x4xf16> {
  %y = mp.linear %x, %w acc(f32) : (tensor<4xf16>, tensor<5x4xf16>) -> tensor<5xf16>
  %l = mp.reduce_sum %y dims [0] : tensor<5xf16>
  %dw = mp.grad %l wrt %w : tensor<f16>, tensor<5x4xf16>
  return %dw : tensor<5x4xf16>
}

// -----

// CHECK-LABEL: func.func @conv2d
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x8x8xf32>, %[[W:.*]]: tensor<4x3x3x3xf32>, %[[B:.*]]: tensor<4xf32>)
// CHECK:      %[[DY:.*]] = mp.broadcast {{.*}} to tensor<2x4x4x4xf32>
// CHECK-NEXT: %[[DX:.*]] = mp.conv2d_grad_input %[[DY]], %[[W]] acc(f32) {padding = array<i64: 1, 1>, strides = array<i64: 2, 2>} : (tensor<2x4x4x4xf32>, tensor<4x3x3x3xf32>) -> tensor<2x3x8x8xf32>
// CHECK-NEXT: %[[DW:.*]] = mp.conv2d_grad_filter %[[DY]], %[[X]] acc(f32) {padding = array<i64: 1, 1>, strides = array<i64: 2, 2>} : (tensor<2x4x4x4xf32>, tensor<2x3x8x8xf32>) -> tensor<4x3x3x3xf32>
// CHECK-NEXT: %[[DB:.*]] = mp.reduce_sum %[[DY]] dims [0, 2, 3] : tensor<2x4x4x4xf32>
// CHECK-NEXT: return %[[DX]], %[[DW]], %[[DB]]
func.func @conv2d(%x: tensor<2x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<4xf32>) -> (tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) {
  %y = mp.conv2d %x, %w, %b acc(f32) {padding = array<i64: 1, 1>, strides = array<i64: 2, 2>} : (tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<2x4x4x4xf32>
  %l = mp.reduce_sum %y dims [0, 1, 2, 3] : tensor<2x4x4x4xf32>
  %dx, %dw, %db = mp.grad %l wrt %x, %w, %b : tensor<f32>, tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>
  return %dx, %dw, %db : tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>
}

// -----

// Broadcast operands get their adjoint summed over the broadcast dimensions
// (and reshaped when a size-1 dimension is kept).
// CHECK-LABEL: func.func @add_sub_broadcast
// CHECK-SAME: (%{{.*}}: tensor<4x8xf32>, %{{.*}}: tensor<8xf32>, %{{.*}}: tensor<4x1xf32>)
// CHECK:      %[[DY:.*]] = mp.broadcast {{.*}} to tensor<4x8xf32>
// CHECK-NEXT: %[[NEG:.*]] = mp.neg %[[DY]] : tensor<4x8xf32>
// CHECK-NEXT: %[[SUMC:.*]] = mp.reduce_sum %[[NEG]] dims [1] : tensor<4x8xf32>
// CHECK-NEXT: %[[DC:.*]] = mp.reshape %[[SUMC]] : tensor<4xf32> to tensor<4x1xf32>
// CHECK-NEXT: %[[DB:.*]] = mp.reduce_sum %[[DY]] dims [0] : tensor<4x8xf32>
// CHECK-NEXT: return %[[DY]], %[[DB]], %[[DC]]
func.func @add_sub_broadcast(%a: tensor<4x8xf32>, %b: tensor<8xf32>, %c: tensor<4x1xf32>) -> (tensor<4x8xf32>, tensor<8xf32>, tensor<4x1xf32>) {
  %s = mp.add %a, %b : tensor<4x8xf32>, tensor<8xf32>
  %d = mp.sub %s, %c : tensor<4x8xf32>, tensor<4x1xf32>
  %l = mp.reduce_sum %d dims [0, 1] : tensor<4x8xf32>
  %da, %db, %dc = mp.grad %l wrt %a, %b, %c : tensor<f32>, tensor<4x8xf32>, tensor<8xf32>, tensor<4x1xf32>
  return %da, %db, %dc : tensor<4x8xf32>, tensor<8xf32>, tensor<4x1xf32>
}

// -----

// mul: dl = dy·r, dr = dy·l; div: dl = dy/r, dr = −(dl·y); a 0-d divisor
// sums over everything.
// CHECK-LABEL: func.func @mul_div
// CHECK-SAME: (%[[A:.*]]: tensor<4x8xf32>, %[[B:.*]]: tensor<8xf32>, %[[C:.*]]: tensor<f32>)
// CHECK:      %[[M:.*]] = mp.mul %[[A]], %[[B]]
// CHECK-NEXT: %[[Q:.*]] = mp.div %[[M]], %[[C]]
// CHECK:      %[[DY:.*]] = mp.broadcast {{.*}} to tensor<4x8xf32>
// CHECK-NEXT: %[[DQL:.*]] = mp.div %[[DY]], %[[C]] : tensor<4x8xf32>, tensor<f32>
// CHECK-NEXT: %[[T:.*]] = mp.mul %[[DQL]], %[[Q]] : tensor<4x8xf32>, tensor<4x8xf32>
// CHECK-NEXT: %[[NT:.*]] = mp.neg %[[T]] : tensor<4x8xf32>
// CHECK-NEXT: %[[DC:.*]] = mp.reduce_sum %[[NT]] dims [0, 1] : tensor<4x8xf32>
// CHECK-NEXT: %[[DA:.*]] = mp.mul %[[DQL]], %[[B]] : tensor<4x8xf32>, tensor<8xf32>
// CHECK-NEXT: %[[DBF:.*]] = mp.mul %[[DQL]], %[[A]] : tensor<4x8xf32>, tensor<4x8xf32>
// CHECK-NEXT: %[[DB:.*]] = mp.reduce_sum %[[DBF]] dims [0] : tensor<4x8xf32>
// CHECK-NEXT: return %[[DA]], %[[DB]], %[[DC]]
func.func @mul_div(%a: tensor<4x8xf32>, %b: tensor<8xf32>, %c: tensor<f32>) -> (tensor<4x8xf32>, tensor<8xf32>, tensor<f32>) {
  %m = mp.mul %a, %b : tensor<4x8xf32>, tensor<8xf32>
  %q = mp.div %m, %c : tensor<4x8xf32>, tensor<f32>
  %l = mp.reduce_sum %q dims [0, 1] : tensor<4x8xf32>
  %da, %db, %dc = mp.grad %l wrt %a, %b, %c : tensor<f32>, tensor<4x8xf32>, tensor<8xf32>, tensor<f32>
  return %da, %db, %dc : tensor<4x8xf32>, tensor<8xf32>, tensor<f32>
}

// -----

// pow: dl = dy·(r·l^(r−1)), dr = dy·(y·log l), 0 where l = 0 and r >= 0
// (PyTorch's pow_backward_exponent).
// CHECK-LABEL: func.func @pow
// CHECK-SAME: (%[[A:.*]]: tensor<4xf32>, %[[E:.*]]: tensor<4xf32>)
// CHECK:      %[[P:.*]] = mp.pow %[[A]], %[[E]]
// CHECK:      %[[DY:.*]] = mp.broadcast {{.*}} to tensor<4xf32>
// CHECK-NEXT: %[[ONE:.*]] = arith.constant dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[EM1:.*]] = mp.sub %[[E]], %[[ONE]] : tensor<4xf32>, tensor<f32>
// CHECK-NEXT: %[[PW:.*]] = mp.pow %[[A]], %[[EM1]]
// CHECK-NEXT: %[[T:.*]] = mp.mul %[[E]], %[[PW]]
// CHECK-NEXT: %[[DA:.*]] = mp.mul %[[DY]], %[[T]]
// CHECK-NEXT: %[[LOG:.*]] = mp.log %[[A]] : tensor<4xf32>
// CHECK-NEXT: %[[U:.*]] = mp.mul %[[P]], %[[LOG]]
// CHECK-NEXT: %[[PROD:.*]] = mp.mul %[[DY]], %[[U]]
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : tensor<4xf32>
// CHECK-NEXT: %[[ZB:.*]] = arith.cmpf oeq, %[[A]], %[[ZERO]] : tensor<4xf32>
// CHECK-NEXT: %[[NN:.*]] = arith.cmpf oge, %[[E]], %[[ZERO]] : tensor<4xf32>
// CHECK-NEXT: %[[MASK:.*]] = arith.andi %[[ZB]], %[[NN]] : tensor<4xi1>
// CHECK-NEXT: %[[DE:.*]] = arith.select %[[MASK]], %[[ZERO]], %[[PROD]] : tensor<4xi1>, tensor<4xf32>
// CHECK-NEXT: return %[[DA]], %[[DE]]
func.func @pow(%a: tensor<4xf32>, %e: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %p = mp.pow %a, %e : tensor<4xf32>, tensor<4xf32>
  %l = mp.reduce_sum %p dims [0] : tensor<4xf32>
  %da, %de = mp.grad %l wrt %a, %e : tensor<f32>, tensor<4xf32>, tensor<4xf32>
  return %da, %de : tensor<4xf32>, tensor<4xf32>
}

// -----

// pow with a broadcast exponent: the mask compares the exponent broadcast to
// the result shape; dr is reduced back to the exponent's shape.
// CHECK-LABEL: func.func @pow_broadcast
// CHECK-SAME: (%[[A:.*]]: tensor<3x4xf32>, %[[E:.*]]: tensor<4xf32>)
// CHECK:      %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : tensor<3x4xf32>
// CHECK-NEXT: %[[ZB:.*]] = arith.cmpf oeq, %[[A]], %[[ZERO]] : tensor<3x4xf32>
// CHECK-NEXT: %[[EB:.*]] = mp.broadcast %[[E]] : tensor<4xf32> to tensor<3x4xf32>
// CHECK-NEXT: %[[NN:.*]] = arith.cmpf oge, %[[EB]], %[[ZERO]] : tensor<3x4xf32>
// CHECK-NEXT: %[[MASK:.*]] = arith.andi %[[ZB]], %[[NN]] : tensor<3x4xi1>
// CHECK-NEXT: %[[SEL:.*]] = arith.select %[[MASK]], %[[ZERO]], %{{.*}} : tensor<3x4xi1>, tensor<3x4xf32>
// CHECK-NEXT: %[[DE:.*]] = mp.reduce_sum %[[SEL]] dims [0] : tensor<3x4xf32>
// CHECK-NEXT: return %[[DE]]
func.func @pow_broadcast(%a: tensor<3x4xf32>, %e: tensor<4xf32>) -> tensor<4xf32> {
  %p = mp.pow %a, %e : tensor<3x4xf32>, tensor<4xf32>
  %l = mp.reduce_sum %p dims [0, 1] : tensor<3x4xf32>
  %de = mp.grad %l wrt %e : tensor<f32>, tensor<4xf32>
  return %de : tensor<4xf32>
}

// -----

// maximum/minimum route dy with their backward ops, then reduce; %b is used
// twice and accumulates in f16.
// CHECK-LABEL: func.func @maximum_minimum_f16
// CHECK-SAME: (%[[A:.*]]: tensor<4x8xf16>, %[[B:.*]]: tensor<8xf16>)
// CHECK:      %[[M:.*]] = mp.maximum %[[A]], %[[B]]
// CHECK:      %[[DY:.*]] = mp.broadcast {{.*}} to tensor<4x8xf16>
// CHECK-NEXT: %[[DM:.*]], %[[DB1F:.*]] = mp.minimum_grad %[[DY]], %[[M]], %[[B]] : tensor<4x8xf16>, tensor<4x8xf16>, tensor<8xf16>
// CHECK-NEXT: %[[DB1:.*]] = mp.reduce_sum %[[DB1F]] dims [0] : tensor<4x8xf16>
// CHECK-NEXT: %[[DA:.*]], %[[DB2F:.*]] = mp.maximum_grad %[[DM]], %[[A]], %[[B]] : tensor<4x8xf16>, tensor<4x8xf16>, tensor<8xf16>
// CHECK-NEXT: %[[DB2:.*]] = mp.reduce_sum %[[DB2F]] dims [0] : tensor<4x8xf16>
// CHECK-NEXT: %[[DB:.*]] = mp.add %[[DB1]], %[[DB2]] : tensor<8xf16>, tensor<8xf16>
// CHECK-NEXT: return %[[DA]], %[[DB]]
func.func @maximum_minimum_f16(%a: tensor<4x8xf16>, %b: tensor<8xf16>) -> (tensor<4x8xf16>, tensor<8xf16>) {
  %m = mp.maximum %a, %b : tensor<4x8xf16>, tensor<8xf16>
  %n = mp.minimum %m, %b : tensor<4x8xf16>, tensor<8xf16>
  %l = mp.reduce_sum %n dims [0, 1] : tensor<4x8xf16>
  %da, %db = mp.grad %l wrt %a, %b : tensor<f16>, tensor<4x8xf16>, tensor<8xf16>
  return %da, %db : tensor<4x8xf16>, tensor<8xf16>
}

// -----

// Every unary op, chained: gelu_grad; rsqrt −0.5·dy·y³; sqrt dy/(2y); log
// dy/x; exp dy·y; sigmoid dy·y·(1−y); tanh dy·(1−y²); relu_grad; neg.
// CHECK-LABEL: func.func @unary_chain
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
// CHECK-NEXT: %[[NEG:.*]] = mp.neg %[[X]]
// CHECK-NEXT: %[[RELU:.*]] = mp.relu %[[NEG]]
// CHECK-NEXT: %[[TANH:.*]] = mp.tanh %[[RELU]]
// CHECK-NEXT: %[[SIG:.*]] = mp.sigmoid %[[TANH]]
// CHECK-NEXT: %[[EXP:.*]] = mp.exp %[[SIG]]
// CHECK-NEXT: %[[LOG:.*]] = mp.log %[[EXP]]
// CHECK-NEXT: %[[SQRT:.*]] = mp.sqrt %[[LOG]]
// CHECK-NEXT: %[[RSQRT:.*]] = mp.rsqrt %[[SQRT]]
// CHECK-NEXT: %[[GELU:.*]] = mp.gelu %[[RSQRT]] approximate tanh
// CHECK:      %[[DY:.*]] = mp.broadcast {{.*}} to tensor<4xf32>
// CHECK-NEXT: %[[D8:.*]] = mp.gelu_grad %[[DY]], %[[RSQRT]] approximate tanh : tensor<4xf32>
// CHECK-NEXT: %[[MHALF:.*]] = arith.constant dense<-5.000000e-01> : tensor<f32>
// CHECK-NEXT: %[[Y2:.*]] = mp.mul %[[RSQRT]], %[[RSQRT]]
// CHECK-NEXT: %[[Y3:.*]] = mp.mul %[[Y2]], %[[RSQRT]]
// CHECK-NEXT: %[[T7:.*]] = mp.mul %[[D8]], %[[Y3]]
// CHECK-NEXT: %[[D7:.*]] = mp.mul %[[T7]], %[[MHALF]] : tensor<4xf32>, tensor<f32>
// CHECK-NEXT: %[[TWO:.*]] = arith.constant dense<2.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[TWOY:.*]] = mp.mul %[[SQRT]], %[[TWO]] : tensor<4xf32>, tensor<f32>
// CHECK-NEXT: %[[D6:.*]] = mp.div %[[D7]], %[[TWOY]]
// CHECK-NEXT: %[[D5:.*]] = mp.div %[[D6]], %[[EXP]]
// CHECK-NEXT: %[[D4:.*]] = mp.mul %[[D5]], %[[EXP]]
// CHECK-NEXT: %[[ONE:.*]] = arith.constant dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[OMS:.*]] = mp.sub %[[ONE]], %[[SIG]] : tensor<f32>, tensor<4xf32>
// CHECK-NEXT: %[[T3:.*]] = mp.mul %[[D4]], %[[SIG]]
// CHECK-NEXT: %[[D3:.*]] = mp.mul %[[T3]], %[[OMS]]
// CHECK-NEXT: %[[ONE2:.*]] = arith.constant dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[T2:.*]] = mp.mul %[[TANH]], %[[TANH]]
// CHECK-NEXT: %[[OMT:.*]] = mp.sub %[[ONE2]], %[[T2]] : tensor<f32>, tensor<4xf32>
// CHECK-NEXT: %[[D2:.*]] = mp.mul %[[D3]], %[[OMT]]
// CHECK-NEXT: %[[D1:.*]] = mp.relu_grad %[[D2]], %[[NEG]] : tensor<4xf32>
// CHECK-NEXT: %[[D0:.*]] = mp.neg %[[D1]]
// CHECK-NEXT: return %[[D0]]
func.func @unary_chain(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = mp.neg %x : tensor<4xf32>
  %1 = mp.relu %0 : tensor<4xf32>
  %2 = mp.tanh %1 : tensor<4xf32>
  %3 = mp.sigmoid %2 : tensor<4xf32>
  %4 = mp.exp %3 : tensor<4xf32>
  %5 = mp.log %4 : tensor<4xf32>
  %6 = mp.sqrt %5 : tensor<4xf32>
  %7 = mp.rsqrt %6 : tensor<4xf32>
  %8 = mp.gelu %7 approximate tanh : tensor<4xf32>
  %l = mp.reduce_sum %8 dims [0] : tensor<4xf32>
  %dx = mp.grad %l wrt %x : tensor<f32>, tensor<4xf32>
  return %dx : tensor<4xf32>
}

// -----

// reduce_sum (keepdims) broadcasts back; reduce_mean scales by 1/count
// (mp.scale, f32 factor) before broadcasting; reduce_max uses its backward op;
// the two paths to %x accumulate.
// CHECK-LABEL: func.func @reductions
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
// CHECK:      %[[MAX:.*]] = mp.reduce_max %[[X]] dims [0]
// CHECK:      %[[SEED:.*]] = arith.constant dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[DL:.*]] = mp.reshape %[[SEED]] : tensor<f32> to tensor<1xf32>
// CHECK-NEXT: %[[DT:.*]] = mp.reduce_sum %[[DL]] dims [0] : tensor<1xf32>
// CHECK-NEXT: %[[DTR:.*]] = mp.reshape %[[DT]] : tensor<f32> to tensor<1xf32>
// CHECK-NEXT: %[[DMAX:.*]] = mp.broadcast %[[DTR]] : tensor<1xf32> to tensor<8xf32>
// CHECK-NEXT: %[[DX1:.*]] = mp.reduce_max_grad %[[DMAX]], %[[X]], %[[MAX]] dims [0] : tensor<8xf32>, tensor<4x8xf32>
// CHECK-NEXT: %[[QUARTER:.*]] = arith.constant dense<2.500000e-01> : tensor<f32>
// CHECK-NEXT: %[[DMEAN:.*]] = mp.scale %[[DL]] by %[[QUARTER]] : tensor<1xf32>
// CHECK-NEXT: %[[DMR:.*]] = mp.reshape %[[DMEAN]] : tensor<1xf32> to tensor<1x1xf32>
// CHECK-NEXT: %[[DS:.*]] = mp.broadcast %[[DMR]] : tensor<1x1xf32> to tensor<4x1xf32>
// CHECK-NEXT: %[[DX2:.*]] = mp.broadcast %[[DS]] : tensor<4x1xf32> to tensor<4x8xf32>
// CHECK-NEXT: %[[DX:.*]] = mp.add %[[DX1]], %[[DX2]] : tensor<4x8xf32>, tensor<4x8xf32>
// CHECK-NEXT: return %[[DX]]
func.func @reductions(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %s = mp.reduce_sum %x dims [1] keepdims : tensor<4x8xf32>
  %m = mp.reduce_mean %s dims [0] : tensor<4x1xf32>
  %x2 = mp.reduce_max %x dims [0] : tensor<4x8xf32>
  %t = mp.reduce_sum %x2 dims [0] : tensor<8xf32>
  %l = mp.add %m, %t : tensor<1xf32>, tensor<f32>
  %l0 = mp.reshape %l : tensor<1xf32> to tensor<f32>
  %dx = mp.grad %l0 wrt %x : tensor<f32>, tensor<4x8xf32>
  return %dx : tensor<4x8xf32>
}

// -----

// CHECK-LABEL: func.func @softmax_bf16
// CHECK-SAME: (%[[X:.*]]: tensor<4x10xbf16>)
// CHECK-NEXT: %[[P:.*]] = mp.softmax %[[X]] dim 1
// CHECK-NEXT: %[[Q:.*]] = mp.log_softmax %[[P]] dim 0
// CHECK:      %[[DY:.*]] = mp.broadcast {{.*}} to tensor<4x10xbf16>
// CHECK-NEXT: %[[DQ:.*]] = mp.log_softmax_grad %[[DY]], %[[Q]] dim 0 : tensor<4x10xbf16>
// CHECK-NEXT: %[[DX:.*]] = mp.softmax_grad %[[DQ]], %[[P]] dim 1 : tensor<4x10xbf16>
// CHECK-NEXT: return %[[DX]]
func.func @softmax_bf16(%x: tensor<4x10xbf16>) -> tensor<4x10xbf16> {
  %p = mp.softmax %x dim 1 : tensor<4x10xbf16>
  %q = mp.log_softmax %p dim 0 : tensor<4x10xbf16>
  %l = mp.reduce_sum %q dims [0, 1] : tensor<4x10xbf16>
  %dx = mp.grad %l wrt %x : tensor<bf16>, tensor<4x10xbf16>
  return %dx : tensor<4x10xbf16>
}

// -----

// One backward op per normalisation gives the input, weight and bias
// gradients (with or without affine parameters).
// CHECK-LABEL: func.func @norms
// CHECK-SAME: (%[[X:.*]]: tensor<2x8x16xf32>, %[[G:.*]]: tensor<16xf32>, %[[B:.*]]: tensor<16xf32>, %[[G2:.*]]: tensor<8x16xf32>)
// CHECK-NEXT: %[[H:.*]] = mp.layer_norm %[[X]] weight %[[G]] bias %[[B]] axis 2
// CHECK-NEXT: %[[N:.*]] = mp.layer_norm %[[H]] axis 2
// CHECK-NEXT: mp.rms_norm %[[N]] weight %[[G2]] axis 1
// CHECK:      %[[DY:.*]] = mp.broadcast {{.*}} to tensor<2x8x16xf32>
// CHECK-NEXT: %[[DN:.*]], %[[DG2:.*]] = mp.rms_norm_grad %[[DY]], %[[N]] weight %[[G2]] axis 1 eps {{.*}} : (tensor<2x8x16xf32>, tensor<2x8x16xf32>, tensor<8x16xf32>) -> (tensor<2x8x16xf32>, tensor<8x16xf32>)
// CHECK-NEXT: %[[DH:.*]], %{{.*}}, %{{.*}} = mp.layer_norm_grad %[[DN]], %[[H]] axis 2 eps 1.000000e-05 : (tensor<2x8x16xf32>, tensor<2x8x16xf32>) -> (tensor<2x8x16xf32>, tensor<16xf32>, tensor<16xf32>)
// CHECK-NEXT: %[[DX:.*]], %[[DG:.*]], %[[DB:.*]] = mp.layer_norm_grad %[[DH]], %[[X]] weight %[[G]] axis 2 eps 1.000000e-05 : (tensor<2x8x16xf32>, tensor<2x8x16xf32>, tensor<16xf32>) -> (tensor<2x8x16xf32>, tensor<16xf32>, tensor<16xf32>)
// CHECK-NEXT: return %[[DX]], %[[DG]], %[[DB]], %[[DG2]]
func.func @norms(%x: tensor<2x8x16xf32>, %g: tensor<16xf32>, %b: tensor<16xf32>, %g2: tensor<8x16xf32>) -> (tensor<2x8x16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<8x16xf32>) {
  %h = mp.layer_norm %x weight %g bias %b axis 2 eps 1.0e-05 : (tensor<2x8x16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<2x8x16xf32>
  %n = mp.layer_norm %h axis 2 eps 1.0e-05 : (tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
  %r = mp.rms_norm %n weight %g2 axis 1 eps 1.0e-06 : (tensor<2x8x16xf32>, tensor<8x16xf32>) -> tensor<2x8x16xf32>
  %l = mp.reduce_sum %r dims [0, 1, 2] : tensor<2x8x16xf32>
  %dx, %dg, %db, %dg2 = mp.grad %l wrt %x, %g, %b, %g2 : tensor<f32>, tensor<2x8x16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<8x16xf32>
  return %dx, %dg, %db, %dg2 : tensor<2x8x16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<8x16xf32>
}

// -----

// transpose: inverse permutation; reshape: back; concat: slices; slice:
// slice_grad; broadcast: reduce_sum over the broadcast dimensions.
// CHECK-LABEL: func.func @shapes
// CHECK-SAME: (%[[X:.*]]: tensor<3x4x6xf32>, %[[Y:.*]]: tensor<4x2xf32>, %[[Z:.*]]: tensor<6xf32>)
// CHECK-NEXT: %[[T:.*]] = mp.transpose %[[X]] perm [2, 0, 1]
// CHECK-NEXT: %[[R:.*]] = mp.reshape %[[T]] : tensor<6x3x4xf32> to tensor<4x18xf32>
// CHECK-NEXT: %[[C:.*]] = mp.concat %[[R]], %[[Y]] dim 1
// CHECK-NEXT: %[[S:.*]] = mp.slice %[[C]] offsets [1, 0] sizes [2, 4] strides [1, 2]
// CHECK-NEXT: %[[ZB:.*]] = mp.broadcast %[[Z]] : tensor<6xf32> to tensor<2x4x6xf32>
// CHECK-NEXT: %[[ZS:.*]] = mp.reduce_sum %[[ZB]] dims [2]
// CHECK:      %[[DU:.*]] = mp.broadcast {{.*}} to tensor<2x4xf32>
// CHECK-NEXT: %[[DS:.*]] = mp.mul %[[DU]], %[[ZS]]
// CHECK-NEXT: %[[DZS:.*]] = mp.mul %[[DU]], %[[S]]
// CHECK-NEXT: %[[DZSR:.*]] = mp.reshape %[[DZS]] : tensor<2x4xf32> to tensor<2x4x1xf32>
// CHECK-NEXT: %[[DZB:.*]] = mp.broadcast %[[DZSR]] : tensor<2x4x1xf32> to tensor<2x4x6xf32>
// CHECK-NEXT: %[[DZ:.*]] = mp.reduce_sum %[[DZB]] dims [0, 1] : tensor<2x4x6xf32>
// CHECK-NEXT: %[[DC:.*]] = mp.slice_grad %[[DS]] offsets [1, 0] sizes [2, 4] strides [1, 2] : tensor<2x4xf32> to tensor<4x20xf32>
// CHECK-NEXT: %[[DR:.*]] = mp.slice %[[DC]] offsets [0, 0] sizes [4, 18] strides [1, 1] : tensor<4x20xf32>
// CHECK-NEXT: %[[DY:.*]] = mp.slice %[[DC]] offsets [0, 18] sizes [4, 2] strides [1, 1] : tensor<4x20xf32>
// CHECK-NEXT: %[[DT:.*]] = mp.reshape %[[DR]] : tensor<4x18xf32> to tensor<6x3x4xf32>
// CHECK-NEXT: %[[DX:.*]] = mp.transpose %[[DT]] perm [1, 2, 0] : tensor<6x3x4xf32>
// CHECK-NEXT: return %[[DX]], %[[DY]], %[[DZ]] : tensor<3x4x6xf32>, tensor<4x2xf32>, tensor<6xf32>
func.func @shapes(%x: tensor<3x4x6xf32>, %y: tensor<4x2xf32>, %z: tensor<6xf32>) -> (tensor<3x4x6xf32>, tensor<4x2xf32>, tensor<6xf32>) {
  %t = mp.transpose %x perm [2, 0, 1] : tensor<3x4x6xf32>
  %r = mp.reshape %t : tensor<6x3x4xf32> to tensor<4x18xf32>
  %c = mp.concat %r, %y dim 1 : tensor<4x18xf32>, tensor<4x2xf32>
  %s = mp.slice %c offsets [1, 0] sizes [2, 4] strides [1, 2] : tensor<4x20xf32>
  %zb = mp.broadcast %z : tensor<6xf32> to tensor<2x4x6xf32>
  %zs = mp.reduce_sum %zb dims [2] : tensor<2x4x6xf32>
  %u = mp.mul %s, %zs : tensor<2x4xf32>, tensor<2x4xf32>
  %l = mp.reduce_sum %u dims [0, 1] : tensor<2x4xf32>
  %dx, %dy, %dz = mp.grad %l wrt %x, %y, %z : tensor<f32>, tensor<3x4x6xf32>, tensor<4x2xf32>, tensor<6xf32>
  return %dx, %dy, %dz : tensor<3x4x6xf32>, tensor<4x2xf32>, tensor<6xf32>
}

// -----

// Indices and labels get no gradient; the table gets embedding_grad of the
// cross_entropy_grad.
// CHECK-LABEL: func.func @embedding_cross_entropy
// CHECK-SAME: (%[[TABLE:.*]]: tensor<10x4xf32>, %[[IDS:.*]]: tensor<3xi64>, %[[LABELS:.*]]: tensor<3xi32>)
// CHECK-NEXT: %[[E:.*]] = mp.embedding %[[TABLE]][%[[IDS]]]
// CHECK-NEXT: mp.cross_entropy %[[E]], %[[LABELS]]
// CHECK-NEXT: %[[SEED:.*]] = arith.constant dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[DE:.*]] = mp.cross_entropy_grad %[[SEED]], %[[E]], %[[LABELS]] : (tensor<f32>, tensor<3x4xf32>, tensor<3xi32>) -> tensor<3x4xf32>
// CHECK-NEXT: %[[DT:.*]] = mp.embedding_grad %[[DE]], %[[IDS]] : (tensor<3x4xf32>, tensor<3xi64>) -> tensor<10x4xf32>
// CHECK-NEXT: return %[[DT]]
func.func @embedding_cross_entropy(%table: tensor<10x4xf32>, %ids: tensor<3xi64>, %labels: tensor<3xi32>) -> tensor<10x4xf32> {
  %e = mp.embedding %table[%ids] : tensor<10x4xf32>, tensor<3xi64>
  %l = mp.cross_entropy %e, %labels : tensor<3x4xf32>, tensor<3xi32>
  %dt = mp.grad %l wrt %table : tensor<f32>, tensor<10x4xf32>
  return %dt : tensor<10x4xf32>
}

// -----

// mse: dx = (x − t)·(dl·2/N) with 2/N = 0.25 as an f32 mp.scale factor,
// dt = −dx; in f16.
// CHECK-LABEL: func.func @mse_f16
// CHECK-SAME: (%[[X:.*]]: tensor<4x2xf16>, %[[T:.*]]: tensor<4x2xf16>)
// CHECK-NEXT: mp.mse %[[X]], %[[T]]
// CHECK-NEXT: %[[SEED:.*]] = arith.constant dense<1.000000e+00> : tensor<f16>
// CHECK-NEXT: %[[F:.*]] = arith.constant dense<2.500000e-01> : tensor<f32>
// CHECK-NEXT: %[[C:.*]] = mp.scale %[[SEED]] by %[[F]] : tensor<f16>
// CHECK-NEXT: %[[D:.*]] = mp.sub %[[X]], %[[T]] : tensor<4x2xf16>, tensor<4x2xf16>
// CHECK-NEXT: %[[DX:.*]] = mp.mul %[[D]], %[[C]] : tensor<4x2xf16>, tensor<f16>
// CHECK-NEXT: %[[DT:.*]] = mp.neg %[[DX]] : tensor<4x2xf16>
// CHECK-NEXT: return %[[DX]], %[[DT]]
func.func @mse_f16(%x: tensor<4x2xf16>, %t: tensor<4x2xf16>) -> (tensor<4x2xf16>, tensor<4x2xf16>) {
  %l = mp.mse %x, %t : tensor<4x2xf16>
  %dx, %dt = mp.grad %l wrt %x, %t : tensor<f16>, tensor<4x2xf16>, tensor<4x2xf16>
  return %dx, %dt : tensor<4x2xf16>, tensor<4x2xf16>
}

// -----

// A loss scaled by mp.scale (as mp-loss-scaling leaves it): the seed is
// scaled by the same factor, which gets no gradient. Batch data (%x) and an
// op of another dialect off the path are left alone.
// CHECK-LABEL: func.func @scaled_loss
// CHECK-SAME: (%[[W:.*]]: tensor<4xf32> {mp.param}, %[[X:.*]]: tensor<4xf32>, %[[S:.*]]: tensor<f32>)
// CHECK-NEXT: %[[X2:.*]] = arith.addf %[[X]], %[[X]]
// CHECK-NEXT: mp.mul %[[W]], %[[X2]]
// CHECK-NEXT: %[[L:.*]] = mp.reduce_sum
// CHECK-NEXT: mp.scale %[[L]] by %[[S]]
// CHECK-NEXT: %[[SEED:.*]] = arith.constant dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[DL:.*]] = mp.scale %[[SEED]] by %[[S]] : tensor<f32>
// CHECK-NEXT: %[[R:.*]] = mp.reshape %[[DL]] : tensor<f32> to tensor<1xf32>
// CHECK-NEXT: %[[DY:.*]] = mp.broadcast %[[R]] : tensor<1xf32> to tensor<4xf32>
// CHECK-NEXT: %[[DW:.*]] = mp.mul %[[DY]], %[[X2]]
// CHECK-NEXT: return %[[DW]]
func.func @scaled_loss(%w: tensor<4xf32> {mp.param}, %x: tensor<4xf32>, %s: tensor<f32>) -> tensor<4xf32> {
  %x2 = arith.addf %x, %x : tensor<4xf32>
  %y = mp.mul %w, %x2 : tensor<4xf32>, tensor<4xf32>
  %l = mp.reduce_sum %y dims [0] : tensor<4xf32>
  %ls = mp.scale %l by %s : tensor<f32>
  %dw = mp.grad %ls wrt %w : tensor<f32>, tensor<4xf32>
  return %dw : tensor<4xf32>
}

// -----

// An f32 parameter used through an f16 cast (twice) and directly: its f16
// adjoints accumulate in f16, are cast back to f32, and accumulate with the
// direct one in f32.
// CHECK-LABEL: func.func @accumulate_in_own_type
// CHECK-SAME: (%[[W:.*]]: tensor<4xf32> {mp.param})
// CHECK-NEXT: %[[WH:.*]] = mp.cast %[[W]] : tensor<4xf32> to tensor<4xf16>
// CHECK:      %[[DY:.*]] = mp.broadcast {{.*}} to tensor<4xf32>
// CHECK-NEXT: %[[DSQ:.*]] = mp.cast %[[DY]] : tensor<4xf32> to tensor<4xf16>
// CHECK-NEXT: %[[D1:.*]] = mp.mul %[[DSQ]], %[[WH]] : tensor<4xf16>, tensor<4xf16>
// CHECK-NEXT: %[[D2:.*]] = mp.mul %[[DSQ]], %[[WH]] : tensor<4xf16>, tensor<4xf16>
// CHECK-NEXT: %[[DWH:.*]] = mp.add %[[D1]], %[[D2]] : tensor<4xf16>, tensor<4xf16>
// CHECK-NEXT: %[[DWC:.*]] = mp.cast %[[DWH]] : tensor<4xf16> to tensor<4xf32>
// CHECK-NEXT: %[[DW:.*]] = mp.add %[[DY]], %[[DWC]] : tensor<4xf32>, tensor<4xf32>
// CHECK-NEXT: return %[[DW]] : tensor<4xf32>
func.func @accumulate_in_own_type(%w: tensor<4xf32> {mp.param}) -> tensor<4xf32> {
  %wh = mp.cast %w : tensor<4xf32> to tensor<4xf16>
  %sq = mp.mul %wh, %wh : tensor<4xf16>, tensor<4xf16>
  %sqf = mp.cast %sq : tensor<4xf16> to tensor<4xf32>
  %y = mp.add %sqf, %w : tensor<4xf32>, tensor<4xf32>
  %l = mp.reduce_sum %y dims [0] : tensor<4xf32>
  %dw = mp.grad %l wrt %w : tensor<f32>, tensor<4xf32>
  return %dw : tensor<4xf32>
}

// -----

// A parameter the loss does not depend on gets zeros and a warning; its
// forward use is not differentiated.
// CHECK-LABEL: func.func @unused_param
// CHECK-SAME: (%[[W:.*]]: tensor<4xf32> {mp.param}, %[[V:.*]]: tensor<2xf32> {mp.param}, %[[X:.*]]: tensor<4xf32>)
// CHECK:      mp.exp %[[V]]
// CHECK-NEXT: %[[SEED:.*]] = arith.constant dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[R:.*]] = mp.reshape %[[SEED]]
// CHECK-NEXT: %[[DY:.*]] = mp.broadcast %[[R]]
// CHECK-NEXT: %[[DW:.*]] = mp.mul %[[DY]], %[[X]]
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : tensor<2xf32>
// CHECK-NEXT: return %[[DW]], %[[ZERO]] : tensor<4xf32>, tensor<2xf32>
func.func @unused_param(%w: tensor<4xf32> {mp.param}, %v: tensor<2xf32> {mp.param}, %x: tensor<4xf32>) -> (tensor<4xf32>, tensor<2xf32>) {
  %y = mp.mul %w, %x : tensor<4xf32>, tensor<4xf32>
  %l = mp.reduce_sum %y dims [0] : tensor<4xf32>
  %unrelated = mp.exp %v : tensor<2xf32>
  // expected-warning @+1 {{gradient of value #1 (function argument #1, mp.param) is zero: the loss does not depend on it}}
  %dw, %dv = mp.grad %l wrt %w, %v : tensor<f32>, tensor<4xf32>, tensor<2xf32>
  return %dw, %dv : tensor<4xf32>, tensor<2xf32>
}

// -----

// With respect to an intermediate value, and to a value the loss reaches
// only through a scale factor (no gradient: zeros and a warning).
// CHECK-LABEL: func.func @wrt_intermediate_and_scale_factor
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>, %[[S:.*]]: tensor<f32>)
// CHECK-NEXT: mp.relu %[[X]]
// CHECK-NEXT: mp.scale
// CHECK-NEXT: mp.reduce_sum
// CHECK-NEXT: arith.constant dense<1.000000e+00>
// CHECK-NEXT: mp.reshape
// CHECK-NEXT: %[[DY:.*]] = mp.broadcast
// CHECK-NEXT: %[[DH:.*]] = mp.scale %[[DY]] by %[[S]] : tensor<4xf32>
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : tensor<f32>
// CHECK-NEXT: return %[[DH]], %[[ZERO]]
func.func @wrt_intermediate_and_scale_factor(%x: tensor<4xf32>, %s: tensor<f32>) -> (tensor<4xf32>, tensor<f32>) {
  %h = mp.relu %x : tensor<4xf32>
  %y = mp.scale %h by %s : tensor<4xf32>
  %l = mp.reduce_sum %y dims [0] : tensor<4xf32>
  // expected-warning @+1 {{gradient of value #1 (function argument #1) is zero: the loss depends on it only through operands without a gradient (labels, indices, scale factors)}}
  %dh, %ds = mp.grad %l wrt %h, %s : tensor<f32>, tensor<4xf32>, tensor<f32>
  return %dh, %ds : tensor<4xf32>, tensor<f32>
}

// -----

// Two mp.grad ops are expanded independently; the gradient of a loss with
// respect to itself is the seed.
// CHECK-LABEL: func.func @two_grads
// CHECK-SAME: (%[[W:.*]]: tensor<4xf32>)
// CHECK-NEXT: %[[E:.*]] = mp.exp %[[W]]
// CHECK-NEXT: mp.reduce_sum %[[E]]
// CHECK-NEXT: arith.constant dense<1.000000e+00>
// CHECK-NEXT: mp.reshape
// CHECK-NEXT: %[[DY1:.*]] = mp.broadcast
// CHECK-NEXT: %[[D1:.*]] = mp.mul %[[DY1]], %[[E]]
// CHECK-NEXT: %[[T:.*]] = mp.tanh %[[W]]
// CHECK-NEXT: mp.reduce_sum %[[T]]
// CHECK-NEXT: %[[SEED2:.*]] = arith.constant dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT: mp.reshape %[[SEED2]]
// CHECK-NEXT: %[[DY2:.*]] = mp.broadcast
// CHECK-NEXT: arith.constant dense<1.000000e+00>
// CHECK-NEXT: mp.mul %[[T]], %[[T]]
// CHECK-NEXT: mp.sub
// CHECK-NEXT: %[[D2:.*]] = mp.mul %[[DY2]]
// CHECK-NEXT: return %[[D1]], %[[D2]], %[[SEED2]]
func.func @two_grads(%w: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<f32>) {
  %e = mp.exp %w : tensor<4xf32>
  %l1 = mp.reduce_sum %e dims [0] : tensor<4xf32>
  %d1 = mp.grad %l1 wrt %w : tensor<f32>, tensor<4xf32>
  %t = mp.tanh %w : tensor<4xf32>
  %l2 = mp.reduce_sum %t dims [0] : tensor<4xf32>
  %d2, %dl2 = mp.grad %l2 wrt %w, %l2 : tensor<f32>, tensor<4xf32>, tensor<f32>
  return %d1, %d2, %dl2 : tensor<4xf32>, tensor<4xf32>, tensor<f32>
}

// -----

// An mp.grad in a nested block differentiates the ops of that block.
// CHECK-LABEL: func.func @grad_in_nested_block
// CHECK:      scf.execute_region
// CHECK-NEXT: %[[Y:.*]] = mp.exp
// CHECK-NEXT: mp.reduce_sum %[[Y]]
// CHECK-NEXT: arith.constant dense<1.000000e+00>
// CHECK-NEXT: mp.reshape
// CHECK-NEXT: %[[DY:.*]] = mp.broadcast
// CHECK-NEXT: scf.yield %[[DY]]
func.func @grad_in_nested_block(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = scf.execute_region -> tensor<4xf32> {
    %y = mp.exp %x : tensor<4xf32>
    %l = mp.reduce_sum %y dims [0] : tensor<4xf32>
    %dy = mp.grad %l wrt %y : tensor<f32>, tensor<4xf32>
    scf.yield %dy : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

// A function without mp.grad is left alone.
// CHECK-LABEL: func.func @no_grad
// CHECK-NEXT: mp.exp
// CHECK-NEXT: return
func.func @no_grad(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = mp.exp %x : tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// A differentiated value defined by an op that has no gradient: the gradient
// stops at the value, so its definer is not differentiated.
// CHECK-LABEL: func.func @wrt_defined_by_op
// CHECK: %[[X:.*]] = bufferization.to_tensor
// CHECK-NOT: mp.grad
// CHECK: return
func.func @wrt_defined_by_op(%m: memref<4xf32>) -> tensor<4xf32> {
  %x = bufferization.to_tensor %m restrict : memref<4xf32> to tensor<4xf32>
  %y = mp.relu %x : tensor<4xf32>
  %l = mp.reduce_sum %y dims [0] : tensor<4xf32>
  %g = mp.grad %l wrt %x : tensor<f32>, tensor<4xf32>
  return %g : tensor<4xf32>
}
