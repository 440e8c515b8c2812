// The tile rules of the tcgen05 kernels (one M = 128 MMA per block, N of
// tcgen05.mma, 128-byte swizzle atoms of K and of an N-major B, TMA boxes of
// at most 256 rows):
//
// RUN: not mp-opt %s --convert-mp-to-nvvm="chip=sm_100a block-m=64" 2>&1 | FileCheck %s --check-prefix=M64
// RUN: not mp-opt %s --convert-mp-to-nvvm="chip=sm_100a block-n=24" 2>&1 | FileCheck %s --check-prefix=N24
// RUN: not mp-opt %s --convert-mp-to-nvvm="chip=sm_100a block-n=272" 2>&1 | FileCheck %s --check-prefix=N272
// RUN: not mp-opt %s --convert-mp-to-nvvm="chip=sm_100a block-k=32" 2>&1 | FileCheck %s --check-prefix=K32
// RUN: not mp-opt %s --convert-mp-to-nvvm="chip=sm_100a block-n=32 stages=2" 2>&1 | FileCheck %s --check-prefix=NMAJOR
// RUN: not mp-opt %s --convert-mp-to-nvvm="chip=sm_100a block-k=512 stages=2" 2>&1 | FileCheck %s --check-prefix=BOX

// M64: error: 'mp.matmul' op cannot be lowered to sm_100a Tensor Cores (format bf16): cannot be tiled: block-m (64) must be 128 with tcgen05 (one M=128 MMA, a row per Tensor Memory lane)
// N24: error: 'mp.matmul' op cannot be lowered to sm_100a Tensor Cores (format bf16): cannot be tiled: block-n (24) is not an N of tcgen05.mma with M=128: a multiple of 16 from 16 to 256
// N272: error: 'mp.matmul' op cannot be lowered to sm_100a Tensor Cores (format bf16): cannot be tiled: block-n (272) is not an N of tcgen05.mma with M=128: a multiple of 16 from 16 to 256
// K32: error: 'mp.matmul' op cannot be lowered to sm_100a Tensor Cores (format bf16): cannot be tiled: block-k (32) must span a multiple of 128 bytes with tcgen05 (the 128-byte swizzle atom), i.e. a multiple of 64 elements
// NMAJOR: error: 'mp.matmul' op cannot be lowered to sm_100a Tensor Cores (format bf16): cannot be tiled: block-n (32) must be a multiple of 64 for an N-contiguous B with tcgen05 (128-byte swizzle atoms)
// BOX: error: 'mp.matmul' op cannot be lowered to sm_100a Tensor Cores (format bf16): cannot be tiled: B tiles of 512 rows exceed the 256 rows of a TMA box (lower block-k or use mainloop=cp-async)
func.func @bf16(%x: tensor<64x128xbf16>, %w: tensor<128x96xbf16>) -> tensor<64x96xbf16> {
  %y = mp.matmul %x, %w acc(f32) : tensor<64x128xbf16>, tensor<128x96xbf16> -> tensor<64x96xbf16>
  return %y : tensor<64x96xbf16>
}
