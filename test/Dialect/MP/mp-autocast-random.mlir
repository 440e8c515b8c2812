// mp-autocast and the random ops: mp.dropout and mp.dropout_grad are clear
// (PyTorch's CUDA autocast lists do not name dropout: it runs in the type
// that arrives, no cast either way); the samplers are exempt (their result
// type is the program's).
// RUN: mp-opt %s --mp-autocast | FileCheck %s
// RUN: mp-opt %s --mp-autocast="compute-type=bf16" | FileCheck %s

// CHECK-LABEL: func.func @f16_dropout
// CHECK-NOT:   mp.cast
// CHECK:       mp.dropout %{{.*}}, %{{.*}} p(1.000000e-01) : tensor<4x8xf16>
// CHECK-NOT:   mp.cast
// CHECK:       mp.dropout_grad %{{.*}}, %{{.*}} p(1.000000e-01) : tensor<4x8xf16>
// CHECK-NOT:   mp.cast
// CHECK:       mp.random_uniform %{{.*}} : tensor<4x8xf32>
// CHECK-NOT:   mp.cast
// CHECK:       return
func.func @f16_dropout(%h: tensor<4x8xf16>, %dy: tensor<4x8xf16>, %s: tensor<2xi64>)
    -> (tensor<4x8xf16>, tensor<4x8xf16>, tensor<4x8xf32>, tensor<2xi64>) {
  %d, %s1 = mp.dropout %h, %s p(0.1) : tensor<4x8xf16>
  %dx = mp.dropout_grad %dy, %s p(0.1) : tensor<4x8xf16>
  %u, %s2 = mp.random_uniform %s1 : tensor<4x8xf32>
  return %d, %dx, %u, %s2 : tensor<4x8xf16>, tensor<4x8xf16>, tensor<4x8xf32>, tensor<2xi64>
}

// An f32 dropout after an allow op (whose result stays f32) stays f32.
// CHECK-LABEL: func.func @after_linear
// CHECK:       %[[L:.*]] = mp.linear %{{.*}}, %{{.*}} acc(f32) : (tensor<4x8x{{bf16|f16}}>, tensor<8x8x{{bf16|f16}}>) -> tensor<4x8xf32>
// CHECK-NEXT:  mp.dropout %[[L]], %{{.*}} p(5.000000e-01) : tensor<4x8xf32>
func.func @after_linear(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>, %s: tensor<2xi64>)
    -> (tensor<4x8xf32>, tensor<2xi64>) {
  %h = mp.linear %x, %w acc(f32) : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %d, %s1 = mp.dropout %h, %s p(0.5) : tensor<4x8xf32>
  return %d, %s1 : tensor<4x8xf32>, tensor<2xi64>
}
