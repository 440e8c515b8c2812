// A small CNN train step with the ops of issue 15's items 4-6 and 10:
// conv2d, relu6, max_pool2d (padding), hardswish, avg_pool2d, leaky_relu,
// adaptive_avg_pool2d, a sequence of two predictions per sample whose
// integer labels [B, T] are flattened to [B·T] for cross entropy, and SGD.
// Compared with PyTorch by train_pool_cnn.py.

func.func @train_step(
    %w1: tensor<4x1x3x3xf32> {mp.param},
    %b1: tensor<4xf32> {mp.param},
    %w2: tensor<5x4xf32> {mp.param},
    %b2: tensor<5xf32> {mp.param},
    %x: tensor<8x1x12x12xf32>,
    %labels: tensor<8x2xi64>)
    -> (tensor<f32> {mp.loss},
        tensor<4x1x3x3xf32> {mp.updates = 0 : i64},
        tensor<4xf32> {mp.updates = 1 : i64},
        tensor<5x4xf32> {mp.updates = 2 : i64},
        tensor<5xf32> {mp.updates = 3 : i64}) {
  %c = mp.conv2d %x, %w1, %b1 acc(f32) {padding = array<i64: 1, 1>}
      : (tensor<8x1x12x12xf32>, tensor<4x1x3x3xf32>, tensor<4xf32>) -> tensor<8x4x12x12xf32>
  %r = mp.clamp %c min 0.0 max 6.0 hardtanh : tensor<8x4x12x12xf32>
  %m = mp.max_pool2d %r kernel [3, 3] stride [2, 2] padding [1, 1] : tensor<8x4x12x12xf32>
  %h = mp.hardswish %m : tensor<8x4x6x6xf32>
  %a = mp.avg_pool2d %h kernel [2, 2] : tensor<8x4x6x6xf32>
  %l = mp.leaky_relu %a negative_slope 0.1 : tensor<8x4x3x3xf32>
  %p = mp.adaptive_avg_pool2d %l output_size [2, 1] : tensor<8x4x3x3xf32>
  %f = mp.reshape %p : tensor<8x4x2x1xf32> to tensor<8x4x2xf32>
  %t = mp.transpose %f perm [0, 2, 1] : tensor<8x4x2xf32>
  %s = mp.reshape %t : tensor<8x2x4xf32> to tensor<16x4xf32>
  %logits = mp.linear %s, %w2, %b2 acc(f32)
      : (tensor<16x4xf32>, tensor<5x4xf32>, tensor<5xf32>) -> tensor<16x5xf32>
  %flat = mp.reshape %labels : tensor<8x2xi64> to tensor<16xi64>
  %loss = mp.cross_entropy %logits, %flat : tensor<16x5xf32>, tensor<16xi64>
  %dw1, %db1, %dw2, %db2 = mp.grad %loss wrt %w1, %b1, %w2, %b2
      : tensor<f32>, tensor<4x1x3x3xf32>, tensor<4xf32>, tensor<5x4xf32>, tensor<5xf32>
  %w1_new = mp.sgd %w1, %dw1 {lr = 5.0e-01 : f64} : tensor<4x1x3x3xf32>
  %b1_new = mp.sgd %b1, %db1 {lr = 5.0e-01 : f64} : tensor<4xf32>
  %w2_new = mp.sgd %w2, %dw2 {lr = 5.0e-01 : f64} : tensor<5x4xf32>
  %b2_new = mp.sgd %b2, %db2 {lr = 5.0e-01 : f64} : tensor<5xf32>
  return %loss, %w1_new, %b1_new, %w2_new, %b2_new
      : tensor<f32>, tensor<4x1x3x3xf32>, tensor<4xf32>, tensor<5x4xf32>, tensor<5xf32>
}
