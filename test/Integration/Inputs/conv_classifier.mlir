// A small conv net train step (SGD, cross entropy, f32): conv 3x3 1->16 on
// 8x1x16x16 with batch norm and ReLU, conv 3x3 stride 2 16->16 and ReLU,
// global average pool, linear 16->10. Its im2col copies, products, batch
// norm and elementwise nests are large enough (at least 8192 iterations) for
// mp-cpu-pipeline's `threads` to share them among threads
// (test/Integration/mp-run-threads.test). The batch norm's statistics (16
// channels of 256 pixels) are transposed sums on one thread and two halves of
// the channels on two.

func.func @train_step(
    %w1: tensor<16x1x3x3xf32> {mp.param},
    %g1: tensor<16xf32> {mp.param},
    %b1: tensor<16xf32> {mp.param},
    %w2: tensor<16x16x3x3xf32> {mp.param},
    %w3: tensor<10x16xf32> {mp.param},
    %c3: tensor<10xf32> {mp.param},
    %mean: tensor<16xf32> {mp.state = "bn.running_mean"},
    %var: tensor<16xf32> {mp.state = "bn.running_var", mp.init = 1.0 : f32},
    %count: tensor<i64> {mp.state = "bn.num_batches_tracked"},
    %x: tensor<8x1x16x16xf32>,
    %labels: tensor<8xi64>)
    -> (tensor<f32> {mp.loss},
        tensor<16x1x3x3xf32> {mp.updates = 0 : i64},
        tensor<16xf32> {mp.updates = 1 : i64},
        tensor<16xf32> {mp.updates = 2 : i64},
        tensor<16x16x3x3xf32> {mp.updates = 3 : i64},
        tensor<10x16xf32> {mp.updates = 4 : i64},
        tensor<10xf32> {mp.updates = 5 : i64},
        tensor<16xf32> {mp.updates = 6 : i64},
        tensor<16xf32> {mp.updates = 7 : i64},
        tensor<i64> {mp.updates = 8 : i64}) {
  %0 = mp.conv2d %x, %w1 acc(f32) {padding = array<i64: 1, 1>}
      : (tensor<8x1x16x16xf32>, tensor<16x1x3x3xf32>) -> tensor<8x16x16x16xf32>
  %1:4 = mp.batch_norm %0 weight %g1 bias %b1 stats(%mean, %var, %count)
      training eps 1.0e-05 momentum 0.1
      : (tensor<8x16x16x16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>,
         tensor<16xf32>, tensor<i64>)
      -> (tensor<8x16x16x16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<i64>)
  %2 = mp.relu %1#0 : tensor<8x16x16x16xf32>
  %3 = mp.conv2d %2, %w2 acc(f32)
      {strides = array<i64: 2, 2>, padding = array<i64: 1, 1>}
      : (tensor<8x16x16x16xf32>, tensor<16x16x3x3xf32>) -> tensor<8x16x8x8xf32>
  %4 = mp.relu %3 : tensor<8x16x8x8xf32>
  %5 = mp.reduce_mean %4 dims [2, 3] keepdims : tensor<8x16x8x8xf32>
  %6 = mp.reshape %5 : tensor<8x16x1x1xf32> to tensor<8x16xf32>
  %7 = mp.linear %6, %w3, %c3 acc(f32)
      : (tensor<8x16xf32>, tensor<10x16xf32>, tensor<10xf32>) -> tensor<8x10xf32>
  %loss = mp.cross_entropy %7, %labels : tensor<8x10xf32>, tensor<8xi64>
  %g:6 = mp.grad %loss wrt %w1, %g1, %b1, %w2, %w3, %c3
      : tensor<f32>, tensor<16x1x3x3xf32>, tensor<16xf32>, tensor<16xf32>,
        tensor<16x16x3x3xf32>, tensor<10x16xf32>, tensor<10xf32>
  %u1 = mp.sgd %w1, %g#0 {lr = 1.0e-01 : f64} : tensor<16x1x3x3xf32>
  %u2 = mp.sgd %g1, %g#1 {lr = 1.0e-01 : f64} : tensor<16xf32>
  %u3 = mp.sgd %b1, %g#2 {lr = 1.0e-01 : f64} : tensor<16xf32>
  %u4 = mp.sgd %w2, %g#3 {lr = 1.0e-01 : f64} : tensor<16x16x3x3xf32>
  %u5 = mp.sgd %w3, %g#4 {lr = 1.0e-01 : f64} : tensor<10x16xf32>
  %u6 = mp.sgd %c3, %g#5 {lr = 1.0e-01 : f64} : tensor<10xf32>
  return %loss, %u1, %u2, %u3, %u4, %u5, %u6, %1#1, %1#2, %1#3
      : tensor<f32>, tensor<16x1x3x3xf32>, tensor<16xf32>, tensor<16xf32>,
        tensor<16x16x3x3xf32>, tensor<10x16xf32>, tensor<10xf32>, tensor<16xf32>,
        tensor<16xf32>, tensor<i64>
}
