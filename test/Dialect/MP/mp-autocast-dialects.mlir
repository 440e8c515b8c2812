// RUN: mp-opt %s -split-input-file --allow-unregistered-dialect --mp-autocast=allow=mydialect.attention | FileCheck %s
// RUN: mp-opt %s -split-input-file --allow-unregistered-dialect --mp-autocast=allow=mydialect.attention -mlir-print-op-generic | FileCheck %s --check-prefix=BODY
// RUN: mp-opt %s -split-input-file --allow-unregistered-dialect --mp-autocast=allow=mydialect.attention -o %t
// RUN: mp-opt %t -split-input-file --allow-unregistered-dialect --mp-autocast=allow=mydialect.attention | diff %t -

// Ops of other dialects, by name. linalg.matmul and linalg.batch_matmul are
// allow ops by default: their `ins` are cast to f16; the `outs` accumulator
// (and so the result) keeps f32: D = A×B + C with f32 accumulation.
// CHECK-LABEL: func.func @linalg
// CHECK-SAME: (%[[A:.*]]: tensor<8x4xf32>, %[[B:.*]]: tensor<4x2xf32>, %[[QA:.*]]: tensor<2x8x4xf32>, %[[QB:.*]]: tensor<2x4x8xf32>)
// CHECK-NEXT: %[[AH:.*]] = mp.cast %[[A]] : tensor<8x4xf32> to tensor<8x4xf16>
// CHECK-NEXT: %[[BH:.*]] = mp.cast %[[B]] : tensor<4x2xf32> to tensor<4x2xf16>
// CHECK-NEXT: %[[QAH:.*]] = mp.cast %[[QA]] : tensor<2x8x4xf32> to tensor<2x8x4xf16>
// CHECK-NEXT: %[[QBH:.*]] = mp.cast %[[QB]] : tensor<2x4x8xf32> to tensor<2x4x8xf16>
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %[[INIT:.*]] = tensor.empty() : tensor<8x2xf32>
// CHECK-NEXT: %[[ACC:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[INIT]] : tensor<8x2xf32>) -> tensor<8x2xf32>
// CHECK-NEXT: %[[C:.*]] = linalg.matmul ins(%[[AH]], %[[BH]] : tensor<8x4xf16>, tensor<4x2xf16>) outs(%[[ACC]] : tensor<8x2xf32>) -> tensor<8x2xf32>
// CHECK-NEXT: %[[BINIT:.*]] = tensor.empty() : tensor<2x8x8xf32>
// CHECK-NEXT: %[[BACC:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[BINIT]] : tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
// CHECK-NEXT: %[[D:.*]] = linalg.batch_matmul ins(%[[QAH]], %[[QBH]] : tensor<2x8x4xf16>, tensor<2x4x8xf16>) outs(%[[BACC]] : tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
// CHECK-NEXT: return %[[C]], %[[D]]

// The body follows: f16 arguments widened to f32 before the f32
// multiply-accumulate, as linalg builds it for mixed operand types.
// BODY-LABEL: "func.func"
// BODY: "linalg.matmul"
// BODY-NEXT: ^bb0(%[[IN0:.*]]: f16, %[[IN1:.*]]: f16, %[[OUT:.*]]: f32):
// BODY-NEXT: %[[E0:.*]] = "arith.extf"(%[[IN0]]) : (f16) -> f32
// BODY-NEXT: %[[E1:.*]] = "arith.extf"(%[[IN1]]) : (f16) -> f32
// BODY-NEXT: %[[M:.*]] = "arith.mulf"(%[[E0]], %[[E1]])
// BODY-NEXT: %[[S:.*]] = "arith.addf"(%[[OUT]], %[[M]])
// BODY-NEXT: "linalg.yield"(%[[S]]) : (f32) -> ()
// BODY-NEXT: }) : (tensor<8x4xf16>, tensor<4x2xf16>, tensor<8x2xf32>) -> tensor<8x2xf32>
func.func @linalg(%a: tensor<8x4xf32>, %b: tensor<4x2xf32>, %qa: tensor<2x8x4xf32>, %qb: tensor<2x4x8xf32>)
    -> (tensor<8x2xf32>, tensor<2x8x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<8x2xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<8x2xf32>) -> tensor<8x2xf32>
  %c = linalg.matmul ins(%a, %b : tensor<8x4xf32>, tensor<4x2xf32>) outs(%acc : tensor<8x2xf32>) -> tensor<8x2xf32>
  %binit = tensor.empty() : tensor<2x8x8xf32>
  %bacc = linalg.fill ins(%zero : f32) outs(%binit : tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
  %d = linalg.batch_matmul ins(%qa, %qb : tensor<2x8x4xf32>, tensor<2x4x8xf32>) outs(%bacc : tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
  return %c, %d : tensor<8x2xf32>, tensor<2x8x8xf32>
}

// -----

// An unregistered op put in the allow list (allow=mydialect.attention) runs
// in f16 with an f16 result; an unregistered op in no list is left as it is
// and gets its operand back in f32.
// CHECK-LABEL: func.func @unregistered
// CHECK-SAME: (%[[Q:.*]]: tensor<4x8xf32>, %[[K:.*]]: tensor<4x8xf32>, %[[W:.*]]: tensor<8x8xf32>)
// CHECK-NEXT: %[[QH:.*]] = mp.cast %[[Q]] : tensor<4x8xf32> to tensor<4x8xf16>
// CHECK-NEXT: %[[WH:.*]] = mp.cast %[[W]] : tensor<8x8xf32> to tensor<8x8xf16>
// CHECK-NEXT: %[[KH:.*]] = mp.cast %[[K]] : tensor<4x8xf32> to tensor<4x8xf16>
// CHECK-NEXT: %[[Y:.*]] = mp.matmul %[[QH]], %[[WH]] acc(f32) : tensor<4x8xf16>, tensor<8x8xf16> -> tensor<4x8xf16>
// CHECK-NEXT: %[[Y32:.*]] = mp.cast %[[Y]] : tensor<4x8xf16> to tensor<4x8xf32>
// CHECK-NEXT: %[[S:.*]] = "mydialect.attention"(%[[Y]], %[[KH]]) : (tensor<4x8xf16>, tensor<4x8xf16>) -> tensor<4x4xf16>
// CHECK-NEXT: %[[S32:.*]] = mp.cast %[[S]] : tensor<4x4xf16> to tensor<4x4xf32>
// CHECK-NEXT: %[[U:.*]] = "mydialect.unknown"(%[[Y32]]) : (tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: return %[[S32]], %[[U]]
func.func @unregistered(%q: tensor<4x8xf32>, %k: tensor<4x8xf32>, %w: tensor<8x8xf32>) -> (tensor<4x4xf32>, tensor<4x8xf32>) {
  %y = mp.matmul %q, %w acc(f32) : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  %s = "mydialect.attention"(%y, %k) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x4xf32>
  %u = "mydialect.unknown"(%y) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %s, %u : tensor<4x4xf32>, tensor<4x8xf32>
}
