// RUN: mp-opt %s --mp-fold-out-param-copies -split-input-file | FileCheck %s

// An update computed in a [2, 4, 8] layout and returned as [8, 8] (what
// buffer-results-to-out-params leaves: a copy into the out-parameter at the
// end): the allocation becomes the out-parameter expanded to [2, 4, 8], the
// fill writes the result in place, the copy and the deallocation go.
// CHECK-LABEL: func.func @collapsed(
// CHECK-SAME:      %[[X:.*]]: memref<2x4x8xf32>, %[[OUT:.*]]: memref<8x8xf32>)
// CHECK-NEXT:    %[[VIEW:.*]] = memref.expand_shape %[[OUT]] {{\[}}[0, 1], [2]] output_shape [2, 4, 8] : memref<8x8xf32> into memref<2x4x8xf32>
// CHECK-NEXT:    %[[C:.*]] = arith.constant
// CHECK-NEXT:    linalg.fill ins(%[[C]] : f32) outs(%[[VIEW]] : memref<2x4x8xf32>)
// CHECK-NEXT:    linalg.add ins(%[[VIEW]], %[[X]] : memref<2x4x8xf32>, memref<2x4x8xf32>) outs(%[[VIEW]] : memref<2x4x8xf32>)
// CHECK-NEXT:    return
func.func @collapsed(%x: memref<2x4x8xf32>, %out: memref<8x8xf32>) {
  %a = memref.alloc() {alignment = 64 : i64} : memref<2x4x8xf32>
  %c = arith.constant 1.0 : f32
  linalg.fill ins(%c : f32) outs(%a : memref<2x4x8xf32>)
  linalg.add ins(%a, %x : memref<2x4x8xf32>, memref<2x4x8xf32>) outs(%a : memref<2x4x8xf32>)
  %r = memref.collapse_shape %a [[0, 1], [2]] : memref<2x4x8xf32> into memref<8x8xf32>
  memref.copy %r, %out : memref<8x8xf32> to memref<8x8xf32>
  memref.dealloc %a : memref<2x4x8xf32>
  return
}

// -----

// The other way round: computed as [16] and returned as [4, 4].
// CHECK-LABEL: func.func @expanded(
// CHECK-SAME:      %[[OUT:.*]]: memref<4x4xf32>)
// CHECK-NEXT:    %[[VIEW:.*]] = memref.collapse_shape %[[OUT]] {{\[}}[0, 1]] : memref<4x4xf32> into memref<16xf32>
// CHECK:         linalg.fill ins(%{{.*}} : f32) outs(%[[VIEW]] : memref<16xf32>)
// CHECK-NOT:     memref.copy
// CHECK:         return
func.func @expanded(%out: memref<4x4xf32>) {
  %a = memref.alloc() : memref<16xf32>
  %c = arith.constant 2.0 : f32
  linalg.fill ins(%c : f32) outs(%a : memref<16xf32>)
  %r = memref.expand_shape %a [[0, 1]] output_shape [4, 4] : memref<16xf32> into memref<4x4xf32>
  memref.copy %r, %out : memref<4x4xf32> to memref<4x4xf32>
  return
}

// -----

// Left alone: the allocation written after the copy (the result is the
// value at the copy), read after it through a view, the out-parameter used
// by something else too, a reshape of an argument (no allocation), a copy
// without a reshape (buffer-results-to-out-params' own business), and a
// dynamically shaped allocation.
// CHECK-LABEL: func.func @written_after(
// CHECK:         memref.alloc
// CHECK:         memref.copy
// CHECK-LABEL: func.func @read_after_through_view(
// CHECK:         memref.alloc
// CHECK:         memref.copy
// CHECK-LABEL: func.func @target_used(
// CHECK:         memref.alloc
// CHECK:         memref.copy
// CHECK-LABEL: func.func @argument_source(
// CHECK:         memref.copy
// CHECK-LABEL: func.func @no_reshape(
// CHECK:         memref.alloc
// CHECK:         memref.copy
// CHECK-LABEL: func.func @dynamic(
// CHECK-NOT:     memref.expand_shape
// CHECK:         memref.alloc
// CHECK:         memref.copy
func.func @written_after(%out: memref<8xf32>) {
  %a = memref.alloc() : memref<2x4xf32>
  %c = arith.constant 1.0 : f32
  linalg.fill ins(%c : f32) outs(%a : memref<2x4xf32>)
  %r = memref.collapse_shape %a [[0, 1]] : memref<2x4xf32> into memref<8xf32>
  memref.copy %r, %out : memref<8xf32> to memref<8xf32>
  linalg.fill ins(%c : f32) outs(%a : memref<2x4xf32>)
  return
}
func.func @read_after_through_view(%out: memref<8xf32>, %sink: memref<4xf32>) {
  %a = memref.alloc() : memref<2x4xf32>
  %c = arith.constant 1.0 : f32
  linalg.fill ins(%c : f32) outs(%a : memref<2x4xf32>)
  %v = memref.subview %a[0, 0] [1, 4] [1, 1] : memref<2x4xf32> to memref<4xf32, strided<[1]>>
  %r = memref.collapse_shape %a [[0, 1]] : memref<2x4xf32> into memref<8xf32>
  memref.copy %r, %out : memref<8xf32> to memref<8xf32>
  memref.copy %v, %sink : memref<4xf32, strided<[1]>> to memref<4xf32>
  return
}
func.func @target_used(%out: memref<8xf32>) -> f32 {
  %a = memref.alloc() : memref<2x4xf32>
  %c = arith.constant 1.0 : f32
  %i = arith.constant 0 : index
  linalg.fill ins(%c : f32) outs(%a : memref<2x4xf32>)
  %r = memref.collapse_shape %a [[0, 1]] : memref<2x4xf32> into memref<8xf32>
  memref.copy %r, %out : memref<8xf32> to memref<8xf32>
  %e = memref.load %out[%i] : memref<8xf32>
  return %e : f32
}
func.func @argument_source(%x: memref<2x4xf32>, %out: memref<8xf32>) {
  %r = memref.collapse_shape %x [[0, 1]] : memref<2x4xf32> into memref<8xf32>
  memref.copy %r, %out : memref<8xf32> to memref<8xf32>
  return
}
func.func @no_reshape(%out: memref<8xf32>) {
  %a = memref.alloc() : memref<8xf32>
  %c = arith.constant 1.0 : f32
  linalg.fill ins(%c : f32) outs(%a : memref<8xf32>)
  memref.copy %a, %out : memref<8xf32> to memref<8xf32>
  return
}
func.func @dynamic(%n: index, %out: memref<?xf32>) {
  %a = memref.alloc(%n) : memref<?x4xf32>
  %c = arith.constant 1.0 : f32
  linalg.fill ins(%c : f32) outs(%a : memref<?x4xf32>)
  %r = memref.collapse_shape %a [[0, 1]] : memref<?x4xf32> into memref<?xf32>
  memref.copy %r, %out : memref<?xf32> to memref<?xf32>
  return
}
