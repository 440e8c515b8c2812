// RUN: mp-opt %s -split-input-file -verify-diagnostics --convert-mp-to-nvvm

// Errors name the op, the chip and the format; nothing is rewritten.

func.func @fp8_on_sm80(%x: tensor<64x128xf8E4M3FN>, %w: tensor<96x128xf8E4M3FN>) -> tensor<64x96xbf16> {
  // expected-error @+1 {{'mp.linear' op cannot be lowered to sm_80 Tensor Cores (format e4m3): FP8 Tensor Core instructions need sm_89, sm_90a, sm_100a or sm_120a}}
  %y = mp.linear %x, %w acc(f32) : (tensor<64x128xf8E4M3FN>, tensor<96x128xf8E4M3FN>) -> tensor<64x96xbf16>
  return %y : tensor<64x96xbf16>
}

// -----

func.func @hybrid_fp8_on_sm80(%dy: tensor<64x96xf8E5M2>, %w: tensor<96x128xf8E4M3FN>) -> tensor<64x128xf32> {
  // expected-error @+1 {{'mp.matmul' op cannot be lowered to sm_80 Tensor Cores (format e5m2 x e4m3): FP8 Tensor Core instructions need sm_89, sm_90a, sm_100a or sm_120a}}
  %y = mp.matmul %dy, %w acc(f32) : tensor<64x96xf8E5M2>, tensor<96x128xf8E4M3FN> -> tensor<64x128xf32>
  return %y : tensor<64x128xf32>
}

// -----

func.func @f32_ieee(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>) -> tensor<64x64xf32> {
  // expected-error @+1 {{'mp.matmul' op cannot be lowered to sm_80 Tensor Cores (format f32): f32 operands need `compute tf32` on the op (or format=tf32, which opts in to TF32 rounding); no Tensor Core instruction multiplies IEEE f32}}
  %y = mp.matmul %a, %b acc(f32) : tensor<64x64xf32>, tensor<64x64xf32> -> tensor<64x64xf32>
  return %y : tensor<64x64xf32>
}

// -----

func.func @batch_beyond_grid(%a: tensor<70000x16x16xf16>, %b: tensor<70000x16x16xf16>) -> tensor<70000x16x16xf16> {
  // expected-error @+1 {{'mp.batch_matmul' op cannot be lowered to sm_80 Tensor Cores (format f16): cannot be tiled: the grid (batch 70000, 1 row blocks) exceeds 65535 blocks in y or z}}
  %y = mp.batch_matmul %a, %b acc(f32) : tensor<70000x16x16xf16>, tensor<70000x16x16xf16> -> tensor<70000x16x16xf16>
  return %y : tensor<70000x16x16xf16>
}

// -----

func.func @fp8_result(%x: tensor<64x64xf16>, %w: tensor<32x64xf16>) -> tensor<64x32xf8E4M3FN> {
  // expected-error @+1 {{'mp.linear' op cannot be lowered to sm_80 Tensor Cores (format f16): the epilogue stores f32, f16, bf16 or i32 results, not f8E4M3FN}}
  %y = mp.linear %x, %w acc(f32) : (tensor<64x64xf16>, tensor<32x64xf16>) -> tensor<64x32xf8E4M3FN>
  return %y : tensor<64x32xf8E4M3FN>
}

// -----

// Every op is reported, and the module is left unchanged.
func.func @two_errors(%a: tensor<64x64xf32>, %x: tensor<64x64xf8E4M3FN>) -> (tensor<64x64xf32>, tensor<64x64xf32>) {
  // expected-error @+1 {{'mp.matmul' op cannot be lowered to sm_80 Tensor Cores (format f32)}}
  %y = mp.matmul %a, %a acc(f32) : tensor<64x64xf32>, tensor<64x64xf32> -> tensor<64x64xf32>
  // expected-error @+1 {{'mp.matmul' op cannot be lowered to sm_80 Tensor Cores (format e4m3)}}
  %z = mp.matmul %x, %x acc(f32) : tensor<64x64xf8E4M3FN>, tensor<64x64xf8E4M3FN> -> tensor<64x64xf32>
  return %y, %z : tensor<64x64xf32>, tensor<64x64xf32>
}
