// RUN: mp-opt %s -split-input-file -mp-tile-and-vectorize="parallel=true" -canonicalize -cse | FileCheck %s

// mp-tile-and-vectorize's `parallel`: the leading parallel tile loops of an
// operation of at least 8192 iterations, as many as make 64 tiles, are one
// scf.forall; the other parallel loops and the reduction loops are scf.for
// loops inside it, as without the option. Each output element is written by
// one iteration of the scf.forall.

// A column sum (the bias gradient): the 16 tiles of 16 columns are the
// scf.forall, each sums its 64 rows in order in a register.
// CHECK-LABEL: func.func @column_sum(
// CHECK:   scf.forall (%[[J:.*]]) = (0) to (256) step (16) shared_outs(%[[OUT:.*]] = %{{.*}}) -> (tensor<256xf32>)
// CHECK:     %[[INIT:.*]] = vector.transfer_read %{{.*}} : tensor<16xf32>, vector<16xf32>
// CHECK:     %[[SUM:.*]] = scf.for %{{.*}} = %c0 to %c64 step %c1 iter_args(%[[S:.*]] = %[[INIT]]) -> (vector<16xf32>)
// CHECK:       %[[ROW:.*]] = vector.transfer_read %{{.*}} : tensor<64x256xf32>, vector<16xf32>
// CHECK:       arith.addf %[[ROW]], %[[S]] : vector<16xf32>
// CHECK:     %[[TILE:.*]] = vector.transfer_write %[[SUM]], %{{.*}} : vector<16xf32>, tensor<16xf32>
// CHECK:     scf.forall.in_parallel
// CHECK-NEXT:  tensor.parallel_insert_slice %[[TILE]] into %[[OUT]][%[[J]]] [16] [1]
// CHECK-NOT: linalg.generic
func.func @column_sum(%x: tensor<64x256xf32>, %init: tensor<256xf32>) -> tensor<256xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>,
                                        affine_map<(i, j) -> (j)>],
                       iterator_types = ["reduction", "parallel"]}
      ins(%x : tensor<64x256xf32>) outs(%init : tensor<256xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %in, %acc : f32
    linalg.yield %s : f32
  } -> tensor<256xf32>
  return %r : tensor<256xf32>
}

// -----

// An elementwise operation on 8x16x64 (8192 iterations): 8 x 16 rows make
// 128 tiles, the 4 vectors of each row an scf.for inside.
// CHECK-LABEL: func.func @elementwise(
// CHECK:   scf.forall (%{{.*}}, %{{.*}}) in (8, 16) shared_outs(%{{.*}} = %{{.*}}) -> (tensor<8x16x64xf32>)
// CHECK:     scf.for %{{.*}} = %c0 to %c64 step %c16 iter_args(%{{.*}} = %{{.*}}) -> (tensor<1x1x64xf32>)
// CHECK:       arith.mulf %{{.*}}, %{{.*}} : vector<16xf32>
// CHECK-NOT: linalg.generic
func.func @elementwise(%x: tensor<8x16x64xf32>) -> tensor<8x16x64xf32> {
  %init = tensor.empty() : tensor<8x16x64xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j, k) -> (i, j, k)>,
                                        affine_map<(i, j, k) -> (i, j, k)>],
                       iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x : tensor<8x16x64xf32>) outs(%init : tensor<8x16x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.mulf %in, %in : f32
    linalg.yield %s : f32
  } -> tensor<8x16x64xf32>
  return %r : tensor<8x16x64xf32>
}

// -----

// An implicit filter gradient (loops (kh, kw, c, f, n, oh, ow)): its 3 x 3 x
// 32/M tiles of M channels x 8 filters (M the host's tile rows, 4 or 16;
// 8 where the host's tile is 4 x 16, wider than tall) are fewer than 64 (or
// just 72), so all its parallel tile loops are the scf.forall
// (each tile one iteration: its 8·M outputs each summed over (n, oh, ow)
// in order by one thread), the reductions scf.for loops inside.
// CHECK-LABEL: func.func @implicit_grad_filter(
// CHECK:   scf.forall (%[[KH:.*]], %[[KW:.*]], %[[C:.*]]) = (0, 0, 0) to (3, 3, 32) step (1, 1, [[M:4|8|16]]) shared_outs(%[[OUT:.*]] = %{{.*}}) -> (tensor<3x3x32x8xf32>)
// CHECK:     scf.for %{{.*}} = %c0 to %c2 step %c1 iter_args(%{{.*}}) -> (vector<[[M]]x8xf32>)
// CHECK:       scf.for %{{.*}} = %c0 to %c4 step %c1 iter_args(%{{.*}}) -> (vector<[[M]]x8xf32>)
// CHECK:         scf.for %{{.*}} = %c0 to %c4 step %c1 iter_args(%{{.*}}) -> (vector<[[M]]x8xf32>)
// CHECK:     scf.forall.in_parallel
// CHECK-NEXT:  tensor.parallel_insert_slice %{{.*}} into %[[OUT]][%[[KH]], %[[KW]], %[[C]], 0] [1, 1, [[M]], 8] [1, 1, 1, 1]
// CHECK-NOT: linalg.generic
func.func @implicit_grad_filter(%x: tensor<2x32x6x6xf32>, %dy: tensor<2x4x4x8xf32>) -> tensor<3x3x32x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3x3x32x8xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<3x3x32x8xf32>) -> tensor<3x3x32x8xf32>
  %r = linalg.generic {
      indexing_maps = [affine_map<(kh, kw, c, f, n, oh, ow) -> (n, c, oh + kh, ow + kw)>,
                       affine_map<(kh, kw, c, f, n, oh, ow) -> (n, oh, ow, f)>,
                       affine_map<(kh, kw, c, f, n, oh, ow) -> (kh, kw, c, f)>],
      iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%x, %dy : tensor<2x32x6x6xf32>, tensor<2x4x4x8xf32>) outs(%acc : tensor<3x3x32x8xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %out, %p : f32
    linalg.yield %s : f32
  } -> tensor<3x3x32x8xf32>
  return %r : tensor<3x3x32x8xf32>
}

