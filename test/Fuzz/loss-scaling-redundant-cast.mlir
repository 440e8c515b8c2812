// Fuzzer finding 4 (mp-fuzz-passes, docs/Reliability.md): mp-loss-scaling
// erased the f32 cast of a low-precision gradient that directly followed
// mp.grad while its builder still inserted before that cast: a
// use-after-free (SEGV) on this train step after mp-autocast{bf16} and
// mp-master-weights{stored-copy}. The casts are now erased after the last
// insertion; both f32 casts of the gradient become the unscaled gradient.
// RUN: mp-opt %s --mp-loss-scaling | FileCheck %s
// RUN: mp-opt %s --mp-loss-scaling=mode=static | FileCheck %s

// CHECK-LABEL: func.func @stored_copy_step
// CHECK:         %[[G:.*]]:2 = mp.grad
// CHECK:         %[[W:.*]] = mp.cast %[[G]]#0 : tensor<4xf16> to tensor<4xf32>
// CHECK-NEXT:    %[[U:.*]] = mp.scale %[[W]] by %{{.*}} : tensor<4xf32>
// CHECK-NOT:     mp.cast %[[G]]#0
// CHECK:         mp.sgd %{{.*}}, %[[U]]
// CHECK:         mp.reduce_sum %[[U]]
func.func @stored_copy_step(%arg0: tensor<4xf32> {mp.param}, %arg1: tensor<4xf32> {mp.param}, %arg2: tensor<4xf32>, %arg3: tensor<4xf16> {mp.copy_of = 0 : i64, mp.state = "working_copy"}) -> (tensor<f32> {mp.loss}, tensor<4xf32> {mp.updates = 0 : i64}, tensor<4xf32> {mp.updates = 1 : i64}, tensor<f32>, tensor<4xf16> {mp.updates = 3 : i64}) {
  %0 = mp.cast %arg3 : tensor<4xf16> to tensor<4xf32>
  %1 = mp.mul %0, %arg1 : tensor<4xf32>, tensor<4xf32>
  %2 = mp.mse %1, %arg2 : tensor<4xf32>
  %3:2 = mp.grad %2 wrt %arg3, %arg1 : tensor<f32>, tensor<4xf16>, tensor<4xf32>
  %4 = mp.cast %3#0 : tensor<4xf16> to tensor<4xf32>
  %new_param = mp.sgd %arg0, %4 {lr = 1.000000e-01 : f64} : tensor<4xf32>
  %new_param_0 = mp.sgd %arg1, %3#1 {lr = 1.000000e-01 : f64} : tensor<4xf32>
  %5 = mp.cast %3#0 : tensor<4xf16> to tensor<4xf32>
  %6 = mp.reduce_sum %5 dims [0] : tensor<4xf32>
  %7 = mp.cast %new_param : tensor<4xf32> to tensor<4xf16>
  return %2, %new_param, %new_param_0, %6, %7 : tensor<f32>, tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<4xf16>
}
