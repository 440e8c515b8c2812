// mp-autodiff on the ops of MPPoolingOps.td and MPActivationOps.td: the
// backward op of each, select's routed and reduced adjoints, stop_gradient
// as a constant, and integer shape ops that are never differentiated.
// RUN: mp-opt %s -mp-autodiff -split-input-file -verify-diagnostics | FileCheck %s
// RUN: mp-opt %s -mp-autodiff -split-input-file | mp-opt -split-input-file | FileCheck %s --check-prefix=NOGRAD
// NOGRAD-NOT: mp.grad

// The pooling adjoints: max_pool2d_grad recomputes the selection from the
// input (same attributes), avg_pool2d_grad and adaptive_avg_pool2d_grad
// take only the adjoint.
// CHECK-LABEL: func.func @pooling
// CHECK-SAME: (%[[X:.*]]: tensor<1x2x6x6xf16>)
// CHECK:      %[[M:.*]] = mp.max_pool2d %[[X]] kernel [3, 3] stride [2, 2] padding [1, 1] ceil_mode : tensor<1x2x6x6xf16>
// CHECK-NEXT: %[[A:.*]] = mp.avg_pool2d %[[M]] kernel [2, 2] count_include_pad false : tensor<1x2x4x4xf16>
// CHECK-NEXT: %[[P:.*]] = mp.adaptive_avg_pool2d %[[A]] output_size [1, 1] : tensor<1x2x2x2xf16>
// CHECK:      %[[DP:.*]] = mp.broadcast %{{.*}} : tensor<1x1x1x1xf16> to tensor<1x2x1x1xf16>
// CHECK-NEXT: %[[DA:.*]] = mp.adaptive_avg_pool2d_grad %[[DP]] : tensor<1x2x1x1xf16> to tensor<1x2x2x2xf16>
// CHECK-NEXT: %[[DM:.*]] = mp.avg_pool2d_grad %[[DA]] kernel [2, 2] count_include_pad false : tensor<1x2x2x2xf16> to tensor<1x2x4x4xf16>
// CHECK-NEXT: %[[DX:.*]] = mp.max_pool2d_grad %[[DM]], %[[X]] kernel [3, 3] stride [2, 2] padding [1, 1] ceil_mode : tensor<1x2x4x4xf16>, tensor<1x2x6x6xf16>
// CHECK-NEXT: return %[[DX]]
func.func @pooling(%x: tensor<1x2x6x6xf16>) -> tensor<1x2x6x6xf16> {
  %m = mp.max_pool2d %x kernel [3, 3] stride [2, 2] padding [1, 1] ceil_mode : tensor<1x2x6x6xf16>
  %a = mp.avg_pool2d %m kernel [2, 2] count_include_pad false : tensor<1x2x4x4xf16>
  %p = mp.adaptive_avg_pool2d %a output_size [1, 1] : tensor<1x2x2x2xf16>
  %l = mp.reduce_sum %p dims [0, 1, 2, 3] : tensor<1x2x1x1xf16>
  %dx = mp.grad %l wrt %x : tensor<f16>, tensor<1x2x6x6xf16>
  return %dx : tensor<1x2x6x6xf16>
}

// -----

