// A train step with dropout for the tests of the rng state: loss =
// Σ dropout(w · x, p = 0.5), SGD with lr 0.1. Argument 1 is the rng state
// (no mp.init: mp-run binds it to [--seed, 0]).
func.func @dropout_step(%w: tensor<64xf32> {mp.param},
                        %s: tensor<2xi64> {mp.state = "rng"},
                        %x: tensor<1x64xf32>)
    -> (tensor<f32> {mp.loss}, tensor<64xf32> {mp.updates = 0 : i64},
        tensor<2xi64> {mp.updates = 1 : i64}) {
  %h = mp.mul %x, %w : tensor<1x64xf32>, tensor<64xf32>
  %d, %s1 = mp.dropout %h, %s p(0.5) : tensor<1x64xf32>
  %loss = mp.reduce_sum %d dims [0, 1] : tensor<1x64xf32>
  %g = mp.grad %loss wrt %w : tensor<f32>, tensor<64xf32>
  %w1 = mp.sgd %w, %g {lr = 0.1 : f64} : tensor<64xf32>
  return %loss, %w1, %s1 : tensor<f32>, tensor<64xf32>, tensor<2xi64>
}
