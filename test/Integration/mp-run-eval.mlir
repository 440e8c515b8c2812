// mp-run --eval calls the eval function over the test data: its mp.param
// arguments are the train step's parameters in order (here loaded, with no
// training step), its other argument a batch of inputs, its result the
// logits; the accuracy is that of their argmax. With batches of 2, the 5
// test samples take 3 batches, the last one padded. With npy data the test
// data is DIR/eval_inputs.npy and DIR/eval_labels.npy.
// REQUIRES: numpy

// RUN: rm -rf %t && mkdir -p %t/params %t/data
// RUN: %python -c "import numpy as np; np.save('%t/params/arg0.npy', np.array([[1, 0], [0, 1], [0, 0]], np.float32)); np.save('%t/data/arg1.npy', np.zeros((4, 2), np.float32)); np.save('%t/data/arg2.npy', np.zeros(4, np.int64)); np.save('%t/data/eval_inputs.npy', np.array([[1, 0], [0, 1], [-1, -1], [2, 1], [0, 3]], np.float32)); np.save('%t/data/eval_labels.npy', np.array([0, 1, 2, 1, 1], np.int64))"
// RUN: mp-run %s --function=train_step --load %t/params --data=npy:%t/data --steps 0 --eval --json %t/run.json | FileCheck %s
// RUN: FileCheck %s --input-file=%t/run.json --check-prefix=JSON
// CHECK: test accuracy: 80.00% (4/5)
// JSON: "eval": {"function": "predict", "correct": 4, "total": 5, "accuracy": 0.80000000000000004}

// The eval function's parameters must match the train step's.
// RUN: not mp-run %s --function=train_step --load %t/params --data=npy:%t/data --steps 0 --eval --eval-function=mismatched 2>&1 | FileCheck %s --check-prefix=MISMATCH
// MISMATCH: mp-run: error: parameter argument 0 of '@mismatched' (tensor<2x3xf32>) does not match parameter 0 of '@train_step'

// Random data has no test split.
// RUN: not mp-run %s --function=train_step --load %t/params --steps 0 --eval 2>&1 | FileCheck %s --check-prefix=RANDOM
// RANDOM: mp-run: error: --eval needs test data: --data=fashion-mnist[:DIR] or npy:DIR with eval_inputs.npy and eval_labels.npy

func.func @train_step(%w: tensor<3x2xf32> {mp.param}, %x: tensor<2x2xf32>,
                      %labels: tensor<2xi64>) -> (tensor<f32> {mp.loss}) {
  %logits = mp.linear %x, %w acc(f32)
      : (tensor<2x2xf32>, tensor<3x2xf32>) -> tensor<2x3xf32>
  %loss = mp.cross_entropy %logits, %labels : tensor<2x3xf32>, tensor<2xi64>
  return %loss : tensor<f32>
}

func.func @predict(%w: tensor<3x2xf32> {mp.param}, %x: tensor<2x2xf32>)
    -> tensor<2x3xf32> {
  %logits = mp.linear %x, %w acc(f32)
      : (tensor<2x2xf32>, tensor<3x2xf32>) -> tensor<2x3xf32>
  return %logits : tensor<2x3xf32>
}

func.func @mismatched(%w: tensor<2x3xf32> {mp.param}, %x: tensor<2x2xf32>)
    -> tensor<2x3xf32> {
  %y = mp.matmul %x, %w acc(f32)
      : tensor<2x2xf32>, tensor<2x3xf32> -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}