// Each activation's adjoint is its backward op on (dy, x), with the
// forward's attributes.
// CHECK-LABEL: func.func @activations
// CHECK-SAME: (%[[X:.*]]: tensor<8xf32>)
// CHECK:      %[[C:.*]] = mp.clamp %[[X]] min 0.000000e+00 max 6.000000e+00 hardtanh
// CHECK-NEXT: %[[S:.*]] = mp.silu %[[C]]
// CHECK-NEXT: %[[HS:.*]] = mp.hardswish %[[S]]
// CHECK-NEXT: %[[HG:.*]] = mp.hardsigmoid %[[HS]]
// CHECK-NEXT: %[[LR:.*]] = mp.leaky_relu %[[HG]] negative_slope 2.000000e-01
// CHECK-NEXT: %[[E:.*]] = mp.erf %[[LR]]
// CHECK-NEXT: %[[AB:.*]] = mp.abs %[[E]]
// CHECK-NEXT: %[[CL:.*]] = mp.clamp %[[AB]] max 5.000000e-01
// CHECK:      %[[D0:.*]] = mp.broadcast
// CHECK-NEXT: %[[D1:.*]] = mp.clamp_grad %[[D0]], %[[AB]] max 5.000000e-01 : tensor<8xf32>
// CHECK-NEXT: %[[D2:.*]] = mp.abs_grad %[[D1]], %[[E]] : tensor<8xf32>
// CHECK-NEXT: %[[D3:.*]] = mp.erf_grad %[[D2]], %[[LR]] : tensor<8xf32>
// CHECK-NEXT: %[[D4:.*]] = mp.leaky_relu_grad %[[D3]], %[[HG]] negative_slope 2.000000e-01 : tensor<8xf32>
// CHECK-NEXT: %[[D5:.*]] = mp.hardsigmoid_grad %[[D4]], %[[HS]] : tensor<8xf32>
// CHECK-NEXT: %[[D6:.*]] = mp.hardswish_grad %[[D5]], %[[S]] : tensor<8xf32>
// CHECK-NEXT: %[[D7:.*]] = mp.silu_grad %[[D6]], %[[C]] : tensor<8xf32>
// CHECK-NEXT: %[[D8:.*]] = mp.clamp_grad %[[D7]], %[[X]] min 0.000000e+00 max 6.000000e+00 hardtanh : tensor<8xf32>
// CHECK-NEXT: return %[[D8]]
func.func @activations(%x: tensor<8xf32>) -> tensor<8xf32> {
  %0 = mp.clamp %x min 0.0 max 6.0 hardtanh : tensor<8xf32>
  %1 = mp.silu %0 : tensor<8xf32>
  %2 = mp.hardswish %1 : tensor<8xf32>
  %3 = mp.hardsigmoid %2 : tensor<8xf32>
  %4 = mp.leaky_relu %3 negative_slope 0.2 : tensor<8xf32>
  %5 = mp.erf %4 : tensor<8xf32>
  %6 = mp.abs %5 : tensor<8xf32>
  %7 = mp.clamp %6 max 0.5 : tensor<8xf32>
  %l = mp.reduce_sum %7 dims [0] : tensor<8xf32>
  %dx = mp.grad %l wrt %x : tensor<f32>, tensor<8xf32>
  return %dx : tensor<8xf32>
}

// -----

// select: the adjoint goes to the chosen side (mp.select with a 0-d zero) and
// is summed back to each operand's broadcast shape; the condition, computed
// by mp.compare, gets none.
// CHECK-LABEL: func.func @select
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>, %[[Y:.*]]: tensor<8xf32>)
// CHECK:      %[[C:.*]] = mp.compare gt, %[[X]], %[[Y]] : tensor<4x8xf32>, tensor<8xf32>
// CHECK-NEXT: %[[S:.*]] = mp.select %[[C]], %[[X]], %[[Y]]
// CHECK:      %[[DY:.*]] = mp.broadcast %{{.*}} : tensor<1x1xf32> to tensor<4x8xf32>
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[DX:.*]] = mp.select %[[C]], %[[DY]], %[[ZERO]] : tensor<4x8xi1>, tensor<4x8xf32>, tensor<f32>
// CHECK-NEXT: %[[DYF:.*]] = mp.select %[[C]], %[[ZERO]], %[[DY]] : tensor<4x8xi1>, tensor<f32>, tensor<4x8xf32>
// CHECK-NEXT: %[[DYR:.*]] = mp.reduce_sum %[[DYF]] dims [0] : tensor<4x8xf32>
// CHECK-NEXT: return %[[DX]], %[[DYR]]
func.func @select(%x: tensor<4x8xf32>, %y: tensor<8xf32>) -> (tensor<4x8xf32>, tensor<8xf32>) {
  %c = mp.compare gt, %x, %y : tensor<4x8xf32>, tensor<8xf32>
  %s = mp.select %c, %x, %y : tensor<4x8xi1>, tensor<4x8xf32>, tensor<8xf32>
  %l = mp.reduce_sum %s dims [0, 1] : tensor<4x8xf32>
  %dx, %dy = mp.grad %l wrt %x, %y : tensor<f32>, tensor<4x8xf32>, tensor<8xf32>
  return %dx, %dy : tensor<4x8xf32>, tensor<8xf32>
}

