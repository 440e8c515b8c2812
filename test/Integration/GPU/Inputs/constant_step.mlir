// A train step with constant tensors that are not splats, for the tests of
// constant globals on the device: loss = Σ (bf16(x ⊙ c) · M) · bf16(w)ᵀ
// with SGD on w; c is a table of 8 (an elementwise operand), M an 8 x 8
// bf16 matrix (a Tensor Core GEMM's operand). Written in bf16 already:
// lower with compute-type=f32.
func.func @constant_step(%w: tensor<16x8xf32> {mp.param}, %x: tensor<4x8xf32>)
    -> (tensor<f32> {mp.loss}, tensor<16x8xf32> {mp.updates = 0 : i64}) {
  %c = arith.constant dense<[-0.5000, 0.7500, 0.2500, -0.2500, 1.0000, 0.5000, 0.0000, -0.5000]> : tensor<8xf32>
  %m = arith.constant dense<[
      [-0.625, 0.250, -0.250, 0.625, 0.125, -0.375, 0.500, 0.000],
      [-0.250, 0.625, 0.125, -0.375, 0.500, 0.000, -0.500, 0.375],
      [0.125, -0.375, 0.500, 0.000, -0.500, 0.375, -0.125, -0.625],
      [0.500, 0.000, -0.500, 0.375, -0.125, -0.625, 0.250, -0.250],
      [-0.500, 0.375, -0.125, -0.625, 0.250, -0.250, 0.625, 0.125],
      [-0.125, -0.625, 0.250, -0.250, 0.625, 0.125, -0.375, 0.500],
      [0.250, -0.250, 0.625, 0.125, -0.375, 0.500, 0.000, -0.500],
      [0.625, 0.125, -0.375, 0.500, 0.000, -0.500, 0.375, -0.125]]> : tensor<8x8xbf16>
  %h = mp.mul %x, %c : tensor<4x8xf32>, tensor<8xf32>
  %hb = mp.cast %h : tensor<4x8xf32> to tensor<4x8xbf16>
  %p = mp.matmul %hb, %m acc(f32) : tensor<4x8xbf16>, tensor<8x8xbf16> -> tensor<4x8xbf16>
  %wb = mp.cast %w : tensor<16x8xf32> to tensor<16x8xbf16>
  %y = mp.linear %p, %wb acc(f32) : (tensor<4x8xbf16>, tensor<16x8xbf16>) -> tensor<4x16xf32>
  %loss = mp.reduce_sum %y dims [0, 1] : tensor<4x16xf32>
  %g = mp.grad %loss wrt %w : tensor<f32>, tensor<16x8xf32>
  %w1 = mp.sgd %w, %g {lr = 0.1 : f64} : tensor<16x8xf32>
  return %loss, %w1 : tensor<f32>, tensor<16x8xf32>
}
