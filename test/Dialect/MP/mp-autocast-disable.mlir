// RUN: mp-opt %s -split-input-file --mp-autocast | FileCheck %s
// RUN: mp-opt %s -split-input-file --mp-autocast -o %t
// RUN: mp-opt %t -split-input-file --mp-autocast | diff %t -

// `mp.autocast = false` on a function leaves its ops as written
// (torch.autocast(enabled=False)); `mp.autocast = true` on a region-holding
// op re-enables autocast inside, where `mp.autocast = false` on a single op
// disables it again. Values crossing the boundary are cast to what each side
// needs; the casts are placed after the values' definitions. An enabled
// matmul whose users all take f32 (a disabled op, a yield) returns f32.
// CHECK-LABEL: func.func @disabled_function
// CHECK-SAME: (%[[X:.*]]: tensor<4x4xf32>, %[[W:.*]]: tensor<4x4xf32>)
// CHECK-SAME: attributes {mp.autocast = false}
// CHECK-NEXT: %[[WH:.*]] = mp.cast %[[W]] : tensor<4x4xf32> to tensor<4x4xf16>
// CHECK-NEXT: %[[A:.*]] = mp.matmul %[[X]], %[[W]] acc(f32) : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
// CHECK-NEXT: %[[AH:.*]] = mp.cast %[[A]] : tensor<4x4xf32> to tensor<4x4xf16>
// CHECK-NEXT: %[[R:.*]] = scf.execute_region -> tensor<4x4xf32> {
// CHECK-NEXT:   %[[B:.*]] = mp.matmul %[[AH]], %[[WH]] acc(f32) : tensor<4x4xf16>, tensor<4x4xf16> -> tensor<4x4xf32>
// CHECK-NEXT:   %[[C:.*]] = mp.matmul %[[B]], %[[W]] acc(f32) {mp.autocast = false} : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
// CHECK-NEXT:   scf.yield %[[C]] : tensor<4x4xf32>
// CHECK-NEXT: } {mp.autocast = true}
// CHECK-NEXT: %[[S:.*]] = mp.softmax %[[R]] dim 1 : tensor<4x4xf32>
// CHECK-NEXT: return %[[R]], %[[S]]
func.func @disabled_function(%x: tensor<4x4xf32>, %w: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>)
    attributes {mp.autocast = false} {
  %a = mp.matmul %x, %w acc(f32) : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  %r = scf.execute_region -> tensor<4x4xf32> {
    %b = mp.matmul %a, %w acc(f32) : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
    %c = mp.matmul %b, %w acc(f32) {mp.autocast = false} : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
    scf.yield %c : tensor<4x4xf32>
  } {mp.autocast = true}
  %s = mp.softmax %r dim 1 : tensor<4x4xf32>
  return %r, %s : tensor<4x4xf32>, tensor<4x4xf32>
}

// -----

// A disabled region inside an enabled function, with an enabled region
// inside it. The disabled matmul keeps its f32 types (its `mp.precision` is
// not applied: disabling wins) and gets its input back in f32.
// CHECK-LABEL: func.func @disabled_region
// CHECK-SAME: (%[[X:.*]]: tensor<4x4xf32>, %[[W:.*]]: tensor<4x4xf32>)
// CHECK-NEXT: %[[XH:.*]] = mp.cast %[[X]] : tensor<4x4xf32> to tensor<4x4xf16>
// CHECK-NEXT: %[[WH:.*]] = mp.cast %[[W]] : tensor<4x4xf32> to tensor<4x4xf16>
// CHECK-NEXT: %[[A:.*]] = mp.matmul %[[XH]], %[[WH]] acc(f32) : tensor<4x4xf16>, tensor<4x4xf16> -> tensor<4x4xf32>
// CHECK-NEXT: %[[R:.*]] = scf.execute_region -> tensor<4x4xf32> {
// CHECK-NEXT:   %[[B:.*]] = mp.matmul %[[A]], %[[W]] acc(f32) {mp.precision = "f16"} : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
// CHECK-NEXT:   %[[BH:.*]] = mp.cast %[[B]] : tensor<4x4xf32> to tensor<4x4xf16>
// CHECK-NEXT:   %[[I:.*]] = scf.execute_region -> tensor<4x4xf32> {
// CHECK-NEXT:     %[[C:.*]] = mp.matmul %[[BH]], %[[WH]] acc(f32) : tensor<4x4xf16>, tensor<4x4xf16> -> tensor<4x4xf32>
// CHECK-NEXT:     scf.yield %[[C]] : tensor<4x4xf32>
// CHECK-NEXT:   } {mp.autocast = true}
// CHECK-NEXT:   scf.yield %[[I]] : tensor<4x4xf32>
// CHECK-NEXT: } {mp.autocast = false}
// CHECK-NEXT: %[[RH:.*]] = mp.cast %[[R]] : tensor<4x4xf32> to tensor<4x4xf16>
// CHECK-NEXT: %[[D:.*]] = mp.matmul %[[RH]], %[[WH]] acc(f32) : tensor<4x4xf16>, tensor<4x4xf16> -> tensor<4x4xf32>
// CHECK-NEXT: return %[[D]]
func.func @disabled_region(%x: tensor<4x4xf32>, %w: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %a = mp.matmul %x, %w acc(f32) : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  %r = scf.execute_region -> tensor<4x4xf32> {
    %b = mp.matmul %a, %w acc(f32) {mp.precision = "f16"} : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
    %inner = scf.execute_region -> tensor<4x4xf32> {
      %c = mp.matmul %b, %w acc(f32) : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
      scf.yield %c : tensor<4x4xf32>
    } {mp.autocast = true}
    scf.yield %inner : tensor<4x4xf32>
  } {mp.autocast = false}
  %d = mp.matmul %r, %w acc(f32) : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  return %d : tensor<4x4xf32>
}
