// The random ops round-trip: custom form, generic form, and print -> parse ->
// print is a fixed point. The state of the custom form is tensor<2xi64>.
// RUN: mp-opt %s | mp-opt | FileCheck %s
// RUN: mp-opt %s -mlir-print-op-generic | mp-opt | FileCheck %s
// RUN: mp-opt %s > %t.1 && mp-opt %t.1 > %t.2 && diff %t.1 %t.2

// CHECK-LABEL: func.func @random
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<64x256xf16>, %[[S:[a-z0-9]+]]: tensor<2xi64>
func.func @random(%x: tensor<64x256xf16>, %s: tensor<2xi64> {mp.state = "rng", mp.init = dense<[42, 0]> : tensor<2xi64>},
                  %dy: tensor<4x8xbf16>)
    -> (tensor<64x256xf16>, tensor<4x8xbf16>, tensor<4x8xf32>, tensor<16xf16>, tensor<3xbf16>, tensor<1024xi32>, tensor<2xi64>) {
  // CHECK: %[[Y:[a-z_0-9]+]], %[[S1:[a-z_0-9]+]] = mp.dropout %[[X]], %[[S]] p(1.000000e-01) : tensor<64x256xf16>
  %y, %s1 = mp.dropout %x, %s p(0.1) : tensor<64x256xf16>
  // CHECK: mp.dropout_grad %{{.*}}, %[[S]] p(5.000000e-01) : tensor<4x8xbf16>
  %dx = mp.dropout_grad %dy, %s p(0.5) : tensor<4x8xbf16>
  // CHECK: %[[U:[a-z_0-9]+]], %[[S2:[a-z_0-9]+]] = mp.random_uniform %[[S1]] low(-1.000000e+00) high(2.000000e+00) : tensor<4x8xf32>
  %u, %s2 = mp.random_uniform %s1 low(-1.0) high(2.0) : tensor<4x8xf32>
  // Default bounds [0, 1) are not printed.
  // CHECK: mp.random_uniform %{{.*}} : tensor<16xf16>
  %v, %s3 = mp.random_uniform %s2 : tensor<16xf16>
  // CHECK: mp.random_normal %{{.*}} mean(1.000000e+00) std(2.000000e-02) : tensor<3xbf16>
  %n, %s4 = mp.random_normal %s3 mean(1.0) std(0.02) : tensor<3xbf16>
  // CHECK: mp.random_bits %{{.*}} : tensor<1024xi32>
  %b, %s5 = mp.random_bits %s4 : tensor<1024xi32>
  return %y, %dx, %u, %v, %n, %b, %s5 : tensor<64x256xf16>, tensor<4x8xbf16>, tensor<4x8xf32>, tensor<16xf16>, tensor<3xbf16>, tensor<1024xi32>, tensor<2xi64>
}

// CHECK-LABEL: func.func @normal_defaults
// CHECK: mp.random_normal %{{.*}} : tensor<8xf32>
func.func @normal_defaults(%s: tensor<2xi64>) -> (tensor<8xf32>, tensor<2xi64>) {
  %n, %s1 = mp.random_normal %s : tensor<8xf32>
  return %n, %s1 : tensor<8xf32>, tensor<2xi64>
}
