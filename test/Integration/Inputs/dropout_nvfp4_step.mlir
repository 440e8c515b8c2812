// A train step with dropout and an NVFP4 layer, for the test of their rng
// streams (nvfp4-rng-stream.test): x -> linear -> dropout(0.25) -> linear
// (the hidden 64 -> 64 layer mp-fp8-scaling's nvfp4 recipe rewrites) ->
// relu -> linear -> cross entropy, SGD. Argument 3 is the dropout's rng
// state (mp-run binds it to [--seed, 0], as it binds the state the recipe
// appends).
func.func @train_step(%w1: tensor<64x32xf32> {mp.param},
                      %w2: tensor<64x64xf32> {mp.param},
                      %w3: tensor<16x64xf32> {mp.param},
                      %rng: tensor<2xi64> {mp.state = "rng"},
                      %x: tensor<32x32xf32>, %y: tensor<32xi64>)
    -> (tensor<f32> {mp.loss}, tensor<64x32xf32> {mp.updates = 0 : i64},
        tensor<64x64xf32> {mp.updates = 1 : i64},
        tensor<16x64xf32> {mp.updates = 2 : i64},
        tensor<2xi64> {mp.updates = 3 : i64}) {
  %h1 = mp.linear %x, %w1 acc(f32) : (tensor<32x32xf32>, tensor<64x32xf32>) -> tensor<32x64xf32>
  %d1, %rng1 = mp.dropout %h1, %rng p(0.25) : tensor<32x64xf32>
  %h2 = mp.linear %d1, %w2 acc(f32) : (tensor<32x64xf32>, tensor<64x64xf32>) -> tensor<32x64xf32>
  %a2 = mp.relu %h2 : tensor<32x64xf32>
  %l = mp.linear %a2, %w3 acc(f32) : (tensor<32x64xf32>, tensor<16x64xf32>) -> tensor<32x16xf32>
  %loss = mp.cross_entropy %l, %y : tensor<32x16xf32>, tensor<32xi64>
  %g1, %g2, %g3 = mp.grad %loss wrt %w1, %w2, %w3
      : tensor<f32>, tensor<64x32xf32>, tensor<64x64xf32>, tensor<16x64xf32>
  %n1 = mp.sgd %w1, %g1 {lr = 0.1 : f64} : tensor<64x32xf32>
  %n2 = mp.sgd %w2, %g2 {lr = 0.1 : f64} : tensor<64x64xf32>
  %n3 = mp.sgd %w3, %g3 {lr = 0.1 : f64} : tensor<16x64xf32>
  return %loss, %n1, %n2, %n3, %rng1
      : tensor<f32>, tensor<64x32xf32>, tensor<64x64xf32>, tensor<16x64xf32>, tensor<2xi64>
}
