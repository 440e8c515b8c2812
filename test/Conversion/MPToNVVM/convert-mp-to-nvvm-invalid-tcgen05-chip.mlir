// RUN: mp-opt %s -verify-diagnostics --convert-mp-to-nvvm="chip=sm_120a instruction=tcgen05"

// sm_120a (RTX 50xx) has no Tensor Memory: the NVVM tcgen05 ops would fail
// to translate for it. It runs mma.sync.
func.func @tcgen05_on_sm120a(%x: tensor<64x128xbf16>, %w: tensor<96x128xbf16>) -> tensor<64x96xbf16> {
  // expected-error @+1 {{'mp.linear' op cannot be lowered to sm_120a Tensor Cores (format bf16): tcgen05 needs sm_100a}}
  %y = mp.linear %x, %w acc(f32) : (tensor<64x128xbf16>, tensor<96x128xbf16>) -> tensor<64x96xbf16>
  return %y : tensor<64x96xbf16>
}
