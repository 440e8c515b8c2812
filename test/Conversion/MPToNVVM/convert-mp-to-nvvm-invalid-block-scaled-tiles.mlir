// RUN: mp-opt %s -verify-diagnostics --convert-mp-to-nvvm="chip=sm_120a block-k=32"

// The tile must hold whole instructions: block-k 32 < the k64 of kind::mxf4.
func.func @block_k(%x: tensor<64x128xf4E2M1FN>, %xs: tensor<64x4xf8E8M0FNU>,
                   %w: tensor<96x128xf4E2M1FN>, %ws: tensor<96x4xf8E8M0FNU>) -> tensor<64x96xbf16> {
  // expected-error @+1 {{'mp.scaled_matmul' op cannot be lowered to sm_120a Tensor Cores (format e2m1): cannot be tiled: block-k (32) must be a multiple of 64 (the K of one block-scaled mma.sync)}}
  %y = mp.scaled_matmul %x scales %xs, %w scales %ws transpose_rhs acc(f32)
      : tensor<64x128xf4E2M1FN>, tensor<64x4xf8E8M0FNU>, tensor<96x128xf4E2M1FN>, tensor<96x4xf8E8M0FNU> -> tensor<64x96xbf16>
  return %y : tensor<64x96xbf16>
}
