// RUN: mp-opt %s -split-input-file -verify-diagnostics --convert-mp-to-nvvm="chip=sm_90a fp8-promote-interval=6"
// RUN: not mp-opt %s --convert-mp-to-nvvm="chip=sm_90a block-n=256" 2>&1 | FileCheck %s --check-prefix=REGS
// RUN: not mp-opt %s --convert-mp-to-nvvm="chip=sm_90a fp8-promote-interval=-4" 2>&1 | FileCheck %s --check-prefix=NEG

// fp8-promote-interval counts wgmma instructions and promotes after whole
// K slices: it must be a multiple of a slice's instructions (4 for FP8 with
// block-k 128).

func.func @interval(%dy: tensor<64x128xf8E5M2>, %w: tensor<128x96xf8E4M3FN>) -> tensor<64x96xbf16> {
  // expected-error @+1 {{'mp.matmul' op cannot be lowered to sm_90a Tensor Cores (format e5m2 x e4m3): cannot be tiled: fp8-promote-interval (6) must be a multiple of the 4 wgmma instructions of a K slice (block-k 128)}}
  %dx = mp.matmul %dy, %w acc(f32) : tensor<64x128xf8E5M2>, tensor<128x96xf8E4M3FN> -> tensor<64x96xbf16>
  return %dx : tensor<64x96xbf16>
}

// Two accumulators of block-n / 2 registers must fit the consumers' 232.
// REGS: error: 'mp.matmul' op cannot be lowered to sm_90a Tensor Cores (format e5m2 x e4m3): cannot be tiled: block-m (128) x block-n (256) leaves 232 registers per consumer thread for 256 accumulator registers (use a smaller tile, mainloop=cp-async or fp8-promote-interval=0)
// NEG: error: 'mp.matmul' op cannot be lowered to sm_90a Tensor Cores (format e5m2 x e4m3): fp8-promote-interval must be 0 (off) or positive, got -4
