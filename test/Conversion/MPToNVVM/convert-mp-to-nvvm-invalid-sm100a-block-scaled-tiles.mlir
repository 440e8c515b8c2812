// Block-scaled mma.sync exists on sm_120a only: LLVM 22 aborts instruction
// selection on nvvm.mma.block_scale for sm_100a, so instruction=mma-sync
// with an mp.scaled_matmul on sm_100a is an error naming the op. The tile
// rules of the block-scaled tcgen05 kernels: packed FP4 needs K slices of
// 256 elements (128 packed bytes, the swizzle atom), and the accumulator and
// the scale columns must fit in the 512 Tensor Memory columns (block-n 256
// and K slices of 2048 NVFP4 elements: 128 blocks of 16 in 32 atoms, 4
// columns each for A and 8 for B's 256 rows).
//
// RUN: not mp-opt %s --convert-mp-to-nvvm="chip=sm_100a instruction=mma-sync" 2>&1 | FileCheck %s --check-prefix=MMASYNC
// RUN: not mp-opt %s --convert-mp-to-nvvm="chip=sm_100a block-k=128" 2>&1 | FileCheck %s --check-prefix=PACKED
// RUN: not mp-opt %s --convert-mp-to-nvvm="chip=sm_100a block-n=256 block-k=2048" 2>&1 | FileCheck %s --check-prefix=TMEM

// MMASYNC: error: 'mp.scaled_matmul' op cannot be lowered to sm_100a Tensor Cores (format e2m1): block-scaled mma.sync exists on sm_120a only; sm_100a multiplies block-scaled operands with tcgen05.mma (use instruction=tcgen05 or auto)
// PACKED: error: 'mp.scaled_matmul' op cannot be lowered to sm_100a Tensor Cores (format e2m1): cannot be tiled: block-k (128) must be a multiple of 256 for packed FP4 with tcgen05 (128 packed bytes, the 128-byte swizzle atom)
// TMEM: error: 'mp.scaled_matmul' op cannot be lowered to sm_100a Tensor Cores (format e2m1): cannot be tiled: block-n (256) with 384 scale-factor columns exceeds the 512 Tensor Memory columns
func.func @nvfp4(%x: tensor<64x256xf4E2M1FN>, %xs: tensor<64x16xf8E4M3FN>,
                 %w: tensor<96x256xf4E2M1FN>, %ws: tensor<96x16xf8E4M3FN>) -> tensor<64x96xf32> {
  %y = mp.scaled_matmul %x scales %xs, %w scales %ws transpose_rhs acc(f32)
      : tensor<64x256xf4E2M1FN>, tensor<64x16xf8E4M3FN>, tensor<96x256xf4E2M1FN>, tensor<96x16xf8E4M3FN> -> tensor<64x96xf32>
  return %y : tensor<64x96xf32>
}
