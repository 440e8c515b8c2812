// RUN: mp-opt %s -split-input-file -verify-diagnostics

// Negative tests of the mp dialect: every verifier and type-inference rule of
// lib/Dialect/MP/IR/MPOps.cpp and every attribute rule of
// lib/Dialect/MP/IR/MPDialect.cpp, plus representative ODS constraint and
// custom-syntax failures.

//===----------------------------------------------------------------------===//
// mp.matmul / mp.batch_matmul
//===----------------------------------------------------------------------===//

// matmul: lhs must have rank 2.
func.func @matmul_lhs_rank(%a: tensor<2x4x8xf32>, %b: tensor<8x4xf32>) {
  // expected-error @+1 {{'mp.matmul' op expects lhs of rank 2, got rank 3}}
  %0 = mp.matmul %a, %b acc(f32) : tensor<2x4x8xf32>, tensor<8x4xf32> -> tensor<4x4xf32>
  return
}

// -----

// matmul: rhs must have rank 2.
func.func @matmul_rhs_rank(%a: tensor<4x8xf32>, %b: tensor<8xf32>) {
  // expected-error @+1 {{'mp.matmul' op expects rhs of rank 2, got rank 1}}
  %0 = mp.matmul %a, %b acc(f32) : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x4xf32>
  return
}

// -----

// batch_matmul: operands must have rank >= 3.
func.func @batch_matmul_lhs_rank(%a: tensor<4x8xf32>, %b: tensor<2x8x4xf32>) {
  // expected-error @+1 {{'mp.batch_matmul' op expects lhs of rank at least 3, got rank 2}}
  %0 = mp.batch_matmul %a, %b acc(f32) : tensor<4x8xf32>, tensor<2x8x4xf32> -> tensor<2x4x4xf32>
  return
}

// -----

// batch_matmul: rhs rank >= 3 too.
func.func @batch_matmul_rhs_rank(%a: tensor<2x4x8xf32>, %b: tensor<8x4xf32>) {
  // expected-error @+1 {{'mp.batch_matmul' op expects rhs of rank at least 3, got rank 2}}
  %0 = mp.batch_matmul %a, %b acc(f32) : tensor<2x4x8xf32>, tensor<8x4xf32> -> tensor<2x4x4xf32>
  return
}

// -----

// batch_matmul: operands of equal rank.
func.func @batch_matmul_equal_rank(%a: tensor<2x4x8xf32>, %b: tensor<3x2x8x4xf32>) {
  // expected-error @+1 {{'mp.batch_matmul' op expects operands of equal rank, got 3 and 4}}
  %0 = mp.batch_matmul %a, %b acc(f32) : tensor<2x4x8xf32>, tensor<3x2x8x4xf32> -> tensor<2x4x4xf32>
  return
}

// -----

// Contraction types: operands of one element type.
func.func @matmul_mixed_elements(%a: tensor<4x8xf16>, %b: tensor<8x4xf32>) {
  // expected-error @+1 {{'mp.matmul' op expects operands of one element type, got 'f16' and 'f32'}}
  %0 = mp.matmul %a, %b acc(f32) : tensor<4x8xf16>, tensor<8x4xf32> -> tensor<4x4xf32>
  return
}

// -----

// Contraction types: FP8 pairs with FP8 only (not with f16).
func.func @matmul_fp8_with_f16(%a: tensor<4x8xf8E4M3FN>, %b: tensor<8x4xf16>) {
  // expected-error @+1 {{'mp.matmul' op expects operands of one element type, got 'f8E4M3FN' and 'f16'}}
  %0 = mp.matmul %a, %b acc(f32) : tensor<4x8xf8E4M3FN>, tensor<8x4xf16> -> tensor<4x4xf16>
  return
}

// -----

// Contraction types: int8 does not pair with a float.
func.func @matmul_i8_with_f32(%a: tensor<4x8xi8>, %b: tensor<8x4xf32>) {
  // expected-error @+1 {{'mp.matmul' op expects operands of one element type, got 'i8' and 'f32'}}
  %0 = mp.matmul %a, %b acc(i32) : tensor<4x8xi8>, tensor<8x4xf32> -> tensor<4x4xi32>
  return
}

// -----

// Contraction types: int8 operands need acc(i32).
func.func @matmul_i8_acc_f32(%a: tensor<4x8xi8>, %b: tensor<8x4xi8>) {
  // expected-error @+1 {{'mp.matmul' op int8 operands require acc(i32) and an i32 result, got acc('f32') and 'i32'}}
  %0 = mp.matmul %a, %b acc(f32) : tensor<4x8xi8>, tensor<8x4xi8> -> tensor<4x4xi32>
  return
}

// -----

// Contraction types: int8 operands need an i32 result.
func.func @matmul_i8_f32_result(%a: tensor<4x8xi8>, %b: tensor<8x4xi8>) {
  // expected-error @+1 {{'mp.matmul' op int8 operands require acc(i32) and an i32 result, got acc('i32') and 'f32'}}
  %0 = mp.matmul %a, %b acc(i32) : tensor<4x8xi8>, tensor<8x4xi8> -> tensor<4x4xf32>
  return
}

// -----

// Contraction types: an i32 result needs int8 operands.
func.func @matmul_i32_result_f16(%a: tensor<4x8xf16>, %b: tensor<8x4xf16>) {
  // expected-error @+1 {{'mp.matmul' op an i32 result requires int8 operands, got 'f16'}}
  %0 = mp.matmul %a, %b acc(f32) : tensor<4x8xf16>, tensor<8x4xf16> -> tensor<4x4xi32>
  return
}

// -----

// Contraction types: acc_type f16 only for f16 operands.
func.func @matmul_f32_acc_f16(%a: tensor<4x8xf32>, %b: tensor<8x4xf32>) {
  // expected-error @+1 {{'mp.matmul' op acc_type must be f32 (or f16 for f16 operands), got 'f16' for 'f32' operands}}
  %0 = mp.matmul %a, %b acc(f16) : tensor<4x8xf32>, tensor<8x4xf32> -> tensor<4x4xf32>
  return
}

// -----

// Contraction types: acc_type bf16 is never allowed.
func.func @batch_matmul_acc_bf16(%a: tensor<2x4x8xbf16>, %b: tensor<2x8x4xbf16>) {
  // expected-error @+1 {{'mp.batch_matmul' op acc_type must be f32 (or f16 for f16 operands), got 'bf16' for 'bf16' operands}}
  %0 = mp.batch_matmul %a, %b acc(bf16) : tensor<2x4x8xbf16>, tensor<2x8x4xbf16> -> tensor<2x4x4xbf16>
  return
}

// -----

// Contraction types: acc_type i32 for float operands.
func.func @matmul_f16_acc_i32(%a: tensor<4x8xf16>, %b: tensor<8x4xf16>) {
  // expected-error @+1 {{'mp.matmul' op acc_type must be f32 (or f16 for f16 operands), got 'i32' for 'f16' operands}}
  %0 = mp.matmul %a, %b acc(i32) : tensor<4x8xf16>, tensor<8x4xf16> -> tensor<4x4xf16>
  return
}

// -----

// compute tf32 requires f32 operands.
func.func @matmul_tf32_f16(%a: tensor<4x8xf16>, %b: tensor<8x4xf16>) {
  // expected-error @+1 {{'mp.matmul' op compute mode tf32 requires f32 operands, got 'f16'}}
  %0 = mp.matmul %a, %b acc(f32) compute tf32 : tensor<4x8xf16>, tensor<8x4xf16> -> tensor<4x4xf16>
  return
}

// -----

// batch_matmul: batch dimensions must be equal.
func.func @batch_matmul_batch_dims(%a: tensor<2x4x8xf32>, %b: tensor<3x8x4xf32>) {
  // expected-error @+1 {{'mp.batch_matmul' op expects equal batch dimensions, got [2] and [3]}}
  %0 = mp.batch_matmul %a, %b acc(f32) : tensor<2x4x8xf32>, tensor<3x8x4xf32> -> tensor<2x4x4xf32>
  return
}

// -----

// matmul: contraction dimensions must agree.
func.func @matmul_contraction(%a: tensor<4x8xf32>, %b: tensor<4x16xf32>) {
  // expected-error @+1 {{'mp.matmul' op contraction dimensions differ: lhs has 8, rhs has 4}}
  %0 = mp.matmul %a, %b acc(f32) : tensor<4x8xf32>, tensor<4x16xf32> -> tensor<4x16xf32>
  return
}

// -----

// matmul: contraction dimensions with transposed operands.
func.func @matmul_contraction_transposed(%a: tensor<8x4xf32>, %b: tensor<16x4xf32>) {
  // expected-error @+1 {{'mp.matmul' op contraction dimensions differ: lhs has 8, rhs has 4}}
  %0 = mp.matmul %a, %b transpose_lhs transpose_rhs acc(f32) : tensor<8x4xf32>, tensor<16x4xf32> -> tensor<4x16xf32>
  return
}

// -----

// matmul: result shape.
func.func @matmul_result_shape(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>) {
  // expected-error @+1 {{'mp.matmul' op expects result shape [4, 16], got [4, 8]}}
  %0 = mp.matmul %a, %b acc(f32) : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<4x8xf32>
  return
}

// -----

// batch_matmul: result shape includes the batch dimensions.
func.func @batch_matmul_result_shape(%a: tensor<2x4x8xf32>, %b: tensor<2x8x16xf32>) {
  // expected-error @+1 {{'mp.batch_matmul' op expects result shape [2, 4, 16], got [4, 16]}}
  %0 = mp.batch_matmul %a, %b acc(f32) : tensor<2x4x8xf32>, tensor<2x8x16xf32> -> tensor<4x16xf32>
  return
}

// -----

// ODS: matmul operands must be statically shaped.
func.func @matmul_dynamic(%a: tensor<?x8xf32>, %b: tensor<8x4xf32>) {
  // expected-error @+1 {{'mp.matmul' op operand #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type or f8E4M3FN type or f8E5M2 type or 8-bit signless integer values, but got 'tensor<?x8xf32>'}}
  %0 = mp.matmul %a, %b acc(f32) : tensor<?x8xf32>, tensor<8x4xf32> -> tensor<4x4xf32>
  return
}

// -----

// ODS: f64 is not a matmul operand type.
func.func @matmul_f64(%a: tensor<4x8xf64>, %b: tensor<8x4xf64>) {
  // expected-error @+1 {{'mp.matmul' op operand #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type or f8E4M3FN type or f8E5M2 type or 8-bit signless integer values, but got 'tensor<4x8xf64>'}}
  %0 = mp.matmul %a, %b acc(f32) : tensor<4x8xf64>, tensor<8x4xf64> -> tensor<4x4xf32>
  return
}

// -----

// ODS: an i8 result is not allowed.
func.func @matmul_i8_result(%a: tensor<4x8xi8>, %b: tensor<8x4xi8>) {
  // expected-error @+1 {{'mp.matmul' op result #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type or 32-bit signless integer values, but got 'tensor<4x4xi8>'}}
  %0 = mp.matmul %a, %b acc(i32) : tensor<4x8xi8>, tensor<8x4xi8> -> tensor<4x4xi8>
  return
}

// -----

// Custom syntax: unknown compute mode.
func.func @matmul_bad_compute(%a: tensor<4x8xf32>, %b: tensor<8x4xf32>) {
  // expected-error @+2 {{custom op 'mp.matmul' expected ::mlir::mp::ComputeMode to be one of: ieee, tf32}}
  // expected-error @+1 {{custom op 'mp.matmul' failed to parse MP_ComputeModeAttr parameter 'value' which is to be a `::mlir::mp::ComputeMode`}}
  %0 = mp.matmul %a, %b acc(f32) compute fast : tensor<4x8xf32>, tensor<8x4xf32> -> tensor<4x4xf32>
  return
}

// -----

// Custom syntax: unknown keyword where `acc` is expected.
func.func @matmul_bad_keyword(%a: tensor<4x8xf32>, %b: tensor<8x4xf32>) {
  // expected-error @+1 {{custom op 'mp.matmul' expected 'acc'}}
  %0 = mp.matmul %a, %b transpose_x acc(f32) : tensor<4x8xf32>, tensor<8x4xf32> -> tensor<4x4xf32>
  return
}

// -----

// Generic form: acc_type is required.
func.func @matmul_missing_acc(%a: tensor<4x8xf32>, %b: tensor<8x4xf32>) {
  // expected-error @+1 {{'mp.matmul' op requires attribute 'acc_type'}}
  %0 = "mp.matmul"(%a, %b) : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x4xf32>
  return
}

// -----

