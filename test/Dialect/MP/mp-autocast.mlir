// RUN: mp-opt %s -split-input-file --mp-autocast | FileCheck %s
// The output verifies, parses back, and a second run changes nothing.
// RUN: mp-opt %s -split-input-file --mp-autocast -o %t
// RUN: mp-opt %t -split-input-file --mp-autocast | diff %t -

// Default categories (PyTorch's CUDA lists on mp ops) and cast minimisation.

// Allow: operands cast once to f16 at entry, f32 accumulation. The return
// wants f32, so the matmul returns its f32 accumulator instead of rounding
// it to f16 and widening it back (the f16 result of PyTorch appears where a
// user runs in f16: @clear, @promote).
// CHECK-LABEL: func.func @allow_matmul
// CHECK-SAME: (%[[X:.*]]: tensor<8x4xf32>, %[[W:.*]]: tensor<4x2xf32>) -> tensor<8x2xf32>
// CHECK-NEXT: %[[XH:.*]] = mp.cast %[[X]] : tensor<8x4xf32> to tensor<8x4xf16>
// CHECK-NEXT: %[[WH:.*]] = mp.cast %[[W]] : tensor<4x2xf32> to tensor<4x2xf16>
// CHECK-NEXT: %[[Y:.*]] = mp.matmul %[[XH]], %[[WH]] acc(f32) : tensor<8x4xf16>, tensor<4x2xf16> -> tensor<8x2xf32>
// CHECK-NEXT: return %[[Y]] : tensor<8x2xf32>
func.func @allow_matmul(%x: tensor<8x4xf32>, %w: tensor<4x2xf32>) -> tensor<8x2xf32> {
  %y = mp.matmul %x, %w acc(f32) : tensor<8x4xf32>, tensor<4x2xf32> -> tensor<8x2xf32>
  return %y : tensor<8x2xf32>
}

// -----

// The bias has the result's type: cast to f16 with an f16 result (the second
// linear feeds an f16 matmul), kept f32 with an f32 result (the first feeds
// the return).
// CHECK-LABEL: func.func @allow_linear_bias
// CHECK-SAME: (%[[X:.*]]: tensor<8x4xf32>, %[[W:.*]]: tensor<2x4xf32>, %[[B:.*]]: tensor<2xf32>, %[[V:.*]]: tensor<2x2xf32>)
// CHECK-NEXT: %[[XH:.*]] = mp.cast %[[X]] : tensor<8x4xf32> to tensor<8x4xf16>
// CHECK-NEXT: %[[WH:.*]] = mp.cast %[[W]] : tensor<2x4xf32> to tensor<2x4xf16>
// CHECK-NEXT: %[[BH:.*]] = mp.cast %[[B]] : tensor<2xf32> to tensor<2xf16>
// CHECK-NEXT: %[[VH:.*]] = mp.cast %[[V]] : tensor<2x2xf32> to tensor<2x2xf16>
// CHECK-NEXT: %[[Y:.*]] = mp.linear %[[XH]], %[[WH]], %[[B]] acc(f32) : (tensor<8x4xf16>, tensor<2x4xf16>, tensor<2xf32>) -> tensor<8x2xf32>
// CHECK-NEXT: %[[Z:.*]] = mp.linear %[[XH]], %[[WH]], %[[BH]] acc(f32) : (tensor<8x4xf16>, tensor<2x4xf16>, tensor<2xf16>) -> tensor<8x2xf16>
// CHECK-NEXT: %[[U:.*]] = mp.matmul %[[Z]], %[[VH]] acc(f32) : tensor<8x2xf16>, tensor<2x2xf16> -> tensor<8x2xf32>
// CHECK-NEXT: return %[[Y]], %[[U]]
func.func @allow_linear_bias(%x: tensor<8x4xf32>, %w: tensor<2x4xf32>, %b: tensor<2xf32>, %v: tensor<2x2xf32>)
    -> (tensor<8x2xf32>, tensor<8x2xf32>) {
  %y = mp.linear %x, %w, %b acc(f32) : (tensor<8x4xf32>, tensor<2x4xf32>, tensor<2xf32>) -> tensor<8x2xf32>
  %z = mp.linear %x, %w, %b acc(f32) : (tensor<8x4xf32>, tensor<2x4xf32>, tensor<2xf32>) -> tensor<8x2xf32>
  %u = mp.matmul %z, %v acc(f32) : tensor<8x2xf32>, tensor<2x2xf32> -> tensor<8x2xf32>
  return %y, %u : tensor<8x2xf32>, tensor<8x2xf32>
}

// -----

