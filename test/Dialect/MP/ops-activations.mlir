// select, compare, stop_gradient, the activations of MPActivationOps.td and
// their gradients, and the shape ops on integer tensors round-trip: custom
// form, generic form, and print -> parse -> print is a fixed point.
// RUN: mp-opt %s | mp-opt | FileCheck %s
// RUN: mp-opt %s -mlir-print-op-generic | mp-opt | FileCheck %s
// RUN: mp-opt %s > %t.1 && mp-opt %t.1 > %t.2 && diff %t.1 %t.2

// CHECK-LABEL: func.func @selection
func.func @selection(%c: tensor<4x8xi1>, %r: tensor<8xi1>, %x: tensor<4x8xf16>,
                     %s: tensor<f16>, %i: tensor<4x8xi64>, %j: tensor<8xi64>) {
  // CHECK: mp.select %{{.*}}, %{{.*}}, %{{.*}} : tensor<8xi1>, tensor<4x8xf16>, tensor<f16>
  %0 = mp.select %r, %x, %s : tensor<8xi1>, tensor<4x8xf16>, tensor<f16>
  // CHECK: mp.select %{{.*}}, %{{.*}}, %{{.*}} : tensor<4x8xi1>, tensor<4x8xi64>, tensor<8xi64>
  %1 = mp.select %c, %i, %j : tensor<4x8xi1>, tensor<4x8xi64>, tensor<8xi64>
  // CHECK: mp.compare gt, %{{.*}}, %{{.*}} : tensor<4x8xf16>, tensor<f16>
  %2 = mp.compare gt, %x, %s : tensor<4x8xf16>, tensor<f16>
  // CHECK: mp.compare ne, %{{.*}}, %{{.*}} : tensor<4x8xi64>, tensor<8xi64>
  %3 = mp.compare ne, %i, %j : tensor<4x8xi64>, tensor<8xi64>
  // CHECK: mp.compare eq, %{{.*}}, %{{.*}} : tensor<4x8xi1>, tensor<8xi1>
  %4 = mp.compare eq, %c, %r : tensor<4x8xi1>, tensor<8xi1>
  // CHECK: mp.stop_gradient %{{.*}} : tensor<4x8xf16>
  %5 = mp.stop_gradient %x : tensor<4x8xf16>
  return
}

// CHECK-LABEL: func.func @activations
func.func @activations(%x: tensor<4x8xbf16>, %dy: tensor<4x8xbf16>) {
  // CHECK: mp.clamp %{{.*}} min 0.000000e+00 max 6.000000e+00 hardtanh : tensor<4x8xbf16>
  %0 = mp.clamp %x min 0.0 max 6.0 hardtanh : tensor<4x8xbf16>
  // CHECK: mp.clamp %{{.*}} max 1.500000e+00 : tensor<4x8xbf16>
  %1 = mp.clamp %x max 1.5 : tensor<4x8xbf16>
  // CHECK: mp.silu %{{.*}} : tensor<4x8xbf16>
  %2 = mp.silu %x : tensor<4x8xbf16>
  // CHECK: mp.hardswish %{{.*}} : tensor<4x8xbf16>
  %3 = mp.hardswish %x : tensor<4x8xbf16>
  // CHECK: mp.hardsigmoid %{{.*}} : tensor<4x8xbf16>
  %4 = mp.hardsigmoid %x : tensor<4x8xbf16>
  // CHECK: mp.leaky_relu %{{.*}} negative_slope 2.000000e-01 : tensor<4x8xbf16>
  %5 = mp.leaky_relu %x negative_slope 2.0e-01 : tensor<4x8xbf16>
  // CHECK: mp.leaky_relu %{{.*}} : tensor<4x8xbf16>
  %6 = mp.leaky_relu %x : tensor<4x8xbf16>
  // CHECK: mp.erf %{{.*}} : tensor<4x8xbf16>
  %7 = mp.erf %x : tensor<4x8xbf16>
  // CHECK: mp.abs %{{.*}} : tensor<4x8xbf16>
  %8 = mp.abs %x : tensor<4x8xbf16>
  // CHECK: mp.clamp_grad %{{.*}}, %{{.*}} min -1.000000e+00 max 1.000000e+00 hardtanh : tensor<4x8xbf16>
  %g0 = mp.clamp_grad %dy, %x min -1.0 max 1.0 hardtanh : tensor<4x8xbf16>
  // CHECK: mp.clamp_grad %{{.*}}, %{{.*}} min 0.000000e+00 : tensor<4x8xbf16>
  %g1 = mp.clamp_grad %dy, %x min 0.0 : tensor<4x8xbf16>
  // CHECK: mp.silu_grad %{{.*}}, %{{.*}} : tensor<4x8xbf16>
  %g2 = mp.silu_grad %dy, %x : tensor<4x8xbf16>
  // CHECK: mp.hardswish_grad %{{.*}}, %{{.*}} : tensor<4x8xbf16>
  %g3 = mp.hardswish_grad %dy, %x : tensor<4x8xbf16>
  // CHECK: mp.hardsigmoid_grad %{{.*}}, %{{.*}} : tensor<4x8xbf16>
  %g4 = mp.hardsigmoid_grad %dy, %x : tensor<4x8xbf16>
  // CHECK: mp.leaky_relu_grad %{{.*}}, %{{.*}} negative_slope 2.000000e-01 : tensor<4x8xbf16>
  %g5 = mp.leaky_relu_grad %dy, %x negative_slope 2.0e-01 : tensor<4x8xbf16>
  // CHECK: mp.erf_grad %{{.*}}, %{{.*}} : tensor<4x8xbf16>
  %g6 = mp.erf_grad %dy, %x : tensor<4x8xbf16>
  // CHECK: mp.abs_grad %{{.*}}, %{{.*}} : tensor<4x8xbf16>
  %g7 = mp.abs_grad %dy, %x : tensor<4x8xbf16>
  return
}

// Shape ops accept i64, i32 and i1 tensors.
// CHECK-LABEL: func.func @integer_shapes
func.func @integer_shapes(%labels: tensor<2x8xi64>, %m: tensor<4x8xi1>,
                          %k: tensor<8xi32>) {
  // CHECK: mp.reshape %{{.*}} : tensor<2x8xi64> to tensor<16xi64>
  %0 = mp.reshape %labels : tensor<2x8xi64> to tensor<16xi64>
  // CHECK: mp.transpose %{{.*}} perm [1, 0] : tensor<4x8xi1>
  %1 = mp.transpose %m perm [1, 0] : tensor<4x8xi1>
  // CHECK: mp.slice %{{.*}} offsets [0, 2] sizes [2, 3] strides [1, 2] : tensor<2x8xi64>
  %2 = mp.slice %labels offsets [0, 2] sizes [2, 3] strides [1, 2] : tensor<2x8xi64>
  // CHECK: mp.concat %{{.*}}, %{{.*}} dim 0 : tensor<8xi32>, tensor<8xi32>
  %3 = mp.concat %k, %k dim 0 : tensor<8xi32>, tensor<8xi32>
  // CHECK: mp.broadcast %{{.*}} : tensor<8xi32> to tensor<3x8xi32>
  %4 = mp.broadcast %k : tensor<8xi32> to tensor<3x8xi32>
  return
}