// Generic form: compute must be a compute_mode attribute.
func.func @matmul_compute_attr_kind(%a: tensor<4x8xf32>, %b: tensor<8x4xf32>) {
  // expected-error @+1 {{'mp.matmul' op attribute 'compute' failed to satisfy constraint: how a matrix multiplication rounds its operands}}
  %0 = "mp.matmul"(%a, %b) {acc_type = f32, compute = 1 : i32} : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x4xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// mp.linear
//===----------------------------------------------------------------------===//

// linear: input of rank >= 1.
func.func @linear_input_rank(%x: tensor<f32>, %w: tensor<4x1xf32>) {
  // expected-error @+1 {{'mp.linear' op expects an input of rank at least 1}}
  %0 = mp.linear %x, %w acc(f32) : (tensor<f32>, tensor<4x1xf32>) -> tensor<4xf32>
  return
}

// -----

// linear: weight of rank 2.
func.func @linear_weight_rank(%x: tensor<4x8xf32>, %w: tensor<8xf32>) {
  // expected-error @+1 {{'mp.linear' op expects a weight of rank 2, got rank 1}}
  %0 = mp.linear %x, %w acc(f32) : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  return
}

// -----

// linear: contraction types (input and weight share an element type).
func.func @linear_mixed_elements(%x: tensor<4x8xf16>, %w: tensor<16x8xbf16>) {
  // expected-error @+1 {{'mp.linear' op expects operands of one element type, got 'f16' and 'bf16'}}
  %0 = mp.linear %x, %w acc(f32) : (tensor<4x8xf16>, tensor<16x8xbf16>) -> tensor<4x16xf16>
  return
}

// -----

// linear: contraction types (acc_type).
func.func @linear_acc_bf16(%x: tensor<4x8xbf16>, %w: tensor<16x8xbf16>) {
  // expected-error @+1 {{'mp.linear' op acc_type must be f32 (or f16 for f16 operands), got 'bf16' for 'bf16' operands}}
  %0 = mp.linear %x, %w acc(bf16) : (tensor<4x8xbf16>, tensor<16x8xbf16>) -> tensor<4x16xbf16>
  return
}

// -----

// linear: weight is [out, in].
func.func @linear_weight_shape(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>) {
  // expected-error @+1 {{'mp.linear' op expects weight of shape [out, 8], got [8, 16]}}
  %0 = mp.linear %x, %w acc(f32) : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x8xf32>
  return
}

// -----

// linear: bias is [out].
func.func @linear_bias_shape(%x: tensor<4x8xf32>, %w: tensor<16x8xf32>, %b: tensor<8xf32>) {
  // expected-error @+1 {{'mp.linear' op expects bias of shape [16], got [8]}}
  %0 = mp.linear %x, %w, %b acc(f32) : (tensor<4x8xf32>, tensor<16x8xf32>, tensor<8xf32>) -> tensor<4x16xf32>
  return
}

// -----

// linear: bias of rank 2 is rejected.
func.func @linear_bias_rank(%x: tensor<4x8xf32>, %w: tensor<16x8xf32>, %b: tensor<1x16xf32>) {
  // expected-error @+1 {{'mp.linear' op expects bias of shape [16], got [1, 16]}}
  %0 = mp.linear %x, %w, %b acc(f32) : (tensor<4x8xf32>, tensor<16x8xf32>, tensor<1x16xf32>) -> tensor<4x16xf32>
  return
}

// -----

// linear: bias has the result element type.
func.func @linear_bias_element(%x: tensor<4x8xf16>, %w: tensor<16x8xf16>, %b: tensor<16xf16>) {
  // expected-error @+1 {{'mp.linear' op expects bias of the result element type 'f32', got 'f16'}}
  %0 = mp.linear %x, %w, %b acc(f32) : (tensor<4x8xf16>, tensor<16x8xf16>, tensor<16xf16>) -> tensor<4x16xf32>
  return
}

// -----

// linear: result shape [..., out].
func.func @linear_result_shape(%x: tensor<2x4x8xf32>, %w: tensor<16x8xf32>) {
  // expected-error @+1 {{'mp.linear' op expects result shape [2, 4, 16], got [8, 16]}}
  %0 = mp.linear %x, %w acc(f32) : (tensor<2x4x8xf32>, tensor<16x8xf32>) -> tensor<8x16xf32>
  return
}

// -----

// ODS: linear takes float tensors only.
func.func @linear_int_input(%x: tensor<4x8xi8>, %w: tensor<16x8xi8>) {
  // expected-error @+1 {{'mp.linear' op operand #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type or f8E4M3FN type or f8E5M2 type values, but got 'tensor<4x8xi8>'}}
  %0 = mp.linear %x, %w acc(i32) : (tensor<4x8xi8>, tensor<16x8xi8>) -> tensor<4x16xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// mp.conv2d and its gradients
//===----------------------------------------------------------------------===//

// conv2d: NCHW input of rank 4.
func.func @conv2d_input_rank(%x: tensor<3x32x32xf32>, %w: tensor<16x3x3x3xf32>) {
  // expected-error @+1 {{'mp.conv2d' op expects an NCHW input of rank 4, got rank 3}}
  %0 = mp.conv2d %x, %w acc(f32) : (tensor<3x32x32xf32>, tensor<16x3x3x3xf32>) -> tensor<1x16x30x30xf32>
  return
}

// -----

// conv2d: filter of rank 4.
func.func @conv2d_filter_rank(%x: tensor<8x3x32x32xf32>, %w: tensor<16x3x3xf32>) {
  // expected-error @+1 {{'mp.conv2d' op expects a filter of rank 4, got rank 3}}
  %0 = mp.conv2d %x, %w acc(f32) : (tensor<8x3x32x32xf32>, tensor<16x3x3xf32>) -> tensor<8x16x30x30xf32>
  return
}

// -----

// conv2d: two strides.
func.func @conv2d_strides_count(%x: tensor<8x3x32x32xf32>, %w: tensor<16x3x3x3xf32>) {
  // expected-error @+1 {{'mp.conv2d' op expects 2 strides values, got 1}}
  %0 = mp.conv2d %x, %w acc(f32) {strides = array<i64: 1>} : (tensor<8x3x32x32xf32>, tensor<16x3x3x3xf32>) -> tensor<8x16x30x30xf32>
  return
}

// -----

// conv2d: two padding values.
func.func @conv2d_padding_count(%x: tensor<8x3x32x32xf32>, %w: tensor<16x3x3x3xf32>) {
  // expected-error @+1 {{'mp.conv2d' op expects 2 padding values, got 3}}
  %0 = mp.conv2d %x, %w acc(f32) {padding = array<i64: 1, 1, 1>} : (tensor<8x3x32x32xf32>, tensor<16x3x3x3xf32>) -> tensor<8x16x32x32xf32>
  return
}

// -----

// conv2d: two dilation values.
func.func @conv2d_dilation_count(%x: tensor<8x3x32x32xf32>, %w: tensor<16x3x3x3xf32>) {
  // expected-error @+1 {{'mp.conv2d' op expects 2 dilation values, got 0}}
  %0 = mp.conv2d %x, %w acc(f32) {dilation = array<i64>} : (tensor<8x3x32x32xf32>, tensor<16x3x3x3xf32>) -> tensor<8x16x30x30xf32>
  return
}

// -----

// conv2d: strides >= 1.
func.func @conv2d_strides_zero(%x: tensor<8x3x32x32xf32>, %w: tensor<16x3x3x3xf32>) {
  // expected-error @+1 {{'mp.conv2d' op expects strides >= 1, got [1, 0]}}
  %0 = mp.conv2d %x, %w acc(f32) {strides = array<i64: 1, 0>} : (tensor<8x3x32x32xf32>, tensor<16x3x3x3xf32>) -> tensor<8x16x30x30xf32>
  return
}

// -----

// conv2d: padding >= 0.
func.func @conv2d_padding_negative(%x: tensor<8x3x32x32xf32>, %w: tensor<16x3x3x3xf32>) {
  // expected-error @+1 {{'mp.conv2d' op expects padding >= 0, got [-1, 0]}}
  %0 = mp.conv2d %x, %w acc(f32) {padding = array<i64: -1, 0>} : (tensor<8x3x32x32xf32>, tensor<16x3x3x3xf32>) -> tensor<8x16x28x30xf32>
  return
}

// -----

// conv2d: dilation >= 1.
func.func @conv2d_dilation_zero(%x: tensor<8x3x32x32xf32>, %w: tensor<16x3x3x3xf32>) {
  // expected-error @+1 {{'mp.conv2d' op expects dilation >= 1, got [0, 0]}}
  %0 = mp.conv2d %x, %w acc(f32) {dilation = array<i64: 0, 0>} : (tensor<8x3x32x32xf32>, tensor<16x3x3x3xf32>) -> tensor<8x16x32x32xf32>
  return
}

// -----

// conv2d: groups >= 1.
func.func @conv2d_groups_zero(%x: tensor<8x3x32x32xf32>, %w: tensor<16x3x3x3xf32>) {
  // expected-error @+1 {{'mp.conv2d' op expects groups >= 1, got 0}}
  %0 = mp.conv2d %x, %w acc(f32) {groups = 0 : i64} : (tensor<8x3x32x32xf32>, tensor<16x3x3x3xf32>) -> tensor<8x16x30x30xf32>
  return
}

// -----

// conv2d: channels divisible by groups.
func.func @conv2d_channels_groups(%x: tensor<8x3x32x32xf32>, %w: tensor<16x1x3x3xf32>) {
  // expected-error @+1 {{'mp.conv2d' op expects input channels (3) and filters (16) divisible by groups (2)}}
  %0 = mp.conv2d %x, %w acc(f32) {groups = 2 : i64} : (tensor<8x3x32x32xf32>, tensor<16x1x3x3xf32>) -> tensor<8x16x30x30xf32>
  return
}

// -----

// conv2d: filters divisible by groups.
func.func @conv2d_filters_groups(%x: tensor<8x4x32x32xf32>, %w: tensor<15x2x3x3xf32>) {
  // expected-error @+1 {{'mp.conv2d' op expects input channels (4) and filters (15) divisible by groups (2)}}
  %0 = mp.conv2d %x, %w acc(f32) {groups = 2 : i64} : (tensor<8x4x32x32xf32>, tensor<15x2x3x3xf32>) -> tensor<8x15x30x30xf32>
  return
}

// -----

// conv2d: filter dimension 1 is channels / groups.
func.func @conv2d_filter_channels(%x: tensor<8x4x32x32xf32>, %w: tensor<16x4x3x3xf32>) {
  // expected-error @+1 {{'mp.conv2d' op expects filter dimension 1 to be channels / groups = 2, got 4}}
  %0 = mp.conv2d %x, %w acc(f32) {groups = 2 : i64} : (tensor<8x4x32x32xf32>, tensor<16x4x3x3xf32>) -> tensor<8x16x30x30xf32>
  return
}

// -----

// conv2d: the dilated filter must fit the padded input (height).
func.func @conv2d_filter_too_tall(%x: tensor<8x3x2x32xf32>, %w: tensor<16x3x3x3xf32>) {
  // expected-error @+1 {{'mp.conv2d' op expects the dilated filter (3) to fit the padded input (2) in dimension 2}}
  %0 = mp.conv2d %x, %w acc(f32) : (tensor<8x3x2x32xf32>, tensor<16x3x3x3xf32>) -> tensor<8x16x1x30xf32>
  return
}

// -----

// conv2d: the dilated filter must fit the padded input (width, with dilation).
func.func @conv2d_filter_too_wide(%x: tensor<8x3x32x8xf32>, %w: tensor<16x3x3x3xf32>) {
  // expected-error @+1 {{'mp.conv2d' op expects the dilated filter (11) to fit the padded input (8) in dimension 3}}
  %0 = mp.conv2d %x, %w acc(f32) {dilation = array<i64: 1, 5>} : (tensor<8x3x32x8xf32>, tensor<16x3x3x3xf32>) -> tensor<8x16x30x1xf32>
  return
}

// -----

// conv2d: bias is [F].
func.func @conv2d_bias_shape(%x: tensor<8x3x32x32xf32>, %w: tensor<16x3x3x3xf32>, %b: tensor<3xf32>) {
  // expected-error @+1 {{'mp.conv2d' op expects bias of shape [16], got [3]}}
  %0 = mp.conv2d %x, %w, %b acc(f32) : (tensor<8x3x32x32xf32>, tensor<16x3x3x3xf32>, tensor<3xf32>) -> tensor<8x16x30x30xf32>
  return
}

// -----

// conv2d: bias has the result element type.
func.func @conv2d_bias_element(%x: tensor<8x3x32x32xf16>, %w: tensor<16x3x3x3xf16>, %b: tensor<16xf16>) {
  // expected-error @+1 {{'mp.conv2d' op expects bias of the result element type 'f32', got 'f16'}}
  %0 = mp.conv2d %x, %w, %b acc(f32) : (tensor<8x3x32x32xf16>, tensor<16x3x3x3xf16>, tensor<16xf16>) -> tensor<8x16x30x30xf32>
  return
}

// -----

// conv2d: result shape [N, F, OH, OW].
func.func @conv2d_result_shape(%x: tensor<8x3x32x32xf32>, %w: tensor<16x3x3x3xf32>) {
  // expected-error @+1 {{'mp.conv2d' op expects result shape [8, 16, 16, 16], got [8, 16, 32, 32]}}
  %0 = mp.conv2d %x, %w acc(f32) {padding = array<i64: 1, 1>, strides = array<i64: 2, 2>} : (tensor<8x3x32x32xf32>, tensor<16x3x3x3xf32>) -> tensor<8x16x32x32xf32>
  return
}

// -----

// conv2d: contraction types.
func.func @conv2d_mixed_elements(%x: tensor<8x3x32x32xf16>, %w: tensor<16x3x3x3xf32>) {
  // expected-error @+1 {{'mp.conv2d' op expects operands of one element type, got 'f16' and 'f32'}}
  %0 = mp.conv2d %x, %w acc(f32) : (tensor<8x3x32x32xf16>, tensor<16x3x3x3xf32>) -> tensor<8x16x30x30xf32>
  return
}

// -----

// ODS: groups is an i64 attribute.
func.func @conv2d_groups_attr_kind(%x: tensor<8x3x32x32xf32>, %w: tensor<16x3x3x3xf32>) {
  // expected-error @+1 {{custom op 'mp.conv2d' 'mp.conv2d' op attribute 'groups' failed to satisfy constraint: 64-bit signless integer attribute}}
  %0 = mp.conv2d %x, %w acc(f32) {groups = 1.0 : f32} : (tensor<8x3x32x32xf32>, tensor<16x3x3x3xf32>) -> tensor<8x16x30x30xf32>
  return
}

// -----

// ODS: strides is a dense i64 array.
func.func @conv2d_strides_attr_kind(%x: tensor<8x3x32x32xf32>, %w: tensor<16x3x3x3xf32>) {
  // expected-error @+1 {{custom op 'mp.conv2d' 'mp.conv2d' op attribute 'strides' failed to satisfy constraint: i64 dense array attribute}}
  %0 = mp.conv2d %x, %w acc(f32) {strides = [1, 1]} : (tensor<8x3x32x32xf32>, tensor<16x3x3x3xf32>) -> tensor<8x16x30x30xf32>
  return
}

// -----

// conv2d_grad_input: contraction types.
func.func @conv2d_grad_input_acc(%dy: tensor<8x16x30x30xf16>, %w: tensor<16x3x3x3xf16>) {
  // expected-error @+1 {{'mp.conv2d_grad_input' op acc_type must be f32 (or f16 for f16 operands), got 'bf16' for 'f16' operands}}
  %0 = mp.conv2d_grad_input %dy, %w acc(bf16) : (tensor<8x16x30x30xf16>, tensor<16x3x3x3xf16>) -> tensor<8x3x32x32xf16>
  return
}

// -----

// conv2d_grad_input: the result is an NCHW input of rank 4.
func.func @conv2d_grad_input_result_rank(%dy: tensor<8x16x30x30xf32>, %w: tensor<16x3x3x3xf32>) {
  // expected-error @+1 {{'mp.conv2d_grad_input' op expects an NCHW input of rank 4, got rank 3}}
  %0 = mp.conv2d_grad_input %dy, %w acc(f32) : (tensor<8x16x30x30xf32>, tensor<16x3x3x3xf32>) -> tensor<3x32x32xf32>
  return
}

// -----

// conv2d_grad_input: filter dimension 1 is channels / groups.
func.func @conv2d_grad_input_filter_channels(%dy: tensor<8x16x30x30xf32>, %w: tensor<16x4x3x3xf32>) {
  // expected-error @+1 {{'mp.conv2d_grad_input' op expects filter dimension 1 to be channels / groups = 3, got 4}}
  %0 = mp.conv2d_grad_input %dy, %w acc(f32) : (tensor<8x16x30x30xf32>, tensor<16x4x3x3xf32>) -> tensor<8x3x32x32xf32>
  return
}

// -----

// conv2d_grad_input: grad_output has the forward output shape.
func.func @conv2d_grad_input_grad_output_shape(%dy: tensor<8x16x32x32xf32>, %w: tensor<16x3x3x3xf32>) {
  // expected-error @+1 {{'mp.conv2d_grad_input' op expects grad_output shape [8, 16, 30, 30], got [8, 16, 32, 32]}}
  %0 = mp.conv2d_grad_input %dy, %w acc(f32) : (tensor<8x16x32x32xf32>, tensor<16x3x3x3xf32>) -> tensor<8x3x32x32xf32>
  return
}

// -----

// conv2d_grad_filter: contraction types.
func.func @conv2d_grad_filter_mixed(%dy: tensor<8x16x30x30xf32>, %x: tensor<8x3x32x32xbf16>) {
  // expected-error @+1 {{'mp.conv2d_grad_filter' op expects operands of one element type, got 'f32' and 'bf16'}}
  %0 = mp.conv2d_grad_filter %dy, %x acc(f32) : (tensor<8x16x30x30xf32>, tensor<8x3x32x32xbf16>) -> tensor<16x3x3x3xf32>
  return
}

// -----

// conv2d_grad_filter: the result is a filter of rank 4.
func.func @conv2d_grad_filter_result_rank(%dy: tensor<8x16x30x30xf32>, %x: tensor<8x3x32x32xf32>) {
  // expected-error @+1 {{'mp.conv2d_grad_filter' op expects a filter of rank 4, got rank 3}}
  %0 = mp.conv2d_grad_filter %dy, %x acc(f32) : (tensor<8x16x30x30xf32>, tensor<8x3x32x32xf32>) -> tensor<16x3x3xf32>
  return
}

// -----

// conv2d_grad_filter: padding >= 0.
func.func @conv2d_grad_filter_padding(%dy: tensor<8x16x30x30xf32>, %x: tensor<8x3x32x32xf32>) {
  // expected-error @+1 {{'mp.conv2d_grad_filter' op expects padding >= 0, got [0, -2]}}
  %0 = mp.conv2d_grad_filter %dy, %x acc(f32) {padding = array<i64: 0, -2>} : (tensor<8x16x30x30xf32>, tensor<8x3x32x32xf32>) -> tensor<16x3x3x3xf32>
  return
}

// -----

// conv2d_grad_filter: grad_output has the forward output shape.
func.func @conv2d_grad_filter_grad_output_shape(%dy: tensor<8x16x30x30xf32>, %x: tensor<8x3x32x32xf32>) {
  // expected-error @+1 {{'mp.conv2d_grad_filter' op expects grad_output shape [8, 16, 32, 32], got [8, 16, 30, 30]}}
  %0 = mp.conv2d_grad_filter %dy, %x acc(f32) {padding = array<i64: 1, 1>} : (tensor<8x16x30x30xf32>, tensor<8x3x32x32xf32>) -> tensor<16x3x3x3xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

// Broadcast inference: lhs must be statically shaped.
func.func @add_dynamic_lhs(%a: tensor<?xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{'mp.add' op lhs must be a statically shaped tensor, got 'tensor<?xf32>'}}
  %0 = mp.add %a, %b : tensor<?xf32>, tensor<4xf32>
  return
}

// -----

// Custom syntax: operand types are parsed as ranked tensors (unranked rejected).
func.func @sub_unranked_rhs(%a: tensor<4xf32>, %b: tensor<*xf32>) {
  // expected-error @+1 {{custom op 'mp.sub' invalid kind of type specified: expected builtin.tensor, but found 'tensor<*xf32>'}}
  %0 = mp.sub %a, %b : tensor<4xf32>, tensor<*xf32>
  return
}

// -----

// Custom syntax: operand types are parsed as ranked tensors (scalar rejected).
func.func @mul_scalar_operand(%a: f32, %b: tensor<4xf32>) {
  // expected-error @+1 {{custom op 'mp.mul' invalid kind of type specified: expected builtin.tensor, but found 'f32'}}
  %0 = mp.mul %a, %b : f32, tensor<4xf32>
  return
}

// -----

// Broadcast inference: operands of one element type.
func.func @div_mixed_elements(%a: tensor<4xf32>, %b: tensor<4xf16>) {
  // expected-error @+1 {{'mp.div' op expects operands of one element type, got 'f32' and 'f16'}}
  %0 = mp.div %a, %b : tensor<4xf32>, tensor<4xf16>
  return
}

// -----

// Broadcast inference: shapes must broadcast.
func.func @pow_no_broadcast(%a: tensor<4x8xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{'mp.pow' op operand shapes [4, 8] and [4] do not broadcast}}
  %0 = mp.pow %a, %b : tensor<4x8xf32>, tensor<4xf32>
  return
}

// -----

// Broadcast inference: shapes must broadcast (maximum).
func.func @maximum_no_broadcast(%a: tensor<2x3xf32>, %b: tensor<3x3xf32>) {
  // expected-error @+1 {{'mp.maximum' op operand shapes [2, 3] and [3, 3] do not broadcast}}
  %0 = mp.maximum %a, %b : tensor<2x3xf32>, tensor<3x3xf32>
  return
}

// -----

// Broadcast inference: operands of one element type (minimum).
func.func @minimum_mixed_elements(%a: tensor<4xbf16>, %b: tensor<4xf16>) {
  // expected-error @+1 {{'mp.minimum' op expects operands of one element type, got 'bf16' and 'f16'}}
  %0 = mp.minimum %a, %b : tensor<4xbf16>, tensor<4xf16>
  return
}

// -----

// Generic form: the declared result type must be the inferred one.
func.func @add_generic_result(%a: tensor<4x1xf32>, %b: tensor<8xf32>) {
  // expected-error @+2 {{'mp.add' op inferred type(s) 'tensor<4x8xf32>' are incompatible with return type(s) of operation 'tensor<4x1xf32>'}}
  // expected-error @+1 {{'mp.add' op failed to infer returned types}}
  %0 = "mp.add"(%a, %b) : (tensor<4x1xf32>, tensor<8xf32>) -> tensor<4x1xf32>
  return
}

// -----

// Generic form: the result element type is the operands'.
func.func @mul_generic_result_element(%a: tensor<4xf32>, %b: tensor<4xf32>) {
  // expected-error @+2 {{'mp.mul' op inferred type(s) 'tensor<4xf32>' are incompatible with return type(s) of operation 'tensor<4xf16>'}}
  // expected-error @+1 {{'mp.mul' op failed to infer returned types}}
  %0 = "mp.mul"(%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf16>
  return
}

// -----

// Generic form: shapes that do not broadcast fail inference in the verifier.
func.func @sub_generic_no_broadcast(%a: tensor<4xf32>, %b: tensor<8xf32>) {
  // expected-error @+2 {{'mp.sub' op operand shapes [4] and [8] do not broadcast}}
  // expected-error @+1 {{'mp.sub' op failed to infer returned types}}
  %0 = "mp.sub"(%a, %b) : (tensor<4xf32>, tensor<8xf32>) -> tensor<8xf32>
  return
}

// -----

// Generic form: mixed element types fail inference in the verifier.
func.func @div_generic_mixed_elements(%a: tensor<4xf32>, %b: tensor<4xbf16>) {
  // expected-error @+2 {{'mp.div' op expects operands of one element type, got 'f32' and 'bf16'}}
  // expected-error @+1 {{'mp.div' op failed to infer returned types}}
  %0 = "mp.div"(%a, %b) : (tensor<4xf32>, tensor<4xbf16>) -> tensor<4xf32>
  return
}

// -----

// ODS: integer tensors are not float tensors.
func.func @add_integer(%a: tensor<4xi32>, %b: tensor<4xi32>) {
  // expected-error @+1 {{'mp.add' op operand #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type or f8E4M3FN type or f8E5M2 type values, but got 'tensor<4xi32>'}}
  %0 = mp.add %a, %b : tensor<4xi32>, tensor<4xi32>
  return
}

// -----

// ODS (generic form): a dynamically shaped operand.
func.func @maximum_generic_dynamic(%a: tensor<4xf32>, %b: tensor<?xf32>) {
  // expected-error @+1 {{'mp.maximum' op operand #1 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type or f8E4M3FN type or f8E5M2 type values, but got 'tensor<?xf32>'}}
  %0 = "mp.maximum"(%a, %b) : (tensor<4xf32>, tensor<?xf32>) -> tensor<4xf32>
  return
}

// -----

// ODS: unary ops take float tensors.
func.func @neg_integer(%a: tensor<4xi64>) {
  // expected-error @+1 {{'mp.neg' op operand #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type or f8E4M3FN type or f8E5M2 type values, but got 'tensor<4xi64>'}}
  %0 = mp.neg %a : tensor<4xi64>
  return
}

// -----

// ODS: f64 is not an mp float format.
func.func @exp_f64(%a: tensor<4xf64>) {
  // expected-error @+1 {{'mp.exp' op operand #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type or f8E4M3FN type or f8E5M2 type values, but got 'tensor<4xf64>'}}
  %0 = mp.exp %a : tensor<4xf64>
  return
}

// -----

// ODS: unary ops keep their type.
func.func @relu_generic_result(%a: tensor<4xf32>) {
  // expected-error @+1 {{'mp.relu' op requires the same type for all operands and results}}
  %0 = "mp.relu"(%a) : (tensor<4xf32>) -> tensor<4xf16>
  return
}

// -----

// Custom syntax: unknown gelu approximation.
func.func @gelu_bad_approximation(%a: tensor<4xf32>) {
  // expected-error @+2 {{custom op 'mp.gelu' expected ::mlir::mp::GeluApproximation to be one of: none, tanh}}
  // expected-error @+1 {{custom op 'mp.gelu' failed to parse MP_GeluApproximationAttr parameter 'value' which is to be a `::mlir::mp::GeluApproximation`}}
  %0 = mp.gelu %a approximate erf : tensor<4xf32>
  return
}

// -----

// ODS: gelu_grad operands share one type.
func.func @gelu_grad_generic_types(%dy: tensor<4xf16>, %x: tensor<4xf32>) {
  // expected-error @+1 {{'mp.gelu_grad' op requires the same type for all operands and results}}
  %0 = "mp.gelu_grad"(%dy, %x) : (tensor<4xf16>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

// ODS: relu_grad operands share one type.
func.func @relu_grad_generic_types(%dy: tensor<8xf32>, %x: tensor<4xf32>) {
  // expected-error @+1 {{'mp.relu_grad' op requires the same type for all operands and results}}
  %0 = "mp.relu_grad"(%dy, %x) : (tensor<8xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

// maximum_grad: grad_output must be statically shaped.
func.func @maximum_grad_dynamic(%dy: tensor<?x8xf32>, %a: tensor<4x8xf32>, %b: tensor<8xf32>) {
  // expected-error @+1 {{'mp.maximum_grad' op grad_output must be a statically shaped tensor, got 'tensor<?x8xf32>'}}
  %0:2 = mp.maximum_grad %dy, %a, %b : tensor<?x8xf32>, tensor<4x8xf32>, tensor<8xf32>
  return
}

// -----

// maximum_grad: lhs must be statically shaped (shared broadcast inference).
func.func @maximum_grad_dynamic_lhs(%dy: tensor<4x8xf32>, %a: tensor<4x?xf32>, %b: tensor<8xf32>) {
  // expected-error @+1 {{'mp.maximum_grad' op lhs must be a statically shaped tensor, got 'tensor<4x?xf32>'}}
  %0:2 = mp.maximum_grad %dy, %a, %b : tensor<4x8xf32>, tensor<4x?xf32>, tensor<8xf32>
  return
}

// -----

// minimum_grad: operand shapes must broadcast.
func.func @minimum_grad_no_broadcast(%dy: tensor<4x8xf32>, %a: tensor<4x8xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{'mp.minimum_grad' op operand shapes [4, 8] and [4] do not broadcast}}
  %0:2 = mp.minimum_grad %dy, %a, %b : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4xf32>
  return
}

// -----

// minimum_grad: operands of one element type.
func.func @minimum_grad_mixed_elements(%dy: tensor<4x8xf32>, %a: tensor<4x8xf32>, %b: tensor<8xf16>) {
  // expected-error @+1 {{'mp.minimum_grad' op expects operands of one element type, got 'f32' and 'f16'}}
  %0:2 = mp.minimum_grad %dy, %a, %b : tensor<4x8xf32>, tensor<4x8xf32>, tensor<8xf16>
  return
}

// -----

// maximum_grad: grad_output has the broadcast type.
func.func @maximum_grad_grad_output(%dy: tensor<8xf32>, %a: tensor<4x8xf32>, %b: tensor<8xf32>) {
  // expected-error @+1 {{'mp.maximum_grad' op expects grad_output of the broadcast type 'tensor<4x8xf32>', got 'tensor<8xf32>'}}
  %0:2 = mp.maximum_grad %dy, %a, %b : tensor<8xf32>, tensor<4x8xf32>, tensor<8xf32>
  return
}

// -----

// minimum_grad: grad_output has the broadcast element type too.
func.func @minimum_grad_grad_output_element(%dy: tensor<4x8xf16>, %a: tensor<4x8xf32>, %b: tensor<8xf32>) {
  // expected-error @+1 {{'mp.minimum_grad' op expects grad_output of the broadcast type 'tensor<4x8xf32>', got 'tensor<4x8xf16>'}}
  %0:2 = mp.minimum_grad %dy, %a, %b : tensor<4x8xf16>, tensor<4x8xf32>, tensor<8xf32>
  return
}

// -----

// Generic form: maximum_grad results have the grad_output type.
func.func @maximum_grad_generic_result(%dy: tensor<4x8xf32>, %a: tensor<4x8xf32>, %b: tensor<8xf32>) {
  // expected-error @+2 {{'mp.maximum_grad' op inferred type(s) 'tensor<4x8xf32>', 'tensor<4x8xf32>' are incompatible with return type(s) of operation 'tensor<4x8xf32>', 'tensor<8xf32>'}}
  // expected-error @+1 {{'mp.maximum_grad' op failed to infer returned types}}
  %0:2 = "mp.maximum_grad"(%dy, %a, %b) : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<8xf32>) -> (tensor<4x8xf32>, tensor<8xf32>)
  return
}

// -----

//===----------------------------------------------------------------------===//
// Reductions and normalisation
//===----------------------------------------------------------------------===//

// reduce_sum: the input must be statically shaped.
func.func @reduce_sum_dynamic(%x: tensor<4x?xf32>) {
  // expected-error @+1 {{'mp.reduce_sum' op input must be a statically shaped tensor, got 'tensor<4x?xf32>'}}
  %0 = mp.reduce_sum %x dims [1] : tensor<4x?xf32>
  return
}

// -----

// reduce_sum: reduction dimensions in range.
func.func @reduce_sum_dim_range(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'mp.reduce_sum' op reduction dimension 2 is out of range for rank 2}}
  %0 = mp.reduce_sum %x dims [2] : tensor<4x8xf32>
  return
}

// -----

// reduce_mean: negative reduction dimensions are out of range.
func.func @reduce_mean_negative_dim(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'mp.reduce_mean' op reduction dimension -1 is out of range for rank 2}}
  %0 = mp.reduce_mean %x dims [-1] : tensor<4x8xf32>
  return
}