// Convolutions and their backward convolutions are allow ops; the filter and
// the input are cast once for the three of them. The results go to the
// return: f32 accumulators, and the bias stays f32.
// CHECK-LABEL: func.func @allow_conv
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x8x8xf32>, %[[W:.*]]: tensor<4x3x3x3xf32>, %[[B:.*]]: tensor<4xf32>, %[[DY:.*]]: tensor<2x4x6x6xf32>)
// CHECK-NEXT: %[[XH:.*]] = mp.cast %[[X]] : tensor<2x3x8x8xf32> to tensor<2x3x8x8xf16>
// CHECK-NEXT: %[[WH:.*]] = mp.cast %[[W]] : tensor<4x3x3x3xf32> to tensor<4x3x3x3xf16>
// CHECK-NEXT: %[[DYH:.*]] = mp.cast %[[DY]] : tensor<2x4x6x6xf32> to tensor<2x4x6x6xf16>
// CHECK-NEXT: %[[Y:.*]] = mp.conv2d %[[XH]], %[[WH]], %[[B]] acc(f32) : (tensor<2x3x8x8xf16>, tensor<4x3x3x3xf16>, tensor<4xf32>) -> tensor<2x4x6x6xf32>
// CHECK-NEXT: %[[DX:.*]] = mp.conv2d_grad_input %[[DYH]], %[[WH]] acc(f32) : (tensor<2x4x6x6xf16>, tensor<4x3x3x3xf16>) -> tensor<2x3x8x8xf32>
// CHECK-NEXT: %[[DW:.*]] = mp.conv2d_grad_filter %[[DYH]], %[[XH]] acc(f32) : (tensor<2x4x6x6xf16>, tensor<2x3x8x8xf16>) -> tensor<4x3x3x3xf32>
// CHECK-NEXT: return %[[Y]], %[[DX]], %[[DW]]
func.func @allow_conv(%x: tensor<2x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<4xf32>, %dy: tensor<2x4x6x6xf32>)
    -> (tensor<2x4x6x6xf32>, tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>) {
  %y = mp.conv2d %x, %w, %b acc(f32) : (tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<2x4x6x6xf32>
  %dx = mp.conv2d_grad_input %dy, %w acc(f32) : (tensor<2x4x6x6xf32>, tensor<4x3x3x3xf32>) -> tensor<2x3x8x8xf32>
  %dw = mp.conv2d_grad_filter %dy, %x acc(f32) : (tensor<2x4x6x6xf32>, tensor<2x3x8x8xf32>) -> tensor<4x3x3x3xf32>
  return %y, %dx, %dw : tensor<2x4x6x6xf32>, tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>
}

// -----

// An op already in the compute type is left as written (acc(f16) included);
// a TF32 matmul runs in f16 like any other (TF32 only applies to f32).
// CHECK-LABEL: func.func @allow_already_low
// CHECK-SAME: (%[[Q:.*]]: tensor<2x4x8xf16>, %[[K:.*]]: tensor<2x4x8xf16>, %[[A:.*]]: tensor<4x8xf32>, %[[B:.*]]: tensor<8x2xf32>)
// CHECK-NEXT: %[[AH:.*]] = mp.cast %[[A]] : tensor<4x8xf32> to tensor<4x8xf16>
// CHECK-NEXT: %[[BH:.*]] = mp.cast %[[B]] : tensor<8x2xf32> to tensor<8x2xf16>
// CHECK-NEXT: %[[S:.*]] = mp.batch_matmul %[[Q]], %[[K]] transpose_rhs acc(f16) : tensor<2x4x8xf16>, tensor<2x4x8xf16> -> tensor<2x4x4xf16>
// CHECK-NEXT: %[[C:.*]] = mp.matmul %[[AH]], %[[BH]] acc(f32) : tensor<4x8xf16>, tensor<8x2xf16> -> tensor<4x2xf32>
// CHECK-NEXT: return %[[S]], %[[C]]
func.func @allow_already_low(%q: tensor<2x4x8xf16>, %k: tensor<2x4x8xf16>, %a: tensor<4x8xf32>, %b: tensor<8x2xf32>)
    -> (tensor<2x4x4xf16>, tensor<4x2xf32>) {
  %s = mp.batch_matmul %q, %k transpose_rhs acc(f16) : tensor<2x4x8xf16>, tensor<2x4x8xf16> -> tensor<2x4x4xf16>
  %c = mp.matmul %a, %b acc(f32) compute tf32 : tensor<4x8xf32>, tensor<8x2xf32> -> tensor<4x2xf32>
  return %s, %c : tensor<2x4x4xf16>, tensor<4x2xf32>
}

// -----

// Deny: inputs in f32, result f32. The matmul's users (softmax and exp) all
// run in f32: it returns its f32 accumulator. An f16 layer_norm runs in f32
// and its result is cast back to f16 only for the return.
// CHECK-LABEL: func.func @deny
// CHECK-SAME: (%[[X:.*]]: tensor<8x4xf32>, %[[W:.*]]: tensor<4x4xf32>, %[[H:.*]]: tensor<8x4xf16>, %[[G:.*]]: tensor<4xf16>, %[[B:.*]]: tensor<4xf16>)
// CHECK-NEXT: %[[XH:.*]] = mp.cast %[[X]] : tensor<8x4xf32> to tensor<8x4xf16>
// CHECK-NEXT: %[[WH:.*]] = mp.cast %[[W]] : tensor<4x4xf32> to tensor<4x4xf16>
// CHECK-NEXT: %[[H32:.*]] = mp.cast %[[H]] : tensor<8x4xf16> to tensor<8x4xf32>
// CHECK-NEXT: %[[G32:.*]] = mp.cast %[[G]] : tensor<4xf16> to tensor<4xf32>
// CHECK-NEXT: %[[B32:.*]] = mp.cast %[[B]] : tensor<4xf16> to tensor<4xf32>
// CHECK-NEXT: %[[Y:.*]] = mp.matmul %[[XH]], %[[WH]] acc(f32) : tensor<8x4xf16>, tensor<4x4xf16> -> tensor<8x4xf32>
// CHECK-NEXT: %[[P:.*]] = mp.softmax %[[Y]] dim 1 : tensor<8x4xf32>
// CHECK-NEXT: %[[N:.*]] = mp.layer_norm %[[H32]] weight %[[G32]] bias %[[B32]] axis 1 eps 1.000000e-05 : (tensor<8x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<8x4xf32>
// CHECK-NEXT: %[[N16:.*]] = mp.cast %[[N]] : tensor<8x4xf32> to tensor<8x4xf16>
// CHECK-NEXT: %[[E:.*]] = mp.exp %[[Y]] : tensor<8x4xf32>
// CHECK-NEXT: %[[S:.*]] = mp.reduce_sum %[[E]] dims [0, 1] : tensor<8x4xf32>
// CHECK-NEXT: return %[[P]], %[[N16]], %[[S]]
func.func @deny(%x: tensor<8x4xf32>, %w: tensor<4x4xf32>, %h: tensor<8x4xf16>, %g: tensor<4xf16>, %b: tensor<4xf16>)
    -> (tensor<8x4xf32>, tensor<8x4xf16>, tensor<f32>) {
  %y = mp.matmul %x, %w acc(f32) : tensor<8x4xf32>, tensor<4x4xf32> -> tensor<8x4xf32>
  %p = mp.softmax %y dim 1 : tensor<8x4xf32>
  %n = mp.layer_norm %h weight %g bias %b axis 1 eps 1.0e-05 : (tensor<8x4xf16>, tensor<4xf16>, tensor<4xf16>) -> tensor<8x4xf16>
  %e = mp.exp %y : tensor<8x4xf32>
  %s = mp.reduce_sum %e dims [0, 1] : tensor<8x4xf32>
  return %p, %n, %s : tensor<8x4xf32>, tensor<8x4xf16>, tensor<f32>
}

// -----

// A written f32 -> f16 round trip is never folded: exp gets the f16 value
// widened (not %x), and the written cast of its result still rounds to f16.
// CHECK-LABEL: func.func @no_round_trip_fold
// CHECK-SAME: (%[[X:.*]]: tensor<8x4xf32>)
// CHECK-NEXT: %[[H:.*]] = mp.cast %[[X]] : tensor<8x4xf32> to tensor<8x4xf16>
// CHECK-NEXT: %[[H32:.*]] = mp.cast %[[H]] : tensor<8x4xf16> to tensor<8x4xf32>
// CHECK-NEXT: %[[E:.*]] = mp.exp %[[H32]] : tensor<8x4xf32>
// CHECK-NEXT: %[[E16:.*]] = mp.cast %[[E]] : tensor<8x4xf32> to tensor<8x4xf16>
// CHECK-NEXT: %[[R:.*]] = mp.cast %[[E16]] : tensor<8x4xf16> to tensor<8x4xf32>
// CHECK-NEXT: return %[[R]]
func.func @no_round_trip_fold(%x: tensor<8x4xf32>) -> tensor<8x4xf32> {
  %h = mp.cast %x : tensor<8x4xf32> to tensor<8x4xf16>
  %e = mp.exp %h : tensor<8x4xf16>
  %r = mp.cast %e : tensor<8x4xf16> to tensor<8x4xf32>
  return %r : tensor<8x4xf32>
}

// -----

// Promote: the widest input type. f16 + f16 stays f16; f16 + f32 is f32;
// bf16 (pinned) with f16 is f32. The f32 cast of %y is shared by add and sub.
// %y also feeds f16 ops, and mul and concat have an operand (%y) that stays
// f16: none of these matmuls returns f32.
// CHECK-LABEL: func.func @promote
// CHECK-SAME: (%[[X:.*]]: tensor<8x4xf32>, %[[W:.*]]: tensor<4x4xf32>, %[[R:.*]]: tensor<8x4xf32>)
// CHECK-NEXT: %[[XH:.*]] = mp.cast %[[X]] : tensor<8x4xf32> to tensor<8x4xf16>
// CHECK-NEXT: %[[WH:.*]] = mp.cast %[[W]] : tensor<4x4xf32> to tensor<4x4xf16>
// CHECK-NEXT: %[[XB:.*]] = mp.cast %[[X]] : tensor<8x4xf32> to tensor<8x4xbf16>
// CHECK-NEXT: %[[WB:.*]] = mp.cast %[[W]] : tensor<4x4xf32> to tensor<4x4xbf16>
// CHECK-NEXT: %[[Y:.*]] = mp.matmul %[[XH]], %[[WH]] acc(f32) : tensor<8x4xf16>, tensor<4x4xf16> -> tensor<8x4xf16>
// CHECK-NEXT: %[[Y32:.*]] = mp.cast %[[Y]] : tensor<8x4xf16> to tensor<8x4xf32>
// CHECK-NEXT: %[[Z:.*]] = mp.matmul %[[Y]], %[[WH]] acc(f32) : tensor<8x4xf16>, tensor<4x4xf16> -> tensor<8x4xf16>
// CHECK-NEXT: %[[RES:.*]] = mp.add %[[R]], %[[Y32]] : tensor<8x4xf32>, tensor<8x4xf32>
// CHECK-NEXT: %[[BOTH:.*]] = mp.mul %[[Y]], %[[Z]] : tensor<8x4xf16>, tensor<8x4xf16>
// CHECK-NEXT: %[[BOTH32:.*]] = mp.cast %[[BOTH]] : tensor<8x4xf16> to tensor<8x4xf32>
// CHECK-NEXT: %[[B:.*]] = mp.matmul %[[XB]], %[[WB]] acc(f32) {mp.precision = "bf16"} : tensor<8x4xbf16>, tensor<4x4xbf16> -> tensor<8x4xbf16>
// CHECK-NEXT: %[[B32:.*]] = mp.cast %[[B]] : tensor<8x4xbf16> to tensor<8x4xf32>
// CHECK-NEXT: %[[MIXED:.*]] = mp.sub %[[B32]], %[[Y32]] : tensor<8x4xf32>, tensor<8x4xf32>
// CHECK-NEXT: %[[CAT:.*]] = mp.concat %[[Y]], %[[Z]] dim 1 : tensor<8x4xf16>, tensor<8x4xf16>
// CHECK-NEXT: %[[CAT32:.*]] = mp.cast %[[CAT]] : tensor<8x8xf16> to tensor<8x8xf32>
// CHECK-NEXT: return %[[RES]], %[[BOTH32]], %[[MIXED]], %[[CAT32]]
func.func @promote(%x: tensor<8x4xf32>, %w: tensor<4x4xf32>, %r: tensor<8x4xf32>)
    -> (tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x8xf32>) {
  %y = mp.matmul %x, %w acc(f32) : tensor<8x4xf32>, tensor<4x4xf32> -> tensor<8x4xf32>
  %z = mp.matmul %y, %w acc(f32) : tensor<8x4xf32>, tensor<4x4xf32> -> tensor<8x4xf32>
  %res = mp.add %r, %y : tensor<8x4xf32>, tensor<8x4xf32>
  %both = mp.mul %y, %z : tensor<8x4xf32>, tensor<8x4xf32>
  %b = mp.matmul %x, %w acc(f32) {mp.precision = "bf16"} : tensor<8x4xf32>, tensor<4x4xf32> -> tensor<8x4xf32>
  %mixed = mp.sub %b, %y : tensor<8x4xf32>, tensor<8x4xf32>
  %cat = mp.concat %y, %z dim 1 : tensor<8x4xf32>, tensor<8x4xf32>
  return %res, %both, %mixed, %cat : tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x8xf32>
}

// -----

// Clear: relu and tanh between two matmuls stay f16 (no cast back and
// forth); neg of an f32 value stays f32; relu_grad with f16 and f32 inputs
// runs in the wider f32. The second matmul only feeds the return: f32.
// CHECK-LABEL: func.func @clear
// CHECK-SAME: (%[[X:.*]]: tensor<8x4xf32>, %[[W1:.*]]: tensor<4x4xf32>, %[[W2:.*]]: tensor<4x4xf32>, %[[V:.*]]: tensor<8x4xf32>)
// CHECK-NEXT: %[[XH:.*]] = mp.cast %[[X]] : tensor<8x4xf32> to tensor<8x4xf16>
// CHECK-NEXT: %[[W1H:.*]] = mp.cast %[[W1]] : tensor<4x4xf32> to tensor<4x4xf16>
// CHECK-NEXT: %[[W2H:.*]] = mp.cast %[[W2]] : tensor<4x4xf32> to tensor<4x4xf16>
// CHECK-NEXT: %[[H:.*]] = mp.matmul %[[XH]], %[[W1H]] acc(f32) : tensor<8x4xf16>, tensor<4x4xf16> -> tensor<8x4xf16>
// CHECK-NEXT: %[[H32:.*]] = mp.cast %[[H]] : tensor<8x4xf16> to tensor<8x4xf32>
// CHECK-NEXT: %[[R:.*]] = mp.relu %[[H]] : tensor<8x4xf16>
// CHECK-NEXT: %[[T:.*]] = mp.tanh %[[R]] : tensor<8x4xf16>
// CHECK-NEXT: %[[Y:.*]] = mp.matmul %[[T]], %[[W2H]] acc(f32) : tensor<8x4xf16>, tensor<4x4xf16> -> tensor<8x4xf32>
// CHECK-NEXT: %[[N:.*]] = mp.neg %[[V]] : tensor<8x4xf32>
// CHECK-NEXT: %[[G:.*]] = mp.relu_grad %[[H32]], %[[V]] : tensor<8x4xf32>
// CHECK-NEXT: return %[[Y]], %[[N]], %[[G]]
func.func @clear(%x: tensor<8x4xf32>, %w1: tensor<4x4xf32>, %w2: tensor<4x4xf32>, %v: tensor<8x4xf32>)
    -> (tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>) {
  %h = mp.matmul %x, %w1 acc(f32) : tensor<8x4xf32>, tensor<4x4xf32> -> tensor<8x4xf32>
  %r = mp.relu %h : tensor<8x4xf32>
  %t = mp.tanh %r : tensor<8x4xf32>
  %y = mp.matmul %t, %w2 acc(f32) : tensor<8x4xf32>, tensor<4x4xf32> -> tensor<8x4xf32>
  %n = mp.neg %v : tensor<8x4xf32>
  %g = mp.relu_grad %h, %v : tensor<8x4xf32>
  return %y, %n, %g : tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>
}

// -----

// One cast per (value, type): the weight used by two matmuls and the input
// used by two matmuls are cast once each; log_softmax reads the f32 input.
// %a also feeds a matmul: f16 and a cast; %c only feeds the return: f32.
// CHECK-LABEL: func.func @shared_casts
// CHECK-SAME: (%[[X:.*]]: tensor<8x4xf32>, %[[W:.*]]: tensor<4x4xf32>)
// CHECK-NEXT: %[[XH:.*]] = mp.cast %[[X]] : tensor<8x4xf32> to tensor<8x4xf16>
// CHECK-NEXT: %[[WH:.*]] = mp.cast %[[W]] : tensor<4x4xf32> to tensor<4x4xf16>
// CHECK-NEXT: %[[A:.*]] = mp.matmul %[[XH]], %[[WH]] acc(f32) : tensor<8x4xf16>, tensor<4x4xf16> -> tensor<8x4xf16>
// CHECK-NEXT: %[[A32:.*]] = mp.cast %[[A]] : tensor<8x4xf16> to tensor<8x4xf32>
// CHECK-NEXT: %[[B:.*]] = mp.matmul %[[A]], %[[WH]] transpose_rhs acc(f32) : tensor<8x4xf16>, tensor<4x4xf16> -> tensor<8x4xf16>
// CHECK-NEXT: %[[C:.*]] = mp.matmul %[[XH]], %[[B]] transpose_lhs acc(f32) : tensor<8x4xf16>, tensor<8x4xf16> -> tensor<4x4xf32>
// CHECK-NEXT: %[[L:.*]] = mp.log_softmax %[[X]] dim 1 : tensor<8x4xf32>
// CHECK-NEXT: return %[[A32]], %[[L]], %[[C]]
func.func @shared_casts(%x: tensor<8x4xf32>, %w: tensor<4x4xf32>) -> (tensor<8x4xf32>, tensor<8x4xf32>, tensor<4x4xf32>) {
  %a = mp.matmul %x, %w acc(f32) : tensor<8x4xf32>, tensor<4x4xf32> -> tensor<8x4xf32>
  %b = mp.matmul %a, %w transpose_rhs acc(f32) : tensor<8x4xf32>, tensor<4x4xf32> -> tensor<8x4xf32>
  %c = mp.matmul %x, %b transpose_lhs acc(f32) : tensor<8x4xf32>, tensor<8x4xf32> -> tensor<4x4xf32>
  %l = mp.log_softmax %x dim 1 : tensor<8x4xf32>
  return %a, %l, %c : tensor<8x4xf32>, tensor<8x4xf32>, tensor<4x4xf32>
}

// -----

// A reshape/transpose whose users all run in f16 runs in f16 itself, so the
// cast moves before it and is shared (the weight's cast serves the transpose
// and a matmul). The broadcast also feeds softmax: it stays f32, cast after.
// CHECK-LABEL: func.func @cast_before_shape_ops
// CHECK-SAME: (%[[X:.*]]: tensor<2x8xf32>, %[[W:.*]]: tensor<4x4xf32>, %[[B:.*]]: tensor<4xf32>)
// CHECK-NEXT: %[[XH:.*]] = mp.cast %[[X]] : tensor<2x8xf32> to tensor<2x8xf16>
// CHECK-NEXT: %[[WH:.*]] = mp.cast %[[W]] : tensor<4x4xf32> to tensor<4x4xf16>
// CHECK-NEXT: %[[XR:.*]] = mp.reshape %[[XH]] : tensor<2x8xf16> to tensor<4x4xf16>
// CHECK-NEXT: %[[WT:.*]] = mp.transpose %[[WH]] perm [1, 0] : tensor<4x4xf16>
// CHECK-NEXT: %[[Y:.*]] = mp.matmul %[[XR]], %[[WT]] acc(f32) : tensor<4x4xf16>, tensor<4x4xf16> -> tensor<4x4xf32>
// CHECK-NEXT: %[[Z:.*]] = mp.matmul %[[XR]], %[[WH]] acc(f32) : tensor<4x4xf16>, tensor<4x4xf16> -> tensor<4x4xf16>
// CHECK-NEXT: %[[BB:.*]] = mp.broadcast %[[B]] : tensor<4xf32> to tensor<4x4xf32>
// CHECK-NEXT: %[[BBH:.*]] = mp.cast %[[BB]] : tensor<4x4xf32> to tensor<4x4xf16>
// CHECK-NEXT: %[[S:.*]] = mp.softmax %[[BB]] dim 1 : tensor<4x4xf32>
// CHECK-NEXT: %[[U:.*]] = mp.matmul %[[BBH]], %[[WH]] acc(f32) : tensor<4x4xf16>, tensor<4x4xf16> -> tensor<4x4xf32>
// CHECK-NEXT: return %[[Y]], %[[S]], %[[U]]
func.func @cast_before_shape_ops(%x: tensor<2x8xf32>, %w: tensor<4x4xf32>, %b: tensor<4xf32>)
    -> (tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>) {
  %xr = mp.reshape %x : tensor<2x8xf32> to tensor<4x4xf32>
  %wt = mp.transpose %w perm [1, 0] : tensor<4x4xf32>
  %y = mp.matmul %xr, %wt acc(f32) : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  %z = mp.matmul %xr, %w acc(f32) : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  %bb = mp.broadcast %b : tensor<4xf32> to tensor<4x4xf32>
  %s = mp.softmax %bb dim 1 : tensor<4x4xf32>
  %u = mp.matmul %bb, %w acc(f32) : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  return %y, %s, %u : tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>
}

// -----

// Integer tensors are never cast: the embedding runs in its table's type,
// the int8 matmul is left alone; an FP8 matmul (mp-fp8-scaling's) too.
// CHECK-LABEL: func.func @integers_and_fp8
// CHECK-SAME: (%[[T:.*]]: tensor<16x4xf32>, %[[IDS:.*]]: tensor<8xi64>, %[[A:.*]]: tensor<4x8xi8>, %[[B:.*]]: tensor<8x2xi8>, %[[QA:.*]]: tensor<4x8xf8E4M3FN>, %[[QB:.*]]: tensor<8x2xf8E5M2>)
// CHECK-NEXT: %[[E:.*]] = mp.embedding %[[T]][%[[IDS]]] : tensor<16x4xf32>, tensor<8xi64>
// CHECK-NEXT: %[[C:.*]] = mp.matmul %[[A]], %[[B]] acc(i32) : tensor<4x8xi8>, tensor<8x2xi8> -> tensor<4x2xi32>
// CHECK-NEXT: %[[Q:.*]] = mp.matmul %[[QA]], %[[QB]] acc(f32) : tensor<4x8xf8E4M3FN>, tensor<8x2xf8E5M2> -> tensor<4x2xf32>
// CHECK-NEXT: return %[[E]], %[[C]], %[[Q]]
func.func @integers_and_fp8(%t: tensor<16x4xf32>, %ids: tensor<8xi64>, %a: tensor<4x8xi8>, %b: tensor<8x2xi8>,
                            %qa: tensor<4x8xf8E4M3FN>, %qb: tensor<8x2xf8E5M2>)
    -> (tensor<8x4xf32>, tensor<4x2xi32>, tensor<4x2xf32>) {
  %e = mp.embedding %t[%ids] : tensor<16x4xf32>, tensor<8xi64>
  %c = mp.matmul %a, %b acc(i32) : tensor<4x8xi8>, tensor<8x2xi8> -> tensor<4x2xi32>
  %q = mp.matmul %qa, %qb acc(f32) : tensor<4x8xf8E4M3FN>, tensor<8x2xf8E5M2> -> tensor<4x2xf32>
  return %e, %c, %q : tensor<8x4xf32>, tensor<4x2xi32>, tensor<4x2xf32>
}

// -----

// Exempt and unknown ops see the original types: mp.grad's loss, mp.amax,
// mp.scale and arith.addf get f32 casts (one, shared, per value). mp.grad of
// an intermediate value that became f16 differentiates the f16 value; its
// gradient is f16 and cast back for the return (so the matmul's result
// stays f16: mp.grad differentiates it as it is). The parameter's gradient
// is untouched.
// CHECK-LABEL: func.func @exempt_and_unknown
// CHECK-SAME: (%[[X:.*]]: tensor<1x4xf32>, %[[W:.*]]: tensor<4x1xf32>, %[[S:.*]]: tensor<f32>)
// CHECK-NEXT: %[[XH:.*]] = mp.cast %[[X]] : tensor<1x4xf32> to tensor<1x4xf16>
// CHECK-NEXT: %[[WH:.*]] = mp.cast %[[W]] : tensor<4x1xf32> to tensor<4x1xf16>
// CHECK-NEXT: %[[Y:.*]] = mp.matmul %[[XH]], %[[WH]] acc(f32) : tensor<1x4xf16>, tensor<4x1xf16> -> tensor<1x1xf16>
// CHECK-NEXT: %[[Y32:.*]] = mp.cast %[[Y]] : tensor<1x1xf16> to tensor<1x1xf32>
// CHECK-NEXT: %[[L:.*]] = mp.reshape %[[Y]] : tensor<1x1xf16> to tensor<f16>
// CHECK-NEXT: %[[L32:.*]] = mp.cast %[[L]] : tensor<f16> to tensor<f32>
// CHECK-NEXT: %[[G:.*]]:2 = mp.grad %[[L32]] wrt %[[W]], %[[Y]] : tensor<f32>, tensor<4x1xf32>, tensor<1x1xf16>
// CHECK-NEXT: %[[DY:.*]] = mp.cast %[[G]]#1 : tensor<1x1xf16> to tensor<1x1xf32>
// CHECK-NEXT: %[[U:.*]] = arith.addf %[[Y32]], %[[Y32]] : tensor<1x1xf32>
// CHECK-NEXT: %[[A:.*]] = mp.amax %[[Y32]] : tensor<1x1xf32>
// CHECK-NEXT: %[[SC:.*]] = mp.scale %[[L32]] by %[[S]] : tensor<f32>
// CHECK-NEXT: return %[[SC]], %[[G]]#0, %[[DY]], %[[U]], %[[A]]
func.func @exempt_and_unknown(%x: tensor<1x4xf32>, %w: tensor<4x1xf32>, %s: tensor<f32>)
    -> (tensor<f32>, tensor<4x1xf32>, tensor<1x1xf32>, tensor<1x1xf32>, tensor<f32>) {
  %y = mp.matmul %x, %w acc(f32) : tensor<1x4xf32>, tensor<4x1xf32> -> tensor<1x1xf32>
  %loss = mp.reshape %y : tensor<1x1xf32> to tensor<f32>
  %dw, %dy = mp.grad %loss wrt %w, %y : tensor<f32>, tensor<4x1xf32>, tensor<1x1xf32>
  %u = arith.addf %y, %y : tensor<1x1xf32>
  %a = mp.amax %y : tensor<1x1xf32>
  %sc = mp.scale %loss by %s : tensor<f32>
  return %sc, %dw, %dy, %u, %a : tensor<f32>, tensor<4x1xf32>, tensor<1x1xf32>, tensor<1x1xf32>, tensor<f32>
}

// -----

// Ops with regions are left as they are; ops inside them are rewritten, the
// casts of outer values are placed (once) after their definitions, and a
// yielded value gets its original type back: the matmuls return f32.
// CHECK-LABEL: func.func @regions
// CHECK-SAME: (%[[C:.*]]: i1, %[[X:.*]]: tensor<4x4xf32>, %[[W:.*]]: tensor<4x4xf32>)
// CHECK-NEXT: %[[XH:.*]] = mp.cast %[[X]] : tensor<4x4xf32> to tensor<4x4xf16>
// CHECK-NEXT: %[[WH:.*]] = mp.cast %[[W]] : tensor<4x4xf32> to tensor<4x4xf16>
// CHECK-NEXT: %[[R:.*]] = scf.if %[[C]] -> (tensor<4x4xf32>) {
// CHECK-NEXT:   %[[Y:.*]] = mp.matmul %[[XH]], %[[WH]] acc(f32) : tensor<4x4xf16>, tensor<4x4xf16> -> tensor<4x4xf32>
// CHECK-NEXT:   scf.yield %[[Y]] : tensor<4x4xf32>
// CHECK-NEXT: } else {
// CHECK-NEXT:   scf.yield %[[X]] : tensor<4x4xf32>
// CHECK-NEXT: }
// CHECK-NEXT: %[[RH:.*]] = mp.cast %[[R]] : tensor<4x4xf32> to tensor<4x4xf16>
// CHECK-NEXT: %[[Z:.*]] = mp.matmul %[[RH]], %[[WH]] acc(f32) : tensor<4x4xf16>, tensor<4x4xf16> -> tensor<4x4xf32>
// CHECK-NEXT: return %[[Z]]
func.func @regions(%c: i1, %x: tensor<4x4xf32>, %w: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %r = scf.if %c -> tensor<4x4xf32> {
    %y = mp.matmul %x, %w acc(f32) : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
    scf.yield %y : tensor<4x4xf32>
  } else {
    scf.yield %x : tensor<4x4xf32>
  }
  %z = mp.matmul %r, %w acc(f32) : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  return %z : tensor<4x4xf32>
}

// -----

// Backward ops of an explicit joint graph: gradient matmuls are allow (and
// share the forward's casts of %x and %w), softmax_grad and layer_norm_grad
// deny, relu_grad and embedding_grad clear, maximum_grad promote. Every use
// of %y, %dx and %dr runs in f32 (relu_grad, a clear op, runs in f32 on the
// f32 results): the matmuls return their f32 accumulators and no cast back
// to f32 is needed.
// CHECK-LABEL: func.func @backward_ops
// CHECK-SAME: (%[[DY:.*]]: tensor<8x4xf32>, %[[X:.*]]: tensor<8x4xf32>, %[[W:.*]]: tensor<4x4xf32>, %[[G:.*]]: tensor<4xf32>, %[[IDS:.*]]: tensor<8xi64>)
// CHECK-NEXT: %[[XH:.*]] = mp.cast %[[X]] : tensor<8x4xf32> to tensor<8x4xf16>
// CHECK-NEXT: %[[WH:.*]] = mp.cast %[[W]] : tensor<4x4xf32> to tensor<4x4xf16>
// CHECK-NEXT: %[[Y:.*]] = mp.matmul %[[XH]], %[[WH]] acc(f32) : tensor<8x4xf16>, tensor<4x4xf16> -> tensor<8x4xf32>
// CHECK-NEXT: %[[P:.*]] = mp.softmax %[[Y]] dim 1 : tensor<8x4xf32>
// CHECK-NEXT: %[[DP:.*]] = mp.softmax_grad %[[DY]], %[[P]] dim 1 : tensor<8x4xf32>
// CHECK-NEXT: %[[DPH:.*]] = mp.cast %[[DP]] : tensor<8x4xf32> to tensor<8x4xf16>
// CHECK-NEXT: %[[DX:.*]] = mp.matmul %[[DPH]], %[[WH]] transpose_rhs acc(f32) : tensor<8x4xf16>, tensor<4x4xf16> -> tensor<8x4xf32>
// CHECK-NEXT: %[[DW:.*]] = mp.matmul %[[XH]], %[[DPH]] transpose_lhs acc(f32) : tensor<8x4xf16>, tensor<8x4xf16> -> tensor<4x4xf32>
// CHECK-NEXT: %[[DR:.*]] = mp.relu_grad %[[DX]], %[[Y]] : tensor<8x4xf32>
// CHECK-NEXT: %[[DN:.*]], %[[DG:.*]], %{{.*}} = mp.layer_norm_grad %[[DR]], %[[X]] weight %[[G]] axis 1 eps 1.000000e-05 : (tensor<8x4xf32>, tensor<8x4xf32>, tensor<4xf32>) -> (tensor<8x4xf32>, tensor<4xf32>, tensor<4xf32>)
// CHECK-NEXT: %[[DA:.*]], %[[DB:.*]] = mp.maximum_grad %[[DR]], %[[Y]], %[[X]] : tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>
// CHECK-NEXT: %[[DE:.*]] = mp.embedding_grad %[[DR]], %[[IDS]] : (tensor<8x4xf32>, tensor<8xi64>) -> tensor<16x4xf32>
// CHECK-NEXT: return %[[DR]], %[[DW]], %[[DN]], %[[DG]], %[[DA]], %[[DB]], %[[DE]]
func.func @backward_ops(%dy: tensor<8x4xf32>, %x: tensor<8x4xf32>, %w: tensor<4x4xf32>, %g: tensor<4xf32>, %ids: tensor<8xi64>)
    -> (tensor<8x4xf32>, tensor<4x4xf32>, tensor<8x4xf32>, tensor<4xf32>, tensor<8x4xf32>, tensor<8x4xf32>, tensor<16x4xf32>) {
  %y = mp.matmul %x, %w acc(f32) : tensor<8x4xf32>, tensor<4x4xf32> -> tensor<8x4xf32>
  %p = mp.softmax %y dim 1 : tensor<8x4xf32>
  %dp = mp.softmax_grad %dy, %p dim 1 : tensor<8x4xf32>
  %dx = mp.matmul %dp, %w transpose_rhs acc(f32) : tensor<8x4xf32>, tensor<4x4xf32> -> tensor<8x4xf32>
  %dw = mp.matmul %x, %dp transpose_lhs acc(f32) : tensor<8x4xf32>, tensor<8x4xf32> -> tensor<4x4xf32>
  %dr = mp.relu_grad %dx, %y : tensor<8x4xf32>
  %dn, %dg, %db = mp.layer_norm_grad %dr, %x weight %g axis 1 eps 1.0e-05
      : (tensor<8x4xf32>, tensor<8x4xf32>, tensor<4xf32>) -> (tensor<8x4xf32>, tensor<4xf32>, tensor<4xf32>)
  %da, %dbb = mp.maximum_grad %dr, %y, %x : tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>
  %de = mp.embedding_grad %dr, %ids : (tensor<8x4xf32>, tensor<8xi64>) -> tensor<16x4xf32>
  return %dr, %dw, %dn, %dg, %da, %dbb, %de : tensor<8x4xf32>, tensor<4x4xf32>, tensor<8x4xf32>, tensor<4xf32>, tensor<8x4xf32>, tensor<8x4xf32>, tensor<16x4xf32>
}

// -----

// Blocks need not be listed in dominance order: users visited before the
// definition they use was rewritten keep the type they were written with
// (here f32, so the matmul returns f32 and no cast is needed).
// CHECK-LABEL: func.func @block_order
// CHECK-SAME: (%[[X:.*]]: tensor<4x4xf32>, %[[W:.*]]: tensor<4x4xf32>)
// CHECK-NEXT: %[[XH:.*]] = mp.cast %[[X]] : tensor<4x4xf32> to tensor<4x4xf16>
// CHECK-NEXT: %[[WH:.*]] = mp.cast %[[W]] : tensor<4x4xf32> to tensor<4x4xf16>
// CHECK-NEXT: cf.br ^[[DEF:.*]]
// CHECK-NEXT: ^[[USE:.*]](%{{.*}}: tensor<4x4xf32>):
// CHECK-NEXT: %[[E:.*]] = mp.exp %[[Y:.*]] : tensor<4x4xf32>
// CHECK-NEXT: %[[U:.*]] = arith.addf %[[Y]], %[[E]] : tensor<4x4xf32>
// CHECK-NEXT: return %[[U]]
// CHECK-NEXT: ^[[DEF]]:
// CHECK-NEXT: %[[Y]] = mp.matmul %[[XH]], %[[WH]] acc(f32) : tensor<4x4xf16>, tensor<4x4xf16> -> tensor<4x4xf32>
// CHECK-NEXT: cf.br ^[[USE]](%[[Y]] : tensor<4x4xf32>)
func.func @block_order(%x: tensor<4x4xf32>, %w: tensor<4x4xf32>) -> tensor<4x4xf32> {
  cf.br ^def
^use(%a: tensor<4x4xf32>):
  %e = mp.exp %y : tensor<4x4xf32>
  %u = arith.addf %y, %e : tensor<4x4xf32>
  return %u : tensor<4x4xf32>
^def:
  %y = mp.matmul %x, %w acc(f32) : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  cf.br ^use(%y : tensor<4x4xf32>)
}

// -----

// A cast already in the input is reused (and moved up to the value's
// definition) when autocast needs the same conversion; a saturating FP8
// cast is a different conversion and stays where it is.
// CHECK-LABEL: func.func @reuse_written_cast
// CHECK-SAME: (%[[X:.*]]: tensor<4x4xf32>, %[[W:.*]]: tensor<4x4xf32>)
// CHECK-NEXT: %[[XH:.*]] = mp.cast %[[X]] : tensor<4x4xf32> to tensor<4x4xf16>
// CHECK-NEXT: %[[WH:.*]] = mp.cast %[[W]] : tensor<4x4xf32> to tensor<4x4xf16>
// CHECK-NEXT: %[[A:.*]] = mp.matmul %[[XH]], %[[WH]] acc(f32) : tensor<4x4xf16>, tensor<4x4xf16> -> tensor<4x4xf32>
// CHECK-NEXT: %{{.*}} = mp.cast %[[X]] saturate : tensor<4x4xf32> to tensor<4x4xf8E4M3FN>
// CHECK-NEXT: %[[B:.*]] = mp.matmul %[[WH]], %[[WH]] acc(f32) : tensor<4x4xf16>, tensor<4x4xf16> -> tensor<4x4xf16>
// CHECK-NEXT: return %[[B]], %[[A]]
func.func @reuse_written_cast(%x: tensor<4x4xf32>, %w: tensor<4x4xf32>) -> (tensor<4x4xf16>, tensor<4x4xf32>) {
  %a = mp.matmul %x, %w acc(f32) : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  %wh = mp.cast %w : tensor<4x4xf32> to tensor<4x4xf16>
  %xs = mp.cast %x saturate : tensor<4x4xf32> to tensor<4x4xf8E4M3FN>
  %b = mp.matmul %wh, %wh acc(f32) : tensor<4x4xf16>, tensor<4x4xf16> -> tensor<4x4xf16>
  return %b, %a : tensor<4x4xf16>, tensor<4x4xf32>
}

// -----

// Results consumed in f32: the two matmuls feeding an add whose result only
// reaches a deny op (through gelu) return f32, and the add and gelu run in
// f32 on them (no cast at all). A promote op with an operand that stays f16
// (the pinned relu) stays f16, and so does the matmul feeding it: widening
// them would need a cast of the relu. A linear written with an f16 bias
// keeps its f16 result (an f32 result would need the bias widened: a round
// trip), and the written cast after it stays. A reshape between a matmul
// and a deny op runs in f32.
// CHECK-LABEL: func.func @f32_results
// CHECK-SAME: (%[[X:.*]]: tensor<8x4xf32>, %[[W:.*]]: tensor<4x4xf32>, %[[B:.*]]: tensor<4xf16>)
// CHECK-NEXT: %[[XH:.*]] = mp.cast %[[X]] : tensor<8x4xf32> to tensor<8x4xf16>
// CHECK-NEXT: %[[WH:.*]] = mp.cast %[[W]] : tensor<4x4xf32> to tensor<4x4xf16>
// CHECK-NEXT: %[[A:.*]] = mp.matmul %[[XH]], %[[WH]] acc(f32) : tensor<8x4xf16>, tensor<4x4xf16> -> tensor<8x4xf32>
// CHECK-NEXT: %[[C:.*]] = mp.matmul %[[XH]], %[[WH]] transpose_rhs acc(f32) : tensor<8x4xf16>, tensor<4x4xf16> -> tensor<8x4xf32>
// CHECK-NEXT: %[[S:.*]] = mp.add %[[A]], %[[C]] : tensor<8x4xf32>, tensor<8x4xf32>
// CHECK-NEXT: %[[G:.*]] = mp.gelu %[[S]] approximate tanh : tensor<8x4xf32>
// CHECK-NEXT: %[[N:.*]] = mp.reduce_sum %[[G]] dims [0, 1] : tensor<8x4xf32>
// CHECK-NEXT: %[[D:.*]] = mp.matmul %[[XH]], %[[WH]] acc(f32) : tensor<8x4xf16>, tensor<4x4xf16> -> tensor<8x4xf16>
// CHECK-NEXT: %[[P:.*]] = mp.relu %[[XH]] {mp.precision = "f16"} : tensor<8x4xf16>
// CHECK-NEXT: %[[M:.*]] = mp.add %[[D]], %[[P]] : tensor<8x4xf16>, tensor<8x4xf16>
// CHECK-NEXT: %[[M32:.*]] = mp.cast %[[M]] : tensor<8x4xf16> to tensor<8x4xf32>
// CHECK-NEXT: %[[L:.*]] = mp.linear %[[XH]], %[[WH]], %[[B]] acc(f32) : (tensor<8x4xf16>, tensor<4x4xf16>, tensor<4xf16>) -> tensor<8x4xf16>
// CHECK-NEXT: %[[L32:.*]] = mp.cast %[[L]] : tensor<8x4xf16> to tensor<8x4xf32>
// CHECK-NEXT: %[[E:.*]] = mp.matmul %[[XH]], %[[WH]] acc(f32) : tensor<8x4xf16>, tensor<4x4xf16> -> tensor<8x4xf32>
// CHECK-NEXT: %[[R:.*]] = mp.reshape %[[E]] : tensor<8x4xf32> to tensor<2x16xf32>
// CHECK-NEXT: %[[T:.*]] = mp.exp %[[R]] : tensor<2x16xf32>
// CHECK-NEXT: return %[[N]], %[[M32]], %[[L32]], %[[T]]
func.func @f32_results(%x: tensor<8x4xf32>, %w: tensor<4x4xf32>, %b: tensor<4xf16>)
    -> (tensor<f32>, tensor<8x4xf32>, tensor<8x4xf32>, tensor<2x16xf32>) {
  %a = mp.matmul %x, %w acc(f32) : tensor<8x4xf32>, tensor<4x4xf32> -> tensor<8x4xf32>
  %c = mp.matmul %x, %w transpose_rhs acc(f32) : tensor<8x4xf32>, tensor<4x4xf32> -> tensor<8x4xf32>
  %s = mp.add %a, %c : tensor<8x4xf32>, tensor<8x4xf32>
  %g = mp.gelu %s approximate tanh : tensor<8x4xf32>
  %n = mp.reduce_sum %g dims [0, 1] : tensor<8x4xf32>
  %d = mp.matmul %x, %w acc(f32) : tensor<8x4xf32>, tensor<4x4xf32> -> tensor<8x4xf32>
  %p = mp.relu %x {mp.precision = "f16"} : tensor<8x4xf32>
  %m = mp.add %d, %p : tensor<8x4xf32>, tensor<8x4xf32>
  %l = mp.linear %x, %w, %b acc(f32) : (tensor<8x4xf32>, tensor<4x4xf32>, tensor<4xf16>) -> tensor<8x4xf16>
  %l32 = mp.cast %l : tensor<8x4xf16> to tensor<8x4xf32>
  %e = mp.matmul %x, %w acc(f32) : tensor<8x4xf32>, tensor<4x4xf32> -> tensor<8x4xf32>
  %r = mp.reshape %e : tensor<8x4xf32> to tensor<2x16xf32>
  %t = mp.exp %r : tensor<2x16xf32>
  return %n, %m, %l32, %t : tensor<f32>, tensor<8x4xf32>, tensor<8x4xf32>, tensor<2x16xf32>
}
