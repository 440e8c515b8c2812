// RUN: mp-opt %s -split-input-file -verify-diagnostics --convert-mp-to-nvvm="chip=sm_120a"

// The block-scaled mma.sync of sm_120a takes E8M0 scales on blocks of 32
// (kind::mxf8f6f4, kind::mxf4) and E4M3 scales on FP4 blocks of 16
// (kind::mxf4nvf4); every other mp.scaled_matmul is an error naming the op
// (emitting nvvm.mma.block_scale for it would abort LLVM's instruction
// selection, or mean something else).

// FP8 block scaling (f32 power-of-two scales, 1x128 blocks): no instruction.
func.func @f32_scales(%x: tensor<64x128xf8E4M3FN>, %xs: tensor<64x1xf32>,
                      %w: tensor<96x128xf8E4M3FN>, %ws: tensor<96x1xf32>) -> tensor<64x96xbf16> {
  // expected-error @+1 {{'mp.scaled_matmul' op cannot be lowered to sm_120a Tensor Cores (format e4m3): block-scaled mma.sync multiplies blocks of 32 with E8M0 scales (kind::mxf8f6f4, kind::mxf4) or FP4 blocks of 16 with E4M3 scales (kind::mxf4nvf4), not blocks of 128 with f32 scales}}
  %y = mp.scaled_matmul %x scales %xs, %w scales %ws transpose_rhs acc(f32)
      : tensor<64x128xf8E4M3FN>, tensor<64x1xf32>, tensor<96x128xf8E4M3FN>, tensor<96x1xf32> -> tensor<64x96xbf16>
  return %y : tensor<64x96xbf16>
}

// -----

// E4M3 scales scale FP4 only (kind::mxf4nvf4).
func.func @e4m3_scales_fp8(%x: tensor<64x128xf8E4M3FN>, %xs: tensor<64x8xf8E4M3FN>,
                           %w: tensor<96x128xf8E4M3FN>, %ws: tensor<96x8xf8E4M3FN>) -> tensor<64x96xbf16> {
  // expected-error @+1 {{'mp.scaled_matmul' op cannot be lowered to sm_120a Tensor Cores (format e4m3): block-scaled mma.sync multiplies blocks of 32 with E8M0 scales (kind::mxf8f6f4, kind::mxf4) or FP4 blocks of 16 with E4M3 scales (kind::mxf4nvf4), not blocks of 16 with f8E4M3FN scales}}
  %y = mp.scaled_matmul %x scales %xs, %w scales %ws transpose_rhs acc(f32)
      : tensor<64x128xf8E4M3FN>, tensor<64x8xf8E4M3FN>, tensor<96x128xf8E4M3FN>, tensor<96x8xf8E4M3FN> -> tensor<64x96xbf16>
  return %y : tensor<64x96xbf16>
}

// -----

// E8M0 scales on blocks of 16.
func.func @e8m0_block16(%x: tensor<64x128xf4E2M1FN>, %xs: tensor<64x8xf8E8M0FNU>,
                        %w: tensor<96x128xf4E2M1FN>, %ws: tensor<96x8xf8E8M0FNU>) -> tensor<64x96xbf16> {
  // expected-error @+1 {{'mp.scaled_matmul' op cannot be lowered to sm_120a Tensor Cores (format e2m1): block-scaled mma.sync multiplies blocks of 32 with E8M0 scales (kind::mxf8f6f4, kind::mxf4) or FP4 blocks of 16 with E4M3 scales (kind::mxf4nvf4), not blocks of 16 with f8E8M0FNU scales}}
  %y = mp.scaled_matmul %x scales %xs, %w scales %ws transpose_rhs acc(f32)
      : tensor<64x128xf4E2M1FN>, tensor<64x8xf8E8M0FNU>, tensor<96x128xf4E2M1FN>, tensor<96x8xf8E8M0FNU> -> tensor<64x96xbf16>
  return %y : tensor<64x96xbf16>
}

// -----

// B must be N x K (transpose_rhs), A M x K.
func.func @rhs_k_by_n(%x: tensor<64x128xf8E4M3FN>, %xs: tensor<64x4xf8E8M0FNU>,
                      %w: tensor<128x96xf8E4M3FN>, %ws: tensor<4x96xf8E8M0FNU>) -> tensor<64x96xbf16> {
  // expected-error @+1 {{'mp.scaled_matmul' op cannot be lowered to sm_120a Tensor Cores (format e4m3): block-scaled mma.sync reads A as M x K and B as N x K (K-contiguous, transpose_rhs), and transpose_rhs is not set}}
  %y = mp.scaled_matmul %x scales %xs, %w scales %ws acc(f32)
      : tensor<64x128xf8E4M3FN>, tensor<64x4xf8E8M0FNU>, tensor<128x96xf8E4M3FN>, tensor<4x96xf8E8M0FNU> -> tensor<64x96xbf16>
  return %y : tensor<64x96xbf16>
}

// -----

func.func @lhs_k_by_m(%x: tensor<128x64xf8E4M3FN>, %xs: tensor<4x64xf8E8M0FNU>,
                      %w: tensor<96x128xf8E4M3FN>, %ws: tensor<96x4xf8E8M0FNU>) -> tensor<64x96xbf16> {
  // expected-error @+1 {{'mp.scaled_matmul' op cannot be lowered to sm_120a Tensor Cores (format e4m3): block-scaled mma.sync reads A as M x K and B as N x K (K-contiguous, transpose_rhs), and transpose_lhs is set}}
  %y = mp.scaled_matmul %x scales %xs, %w scales %ws transpose_lhs transpose_rhs acc(f32)
      : tensor<128x64xf8E4M3FN>, tensor<4x64xf8E8M0FNU>, tensor<96x128xf8E4M3FN>, tensor<96x4xf8E8M0FNU> -> tensor<64x96xbf16>
  return %y : tensor<64x96xbf16>
}
