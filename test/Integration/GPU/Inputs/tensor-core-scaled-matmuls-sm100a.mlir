// mp.scaled_matmul in every block-scaled form the sm_100a tcgen05 kernels
// take: kind::mxf8f6f4 (E4M3 and E5M2 in any pairing, E8M0 on blocks of 32,
// 1-D and 32x32 weight blocks; MXFP6 E2M3 x E3M2 and FP4 x FP8, whose FP6
// and FP4 operands are padded in shared memory), kind::mxf4 (FP4 x FP4, E8M0 on blocks of 32)
// and kind::mxf4nvf4 (FP4 x FP4, E4M3 on blocks of 16, 1-D and 16x16 weight
// blocks); input of ptxas-sm_100a-block-scaled.test and
// Conversion/MPToNVVM/ptx-sm_100a-block-scaled.mlir.

func.func @block_scaled(
    %x8: tensor<64x128xf8E4M3FN>, %x8s: tensor<64x4xf8E8M0FNU>,
    %w8: tensor<96x128xf8E4M3FN>, %w8s: tensor<96x4xf8E8M0FNU>,
    %g8: tensor<96x128xf8E5M2>, %g8s: tensor<96x4xf8E8M0FNU>,
    %w8t: tensor<3x4xf8E8M0FNU>,
    %x4: tensor<64x256xf4E2M1FN>, %x4s: tensor<64x8xf8E8M0FNU>,
    %w4: tensor<96x256xf4E2M1FN>, %w4s: tensor<96x8xf8E8M0FNU>,
    %x4n: tensor<64x16xf8E4M3FN>, %w4n: tensor<96x16xf8E4M3FN>,
    %w4t: tensor<6x16xf8E4M3FN>,
    %x6: tensor<64x128xf6E2M3FN>, %w6: tensor<96x128xf6E3M2FN>,
    %x4k: tensor<64x128xf4E2M1FN>)
    -> (tensor<64x96xbf16>, tensor<64x96xf32>, tensor<64x96xbf16>,
        tensor<64x96xbf16>, tensor<64x96xbf16>, tensor<64x96xf16>,
        tensor<64x96xbf16>, tensor<64x96xf32>) {
  // MXFP8 (E4M3 x E4M3, E4M3 x E5M2), MXFP8 with 32x32 weight tiles.
  %mxfp8 = mp.scaled_matmul %x8 scales %x8s, %w8 scales %w8s transpose_rhs acc(f32)
      : tensor<64x128xf8E4M3FN>, tensor<64x4xf8E8M0FNU>, tensor<96x128xf8E4M3FN>, tensor<96x4xf8E8M0FNU> -> tensor<64x96xbf16>
  %hybrid = mp.scaled_matmul %x8 scales %x8s, %g8 scales %g8s transpose_rhs acc(f32)
      : tensor<64x128xf8E4M3FN>, tensor<64x4xf8E8M0FNU>, tensor<96x128xf8E5M2>, tensor<96x4xf8E8M0FNU> -> tensor<64x96xf32>
  %tiles = mp.scaled_matmul %x8 scales %x8s, %w8 scales %w8t transpose_rhs acc(f32)
      : tensor<64x128xf8E4M3FN>, tensor<64x4xf8E8M0FNU>, tensor<96x128xf8E4M3FN>, tensor<3x4xf8E8M0FNU> -> tensor<64x96xbf16>
  // MXFP4 (kind::mxf4), NVFP4 (kind::mxf4nvf4) with 1x16 and 16x16 weight blocks.
  %mxfp4 = mp.scaled_matmul %x4 scales %x4s, %w4 scales %w4s transpose_rhs acc(f32)
      : tensor<64x256xf4E2M1FN>, tensor<64x8xf8E8M0FNU>, tensor<96x256xf4E2M1FN>, tensor<96x8xf8E8M0FNU> -> tensor<64x96xbf16>
  %nvfp4 = mp.scaled_matmul %x4 scales %x4n, %w4 scales %w4n transpose_rhs acc(f32)
      : tensor<64x256xf4E2M1FN>, tensor<64x16xf8E4M3FN>, tensor<96x256xf4E2M1FN>, tensor<96x16xf8E4M3FN> -> tensor<64x96xbf16>
  %nvfp4t = mp.scaled_matmul %x4 scales %x4n, %w4 scales %w4t transpose_rhs acc(f32)
      : tensor<64x256xf4E2M1FN>, tensor<64x16xf8E4M3FN>, tensor<96x256xf4E2M1FN>, tensor<6x16xf8E4M3FN> -> tensor<64x96xf16>
  // MXFP6 (E2M3 x E3M2) and FP4 x FP8, both kind::mxf8f6f4.
  %mxfp6 = mp.scaled_matmul %x6 scales %x8s, %w6 scales %w8s transpose_rhs acc(f32)
      : tensor<64x128xf6E2M3FN>, tensor<64x4xf8E8M0FNU>, tensor<96x128xf6E3M2FN>, tensor<96x4xf8E8M0FNU> -> tensor<64x96xbf16>
  %mixed = mp.scaled_matmul %x4k scales %x8s, %w8 scales %w8s transpose_rhs acc(f32)
      : tensor<64x128xf4E2M1FN>, tensor<64x4xf8E8M0FNU>, tensor<96x128xf8E4M3FN>, tensor<96x4xf8E8M0FNU> -> tensor<64x96xf32>
  return %mxfp8, %hybrid, %tiles, %mxfp4, %nvfp4, %nvfp4t, %mxfp6, %mixed
      : tensor<64x96xbf16>, tensor<64x96xf32>, tensor<64x96xbf16>,
        tensor<64x96xbf16>, tensor<64x96xbf16>, tensor<64x96xf16>,
        tensor<64x96xbf16>, tensor<64x96xf32>
}
