// RUN: mp-opt %s -split-input-file -verify-diagnostics

// Negative tests of the narrow-format casts (lib/Dialect/MP/IR/MPOps.cpp) and
// of the block-scaled ops (lib/Dialect/MP/IR/MPBlockScaledOps.cpp): one case
// per rule, plus the ODS element-type constraints.

// cast: the FP4/FP6 formats have no overflow value.
func.func @cast_f4_no_saturate(%x: tensor<4xf32>) {
  // expected-error @+1 {{'mp.cast' op a cast to 'f4E2M1FN' requires 'saturate' (the format has no infinity or NaN)}}
  %0 = mp.cast %x : tensor<4xf32> to tensor<4xf4E2M1FN>
  return
}

// -----

// cast: E8M0 rounds up and clamps.
func.func @cast_e8m0_no_saturate(%x: tensor<4xf32>) {
  // expected-error @+1 {{'mp.cast' op a cast to 'f8E8M0FNU' requires 'saturate' (it rounds up and clamps to [2^-127, 2^127])}}
  %0 = mp.cast %x : tensor<4xf32> to tensor<4xf8E8M0FNU>
  return
}

// -----

// stochastic_cast: a narrow target only.
func.func @stochastic_cast_f16(%x: tensor<4xf32>, %r: tensor<4xi32>) {
  // expected-error @+1 {{result #0 must be statically shaped tensor of f8E4M3FN type or f8E5M2 type or f6E2M3FN type or f6E3M2FN type or f4E2M1FN type values}}
  %0 = mp.stochastic_cast %x, %r : tensor<4xf32>, tensor<4xi32> to tensor<4xf16>
  return
}

// -----

// stochastic_cast: one draw per element.
func.func @stochastic_cast_bits_shape(%x: tensor<4xf32>, %r: tensor<8xi32>) {
  // expected-error @+1 {{'mp.stochastic_cast' op failed to verify that all of {input, random_bits, result} have same shape}}
  %0 = mp.stochastic_cast %x, %r : tensor<4xf32>, tensor<8xi32> to tensor<4xf4E2M1FN>
  return
}

// -----

func.func @quantize_data_shape(%x: tensor<4x32xf32>) {
  // expected-error @+1 {{'mp.block_quantize' op expects data of the input's shape [4, 32], got [4, 16]}}
  %q, %s = mp.block_quantize %x : tensor<4x32xf32> -> tensor<4x16xf8E4M3FN>, tensor<4x1xf8E8M0FNU>
  return
}

// -----

func.func @quantize_bits_shape(%x: tensor<4x32xf32>, %r: tensor<4x16xi32>) {
  // expected-error @+1 {{'mp.block_quantize' op expects random bits of the input's shape [4, 32], got [4, 16]}}
  %q, %s = mp.block_quantize %x random(%r : tensor<4x16xi32>) : tensor<4x32xf32> -> tensor<4x32xf8E4M3FN>, tensor<4x1xf8E8M0FNU>
  return
}

// -----

func.func @quantize_scales_rank(%x: tensor<4x32xf32>) {
  // expected-error @+1 {{'mp.block_quantize' op expects scales of rank 2 (the rank of input), got rank 1}}
  %q, %s = mp.block_quantize %x : tensor<4x32xf32> -> tensor<4x32xf8E4M3FN>, tensor<4xf8E8M0FNU>
  return
}

// -----

func.func @quantize_rank0(%x: tensor<f32>) {
  // expected-error @+1 {{'mp.block_quantize' op expects input of rank >= 1}}
  %q, %s = mp.block_quantize %x : tensor<f32> -> tensor<f8E4M3FN>, tensor<f8E8M0FNU>
  return
}

// -----

func.func @quantize_not_multiple(%x: tensor<4x48xf32>) {
  // expected-error @+1 {{'mp.block_quantize' op input dimension 1 (48) is not a multiple of scales dimension 1 (5)}}
  %q, %s = mp.block_quantize %x : tensor<4x48xf32> -> tensor<4x48xf8E4M3FN>, tensor<4x5xf8E8M0FNU>
  return
}

// -----

