// RUN: mp-opt %s --mp-data-parallel='grid-size=2' | FileCheck %s

// Batch-norm running statistics are broadcast from process 0 before use, as
// DDP's broadcast_buffers=True: shard has no broadcast that lowers to MPI, so
// each float bn.* state is an all-reduce sum of (process 0 ? value : 0). The
// integer counter is the same on every process and is left alone, as are
// other kinds of state.

// CHECK-LABEL: func.func @step
// CHECK-SAME: (%[[W:[^:]*]]: tensor<4x12xf32> {mp.param}, %[[RM:[^:]*]]: tensor<3xf32> {mp.state = "bn.running_mean"}, %[[RV:[^:]*]]: tensor<3xf32> {mp.state = "bn.running_var"}, %[[N:[^:]*]]: tensor<i64> {mp.state = "bn.num_batches_tracked"}, %[[EMA:[^:]*]]: tensor<3xf32> {mp.state = "ema"}
// CHECK-NEXT: %[[IDX:.*]] = shard.process_linear_index on @mp_data_parallel : index
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[ROOT:.*]] = arith.cmpi eq, %[[IDX]], %[[ZERO]] : index
// CHECK-NEXT: %[[Z1:.*]] = arith.constant dense<0.000000e+00> : tensor<3xf32>
// CHECK-NEXT: %[[M1:.*]] = arith.select %[[ROOT]], %[[RM]], %[[Z1]] : tensor<3xf32>
// CHECK-NEXT: %[[RM0:.*]] = shard.all_reduce %[[M1]] on @mp_data_parallel grid_axes = [0] : tensor<3xf32> -> tensor<3xf32>
// CHECK-NEXT: %[[Z2:.*]] = arith.constant dense<0.000000e+00> : tensor<3xf32>
// CHECK-NEXT: %[[M2:.*]] = arith.select %[[ROOT]], %[[RV]], %[[Z2]] : tensor<3xf32>
// CHECK-NEXT: %[[RV0:.*]] = shard.all_reduce %[[M2]] on @mp_data_parallel grid_axes = [0] : tensor<3xf32> -> tensor<3xf32>
// CHECK-NEXT: mp.batch_norm %{{.*}} stats(%[[RM0]], %[[RV0]], %[[N]]) training
// CHECK-NOT:  arith.select %[[ROOT]]
// CHECK:      arith.addf %[[EMA]]
func.func @step(%w: tensor<4x12xf32> {mp.param},
                %rm: tensor<3xf32> {mp.state = "bn.running_mean"},
                %rv: tensor<3xf32> {mp.state = "bn.running_var"},
                %n: tensor<i64> {mp.state = "bn.num_batches_tracked"},
                %ema: tensor<3xf32> {mp.state = "ema"},
                %x: tensor<2x3x2x2xf32>, %y: tensor<2xi64>)
    -> (tensor<f32> {mp.loss}, tensor<4x12xf32> {mp.updates = 0 : i64},
        tensor<3xf32> {mp.updates = 1 : i64}, tensor<3xf32> {mp.updates = 2 : i64},
        tensor<i64> {mp.updates = 3 : i64}, tensor<3xf32> {mp.updates = 4 : i64}) {
  %h, %rm1, %rv1, %n1 = mp.batch_norm %x stats(%rm, %rv, %n) training
      : (tensor<2x3x2x2xf32>, tensor<3xf32>, tensor<3xf32>, tensor<i64>)
      -> (tensor<2x3x2x2xf32>, tensor<3xf32>, tensor<3xf32>, tensor<i64>)
  %f = mp.reshape %h : tensor<2x3x2x2xf32> to tensor<2x12xf32>
  %l = mp.linear %f, %w acc(f32) : (tensor<2x12xf32>, tensor<4x12xf32>) -> tensor<2x4xf32>
  %loss = mp.cross_entropy %l, %y : tensor<2x4xf32>, tensor<2xi64>
  %g = mp.grad %loss wrt %w : tensor<f32>, tensor<4x12xf32>
  %w1 = mp.sgd %w, %g {lr = 0.1 : f64} : tensor<4x12xf32>
  %ema1 = arith.addf %ema, %rm1 : tensor<3xf32>
  return %loss, %w1, %rm1, %rv1, %n1, %ema1
      : tensor<f32>, tensor<4x12xf32>, tensor<3xf32>, tensor<3xf32>, tensor<i64>, tensor<3xf32>
}
