// Tile and format options the kernels cannot honour: the error names the op,
// the chip, the format and the reason.

// RUN: not mp-opt %s --convert-mp-to-nvvm="block-m=96" 2>&1 | FileCheck %s --check-prefix=BLOCKM
// BLOCKM: error: 'mp.linear' op cannot be lowered to sm_80 Tensor Cores (format f16): cannot be tiled: block-m (96) must be a multiple of warp-m (64) and block-n (128) a multiple of warp-n (32)

// RUN: not mp-opt %s --convert-mp-to-nvvm="block-k=8" 2>&1 | FileCheck %s --check-prefix=BLOCKK
// BLOCKK: error: 'mp.linear' op cannot be lowered to sm_80 Tensor Cores (format f16): cannot be tiled: block-k (8) must span a multiple of 32 bytes (one mma.sync K step), i.e. a multiple of 16 elements

// RUN: not mp-opt %s --convert-mp-to-nvvm="warp-n=24" 2>&1 | FileCheck %s --check-prefix=WARPN
// WARPN: error: 'mp.linear' op cannot be lowered to sm_80 Tensor Cores (format f16): cannot be tiled: warp-m (64) and warp-n (24) must be multiples of 16

// RUN: not mp-opt %s --convert-mp-to-nvvm="stages=1" 2>&1 | FileCheck %s --check-prefix=STAGES
// STAGES: error: 'mp.linear' op cannot be lowered to sm_80 Tensor Cores (format f16): cannot be tiled: stages must be between 2 and 8, got 1

// RUN: not mp-opt %s --convert-mp-to-nvvm="chip=sm_86 stages=6" 2>&1 | FileCheck %s --check-prefix=SMEM
// SMEM: error: 'mp.linear' op cannot be lowered to sm_86 Tensor Cores (format f16): cannot be tiled: 122880 bytes of shared memory (6 stages) exceed the 101376 bytes a block may use on sm_86

// RUN: not mp-opt %s --convert-mp-to-nvvm="chip=sm_90a block-n=100" 2>&1 | FileCheck %s --check-prefix=WGMMAN
// WGMMAN: error: 'mp.linear' op cannot be lowered to sm_90a Tensor Cores (format f16): cannot be tiled: block-n (100) is not an N of wgmma: a multiple of 8 up to 256

// RUN: not mp-opt %s --convert-mp-to-nvvm="chip=sm_90a block-m=96" 2>&1 | FileCheck %s --check-prefix=WGMMAM
// WGMMAM: error: 'mp.linear' op cannot be lowered to sm_90a Tensor Cores (format f16): cannot be tiled: block-m (96) must be 64, 128, 192 or 256 with wgmma (one warpgroup per 64 rows)

// RUN: not mp-opt %s --convert-mp-to-nvvm="chip=sm_80 instruction=wgmma" 2>&1 | FileCheck %s --check-prefix=WGMMA80
// WGMMA80: error: 'mp.linear' op cannot be lowered to sm_80 Tensor Cores (format f16): wgmma needs sm_90a

// RUN: not mp-opt %s --convert-mp-to-nvvm="mainloop=tma-warp-specialized" 2>&1 | FileCheck %s --check-prefix=TMA80
// TMA80: error: 'mp.linear' op cannot be lowered to sm_80 Tensor Cores (format f16): mainloop=tma-warp-specialized needs wgmma (sm_90a) or tcgen05 (sm_100a) and operands they read

// RUN: not mp-opt %s --convert-mp-to-nvvm="chip=sm_90a block-m=256" 2>&1 | FileCheck %s --check-prefix=TMAREGS
// TMAREGS: error: 'mp.linear' op cannot be lowered to sm_90a Tensor Cores (format f16): cannot be tiled: block-m (256) x block-n (256) leaves 112 registers per consumer thread for 128 accumulator registers (use a smaller tile or mainloop=cp-async)

// RUN: not mp-opt %s --convert-mp-to-nvvm="chip=sm_90a mainloop=fast" 2>&1 | FileCheck %s --check-prefix=MAINLOOP
// MAINLOOP: for the --mainloop option: Cannot find option named 'fast'!

// RUN: not mp-opt %s --convert-mp-to-nvvm="format=bf16" 2>&1 | FileCheck %s --check-prefix=FORMAT
// FORMAT: error: 'mp.linear' op cannot be lowered to sm_80 Tensor Cores (format f16): its operands do not have the requested format bf16

// RUN: not mp-opt %s --convert-mp-to-nvvm="chip=sm_75" 2>&1 | FileCheck %s --check-prefix=CHIP
// CHIP: Cannot find option named 'sm_75'

func.func @linear(%x: tensor<64x128xf16>, %w: tensor<96x128xf16>) -> tensor<64x96xf16> {
  %y = mp.linear %x, %w acc(f32) : (tensor<64x128xf16>, tensor<96x128xf16>) -> tensor<64x96xf16>
  return %y : tensor<64x96xf16>
}
