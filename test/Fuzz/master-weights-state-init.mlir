// Generated-train-step finding 1 (tools/mp-fuzz/fuzz_train_steps.py,
// docs/Reliability.md "Generated train steps", seeds 5 and 25):
// mp-master-weights widened the optimizer state of an f16/bf16 parameter to
// f32 but kept its `mp.init` of the old element type, so the pass (and every
// mp-mixed-precision-pipeline) returned success with a function that does
// not verify ("'mp.init' on argument N must be a dense value of type
// 'tensor<..xf32>' or a scalar of its element type"). The initial value is
// now converted exactly to f32 with the state, scalar or dense.
// RUN: mp-opt %s -split-input-file --mp-master-weights | FileCheck %s
// RUN: mp-opt %s -split-input-file --mp-master-weights=style=stored-copy | FileCheck %s
// RUN: mp-opt %s -split-input-file --mp-mixed-precision-pipeline | FileCheck %s --check-prefix=PIPE

// CHECK-LABEL: func.func @scalar_init
// CHECK-SAME:    %{{.*}}: tensor<4xf32> {mp.param}
// CHECK-SAME:    %{{.*}}: tensor<4xf32> {mp.init = 2.500000e-01 : f32, mp.state = "adam.exp_avg"}
// CHECK-SAME:    %{{.*}}: tensor<4xf32> {mp.init = 0.000000e+00 : f32, mp.state = "adam.exp_avg_sq"}
// CHECK:         mp.adam %{{.*}} : tensor<4xf32>, tensor<i64>
// PIPE-LABEL: func.func @scalar_init
// PIPE-SAME:    tensor<4xf32> {mp.init = 2.500000e-01 : f32, mp.state = "adam.exp_avg"}
func.func @scalar_init(%w: tensor<4xbf16> {mp.param},
                       %m: tensor<4xbf16> {mp.init = 0.25 : bf16, mp.state = "adam.exp_avg"},
                       %v: tensor<4xbf16> {mp.init = 0.0 : bf16, mp.state = "adam.exp_avg_sq"},
                       %step: tensor<i64> {mp.state = "step"},
                       %t: tensor<4xbf16>)
    -> (tensor<bf16> {mp.loss}, tensor<4xbf16> {mp.updates = 0 : i64},
        tensor<4xbf16> {mp.updates = 1 : i64}, tensor<4xbf16> {mp.updates = 2 : i64},
        tensor<i64> {mp.updates = 3 : i64}) {
  %loss = mp.mse %w, %t : tensor<4xbf16>
  %g = mp.grad %loss wrt %w : tensor<bf16>, tensor<4xbf16>
  %one = arith.constant dense<1> : tensor<i64>
  %step1 = arith.addi %step, %one : tensor<i64>
  %w1, %m1, %v1 = mp.adam %w, %g, %m, %v, %step1 {lr = 1.0e-03 : f64}
      : tensor<4xbf16>, tensor<i64>
  return %loss, %w1, %m1, %v1, %step1
      : tensor<bf16>, tensor<4xbf16>, tensor<4xbf16>, tensor<4xbf16>, tensor<i64>
}

// -----

// CHECK-LABEL: func.func @dense_init
// CHECK-SAME:    %{{.*}}: tensor<2xf32> {mp.init = dense<[1.000000e+00, 6.550400e+04]> : tensor<2xf32>, mp.state = "sgd.momentum_buffer"}
// CHECK:         mp.sgd %{{.*}} momentum_buffer %{{.*}} : tensor<2xf32>, tensor<2xf32>
func.func @dense_init(%w: tensor<2xf16> {mp.param},
                      %buf: tensor<2xf16> {mp.init = dense<[1.0, 65504.0]> : tensor<2xf16>, mp.state = "sgd.momentum_buffer"},
                      %t: tensor<2xf16>)
    -> (tensor<f16> {mp.loss}, tensor<2xf16> {mp.updates = 0 : i64},
        tensor<2xf16> {mp.updates = 1 : i64}) {
  %loss = mp.mse %w, %t : tensor<2xf16>
  %g = mp.grad %loss wrt %w : tensor<f16>, tensor<2xf16>
  %w1, %buf1 = mp.sgd %w, %g momentum_buffer %buf
      {lr = 1.0e-01 : f64, momentum = 9.0e-01 : f64} : tensor<2xf16>, tensor<2xf16>
  return %loss, %w1, %buf1 : tensor<f16>, tensor<2xf16>, tensor<2xf16>
}
