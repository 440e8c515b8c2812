// Folds of the random ops: p = 0 dropout is the identity and draws nothing
// (its state result is its state operand); p > 0 stays.
// RUN: mp-opt %s -canonicalize -cse -split-input-file | FileCheck %s

// CHECK-LABEL: func.func @dropout_p_zero
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<4x8xf16>, %[[S:[a-z0-9]+]]: tensor<2xi64>, %[[DY:[a-z0-9]+]]: tensor<4x8xf16>)
// CHECK-NEXT: return %[[X]], %[[S]], %[[DY]]
func.func @dropout_p_zero(%x: tensor<4x8xf16>, %s: tensor<2xi64>, %dy: tensor<4x8xf16>)
    -> (tensor<4x8xf16>, tensor<2xi64>, tensor<4x8xf16>) {
  %y, %s1 = mp.dropout %x, %s p(0.0) : tensor<4x8xf16>
  %dx = mp.dropout_grad %dy, %s p(0.0) : tensor<4x8xf16>
  return %y, %s1, %dx : tensor<4x8xf16>, tensor<2xi64>, tensor<4x8xf16>
}

// -----

// CHECK-LABEL: func.func @dropout_p_positive
// CHECK: mp.dropout %{{.*}}, %{{.*}} p(1.000000e-01)
// CHECK: mp.dropout_grad %{{.*}}, %{{.*}} p(1.000000e-01)
func.func @dropout_p_positive(%x: tensor<4xf32>, %s: tensor<2xi64>, %dy: tensor<4xf32>)
    -> (tensor<4xf32>, tensor<2xi64>, tensor<4xf32>) {
  %y, %s1 = mp.dropout %x, %s p(0.1) : tensor<4xf32>
  %dx = mp.dropout_grad %dy, %s p(0.1) : tensor<4xf32>
  return %y, %s1, %dx : tensor<4xf32>, tensor<2xi64>, tensor<4xf32>
}

// -----

// Two dropouts of one state are one value (pure functions); two draws from
// successive states are not.
// CHECK-LABEL: func.func @same_state_cse
// CHECK: %[[Y:[a-z_0-9]+]], %[[S1:[a-z_0-9]+]] = mp.dropout
// CHECK-NOT: mp.dropout
// CHECK: %[[U:[a-z_0-9]+]], %[[S2:[a-z_0-9]+]] = mp.random_uniform %[[S1]]
// CHECK: %[[V:[a-z_0-9]+]], %{{.*}} = mp.random_uniform %[[S2]]
func.func @same_state_cse(%x: tensor<4xf32>, %s: tensor<2xi64>)
    -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<2xi64>) {
  %y, %s1 = mp.dropout %x, %s p(0.5) : tensor<4xf32>
  %z, %t1 = mp.dropout %x, %s p(0.5) : tensor<4xf32>
  %u, %s2 = mp.random_uniform %s1 : tensor<4xf32>
  %v, %s3 = mp.random_uniform %s2 : tensor<4xf32>
  return %y, %z, %u, %v, %s3 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<2xi64>
}
