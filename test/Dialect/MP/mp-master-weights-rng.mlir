// mp-master-weights widens bf16 parameters and their optimizer state to f32
// masters but leaves forward state alone: the rng state stays
// tensor<2xi64> with its mp.init and its result, and the dropout runs on
// the bf16 working value.
// RUN: mp-opt %s --mp-master-weights | FileCheck %s

// CHECK-LABEL: func.func @step
// CHECK-SAME: %[[W:[a-z0-9]+]]: tensor<64xf32> {mp.param}
// CHECK-SAME: %[[S:[a-z0-9]+]]: tensor<2xi64> {mp.init = dense<[9, 0]> : tensor<2xi64>, mp.state = "rng"}
// CHECK-SAME: -> (tensor<bf16> {mp.loss}, tensor<64xf32> {mp.updates = 0 : i64}, tensor<2xi64> {mp.updates = 1 : i64})
// CHECK:      %[[WC:.*]] = mp.cast %[[W]] : tensor<64xf32> to tensor<64xbf16>
// CHECK:      %[[D:[a-z_0-9]+]], %[[S1:[a-z_0-9]+]] = mp.dropout %{{.*}}, %[[S]] p(5.000000e-01) : tensor<1x64xbf16>
// CHECK:      return %{{.*}}, %{{.*}}, %[[S1]] : tensor<bf16>, tensor<64xf32>, tensor<2xi64>
func.func @step(%w: tensor<64xbf16> {mp.param},
                %s: tensor<2xi64> {mp.state = "rng", mp.init = dense<[9, 0]> : tensor<2xi64>},
                %x: tensor<1x64xbf16>)
    -> (tensor<bf16> {mp.loss}, tensor<64xbf16> {mp.updates = 0 : i64},
        tensor<2xi64> {mp.updates = 1 : i64}) {
  %h = mp.mul %x, %w : tensor<1x64xbf16>, tensor<64xbf16>
  %d, %s1 = mp.dropout %h, %s p(0.5) : tensor<1x64xbf16>
  %loss = mp.reduce_sum %d dims [0, 1] : tensor<1x64xbf16>
  %g = mp.grad %loss wrt %w : tensor<bf16>, tensor<64xbf16>
  %w1 = mp.sgd %w, %g {lr = 0.1 : f64} : tensor<64xbf16>
  return %loss, %w1, %s1 : tensor<bf16>, tensor<64xbf16>, tensor<2xi64>
}
