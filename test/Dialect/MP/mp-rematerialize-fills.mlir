// RUN: mp-opt %s --mp-rematerialize-fills -split-input-file | FileCheck %s
// RUN: mp-opt %s --mp-rematerialize-fills --one-shot-bufferize -split-input-file | FileCheck %s --check-prefix=BUF
// RUN: mp-opt %s --mp-rematerialize-fills=destinations-per-empty=2 -split-input-file | FileCheck %s --check-prefix=RUN2
// RUN: mp-opt %s --mp-rematerialize-fills --one-shot-bufferize --cse --canonicalize -split-input-file | FileCheck %s --check-prefix=BUFC

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

// A fill reshaped once per destination (each packed contraction's own
// reshape, as mp-bf16-dot-products leaves them in its fallbacks): the
// second destination gets a fill and a reshape of its own, and its former
// reshape, which nothing reads any more, goes (left in place it would keep
// the original fill where it is: control-flow-sink could not move it into
// the one branch that reads it).
// CHECK-LABEL: func.func @reshape_per_destination(
// CHECK:         %[[Z:.*]] = linalg.fill
// CHECK-NEXT:    %[[E2:.*]] = tensor.empty() : tensor<4x16xf32>
// CHECK-NEXT:    %[[Z2:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E2]] : tensor<4x16xf32>)
// CHECK-NEXT:    %[[R:.*]] = tensor.expand_shape %[[Z]] {{\[\[}}0, 1], [2]] output_shape [2, 2, 16]
// CHECK-NEXT:    linalg.batch_matmul {{.*}} outs(%[[R]] : tensor<2x2x16xf32>)
// CHECK-NEXT:    %[[R2:.*]] = tensor.expand_shape %[[Z2]] {{\[\[}}0, 1], [2]] output_shape [2, 2, 16]
// CHECK-NEXT:    linalg.batch_matmul {{.*}} outs(%[[R2]] : tensor<2x2x16xf32>)
// CHECK-NEXT:    return
func.func @reshape_per_destination(%x: tensor<2x2x8xf32>, %y: tensor<2x8x16xf32>, %u: tensor<2x2x8xf32>) -> (tensor<2x2x16xf32>, tensor<2x2x16xf32>) {
  %c0 = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x16xf32>
  %z = linalg.fill ins(%c0 : f32) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  %r1 = tensor.expand_shape %z [[0, 1], [2]] output_shape [2, 2, 16] : tensor<4x16xf32> into tensor<2x2x16xf32>
  %a = linalg.batch_matmul ins(%x, %y : tensor<2x2x8xf32>, tensor<2x8x16xf32>) outs(%r1 : tensor<2x2x16xf32>) -> tensor<2x2x16xf32>
  %r2 = tensor.expand_shape %z [[0, 1], [2]] output_shape [2, 2, 16] : tensor<4x16xf32> into tensor<2x2x16xf32>
  %b = linalg.batch_matmul ins(%u, %y : tensor<2x2x8xf32>, tensor<2x8x16xf32>) outs(%r2 : tensor<2x2x16xf32>) -> tensor<2x2x16xf32>
  return %a, %b : tensor<2x2x16xf32>, tensor<2x2x16xf32>
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

// -----

// The padding of a convolution (convert-mp-to-linalg's buildPadded): a
// generic scattering a bf16 input, widened, into a zero fill at (d2 + 1,
// d3 + 2), its payload reading the zero it replaces. CSE shared the tiled
// fill between two such generics. Each writes every element once instead:
// its box in place (an extract_slice of a tensor.empty of its own, the
// payload reading the fill's constant), then one linalg.fill per slab
// around it (in H the rows before and after the box, one element wide
// each, as one slab of stride 5; then in W within the box's rows, before
// and after); the shared fill is gone, and bufferization copies nothing (the
// copies of each slice onto itself that one-shot bufferization leaves fold
// away).
// CHECK-LABEL: func.func @padding(
// CHECK-SAME:    %[[X:.*]]: tensor<2x3x4x5xbf16>, %[[Y:.*]]: tensor<2x3x4x5xbf16>)
// CHECK:         %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    %[[E:.*]] = tensor.empty() : tensor<2x3x6x8xf32>
// CHECK-NEXT:    %[[BOX:.*]] = tensor.extract_slice %[[E]][0, 0, 1, 2] [2, 3, 4, 5] [1, 1, 1, 1] : tensor<2x3x6x8xf32> to tensor<2x3x4x5xf32>
// CHECK-NEXT:    %[[IN:.*]] = linalg.generic {indexing_maps = [#[[$ID:.*]], #[[$ID]]], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%[[X]] : tensor<2x3x4x5xbf16>) outs(%[[BOX]] : tensor<2x3x4x5xf32>)
// CHECK-NEXT:    ^bb0(%[[A:.*]]: bf16, %{{.*}}: f32):
// CHECK-NEXT:      %[[W:.*]] = arith.extf %[[A]] : bf16 to f32
// CHECK-NEXT:      %[[S:.*]] = arith.addf %[[W]], %[[ZERO]] : f32
// CHECK-NEXT:      %[[O:.*]] = arith.cmpf ord, %[[W]], %[[W]] : f32
// CHECK-NEXT:      %[[R:.*]] = arith.select %[[O]], %[[W]], %[[S]] : f32
// CHECK-NEXT:      linalg.yield %[[R]] : f32
// CHECK:         %[[P0:.*]] = tensor.insert_slice %[[IN]] into %[[E]][0, 0, 1, 2] [2, 3, 4, 5] [1, 1, 1, 1]
// CHECK-NEXT:    %[[T1:.*]] = tensor.extract_slice %[[P0]][0, 0, 0, 0] [2, 3, 2, 8] [1, 1, 5, 1]
// CHECK-NEXT:    %[[F1:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[T1]] : tensor<2x3x2x8xf32>)
// CHECK-NEXT:    %[[P2:.*]] = tensor.insert_slice %[[F1]] into %[[P0]][0, 0, 0, 0] [2, 3, 2, 8] [1, 1, 5, 1]
// CHECK-NEXT:    %[[T3:.*]] = tensor.extract_slice %[[P2]][0, 0, 1, 0] [2, 3, 4, 2] [1, 1, 1, 1]
// CHECK-NEXT:    %[[F3:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[T3]] : tensor<2x3x4x2xf32>)
// CHECK-NEXT:    %[[P3:.*]] = tensor.insert_slice %[[F3]] into %[[P2]][0, 0, 1, 0] [2, 3, 4, 2] [1, 1, 1, 1]
// CHECK-NEXT:    %[[T4:.*]] = tensor.extract_slice %[[P3]][0, 0, 1, 7] [2, 3, 4, 1] [1, 1, 1, 1]
// CHECK-NEXT:    %[[F4:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[T4]] : tensor<2x3x4x1xf32>)
// CHECK-NEXT:    %[[PAD:.*]] = tensor.insert_slice %[[F4]] into %[[P3]][0, 0, 1, 7] [2, 3, 4, 1] [1, 1, 1, 1]
// CHECK:         tensor.empty() : tensor<2x3x6x8xf32>
// CHECK:         linalg.generic {{.*}} ins(%[[Y]] : tensor<2x3x4x5xbf16>)
// CHECK-NOT:     scf.for
// CHECK:         return %[[PAD]], %{{.*}} : tensor<2x3x6x8xf32>, tensor<2x3x6x8xf32>
// BUFC-LABEL: func.func @padding(
// BUFC:         %[[ALLOC:.*]] = memref.alloc() {{.*}} : memref<2x3x6x8xf32>
// BUFC-NEXT:    %[[BOX:.*]] = memref.subview %[[ALLOC]][0, 0, 1, 2] [2, 3, 4, 5] [1, 1, 1, 1]
// BUFC-NEXT:    linalg.generic {{.*}} outs(%[[BOX]] : memref<2x3x4x5xf32, strided<[144, 48, 8, 1], offset: 10>>)
// BUFC:         %[[ROWS:.*]] = memref.subview %[[ALLOC]][0, 0, 0, 0] [2, 3, 2, 8] [1, 1, 5, 1]
// BUFC-NEXT:    linalg.fill ins(%{{.*}} : f32) outs(%[[ROWS]] : memref<2x3x2x8xf32, strided<[144, 48, 40, 1]>>)
// BUFC-NOT:     memref.copy
// BUFC:         return
func.func @padding(%x: tensor<2x3x4x5xbf16>, %y: tensor<2x3x4x5xbf16>) -> (tensor<2x3x6x8xf32>, tensor<2x3x6x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c6 = arith.constant 6 : index
  %cst = arith.constant dense<0.0> : vector<8xf32>
  %e = tensor.empty() : tensor<2x3x6x8xf32>
  %z = scf.for %n = %c0 to %c2 step %c1 iter_args(%t0 = %e) -> tensor<2x3x6x8xf32> {
    %l1 = scf.for %c = %c0 to %c3 step %c1 iter_args(%t1 = %t0) -> tensor<2x3x6x8xf32> {
      %l2 = scf.for %h = %c0 to %c6 step %c1 iter_args(%t2 = %t1) -> tensor<2x3x6x8xf32> {
        %w = vector.transfer_write %cst, %t2[%n, %c, %h, %c0] {in_bounds = [true]} : vector<8xf32>, tensor<2x3x6x8xf32>
        scf.yield %w : tensor<2x3x6x8xf32>
      }
      scf.yield %l2 : tensor<2x3x6x8xf32>
    }
    scf.yield %l1 : tensor<2x3x6x8xf32>
  }
  %a = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2 + 1, d3 + 2)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : tensor<2x3x4x5xbf16>) outs(%z : tensor<2x3x6x8xf32>) {
  ^bb0(%in: bf16, %out: f32):
    %0 = arith.extf %in : bf16 to f32
    %1 = arith.addf %0, %out : f32
    %2 = arith.cmpf ord, %0, %0 : f32
    %3 = arith.select %2, %0, %1 : f32
    linalg.yield %3 : f32
  } -> tensor<2x3x6x8xf32>
  %b = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2 + 1, d3 + 2)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%y : tensor<2x3x4x5xbf16>) outs(%z : tensor<2x3x6x8xf32>) {
  ^bb0(%in: bf16, %out: f32):
    %0 = arith.extf %in : bf16 to f32
    %1 = arith.addf %0, %out : f32
    %2 = arith.cmpf ord, %0, %0 : f32
    %3 = arith.select %2, %0, %1 : f32
    linalg.yield %3 : f32
  } -> tensor<2x3x6x8xf32>
  return %a, %b : tensor<2x3x6x8xf32>, tensor<2x3x6x8xf32>
}

