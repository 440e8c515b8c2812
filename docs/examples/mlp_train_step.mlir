// One training step of a 784-256-10 multilayer perceptron (MNIST-sized),
// written in the mp dialect as an ordinary `func.func`:
//
//   forward:   h      = relu(x · w1ᵀ + b1)            [64, 256]
//              logits = h · w2ᵀ + b2                  [64, 10]
//   loss:      mean softmax cross entropy of logits against labels
//   backward:  mp.grad of the loss with respect to the four parameters
//   optimizer: Adam (torch.optim.Adam defaults: lr 1e-3, betas (0.9, 0.999),
//              eps 1e-8, no weight decay), one mp.adam per parameter
//
// Everything is f32: mixed precision (autocast, loss scaling, ...) is applied
// later by passes, not written by hand.
//
// Signature convention (see docs/TrainStep.md and MPDialect.td):
//   arguments
//     0  w1          tensor<256x784xf32>  {mp.param}
//     1  b1          tensor<256xf32>      {mp.param}
//     2  w2          tensor<10x256xf32>   {mp.param}
//     3  b2          tensor<10xf32>       {mp.param}
//     4  exp_avg(w1)                      {mp.state = "adam.exp_avg"}
//     5  exp_avg(b1)                      {mp.state = "adam.exp_avg"}
//     6  exp_avg(w2)                      {mp.state = "adam.exp_avg"}
//     7  exp_avg(b2)                      {mp.state = "adam.exp_avg"}
//     8  exp_avg_sq(w1)                   {mp.state = "adam.exp_avg_sq"}
//     9  exp_avg_sq(b1)                   {mp.state = "adam.exp_avg_sq"}
//    10  exp_avg_sq(w2)                   {mp.state = "adam.exp_avg_sq"}
//    11  exp_avg_sq(b2)                   {mp.state = "adam.exp_avg_sq"}
//    12  step        tensor<i64>          {mp.state = "step"}  (updates done so far)
//    13  x           tensor<64x784xf32>   batch data (no attribute)
//    14  labels      tensor<64xi64>       batch data (no attribute)
//   results
//     0      loss                         {mp.loss}
//     1..4   new w1, b1, w2, b2           {mp.updates = 0..3}
//     5..8   new exp_avg of each param    {mp.updates = 4..7}
//     9..12  new exp_avg_sq of each param {mp.updates = 8..11}
//    13      step + 1                     {mp.updates = 12}
//
// The step counter is incremented before the update, so mp.adam sees the
// 1-based number of the update it performs, as torch.optim.Adam does.

func.func @train_step(
    %w1: tensor<256x784xf32> {mp.param},
    %b1: tensor<256xf32> {mp.param},
    %w2: tensor<10x256xf32> {mp.param},
    %b2: tensor<10xf32> {mp.param},
    %m_w1: tensor<256x784xf32> {mp.state = "adam.exp_avg"},
    %m_b1: tensor<256xf32> {mp.state = "adam.exp_avg"},
    %m_w2: tensor<10x256xf32> {mp.state = "adam.exp_avg"},
    %m_b2: tensor<10xf32> {mp.state = "adam.exp_avg"},
    %v_w1: tensor<256x784xf32> {mp.state = "adam.exp_avg_sq"},
    %v_b1: tensor<256xf32> {mp.state = "adam.exp_avg_sq"},
    %v_w2: tensor<10x256xf32> {mp.state = "adam.exp_avg_sq"},
    %v_b2: tensor<10xf32> {mp.state = "adam.exp_avg_sq"},
    %step: tensor<i64> {mp.state = "step"},
    %x: tensor<64x784xf32>,
    %labels: tensor<64xi64>)
    -> (tensor<f32> {mp.loss},
        tensor<256x784xf32> {mp.updates = 0 : i64},
        tensor<256xf32> {mp.updates = 1 : i64},
        tensor<10x256xf32> {mp.updates = 2 : i64},
        tensor<10xf32> {mp.updates = 3 : i64},
        tensor<256x784xf32> {mp.updates = 4 : i64},
        tensor<256xf32> {mp.updates = 5 : i64},
        tensor<10x256xf32> {mp.updates = 6 : i64},
        tensor<10xf32> {mp.updates = 7 : i64},
        tensor<256x784xf32> {mp.updates = 8 : i64},
        tensor<256xf32> {mp.updates = 9 : i64},
        tensor<10x256xf32> {mp.updates = 10 : i64},
        tensor<10xf32> {mp.updates = 11 : i64},
        tensor<i64> {mp.updates = 12 : i64}) {
  // Forward.
  %h_pre = mp.linear %x, %w1, %b1 acc(f32)
      : (tensor<64x784xf32>, tensor<256x784xf32>, tensor<256xf32>) -> tensor<64x256xf32>
  %h = mp.relu %h_pre : tensor<64x256xf32>
  %logits = mp.linear %h, %w2, %b2 acc(f32)
      : (tensor<64x256xf32>, tensor<10x256xf32>, tensor<10xf32>) -> tensor<64x10xf32>

  // Loss.
  %loss = mp.cross_entropy %logits, %labels : tensor<64x10xf32>, tensor<64xi64>

  // Backward.
  %dw1, %db1, %dw2, %db2 = mp.grad %loss wrt %w1, %b1, %w2, %b2
      : tensor<f32>, tensor<256x784xf32>, tensor<256xf32>, tensor<10x256xf32>, tensor<10xf32>

  // Optimizer: count this update, then one Adam step per parameter.
  %one = arith.constant dense<1> : tensor<i64>
  %step1 = arith.addi %step, %one : tensor<i64>
  %w1_new, %m_w1_new, %v_w1_new = mp.adam %w1, %dw1, %m_w1, %v_w1, %step1
      {lr = 1.0e-03 : f64, beta1 = 9.0e-01 : f64, beta2 = 9.99e-01 : f64, eps = 1.0e-08 : f64}
      : tensor<256x784xf32>, tensor<i64>
  %b1_new, %m_b1_new, %v_b1_new = mp.adam %b1, %db1, %m_b1, %v_b1, %step1
      {lr = 1.0e-03 : f64, beta1 = 9.0e-01 : f64, beta2 = 9.99e-01 : f64, eps = 1.0e-08 : f64}
      : tensor<256xf32>, tensor<i64>
  %w2_new, %m_w2_new, %v_w2_new = mp.adam %w2, %dw2, %m_w2, %v_w2, %step1
      {lr = 1.0e-03 : f64, beta1 = 9.0e-01 : f64, beta2 = 9.99e-01 : f64, eps = 1.0e-08 : f64}
      : tensor<10x256xf32>, tensor<i64>
  %b2_new, %m_b2_new, %v_b2_new = mp.adam %b2, %db2, %m_b2, %v_b2, %step1
      {lr = 1.0e-03 : f64, beta1 = 9.0e-01 : f64, beta2 = 9.99e-01 : f64, eps = 1.0e-08 : f64}
      : tensor<10xf32>, tensor<i64>

  return %loss,
         %w1_new, %b1_new, %w2_new, %b2_new,
         %m_w1_new, %m_b1_new, %m_w2_new, %m_b2_new,
         %v_w1_new, %v_b1_new, %v_w2_new, %v_b2_new,
         %step1
      : tensor<f32>,
        tensor<256x784xf32>, tensor<256xf32>, tensor<10x256xf32>, tensor<10xf32>,
        tensor<256x784xf32>, tensor<256xf32>, tensor<10x256xf32>, tensor<10xf32>,
        tensor<256x784xf32>, tensor<256xf32>, tensor<10x256xf32>, tensor<10xf32>,
        tensor<i64>
}
