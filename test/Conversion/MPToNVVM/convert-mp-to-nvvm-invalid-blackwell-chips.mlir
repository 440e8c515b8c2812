// Every chip / instruction pair of sm_100a and sm_120a that LLVM 22 cannot
// select for the 16-bit, FP8 and block-scaled formats is this pass's error
// naming the op, the chip and the format, never an LLVM abort: wgmma exists
// on sm_90a only, tcgen05 on sm_100a only, TMA main loops need wgmma or
// tcgen05 (sm_120a runs mma.sync with cp.async), and the block-scaled
// mma.sync of sm_120a is not selectable for sm_100a (see also
// convert-mp-to-nvvm-invalid-sm100a-block-scaled-tiles.mlir). What each chip
// does run is in ptx-sm_100a.mlir, ptx-sm_120a.mlir and the ptxas tests.
//
// RUN: not mp-opt %s -split-input-file --convert-mp-to-nvvm="chip=sm_120a instruction=wgmma" 2>&1 | FileCheck %s --check-prefix=WGMMA120
// RUN: not mp-opt %s -split-input-file --convert-mp-to-nvvm="chip=sm_100a instruction=wgmma" 2>&1 | FileCheck %s --check-prefix=WGMMA100
// RUN: not mp-opt %s -split-input-file --convert-mp-to-nvvm="chip=sm_120a instruction=tcgen05" 2>&1 | FileCheck %s --check-prefix=TCGEN120
// RUN: not mp-opt %s -split-input-file --convert-mp-to-nvvm="chip=sm_120a mainloop=tma-warp-specialized" 2>&1 | FileCheck %s --check-prefix=TMA120
// RUN: not mp-opt %s -split-input-file --convert-mp-to-nvvm="chip=sm_100a instruction=mma-sync" 2>&1 | FileCheck %s --check-prefix=SYNC100

// WGMMA120: error: 'mp.linear' op cannot be lowered to sm_120a Tensor Cores (format bf16): wgmma needs sm_90a
// WGMMA120: error: 'mp.linear' op cannot be lowered to sm_120a Tensor Cores (format f16): wgmma needs sm_90a
// WGMMA120: error: 'mp.linear' op cannot be lowered to sm_120a Tensor Cores (format e4m3 x e5m2): wgmma needs sm_90a
// WGMMA120: error: 'mp.scaled_matmul' op cannot be lowered to sm_120a Tensor Cores (format e4m3): wgmma needs sm_90a
// WGMMA100: error: 'mp.linear' op cannot be lowered to sm_100a Tensor Cores (format bf16): wgmma needs sm_90a
// WGMMA100: error: 'mp.linear' op cannot be lowered to sm_100a Tensor Cores (format f16): wgmma needs sm_90a
// WGMMA100: error: 'mp.linear' op cannot be lowered to sm_100a Tensor Cores (format e4m3 x e5m2): wgmma needs sm_90a
// WGMMA100: error: 'mp.scaled_matmul' op cannot be lowered to sm_100a Tensor Cores (format e4m3): wgmma needs sm_90a
// TCGEN120: error: 'mp.linear' op cannot be lowered to sm_120a Tensor Cores (format bf16): tcgen05 needs sm_100a
// TCGEN120: error: 'mp.linear' op cannot be lowered to sm_120a Tensor Cores (format f16): tcgen05 needs sm_100a
// TCGEN120: error: 'mp.linear' op cannot be lowered to sm_120a Tensor Cores (format e4m3 x e5m2): tcgen05 needs sm_100a
// TCGEN120: error: 'mp.scaled_matmul' op cannot be lowered to sm_120a Tensor Cores (format e4m3): tcgen05 needs sm_100a
// TMA120: error: 'mp.linear' op cannot be lowered to sm_120a Tensor Cores (format bf16): mainloop=tma-warp-specialized needs wgmma (sm_90a) or tcgen05 (sm_100a) and operands they read
// TMA120: error: 'mp.linear' op cannot be lowered to sm_120a Tensor Cores (format f16): mainloop=tma-warp-specialized needs wgmma (sm_90a) or tcgen05 (sm_100a) and operands they read
// TMA120: error: 'mp.linear' op cannot be lowered to sm_120a Tensor Cores (format e4m3 x e5m2): mainloop=tma-warp-specialized needs wgmma (sm_90a) or tcgen05 (sm_100a) and operands they read
// TMA120: error: 'mp.scaled_matmul' op cannot be lowered to sm_120a Tensor Cores (format e4m3): mainloop=tma-warp-specialized needs wgmma (sm_90a) or tcgen05 (sm_100a) and operands they read
// SYNC100-NOT: 'mp.linear' op cannot
// SYNC100: error: 'mp.scaled_matmul' op cannot be lowered to sm_100a Tensor Cores (format e4m3): block-scaled mma.sync exists on sm_120a only; sm_100a multiplies block-scaled operands with tcgen05.mma (use instruction=tcgen05 or auto)
func.func @bf16(%x: tensor<64x128xbf16>, %w: tensor<96x128xbf16>) -> tensor<64x96xbf16> {
  %y = mp.linear %x, %w acc(f32) : (tensor<64x128xbf16>, tensor<96x128xbf16>) -> tensor<64x96xbf16>
  return %y : tensor<64x96xbf16>
}

// -----

func.func @f16(%x: tensor<64x128xf16>, %w: tensor<96x128xf16>) -> tensor<64x96xf16> {
  %y = mp.linear %x, %w acc(f32) : (tensor<64x128xf16>, tensor<96x128xf16>) -> tensor<64x96xf16>
  return %y : tensor<64x96xf16>
}

// -----

func.func @fp8(%x: tensor<64x128xf8E4M3FN>, %w: tensor<96x128xf8E5M2>) -> tensor<64x96xbf16> {
  %y = mp.linear %x, %w acc(f32) : (tensor<64x128xf8E4M3FN>, tensor<96x128xf8E5M2>) -> tensor<64x96xbf16>
  return %y : tensor<64x96xbf16>
}

// -----

func.func @mxfp8(%x: tensor<64x128xf8E4M3FN>, %xs: tensor<64x4xf8E8M0FNU>,
                 %w: tensor<96x128xf8E4M3FN>, %ws: tensor<96x4xf8E8M0FNU>) -> tensor<64x96xbf16> {
  %y = mp.scaled_matmul %x scales %xs, %w scales %ws transpose_rhs acc(f32)
      : tensor<64x128xf8E4M3FN>, tensor<64x4xf8E8M0FNU>, tensor<96x128xf8E4M3FN>, tensor<96x4xf8E8M0FNU> -> tensor<64x96xbf16>
  return %y : tensor<64x96xbf16>
}