// -----

// Scatters that keep the whole fill: into a strided position (the phases of
// a strided input gradient, 2·d2), and into a fill of a value that is not a
// constant. A scatter into a fill that another op reads as well is
// rewritten, and the reader keeps the fill; the strided scatter gets a fill
// of its own (a destination), as before.
// CHECK-DAG:     #[[$STRIDED:.*]] = affine_map<(d0, d1) -> (d0, d1 * 2 + 1)>
// CHECK-LABEL: func.func @scatters_kept(
// CHECK:         %[[C:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    %[[E:.*]] = tensor.empty() : tensor<2x9xf32>
// CHECK-NEXT:    %[[Z:.*]] = linalg.fill ins(%[[C]] : f32) outs(%[[E]] : tensor<2x9xf32>)
// CHECK-NEXT:    %[[E2:.*]] = tensor.empty() : tensor<2x9xf32>
// CHECK-NEXT:    %[[Z2:.*]] = linalg.fill ins(%[[C]] : f32) outs(%[[E2]] : tensor<2x9xf32>)
// CHECK-NEXT:    %[[A:.*]] = linalg.generic {indexing_maps = [#{{.*}}, #[[$STRIDED]]], {{.*}} outs(%[[Z2]] : tensor<2x9xf32>)
// CHECK:         %[[G:.*]] = bufferization.alloc_tensor() : tensor<2x9xf32>
// CHECK-NEXT:    %[[H:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[G]] : tensor<2x9xf32>)
// CHECK-NEXT:    linalg.generic {{.*}} outs(%[[H]] : tensor<2x9xf32>)
// CHECK:         %[[E3:.*]] = tensor.empty() : tensor<2x9xf32>
// CHECK-NEXT:    %[[BOX:.*]] = tensor.extract_slice %[[E3]][0, 1] [2, 4] [1, 1]
// CHECK-NEXT:    linalg.generic {{.*}} outs(%[[BOX]] : tensor<2x4xf32>)
// CHECK:         tensor.insert_slice %{{.*}} into %[[E3]][0, 1] [2, 4] [1, 1]
// CHECK-NEXT:    tensor.extract_slice %{{.*}}[0, 0] [2, 1] [1, 1]
// CHECK-NEXT:    linalg.fill
// CHECK-NEXT:    tensor.insert_slice %{{.*}}[0, 0] [2, 1] [1, 1]
// CHECK-NEXT:    tensor.extract_slice %{{.*}}[0, 5] [2, 4] [1, 1]
// CHECK-NEXT:    linalg.fill
// CHECK-NEXT:    tensor.insert_slice %{{.*}}[0, 5] [2, 4] [1, 1]
// CHECK-NEXT:    linalg.add ins(%[[Z]], %[[A]] : tensor<2x9xf32>, tensor<2x9xf32>) outs(%[[E]] : tensor<2x9xf32>)
func.func @scatters_kept(%x: tensor<2x4xf32>, %f: f32) -> (tensor<2x9xf32>, tensor<2x9xf32>, tensor<2x9xf32>, tensor<2x9xf32>) {
  %c0 = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x9xf32>
  %z = linalg.fill ins(%c0 : f32) outs(%e : tensor<2x9xf32>) -> tensor<2x9xf32>
  %a = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1 * 2 + 1)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<2x4xf32>) outs(%z : tensor<2x9xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.addf %in, %out : f32
    linalg.yield %0 : f32
  } -> tensor<2x9xf32>
  %g = bufferization.alloc_tensor() : tensor<2x9xf32>
  %h = linalg.fill ins(%f : f32) outs(%g : tensor<2x9xf32>) -> tensor<2x9xf32>
  %b = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1 + 1)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<2x4xf32>) outs(%h : tensor<2x9xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.addf %in, %out : f32
    linalg.yield %0 : f32
  } -> tensor<2x9xf32>
  %c = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1 + 1)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<2x4xf32>) outs(%z : tensor<2x9xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.addf %in, %out : f32
    linalg.yield %0 : f32
  } -> tensor<2x9xf32>
  %d = linalg.add ins(%z, %a : tensor<2x9xf32>, tensor<2x9xf32>) outs(%e : tensor<2x9xf32>) -> tensor<2x9xf32>
  return %a, %b, %c, %d : tensor<2x9xf32>, tensor<2x9xf32>, tensor<2x9xf32>, tensor<2x9xf32>
}