// -----

// Batch norm's statistics of 16 channels (f64 sums per channel; one vector
// of 16 outputs) are two iterations of 8 channels, one per thread, each
// gathering its channels' values pixel by pixel in the order n, h, w (not
// transposed, as on one thread: the input was just written by every
// thread). 32 channels are already two tiles of 16.
// CHECK-LABEL: func.func @channel_sums(
// CHECK-NOT:   tensor.collapse_shape
// CHECK:       scf.forall (%[[C:.*]]) = (0) to (16) step (8)
// CHECK:         scf.for %{{.*}} = %c0 to %c4 step %c1 iter_args(%{{.*}} = %{{.*}}) -> (vector<8xf64>)
// CHECK:           scf.for %{{.*}} = %c0 to %c28 step %c1
// CHECK:             scf.for %{{.*}} = %c0 to %c28 step %c1
// CHECK:               vector.transfer_read %{{.*}}[%{{.*}}, %[[C]], %{{.*}}, %{{.*}}], %{{.*}} {in_bounds = [true], permutation_map = #{{.*}}} : tensor<4x16x28x28xf32>, vector<8xf32>
// CHECK:               arith.extf %{{.*}} : vector<8xf32> to vector<8xf64>
// CHECK-LABEL: func.func @channel_sums_32(
// CHECK:       scf.forall (%{{.*}}) = (0) to (32) step (16)
// CHECK:         -> (vector<16xf64>)
func.func @channel_sums(%x: tensor<4x16x28x28xf32>) -> tensor<16xf32> {
  %zero = arith.constant 0.0 : f64
  %e = tensor.empty() : tensor<16xf64>
  %init = linalg.fill ins(%zero : f64) outs(%e : tensor<16xf64>) -> tensor<16xf64>
  %sum = linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>,
                                          affine_map<(n, c, h, w) -> (c)>],
                         iterator_types = ["reduction", "parallel", "reduction", "reduction"]}
      ins(%x : tensor<4x16x28x28xf32>) outs(%init : tensor<16xf64>) {
  ^bb0(%in: f32, %acc: f64):
    %w = arith.extf %in : f32 to f64
    %s = arith.addf %acc, %w : f64
    linalg.yield %s : f64
  } -> tensor<16xf64>
  %e32 = tensor.empty() : tensor<16xf32>
  %mean = linalg.generic {indexing_maps = [affine_map<(c) -> (c)>, affine_map<(c) -> (c)>],
                          iterator_types = ["parallel"]}
      ins(%sum : tensor<16xf64>) outs(%e32 : tensor<16xf32>) {
  ^bb0(%in: f64, %out: f32):
    %t = arith.truncf %in : f64 to f32
    linalg.yield %t : f32
  } -> tensor<16xf32>
  return %mean : tensor<16xf32>
}

func.func @channel_sums_32(%x: tensor<4x32x14x14xf32>) -> tensor<32xf64> {
  %zero = arith.constant 0.0 : f64
  %e = tensor.empty() : tensor<32xf64>
  %init = linalg.fill ins(%zero : f64) outs(%e : tensor<32xf64>) -> tensor<32xf64>
  %sum = linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>,
                                          affine_map<(n, c, h, w) -> (c)>],
                         iterator_types = ["reduction", "parallel", "reduction", "reduction"]}
      ins(%x : tensor<4x32x14x14xf32>) outs(%init : tensor<32xf64>) {
  ^bb0(%in: f32, %acc: f64):
    %w = arith.extf %in : f32 to f64
    %s = arith.addf %acc, %w : f64
    linalg.yield %s : f64
  } -> tensor<32xf64>
  return %sum : tensor<32xf64>
}

// -----

// Below 8192 iterations nothing changes: scf.for loops only.
// CHECK-LABEL: func.func @small(
// CHECK-NOT: scf.forall
// CHECK:     scf.for
// CHECK-NOT: scf.forall
func.func @small(%x: tensor<8x64xf32>) -> tensor<8x64xf32> {
  %init = tensor.empty() : tensor<8x64xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>,
                                        affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x64xf32>) outs(%init : tensor<8x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.mulf %in, %in : f32
    linalg.yield %s : f32
  } -> tensor<8x64xf32>
  return %r : tensor<8x64xf32>
}
