// mp-precision-report on tensors whose byte size does not fit in 64 bits:
// the byte counts saturate at INT64_MAX instead of overflowing (signed
// overflow, which the ASan/UBSan build reports; docs/Reliability.md).
// RUN: mp-opt %s --mp-precision-report -o /dev/null | FileCheck %s

// CHECK: bytes                      f32        total
// CHECK-NEXT: parameters  9223372036854775807  9223372036854775807
// CHECK-NEXT: parameter copies
// CHECK-NEXT: gradients
// CHECK-NEXT: optimizer state   0
// CHECK-NEXT: activations
// CHECK-NEXT: total       9223372036854775807  9223372036854775807
func.func @step(%w: tensor<4611686018427387903xf32> {mp.param},
                %v: tensor<4611686018427387903xf32> {mp.param},
                %t: tensor<4611686018427387903xf32>) -> (tensor<f32> {mp.loss}) {
  %d = mp.sub %w, %v : tensor<4611686018427387903xf32>, tensor<4611686018427387903xf32>
  %loss = mp.mse %d, %t : tensor<4611686018427387903xf32>
  return %loss : tensor<f32>
}
