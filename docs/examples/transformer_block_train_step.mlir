// One training step of a single pre-LayerNorm transformer block language
// model (GPT-style), written in the mp dialect as an ordinary `func.func`:
//
//   x0     = embedding(tok_emb, ids)                         [2, 16, 64]
//   h      = layer_norm(x0; ln1_w, ln1_b)                    [2, 16, 64]
//   q,k,v  = h·Wᵀ + b for (W, b) in (wq, bq), (wk, bk), (wv, bv)
//            reshaped to [2, 16, 4, 16], transposed to       [2, 4, 16, 16]
//            (batch, heads, tokens, head dim)
//   p      = softmax(q·kᵀ · 0.25, dim 3), 0.25 = 1/sqrt(16)  [2, 4, 16, 16]
//   a      = p·v, transposed and reshaped back to            [2, 16, 64]
//   x1     = x0 + (a·woᵀ + bo)                               residual
//   x2     = x1 + fc2(gelu_tanh(fc1(layer_norm(x1; ln2_w, ln2_b))))
//            with fc1 64 -> 256, fc2 256 -> 64               residual
//   logits = x2·w_headᵀ (no bias), reshaped to               [32, 512]
//   loss   = mean cross entropy of logits against labels     [2, 16]
//            reshaped to [32]
//
// followed by mp.grad of the loss with respect to all 18 parameters and one
// mp.adamw per parameter. Sizes: batch 2, sequence 16, d_model 64, 4 heads
// of dimension 16, MLP hidden 256, vocabulary 512. The attention has no
// causal mask (it would be an mp.add of a constant [16, 16] mask of 0 and
// -inf before the softmax). Everything is f32: mixed precision is applied
// later by passes.
//
// AdamW hyperparameters follow common GPT practice: lr 3e-4, betas
// (0.9, 0.95), eps 1e-8; weight decay 0.1 on the matrices (embedding,
// projections, MLP, head) and 0 on biases and layer-norm parameters.
//
// Signature convention (see docs/TrainStep.md and MPDialect.td). With
// P = 18 parameters, argument i < P is parameter i, argument P + i its AdamW
// exp_avg, argument 2P + i its exp_avg_sq:
//   arguments
//    0  tok_emb  tensor<512x64xf32>   {mp.param}  token embedding table
//    1  ln1_w    tensor<64xf32>       {mp.param}  layer norm 1 weight
//    2  ln1_b    tensor<64xf32>       {mp.param}  layer norm 1 bias
//    3  wq       tensor<64x64xf32>    {mp.param}  query projection weight
//    4  bq       tensor<64xf32>       {mp.param}  query projection bias
//    5  wk       tensor<64x64xf32>    {mp.param}  key projection weight
//    6  bk       tensor<64xf32>       {mp.param}  key projection bias
//    7  wv       tensor<64x64xf32>    {mp.param}  value projection weight
//    8  bv       tensor<64xf32>       {mp.param}  value projection bias
//    9  wo       tensor<64x64xf32>    {mp.param}  attention output projection weight
//   10  bo       tensor<64xf32>       {mp.param}  attention output projection bias
//   11  ln2_w    tensor<64xf32>       {mp.param}  layer norm 2 weight
//   12  ln2_b    tensor<64xf32>       {mp.param}  layer norm 2 bias
//   13  w_fc1    tensor<256x64xf32>   {mp.param}  MLP up projection weight
//   14  b_fc1    tensor<256xf32>      {mp.param}  MLP up projection bias
//   15  w_fc2    tensor<64x256xf32>   {mp.param}  MLP down projection weight
//   16  b_fc2    tensor<64xf32>       {mp.param}  MLP down projection bias
//   17  w_head   tensor<512x64xf32>   {mp.param}  LM head weight (no bias)
//   18..35  exp_avg of parameters 0..17     {mp.state = "adam.exp_avg"}
//   36..53  exp_avg_sq of parameters 0..17  {mp.state = "adam.exp_avg_sq"}
//   54  step     tensor<i64>          {mp.state = "step"}  (updates done so far)
//   55  ids      tensor<2x16xi64>     batch data: input token ids
//   56  labels   tensor<2x16xi64>     batch data: next-token targets (the
//                                      token after each of ids)
//   results
//    0       loss                                  {mp.loss}
//    1..18   new parameters 0..17                 {mp.updates = 0..17}
//   19..36  new exp_avg    (arguments 18..35)     {mp.updates = 18..35}
//   37..54  new exp_avg_sq (arguments 36..53)     {mp.updates = 36..53}
//   55      step + 1                              {mp.updates = 54}
//
// The step counter is incremented before the update, so mp.adamw sees the
// 1-based number of the update it performs, as torch.optim.AdamW does.