// -----

// reduce_max: reduction dimensions are distinct.
func.func @reduce_max_repeated_dim(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'mp.reduce_max' op reduction dimension 1 is repeated}}
  %0 = mp.reduce_max %x dims [1, 0, 1] keepdims : tensor<4x8xf32>
  return
}

// -----

// Generic form: reduce_sum result type must be the inferred one.
func.func @reduce_sum_generic_result(%x: tensor<4x8xf32>) {
  // expected-error @+2 {{'mp.reduce_sum' op inferred type(s) 'tensor<4x1xf32>' are incompatible with return type(s) of operation 'tensor<4xf32>'}}
  // expected-error @+1 {{'mp.reduce_sum' op failed to infer returned types}}
  %0 = "mp.reduce_sum"(%x) {dims = array<i64: 1>, keepdims} : (tensor<4x8xf32>) -> tensor<4xf32>
  return
}

// -----

// Generic form: a bad reduction dimension fails inference in the verifier.
func.func @reduce_mean_generic_dim(%x: tensor<4x8xf32>) {
  // expected-error @+2 {{'mp.reduce_mean' op reduction dimension 3 is out of range for rank 2}}
  // expected-error @+1 {{'mp.reduce_mean' op failed to infer returned types}}
  %0 = "mp.reduce_mean"(%x) {dims = array<i64: 3>} : (tensor<4x8xf32>) -> tensor<4xf32>
  return
}

// -----

