// Weight-gradient shapes (small M x N, large K = tokens) that split-k=auto
// splits: dW = dY^T X of bf16 and f16 layers (A M-contiguous, B
// N-contiguous) with f32 and f16 results, a linear layer with a bias and a
// fused GELU (the epilogue in the reduction kernel), and int8 with an s32
// accumulator: the kernels of ptxas-split-k.test.

func.func @dw_bf16(%dy: tensor<8192x256xbf16>, %x: tensor<8192x256xbf16>) -> tensor<256x256xf32> {
  %dw = mp.matmul %dy, %x transpose_lhs acc(f32) : tensor<8192x256xbf16>, tensor<8192x256xbf16> -> tensor<256x256xf32>
  return %dw : tensor<256x256xf32>
}

func.func @dw_f16(%dy: tensor<16384x512xf16>, %x: tensor<16384x768xf16>) -> tensor<512x768xf16> {
  %dw = mp.matmul %dy, %x transpose_lhs acc(f32) : tensor<16384x512xf16>, tensor<16384x768xf16> -> tensor<512x768xf16>
  return %dw : tensor<512x768xf16>
}

func.func @linear_gelu(%x: tensor<128x8192xbf16>, %w: tensor<256x8192xbf16>, %b: tensor<256xbf16>) -> tensor<128x256xbf16> {
  %y = mp.linear %x, %w, %b acc(f32) : (tensor<128x8192xbf16>, tensor<256x8192xbf16>, tensor<256xbf16>) -> tensor<128x256xbf16>
  %g = mp.gelu %y approximate tanh : tensor<128x256xbf16>
  return %g : tensor<128x256xbf16>
}

func.func @s8(%a: tensor<128x8192xi8>, %b: tensor<8192x128xi8>) -> tensor<128x128xi32> {
  %c = mp.matmul %a, %b acc(i32) : tensor<128x8192xi8>, tensor<8192x128xi8> -> tensor<128x128xi32>
  return %c : tensor<128x128xi32>
}
