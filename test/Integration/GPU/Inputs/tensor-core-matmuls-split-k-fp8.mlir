// The FP8 weight gradient (dW = dY^T X, E5M2 gradients x E4M3
// activations, K = 8192 tokens) that split-k=auto splits on sm_89 and
// sm_90a: the kernels of ptxas-split-k.test.

func.func @dw_fp8(%dy: tensor<8192x256xf8E5M2>, %x: tensor<8192x256xf8E4M3FN>) -> tensor<256x256xf32> {
  %dw = mp.matmul %dy, %x transpose_lhs acc(f32) : tensor<8192x256xf8E5M2>, tensor<8192x256xf8E4M3FN> -> tensor<256x256xf32>
  return %dw : tensor<256x256xf32>
}