// Generic form: dims is required.
func.func @reduce_max_generic_no_dims(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'mp.reduce_max' op requires attribute 'dims'}}
  %0 = "mp.reduce_max"(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

// reduce_max_grad: output has the input element type.
func.func @reduce_max_grad_output_element(%dy: tensor<4xf16>, %x: tensor<4x8xf32>, %m: tensor<4xf16>) {
  // expected-error @+1 {{'mp.reduce_max_grad' op expects output of the input element type 'f32', got 'f16'}}
  %0 = mp.reduce_max_grad %dy, %x, %m dims [1] : tensor<4xf16>, tensor<4x8xf32>
  return
}

// -----

// reduce_max_grad: reduction dimensions in range.
func.func @reduce_max_grad_dim_range(%dy: tensor<4xf32>, %x: tensor<4x8xf32>, %m: tensor<4xf32>) {
  // expected-error @+1 {{'mp.reduce_max_grad' op reduction dimension 5 is out of range for rank 2}}
  %0 = mp.reduce_max_grad %dy, %x, %m dims [5] : tensor<4xf32>, tensor<4x8xf32>
  return
}

// -----

// reduce_max_grad: reduction dimensions are distinct.
func.func @reduce_max_grad_repeated_dim(%dy: tensor<4xf32>, %x: tensor<4x8xf32>, %m: tensor<4xf32>) {
  // expected-error @+1 {{'mp.reduce_max_grad' op reduction dimension 1 is repeated}}
  %0 = mp.reduce_max_grad %dy, %x, %m dims [1, 1] : tensor<4xf32>, tensor<4x8xf32>
  return
}

// -----

// reduce_max_grad: output has the reduced shape.
func.func @reduce_max_grad_output_shape(%dy: tensor<8xf32>, %x: tensor<4x8xf32>, %m: tensor<8xf32>) {
  // expected-error @+1 {{'mp.reduce_max_grad' op expects output shape [4], got [8]}}
  %0 = mp.reduce_max_grad %dy, %x, %m dims [1] : tensor<8xf32>, tensor<4x8xf32>
  return
}

// -----

// reduce_max_grad: with keepdims the reduced dimension stays as 1.
func.func @reduce_max_grad_keepdims_shape(%dy: tensor<4xf32>, %x: tensor<4x8xf32>, %m: tensor<4xf32>) {
  // expected-error @+1 {{'mp.reduce_max_grad' op expects output shape [4, 1], got [4]}}
  %0 = mp.reduce_max_grad %dy, %x, %m dims [1] keepdims : tensor<4xf32>, tensor<4x8xf32>
  return
}

// -----

// ODS (generic form): reduce_max_grad grad_output and output share one type.
func.func @reduce_max_grad_generic_types(%dy: tensor<4xf32>, %x: tensor<4x8xf32>, %m: tensor<4x1xf32>) {
  // expected-error @+1 {{'mp.reduce_max_grad' op failed to verify that all of {grad_output, output} have same type}}
  %0 = "mp.reduce_max_grad"(%dy, %x, %m) {dims = array<i64: 1>} : (tensor<4xf32>, tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  return
}

// -----

// softmax: dim in range.
func.func @softmax_dim(%x: tensor<4x10xf32>) {
  // expected-error @+1 {{'mp.softmax' op dim 2 is out of range for rank 2}}
  %0 = mp.softmax %x dim 2 : tensor<4x10xf32>
  return
}

// -----

// log_softmax: dim in range (negative).
func.func @log_softmax_dim(%x: tensor<4x10xf32>) {
  // expected-error @+1 {{'mp.log_softmax' op dim -1 is out of range for rank 2}}
  %0 = mp.log_softmax %x dim -1 : tensor<4x10xf32>
  return
}

// -----

// softmax_grad: dim in range.
func.func @softmax_grad_dim(%dy: tensor<4x10xf32>, %y: tensor<4x10xf32>) {
  // expected-error @+1 {{'mp.softmax_grad' op dim 2 is out of range for rank 2}}
  %0 = mp.softmax_grad %dy, %y dim 2 : tensor<4x10xf32>
  return
}

// -----

// log_softmax_grad: dim in range.
func.func @log_softmax_grad_dim(%dy: tensor<10xf32>, %y: tensor<10xf32>) {
  // expected-error @+1 {{'mp.log_softmax_grad' op dim 1 is out of range for rank 1}}
  %0 = mp.log_softmax_grad %dy, %y dim 1 : tensor<10xf32>
  return
}

// -----

// softmax: a 0-d input has no dimension.
func.func @softmax_rank0(%x: tensor<f32>) {
  // expected-error @+1 {{'mp.softmax' op dim 0 is out of range for rank 0}}
  %0 = mp.softmax %x dim 0 : tensor<f32>
  return
}

// -----

// ODS (generic form): softmax_grad operands share one type.
func.func @softmax_grad_generic_types(%dy: tensor<4x10xf16>, %y: tensor<4x10xf32>) {
  // expected-error @+1 {{'mp.softmax_grad' op requires the same type for all operands and results}}
  %0 = "mp.softmax_grad"(%dy, %y) {dim = 1 : i64} : (tensor<4x10xf16>, tensor<4x10xf32>) -> tensor<4x10xf32>
  return
}

// -----

// layer_norm: input of rank >= 1.
func.func @layer_norm_rank0(%x: tensor<f32>) {
  // expected-error @+1 {{'mp.layer_norm' op expects an input of rank at least 1}}
  %0 = mp.layer_norm %x axis 0 eps 1.0e-05 : (tensor<f32>) -> tensor<f32>
  return
}

// -----

// layer_norm: axis in range.
func.func @layer_norm_axis(%x: tensor<8x64xf32>) {
  // expected-error @+1 {{'mp.layer_norm' op axis 2 is out of range for rank 2}}
  %0 = mp.layer_norm %x axis 2 eps 1.0e-05 : (tensor<8x64xf32>) -> tensor<8x64xf32>
  return
}

// -----

// layer_norm: eps >= 0.
func.func @layer_norm_eps_negative(%x: tensor<8x64xf32>) {
  // expected-error @+1 {{'mp.layer_norm' op eps must be a finite number >= 0.000000e+00, got -1.000000e-05}}
  %0 = mp.layer_norm %x axis 1 eps -1.0e-05 : (tensor<8x64xf32>) -> tensor<8x64xf32>
  return
}

// -----

// layer_norm: eps must be finite (NaN).
func.func @layer_norm_eps_nan(%x: tensor<8x64xf32>) {
  // expected-error @+1 {{'mp.layer_norm' op eps must be a finite number >= 0.000000e+00, got nan}}
  %0 = mp.layer_norm %x axis 1 eps 0x7FF8000000000000 : (tensor<8x64xf32>) -> tensor<8x64xf32>
  return
}

// -----

// layer_norm: weight has the normalised shape.
func.func @layer_norm_weight_shape(%x: tensor<2x8x64xf32>, %g: tensor<64xf32>) {
  // expected-error @+1 {{'mp.layer_norm' op expects weight of type 'tensor<8x64xf32>' (the normalised shape), got 'tensor<64xf32>'}}
  %0 = mp.layer_norm %x weight %g axis 1 eps 1.0e-05 : (tensor<2x8x64xf32>, tensor<64xf32>) -> tensor<2x8x64xf32>
  return
}

// -----

// layer_norm: bias has the normalised shape and the input element type.
func.func @layer_norm_bias_element(%x: tensor<8x64xf16>, %g: tensor<64xf16>, %b: tensor<64xf32>) {
  // expected-error @+1 {{'mp.layer_norm' op expects bias of type 'tensor<64xf16>' (the normalised shape), got 'tensor<64xf32>'}}
  %0 = mp.layer_norm %x weight %g bias %b axis 1 eps 1.0e-05 : (tensor<8x64xf16>, tensor<64xf16>, tensor<64xf32>) -> tensor<8x64xf16>
  return
}

// -----

// ODS: layer_norm input and result share one type.
func.func @layer_norm_result_type(%x: tensor<8x64xf16>) {
  // expected-error @+1 {{'mp.layer_norm' op failed to verify that all of {input, result} have same type}}
  %0 = mp.layer_norm %x axis 1 eps 1.0e-05 : (tensor<8x64xf16>) -> tensor<8x64xf32>
  return
}

// -----

// ODS: eps is an f64 attribute.
func.func @layer_norm_eps_kind(%x: tensor<8x64xf32>) {
  // expected-error @+1 {{'mp.layer_norm' op attribute 'eps' failed to satisfy constraint: 64-bit float attribute}}
  %0 = "mp.layer_norm"(%x) {axis = 1 : i64, eps = 1.0e-05 : f32, operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<8x64xf32>) -> tensor<8x64xf32>
  return
}

// -----

// rms_norm: input of rank >= 1.
func.func @rms_norm_rank0(%x: tensor<f16>) {
  // expected-error @+1 {{'mp.rms_norm' op expects an input of rank at least 1}}
  %0 = mp.rms_norm %x axis 0 eps 1.0e-06 : (tensor<f16>) -> tensor<f16>
  return
}

// -----

// rms_norm: axis in range.
func.func @rms_norm_axis(%x: tensor<8x64xf32>) {
  // expected-error @+1 {{'mp.rms_norm' op axis -1 is out of range for rank 2}}
  %0 = mp.rms_norm %x axis -1 eps 1.0e-06 : (tensor<8x64xf32>) -> tensor<8x64xf32>
  return
}

// -----

// rms_norm: eps must be finite (infinity).
func.func @rms_norm_eps_inf(%x: tensor<8x64xf32>) {
  // expected-error @+1 {{'mp.rms_norm' op eps must be a finite number >= 0.000000e+00, got INF}}
  %0 = mp.rms_norm %x axis 1 eps 0x7FF0000000000000 : (tensor<8x64xf32>) -> tensor<8x64xf32>
  return
}

// -----

// rms_norm: weight has the normalised shape.
func.func @rms_norm_weight(%x: tensor<8x64xf32>, %g: tensor<8x64xf32>) {
  // expected-error @+1 {{'mp.rms_norm' op expects weight of type 'tensor<64xf32>' (the normalised shape), got 'tensor<8x64xf32>'}}
  %0 = mp.rms_norm %x weight %g axis 1 eps 1.0e-06 : (tensor<8x64xf32>, tensor<8x64xf32>) -> tensor<8x64xf32>
  return
}

// -----

// layer_norm_grad: axis in range.
func.func @layer_norm_grad_axis(%dy: tensor<8x64xf32>, %x: tensor<8x64xf32>) {
  // expected-error @+1 {{'mp.layer_norm_grad' op axis 3 is out of range for rank 2}}
  %0:3 = mp.layer_norm_grad %dy, %x axis 3 eps 1.0e-05 : (tensor<8x64xf32>, tensor<8x64xf32>) -> (tensor<8x64xf32>, tensor<64xf32>, tensor<64xf32>)
  return
}

// -----

// layer_norm_grad: eps >= 0.
func.func @layer_norm_grad_eps(%dy: tensor<8x64xf32>, %x: tensor<8x64xf32>) {
  // expected-error @+1 {{'mp.layer_norm_grad' op eps must be a finite number >= 0.000000e+00, got -2.000000e+00}}
  %0:3 = mp.layer_norm_grad %dy, %x axis 1 eps -2.0 : (tensor<8x64xf32>, tensor<8x64xf32>) -> (tensor<8x64xf32>, tensor<64xf32>, tensor<64xf32>)
  return
}

// -----

// layer_norm_grad: weight has the normalised shape.
func.func @layer_norm_grad_weight(%dy: tensor<8x64xf32>, %x: tensor<8x64xf32>, %g: tensor<32xf32>) {
  // expected-error @+1 {{'mp.layer_norm_grad' op expects weight of type 'tensor<64xf32>' (the normalised shape), got 'tensor<32xf32>'}}
  %0:3 = mp.layer_norm_grad %dy, %x weight %g axis 1 eps 1.0e-05 : (tensor<8x64xf32>, tensor<8x64xf32>, tensor<32xf32>) -> (tensor<8x64xf32>, tensor<64xf32>, tensor<64xf32>)
  return
}

// -----

// layer_norm_grad: weight_grad has the normalised shape.
func.func @layer_norm_grad_weight_grad(%dy: tensor<8x64xf32>, %x: tensor<8x64xf32>) {
  // expected-error @+1 {{'mp.layer_norm_grad' op expects weight_grad of type 'tensor<64xf32>' (the normalised shape), got 'tensor<8x64xf32>'}}
  %0:3 = mp.layer_norm_grad %dy, %x axis 1 eps 1.0e-05 : (tensor<8x64xf32>, tensor<8x64xf32>) -> (tensor<8x64xf32>, tensor<8x64xf32>, tensor<64xf32>)
  return
}

// -----

// layer_norm_grad: bias_grad has the normalised shape and element type.
func.func @layer_norm_grad_bias_grad(%dy: tensor<8x64xbf16>, %x: tensor<8x64xbf16>) {
  // expected-error @+1 {{'mp.layer_norm_grad' op expects bias_grad of type 'tensor<64xbf16>' (the normalised shape), got 'tensor<64xf32>'}}
  %0:3 = mp.layer_norm_grad %dy, %x axis 1 eps 1.0e-05 : (tensor<8x64xbf16>, tensor<8x64xbf16>) -> (tensor<8x64xbf16>, tensor<64xbf16>, tensor<64xf32>)
  return
}

// -----

// ODS: layer_norm_grad grad_output, input and input_grad share one type.
func.func @layer_norm_grad_types(%dy: tensor<4x64xf32>, %x: tensor<8x64xf32>) {
  // expected-error @+1 {{'mp.layer_norm_grad' op failed to verify that all of {grad_output, input, input_grad} have same type}}
  %0:3 = mp.layer_norm_grad %dy, %x axis 1 eps 1.0e-05 : (tensor<4x64xf32>, tensor<8x64xf32>) -> (tensor<8x64xf32>, tensor<64xf32>, tensor<64xf32>)
  return
}

// -----

// rms_norm_grad: input of rank >= 1.
func.func @rms_norm_grad_rank0(%dy: tensor<f32>, %x: tensor<f32>) {
  // expected-error @+1 {{'mp.rms_norm_grad' op expects an input of rank at least 1}}
  %0:2 = mp.rms_norm_grad %dy, %x axis 0 eps 1.0e-06 : (tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>)
  return
}

// -----

// rms_norm_grad: weight has the normalised shape.
func.func @rms_norm_grad_weight(%dy: tensor<8x64xf32>, %x: tensor<8x64xf32>, %g: tensor<64xf16>) {
  // expected-error @+1 {{'mp.rms_norm_grad' op expects weight of type 'tensor<64xf32>' (the normalised shape), got 'tensor<64xf16>'}}
  %0:2 = mp.rms_norm_grad %dy, %x weight %g axis 1 eps 1.0e-06 : (tensor<8x64xf32>, tensor<8x64xf32>, tensor<64xf16>) -> (tensor<8x64xf32>, tensor<64xf32>)
  return
}

// -----

// rms_norm_grad: weight_grad has the normalised shape.
func.func @rms_norm_grad_weight_grad(%dy: tensor<2x8x64xf32>, %x: tensor<2x8x64xf32>) {
  // expected-error @+1 {{'mp.rms_norm_grad' op expects weight_grad of type 'tensor<8x64xf32>' (the normalised shape), got 'tensor<64xf32>'}}
  %0:2 = mp.rms_norm_grad %dy, %x axis 1 eps 1.0e-06 : (tensor<2x8x64xf32>, tensor<2x8x64xf32>) -> (tensor<2x8x64xf32>, tensor<64xf32>)
  return
}

// -----

//===----------------------------------------------------------------------===//
// Shape
//===----------------------------------------------------------------------===//

// transpose: the input must be statically shaped.
func.func @transpose_dynamic(%x: tensor<?x8xf32>) {
  // expected-error @+1 {{'mp.transpose' op input must be a statically shaped tensor, got 'tensor<?x8xf32>'}}
  %0 = mp.transpose %x perm [1, 0] : tensor<?x8xf32>
  return
}

// -----

// transpose: one permutation entry per dimension.
func.func @transpose_perm_size(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'mp.transpose' op expects a permutation of 2 dimensions, got 3}}
  %0 = mp.transpose %x perm [0, 1, 2] : tensor<4x8xf32>
  return
}

// -----

// transpose: repeated entries are not a permutation.
func.func @transpose_perm_repeated(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'mp.transpose' op permutation [1, 1] is not a permutation of [0, 2)}}
  %0 = mp.transpose %x perm [1, 1] : tensor<4x8xf32>
  return
}

// -----

// transpose: out-of-range entries are not a permutation.
func.func @transpose_perm_range(%x: tensor<2x4x8xf32>) {
  // expected-error @+1 {{'mp.transpose' op permutation [0, 3, 1] is not a permutation of [0, 3)}}
  %0 = mp.transpose %x perm [0, 3, 1] : tensor<2x4x8xf32>
  return
}

// -----

// transpose: negative entries are not a permutation.
func.func @transpose_perm_negative(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'mp.transpose' op permutation [-1, 0] is not a permutation of [0, 2)}}
  %0 = mp.transpose %x perm [-1, 0] : tensor<4x8xf32>
  return
}