// -----

// The padding fused with its producer (linalg-fuse-elementwise-ops merges
// the ReLU before a convolution with the padding generic): the init the
// identity map covers stays, the scattered one is written as a box and its
// border (the columns before and after it, one element wide each, as one
// slab of stride 6).
// CHECK-LABEL: func.func @fused_padding(
// CHECK-SAME:    %[[X:.*]]: tensor<2x5xf32>, %[[O:.*]]: tensor<2x5xf32>)
// CHECK:         %[[C:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    %[[E:.*]] = tensor.empty() : tensor<2x7xf32>
// CHECK-NEXT:    %[[BOX:.*]] = tensor.extract_slice %[[E]][0, 1] [2, 5] [1, 1] : tensor<2x7xf32> to tensor<2x5xf32>
// CHECK-NEXT:    %[[R:.*]]:2 = linalg.generic {indexing_maps = [#[[$ID:.*]], #[[$ID]], #[[$ID]]], {{.*}} ins(%[[X]] : tensor<2x5xf32>) outs(%[[O]], %[[BOX]] : tensor<2x5xf32>, tensor<2x5xf32>)
// CHECK-NEXT:    ^bb0(%[[A:.*]]: f32, %{{.*}}: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[M:.*]] = arith.maximumf %[[A]], %[[C]] : f32
// CHECK-NEXT:      %[[S:.*]] = arith.addf %[[M]], %[[ZERO]] : f32
// CHECK-NEXT:      linalg.yield %[[M]], %[[S]] : f32, f32
// CHECK:         %[[P0:.*]] = tensor.insert_slice %[[R]]#1 into %[[E]][0, 1] [2, 5] [1, 1]
// CHECK-NEXT:    tensor.extract_slice %[[P0]][0, 0] [2, 2] [1, 6]
// CHECK-NEXT:    linalg.fill
// CHECK-NEXT:    %[[P2:.*]] = tensor.insert_slice %{{.*}} into %[[P0]][0, 0] [2, 2] [1, 6]
// CHECK-NEXT:    return %[[R]]#0, %[[P2]] : tensor<2x5xf32>, tensor<2x7xf32>
func.func @fused_padding(%x: tensor<2x5xf32>, %o: tensor<2x5xf32>) -> (tensor<2x5xf32>, tensor<2x7xf32>) {
  %c0 = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x7xf32>
  %z = linalg.fill ins(%c0 : f32) outs(%e : tensor<2x7xf32>) -> tensor<2x7xf32>
  %r:2 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1 + 1)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<2x5xf32>) outs(%o, %z : tensor<2x5xf32>, tensor<2x7xf32>) {
  ^bb0(%in: f32, %out: f32, %pad: f32):
    %0 = arith.maximumf %in, %c0 : f32
    %1 = arith.addf %0, %pad : f32
    linalg.yield %0, %1 : f32, f32
  } -> (tensor<2x5xf32>, tensor<2x7xf32>)
  return %r#0, %r#1 : tensor<2x5xf32>, tensor<2x7xf32>
}

// -----

// A scatter into a fill of dynamic shape keeps the fill (its border would
// need the sizes at run time).
// CHECK-LABEL: func.func @dynamic_kept(
// CHECK:         %[[Z:.*]] = linalg.fill
// CHECK-NEXT:    linalg.generic {{.*}} outs(%[[Z]] : tensor<?x9xf32>)
// CHECK-NOT:     tensor.extract_slice
func.func @dynamic_kept(%x: tensor<2x4xf32>, %n: index) -> tensor<?x9xf32> {
  %c0 = arith.constant 0.0 : f32
  %e = tensor.empty(%n) : tensor<?x9xf32>
  %z = linalg.fill ins(%c0 : f32) outs(%e : tensor<?x9xf32>) -> tensor<?x9xf32>
  %a = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1 + 1)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<2x4xf32>) outs(%z : tensor<?x9xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.addf %in, %out : f32
    linalg.yield %0 : f32
  } -> tensor<?x9xf32>
  return %a : tensor<?x9xf32>
}
