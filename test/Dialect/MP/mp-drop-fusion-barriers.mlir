// RUN: mp-opt %s --mp-drop-fusion-barriers -split-input-file | FileCheck %s
// RUN: mp-opt %s --mp-drop-fusion-barriers --one-shot-bufferize="bufferize-function-boundaries" -split-input-file | FileCheck %s --check-prefix=BUF

// A marked barrier between a transposing copy and the product reading it:
// the product reads the copy's result itself, and bufferized nothing copies.
// CHECK-LABEL: func.func @barrier
// CHECK-SAME: (%[[A:.*]]: tensor<8x16xf32>, %[[B:.*]]: tensor<4x16xf32>)
// CHECK: %[[T:.*]] = linalg.transpose ins(%[[B]] : tensor<4x16xf32>)
// CHECK-NOT: bufferization.alloc_tensor
// CHECK: linalg.matmul ins(%[[A]], %[[T]] : tensor<8x16xf32>, tensor<16x4xf32>)
// BUF-LABEL: func.func @barrier
// BUF-NOT: memref.copy
// BUF: return
func.func @barrier(%a: tensor<8x16xf32>, %b: tensor<4x16xf32>) -> tensor<8x4xf32> {
  %e = tensor.empty() : tensor<16x4xf32>
  %t = linalg.transpose ins(%b : tensor<4x16xf32>) outs(%e : tensor<16x4xf32>) permutation = [1, 0]
  %barrier = bufferization.alloc_tensor() copy(%t) {mp.fusion_barrier} : tensor<16x4xf32>
  %zero = arith.constant 0.0 : f32
  %e2 = tensor.empty() : tensor<8x4xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e2 : tensor<8x4xf32>) -> tensor<8x4xf32>
  %r = linalg.matmul ins(%a, %barrier : tensor<8x16xf32>, tensor<16x4xf32>) outs(%acc : tensor<8x4xf32>) -> tensor<8x4xf32>
  return %r : tensor<8x4xf32>
}

// -----

// An alloc_tensor copy without the mark is a copy someone asked for: kept.
// CHECK-LABEL: func.func @unmarked
// CHECK: %[[C:.*]] = bufferization.alloc_tensor() copy(%{{.*}}) : tensor<4xf32>
// CHECK: return %[[C]]
// BUF-LABEL: func.func @unmarked
// BUF: memref.copy
func.func @unmarked(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c = bufferization.alloc_tensor() copy(%x) : tensor<4xf32>
  return %c : tensor<4xf32>
}

// -----

// A barrier whose source another op then writes in place: the tensor value
// is the same, and bufferization gives the write a buffer of its own.
// CHECK-LABEL: func.func @written_after
// CHECK-NOT: bufferization.alloc_tensor
// CHECK: %[[W:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[X:.*]] : tensor<4xf32>)
// CHECK: return %[[X]], %[[W]]
// BUF-LABEL: func.func @written_after
// BUF-SAME: (%[[ARG:.*]]: memref<4xf32, strided<[?], offset: ?>>)
// BUF: %[[NEW:.*]] = memref.alloc() {{.*}} : memref<4xf32>
// BUF: linalg.fill ins(%{{.*}} : f32) outs(%[[NEW]] : memref<4xf32>)
// BUF: return %[[ARG]], %[[NEW]]
func.func @written_after(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %b = bufferization.alloc_tensor() copy(%x) {mp.fusion_barrier} : tensor<4xf32>
  %one = arith.constant 1.0 : f32
  %w = linalg.fill ins(%one : f32) outs(%x : tensor<4xf32>) -> tensor<4xf32>
  return %b, %w : tensor<4xf32>, tensor<4xf32>
}
