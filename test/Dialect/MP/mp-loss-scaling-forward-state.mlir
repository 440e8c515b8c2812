// RUN: mp-opt %s --mp-loss-scaling | FileCheck %s
// RUN: mp-opt %s --mp-loss-scaling="mode=static" | FileCheck %s

// Forward state (batch-norm statistics, the RNG state, schedule counters and
// `forward.*` kinds) advances on a skipped step, as in PyTorch, where
// GradScaler skips only optimizer.step(): mp-loss-scaling selects the old
// value only for parameters and optimizer-side state.

// CHECK-LABEL: func.func @step
// CHECK-SAME: (%[[W:[^:]*]]: tensor<4x3xf32> {mp.param}, %[[STEP:[^:]*]]: tensor<i64> {mp.state = "step"}, %[[RM:[^:]*]]: tensor<4xf32> {mp.state = "bn.running_mean"}, %[[RNG:[^:]*]]: tensor<2xi64> {mp.state = "rng"}, %[[LR:[^:]*]]: tensor<i64> {mp.state = "lr_scheduler.last_epoch"}, %[[F:[^:]*]]: tensor<f32> {mp.state = "forward.count"}, %[[O:[^:]*]]: tensor<f32> {mp.state = "ema"}
// CHECK: %[[OK:.*]] = mp.all_finite
// CHECK: %[[C:.*]] = tensor.extract %[[OK]][] : tensor<i1>
// CHECK-NEXT: %[[W2:.*]] = arith.select %[[C]], %{{.*}}, %[[W]] : tensor<4x3xf32>
// CHECK-NEXT: %[[STEP2:.*]] = arith.select %[[C]], %{{.*}}, %[[STEP]] : tensor<i64>
// CHECK-NEXT: %[[O2:.*]] = arith.select %[[C]], %[[O1:.*]], %[[O]] : tensor<f32>
// CHECK-NOT: arith.select
// CHECK: return %{{.*}}, %[[W2]], %[[STEP2]], %[[RM1:[^,]*]], %[[RNG1:[^,]*]], %[[LR1:[^,]*]], %[[F1:[^,]*]], %[[O2]],
func.func @step(%w: tensor<4x3xf32> {mp.param}, %step: tensor<i64> {mp.state = "step"},
                %rm: tensor<4xf32> {mp.state = "bn.running_mean"},
                %rng: tensor<2xi64> {mp.state = "rng"},
                %epoch: tensor<i64> {mp.state = "lr_scheduler.last_epoch"},
                %count: tensor<f32> {mp.state = "forward.count"},
                %ema: tensor<f32> {mp.state = "ema"},
                %x: tensor<2x3xf32>, %y: tensor<2xi64>)
    -> (tensor<f32> {mp.loss}, tensor<4x3xf32> {mp.updates = 0 : i64},
        tensor<i64> {mp.updates = 1 : i64}, tensor<4xf32> {mp.updates = 2 : i64},
        tensor<2xi64> {mp.updates = 3 : i64}, tensor<i64> {mp.updates = 4 : i64},
        tensor<f32> {mp.updates = 5 : i64}, tensor<f32> {mp.updates = 6 : i64}) {
  %l = mp.linear %x, %w acc(f32) : (tensor<2x3xf32>, tensor<4x3xf32>) -> tensor<2x4xf32>
  %mean = mp.reduce_mean %l dims [0] : tensor<2x4xf32>
  %rm1 = mp.add %rm, %mean : tensor<4xf32>, tensor<4xf32>
  %one = arith.constant dense<1> : tensor<2xi64>
  %rng1 = arith.addi %rng, %one : tensor<2xi64>
  %i1 = arith.constant dense<1> : tensor<i64>
  %epoch1 = arith.addi %epoch, %i1 : tensor<i64>
  %f1 = arith.constant dense<1.0> : tensor<f32>
  %count1 = arith.addf %count, %f1 : tensor<f32>
  %ema1 = arith.addf %ema, %f1 : tensor<f32>
  %loss = mp.cross_entropy %l, %y : tensor<2x4xf32>, tensor<2xi64>
  %g = mp.grad %loss wrt %w : tensor<f32>, tensor<4x3xf32>
  %step1 = arith.addi %step, %i1 : tensor<i64>
  %w1 = mp.sgd %w, %g {lr = 0.1 : f64} : tensor<4x3xf32>
  return %loss, %w1, %step1, %rm1, %rng1, %epoch1, %count1, %ema1
      : tensor<f32>, tensor<4x3xf32>, tensor<i64>, tensor<4xf32>, tensor<2xi64>,
        tensor<i64>, tensor<f32>, tensor<f32>
}
