// RUN: mp-opt %s -split-input-file -verify-diagnostics --convert-mp-to-nvvm="chip=sm_90a instruction=wgmma fp8-k-major=false"
// (fp8-k-major=false: the operand layouts these diagnostics/fallbacks are about; with the default, FP8 operands get K-major copies, see convert-mp-to-nvvm-fp8-k-major.mlir.)

// wgmma reads tf32 and 8-bit operands from shared memory only K-major.

func.func @tf32_m_contiguous(%a: tensor<64x128xf32>, %b: tensor<32x64xf32>) -> tensor<128x32xf32> {
  // expected-error @+1 {{'mp.matmul' op cannot be lowered to sm_90a Tensor Cores (format tf32): wgmma reads tf32 operands only K-major, and A is M-contiguous here (use instruction=mma-sync or auto)}}
  %y = mp.matmul %a, %b transpose_lhs transpose_rhs acc(f32) compute tf32 : tensor<64x128xf32>, tensor<32x64xf32> -> tensor<128x32xf32>
  return %y : tensor<128x32xf32>
}

// -----

func.func @e4m3_n_contiguous(%a: tensor<64x128xf8E4M3FN>, %b: tensor<128x32xf8E4M3FN>) -> tensor<64x32xf32> {
  // expected-error @+1 {{'mp.matmul' op cannot be lowered to sm_90a Tensor Cores (format e4m3): wgmma reads e4m3 operands only K-major, and B is N-contiguous here (use instruction=mma-sync or auto)}}
  %y = mp.matmul %a, %b acc(f32) : tensor<64x128xf8E4M3FN>, tensor<128x32xf8E4M3FN> -> tensor<64x32xf32>
  return %y : tensor<64x32xf32>
}