func.func @quantize_no_block(%x: tensor<4x32xf32>) {
  // expected-error @+1 {{'mp.block_quantize' op expects blocks of 16, 32 or 128 elements, got block [1, 1] (scales of input's shape)}}
  %q, %s = mp.block_quantize %x : tensor<4x32xf32> -> tensor<4x32xf8E4M3FN>, tensor<4x32xf8E8M0FNU>
  return
}

// -----

func.func @quantize_block_length(%x: tensor<4x64xf32>) {
  // expected-error @+1 {{'mp.block_quantize' op expects a block length of 16, 32 or 128, got 64 along dimension 1 (block [1, 64])}}
  %q, %s = mp.block_quantize %x : tensor<4x64xf32> -> tensor<4x64xf8E4M3FN>, tensor<4x1xf8E8M0FNU>
  return
}

// -----

func.func @quantize_2d_not_last(%x: tensor<32x32x4xf32>) {
  // expected-error @+1 {{'mp.block_quantize' op expects blocks along one dimension or 2-D tiles over the last two dimensions, got block [32, 32, 1]}}
  %q, %s = mp.block_quantize %x : tensor<32x32x4xf32> -> tensor<32x32x4xf8E4M3FN>, tensor<1x1x4xf8E8M0FNU>
  return
}

// -----

func.func @quantize_2d_not_square(%x: tensor<32x16xf32>) {
  // expected-error @+1 {{'mp.block_quantize' op expects 2-D tiles of 16x16, 32x32 or 128x128, got 32x16}}
  %q, %s = mp.block_quantize %x : tensor<32x16xf32> -> tensor<32x16xf8E4M3FN>, tensor<1x1xf8E8M0FNU>
  return
}

// -----

func.func @quantize_e4m3_needs_global(%x: tensor<4x16xf32>) {
  // expected-error @+1 {{'mp.block_quantize' op f8E4M3FN scales need a 'global' tensor-level f32 scale}}
  %q, %s = mp.block_quantize %x : tensor<4x16xf32> -> tensor<4x16xf4E2M1FN>, tensor<4x1xf8E4M3FN>
  return
}

// -----

func.func @quantize_global_not_e4m3(%x: tensor<4x32xf32>, %g: tensor<f32>) {
  // expected-error @+1 {{'mp.block_quantize' op 'global' is only for f8E4M3FN scales, got scales of 'f8E8M0FNU'}}
  %q, %s = mp.block_quantize %x global %g : tensor<4x32xf32> -> tensor<4x32xf4E2M1FN>, tensor<4x1xf8E8M0FNU>
  return
}

// -----

func.func @quantize_epsilon_not_f32(%x: tensor<4x32xf32>) {
  // expected-error @+1 {{'mp.block_quantize' op amax_epsilon and unrounded_scales apply to f32 scales only, got scales of 'f8E8M0FNU'}}
  %q, %s = mp.block_quantize %x amax_epsilon(1.0e-6) : tensor<4x32xf32> -> tensor<4x32xf8E4M3FN>, tensor<4x1xf8E8M0FNU>
  return
}

// -----

func.func @quantize_unrounded_not_f32(%x: tensor<4x32xf32>, %g: tensor<f32>) {
  // expected-error @+1 {{'mp.block_quantize' op amax_epsilon and unrounded_scales apply to f32 scales only, got scales of 'f8E4M3FN'}}
  %q, %s = mp.block_quantize %x global %g unrounded_scales : tensor<4x32xf32> -> tensor<4x32xf4E2M1FN>, tensor<4x2xf8E4M3FN>
  return
}

// -----

func.func @quantize_negative_epsilon(%x: tensor<4x128xf32>) {
  // expected-error @+1 {{'mp.block_quantize' op amax_epsilon must be finite and >= 0, got -1}}
  %q, %s = mp.block_quantize %x amax_epsilon(-1.0) : tensor<4x128xf32> -> tensor<4x128xf8E4M3FN>, tensor<4x1xf32>
  return
}

// -----