// -----

// Generic form: transpose result type must be the inferred one.
func.func @transpose_generic_result(%x: tensor<4x8xf32>) {
  // expected-error @+2 {{'mp.transpose' op inferred type(s) 'tensor<8x4xf32>' are incompatible with return type(s) of operation 'tensor<4x8xf32>'}}
  // expected-error @+1 {{'mp.transpose' op failed to infer returned types}}
  %0 = "mp.transpose"(%x) {permutation = array<i64: 1, 0>} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

// reshape: the element type is preserved.
func.func @reshape_element(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'mp.reshape' op expects the result element type 'f32', got 'f16'}}
  %0 = mp.reshape %x : tensor<4x8xf32> to tensor<32xf16>
  return
}

// -----

// reshape: the number of elements is preserved.
func.func @reshape_count(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'mp.reshape' op cannot reshape 32 elements into 16}}
  %0 = mp.reshape %x : tensor<4x8xf32> to tensor<4x4xf32>
  return
}

// -----

// ODS: reshape result must be statically shaped.
func.func @reshape_dynamic_result(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'mp.reshape' op result #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type or f8E4M3FN type or f8E5M2 type or 1-bit signless integer or 32-bit signless integer or 64-bit signless integer values, but got 'tensor<?xf32>'}}
  %0 = mp.reshape %x : tensor<4x8xf32> to tensor<?xf32>
  return
}

// -----

// broadcast: the element type is preserved.
func.func @broadcast_element(%x: tensor<8xf32>) {
  // expected-error @+1 {{'mp.broadcast' op expects the result element type 'f32', got 'bf16'}}
  %0 = mp.broadcast %x : tensor<8xf32> to tensor<4x8xbf16>
  return
}

// -----

// broadcast: incompatible dimensions.
func.func @broadcast_incompatible(%x: tensor<3xf32>) {
  // expected-error @+1 {{'mp.broadcast' op cannot broadcast shape [3] to [4, 8]}}
  %0 = mp.broadcast %x : tensor<3xf32> to tensor<4x8xf32>
  return
}

// -----

// broadcast: the result rank must not be lower than the input rank.
func.func @broadcast_rank(%x: tensor<1x8xf32>) {
  // expected-error @+1 {{'mp.broadcast' op cannot broadcast shape [1, 8] to [8]}}
  %0 = mp.broadcast %x : tensor<1x8xf32> to tensor<8xf32>
  return
}

// -----

// broadcast: the input shape must broadcast to the result shape exactly.
func.func @broadcast_not_exact(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'mp.broadcast' op cannot broadcast shape [4, 8] to [1, 8]}}
  %0 = mp.broadcast %x : tensor<4x8xf32> to tensor<1x8xf32>
  return
}

// -----

// Generic form: concat needs at least one input.
func.func @concat_no_inputs() {
  // expected-error @+2 {{'mp.concat' op expects at least one input}}
  // expected-error @+1 {{'mp.concat' op failed to infer returned types}}
  %0 = "mp.concat"() {dim = 0 : i64} : () -> tensor<4xf32>
  return
}

// -----

// concat: input 0 must be statically shaped.
func.func @concat_dynamic_first(%a: tensor<?x8xf32>, %b: tensor<4x8xf32>) {
  // expected-error @+1 {{'mp.concat' op input 0 must be a statically shaped tensor, got 'tensor<?x8xf32>'}}
  %0 = mp.concat %a, %b dim 0 : tensor<?x8xf32>, tensor<4x8xf32>
  return
}

// -----

// concat: dim in range.
func.func @concat_dim(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>) {
  // expected-error @+1 {{'mp.concat' op dim 2 is out of range for rank 2}}
  %0 = mp.concat %a, %b dim 2 : tensor<4x8xf32>, tensor<4x8xf32>
  return
}

// -----

// concat: later inputs must be statically shaped.
func.func @concat_dynamic_later(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>, %c: tensor<4x?xf32>) {
  // expected-error @+1 {{'mp.concat' op input 2 must be a statically shaped tensor, got 'tensor<4x?xf32>'}}
  %0 = mp.concat %a, %b, %c dim 1 : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x?xf32>
  return
}

// -----

// concat: inputs of one element type.
func.func @concat_element(%a: tensor<4x8xf32>, %b: tensor<4x2xf16>) {
  // expected-error @+1 {{'mp.concat' op expects inputs of one element type, got 'f32' and 'f16'}}
  %0 = mp.concat %a, %b dim 1 : tensor<4x8xf32>, tensor<4x2xf16>
  return
}

// -----

// concat: inputs of one rank.
func.func @concat_rank(%a: tensor<4x8xf32>, %b: tensor<4x2x1xf32>) {
  // expected-error @+1 {{'mp.concat' op expects inputs of one rank, got 2 and 3}}
  %0 = mp.concat %a, %b dim 1 : tensor<4x8xf32>, tensor<4x2x1xf32>
  return
}

// -----

// concat: inputs agree outside dim.
func.func @concat_other_dims(%a: tensor<4x8xf32>, %b: tensor<3x2xf32>) {
  // expected-error @+1 {{'mp.concat' op expects inputs to agree outside dim 1, got [4, 8] and [3, 2]}}
  %0 = mp.concat %a, %b dim 1 : tensor<4x8xf32>, tensor<3x2xf32>
  return
}

// -----

// Generic form: concat result type must be the inferred one.
func.func @concat_generic_result(%a: tensor<4x8xf32>, %b: tensor<4x2xf32>) {
  // expected-error @+2 {{'mp.concat' op inferred type(s) 'tensor<4x10xf32>' are incompatible with return type(s) of operation 'tensor<4x8xf32>'}}
  // expected-error @+1 {{'mp.concat' op failed to infer returned types}}
  %0 = "mp.concat"(%a, %b) {dim = 1 : i64} : (tensor<4x8xf32>, tensor<4x2xf32>) -> tensor<4x8xf32>
  return
}

// -----

// slice: the input must be statically shaped.
func.func @slice_dynamic(%x: tensor<?x8xf32>) {
  // expected-error @+1 {{'mp.slice' op input must be a statically shaped tensor, got 'tensor<?x8xf32>'}}
  %0 = mp.slice %x offsets [0, 0] sizes [1, 1] strides [1, 1] : tensor<?x8xf32>
  return
}

// -----

// slice: one offset, size and stride per dimension.
func.func @slice_counts(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'mp.slice' op expects 2 offsets, sizes and strides, got 2, 1 and 2}}
  %0 = mp.slice %x offsets [0, 2] sizes [4] strides [1, 1] : tensor<4x8xf32>
  return
}

// -----

// slice: offsets >= 0.
func.func @slice_negative_offset(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'mp.slice' op expects offsets >= 0, sizes >= 0 and strides >= 1, got offset -1, size 4, stride 1 in dimension 1}}
  %0 = mp.slice %x offsets [0, -1] sizes [4, 4] strides [1, 1] : tensor<4x8xf32>
  return
}

// -----

// slice: sizes >= 0.
func.func @slice_negative_size(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'mp.slice' op expects offsets >= 0, sizes >= 0 and strides >= 1, got offset 0, size -4, stride 1 in dimension 0}}
  %0 = mp.slice %x offsets [0, 0] sizes [-4, 4] strides [1, 1] : tensor<4x8xf32>
  return
}

// -----

// slice: strides >= 1.
func.func @slice_zero_stride(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'mp.slice' op expects offsets >= 0, sizes >= 0 and strides >= 1, got offset 0, size 4, stride 0 in dimension 1}}
  %0 = mp.slice %x offsets [0, 0] sizes [4, 4] strides [1, 0] : tensor<4x8xf32>
  return
}

// -----

// slice: the box must lie inside the input.
func.func @slice_out_of_bounds(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'mp.slice' op slice in dimension 1 (offset 2, size 4, stride 2) exceeds the size 8}}
  %0 = mp.slice %x offsets [0, 2] sizes [4, 4] strides [1, 2] : tensor<4x8xf32>
  return
}

// -----

// Generic form: slice result type must be the inferred one.
func.func @slice_generic_result(%x: tensor<4x8xf32>) {
  // expected-error @+2 {{'mp.slice' op inferred type(s) 'tensor<4x4xf32>' are incompatible with return type(s) of operation 'tensor<4x8xf32>'}}
  // expected-error @+1 {{'mp.slice' op failed to infer returned types}}
  %0 = "mp.slice"(%x) {offsets = array<i64: 0, 2>, sizes = array<i64: 4, 4>, strides = array<i64: 1, 1>} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

// slice_grad: the result has the grad_output element type.
func.func @slice_grad_element(%dy: tensor<4x4xf32>) {
  // expected-error @+1 {{'mp.slice_grad' op expects the result element type 'f32', got 'f16'}}
  %0 = mp.slice_grad %dy offsets [0, 2] sizes [4, 4] strides [1, 1] : tensor<4x4xf32> to tensor<4x8xf16>
  return
}

// -----

// slice_grad: one offset, size and stride per result dimension.
func.func @slice_grad_counts(%dy: tensor<4x4xf32>) {
  // expected-error @+1 {{'mp.slice_grad' op expects 2 offsets, sizes and strides, got 3, 3 and 3}}
  %0 = mp.slice_grad %dy offsets [0, 2, 0] sizes [4, 4, 1] strides [1, 1, 1] : tensor<4x4xf32> to tensor<4x8xf32>
  return
}

// -----

// slice_grad: strides >= 1.
func.func @slice_grad_stride(%dy: tensor<4x4xf32>) {
  // expected-error @+1 {{'mp.slice_grad' op expects offsets >= 0, sizes >= 0 and strides >= 1, got offset 0, size 4, stride 0 in dimension 0}}
  %0 = mp.slice_grad %dy offsets [0, 2] sizes [4, 4] strides [0, 1] : tensor<4x4xf32> to tensor<4x8xf32>
  return
}

// -----

// slice_grad: the box must lie inside the result.
func.func @slice_grad_out_of_bounds(%dy: tensor<4x4xf32>) {
  // expected-error @+1 {{'mp.slice_grad' op slice in dimension 0 (offset 1, size 4, stride 1) exceeds the size 4}}
  %0 = mp.slice_grad %dy offsets [1, 2] sizes [4, 4] strides [1, 1] : tensor<4x4xf32> to tensor<4x8xf32>
  return
}

// -----

// slice_grad: grad_output has the box shape.
func.func @slice_grad_grad_output_shape(%dy: tensor<4x2xf32>) {
  // expected-error @+1 {{'mp.slice_grad' op expects grad_output shape [4, 4], got [4, 2]}}
  %0 = mp.slice_grad %dy offsets [0, 2] sizes [4, 4] strides [1, 1] : tensor<4x2xf32> to tensor<4x8xf32>
  return
}

// -----

// embedding: the table must be statically shaped.
func.func @embedding_dynamic_table(%t: tensor<?x64xf32>, %i: tensor<2x16xi64>) {
  // expected-error @+1 {{'mp.embedding' op table must be a statically shaped tensor, got 'tensor<?x64xf32>'}}
  %0 = mp.embedding %t[%i] : tensor<?x64xf32>, tensor<2x16xi64>
  return
}

// -----

// embedding: the indices must be statically shaped.
func.func @embedding_dynamic_indices(%t: tensor<1000x64xf32>, %i: tensor<2x?xi64>) {
  // expected-error @+1 {{'mp.embedding' op indices must be a statically shaped tensor, got 'tensor<2x?xi64>'}}
  %0 = mp.embedding %t[%i] : tensor<1000x64xf32>, tensor<2x?xi64>
  return
}

// -----

// embedding: the table has rank 2.
func.func @embedding_table_rank(%t: tensor<1000xf32>, %i: tensor<2x16xi64>) {
  // expected-error @+1 {{'mp.embedding' op expects a table of rank 2, got rank 1}}
  %0 = mp.embedding %t[%i] : tensor<1000xf32>, tensor<2x16xi64>
  return
}

// -----

// Generic form: embedding result type must be the inferred one.
func.func @embedding_generic_result(%t: tensor<1000x64xf32>, %i: tensor<2x16xi64>) {
  // expected-error @+2 {{'mp.embedding' op inferred type(s) 'tensor<2x16x64xf32>' are incompatible with return type(s) of operation 'tensor<2x16x1000xf32>'}}
  // expected-error @+1 {{'mp.embedding' op failed to infer returned types}}
  %0 = "mp.embedding"(%t, %i) : (tensor<1000x64xf32>, tensor<2x16xi64>) -> tensor<2x16x1000xf32>
  return
}

// -----

// ODS: embedding indices are i32 or i64.
func.func @embedding_float_indices(%t: tensor<1000x64xf32>, %i: tensor<2x16xf32>) {
  // expected-error @+1 {{'mp.embedding' op operand #1 must be statically shaped tensor of 32-bit signless integer or 64-bit signless integer values, but got 'tensor<2x16xf32>'}}
  %0 = mp.embedding %t[%i] : tensor<1000x64xf32>, tensor<2x16xf32>
  return
}

// -----

// embedding_grad: the result table has rank 2.
func.func @embedding_grad_result_rank(%dy: tensor<2x16x64xf32>, %i: tensor<2x16xi64>) {
  // expected-error @+1 {{'mp.embedding_grad' op expects a result table of rank 2, got rank 1}}
  %0 = mp.embedding_grad %dy, %i : (tensor<2x16x64xf32>, tensor<2x16xi64>) -> tensor<64000xf32>
  return
}

// -----

// embedding_grad: the result has the grad_output element type.
func.func @embedding_grad_element(%dy: tensor<2x16x64xf16>, %i: tensor<2x16xi64>) {
  // expected-error @+1 {{'mp.embedding_grad' op expects the result element type 'f16', got 'f32'}}
  %0 = mp.embedding_grad %dy, %i : (tensor<2x16x64xf16>, tensor<2x16xi64>) -> tensor<1000x64xf32>
  return
}

// -----

// embedding_grad: grad_output is [S..., D].
func.func @embedding_grad_grad_output_shape(%dy: tensor<2x16x32xf32>, %i: tensor<2x16xi32>) {
  // expected-error @+1 {{'mp.embedding_grad' op expects grad_output shape [2, 16, 64], got [2, 16, 32]}}
  %0 = mp.embedding_grad %dy, %i : (tensor<2x16x32xf32>, tensor<2x16xi32>) -> tensor<1000x64xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Losses
//===----------------------------------------------------------------------===//

// cross_entropy: logits must be statically shaped.
func.func @cross_entropy_dynamic_logits(%l: tensor<?x10xf32>, %y: tensor<64xi64>) {
  // expected-error @+1 {{'mp.cross_entropy' op logits must be a statically shaped tensor, got 'tensor<?x10xf32>'}}
  %0 = mp.cross_entropy %l, %y : tensor<?x10xf32>, tensor<64xi64>
  return
}

// -----

// cross_entropy: labels must be statically shaped.
func.func @cross_entropy_dynamic_labels(%l: tensor<64x10xf32>, %y: tensor<?xi64>) {
  // expected-error @+1 {{'mp.cross_entropy' op labels must be a statically shaped tensor, got 'tensor<?xi64>'}}
  %0 = mp.cross_entropy %l, %y : tensor<64x10xf32>, tensor<?xi64>
  return
}

// -----

// cross_entropy: K-dimensional logits [N, C, d...] take labels [N, d...].
func.func @cross_entropy_logits_rank(%l: tensor<64x10x2xf32>, %y: tensor<64xi64>) {
  // expected-error @+1 {{'mp.cross_entropy' op expects labels of shape [64, 2], got [64]}}
  %0 = mp.cross_entropy %l, %y : tensor<64x10x2xf32>, tensor<64xi64>
  return
}

// -----

// cross_entropy: labels are [N].
func.func @cross_entropy_labels_shape(%l: tensor<64x10xf32>, %y: tensor<32xi64>) {
  // expected-error @+1 {{'mp.cross_entropy' op expects labels of shape [64], got [32]}}
  %0 = mp.cross_entropy %l, %y : tensor<64x10xf32>, tensor<32xi64>
  return
}

// -----

// cross_entropy: labels of rank 1.
func.func @cross_entropy_labels_rank(%l: tensor<64x10xf32>, %y: tensor<64x1xi32>) {
  // expected-error @+1 {{'mp.cross_entropy' op expects labels of shape [64], got [64, 1]}}
  %0 = mp.cross_entropy %l, %y : tensor<64x10xf32>, tensor<64x1xi32>
  return
}

// -----

// Generic form: cross_entropy returns a 0-d tensor of the logits type.
func.func @cross_entropy_generic_result(%l: tensor<64x10xbf16>, %y: tensor<64xi64>) {
  // expected-error @+2 {{'mp.cross_entropy' op inferred type(s) 'tensor<bf16>' are incompatible with return type(s) of operation 'tensor<f32>'}}
  // expected-error @+1 {{'mp.cross_entropy' op failed to infer returned types}}
  %0 = "mp.cross_entropy"(%l, %y) : (tensor<64x10xbf16>, tensor<64xi64>) -> tensor<f32>
  return
}

// -----

// cross_entropy_grad: grad_output is 0-d of the logits element type.
func.func @cross_entropy_grad_grad_output(%dl: tensor<f32>, %l: tensor<64x10xf16>, %y: tensor<64xi64>) {
  // expected-error @+1 {{'mp.cross_entropy_grad' op expects grad_output of type 'tensor<f16>', got 'tensor<f32>'}}
  %0 = mp.cross_entropy_grad %dl, %l, %y : (tensor<f32>, tensor<64x10xf16>, tensor<64xi64>) -> tensor<64x10xf16>
  return
}

// -----

// cross_entropy_grad: grad_output is 0-d.
func.func @cross_entropy_grad_grad_output_rank(%dl: tensor<1xf32>, %l: tensor<64x10xf32>, %y: tensor<64xi64>) {
  // expected-error @+1 {{'mp.cross_entropy_grad' op expects grad_output of type 'tensor<f32>', got 'tensor<1xf32>'}}
  %0 = mp.cross_entropy_grad %dl, %l, %y : (tensor<1xf32>, tensor<64x10xf32>, tensor<64xi64>) -> tensor<64x10xf32>
  return
}

// -----

// cross_entropy_grad: logits of rank 2.
func.func @cross_entropy_grad_logits_rank(%dl: tensor<f32>, %l: tensor<640xf32>, %y: tensor<64xi64>) {
  // expected-error @+1 {{'mp.cross_entropy_grad' op expects logits of rank >= 2 ([batch, classes, d...]), got rank 1}}
  %0 = mp.cross_entropy_grad %dl, %l, %y : (tensor<f32>, tensor<640xf32>, tensor<64xi64>) -> tensor<640xf32>
  return
}

// -----

// cross_entropy_grad: labels are [N].
func.func @cross_entropy_grad_labels(%dl: tensor<f32>, %l: tensor<64x10xf32>, %y: tensor<10xi64>) {
  // expected-error @+1 {{'mp.cross_entropy_grad' op expects labels of shape [64], got [10]}}
  %0 = mp.cross_entropy_grad %dl, %l, %y : (tensor<f32>, tensor<64x10xf32>, tensor<10xi64>) -> tensor<64x10xf32>
  return
}

// -----

// ODS: cross_entropy_grad logits and result share one type.
func.func @cross_entropy_grad_result_type(%dl: tensor<f32>, %l: tensor<64x10xf32>, %y: tensor<64xi64>) {
  // expected-error @+1 {{'mp.cross_entropy_grad' op failed to verify that all of {logits, result} have same type}}
  %0 = mp.cross_entropy_grad %dl, %l, %y : (tensor<f32>, tensor<64x10xf32>, tensor<64xi64>) -> tensor<64x10xf16>
  return
}

// -----

// mse: the input must be statically shaped.
func.func @mse_dynamic(%y: tensor<?x1xf32>, %t: tensor<?x1xf32>) {
  // expected-error @+1 {{'mp.mse' op input must be a statically shaped tensor, got 'tensor<?x1xf32>'}}
  %0 = mp.mse %y, %t : tensor<?x1xf32>
  return
}

// -----

// Generic form: mse returns a 0-d tensor of the input element type.
func.func @mse_generic_result(%y: tensor<64x1xf16>, %t: tensor<64x1xf16>) {
  // expected-error @+2 {{'mp.mse' op inferred type(s) 'tensor<f16>' are incompatible with return type(s) of operation 'tensor<1xf16>'}}
  // expected-error @+1 {{'mp.mse' op failed to infer returned types}}
  %0 = "mp.mse"(%y, %t) : (tensor<64x1xf16>, tensor<64x1xf16>) -> tensor<1xf16>
  return
}

// -----

// ODS (generic form): mse input and target share one type.
func.func @mse_generic_target(%y: tensor<64x1xf32>, %t: tensor<64xf32>) {
  // expected-error @+1 {{'mp.mse' op failed to verify that all of {input, target} have same type}}
  %0 = "mp.mse"(%y, %t) : (tensor<64x1xf32>, tensor<64xf32>) -> tensor<f32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Precision
//===----------------------------------------------------------------------===//

// cast: saturate requires an FP8 result.
func.func @cast_saturate_f16(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'mp.cast' op 'saturate' requires an FP8, FP6, FP4 or E8M0 result element type, got 'f16'}}
  %0 = mp.cast %x saturate : tensor<4x8xf32> to tensor<4x8xf16>
  return
}

// -----

// ODS: cast keeps the shape.
func.func @cast_shape(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'mp.cast' op requires the same shape for all operands and results}}
  %0 = mp.cast %x : tensor<4x8xf32> to tensor<8x4xf16>
  return
}

