// RUN: mp-opt %s --mp-rematerialize-fills -split-input-file | FileCheck %s
// RUN: mp-opt %s --mp-rematerialize-fills --one-shot-bufferize -split-input-file | FileCheck %s --check-prefix=BUF
// RUN: mp-opt %s --mp-rematerialize-fills=destinations-per-empty=2 -split-input-file | FileCheck %s --check-prefix=RUN2

// A zero accumulator CSE shared between two contractions: the second gets
// its own fill (of its own tensor.empty) right after the first, so
// bufferization copies nothing (BUF).
// CHECK-LABEL: func.func @shared_accumulator(
// CHECK:         %[[E:.*]] = tensor.empty() : tensor<4x16xf32>
// CHECK-NEXT:    %[[Z:.*]] = linalg.fill ins(%[[C:.*]] : f32) outs(%[[E]] : tensor<4x16xf32>)
// CHECK-NEXT:    %[[E2:.*]] = tensor.empty() : tensor<4x16xf32>
// CHECK-NEXT:    %[[Z2:.*]] = linalg.fill ins(%[[C]] : f32) outs(%[[E2]] : tensor<4x16xf32>)
// CHECK-NEXT:    %[[A:.*]] = linalg.matmul {{.*}} outs(%[[Z]] : tensor<4x16xf32>)
// CHECK-NEXT:    %[[B:.*]] = linalg.matmul {{.*}} outs(%[[Z2]] : tensor<4x16xf32>)
// BUF-LABEL: func.func @shared_accumulator(
// BUF-NOT:     memref.copy
// BUF:         return
func.func @shared_accumulator(%x: tensor<4x8xf32>, %y: tensor<8x16xf32>, %u: tensor<4x8xf32>) -> (tensor<4x16xf32>, tensor<4x16xf32>) {
  %c0 = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x16xf32>
  %z = linalg.fill ins(%c0 : f32) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  %a = linalg.matmul ins(%x, %y : tensor<4x8xf32>, tensor<8x16xf32>) outs(%z : tensor<4x16xf32>) -> tensor<4x16xf32>
  %b = linalg.matmul ins(%u, %y : tensor<4x8xf32>, tensor<8x16xf32>) outs(%z : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %a, %b : tensor<4x16xf32>, tensor<4x16xf32>
}

// -----

// The tiled form of a fill (mp-tile-and-vectorize): a loop writing a
// constant vector into a tensor.empty. A use that only reads the fill keeps
// the original; each destination (here a loop's initial value and a DPS
// init) gets a clone.
// CHECK-LABEL: func.func @tiled_fill_and_reader(
// CHECK:         %[[E:.*]] = tensor.empty() : tensor<32xf32>
// CHECK-NEXT:    %[[Z:.*]] = scf.for {{.*}} iter_args(%{{.*}} = %[[E]])
// CHECK:         %[[E2:.*]] = tensor.empty() : tensor<32xf32>
// CHECK-NEXT:    %[[Z2:.*]] = scf.for {{.*}} iter_args(%{{.*}} = %[[E2]])
// CHECK:         %[[E3:.*]] = tensor.empty() : tensor<32xf32>
// CHECK-NEXT:    %[[Z3:.*]] = scf.for {{.*}} iter_args(%{{.*}} = %[[E3]])
// CHECK:         linalg.generic {{.*}} ins(%[[Z]], %{{.*}} : tensor<32xf32>, tensor<32xf32>) outs(%[[Z2]] : tensor<32xf32>)
// CHECK:         scf.for {{.*}} iter_args(%{{.*}} = %[[Z3]])
// BUF-LABEL: func.func @tiled_fill_and_reader(
// BUF-NOT:     memref.copy
// BUF:         return
func.func @tiled_fill_and_reader(%x: tensor<32xf32>) -> (tensor<32xf32>, tensor<32xf32>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %cst = arith.constant dense<0.0> : vector<16xf32>
  %cst_s = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32xf32>
  %z = scf.for %i = %c0 to %c32 step %c16 iter_args(%t = %e) -> tensor<32xf32> {
    %w = vector.transfer_write %cst, %t[%i] {in_bounds = [true]} : vector<16xf32>, tensor<32xf32>
    scf.yield %w : tensor<32xf32>
  }
  %s = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%z, %x : tensor<32xf32>, tensor<32xf32>) outs(%z : tensor<32xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.addf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<32xf32>
  %l = scf.for %i = %c0 to %c32 step %c16 iter_args(%t = %z) -> tensor<32xf32> {
    %v = vector.transfer_read %x[%i], %cst_s {in_bounds = [true]} : tensor<32xf32>, vector<16xf32>
    %w = vector.transfer_write %v, %t[%i] {in_bounds = [true]} : vector<16xf32>, tensor<32xf32>
    scf.yield %w : tensor<32xf32>
  }
  return %s, %l : tensor<32xf32>, tensor<32xf32>
}

// -----

// Not fills: a loop that writes a value it reads from another tensor, and a
// fill of a non-constant (into an alloc_tensor), stay shared (bufferization
// copies them).
// CHECK-LABEL: func.func @not_fills(
// CHECK-COUNT-1: tensor.empty
// CHECK-NOT:     tensor.empty
func.func @not_fills(%x: tensor<32xf32>, %f: f32, %y: tensor<4x8xf32>, %w: tensor<8x16xf32>) -> (tensor<32xf32>, tensor<32xf32>, tensor<4x16xf32>, tensor<4x16xf32>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %pad = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32xf32>
  %z = scf.for %i = %c0 to %c32 step %c16 iter_args(%t = %e) -> tensor<32xf32> {
    %v = vector.transfer_read %x[%i], %pad {in_bounds = [true]} : tensor<32xf32>, vector<16xf32>
    %u = vector.transfer_write %v, %t[%i] {in_bounds = [true]} : vector<16xf32>, tensor<32xf32>
    scf.yield %u : tensor<32xf32>
  }
  %a = linalg.copy ins(%x : tensor<32xf32>) outs(%z : tensor<32xf32>) -> tensor<32xf32>
  %b = linalg.copy ins(%x : tensor<32xf32>) outs(%z : tensor<32xf32>) -> tensor<32xf32>
  %g = bufferization.alloc_tensor() : tensor<4x16xf32>
  %h = linalg.fill ins(%f : f32) outs(%g : tensor<4x16xf32>) -> tensor<4x16xf32>
  %m = linalg.matmul ins(%y, %w : tensor<4x8xf32>, tensor<8x16xf32>) outs(%h : tensor<4x16xf32>) -> tensor<4x16xf32>
  %n = linalg.matmul ins(%y, %w : tensor<4x8xf32>, tensor<8x16xf32>) outs(%h : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %a, %b, %m, %n : tensor<32xf32>, tensor<32xf32>, tensor<4x16xf32>, tensor<4x16xf32>
}

// -----

// A fill reshaped once and the reshape shared (as CSE leaves a packed
// contraction's expanded accumulators): each further destination gets its
// own fill and its own reshape, the reader keeps the original.
// CHECK-LABEL: func.func @shared_reshape(
// CHECK:         %[[E:.*]] = tensor.empty() : tensor<4x16xf32>
// CHECK-NEXT:    %[[Z:.*]] = linalg.fill ins(%[[C:.*]] : f32) outs(%[[E]] : tensor<4x16xf32>)
// CHECK-NEXT:    %[[E2:.*]] = tensor.empty() : tensor<4x16xf32>
// CHECK-NEXT:    %[[Z2:.*]] = linalg.fill ins(%[[C]] : f32) outs(%[[E2]] : tensor<4x16xf32>)
// CHECK-NEXT:    %[[E3:.*]] = tensor.empty() : tensor<4x16xf32>
// CHECK-NEXT:    %[[Z3:.*]] = linalg.fill ins(%[[C]] : f32) outs(%[[E3]] : tensor<4x16xf32>)
// CHECK-NEXT:    %[[R:.*]] = tensor.expand_shape %[[Z]] {{\[\[}}0, 1], [2]] output_shape [2, 2, 16]
// CHECK-NEXT:    %[[R2:.*]] = tensor.expand_shape %[[Z2]] {{\[\[}}0, 1], [2]] output_shape [2, 2, 16]
// CHECK-NEXT:    %[[R3:.*]] = tensor.expand_shape %[[Z3]] {{\[\[}}0, 1], [2]] output_shape [2, 2, 16]
// CHECK-NEXT:    linalg.batch_matmul {{.*}} outs(%[[R2]] : tensor<2x2x16xf32>)
// CHECK-NEXT:    linalg.batch_matmul {{.*}} outs(%[[R3]] : tensor<2x2x16xf32>)
// CHECK-NEXT:    linalg.add ins(%[[R]], %{{.*}} : tensor<2x2x16xf32>, tensor<2x2x16xf32>) outs(%{{.*}} : tensor<2x2x16xf32>)
// BUF-LABEL: func.func @shared_reshape(
// BUF-NOT:     memref.copy
// BUF:         return
func.func @shared_reshape(%x: tensor<2x2x8xf32>, %y: tensor<2x8x16xf32>, %u: tensor<2x2x8xf32>, %o: tensor<2x2x16xf32>) -> (tensor<2x2x16xf32>, tensor<2x2x16xf32>, tensor<2x2x16xf32>) {
  %c0 = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x16xf32>
  %z = linalg.fill ins(%c0 : f32) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  %r = tensor.expand_shape %z [[0, 1], [2]] output_shape [2, 2, 16] : tensor<4x16xf32> into tensor<2x2x16xf32>
  %a = linalg.batch_matmul ins(%x, %y : tensor<2x2x8xf32>, tensor<2x8x16xf32>) outs(%r : tensor<2x2x16xf32>) -> tensor<2x2x16xf32>
  %b = linalg.batch_matmul ins(%u, %y : tensor<2x2x8xf32>, tensor<2x8x16xf32>) outs(%r : tensor<2x2x16xf32>) -> tensor<2x2x16xf32>
  %s = linalg.add ins(%r, %a : tensor<2x2x16xf32>, tensor<2x2x16xf32>) outs(%o : tensor<2x2x16xf32>) -> tensor<2x2x16xf32>
  return %a, %b, %s : tensor<2x2x16xf32>, tensor<2x2x16xf32>, tensor<2x2x16xf32>
}

// -----

// A tiled fill of a reshaped tensor.empty (the bias-free accumulators of
// the linear layers): the clone reshapes a tensor.empty of its own.
// CHECK-LABEL: func.func @fill_of_reshaped_empty(
// CHECK:         %[[E:.*]] = tensor.empty() : tensor<2x16xf32>
// CHECK-NEXT:    %[[X:.*]] = tensor.expand_shape %[[E]] {{\[\[}}0], [1, 2]] output_shape [2, 2, 8]
// CHECK-NEXT:    %[[Z:.*]] = scf.for {{.*}} iter_args(%{{.*}} = %[[X]])
// CHECK:         %[[E2:.*]] = tensor.empty() : tensor<2x16xf32>
// CHECK-NEXT:    %[[X2:.*]] = tensor.expand_shape %[[E2]] {{\[\[}}0], [1, 2]] output_shape [2, 2, 8]
// CHECK-NEXT:    %[[Z2:.*]] = scf.for {{.*}} iter_args(%{{.*}} = %[[X2]])
// CHECK:         linalg.add {{.*}} outs(%[[Z]] : tensor<2x2x8xf32>)
// CHECK-NEXT:    linalg.add {{.*}} outs(%[[Z2]] : tensor<2x2x8xf32>)
// BUF-LABEL: func.func @fill_of_reshaped_empty(
// BUF-NOT:     memref.copy
// BUF:         return
func.func @fill_of_reshaped_empty(%x: tensor<2x2x8xf32>, %y: tensor<2x2x8xf32>) -> (tensor<2x2x8xf32>, tensor<2x2x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %cst = arith.constant dense<0.0> : vector<2x8xf32>
  %e = tensor.empty() : tensor<2x16xf32>
  %r = tensor.expand_shape %e [[0], [1, 2]] output_shape [2, 2, 8] : tensor<2x16xf32> into tensor<2x2x8xf32>
  %z = scf.for %i = %c0 to %c2 step %c1 iter_args(%t = %r) -> tensor<2x2x8xf32> {
    %w = vector.transfer_write %cst, %t[%i, %c0, %c0] {in_bounds = [true, true]} : vector<2x8xf32>, tensor<2x2x8xf32>
    scf.yield %w : tensor<2x2x8xf32>
  }
  %a = linalg.add ins(%x, %y : tensor<2x2x8xf32>, tensor<2x2x8xf32>) outs(%z : tensor<2x2x8xf32>) -> tensor<2x2x8xf32>
  %b = linalg.add ins(%y, %x : tensor<2x2x8xf32>, tensor<2x2x8xf32>) outs(%z : tensor<2x2x8xf32>) -> tensor<2x2x8xf32>
  return %a, %b : tensor<2x2x8xf32>, tensor<2x2x8xf32>
}


// -----

// A tensor.empty CSE shared as the destination of several ops (the trivial
// fill): runs of `destinations-per-empty` (default 64) consecutive
// destinations share one clone, so that one-shot bufferization's pairwise
// analysis of a tensor's writers stays linear in the model's size while it
// may still reuse a buffer within a run. Three destinations: unchanged by
// default; with runs of 2, the third writes into a clone placed after the
// empty. A use that only reads (tensor.dim) stays.
// CHECK-LABEL: func.func @shared_empty(
// CHECK:         %[[E:.*]] = tensor.empty() : tensor<4xf32>
// CHECK-NOT:     tensor.empty
// CHECK:         linalg.copy ins(%{{.*}} : tensor<4xf32>) outs(%[[E]] : tensor<4xf32>)
// CHECK:         linalg.copy ins(%{{.*}} : tensor<4xf32>) outs(%[[E]] : tensor<4xf32>)
// CHECK:         linalg.copy ins(%{{.*}} : tensor<4xf32>) outs(%[[E]] : tensor<4xf32>)
// RUN2-LABEL: func.func @shared_empty(
// RUN2:         %[[E:.*]] = tensor.empty() : tensor<4xf32>
// RUN2-NEXT:    %[[E2:.*]] = tensor.empty() : tensor<4xf32>
// RUN2-NOT:     tensor.empty
// RUN2:         %[[A:.*]] = linalg.copy ins(%{{.*}} : tensor<4xf32>) outs(%[[E]] : tensor<4xf32>)
// RUN2:         %[[B:.*]] = linalg.copy ins(%[[A]] : tensor<4xf32>) outs(%[[E]] : tensor<4xf32>)
// RUN2:         linalg.copy ins(%[[B]] : tensor<4xf32>) outs(%[[E2]] : tensor<4xf32>)
// RUN2:         tensor.dim %[[E]]
func.func @shared_empty(%x: tensor<4xf32>)
    -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, index) {
  %c0 = arith.constant 0 : index
  %e = tensor.empty() : tensor<4xf32>
  %a = linalg.copy ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %b = linalg.copy ins(%a : tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %c = linalg.copy ins(%b : tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %d = tensor.dim %e, %c0 : tensor<4xf32>
  return %a, %b, %c, %d : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, index
}