func.func @quantize_scale_type(%x: tensor<4x32xf32>) {
  // expected-error @+1 {{result #1 must be statically shaped tensor of f8E8M0FNU type or f8E4M3FN type or 32-bit float values}}
  %q, %s = mp.block_quantize %x : tensor<4x32xf32> -> tensor<4x32xf4E2M1FN>, tensor<4x1xf16>
  return
}

// -----

func.func @dequantize_result_shape(%q: tensor<4x32xf8E4M3FN>, %s: tensor<4x1xf8E8M0FNU>) {
  // expected-error @+1 {{'mp.block_dequantize' op expects a result of the data's shape [4, 32], got [4, 16]}}
  %x = mp.block_dequantize %q, %s : tensor<4x32xf8E4M3FN>, tensor<4x1xf8E8M0FNU> -> tensor<4x16xf32>
  return
}

// -----

func.func @dequantize_block(%q: tensor<4x32xf8E4M3FN>, %s: tensor<4x4xf8E8M0FNU>) {
  // expected-error @+1 {{'mp.block_dequantize' op expects a block length of 16, 32 or 128, got 8 along dimension 1 (block [1, 8])}}
  %x = mp.block_dequantize %q, %s : tensor<4x32xf8E4M3FN>, tensor<4x4xf8E8M0FNU> -> tensor<4x32xf32>
  return
}

// -----

func.func @dequantize_e4m3_needs_global(%q: tensor<4x16xf4E2M1FN>, %s: tensor<4x1xf8E4M3FN>) {
  // expected-error @+1 {{'mp.block_dequantize' op f8E4M3FN scales need a 'global' tensor-level f32 scale}}
  %x = mp.block_dequantize %q, %s : tensor<4x16xf4E2M1FN>, tensor<4x1xf8E4M3FN> -> tensor<4x16xf32>
  return
}

// -----

func.func @smm_rank(%a: tensor<2x4x32xf8E4M3FN>, %sa: tensor<2x4x1xf8E8M0FNU>, %b: tensor<32x8xf8E4M3FN>, %sb: tensor<1x8xf8E8M0FNU>) {
  // expected-error @+1 {{'mp.scaled_matmul' op expects lhs of rank 2, got 'tensor<2x4x32xf8E4M3FN>'}}
  %y = mp.scaled_matmul %a scales %sa, %b scales %sb acc(f32) : tensor<2x4x32xf8E4M3FN>, tensor<2x4x1xf8E8M0FNU>, tensor<32x8xf8E4M3FN>, tensor<1x8xf8E8M0FNU> -> tensor<4x8xf32>
  return
}

// -----

func.func @smm_acc(%a: tensor<4x32xf8E4M3FN>, %sa: tensor<4x1xf8E8M0FNU>, %b: tensor<32x8xf8E4M3FN>, %sb: tensor<1x8xf8E8M0FNU>) {
  // expected-error @+1 {{'mp.scaled_matmul' op expects acc(f32), got acc('f16')}}
  %y = mp.scaled_matmul %a scales %sa, %b scales %sb acc(f16) : tensor<4x32xf8E4M3FN>, tensor<4x1xf8E8M0FNU>, tensor<32x8xf8E4M3FN>, tensor<1x8xf8E8M0FNU> -> tensor<4x8xf32>
  return
}

// -----

func.func @smm_scale_types(%a: tensor<4x32xf8E4M3FN>, %sa: tensor<4x1xf8E8M0FNU>, %b: tensor<32x8xf8E4M3FN>, %sb: tensor<1x8xf32>) {
  // expected-error @+1 {{'mp.scaled_matmul' op expects lhs_scales and rhs_scales of one element type, got 'f8E8M0FNU' and 'f32'}}
  %y = mp.scaled_matmul %a scales %sa, %b scales %sb acc(f32) : tensor<4x32xf8E4M3FN>, tensor<4x1xf8E8M0FNU>, tensor<32x8xf8E4M3FN>, tensor<1x8xf32> -> tensor<4x8xf32>
  return
}

// -----

