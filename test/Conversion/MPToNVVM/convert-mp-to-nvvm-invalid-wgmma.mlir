// RUN: mp-opt %s -verify-diagnostics --convert-mp-to-nvvm="chip=sm_89 instruction=wgmma"

func.func @wgmma_on_sm89(%x: tensor<64x128xbf16>, %w: tensor<96x128xbf16>) -> tensor<64x96xbf16> {
  // expected-error @+1 {{'mp.linear' op cannot be lowered to sm_89 Tensor Cores (format bf16): wgmma needs sm_90a}}
  %y = mp.linear %x, %w acc(f32) : (tensor<64x128xbf16>, tensor<96x128xbf16>) -> tensor<64x96xbf16>
  return %y : tensor<64x96xbf16>
}
