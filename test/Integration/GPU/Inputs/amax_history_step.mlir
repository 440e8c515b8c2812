// A step whose state is an FP8 amax history (mp.amax_history_push: the new
// amax at element 0, the history shifted by one) and whose loss is the
// history's maximum, for mp-run-cuda-resident-views.test.

func.func @train_step(%history: tensor<4xf32> {mp.state = "fp8.amax_history"},
                      %x: tensor<8xf32>)
    -> (tensor<f32> {mp.loss}, tensor<4xf32> {mp.updates = 0 : i64}) {
  %amax = mp.amax %x : tensor<8xf32>
  %pushed = mp.amax_history_push %history, %amax : tensor<4xf32>
  %max = mp.amax %pushed : tensor<4xf32>
  return %max, %pushed : tensor<f32>, tensor<4xf32>
}
