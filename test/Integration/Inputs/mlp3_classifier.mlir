// A 784-256-128-10 MLP train step (Adam, cross entropy, f32) with its
// classifier @predict, for the FP8 Fashion-MNIST test
// (numerics-fp8-fashion-mnist.test): mp-fp8-scaling's default choice runs
// the hidden 256 -> 128 layer in FP8 (the first and last layers stay).

func.func @train_step(
    %w1: tensor<256x784xf32> {mp.param},
    %b1: tensor<256xf32> {mp.param},
    %w2: tensor<128x256xf32> {mp.param},
    %b2: tensor<128xf32> {mp.param},
    %w3: tensor<10x128xf32> {mp.param},
    %b3: tensor<10xf32> {mp.param},
    %m_w1: tensor<256x784xf32> {mp.state = "adam.exp_avg"},
    %m_b1: tensor<256xf32> {mp.state = "adam.exp_avg"},
    %m_w2: tensor<128x256xf32> {mp.state = "adam.exp_avg"},
    %m_b2: tensor<128xf32> {mp.state = "adam.exp_avg"},
    %m_w3: tensor<10x128xf32> {mp.state = "adam.exp_avg"},
    %m_b3: tensor<10xf32> {mp.state = "adam.exp_avg"},
    %v_w1: tensor<256x784xf32> {mp.state = "adam.exp_avg_sq"},
    %v_b1: tensor<256xf32> {mp.state = "adam.exp_avg_sq"},
    %v_w2: tensor<128x256xf32> {mp.state = "adam.exp_avg_sq"},
    %v_b2: tensor<128xf32> {mp.state = "adam.exp_avg_sq"},
    %v_w3: tensor<10x128xf32> {mp.state = "adam.exp_avg_sq"},
    %v_b3: tensor<10xf32> {mp.state = "adam.exp_avg_sq"},
    %step: tensor<i64> {mp.state = "step"},
    %x: tensor<64x784xf32>,
    %labels: tensor<64xi64>)
    -> (tensor<f32> {mp.loss},
        tensor<256x784xf32> {mp.updates = 0 : i64},
        tensor<256xf32> {mp.updates = 1 : i64},
        tensor<128x256xf32> {mp.updates = 2 : i64},
        tensor<128xf32> {mp.updates = 3 : i64},
        tensor<10x128xf32> {mp.updates = 4 : i64},
        tensor<10xf32> {mp.updates = 5 : i64},
        tensor<256x784xf32> {mp.updates = 6 : i64},
        tensor<256xf32> {mp.updates = 7 : i64},
        tensor<128x256xf32> {mp.updates = 8 : i64},
        tensor<128xf32> {mp.updates = 9 : i64},
        tensor<10x128xf32> {mp.updates = 10 : i64},
        tensor<10xf32> {mp.updates = 11 : i64},
        tensor<256x784xf32> {mp.updates = 12 : i64},
        tensor<256xf32> {mp.updates = 13 : i64},
        tensor<128x256xf32> {mp.updates = 14 : i64},
        tensor<128xf32> {mp.updates = 15 : i64},
        tensor<10x128xf32> {mp.updates = 16 : i64},
        tensor<10xf32> {mp.updates = 17 : i64},
        tensor<i64> {mp.updates = 18 : i64}) {
  %z1 = mp.linear %x, %w1, %b1 acc(f32)
      : (tensor<64x784xf32>, tensor<256x784xf32>, tensor<256xf32>) -> tensor<64x256xf32>
  %h1 = mp.relu %z1 : tensor<64x256xf32>
  %z2 = mp.linear %h1, %w2, %b2 acc(f32)
      : (tensor<64x256xf32>, tensor<128x256xf32>, tensor<128xf32>) -> tensor<64x128xf32>
  %h2 = mp.relu %z2 : tensor<64x128xf32>
  %z3 = mp.linear %h2, %w3, %b3 acc(f32)
      : (tensor<64x128xf32>, tensor<10x128xf32>, tensor<10xf32>) -> tensor<64x10xf32>
  %loss = mp.cross_entropy %z3, %labels : tensor<64x10xf32>, tensor<64xi64>
  %g_w1, %g_b1, %g_w2, %g_b2, %g_w3, %g_b3 = mp.grad %loss wrt %w1, %b1, %w2, %b2, %w3, %b3
      : tensor<f32>, tensor<256x784xf32>, tensor<256xf32>, tensor<128x256xf32>, tensor<128xf32>, tensor<10x128xf32>, tensor<10xf32>
  %one = arith.constant dense<1> : tensor<i64>
  %step1 = arith.addi %step, %one : tensor<i64>
  %n_w1, %nm_w1, %nv_w1 = mp.adam %w1, %g_w1, %m_w1, %v_w1, %step1
      {lr = 1.0e-03 : f64} : tensor<256x784xf32>, tensor<i64>
  %n_b1, %nm_b1, %nv_b1 = mp.adam %b1, %g_b1, %m_b1, %v_b1, %step1
      {lr = 1.0e-03 : f64} : tensor<256xf32>, tensor<i64>
  %n_w2, %nm_w2, %nv_w2 = mp.adam %w2, %g_w2, %m_w2, %v_w2, %step1
      {lr = 1.0e-03 : f64} : tensor<128x256xf32>, tensor<i64>
  %n_b2, %nm_b2, %nv_b2 = mp.adam %b2, %g_b2, %m_b2, %v_b2, %step1
      {lr = 1.0e-03 : f64} : tensor<128xf32>, tensor<i64>
  %n_w3, %nm_w3, %nv_w3 = mp.adam %w3, %g_w3, %m_w3, %v_w3, %step1
      {lr = 1.0e-03 : f64} : tensor<10x128xf32>, tensor<i64>
  %n_b3, %nm_b3, %nv_b3 = mp.adam %b3, %g_b3, %m_b3, %v_b3, %step1
      {lr = 1.0e-03 : f64} : tensor<10xf32>, tensor<i64>
  return %loss, %n_w1, %n_b1, %n_w2, %n_b2, %n_w3, %n_b3, %nm_w1, %nm_b1, %nm_w2, %nm_b2, %nm_w3, %nm_b3, %nv_w1, %nv_b1, %nv_w2, %nv_b2, %nv_w3, %nv_b3, %step1
      : tensor<f32>, tensor<256x784xf32>, tensor<256xf32>, tensor<128x256xf32>, tensor<128xf32>, tensor<10x128xf32>, tensor<10xf32>, tensor<256x784xf32>, tensor<256xf32>, tensor<128x256xf32>, tensor<128xf32>, tensor<10x128xf32>, tensor<10xf32>, tensor<256x784xf32>, tensor<256xf32>, tensor<128x256xf32>, tensor<128xf32>, tensor<10x128xf32>, tensor<10xf32>, tensor<i64>
}

// Inference in f32 with the same parameters.
func.func @predict(
    %w1: tensor<256x784xf32> {mp.param},
    %b1: tensor<256xf32> {mp.param},
    %w2: tensor<128x256xf32> {mp.param},
    %b2: tensor<128xf32> {mp.param},
    %w3: tensor<10x128xf32> {mp.param},
    %b3: tensor<10xf32> {mp.param},
    %x: tensor<250x784xf32>) -> tensor<250x10xf32> {
  %z1 = mp.linear %x, %w1, %b1 acc(f32)
      : (tensor<250x784xf32>, tensor<256x784xf32>, tensor<256xf32>) -> tensor<250x256xf32>
  %h1 = mp.relu %z1 : tensor<250x256xf32>
  %z2 = mp.linear %h1, %w2, %b2 acc(f32)
      : (tensor<250x256xf32>, tensor<128x256xf32>, tensor<128xf32>) -> tensor<250x128xf32>
  %h2 = mp.relu %z2 : tensor<250x128xf32>
  %z3 = mp.linear %h2, %w3, %b3 acc(f32)
      : (tensor<250x128xf32>, tensor<10x128xf32>, tensor<10xf32>) -> tensor<250x10xf32>
  return %z3 : tensor<250x10xf32>
}
