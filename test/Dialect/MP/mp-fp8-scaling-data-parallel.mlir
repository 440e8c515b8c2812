// mp-fp8-scaling in a data-parallel train step (after mp-data-parallel,
// whose grid @mp_data_parallel it finds): delayed scaling all-reduces each
// amax (max) over the grid before it enters the history, so that every
// process computes the same scales (Transformer Engine's reduce_amax);
// reduce-amax=false and the current recipe do not.
// RUN: mp-opt %s --pass-pipeline='builtin.module(mp-data-parallel{grid-size=2},func.func(mp-autodiff),mp-fp8-scaling{amax-history-len=4})' | FileCheck %s
// RUN: mp-opt %s --pass-pipeline='builtin.module(mp-data-parallel{grid-size=2},func.func(mp-autodiff),mp-fp8-scaling{amax-history-len=4 reduce-amax=false})' | FileCheck %s --check-prefix=LOCAL
// RUN: mp-opt %s --pass-pipeline='builtin.module(mp-data-parallel{grid-size=2},func.func(mp-autodiff),mp-fp8-scaling{recipe=current})' | FileCheck %s --check-prefix=LOCAL
// Through the pipeline, which runs mp-data-parallel before mp-fp8-scaling.
// RUN: mp-opt %s --mp-mixed-precision-pipeline="compute-type=bf16 data-parallel=true grid-size=2 fp8=delayed fp8-amax-history-len=4" | FileCheck %s --check-prefix=PIPE

// The hidden layer's input, weight and output gradient: three amaxes, each
// reduced, then pushed.
// CHECK-LABEL: func.func @mlp3(
// CHECK:      %[[AX:.*]] = mp.amax %{{.*}} : tensor<2x16xf32>
// CHECK-NEXT: %[[RX:.*]] = shard.all_reduce %[[AX]] on @mp_data_parallel grid_axes = [0] reduction =  max : tensor<f32> -> tensor<f32>
// CHECK-NEXT: mp.amax_history_push %{{.*}}, %[[RX]] : tensor<4xf32>
// CHECK:      %[[AW:.*]] = mp.amax %{{.*}} : tensor<16x16xf32>
// CHECK-NEXT: %[[RW:.*]] = shard.all_reduce %[[AW]] on @mp_data_parallel grid_axes = [0] reduction =  max
// CHECK-NEXT: mp.amax_history_push %{{.*}}, %[[RW]] : tensor<4xf32>
// CHECK:      %[[AG:.*]] = mp.amax %{{.*}} : tensor<2x16xf32>
// CHECK-NEXT: %[[RG:.*]] = shard.all_reduce %[[AG]] on @mp_data_parallel grid_axes = [0] reduction =  max
// CHECK-NEXT: mp.amax_history_push %{{.*}}, %[[RG]] : tensor<4xf32>
// CHECK-NOT:  reduction =  max : tensor<f32>

// LOCAL-LABEL: func.func @mlp3(
// LOCAL:       mp.amax
// LOCAL-NOT:   reduction =  max : tensor<f32>
// LOCAL:       return

// PIPE-LABEL: func.func @mlp3(
// PIPE-COUNT-3: shard.all_reduce %{{.*}} on @mp_data_parallel grid_axes = [0] reduction =  max : tensor<f32> -> tensor<f32>
// PIPE-NOT:     reduction =  max : tensor<f32>
func.func @mlp3(%w1: tensor<16x8xf32> {mp.param}, %w2: tensor<16x16xf32> {mp.param},
                %b2: tensor<16xf32> {mp.param}, %w3: tensor<4x16xf32> {mp.param},
                %x: tensor<2x8xf32>, %y: tensor<2xi64>)
    -> (tensor<f32> {mp.loss}, tensor<16x8xf32> {mp.updates = 0 : i64},
        tensor<16x16xf32> {mp.updates = 1 : i64}, tensor<16xf32> {mp.updates = 2 : i64},
        tensor<4x16xf32> {mp.updates = 3 : i64}) {
  %h1 = mp.linear %x, %w1 acc(f32) : (tensor<2x8xf32>, tensor<16x8xf32>) -> tensor<2x16xf32>
  %a1 = mp.relu %h1 : tensor<2x16xf32>
  %h2 = mp.linear %a1, %w2, %b2 acc(f32) : (tensor<2x16xf32>, tensor<16x16xf32>, tensor<16xf32>) -> tensor<2x16xf32>
  %a2 = mp.relu %h2 : tensor<2x16xf32>
  %l = mp.linear %a2, %w3 acc(f32) : (tensor<2x16xf32>, tensor<4x16xf32>) -> tensor<2x4xf32>
  %loss = mp.cross_entropy %l, %y : tensor<2x4xf32>, tensor<2xi64>
  %g1, %g2, %gb2, %g3 = mp.grad %loss wrt %w1, %w2, %b2, %w3
      : tensor<f32>, tensor<16x8xf32>, tensor<16x16xf32>, tensor<16xf32>, tensor<4x16xf32>
  %n1 = mp.sgd %w1, %g1 {lr = 0.1 : f64} : tensor<16x8xf32>
  %n2 = mp.sgd %w2, %g2 {lr = 0.1 : f64} : tensor<16x16xf32>
  %nb2 = mp.sgd %b2, %gb2 {lr = 0.1 : f64} : tensor<16xf32>
  %n3 = mp.sgd %w3, %g3 {lr = 0.1 : f64} : tensor<4x16xf32>
  return %loss, %n1, %n2, %nb2, %n3
      : tensor<f32>, tensor<16x8xf32>, tensor<16x16xf32>, tensor<16xf32>, tensor<4x16xf32>
}
