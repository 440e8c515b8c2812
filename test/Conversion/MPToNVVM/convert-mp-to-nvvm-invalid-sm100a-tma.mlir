// RUN: mp-opt %s -split-input-file -verify-diagnostics --convert-mp-to-nvvm="chip=sm_100a mainloop=tma-warp-specialized"

// mainloop=tma-warp-specialized on sm_100a where TMA cannot load the
// operands of a tcgen05 kernel (rows that span no multiple of 16 bytes), or
// where the kernel is not a tcgen05 one (f16 accumulation runs mma.sync).

func.func @unaligned(%x: tensor<64x128xf16>, %w: tensor<128x12xf16>) -> tensor<64x12xf16> {
  // expected-error @+1 {{'mp.matmul' op cannot be lowered to sm_100a Tensor Cores (format f16): mainloop=tma-warp-specialized needs rows of A and B that span a multiple of 16 bytes (TMA strides), and B's do not here (use mainloop=cp-async or auto)}}
  %y = mp.matmul %x, %w acc(f32) : tensor<64x128xf16>, tensor<128x12xf16> -> tensor<64x12xf16>
  return %y : tensor<64x12xf16>
}

// -----

func.func @f16_accumulator(%x: tensor<64x128xf16>, %w: tensor<128x96xf16>) -> tensor<64x96xf16> {
  // expected-error @+1 {{'mp.matmul' op cannot be lowered to sm_100a Tensor Cores (format f16): mainloop=tma-warp-specialized needs wgmma (sm_90a) or tcgen05 (sm_100a) and operands they read}}
  %y = mp.matmul %x, %w acc(f16) : tensor<64x128xf16>, tensor<128x96xf16> -> tensor<64x96xf16>
  return %y : tensor<64x96xf16>
}