func.func @train_step(
    %tok_emb: tensor<512x64xf32> {mp.param},
    %ln1_w: tensor<64xf32> {mp.param},
    %ln1_b: tensor<64xf32> {mp.param},
    %wq: tensor<64x64xf32> {mp.param},
    %bq: tensor<64xf32> {mp.param},
    %wk: tensor<64x64xf32> {mp.param},
    %bk: tensor<64xf32> {mp.param},
    %wv: tensor<64x64xf32> {mp.param},
    %bv: tensor<64xf32> {mp.param},
    %wo: tensor<64x64xf32> {mp.param},
    %bo: tensor<64xf32> {mp.param},
    %ln2_w: tensor<64xf32> {mp.param},
    %ln2_b: tensor<64xf32> {mp.param},
    %w_fc1: tensor<256x64xf32> {mp.param},
    %b_fc1: tensor<256xf32> {mp.param},
    %w_fc2: tensor<64x256xf32> {mp.param},
    %b_fc2: tensor<64xf32> {mp.param},
    %w_head: tensor<512x64xf32> {mp.param},
    %m_tok_emb: tensor<512x64xf32> {mp.state = "adam.exp_avg"},
    %m_ln1_w: tensor<64xf32> {mp.state = "adam.exp_avg"},
    %m_ln1_b: tensor<64xf32> {mp.state = "adam.exp_avg"},
    %m_wq: tensor<64x64xf32> {mp.state = "adam.exp_avg"},
    %m_bq: tensor<64xf32> {mp.state = "adam.exp_avg"},
    %m_wk: tensor<64x64xf32> {mp.state = "adam.exp_avg"},
    %m_bk: tensor<64xf32> {mp.state = "adam.exp_avg"},
    %m_wv: tensor<64x64xf32> {mp.state = "adam.exp_avg"},
    %m_bv: tensor<64xf32> {mp.state = "adam.exp_avg"},
    %m_wo: tensor<64x64xf32> {mp.state = "adam.exp_avg"},
    %m_bo: tensor<64xf32> {mp.state = "adam.exp_avg"},
    %m_ln2_w: tensor<64xf32> {mp.state = "adam.exp_avg"},
    %m_ln2_b: tensor<64xf32> {mp.state = "adam.exp_avg"},
    %m_w_fc1: tensor<256x64xf32> {mp.state = "adam.exp_avg"},
    %m_b_fc1: tensor<256xf32> {mp.state = "adam.exp_avg"},
    %m_w_fc2: tensor<64x256xf32> {mp.state = "adam.exp_avg"},
    %m_b_fc2: tensor<64xf32> {mp.state = "adam.exp_avg"},
    %m_w_head: tensor<512x64xf32> {mp.state = "adam.exp_avg"},
    %v_tok_emb: tensor<512x64xf32> {mp.state = "adam.exp_avg_sq"},
    %v_ln1_w: tensor<64xf32> {mp.state = "adam.exp_avg_sq"},
    %v_ln1_b: tensor<64xf32> {mp.state = "adam.exp_avg_sq"},
    %v_wq: tensor<64x64xf32> {mp.state = "adam.exp_avg_sq"},
    %v_bq: tensor<64xf32> {mp.state = "adam.exp_avg_sq"},
    %v_wk: tensor<64x64xf32> {mp.state = "adam.exp_avg_sq"},
    %v_bk: tensor<64xf32> {mp.state = "adam.exp_avg_sq"},
    %v_wv: tensor<64x64xf32> {mp.state = "adam.exp_avg_sq"},
    %v_bv: tensor<64xf32> {mp.state = "adam.exp_avg_sq"},
    %v_wo: tensor<64x64xf32> {mp.state = "adam.exp_avg_sq"},
    %v_bo: tensor<64xf32> {mp.state = "adam.exp_avg_sq"},
    %v_ln2_w: tensor<64xf32> {mp.state = "adam.exp_avg_sq"},
    %v_ln2_b: tensor<64xf32> {mp.state = "adam.exp_avg_sq"},
    %v_w_fc1: tensor<256x64xf32> {mp.state = "adam.exp_avg_sq"},
    %v_b_fc1: tensor<256xf32> {mp.state = "adam.exp_avg_sq"},
    %v_w_fc2: tensor<64x256xf32> {mp.state = "adam.exp_avg_sq"},
    %v_b_fc2: tensor<64xf32> {mp.state = "adam.exp_avg_sq"},
    %v_w_head: tensor<512x64xf32> {mp.state = "adam.exp_avg_sq"},
    %step: tensor<i64> {mp.state = "step"},
    %ids: tensor<2x16xi64>,
    %labels: tensor<2x16xi64>)
    -> (tensor<f32> {mp.loss},
        tensor<512x64xf32> {mp.updates = 0 : i64},
        tensor<64xf32> {mp.updates = 1 : i64},
        tensor<64xf32> {mp.updates = 2 : i64},
        tensor<64x64xf32> {mp.updates = 3 : i64},
        tensor<64xf32> {mp.updates = 4 : i64},
        tensor<64x64xf32> {mp.updates = 5 : i64},
        tensor<64xf32> {mp.updates = 6 : i64},
        tensor<64x64xf32> {mp.updates = 7 : i64},
        tensor<64xf32> {mp.updates = 8 : i64},
        tensor<64x64xf32> {mp.updates = 9 : i64},
        tensor<64xf32> {mp.updates = 10 : i64},
        tensor<64xf32> {mp.updates = 11 : i64},
        tensor<64xf32> {mp.updates = 12 : i64},
        tensor<256x64xf32> {mp.updates = 13 : i64},
        tensor<256xf32> {mp.updates = 14 : i64},
        tensor<64x256xf32> {mp.updates = 15 : i64},
        tensor<64xf32> {mp.updates = 16 : i64},
        tensor<512x64xf32> {mp.updates = 17 : i64},
        tensor<512x64xf32> {mp.updates = 18 : i64},
        tensor<64xf32> {mp.updates = 19 : i64},
        tensor<64xf32> {mp.updates = 20 : i64},
        tensor<64x64xf32> {mp.updates = 21 : i64},
        tensor<64xf32> {mp.updates = 22 : i64},
        tensor<64x64xf32> {mp.updates = 23 : i64},
        tensor<64xf32> {mp.updates = 24 : i64},
        tensor<64x64xf32> {mp.updates = 25 : i64},
        tensor<64xf32> {mp.updates = 26 : i64},
        tensor<64x64xf32> {mp.updates = 27 : i64},
        tensor<64xf32> {mp.updates = 28 : i64},
        tensor<64xf32> {mp.updates = 29 : i64},
        tensor<64xf32> {mp.updates = 30 : i64},
        tensor<256x64xf32> {mp.updates = 31 : i64},
        tensor<256xf32> {mp.updates = 32 : i64},
        tensor<64x256xf32> {mp.updates = 33 : i64},
        tensor<64xf32> {mp.updates = 34 : i64},
        tensor<512x64xf32> {mp.updates = 35 : i64},
        tensor<512x64xf32> {mp.updates = 36 : i64},
        tensor<64xf32> {mp.updates = 37 : i64},
        tensor<64xf32> {mp.updates = 38 : i64},
        tensor<64x64xf32> {mp.updates = 39 : i64},
        tensor<64xf32> {mp.updates = 40 : i64},
        tensor<64x64xf32> {mp.updates = 41 : i64},
        tensor<64xf32> {mp.updates = 42 : i64},
        tensor<64x64xf32> {mp.updates = 43 : i64},
        tensor<64xf32> {mp.updates = 44 : i64},
        tensor<64x64xf32> {mp.updates = 45 : i64},
        tensor<64xf32> {mp.updates = 46 : i64},
        tensor<64xf32> {mp.updates = 47 : i64},
        tensor<64xf32> {mp.updates = 48 : i64},
        tensor<256x64xf32> {mp.updates = 49 : i64},
        tensor<256xf32> {mp.updates = 50 : i64},
        tensor<64x256xf32> {mp.updates = 51 : i64},
        tensor<64xf32> {mp.updates = 52 : i64},
        tensor<512x64xf32> {mp.updates = 53 : i64},
        tensor<i64> {mp.updates = 54 : i64}) {
  // Token embedding.
  %x0 = mp.embedding %tok_emb[%ids] : tensor<512x64xf32>, tensor<2x16xi64>

  // Self-attention sub-block (pre-LayerNorm).
  %h = mp.layer_norm %x0 weight %ln1_w bias %ln1_b axis 2 eps 1.0e-05
      : (tensor<2x16x64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<2x16x64xf32>
  %q = mp.linear %h, %wq, %bq acc(f32)
      : (tensor<2x16x64xf32>, tensor<64x64xf32>, tensor<64xf32>) -> tensor<2x16x64xf32>
  %k = mp.linear %h, %wk, %bk acc(f32)
      : (tensor<2x16x64xf32>, tensor<64x64xf32>, tensor<64xf32>) -> tensor<2x16x64xf32>
  %v = mp.linear %h, %wv, %bv acc(f32)
      : (tensor<2x16x64xf32>, tensor<64x64xf32>, tensor<64xf32>) -> tensor<2x16x64xf32>
  // Split the heads: [2, 16, 64] -> [2, 16, 4, 16] -> [2, 4, 16, 16].
  %q_split = mp.reshape %q : tensor<2x16x64xf32> to tensor<2x16x4x16xf32>
  %q_heads = mp.transpose %q_split perm [0, 2, 1, 3] : tensor<2x16x4x16xf32>
  %k_split = mp.reshape %k : tensor<2x16x64xf32> to tensor<2x16x4x16xf32>
  %k_heads = mp.transpose %k_split perm [0, 2, 1, 3] : tensor<2x16x4x16xf32>
  %v_split = mp.reshape %v : tensor<2x16x64xf32> to tensor<2x16x4x16xf32>
  %v_heads = mp.transpose %v_split perm [0, 2, 1, 3] : tensor<2x16x4x16xf32>
  // Scaled dot-product attention, scale 1/sqrt(16).
  %scores = mp.batch_matmul %q_heads, %k_heads transpose_rhs acc(f32)
      : tensor<2x4x16x16xf32>, tensor<2x4x16x16xf32> -> tensor<2x4x16x16xf32>
  %scale = arith.constant dense<2.500000e-01> : tensor<f32>
  %scores_scaled = mp.mul %scores, %scale : tensor<2x4x16x16xf32>, tensor<f32>
  %probs = mp.softmax %scores_scaled dim 3 : tensor<2x4x16x16xf32>
  %ctx_heads = mp.batch_matmul %probs, %v_heads acc(f32)
      : tensor<2x4x16x16xf32>, tensor<2x4x16x16xf32> -> tensor<2x4x16x16xf32>
  // Merge the heads: [2, 4, 16, 16] -> [2, 16, 4, 16] -> [2, 16, 64].
  %ctx_split = mp.transpose %ctx_heads perm [0, 2, 1, 3] : tensor<2x4x16x16xf32>
  %ctx = mp.reshape %ctx_split : tensor<2x16x4x16xf32> to tensor<2x16x64xf32>
  %attn = mp.linear %ctx, %wo, %bo acc(f32)
      : (tensor<2x16x64xf32>, tensor<64x64xf32>, tensor<64xf32>) -> tensor<2x16x64xf32>
  %x1 = mp.add %x0, %attn : tensor<2x16x64xf32>, tensor<2x16x64xf32>

  // MLP sub-block (pre-LayerNorm).
  %h2 = mp.layer_norm %x1 weight %ln2_w bias %ln2_b axis 2 eps 1.0e-05
      : (tensor<2x16x64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<2x16x64xf32>
  %up = mp.linear %h2, %w_fc1, %b_fc1 acc(f32)
      : (tensor<2x16x64xf32>, tensor<256x64xf32>, tensor<256xf32>) -> tensor<2x16x256xf32>
  %act = mp.gelu %up approximate tanh : tensor<2x16x256xf32>
  %down = mp.linear %act, %w_fc2, %b_fc2 acc(f32)
      : (tensor<2x16x256xf32>, tensor<64x256xf32>, tensor<64xf32>) -> tensor<2x16x64xf32>
  %x2 = mp.add %x1, %down : tensor<2x16x64xf32>, tensor<2x16x64xf32>

  // LM head and loss over all 2 x 16 positions.
  %logits3 = mp.linear %x2, %w_head acc(f32)
      : (tensor<2x16x64xf32>, tensor<512x64xf32>) -> tensor<2x16x512xf32>
  %logits = mp.reshape %logits3 : tensor<2x16x512xf32> to tensor<32x512xf32>
  %targets = mp.reshape %labels : tensor<2x16xi64> to tensor<32xi64>
  %loss = mp.cross_entropy %logits, %targets : tensor<32x512xf32>, tensor<32xi64>

  // Backward: gradients of the loss with respect to every parameter, in
  // argument order.
  %d_tok_emb, %d_ln1_w, %d_ln1_b, %d_wq, %d_bq, %d_wk,
  %d_bk, %d_wv, %d_bv, %d_wo, %d_bo, %d_ln2_w,
  %d_ln2_b, %d_w_fc1, %d_b_fc1, %d_w_fc2, %d_b_fc2, %d_w_head
      = mp.grad %loss wrt %tok_emb, %ln1_w, %ln1_b, %wq, %bq, %wk,
                          %bk, %wv, %bv, %wo, %bo, %ln2_w,
                          %ln2_b, %w_fc1, %b_fc1, %w_fc2, %b_fc2, %w_head
      : tensor<f32>,
        tensor<512x64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64x64xf32>, tensor<64xf32>, tensor<64x64xf32>,
        tensor<64xf32>, tensor<64x64xf32>, tensor<64xf32>, tensor<64x64xf32>, tensor<64xf32>, tensor<64xf32>,
        tensor<64xf32>, tensor<256x64xf32>, tensor<256xf32>, tensor<64x256xf32>, tensor<64xf32>, tensor<512x64xf32>

  // Optimizer: count this update, then one AdamW step per parameter
  // (weight decay 0.1 on matrices, 0 on biases and layer-norm parameters).
  %one = arith.constant dense<1> : tensor<i64>
  %step1 = arith.addi %step, %one : tensor<i64>
  %tok_emb_new, %m_tok_emb_new, %v_tok_emb_new = mp.adamw %tok_emb, %d_tok_emb, %m_tok_emb, %v_tok_emb, %step1
      {lr = 3.0e-04 : f64, beta1 = 9.0e-01 : f64, beta2 = 9.5e-01 : f64,
       eps = 1.0e-08 : f64, weight_decay = 1.0e-01 : f64}
      : tensor<512x64xf32>, tensor<i64>
  %ln1_w_new, %m_ln1_w_new, %v_ln1_w_new = mp.adamw %ln1_w, %d_ln1_w, %m_ln1_w, %v_ln1_w, %step1
      {lr = 3.0e-04 : f64, beta1 = 9.0e-01 : f64, beta2 = 9.5e-01 : f64,
       eps = 1.0e-08 : f64, weight_decay = 0.0e+00 : f64}
      : tensor<64xf32>, tensor<i64>
  %ln1_b_new, %m_ln1_b_new, %v_ln1_b_new = mp.adamw %ln1_b, %d_ln1_b, %m_ln1_b, %v_ln1_b, %step1
      {lr = 3.0e-04 : f64, beta1 = 9.0e-01 : f64, beta2 = 9.5e-01 : f64,
       eps = 1.0e-08 : f64, weight_decay = 0.0e+00 : f64}
      : tensor<64xf32>, tensor<i64>
  %wq_new, %m_wq_new, %v_wq_new = mp.adamw %wq, %d_wq, %m_wq, %v_wq, %step1
      {lr = 3.0e-04 : f64, beta1 = 9.0e-01 : f64, beta2 = 9.5e-01 : f64,
       eps = 1.0e-08 : f64, weight_decay = 1.0e-01 : f64}
      : tensor<64x64xf32>, tensor<i64>
  %bq_new, %m_bq_new, %v_bq_new = mp.adamw %bq, %d_bq, %m_bq, %v_bq, %step1
      {lr = 3.0e-04 : f64, beta1 = 9.0e-01 : f64, beta2 = 9.5e-01 : f64,
       eps = 1.0e-08 : f64, weight_decay = 0.0e+00 : f64}
      : tensor<64xf32>, tensor<i64>
  %wk_new, %m_wk_new, %v_wk_new = mp.adamw %wk, %d_wk, %m_wk, %v_wk, %step1
      {lr = 3.0e-04 : f64, beta1 = 9.0e-01 : f64, beta2 = 9.5e-01 : f64,
       eps = 1.0e-08 : f64, weight_decay = 1.0e-01 : f64}
      : tensor<64x64xf32>, tensor<i64>
  %bk_new, %m_bk_new, %v_bk_new = mp.adamw %bk, %d_bk, %m_bk, %v_bk, %step1
      {lr = 3.0e-04 : f64, beta1 = 9.0e-01 : f64, beta2 = 9.5e-01 : f64,
       eps = 1.0e-08 : f64, weight_decay = 0.0e+00 : f64}
      : tensor<64xf32>, tensor<i64>
  %wv_new, %m_wv_new, %v_wv_new = mp.adamw %wv, %d_wv, %m_wv, %v_wv, %step1
      {lr = 3.0e-04 : f64, beta1 = 9.0e-01 : f64, beta2 = 9.5e-01 : f64,
       eps = 1.0e-08 : f64, weight_decay = 1.0e-01 : f64}
      : tensor<64x64xf32>, tensor<i64>
  %bv_new, %m_bv_new, %v_bv_new = mp.adamw %bv, %d_bv, %m_bv, %v_bv, %step1
      {lr = 3.0e-04 : f64, beta1 = 9.0e-01 : f64, beta2 = 9.5e-01 : f64,
       eps = 1.0e-08 : f64, weight_decay = 0.0e+00 : f64}
      : tensor<64xf32>, tensor<i64>
  %wo_new, %m_wo_new, %v_wo_new = mp.adamw %wo, %d_wo, %m_wo, %v_wo, %step1
      {lr = 3.0e-04 : f64, beta1 = 9.0e-01 : f64, beta2 = 9.5e-01 : f64,
       eps = 1.0e-08 : f64, weight_decay = 1.0e-01 : f64}
      : tensor<64x64xf32>, tensor<i64>
  %bo_new, %m_bo_new, %v_bo_new = mp.adamw %bo, %d_bo, %m_bo, %v_bo, %step1
      {lr = 3.0e-04 : f64, beta1 = 9.0e-01 : f64, beta2 = 9.5e-01 : f64,
       eps = 1.0e-08 : f64, weight_decay = 0.0e+00 : f64}
      : tensor<64xf32>, tensor<i64>
  %ln2_w_new, %m_ln2_w_new, %v_ln2_w_new = mp.adamw %ln2_w, %d_ln2_w, %m_ln2_w, %v_ln2_w, %step1
      {lr = 3.0e-04 : f64, beta1 = 9.0e-01 : f64, beta2 = 9.5e-01 : f64,
       eps = 1.0e-08 : f64, weight_decay = 0.0e+00 : f64}
      : tensor<64xf32>, tensor<i64>
  %ln2_b_new, %m_ln2_b_new, %v_ln2_b_new = mp.adamw %ln2_b, %d_ln2_b, %m_ln2_b, %v_ln2_b, %step1
      {lr = 3.0e-04 : f64, beta1 = 9.0e-01 : f64, beta2 = 9.5e-01 : f64,
       eps = 1.0e-08 : f64, weight_decay = 0.0e+00 : f64}
      : tensor<64xf32>, tensor<i64>
  %w_fc1_new, %m_w_fc1_new, %v_w_fc1_new = mp.adamw %w_fc1, %d_w_fc1, %m_w_fc1, %v_w_fc1, %step1
      {lr = 3.0e-04 : f64, beta1 = 9.0e-01 : f64, beta2 = 9.5e-01 : f64,
       eps = 1.0e-08 : f64, weight_decay = 1.0e-01 : f64}
      : tensor<256x64xf32>, tensor<i64>
  %b_fc1_new, %m_b_fc1_new, %v_b_fc1_new = mp.adamw %b_fc1, %d_b_fc1, %m_b_fc1, %v_b_fc1, %step1
      {lr = 3.0e-04 : f64, beta1 = 9.0e-01 : f64, beta2 = 9.5e-01 : f64,
       eps = 1.0e-08 : f64, weight_decay = 0.0e+00 : f64}
      : tensor<256xf32>, tensor<i64>
  %w_fc2_new, %m_w_fc2_new, %v_w_fc2_new = mp.adamw %w_fc2, %d_w_fc2, %m_w_fc2, %v_w_fc2, %step1
      {lr = 3.0e-04 : f64, beta1 = 9.0e-01 : f64, beta2 = 9.5e-01 : f64,
       eps = 1.0e-08 : f64, weight_decay = 1.0e-01 : f64}
      : tensor<64x256xf32>, tensor<i64>
  %b_fc2_new, %m_b_fc2_new, %v_b_fc2_new = mp.adamw %b_fc2, %d_b_fc2, %m_b_fc2, %v_b_fc2, %step1
      {lr = 3.0e-04 : f64, beta1 = 9.0e-01 : f64, beta2 = 9.5e-01 : f64,
       eps = 1.0e-08 : f64, weight_decay = 0.0e+00 : f64}
      : tensor<64xf32>, tensor<i64>
  %w_head_new, %m_w_head_new, %v_w_head_new = mp.adamw %w_head, %d_w_head, %m_w_head, %v_w_head, %step1
      {lr = 3.0e-04 : f64, beta1 = 9.0e-01 : f64, beta2 = 9.5e-01 : f64,
       eps = 1.0e-08 : f64, weight_decay = 1.0e-01 : f64}
      : tensor<512x64xf32>, tensor<i64>

  return %loss,
         %tok_emb_new, %ln1_w_new, %ln1_b_new, %wq_new, %bq_new, %wk_new,
         %bk_new, %wv_new, %bv_new, %wo_new, %bo_new, %ln2_w_new,
         %ln2_b_new, %w_fc1_new, %b_fc1_new, %w_fc2_new, %b_fc2_new, %w_head_new,
         %m_tok_emb_new, %m_ln1_w_new, %m_ln1_b_new, %m_wq_new, %m_bq_new, %m_wk_new,
         %m_bk_new, %m_wv_new, %m_bv_new, %m_wo_new, %m_bo_new, %m_ln2_w_new,
         %m_ln2_b_new, %m_w_fc1_new, %m_b_fc1_new, %m_w_fc2_new, %m_b_fc2_new, %m_w_head_new,
         %v_tok_emb_new, %v_ln1_w_new, %v_ln1_b_new, %v_wq_new, %v_bq_new, %v_wk_new,
         %v_bk_new, %v_wv_new, %v_bv_new, %v_wo_new, %v_bo_new, %v_ln2_w_new,
         %v_ln2_b_new, %v_w_fc1_new, %v_b_fc1_new, %v_w_fc2_new, %v_b_fc2_new, %v_w_head_new,
         %step1
      : tensor<f32>,
        tensor<512x64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64x64xf32>, tensor<64xf32>, tensor<64x64xf32>,
        tensor<64xf32>, tensor<64x64xf32>, tensor<64xf32>, tensor<64x64xf32>, tensor<64xf32>, tensor<64xf32>,
        tensor<64xf32>, tensor<256x64xf32>, tensor<256xf32>, tensor<64x256xf32>, tensor<64xf32>, tensor<512x64xf32>,
        tensor<512x64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64x64xf32>, tensor<64xf32>, tensor<64x64xf32>,
        tensor<64xf32>, tensor<64x64xf32>, tensor<64xf32>, tensor<64x64xf32>, tensor<64xf32>, tensor<64xf32>,
        tensor<64xf32>, tensor<256x64xf32>, tensor<256xf32>, tensor<64x256xf32>, tensor<64xf32>, tensor<512x64xf32>,
        tensor<512x64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64x64xf32>, tensor<64xf32>, tensor<64x64xf32>,
        tensor<64xf32>, tensor<64x64xf32>, tensor<64xf32>, tensor<64x64xf32>, tensor<64xf32>, tensor<64xf32>,
        tensor<64xf32>, tensor<256x64xf32>, tensor<256xf32>, tensor<64x256xf32>, tensor<64xf32>, tensor<512x64xf32>,
        tensor<i64>
}
