// RUN: mp-opt %s -verify-diagnostics --convert-mp-to-nvvm="chip=sm_86"

func.func @fp8_on_sm86(%x: tensor<64x128xf8E5M2>, %w: tensor<96x128xf8E5M2>) -> tensor<64x96xf16> {
  // expected-error @+1 {{'mp.linear' op cannot be lowered to sm_86 Tensor Cores (format e5m2): FP8 Tensor Core instructions need sm_89, sm_90a, sm_100a or sm_120a}}
  %y = mp.linear %x, %w acc(f32) : (tensor<64x128xf8E5M2>, tensor<96x128xf8E5M2>) -> tensor<64x96xf16>
  return %y : tensor<64x96xf16>
}