// -----

// stop_gradient: its result is a constant. y = x · stop_gradient(exp(x))
// differentiates to dy · stop_gradient(exp(x)) only; exp gets no adjoint.
// CHECK-LABEL: func.func @stop_gradient
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
// CHECK:      %[[E:.*]] = mp.exp %[[X]]
// CHECK-NEXT: %[[C:.*]] = mp.stop_gradient %[[E]]
// CHECK-NEXT: %[[Y:.*]] = mp.mul %[[X]], %[[C]]
// CHECK:      %[[DY:.*]] = mp.broadcast
// CHECK-NEXT: %[[DX:.*]] = mp.mul %[[DY]], %[[C]]
// CHECK-NEXT: return %[[DX]]
func.func @stop_gradient(%x: tensor<4xf32>) -> tensor<4xf32> {
  %e = mp.exp %x : tensor<4xf32>
  %c = mp.stop_gradient %e : tensor<4xf32>
  %y = mp.mul %x, %c : tensor<4xf32>, tensor<4xf32>
  %l = mp.reduce_sum %y dims [0] : tensor<4xf32>
  %dx = mp.grad %l wrt %x : tensor<f32>, tensor<4xf32>
  return %dx : tensor<4xf32>
}

// -----

// What only feeds a stop_gradient is not differentiated, even an op without
// a gradient (here a backward op); the loss then does not depend on %x.
// CHECK-LABEL: func.func @stop_gradient_blocks
// CHECK-NEXT: mp.relu_grad
// CHECK-NEXT: mp.stop_gradient
// CHECK-NEXT: mp.reduce_sum
// CHECK-NEXT: %[[Z:.*]] = arith.constant dense<0.000000e+00> : tensor<4xf32>
// CHECK-NEXT: return %[[Z]]
func.func @stop_gradient_blocks(%x: tensor<4xf32>) -> tensor<4xf32> {
  %g = mp.relu_grad %x, %x : tensor<4xf32>
  %c = mp.stop_gradient %g : tensor<4xf32>
  %l = mp.reduce_sum %c dims [0] : tensor<4xf32>
  // expected-warning @+1 {{gradient of value #0 (function argument #0) is zero: the loss does not depend on it}}
  %dx = mp.grad %l wrt %x : tensor<f32>, tensor<4xf32>
  return %dx : tensor<4xf32>
}

// -----

// Integer labels flattened by mp.reshape ([B, T] -> [B·T]) feed
// cross_entropy: the integer reshape is never asked for an adjoint.
// CHECK-LABEL: func.func @integer_labels
// CHECK-SAME: (%[[LOGITS:.*]]: tensor<2x3x5xf32>, %[[LABELS:.*]]: tensor<2x3xi64>)
// CHECK:      %[[FLAT:.*]] = mp.reshape %[[LABELS]] : tensor<2x3xi64> to tensor<6xi64>
// CHECK:      %[[D:.*]] = mp.cross_entropy_grad %{{.*}}, %{{.*}}, %[[FLAT]]
// CHECK-NEXT: %[[DL:.*]] = mp.reshape %[[D]] : tensor<6x5xf32> to tensor<2x3x5xf32>
// CHECK-NEXT: return %[[DL]]
func.func @integer_labels(%logits: tensor<2x3x5xf32>, %labels: tensor<2x3xi64>) -> tensor<2x3x5xf32> {
  %flat = mp.reshape %labels : tensor<2x3xi64> to tensor<6xi64>
  %l2 = mp.reshape %logits : tensor<2x3x5xf32> to tensor<6x5xf32>
  %loss = mp.cross_entropy %l2, %flat : tensor<6x5xf32>, tensor<6xi64>
  %d = mp.grad %loss wrt %logits : tensor<f32>, tensor<2x3x5xf32>
  return %d : tensor<2x3x5xf32>
}
