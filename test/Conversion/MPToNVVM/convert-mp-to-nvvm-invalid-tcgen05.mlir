// RUN: mp-opt %s -split-input-file -verify-diagnostics --convert-mp-to-nvvm="chip=sm_100a instruction=tcgen05 fp8-k-major=false"
// (fp8-k-major=false: the operand layouts these diagnostics/fallbacks are about; with the default, FP8 operands get K-major copies, see convert-mp-to-nvvm-fp8-k-major.mlir.)

// tcgen05 reads tf32 and 8-bit operands only K-major (as wgmma); with
// instruction=auto these run mma.sync.
func.func @fp8_m_contiguous(%dy: tensor<128x64xf8E5M2>, %x: tensor<96x128xf8E4M3FN>) -> tensor<64x96xf32> {
  // expected-error @+1 {{'mp.matmul' op cannot be lowered to sm_100a Tensor Cores (format e5m2 x e4m3): tcgen05 reads e5m2 x e4m3 operands only K-major, and A is M-contiguous here (use instruction=mma-sync or auto)}}
  %y = mp.matmul %dy, %x transpose_lhs transpose_rhs acc(f32) : tensor<128x64xf8E5M2>, tensor<96x128xf8E4M3FN> -> tensor<64x96xf32>
  return %y : tensor<64x96xf32>
}

// -----

func.func @s8_n_contiguous(%x: tensor<64x128xi8>, %w: tensor<128x96xi8>) -> tensor<64x96xi32> {
  // expected-error @+1 {{'mp.matmul' op cannot be lowered to sm_100a Tensor Cores (format s8): tcgen05 reads s8 operands only K-major, and B is N-contiguous here (use instruction=mma-sync or auto)}}
  %y = mp.matmul %x, %w acc(i32) : tensor<64x128xi8>, tensor<128x96xi8> -> tensor<64x96xi32>
  return %y : tensor<64x96xi32>
}

// -----

// The kernels accumulate in Tensor Memory in f32 (or s32); acc(f16) is
// mma.sync's.
func.func @f16_accumulation(%x: tensor<64x128xf16>, %w: tensor<96x128xf16>) -> tensor<64x96xf16> {
  // expected-error @+1 {{'mp.linear' op cannot be lowered to sm_100a Tensor Cores (format f16): tcgen05 accumulates in f32 or i32 here, not f16 (use instruction=mma-sync or auto)}}
  %y = mp.linear %x, %w acc(f16) : (tensor<64x128xf16>, tensor<96x128xf16>) -> tensor<64x96xf16>
  return %y : tensor<64x96xf16>
}
