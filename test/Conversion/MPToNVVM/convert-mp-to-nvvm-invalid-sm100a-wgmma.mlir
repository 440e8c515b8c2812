// RUN: mp-opt %s -verify-diagnostics --convert-mp-to-nvvm="chip=sm_100a instruction=wgmma"

// wgmma is Hopper's only (ptxas rejects it for sm_100a).
func.func @wgmma_on_sm100a(%x: tensor<64x128xf8E4M3FN>, %w: tensor<96x128xf8E4M3FN>) -> tensor<64x96xbf16> {
  // expected-error @+1 {{'mp.linear' op cannot be lowered to sm_100a Tensor Cores (format e4m3): wgmma needs sm_90a}}
  %y = mp.linear %x, %w acc(f32) : (tensor<64x128xf8E4M3FN>, tensor<96x128xf8E4M3FN>) -> tensor<64x96xbf16>
  return %y : tensor<64x96xbf16>
}
