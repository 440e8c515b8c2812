// RUN: mp-opt %s -split-input-file -verify-diagnostics --convert-mp-to-nvvm="chip=sm_100a"

// The block-scaled tcgen05.mma kernels of sm_100a take FP8/FP6/FP4 in any
// pairing with E8M0 scales on blocks of 32 (kind::mxf8f6f4; FP4 x FP4 is
// kind::mxf4) and FP4 x FP4 with E4M3 scales on blocks of 16
// (kind::mxf4nvf4); every other mp.scaled_matmul is an error naming the op.
// (Block-scaled mma.sync, which LLVM 22 cannot select for sm_100a:
// convert-mp-to-nvvm-invalid-sm100a-block-scaled-tiles.mlir.)

// FP8 block scaling (f32 power-of-two scales, 1x128 blocks): no instruction.
func.func @f32_scales(%x: tensor<64x128xf8E4M3FN>, %xs: tensor<64x1xf32>,
                      %w: tensor<96x128xf8E4M3FN>, %ws: tensor<96x1xf32>) -> tensor<64x96xbf16> {
  // expected-error @+1 {{'mp.scaled_matmul' op cannot be lowered to sm_100a Tensor Cores (format e4m3): block-scaled tcgen05.mma multiplies blocks of 32 with E8M0 scales (kind::mxf8f6f4, kind::mxf4) or FP4 blocks of 16 with E4M3 scales (kind::mxf4nvf4), not blocks of 128 with f32 scales}}
  %y = mp.scaled_matmul %x scales %xs, %w scales %ws transpose_rhs acc(f32)
      : tensor<64x128xf8E4M3FN>, tensor<64x1xf32>, tensor<96x128xf8E4M3FN>, tensor<96x1xf32> -> tensor<64x96xbf16>
  return %y : tensor<64x96xbf16>
}

// -----

func.func @rhs_k_by_n(%x: tensor<64x128xf8E4M3FN>, %xs: tensor<64x4xf8E8M0FNU>,
                      %w: tensor<128x96xf8E4M3FN>, %ws: tensor<4x96xf8E8M0FNU>) -> tensor<64x96xbf16> {
  // expected-error @+1 {{'mp.scaled_matmul' op cannot be lowered to sm_100a Tensor Cores (format e4m3): block-scaled tcgen05.mma reads A as M x K and B as N x K (K-contiguous, transpose_rhs), and transpose_rhs is not set}}
  %y = mp.scaled_matmul %x scales %xs, %w scales %ws acc(f32)
      : tensor<64x128xf8E4M3FN>, tensor<64x4xf8E8M0FNU>, tensor<128x96xf8E4M3FN>, tensor<4x96xf8E8M0FNU> -> tensor<64x96xbf16>
  return %y : tensor<64x96xbf16>
}
