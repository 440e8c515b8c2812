// RUN: mp-opt %s -split-input-file -mp-tile-and-vectorize="parallel=true" -canonicalize -cse | FileCheck %s
// RUN: mp-opt %s -split-input-file -mp-tile-and-vectorize="parallel=true matmul-tile-sizes=8,32,1" -canonicalize -cse | FileCheck %s --check-prefix=FILL

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

// -----

// A matmul onto a zero fill: the scf.forall of its 4 x 8 tiles of 8 x 32
// (B packed into 4 panels of 32 columns, A's rows read where they are)
// starts from a tensor.empty, each tile's sums from zeros in registers; the
// tile writes its output slice once (the fill is gone).
// CHECK-LABEL: func.func @matmul_fill(
// FILL-LABEL: func.func @matmul_fill(
// FILL-DAG:   %[[ZEROS:.*]] = arith.constant dense<0.000000e+00> : vector<8x32xf32>
// FILL:       %[[EMPTY:.*]] = tensor.empty() : tensor<64x4x32xf32>
// FILL:       scf.forall (%{{.*}}, %{{.*}}) = (0, 0) to (4, 64) step (1, 8) shared_outs(%{{.*}} = %[[EMPTY]]) -> (tensor<64x4x32xf32>)
// FILL:         %[[SUM:.*]] = scf.for %{{.*}} = %c0 to %c32 step %c1 iter_args(%{{.*}} = %[[ZEROS]]) -> (vector<8x32xf32>)
// FILL:         vector.transfer_write %[[SUM]], %{{.*}} : vector<8x32xf32>, tensor<8x32xf32>
// FILL:         scf.forall.in_parallel
// FILL-NOT: linalg.fill
// FILL-NOT: vector.transfer_write
func.func @matmul_fill(%a: tensor<64x32xf32>, %b: tensor<32x128xf32>) -> tensor<64x128xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x128xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<64x128xf32>) -> tensor<64x128xf32>
  %r = linalg.matmul ins(%a, %b : tensor<64x32xf32>, tensor<32x128xf32>)
      outs(%c : tensor<64x128xf32>) -> tensor<64x128xf32>
  return %r : tensor<64x128xf32>
}
