// FP8 delayed scaling on the CPU, checked bit for bit against a reference
// computed from Transformer Engine's formula in Inputs/fp8_delayed_scaling.py.
// One FP8 layer (include-first-last: x and w in E4M3, the output gradient k
// in E5M2), amax history length 4, margin 1, 6 steps of SGD: after every step
// the three amax histories (the new amax at index 0, the oldest dropped) and
// the three scales ((fp8_max / max(history)) / 2^margin, f32) equal the
// reference, and so does the final weight, whose gradient is the FP8 matmul
// dequantised with 1/(s_dy · s_x).
// REQUIRES: numpy
// RUN: rm -rf %t && mkdir -p %t
// RUN: mp-opt %s --pass-pipeline='builtin.module(func.func(mp-autodiff),mp-fp8-scaling{include-first-last=true amax-history-len=4 margin=1})' -o %t/step.mlir
// RUN: %python %S/Inputs/fp8_delayed_scaling.py driver %t/step.mlir > %t/main.mlir
// RUN: mp-opt %t/main.mlir --mp-export-entry-points --convert-mp-to-linalg %lower_to_llvm | %mlir_runner > %t/out.txt
// RUN: %python %S/Inputs/fp8_delayed_scaling.py check %t/out.txt | FileCheck %s

// CHECK: step 1: history and scale of x, w, dy match
// CHECK: step 6: history and scale of x, w, dy match
// CHECK: final w matches
// CHECK: DELAYED SCALING MATCHES THE REFERENCE

func.func @train_step(%w: tensor<16x8xf32> {mp.param}, %x: tensor<4x8xf32>,
                      %k: tensor<4x16xf32>)
    -> (tensor<f32> {mp.loss}, tensor<16x8xf32> {mp.updates = 0 : i64}) {
  %y = mp.linear %x, %w acc(f32) : (tensor<4x8xf32>, tensor<16x8xf32>) -> tensor<4x16xf32>
  %yk = mp.mul %y, %k : tensor<4x16xf32>, tensor<4x16xf32>
  %loss = mp.reduce_sum %yk dims [0, 1] : tensor<4x16xf32>
  %g = mp.grad %loss wrt %w : tensor<f32>, tensor<16x8xf32>
  %w1 = mp.sgd %w, %g {lr = 0.125 : f64} : tensor<16x8xf32>
  return %loss, %w1 : tensor<f32>, tensor<16x8xf32>
}
