// A train step whose loss is the running mean it starts from (weighted by a
// parameter, loaded as ones, with learning rate 0 so that it stays): for
// data-parallel-batch-norm.test, which checks that every process starts
// from process 0's statistics.
func.func @train_step(%s: tensor<2xf32> {mp.param},
                      %rm: tensor<2xf32> {mp.state = "bn.running_mean"},
                      %rv: tensor<2xf32> {mp.state = "bn.running_var"},
                      %n: tensor<i64> {mp.state = "bn.num_batches_tracked"},
                      %x: tensor<4x2xf32>)
    -> (tensor<f32> {mp.loss}, tensor<2xf32> {mp.updates = 0 : i64},
        tensor<2xf32> {mp.updates = 1 : i64}, tensor<2xf32> {mp.updates = 2 : i64},
        tensor<i64> {mp.updates = 3 : i64}) {
  %y, %rm1, %rv1, %n1 = mp.batch_norm %x stats(%rm, %rv, %n) training
      : (tensor<4x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<i64>)
      -> (tensor<4x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<i64>)
  %w = mp.mul %rm, %s : tensor<2xf32>, tensor<2xf32>
  %loss = mp.reduce_sum %w dims [0] : tensor<2xf32>
  %g = mp.grad %loss wrt %s : tensor<f32>, tensor<2xf32>
  %s1 = mp.sgd %s, %g {lr = 0.0 : f64} : tensor<2xf32>
  return %loss, %s1, %rm1, %rv1, %n1
      : tensor<f32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<i64>
}
