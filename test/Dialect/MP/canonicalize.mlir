// Folds and canonicalisations of the mp dialect: only the exact ones.
// RUN: mp-opt %s -canonicalize -split-input-file | FileCheck %s

// CHECK-LABEL: func.func @cast_same_type
// CHECK-SAME: (%[[X:.*]]: tensor<4xf16>)
// CHECK-NEXT: return %[[X]]
func.func @cast_same_type(%x: tensor<4xf16>) -> tensor<4xf16> {
  %0 = mp.cast %x : tensor<4xf16> to tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

// Widening then narrowing back to the original type is the identity.
// CHECK-LABEL: func.func @cast_widen_then_narrow_back
// CHECK-SAME: (%[[X:.*]]: tensor<4xf16>, %[[Y:.*]]: tensor<4xbf16>, %[[Z:.*]]: tensor<4xf8E4M3FN>)
// CHECK-NEXT: return %[[X]], %[[Y]], %[[Z]]
func.func @cast_widen_then_narrow_back(%x: tensor<4xf16>, %y: tensor<4xbf16>, %z: tensor<4xf8E4M3FN>)
    -> (tensor<4xf16>, tensor<4xbf16>, tensor<4xf8E4M3FN>) {
  %0 = mp.cast %x : tensor<4xf16> to tensor<4xf32>
  %1 = mp.cast %0 : tensor<4xf32> to tensor<4xf16>
  %2 = mp.cast %y : tensor<4xbf16> to tensor<4xf32>
  %3 = mp.cast %2 : tensor<4xf32> to tensor<4xbf16>
  %4 = mp.cast %z : tensor<4xf8E4M3FN> to tensor<4xf16>
  %5 = mp.cast %4 : tensor<4xf16> to tensor<4xf8E4M3FN>
  return %1, %3, %5 : tensor<4xf16>, tensor<4xbf16>, tensor<4xf8E4M3FN>
}

// -----

// Narrowing then widening rounds: f32 -> f16 -> f32 must stay.
// CHECK-LABEL: func.func @cast_round_trip_through_narrow_type_stays
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
// CHECK-NEXT: %[[H:.*]] = mp.cast %[[X]] : tensor<4xf32> to tensor<4xf16>
// CHECK-NEXT: %[[F:.*]] = mp.cast %[[H]] : tensor<4xf16> to tensor<4xf32>
// CHECK-NEXT: return %[[F]]
func.func @cast_round_trip_through_narrow_type_stays(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = mp.cast %x : tensor<4xf32> to tensor<4xf16>
  %1 = mp.cast %0 : tensor<4xf16> to tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

// f16 and bf16 do not contain each other: neither chain folds.
// CHECK-LABEL: func.func @cast_f16_bf16_chains_stay
// CHECK-COUNT-4: mp.cast
// CHECK-NOT: mp.cast
func.func @cast_f16_bf16_chains_stay(%x: tensor<4xf16>, %y: tensor<4xbf16>)
    -> (tensor<4xf16>, tensor<4xbf16>) {
  %0 = mp.cast %x : tensor<4xf16> to tensor<4xbf16>
  %1 = mp.cast %0 : tensor<4xbf16> to tensor<4xf16>
  %2 = mp.cast %y : tensor<4xbf16> to tensor<4xf16>
  %3 = mp.cast %2 : tensor<4xf16> to tensor<4xbf16>
  return %1, %3 : tensor<4xf16>, tensor<4xbf16>
}

// -----

// An exact first step rounds nothing: f16 -> f32 -> bf16 is f16 -> bf16, and
// the outer cast's saturate mode is kept.
// CHECK-LABEL: func.func @cast_exact_chain_shortens
// CHECK-SAME: (%[[X:.*]]: tensor<4xf16>)
// CHECK-NEXT: %[[B:.*]] = mp.cast %[[X]] : tensor<4xf16> to tensor<4xbf16>
// CHECK-NEXT: %[[Q:.*]] = mp.cast %[[X]] saturate : tensor<4xf16> to tensor<4xf8E4M3FN>
// CHECK-NEXT: return %[[B]], %[[Q]]
func.func @cast_exact_chain_shortens(%x: tensor<4xf16>) -> (tensor<4xbf16>, tensor<4xf8E4M3FN>) {
  %0 = mp.cast %x : tensor<4xf16> to tensor<4xf32>
  %1 = mp.cast %0 : tensor<4xf32> to tensor<4xbf16>
  %2 = mp.cast %0 saturate : tensor<4xf32> to tensor<4xf8E4M3FN>
  return %1, %2 : tensor<4xbf16>, tensor<4xf8E4M3FN>
}

// -----

// A rounding first step must stay: f32 -> f16 -> bf16 is not f32 -> bf16.
// CHECK-LABEL: func.func @cast_rounding_chain_stays
// CHECK: %[[H:.*]] = mp.cast %{{.*}} : tensor<4xf32> to tensor<4xf16>
// CHECK-NEXT: mp.cast %[[H]] : tensor<4xf16> to tensor<4xbf16>
func.func @cast_rounding_chain_stays(%x: tensor<4xf32>) -> tensor<4xbf16> {
  %0 = mp.cast %x : tensor<4xf32> to tensor<4xf16>
  %1 = mp.cast %0 : tensor<4xf16> to tensor<4xbf16>
  return %1 : tensor<4xbf16>
}

// -----

// CHECK-LABEL: func.func @scale_by_one
// CHECK-SAME: (%[[X:.*]]: tensor<4xf16>)
// CHECK-NEXT: return %[[X]]
func.func @scale_by_one(%x: tensor<4xf16>) -> tensor<4xf16> {
  %one = arith.constant dense<1.0> : tensor<f32>
  %0 = mp.scale %x by %one : tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

// Scaling by anything else, or by a value unknown at compile time, stays.
// CHECK-LABEL: func.func @scale_by_other_stays
// CHECK-COUNT-2: mp.scale
func.func @scale_by_other_stays(%x: tensor<4xf16>, %s: tensor<f32>) -> (tensor<4xf16>, tensor<4xf16>) {
  %c = arith.constant dense<65536.0> : tensor<f32>
  %0 = mp.scale %x by %c : tensor<4xf16>
  %1 = mp.scale %x by %s : tensor<4xf16>
  return %0, %1 : tensor<4xf16>, tensor<4xf16>
}

// -----

// CHECK-LABEL: func.func @reshape_and_broadcast
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
// CHECK-NEXT: %[[R:.*]] = mp.reshape %[[X]] : tensor<4x8xf32> to tensor<32xf32>
// CHECK-NEXT: return %[[X]], %[[R]], %[[X]]
func.func @reshape_and_broadcast(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<32xf32>, tensor<4x8xf32>) {
  %0 = mp.reshape %x : tensor<4x8xf32> to tensor<4x8xf32>
  %1 = mp.reshape %x : tensor<4x8xf32> to tensor<2x16xf32>
  %2 = mp.reshape %1 : tensor<2x16xf32> to tensor<32xf32>
  %3 = mp.broadcast %x : tensor<4x8xf32> to tensor<4x8xf32>
  return %0, %2, %3 : tensor<4x8xf32>, tensor<32xf32>, tensor<4x8xf32>
}

// -----

// select with a constant splat condition is the chosen operand when that has
// the result type; a broadcast operand stays selected.
// CHECK-LABEL: func.func @select_constant_condition
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>, %[[Y:.*]]: tensor<4xf32>, %[[S:.*]]: tensor<f32>)
// CHECK-NEXT: %[[F:.*]] = arith.constant dense<false> : tensor<4xi1>
// CHECK-NEXT: %[[B:.*]] = mp.select %[[F]], %[[X]], %[[S]]
// CHECK-NEXT: return %[[X]], %[[Y]], %[[B]]
func.func @select_constant_condition(%x: tensor<4xf32>, %y: tensor<4xf32>, %s: tensor<f32>)
    -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %t = arith.constant dense<true> : tensor<4xi1>
  %f = arith.constant dense<false> : tensor<4xi1>
  %0 = mp.select %t, %x, %y : tensor<4xi1>, tensor<4xf32>, tensor<4xf32>
  %1 = mp.select %f, %x, %y : tensor<4xi1>, tensor<4xf32>, tensor<4xf32>
  %2 = mp.select %f, %x, %s : tensor<4xi1>, tensor<4xf32>, tensor<f32>
  return %0, %1, %2 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// stop_gradient never folds away: mp-autodiff, which may run after
// canonicalisation, needs it.
// CHECK-LABEL: func.func @stop_gradient_stays
// CHECK-NEXT: %[[C:.*]] = mp.stop_gradient
// CHECK-NEXT: return %[[C]]
func.func @stop_gradient_stays(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = mp.stop_gradient %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
