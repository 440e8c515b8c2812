// RUN: mp-opt %s -split-input-file -verify-diagnostics --mp-autocast="allow=tensor.cast,tensor.extract" | FileCheck %s

// Pins autocast cannot honour fail the pass before anything changes.

func.func @pin_exempt(%x: tensor<4xf32>, %s: tensor<f32>) -> tensor<4xf32> {
  // expected-error @+1 {{'mp.precision' cannot pin 'mp.scale': autocast never changes training, precision and terminator ops}}
  %y = mp.scale %x by %s {mp.precision = "f16"} : tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

func.func @pin_region(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'mp.precision' cannot pin 'scf.execute_region': autocast never changes ops with regions}}
  %r = scf.execute_region -> tensor<4xf32> {
    scf.yield %x : tensor<4xf32>
  } {mp.precision = "f16"}
  return %r : tensor<4xf32>
}

// -----

func.func @pin_no_float(%i: tensor<4xi64>) -> tensor<4xi64> {
  // expected-error @+1 {{'mp.precision' cannot pin 'arith.addi': it has no float tensor operand}}
  %j = arith.addi %i, %i {mp.precision = "f16"} : tensor<4xi64>
  return %j : tensor<4xi64>
}

// -----

// Listed ops that cannot be rewritten are left as they are, with a warning:
// an operand that is not a statically shaped tensor (mp.cast needs one) ...
// CHECK-LABEL: func.func @dynamic_shape
// CHECK-NEXT: %[[C:.*]] = linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<?x4xf32>, tensor<4x2xf32>) outs(%{{.*}} : tensor<?x2xf32>) -> tensor<?x2xf32>
// CHECK-NEXT: return %[[C]]
func.func @dynamic_shape(%a: tensor<?x4xf32>, %b: tensor<4x2xf32>, %c: tensor<?x2xf32>) -> tensor<?x2xf32> {
  // expected-warning @+1 {{mp-autocast left this op in its original types: operand #0 of type 'tensor<?x4xf32>' is not a statically shaped f32, f16, bf16 or FP8 tensor}}
  %d = linalg.matmul ins(%a, %b : tensor<?x4xf32>, tensor<4x2xf32>) outs(%c : tensor<?x2xf32>) -> tensor<?x2xf32>
  return %d : tensor<?x2xf32>
}

// -----

// ... an op that does not verify in the new types (tensor.cast from f16 to
// a dynamically shaped f32 tensor): it is restored, and its cast removed ...
// CHECK-LABEL: func.func @does_not_verify
// CHECK-SAME: (%[[T:.*]]: tensor<4xf32>)
// CHECK-NEXT: %[[R:.*]] = tensor.cast %[[T]] : tensor<4xf32> to tensor<?xf32>
// CHECK-NEXT: return %[[R]]
func.func @does_not_verify(%t: tensor<4xf32>) -> tensor<?xf32> {
  // expected-warning @+1 {{mp-autocast left this op in its original types; running it in f16: 'tensor.cast' op operand type 'tensor<4xf16>' and result type 'tensor<?xf32>' are cast incompatible}}
  %r = tensor.cast %t : tensor<4xf32> to tensor<?xf32>
  return %r : tensor<?xf32>
}

// -----

// ... and an op whose result would become a scalar f16, which no mp.cast
// can give back to its f32 users.
// CHECK-LABEL: func.func @scalar_result
// CHECK-SAME: (%[[T:.*]]: tensor<4xf32>, %[[I:.*]]: index)
// CHECK-NEXT: %[[E:.*]] = tensor.extract %[[T]][%[[I]]] : tensor<4xf32>
// CHECK-NEXT: return %[[E]]
func.func @scalar_result(%t: tensor<4xf32>, %i: index) -> f32 {
  // expected-warning @+1 {{mp-autocast left this op in its original types; running it in f16: result #0 would change from f32 to f16, which mp.cast cannot convert back}}
  %e = tensor.extract %t[%i] : tensor<4xf32>
  return %e : f32
}
