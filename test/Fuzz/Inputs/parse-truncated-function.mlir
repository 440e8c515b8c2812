func.func @f16_adam_state(%w: tensor<8xf16> {mp.param}, %m: tensor<8xf16> {mp.state = "adam.exp_avg"},
                          %v: tensor<8xf16> {mp.state = "adam.exp_avg_sq"}, %step: tensor<i64> {mp.state = "step"},
                          %t: tensor<8xf16>)
    -> (tensor<f16> {mp.loss}, tensor<8xf16> {mp.updates = 0 : i64}, tensor<8xf16> {mp.updates = 1 : i64},
        tensor<8xf16> {mp.updates = 2 : i64}, tensor<f16>) {
  %loss = mp.mse %w, %t : tensor<8xf16>
  %g = mp.grad %loss wrt %w : tensor<f16>, tensor<8xf16>
  %w1, %m1, %v1 = mp.adam %w, %g, %m, %v, %step : tensor<8xf16>, tensor<i64>
  %gmax = mp.reduce_max %g dims [0] : tensor<8xf16>
  return %loss, %w1, %m1, %v1, %gmax : tensor<f16>, tensor<8xf16>, tensor<8xf16>, tensor<8xf16>, tensor<f16>ens