// -----

// ODS: cast converts between float formats only.
func.func @cast_to_integer(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'mp.cast' op result #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type or f8E4M3FN type or f8E5M2 type or f4E2M1FN type or f6E2M3FN type or f6E3M2FN type or f8E8M0FNU type values, but got 'tensor<4x8xi8>'}}
  %0 = mp.cast %x : tensor<4x8xf32> to tensor<4x8xi8>
  return
}

// -----

// ODS: scale takes a 0-d f32 factor.
func.func @scale_factor(%x: tensor<4x8xf16>, %s: tensor<f16>) {
  // expected-error @+1 {{'mp.scale' op operand #1 must be 0D tensor of 32-bit float values, but got 'tensor<f16>'}}
  %0 = "mp.scale"(%x, %s) : (tensor<4x8xf16>, tensor<f16>) -> tensor<4x8xf16>
  return
}

// -----

// ODS: scale input and result share one type.
func.func @scale_result(%x: tensor<4x8xf16>, %s: tensor<f32>) {
  // expected-error @+1 {{'mp.scale' op failed to verify that all of {input, result} have same type}}
  %0 = "mp.scale"(%x, %s) : (tensor<4x8xf16>, tensor<f32>) -> tensor<4x8xf32>
  return
}

// -----

// Generic form: all_finite needs at least one operand.
func.func @all_finite_empty() {
  // expected-error @+1 {{'mp.all_finite' op expects at least one operand}}
  %0 = "mp.all_finite"() : () -> tensor<i1>
  return
}

// -----

// ODS: all_finite returns a 0-d i1 tensor.
func.func @all_finite_result(%g: tensor<4xf32>) {
  // expected-error @+1 {{'mp.all_finite' op result #0 must be 0D tensor of 1-bit signless integer values, but got 'tensor<1xi1>'}}
  %0 = "mp.all_finite"(%g) : (tensor<4xf32>) -> tensor<1xi1>
  return
}

// -----

// update_loss_scale: growth_factor > 1.
func.func @update_loss_scale_growth(%s: tensor<f32>, %t: tensor<i32>, %f: tensor<i1>) {
  // expected-error @+1 {{'mp.update_loss_scale' op growth_factor must be a finite number > 1, got 1.000000e+00}}
  %0:2 = mp.update_loss_scale %s, %t, %f {growth_factor = 1.0 : f64}
  return
}

// -----

// update_loss_scale: growth_factor must be finite.
func.func @update_loss_scale_growth_inf(%s: tensor<f32>, %t: tensor<i32>, %f: tensor<i1>) {
  // expected-error @+1 {{'mp.update_loss_scale' op growth_factor must be a finite number > 1, got INF}}
  %0:2 = mp.update_loss_scale %s, %t, %f {growth_factor = 0x7FF0000000000000 : f64}
  return
}

// -----

// update_loss_scale: backoff_factor in (0, 1).
func.func @update_loss_scale_backoff(%s: tensor<f32>, %t: tensor<i32>, %f: tensor<i1>) {
  // expected-error @+1 {{'mp.update_loss_scale' op backoff_factor must be in (0, 1), got 1.000000e+00}}
  %0:2 = mp.update_loss_scale %s, %t, %f {backoff_factor = 1.0 : f64}
  return
}

// -----

// update_loss_scale: backoff_factor > 0.
func.func @update_loss_scale_backoff_zero(%s: tensor<f32>, %t: tensor<i32>, %f: tensor<i1>) {
  // expected-error @+1 {{'mp.update_loss_scale' op backoff_factor must be in (0, 1), got 0.000000e+00}}
  %0:2 = mp.update_loss_scale %s, %t, %f {backoff_factor = 0.0 : f64}
  return
}

// -----

// update_loss_scale: growth_interval >= 1.
func.func @update_loss_scale_interval(%s: tensor<f32>, %t: tensor<i32>, %f: tensor<i1>) {
  // expected-error @+1 {{'mp.update_loss_scale' op growth_interval must be >= 1, got 0}}
  %0:2 = mp.update_loss_scale %s, %t, %f {growth_interval = 0 : i64}
  return
}

// -----

// update_loss_scale: hysteresis >= 1.
func.func @update_loss_scale_hysteresis(%s: tensor<f32>, %t: tensor<i32>, %f: tensor<i1>) {
  // expected-error @+1 {{'mp.update_loss_scale' op hysteresis must be >= 1, got 0}}
  %0:2 = mp.update_loss_scale %s, %t, %f {hysteresis = 0 : i64}
  return
}

// -----

// update_loss_scale: hysteresis > 1 needs a hysteresis_tracker.
func.func @update_loss_scale_missing_tracker(%s: tensor<f32>, %t: tensor<i32>, %f: tensor<i1>) {
  // expected-error @+1 {{'mp.update_loss_scale' op hysteresis 2 requires a hysteresis_tracker operand}}
  %0:2 = mp.update_loss_scale %s, %t, %f {hysteresis = 2 : i64}
  return
}

// -----

// update_loss_scale: a hysteresis_tracker needs hysteresis > 1.
func.func @update_loss_scale_extra_tracker(%s: tensor<f32>, %t: tensor<i32>, %f: tensor<i1>, %h: tensor<i32>) {
  // expected-error @+1 {{'mp.update_loss_scale' op a hysteresis_tracker operand requires hysteresis > 1}}
  %0:3 = mp.update_loss_scale %s, %t, %f hysteresis_tracker %h
  return
}

// -----

// update_loss_scale: min_scale > 0.
func.func @update_loss_scale_min_scale(%s: tensor<f32>, %t: tensor<i32>, %f: tensor<i1>) {
  // expected-error @+1 {{'mp.update_loss_scale' op min_scale must be a finite number > 0, got 0.000000e+00}}
  %0:2 = mp.update_loss_scale %s, %t, %f {min_scale = 0.0 : f64}
  return
}

// -----

// update_loss_scale: max_scale must be finite.
func.func @update_loss_scale_max_scale(%s: tensor<f32>, %t: tensor<i32>, %f: tensor<i1>) {
  // expected-error @+1 {{'mp.update_loss_scale' op max_scale must be a finite number > 0, got INF}}
  %0:2 = mp.update_loss_scale %s, %t, %f {max_scale = 0x7FF0000000000000 : f64}
  return
}

// -----

// update_loss_scale: min_scale <= max_scale.
func.func @update_loss_scale_min_max(%s: tensor<f32>, %t: tensor<i32>, %f: tensor<i1>) {
  // expected-error @+1 {{'mp.update_loss_scale' op min_scale (2.000000e+00) must not exceed max_scale (1.000000e+00)}}
  %0:2 = mp.update_loss_scale %s, %t, %f {max_scale = 1.0 : f64, min_scale = 2.0 : f64}
  return
}

// -----

// Generic form: update_loss_scale returns a third result only with a tracker.
func.func @update_loss_scale_generic_results(%s: tensor<f32>, %t: tensor<i32>, %f: tensor<i1>) {
  // expected-error @+2 {{'mp.update_loss_scale' op inferred type(s) 'tensor<f32>', 'tensor<i32>' are incompatible with return type(s) of operation 'tensor<f32>', 'tensor<i32>', 'tensor<i32>'}}
  // expected-error @+1 {{'mp.update_loss_scale' op failed to infer returned types}}
  %0:3 = "mp.update_loss_scale"(%s, %t, %f) : (tensor<f32>, tensor<i32>, tensor<i1>) -> (tensor<f32>, tensor<i32>, tensor<i32>)
  return
}

// -----

// ODS: the growth tracker is a 0-d i32 tensor.
func.func @update_loss_scale_tracker_type(%s: tensor<f32>, %t: tensor<i64>, %f: tensor<i1>) {
  // expected-error @+1 {{'mp.update_loss_scale' op operand #1 must be 0D tensor of 32-bit signless integer values, but got 'tensor<i64>'}}
  %0:2 = "mp.update_loss_scale"(%s, %t, %f) : (tensor<f32>, tensor<i64>, tensor<i1>) -> (tensor<f32>, tensor<i32>)
  return
}

// -----

// amax_history_push: the history has at least one entry.
func.func @amax_history_push_empty(%h: tensor<0xf32>, %a: tensor<f32>) {
  // expected-error @+1 {{'mp.amax_history_push' op expects a history of at least one entry}}
  %0 = mp.amax_history_push %h, %a : tensor<0xf32>
  return
}

// -----

// ODS: the amax history is a 1-d f32 tensor.
func.func @amax_history_push_rank(%h: tensor<2x8xf32>, %a: tensor<f32>) {
  // expected-error @+1 {{'mp.amax_history_push' op operand #0 must be 1D tensor of 32-bit float values, but got 'tensor<2x8xf32>'}}
  %0 = mp.amax_history_push %h, %a : tensor<2x8xf32>
  return
}

// -----

// fp8_scale: amax_epsilon is finite and >= 0.
func.func @fp8_scale_negative_epsilon(%h: tensor<4xf32>, %s: tensor<f32>) {
  // expected-error @+1 {{'mp.fp8_scale' op amax_epsilon must be finite and >= 0, got -1.000000e+00}}
  %0 = mp.fp8_scale %h, %s format e4m3 amax_epsilon(-1.0) : tensor<4xf32>
  return
}

// -----

// fp8_scale: the history has at least one entry.
func.func @fp8_scale_empty(%h: tensor<0xf32>, %s: tensor<f32>) {
  // expected-error @+1 {{'mp.fp8_scale' op expects a history of at least one entry}}
  %0 = mp.fp8_scale %h, %s format e4m3 : tensor<0xf32>
  return
}

// -----

// Custom syntax: unknown FP8 format.
func.func @fp8_scale_bad_format(%h: tensor<16xf32>, %s: tensor<f32>) {
  // expected-error @+2 {{custom op 'mp.fp8_scale' expected ::mlir::mp::FP8Format to be one of: e4m3, e5m2}}
  // expected-error @+1 {{custom op 'mp.fp8_scale' failed to parse MP_FP8FormatAttr parameter 'value' which is to be a `::mlir::mp::FP8Format`}}
  %0 = mp.fp8_scale %h, %s format e3m4 : tensor<16xf32>
  return
}