func.func @smm_k(%a: tensor<4x32xf8E4M3FN>, %sa: tensor<4x1xf8E8M0FNU>, %b: tensor<64x8xf8E4M3FN>, %sb: tensor<2x8xf8E8M0FNU>) {
  // expected-error @+1 {{'mp.scaled_matmul' op expects the contraction dimensions to agree, got K = 32 (lhs) and 64 (rhs)}}
  %y = mp.scaled_matmul %a scales %sa, %b scales %sb acc(f32) : tensor<4x32xf8E4M3FN>, tensor<4x1xf8E8M0FNU>, tensor<64x8xf8E4M3FN>, tensor<2x8xf8E8M0FNU> -> tensor<4x8xf32>
  return
}

// -----

func.func @smm_result(%a: tensor<4x32xf8E4M3FN>, %sa: tensor<4x1xf8E8M0FNU>, %b: tensor<8x32xf8E4M3FN>, %sb: tensor<8x1xf8E8M0FNU>) {
  // expected-error @+1 {{'mp.scaled_matmul' op expects a result of shape [4, 8], got [8, 4]}}
  %y = mp.scaled_matmul %a scales %sa, %b scales %sb transpose_rhs acc(f32) : tensor<4x32xf8E4M3FN>, tensor<4x1xf8E8M0FNU>, tensor<8x32xf8E4M3FN>, tensor<8x1xf8E8M0FNU> -> tensor<8x4xf32>
  return
}

// -----

func.func @smm_operand_block(%a: tensor<4x32xf8E4M3FN>, %sa: tensor<4x1xf8E8M0FNU>, %b: tensor<32x8xf8E4M3FN>, %sb: tensor<4x8xf8E8M0FNU>) {
  // expected-error @+1 {{'mp.scaled_matmul' op expects a block length of 16, 32 or 128, got 8 along dimension 0 (block [8, 1])}}
  %y = mp.scaled_matmul %a scales %sa, %b scales %sb acc(f32) : tensor<4x32xf8E4M3FN>, tensor<4x1xf8E8M0FNU>, tensor<32x8xf8E4M3FN>, tensor<4x8xf8E8M0FNU> -> tensor<4x8xf32>
  return
}

// -----

func.func @smm_lhs_not_along_k(%a: tensor<32x32xf8E4M3FN>, %sa: tensor<1x32xf8E8M0FNU>, %b: tensor<32x8xf8E4M3FN>, %sb: tensor<1x8xf8E8M0FNU>) {
  // expected-error @+1 {{'mp.scaled_matmul' op expects lhs blocks along the contraction dimension (dimension 1), got block [32, 1]}}
  %y = mp.scaled_matmul %a scales %sa, %b scales %sb acc(f32) : tensor<32x32xf8E4M3FN>, tensor<1x32xf8E8M0FNU>, tensor<32x8xf8E4M3FN>, tensor<1x8xf8E8M0FNU> -> tensor<32x8xf32>
  return
}

// -----

func.func @smm_rhs_not_along_k(%a: tensor<4x32xf8E4M3FN>, %sa: tensor<4x1xf8E8M0FNU>, %b: tensor<32x32xf8E4M3FN>, %sb: tensor<32x1xf8E8M0FNU>) {
  // expected-error @+1 {{'mp.scaled_matmul' op expects rhs blocks along the contraction dimension (dimension 0), got block [1, 32]}}
  %y = mp.scaled_matmul %a scales %sa, %b scales %sb acc(f32) : tensor<4x32xf8E4M3FN>, tensor<4x1xf8E8M0FNU>, tensor<32x32xf8E4M3FN>, tensor<32x1xf8E8M0FNU> -> tensor<4x32xf32>
  return
}

// -----

func.func @smm_k_blocks(%a: tensor<4x32xf8E4M3FN>, %sa: tensor<4x1xf8E8M0FNU>, %b: tensor<32x8xf8E4M3FN>, %sb: tensor<2x8xf8E8M0FNU>) {
  // expected-error @+1 {{'mp.scaled_matmul' op expects one block length along K for both operands, got 32 (lhs) and 16 (rhs)}}
  %y = mp.scaled_matmul %a scales %sa, %b scales %sb acc(f32) : tensor<4x32xf8E4M3FN>, tensor<4x1xf8E8M0FNU>, tensor<32x8xf8E4M3FN>, tensor<2x8xf8E8M0FNU> -> tensor<4x8xf32>
  return
}
