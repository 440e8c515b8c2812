// mp-run --eval passes forward state to the eval function: its mp.state
// arguments of a forward kind (here the batch-norm running statistics) are
// the train step's state of the same kind, in order, after training. Two
// steps of a batch norm without parameters on the same batch: the running
// mean goes 0 → 0.1·m → 0.19·m and the running variance 1 → 0.9 + 0.1·v →
// 0.81 + 0.19·v (m, v the batch mean and unbiased variance per channel); the
// eval function's logits are the batch norm's output in eval mode, so the
// accuracy depends on the trained statistics. mp-run initialises
// bn.running_var to 1 without mp.init (PyTorch), and --save writes the forward
// state next to the parameters.
// REQUIRES: numpy

// RUN: rm -rf %t && mkdir -p %t/params %t/data
// RUN: %python -c "import numpy as np; np.save('%t/params/arg0.npy', np.ones((2,), np.float32)); x = np.array([[4, 0], [6, 2], [5, 1], [5, 1]], np.float32); np.save('%t/data/arg4.npy', np.concatenate([x, x])); np.save('%t/data/eval_inputs.npy', np.array([[1.5, 0.0], [0.0, 0.5], [0.9, 0.2]], np.float32)); np.save('%t/data/eval_labels.npy', np.array([0, 1, 1], np.int64))"
// RUN: mp-run %s --function=train_step --load %t/params --data=npy:%t/data --shuffle=false --steps 2 --eval --save %t/final | FileCheck %s
// RUN: %python -c "import numpy as np; print('mean', np.load('%t/final/arg1.npy').astype(float).round(5).tolist(), 'var', np.load('%t/final/arg2.npy').astype(float).round(5).tolist(), 'count', int(np.load('%t/final/arg3.npy')))" | FileCheck %s --check-prefix=STATS
// Batch means (5, 1), unbiased variances (2/3, 2/3).
// STATS: mean [0.95, 0.19] var [0.93667, 0.93667] count 2
// With the trained statistics, eval sample 0 ((1.5 − 0.95) vs (0 − 0.19)) is
// class 0, sample 1 class 1 and sample 2 ((0.9 − 0.95) vs (0.2 − 0.19))
// class 1: all 3 are right. With the initial statistics (0, 1) sample 2
// would be class 0 (0.9 vs 0.2).
// CHECK: test accuracy: 100.00% (3/3)

// Optimizer state cannot be passed to the eval function.
// RUN: not mp-run %s --function=train_step --load %t/params --data=npy:%t/data --steps 0 --eval --eval-function=takes_optimizer_state 2>&1 | FileCheck %s --check-prefix=OPT
// OPT: mp-run: error: argument 1 of '@takes_optimizer_state' is mp.state "sgd.momentum_buffer", which is not forward state; an eval function takes parameters, forward state (bn.*, rng, ...) and inputs

// More statistics of a kind than the train step has.
// RUN: not mp-run %s --function=train_step --load %t/params --data=npy:%t/data --steps 0 --eval --eval-function=two_means 2>&1 | FileCheck %s --check-prefix=COUNT
// COUNT: mp-run: error: argument 2 of '@two_means' is mp.state "bn.running_mean" number 1 of its kind, but '@train_step' has 1 state arguments of that kind

// A statistic of another shape.
// RUN: not mp-run %s --function=train_step --load %t/params --data=npy:%t/data --steps 0 --eval --eval-function=wrong_shape 2>&1 | FileCheck %s --check-prefix=SHAPE
// SHAPE: mp-run: error: argument 1 of '@wrong_shape' (tensor<3xf32>) does not match state argument 1 of '@train_step' (tensor<2xf32>), both "bn.running_mean"

func.func @train_step(%s: tensor<2xf32> {mp.param},
                      %rm: tensor<2xf32> {mp.state = "bn.running_mean"},
                      %rv: tensor<2xf32> {mp.state = "bn.running_var"},
                      %n: tensor<i64> {mp.state = "bn.num_batches_tracked"},
                      %x: tensor<4x2xf32>)
    -> (tensor<f32> {mp.loss}, tensor<2xf32> {mp.updates = 1 : i64},
        tensor<2xf32> {mp.updates = 2 : i64}, tensor<i64> {mp.updates = 3 : i64}) {
  %y, %rm1, %rv1, %n1 = mp.batch_norm %x stats(%rm, %rv, %n) training
      : (tensor<4x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<i64>)
      -> (tensor<4x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<i64>)
  %z = mp.mul %y, %s : tensor<4x2xf32>, tensor<2xf32>
  %loss = mp.reduce_sum %z dims [0, 1] : tensor<4x2xf32>
  return %loss, %rm1, %rv1, %n1 : tensor<f32>, tensor<2xf32>, tensor<2xf32>, tensor<i64>
}

func.func @predict(%s: tensor<2xf32> {mp.param},
                   %rm: tensor<2xf32> {mp.state = "bn.running_mean"},
                   %rv: tensor<2xf32> {mp.state = "bn.running_var"},
                   %n: tensor<i64> {mp.state = "bn.num_batches_tracked"},
                   %x: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %y:4 = mp.batch_norm %x stats(%rm, %rv, %n) eval
      : (tensor<2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<i64>)
      -> (tensor<2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<i64>)
  %z = mp.mul %y#0, %s : tensor<2x2xf32>, tensor<2xf32>
  return %z : tensor<2x2xf32>
}

func.func @takes_optimizer_state(%s: tensor<2xf32> {mp.param},
                                 %b: tensor<2xf32> {mp.state = "sgd.momentum_buffer"},
                                 %x: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %z = mp.mul %x, %s : tensor<2x2xf32>, tensor<2xf32>
  return %z : tensor<2x2xf32>
}

func.func @two_means(%s: tensor<2xf32> {mp.param},
                     %rm: tensor<2xf32> {mp.state = "bn.running_mean"},
                     %rm2: tensor<2xf32> {mp.state = "bn.running_mean"},
                     %x: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %z = mp.mul %x, %s : tensor<2x2xf32>, tensor<2xf32>
  return %z : tensor<2x2xf32>
}

func.func @wrong_shape(%s: tensor<2xf32> {mp.param},
                       %rm: tensor<3xf32> {mp.state = "bn.running_mean"},
                       %x: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %z = mp.mul %x, %s : tensor<2x2xf32>, tensor<2xf32>
  return %z : tensor<2x2xf32>
}