// -----

// Custom syntax: unknown amax_compute algorithm.
func.func @fp8_scale_bad_amax_compute(%h: tensor<16xf32>, %s: tensor<f32>) {
  // expected-error @+2 {{custom op 'mp.fp8_scale' expected ::mlir::mp::AmaxCompute to be one of: max, most_recent}}
  // expected-error @+1 {{custom op 'mp.fp8_scale' failed to parse MP_AmaxComputeAttr parameter 'value' which is to be a `::mlir::mp::AmaxCompute`}}
  %0 = mp.fp8_scale %h, %s format e4m3 amax_compute mean : tensor<16xf32>
  return
}

// -----

// ODS (generic form): format is required.
func.func @fp8_scale_missing_format(%h: tensor<16xf32>, %s: tensor<f32>) {
  // expected-error @+1 {{'mp.fp8_scale' op requires attribute 'format'}}
  %0 = "mp.fp8_scale"(%h, %s) : (tensor<16xf32>, tensor<f32>) -> tensor<f32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Training
//===----------------------------------------------------------------------===//

// grad: the loss is 0-d.
func.func @grad_loss_rank(%l: tensor<4xf32>, %w: tensor<4xf32>) {
  // expected-error @+1 {{'mp.grad' op expects a 0-d float loss, got 'tensor<4xf32>'}}
  %0 = mp.grad %l wrt %w : tensor<4xf32>, tensor<4xf32>
  return
}

// -----

// grad: the loss is a statically shaped tensor.
func.func @grad_loss_dynamic(%l: tensor<?xf32>, %w: tensor<4xf32>) {
  // expected-error @+1 {{'mp.grad' op expects a 0-d float loss, got 'tensor<?xf32>'}}
  %0 = mp.grad %l wrt %w : tensor<?xf32>, tensor<4xf32>
  return
}

// -----

// grad: the loss is a float tensor.
func.func @grad_loss_integer(%l: tensor<i32>, %w: tensor<4xf32>) {
  // expected-error @+1 {{'mp.grad' op expects a 0-d float loss, got 'tensor<i32>'}}
  %0 = mp.grad %l wrt %w : tensor<i32>, tensor<4xf32>
  return
}

// -----

// Generic form: grad needs at least one value.
func.func @grad_no_values(%l: tensor<f32>) {
  // expected-error @+2 {{'mp.grad' op expects at least one value to differentiate with respect to}}
  // expected-error @+1 {{'mp.grad' op failed to infer returned types}}
  "mp.grad"(%l) : (tensor<f32>) -> ()
  return
}

// -----

// Generic form: each gradient has the type of its value.
func.func @grad_generic_result(%l: tensor<f32>, %w: tensor<4x8xf32>) {
  // expected-error @+2 {{'mp.grad' op inferred type(s) 'tensor<4x8xf32>' are incompatible with return type(s) of operation 'tensor<8x4xf32>'}}
  // expected-error @+1 {{'mp.grad' op failed to infer returned types}}
  %0 = "mp.grad"(%l, %w) : (tensor<f32>, tensor<4x8xf32>) -> tensor<8x4xf32>
  return
}

// -----

// sgd: lr >= 0.
func.func @sgd_lr(%p: tensor<4xf32>, %g: tensor<4xf32>) {
  // expected-error @+1 {{'mp.sgd' op lr must be a finite number >= 0.000000e+00, got -1.000000e-01}}
  %0 = mp.sgd %p, %g {lr = -1.0e-01 : f64} : tensor<4xf32>
  return
}

// -----

// sgd: momentum >= 0.
func.func @sgd_momentum(%p: tensor<4xf32>, %g: tensor<4xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{'mp.sgd' op momentum must be a finite number >= 0.000000e+00, got -9.000000e-01}}
  %0:2 = mp.sgd %p, %g momentum_buffer %b {lr = 1.0e-01 : f64, momentum = -9.0e-01 : f64} : tensor<4xf32>, tensor<4xf32>
  return
}

// -----

// sgd: weight_decay >= 0 and finite.
func.func @sgd_weight_decay(%p: tensor<4xf32>, %g: tensor<4xf32>) {
  // expected-error @+1 {{'mp.sgd' op weight_decay must be a finite number >= 0.000000e+00, got nan}}
  %0 = mp.sgd %p, %g {lr = 1.0e-01 : f64, weight_decay = 0x7FF8000000000000 : f64} : tensor<4xf32>
  return
}

// -----

// sgd: dampening in [0, 1].
func.func @sgd_dampening(%p: tensor<4xf32>, %g: tensor<4xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{'mp.sgd' op dampening must be in [0, 1], got 1.500000e+00}}
  %0:2 = mp.sgd %p, %g momentum_buffer %b {dampening = 1.5 : f64, lr = 1.0e-01 : f64, momentum = 9.0e-01 : f64} : tensor<4xf32>, tensor<4xf32>
  return
}

// -----

// sgd: nesterov requires momentum > 0.
func.func @sgd_nesterov_momentum(%p: tensor<4xf32>, %g: tensor<4xf32>) {
  // expected-error @+1 {{'mp.sgd' op nesterov requires momentum > 0 and dampening 0}}
  %0 = mp.sgd %p, %g {lr = 1.0e-01 : f64, nesterov} : tensor<4xf32>
  return
}

// -----

// sgd: nesterov requires dampening 0.
func.func @sgd_nesterov_dampening(%p: tensor<4xf32>, %g: tensor<4xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{'mp.sgd' op nesterov requires momentum > 0 and dampening 0}}
  %0:2 = mp.sgd %p, %g momentum_buffer %b {dampening = 1.0e-01 : f64, lr = 1.0e-01 : f64, momentum = 9.0e-01 : f64, nesterov} : tensor<4xf32>, tensor<4xf32>
  return
}

// -----

// sgd: momentum requires a momentum_buffer.
func.func @sgd_missing_buffer(%p: tensor<4xf32>, %g: tensor<4xf32>) {
  // expected-error @+1 {{'mp.sgd' op momentum 9.000000e-01 requires a momentum_buffer operand}}
  %0 = mp.sgd %p, %g {lr = 1.0e-01 : f64, momentum = 9.0e-01 : f64} : tensor<4xf32>
  return
}

// -----

// sgd: a momentum_buffer requires momentum.
func.func @sgd_extra_buffer(%p: tensor<4xf32>, %g: tensor<4xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{'mp.sgd' op a momentum_buffer operand requires momentum > 0}}
  %0:2 = mp.sgd %p, %g momentum_buffer %b {lr = 1.0e-01 : f64} : tensor<4xf32>, tensor<4xf32>
  return
}

// -----

// sgd: the momentum_buffer has the parameter type.
func.func @sgd_buffer_type(%p: tensor<4xf16>, %g: tensor<4xf16>, %b: tensor<4xf32>) {
  // expected-error @+1 {{'mp.sgd' op expects momentum_buffer of the parameter type 'tensor<4xf16>', got 'tensor<4xf32>'}}
  %0:2 = mp.sgd %p, %g momentum_buffer %b {lr = 1.0e-01 : f64, momentum = 9.0e-01 : f64} : tensor<4xf16>, tensor<4xf32>
  return
}

// -----

// ODS (generic form): sgd param and grad share one type.
func.func @sgd_grad_type(%p: tensor<4xf32>, %g: tensor<4xf16>) {
  // expected-error @+1 {{'mp.sgd' op failed to verify that all of {param, grad} have same type}}
  %0 = "mp.sgd"(%p, %g) <{operandSegmentSizes = array<i32: 1, 1, 0, 0, 0>}> {lr = 1.0e-01 : f64} : (tensor<4xf32>, tensor<4xf16>) -> tensor<4xf32>
  return
}

// -----

// sgd requires a learning rate: the lr attribute or the lr operand.
func.func @sgd_missing_lr(%p: tensor<4xf32>, %g: tensor<4xf32>) {
  // expected-error @+1 {{'mp.sgd' op expects a learning rate: an lr attribute or an lr operand}}
  %0 = mp.sgd %p, %g : tensor<4xf32>
  return
}

// -----

// Generic form: sgd returns the buffer only when it takes one.
func.func @sgd_generic_results(%p: tensor<4xf32>, %g: tensor<4xf32>) {
  // expected-error @+2 {{'mp.sgd' op inferred type(s) 'tensor<4xf32>' are incompatible with return type(s) of operation 'tensor<4xf32>', 'tensor<4xf32>'}}
  // expected-error @+1 {{'mp.sgd' op failed to infer returned types}}
  %0:2 = "mp.sgd"(%p, %g) <{operandSegmentSizes = array<i32: 1, 1, 0, 0, 0>}> {lr = 1.0e-01 : f64} : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  return
}

// -----

// adam: lr >= 0.
func.func @adam_lr(%p: tensor<4xf32>, %g: tensor<4xf32>, %m: tensor<4xf32>, %v: tensor<4xf32>, %step: tensor<i64>) {
  // expected-error @+1 {{'mp.adam' op lr must be a finite number >= 0.000000e+00, got -1.000000e-03}}
  %0:3 = mp.adam %p, %g, %m, %v, %step {lr = -1.0e-03 : f64} : tensor<4xf32>, tensor<i64>
  return
}

// -----

// adam: eps >= 0.
func.func @adam_eps(%p: tensor<4xf32>, %g: tensor<4xf32>, %m: tensor<4xf32>, %v: tensor<4xf32>, %step: tensor<i64>) {
  // expected-error @+1 {{'mp.adam' op eps must be a finite number >= 0.000000e+00, got -1.000000e-08}}
  %0:3 = mp.adam %p, %g, %m, %v, %step {eps = -1.0e-08 : f64} : tensor<4xf32>, tensor<i64>
  return
}

// -----

// adam: weight_decay >= 0.
func.func @adam_weight_decay(%p: tensor<4xf32>, %g: tensor<4xf32>, %m: tensor<4xf32>, %v: tensor<4xf32>, %step: tensor<i32>) {
  // expected-error @+1 {{'mp.adam' op weight_decay must be a finite number >= 0.000000e+00, got -1.000000e+00}}
  %0:3 = mp.adam %p, %g, %m, %v, %step {weight_decay = -1.0 : f64} : tensor<4xf32>, tensor<i32>
  return
}

// -----

// adam: beta1 in [0, 1).
func.func @adam_beta1(%p: tensor<4xf32>, %g: tensor<4xf32>, %m: tensor<4xf32>, %v: tensor<4xf32>, %step: tensor<i64>) {
  // expected-error @+1 {{'mp.adam' op beta1 must be in [0, 1), got 1.000000e+00}}
  %0:3 = mp.adam %p, %g, %m, %v, %step {beta1 = 1.0 : f64} : tensor<4xf32>, tensor<i64>
  return
}

// -----

// adam: beta2 in [0, 1).
func.func @adam_beta2(%p: tensor<4xf32>, %g: tensor<4xf32>, %m: tensor<4xf32>, %v: tensor<4xf32>, %step: tensor<i64>) {
  // expected-error @+1 {{'mp.adam' op beta2 must be in [0, 1), got -5.000000e-01}}
  %0:3 = mp.adam %p, %g, %m, %v, %step {beta2 = -0.5 : f64} : tensor<4xf32>, tensor<i64>
  return
}

// -----

// adamw: lr must be finite.
func.func @adamw_lr(%p: tensor<4xbf16>, %g: tensor<4xbf16>, %m: tensor<4xbf16>, %v: tensor<4xbf16>, %step: tensor<i64>) {
  // expected-error @+1 {{'mp.adamw' op lr must be a finite number >= 0.000000e+00, got INF}}
  %0:3 = mp.adamw %p, %g, %m, %v, %step {lr = 0x7FF0000000000000 : f64} : tensor<4xbf16>, tensor<i64>
  return
}

// -----

// adamw: eps >= 0.
func.func @adamw_eps(%p: tensor<4xf32>, %g: tensor<4xf32>, %m: tensor<4xf32>, %v: tensor<4xf32>, %step: tensor<i64>) {
  // expected-error @+1 {{'mp.adamw' op eps must be a finite number >= 0.000000e+00, got -1.000000e+00}}
  %0:3 = mp.adamw %p, %g, %m, %v, %step {eps = -1.0 : f64} : tensor<4xf32>, tensor<i64>
  return
}

// -----

// adamw: weight_decay >= 0.
func.func @adamw_weight_decay(%p: tensor<4xf32>, %g: tensor<4xf32>, %m: tensor<4xf32>, %v: tensor<4xf32>, %step: tensor<i64>) {
  // expected-error @+1 {{'mp.adamw' op weight_decay must be a finite number >= 0.000000e+00, got -1.000000e-02}}
  %0:3 = mp.adamw %p, %g, %m, %v, %step {weight_decay = -1.0e-02 : f64} : tensor<4xf32>, tensor<i64>
  return
}

// -----

// adamw: beta1 in [0, 1).
func.func @adamw_beta1(%p: tensor<4xf32>, %g: tensor<4xf32>, %m: tensor<4xf32>, %v: tensor<4xf32>, %step: tensor<i64>) {
  // expected-error @+1 {{'mp.adamw' op beta1 must be in [0, 1), got nan}}
  %0:3 = mp.adamw %p, %g, %m, %v, %step {beta1 = 0x7FF8000000000000 : f64} : tensor<4xf32>, tensor<i64>
  return
}

// -----

// adamw: beta2 in [0, 1).
func.func @adamw_beta2(%p: tensor<4xf32>, %g: tensor<4xf32>, %m: tensor<4xf32>, %v: tensor<4xf32>, %step: tensor<i64>) {
  // expected-error @+1 {{'mp.adamw' op beta2 must be in [0, 1), got 1.500000e+00}}
  %0:3 = mp.adamw %p, %g, %m, %v, %step {beta2 = 1.5 : f64} : tensor<4xf32>, tensor<i64>
  return
}

// -----

// ODS (generic form): adam moments share the parameter type.
func.func @adam_moment_type(%p: tensor<4xf32>, %g: tensor<4xf32>, %m: tensor<4xf16>, %v: tensor<4xf32>, %step: tensor<i64>) {
  // expected-error @+1 {{'mp.adam' op failed to verify that all of {param, grad, exp_avg, exp_avg_sq} have same type}}
  %0:3 = "mp.adam"(%p, %g, %m, %v, %step) <{operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 0, 0>}> : (tensor<4xf32>, tensor<4xf32>, tensor<4xf16>, tensor<4xf32>, tensor<i64>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
  return
}

// -----

// ODS: the step is a 0-d i32 or i64 tensor.
func.func @adam_step_type(%p: tensor<4xf32>, %g: tensor<4xf32>, %m: tensor<4xf32>, %v: tensor<4xf32>, %step: tensor<f32>) {
  // expected-error @+1 {{'mp.adam' op operand #4 must be 0D tensor of 32-bit signless integer or 64-bit signless integer values, but got 'tensor<f32>'}}
  %0:3 = mp.adam %p, %g, %m, %v, %step : tensor<4xf32>, tensor<f32>
  return
}

// -----

// Generic form: adamw returns three values of the parameter type.
func.func @adamw_generic_results(%p: tensor<4xf32>, %g: tensor<4xf32>, %m: tensor<4xf32>, %v: tensor<4xf32>, %step: tensor<i64>) {
  // expected-error @+2 {{'mp.adamw' op inferred type(s) 'tensor<4xf32>', 'tensor<4xf32>', 'tensor<4xf32>' are incompatible with return type(s) of operation 'tensor<4xf32>', 'tensor<4xf32>', 'tensor<4xf16>'}}
  // expected-error @+1 {{'mp.adamw' op failed to infer returned types}}
  %0:3 = "mp.adamw"(%p, %g, %m, %v, %step) <{operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 0, 0>}> : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<i64>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf16>)
  return
}

