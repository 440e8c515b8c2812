// The MLP train step of mlp_16_32_10.mlir at batch 64, for
// mp-run-cuda-resident-split-k.test: the weight gradients dW = dY^T X have
// K = 64 (two K slices of bf16 mma.sync), the forward and input-gradient
// GEMMs K <= 32 (one slice), so split-k=2 splits the weight gradients only.

func.func @train_step(
    %w1: tensor<32x16xf32> {mp.param},
    %b1: tensor<32xf32> {mp.param},
    %w2: tensor<10x32xf32> {mp.param},
    %b2: tensor<10xf32> {mp.param},
    %m_w1: tensor<32x16xf32> {mp.state = "adam.exp_avg"},
    %m_b1: tensor<32xf32> {mp.state = "adam.exp_avg"},
    %m_w2: tensor<10x32xf32> {mp.state = "adam.exp_avg"},
    %m_b2: tensor<10xf32> {mp.state = "adam.exp_avg"},
    %v_w1: tensor<32x16xf32> {mp.state = "adam.exp_avg_sq"},
    %v_b1: tensor<32xf32> {mp.state = "adam.exp_avg_sq"},
    %v_w2: tensor<10x32xf32> {mp.state = "adam.exp_avg_sq"},
    %v_b2: tensor<10xf32> {mp.state = "adam.exp_avg_sq"},
    %step: tensor<i64> {mp.state = "step"},
    %x: tensor<64x16xf32>,
    %labels: tensor<64xi64>)
    -> (tensor<f32> {mp.loss},
        tensor<32x16xf32> {mp.updates = 0 : i64},
        tensor<32xf32> {mp.updates = 1 : i64},
        tensor<10x32xf32> {mp.updates = 2 : i64},
        tensor<10xf32> {mp.updates = 3 : i64},
        tensor<32x16xf32> {mp.updates = 4 : i64},
        tensor<32xf32> {mp.updates = 5 : i64},
        tensor<10x32xf32> {mp.updates = 6 : i64},
        tensor<10xf32> {mp.updates = 7 : i64},
        tensor<32x16xf32> {mp.updates = 8 : i64},
        tensor<32xf32> {mp.updates = 9 : i64},
        tensor<10x32xf32> {mp.updates = 10 : i64},
        tensor<10xf32> {mp.updates = 11 : i64},
        tensor<i64> {mp.updates = 12 : i64}) {
  // Forward.
  %h_pre = mp.linear %x, %w1, %b1 acc(f32)
      : (tensor<64x16xf32>, tensor<32x16xf32>, tensor<32xf32>) -> tensor<64x32xf32>
  %h = mp.relu %h_pre : tensor<64x32xf32>
  %logits = mp.linear %h, %w2, %b2 acc(f32)
      : (tensor<64x32xf32>, tensor<10x32xf32>, tensor<10xf32>) -> tensor<64x10xf32>

  // Loss.
  %loss = mp.cross_entropy %logits, %labels : tensor<64x10xf32>, tensor<64xi64>

  // Backward.
  %dw1, %db1, %dw2, %db2 = mp.grad %loss wrt %w1, %b1, %w2, %b2
      : tensor<f32>, tensor<32x16xf32>, tensor<32xf32>, tensor<10x32xf32>, tensor<10xf32>

  // Optimizer: count this update, then one Adam step per parameter.
  %one = arith.constant dense<1> : tensor<i64>
  %step1 = arith.addi %step, %one : tensor<i64>
  %w1_new, %m_w1_new, %v_w1_new = mp.adam %w1, %dw1, %m_w1, %v_w1, %step1
      {lr = 1.0e-03 : f64, beta1 = 9.0e-01 : f64, beta2 = 9.99e-01 : f64, eps = 1.0e-08 : f64}
      : tensor<32x16xf32>, tensor<i64>
  %b1_new, %m_b1_new, %v_b1_new = mp.adam %b1, %db1, %m_b1, %v_b1, %step1
      {lr = 1.0e-03 : f64, beta1 = 9.0e-01 : f64, beta2 = 9.99e-01 : f64, eps = 1.0e-08 : f64}
      : tensor<32xf32>, tensor<i64>
  %w2_new, %m_w2_new, %v_w2_new = mp.adam %w2, %dw2, %m_w2, %v_w2, %step1
      {lr = 1.0e-03 : f64, beta1 = 9.0e-01 : f64, beta2 = 9.99e-01 : f64, eps = 1.0e-08 : f64}
      : tensor<10x32xf32>, tensor<i64>
  %b2_new, %m_b2_new, %v_b2_new = mp.adam %b2, %db2, %m_b2, %v_b2, %step1
      {lr = 1.0e-03 : f64, beta1 = 9.0e-01 : f64, beta2 = 9.99e-01 : f64, eps = 1.0e-08 : f64}
      : tensor<10xf32>, tensor<i64>

  return %loss,
         %w1_new, %b1_new, %w2_new, %b2_new,
         %m_w1_new, %m_b1_new, %m_w2_new, %m_b2_new,
         %v_w1_new, %v_b1_new, %v_w2_new, %v_b2_new,
         %step1
      : tensor<f32>,
        tensor<32x16xf32>, tensor<32xf32>, tensor<10x32xf32>, tensor<10xf32>,
        tensor<32x16xf32>, tensor<32xf32>, tensor<10x32xf32>, tensor<10xf32>,
        tensor<32x16xf32>, tensor<32xf32>, tensor<10x32xf32>, tensor<10xf32>,
        tensor<i64>
}

