// RUN: mp-opt %s -split-input-file -verify-diagnostics --convert-mp-to-nvvm="chip=sm_80 split-k=4"
// RUN: not mp-opt %s --convert-mp-to-nvvm="chip=sm_80 split-k=0" 2>&1 | FileCheck %s --check-prefix=ZERO
// RUN: not mp-opt %s --convert-mp-to-nvvm="chip=sm_80 split-k=-2" 2>&1 | FileCheck %s --check-prefix=NEG
// RUN: not mp-opt %s --convert-mp-to-nvvm="chip=sm_80 split-k=two" 2>&1 | FileCheck %s --check-prefix=WORD
// RUN: not mp-opt %s --convert-mp-to-nvvm="chip=sm_80 sm-count=-1" 2>&1 | FileCheck %s --check-prefix=SMS

// An explicit split count on a GEMM that cannot split K: the partials of
// split-K are f32 or s32, and f16 accumulation has neither.

func.func @f16_accumulator(%a: tensor<64x1024xf16>, %b: tensor<1024x64xf16>) -> tensor<64x64xf16> {
  // expected-error @+1 {{'mp.matmul' op cannot be lowered to sm_80 Tensor Cores (format f16): split-k=4: the partial products of split-K are f32 or s32, and this accumulator is f16 (use split-k=1 or auto)}}
  %c = mp.matmul %a, %b acc(f16) : tensor<64x1024xf16>, tensor<1024x64xf16> -> tensor<64x64xf16>
  return %c : tensor<64x64xf16>
}

// -----

// Block z holds batch x splits blocks: at most 65535.

func.func @grid(%a: tensor<20000x16x256xbf16>, %b: tensor<20000x256x16xbf16>) -> tensor<20000x16x16xf32> {
  // expected-error @+1 {{'mp.batch_matmul' op cannot be lowered to sm_80 Tensor Cores (format bf16): cannot be tiled: the grid (batch 20000 x 4 K splits) exceeds 65535 blocks in z (lower split-k)}}
  %c = mp.batch_matmul %a, %b acc(f32) : tensor<20000x16x256xbf16>, tensor<20000x256x16xbf16> -> tensor<20000x16x16xf32>
  return %c : tensor<20000x16x16xf32>
}

// ZERO: error: 'mp.matmul' op cannot be lowered to sm_80 Tensor Cores (format f16): split-k must be auto or a positive number of K splits, got '0'
// NEG: error: 'mp.matmul' op cannot be lowered to sm_80 Tensor Cores (format f16): split-k must be auto or a positive number of K splits, got '-2'
// WORD: error: 'mp.matmul' op cannot be lowered to sm_80 Tensor Cores (format f16): split-k must be auto or a positive number of K splits, got 'two'
// SMS: error: 'mp.matmul' op cannot be lowered to sm_80 Tensor Cores (format f16): sm-count must be 0 (the chip's) or positive, got -1
