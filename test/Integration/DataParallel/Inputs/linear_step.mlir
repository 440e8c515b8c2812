// A linear classifier (16 features, 4 classes, SGD), 4 samples per process,
// for the overflow test of data-parallel-overflow.test.
func.func @train_step(%w: tensor<4x16xf32> {mp.param},
                      %b: tensor<4xf32> {mp.param},
                      %x: tensor<4x16xf32>, %y: tensor<4xi64>)
    -> (tensor<f32> {mp.loss}, tensor<4x16xf32> {mp.updates = 0 : i64},
        tensor<4xf32> {mp.updates = 1 : i64}) {
  %logits = mp.linear %x, %w, %b acc(f32)
      : (tensor<4x16xf32>, tensor<4x16xf32>, tensor<4xf32>) -> tensor<4x4xf32>
  %loss = mp.cross_entropy %logits, %y : tensor<4x4xf32>, tensor<4xi64>
  %gw, %gb = mp.grad %loss wrt %w, %b
      : tensor<f32>, tensor<4x16xf32>, tensor<4xf32>
  %w1 = mp.sgd %w, %gw {lr = 0.1 : f64} : tensor<4x16xf32>
  %b1 = mp.sgd %b, %gb {lr = 0.1 : f64} : tensor<4xf32>
  return %loss, %w1, %b1 : tensor<f32>, tensor<4x16xf32>, tensor<4xf32>
}