// -----

//===----------------------------------------------------------------------===//
// Train-step attributes on function arguments and results
//===----------------------------------------------------------------------===//

// mp.param is a unit attribute.
// expected-error @+1 {{'mp.param' on argument 0 must be a unit attribute}}
func.func @param_not_unit(%w: tensor<4xf32> {mp.param = true}) {
  return
}

// -----

// mp.param requires a float tensor.
// expected-error @+1 {{'mp.param' on argument 0 requires a statically shaped float tensor, got 'tensor<4xi32>'}}
func.func @param_integer(%w: tensor<4xi32> {mp.param}) {
  return
}

// -----

// mp.param requires a statically shaped tensor.
// expected-error @+1 {{'mp.param' on argument 1 requires a statically shaped float tensor, got 'tensor<?x4xf32>'}}
func.func @param_dynamic(%x: tensor<8xf32>, %w: tensor<?x4xf32> {mp.param}) {
  return
}

// -----

// mp.param requires a tensor.
// expected-error @+1 {{'mp.param' on argument 0 requires a statically shaped float tensor, got 'f32'}}
func.func private @param_scalar(f32 {mp.param})

// -----

// An argument cannot be both mp.param and mp.state.
// expected-error @+1 {{argument 0 cannot be both 'mp.param' and 'mp.state'}}
func.func @param_and_state(%w: tensor<4xf32> {mp.param, mp.state = "step"}) {
  return
}

// -----

// mp.state is a non-empty string.
// expected-error @+1 {{'mp.state' on argument 0 must be a non-empty string naming the state}}
func.func @state_empty(%s: tensor<i64> {mp.state = ""}) {
  return
}

// -----

// mp.state is a string.
// expected-error @+1 {{'mp.state' on argument 0 must be a non-empty string naming the state}}
func.func @state_not_string(%s: tensor<i64> {mp.state = 1 : i64}) {
  return
}

// -----

// mp.state requires a ranked tensor.
// expected-error @+1 {{'mp.state' on argument 1 requires a ranked tensor, got 'i64'}}
func.func @state_scalar(%x: tensor<4xf32>, %s: i64 {mp.state = "step"}) {
  return
}

// -----

// mp.state requires a ranked tensor (unranked rejected).
// expected-error @+1 {{'mp.state' on argument 0 requires a ranked tensor, got 'tensor<*xf32>'}}
func.func @state_unranked(%s: tensor<*xf32> {mp.state = "adam.exp_avg"}) {
  return
}

// -----

// mp.init requires mp.state.
// expected-error @+1 {{'mp.init' on argument 0 requires 'mp.state'}}
func.func @init_without_state(%s: tensor<f32> {mp.init = 1.0 : f32}) {
  return
}

// -----

// mp.init requires mp.state (mp.param is not enough).
// expected-error @+1 {{'mp.init' on argument 0 requires 'mp.state'}}
func.func @init_on_param(%w: tensor<4xf32> {mp.init = dense<1.0> : tensor<4xf32>, mp.param}) {
  return
}

// -----

// mp.init: a scalar of the argument's element type.
// expected-error @+1 {{'mp.init' on argument 0 must be a dense value of type 'tensor<f32>' or a scalar of its element type}}
func.func @init_scalar_type(%s: tensor<f32> {mp.init = 6.5536e+04 : f16, mp.state = "loss_scale"}) {
  return
}

// -----

// mp.init: a dense value of the argument's type.
// expected-error @+1 {{'mp.init' on argument 0 must be a dense value of type 'tensor<16xf32>' or a scalar of its element type}}
func.func @init_dense_shape(%h: tensor<16xf32> {mp.init = dense<0.0> : tensor<8xf32>, mp.state = "amax_history"}) {
  return
}

// -----

// mp.init: an integer scalar of the argument's element type.
// expected-error @+1 {{'mp.init' on argument 0 must be a dense value of type 'tensor<i32>' or a scalar of its element type}}
func.func @init_integer_width(%t: tensor<i32> {mp.init = 2 : i64, mp.state = "hysteresis_tracker"}) {
  return
}

// -----

// mp.init: a string is not a value.
// expected-error @+1 {{'mp.init' on argument 0 must be a dense value of type 'tensor<i64>' or a scalar of its element type}}
func.func @init_string(%t: tensor<i64> {mp.init = "zero", mp.state = "step"}) {
  return
}

// -----

// Unknown mp argument attribute.
// expected-error @+1 {{unknown argument attribute 'mp.parameter'; expected 'mp.param', 'mp.state', 'mp.init' or 'mp.copy_of'}}
func.func @unknown_arg_attr(%w: tensor<4xf32> {mp.parameter}) {
  return
}

// -----

// A result attribute is not an argument attribute.
// expected-error @+1 {{unknown argument attribute 'mp.loss'; expected 'mp.param', 'mp.state', 'mp.init' or 'mp.copy_of'}}
func.func @loss_on_argument(%l: tensor<f32> {mp.loss}) {
  return
}

// -----

// mp.loss is a unit attribute.
// expected-error @+1 {{'mp.loss' on result 0 must be a unit attribute}}
func.func @loss_not_unit(%l: tensor<f32>) -> (tensor<f32> {mp.loss = "mean"}) {
  return %l : tensor<f32>
}

// -----

// mp.loss requires a 0-d tensor.
// expected-error @+1 {{'mp.loss' on result 0 requires a 0-d float tensor, got 'tensor<1xf32>'}}
func.func @loss_rank(%l: tensor<1xf32>) -> (tensor<1xf32> {mp.loss}) {
  return %l : tensor<1xf32>
}

// -----

// mp.loss requires a float tensor.
// expected-error @+1 {{'mp.loss' on result 1 requires a 0-d float tensor, got 'tensor<i32>'}}
func.func @loss_integer(%x: tensor<f32>, %l: tensor<i32>) -> (tensor<f32>, tensor<i32> {mp.loss}) {
  return %x, %l : tensor<f32>, tensor<i32>
}

// -----

// mp.loss requires a tensor.
// expected-error @+1 {{'mp.loss' on result 0 requires a 0-d float tensor, got 'f32'}}
func.func @loss_scalar(%l: f32) -> (f32 {mp.loss}) {
  return %l : f32
}

// -----

// mp.updates is an integer argument index.
// expected-error @+1 {{'mp.updates' on result 0 must be an i64 argument index}}
func.func @updates_not_integer(%w: tensor<4xf32> {mp.param}) -> (tensor<4xf32> {mp.updates = "0"}) {
  return %w : tensor<4xf32>
}

// -----

// mp.updates is an i64 index.
// expected-error @+1 {{'mp.updates' on result 0 must be an i64 argument index}}
func.func @updates_i32(%w: tensor<4xf32> {mp.param}) -> (tensor<4xf32> {mp.updates = 0 : i32}) {
  return %w : tensor<4xf32>
}

// -----

// mp.updates names an existing argument.
// expected-error @+1 {{'mp.updates' on result 0 names argument 1, but the function has 1 argument}}
func.func @updates_out_of_range(%w: tensor<4xf32> {mp.param}) -> (tensor<4xf32> {mp.updates = 1 : i64}) {
  return %w : tensor<4xf32>
}

// -----

// mp.updates must not be negative.
// expected-error @+1 {{'mp.updates' on result 0 names argument -1, but the function has 1 argument}}
func.func @updates_negative(%w: tensor<4xf32> {mp.param}) -> (tensor<4xf32> {mp.updates = -1 : i64}) {
  return %w : tensor<4xf32>
}

// -----

// mp.updates: the result has the argument's type.
// expected-error @+1 {{result 0 of type 'tensor<4xf16>' cannot update argument 0 of type 'tensor<4xf32>'}}
func.func @updates_type(%w: tensor<4xf32> {mp.param}, %x: tensor<4xf16>) -> (tensor<4xf16> {mp.updates = 0 : i64}) {
  return %x : tensor<4xf16>
}

// -----

// mp.updates names an mp.param or mp.state argument.
// expected-error @+1 {{result 0 updates argument 0, which is neither 'mp.param' nor 'mp.state'}}
func.func @updates_data_argument(%x: tensor<4xf32>) -> (tensor<4xf32> {mp.updates = 0 : i64}) {
  return %x : tensor<4xf32>
}

// -----

// Two results cannot update the same argument.
// expected-error @+1 {{results 0 and 2 both update argument 0}}
func.func @updates_twice(%w: tensor<4xf32> {mp.param}, %b: tensor<4xf32> {mp.state = "sgd.momentum_buffer"})
    -> (tensor<4xf32> {mp.updates = 0 : i64}, tensor<4xf32> {mp.updates = 1 : i64}, tensor<4xf32> {mp.updates = 0 : i64}) {
  return %w, %b, %w : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// Unknown mp result attribute.
// expected-error @+1 {{unknown result attribute 'mp.losses'; expected 'mp.loss', 'mp.updates' or 'mp.skipped'}}
func.func @unknown_result_attr(%l: tensor<f32>) -> (tensor<f32> {mp.losses}) {
  return %l : tensor<f32>
}

// -----

// An argument attribute is not a result attribute.
// expected-error @+1 {{unknown result attribute 'mp.param'; expected 'mp.loss', 'mp.updates' or 'mp.skipped'}}
func.func @param_on_result(%w: tensor<4xf32>) -> (tensor<4xf32> {mp.param}) {
  return %w : tensor<4xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Autocast attributes on operations
//===----------------------------------------------------------------------===//

// mp.autocast is a boolean.
func.func @autocast_not_bool(%a: tensor<4xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{'mp.autocast' must be a boolean}}
  %0 = mp.add %a, %b {mp.autocast = 1 : i64} : tensor<4xf32>, tensor<4xf32>
  return
}

// -----

// mp.autocast is a boolean (also on a function).
// expected-error @+1 {{'mp.autocast' must be a boolean}}
func.func @autocast_on_function() attributes {mp.autocast} {
  return
}

// -----

// mp.precision is one of "f32", "f16", "bf16".
func.func @precision_value(%a: tensor<4x8xf32>, %b: tensor<8x4xf32>) {
  // expected-error @+1 {{'mp.precision' must be one of "f32", "f16", "bf16"}}
  %0 = mp.matmul %a, %b acc(f32) {mp.precision = "fp8"} : tensor<4x8xf32>, tensor<8x4xf32> -> tensor<4x4xf32>
  return
}

// -----

// mp.precision is a string, not a type.
func.func @precision_type(%x: tensor<4xf32>) {
  // expected-error @+1 {{'mp.precision' must be one of "f32", "f16", "bf16"}}
  %0 = mp.relu %x {mp.precision = f16} : tensor<4xf32>
  return
}

// -----

// Unknown mp operation attribute.
func.func @unknown_op_attr(%x: tensor<4xf32>) {
  // expected-error @+1 {{unknown operation attribute 'mp.autocasting'; expected 'mp.autocast', 'mp.precision', 'mp.loss_scaling', 'mp.signature', 'mp.device_resident', 'mp.stream' or 'mp.fusion_barrier'}}
  %0 = mp.tanh %x {mp.autocasting = false} : tensor<4xf32>
  return
}

// -----

// The fusion barrier marks an alloc_tensor, as a unit attribute.
func.func @fusion_barrier_on_op(%x: tensor<4xf32>) {
  // expected-error @+1 {{'mp.fusion_barrier' must be a unit attribute of a bufferization.alloc_tensor}}
  %0 = mp.tanh %x {mp.fusion_barrier} : tensor<4xf32>
  return
}

// -----

func.func @fusion_barrier_not_unit(%x: tensor<4xf32>) {
  // expected-error @+1 {{'mp.fusion_barrier' must be a unit attribute of a bufferization.alloc_tensor}}
  %0 = bufferization.alloc_tensor() copy(%x) {mp.fusion_barrier = 1 : i32} : tensor<4xf32>
  return
}

// -----

// An argument attribute is not an operation attribute.
func.func @param_on_op(%x: tensor<4xf32>) {
  // expected-error @+1 {{unknown operation attribute 'mp.param'; expected 'mp.autocast', 'mp.precision', 'mp.loss_scaling', 'mp.signature', 'mp.device_resident', 'mp.stream' or 'mp.fusion_barrier'}}
  %0 = mp.sigmoid %x {mp.param} : tensor<4xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Parsing
//===----------------------------------------------------------------------===//

// Unknown operation of the mp dialect.
func.func @unknown_op(%x: tensor<4xf32>) {
  // expected-error @+1 {{custom op 'mp.softplus' is unknown}}
  %0 = mp.softplus %x : tensor<4xf32>
  return
}

// -----

// Custom syntax: missing keyword.
func.func @reduce_missing_dims(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{custom op 'mp.reduce_sum' expected 'dims'}}
  %0 = mp.reduce_sum %x [1] : tensor<4x8xf32>
  return
}

// -----

// Custom syntax: misspelled optional keyword.
func.func @reduce_bad_keepdims(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{expected ':'}}
  %0 = mp.reduce_sum %x dims [1] keepdim : tensor<4x8xf32>
  return
}

// -----

// update_loss_scale: a negative growth_interval is rejected (signed check).
func.func @update_loss_scale_negative_interval(%s: tensor<f32>, %t: tensor<i32>, %f: tensor<i1>) {
  // expected-error @+1 {{'mp.update_loss_scale' op growth_interval must be >= 1, got -1}}
  %0:2 = mp.update_loss_scale %s, %t, %f {growth_interval = -1 : i64}
  return
}

// -----

// update_loss_scale: a negative hysteresis is rejected before the operand check.
func.func @update_loss_scale_negative_hysteresis(%s: tensor<f32>, %t: tensor<i32>, %f: tensor<i1>) {
  // expected-error @+1 {{'mp.update_loss_scale' op hysteresis must be >= 1, got -1}}
  %0:3 = mp.update_loss_scale %s, %t, %f hysteresis_tracker %t {hysteresis = -1 : i64}
  return
}

// -----

// fp8_scale: margin >= 0.
func.func @fp8_scale_negative_margin(%h: tensor<16xf32>, %s: tensor<f32>) {
  // expected-error @+1 {{'mp.fp8_scale' op margin must be >= 0, got -1}}
  %0 = mp.fp8_scale %h, %s format e5m2 {margin = -1 : i64} : tensor<16xf32>
  return
}

// -----

// mp.copy_of goes with mp.state = "working_copy".
// expected-error @+1 {{'mp.copy_of' on argument 1 requires 'mp.state' = "working_copy"}}
func.func @copy_of_without_state(%w: tensor<4xf32> {mp.param}, %c: tensor<4xf16> {mp.copy_of = 0 : i64}) {
  return
}

// -----

// mp.copy_of names a parameter.
// expected-error @+1 {{'mp.copy_of' on argument 1 must name an 'mp.param' argument}}
func.func @copy_of_not_a_param(%w: tensor<4xf32>, %c: tensor<4xf16> {mp.state = "working_copy", mp.copy_of = 0 : i64}) {
  return
}

// -----

// A working copy has its parameter's shape.
// expected-error @+1 {{working copy argument 1 must have the shape of parameter argument 0}}
func.func @copy_of_wrong_shape(%w: tensor<4xf32> {mp.param}, %c: tensor<8xf16> {mp.state = "working_copy", mp.copy_of = 0 : i64}) {
  return
}

// -----

// mp.skipped marks a tensor<i1> result.
// expected-error @+1 {{'mp.skipped' on result 0 must be a unit attribute on a tensor<i1>}}
func.func @skipped_wrong_type(%f: tensor<f32>) -> (tensor<f32> {mp.skipped}) {
  return %f : tensor<f32>
}

// -----

// mp.loss_scaling records "dynamic" or "static" on a function.
// expected-error @+1 {{'mp.loss_scaling' must be "dynamic" or "static" on a function}}
func.func @loss_scaling_bad_mode() attributes {mp.loss_scaling = "always"} {
  return
}
