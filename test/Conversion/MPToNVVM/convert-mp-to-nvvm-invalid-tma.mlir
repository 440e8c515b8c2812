// RUN: mp-opt %s -split-input-file -verify-diagnostics --convert-mp-to-nvvm="chip=sm_90a mainloop=tma-warp-specialized fp8-k-major=false"

// mainloop=tma-warp-specialized where TMA cannot load the operands: tf32
// slices are rounded in shared memory by the threads that copied them, and
// TMA's global strides must be multiples of 16 bytes.

func.func @tf32(%x: tensor<64x128xf32>, %w: tensor<96x128xf32>) -> tensor<64x96xf32> {
  // expected-error @+1 {{'mp.matmul' op cannot be lowered to sm_90a Tensor Cores (format tf32): mainloop=tma-warp-specialized does not take tf32 operands (they are rounded in shared memory; use mainloop=cp-async or auto)}}
  %y = mp.matmul %x, %w transpose_rhs acc(f32) compute tf32
      : tensor<64x128xf32>, tensor<96x128xf32> -> tensor<64x96xf32>
  return %y : tensor<64x96xf32>
}

// -----

func.func @unaligned(%x: tensor<64x128xf16>, %w: tensor<128x12xf16>) -> tensor<64x12xf16> {
  // expected-error @+1 {{'mp.matmul' op cannot be lowered to sm_90a Tensor Cores (format f16): mainloop=tma-warp-specialized needs rows of A and B that span a multiple of 16 bytes (TMA strides), and B's do not here (use mainloop=cp-async or auto)}}
  %y = mp.matmul %x, %w acc(f32) : tensor<64x128xf16>, tensor<128x12xf16> -> tensor<64x12xf16>
  return %y : tensor<64x12xf16>
}

// -----

func.func @mma_sync_layout(%x: tensor<128x64xf8E4M3FN>, %w: tensor<128x96xf8E4M3FN>) -> tensor<64x96xbf16> {
  // expected-error @+1 {{'mp.matmul' op cannot be lowered to sm_90a Tensor Cores (format e4m3): mainloop=tma-warp-specialized needs wgmma (sm_90a) or tcgen05 (sm_100a) and operands they read}}
  %y = mp.matmul %x, %w transpose_lhs acc(f32)
      : tensor<128x64xf8E4M3FN>, tensor<128x96xf8E4M3FN> -> tensor<64x96xbf16>
  return %y : tensor<64x96xbf16>
}
