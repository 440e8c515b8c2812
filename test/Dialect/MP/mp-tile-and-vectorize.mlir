// RUN: mp-opt %s -split-input-file -mp-tile-and-vectorize -canonicalize -cse | FileCheck %s
// RUN: mp-opt %s -split-input-file -mp-tile-and-vectorize="matmul-tile-sizes=4,16,8 dot-tile-sizes=2,2,8 tile-sizes=1,16" -canonicalize -cse | FileCheck %s --check-prefix=SIZES

// A plain matmul (both operands' tiles are rows) becomes outer products:
// M tiled by 8, N by 32 shrunk to 16 (the largest divisor of 784 that fills
// whole 16-lane registers), K by 16; the accumulator stays in registers
// across the K loop.
// CHECK-LABEL: func.func @matmul(
// CHECK:   scf.for %{{.*}} = %c0 to %c16 step %c8 iter_args(%{{.*}} = %{{.*}}) -> (tensor<16x784xf32>)
// CHECK:     scf.for %{{.*}} = %c0 to %c784 step %c16 iter_args(%{{.*}} = %{{.*}}) -> (tensor<16x784xf32>)
// CHECK:       %[[ACC:.*]] = vector.transfer_read %{{.*}} : tensor<16x784xf32>, vector<8x16xf32>
// CHECK:       scf.for %{{.*}} = %c0 to %c64 step %c16 iter_args(%{{.*}} = %[[ACC]]) -> (vector<8x16xf32>)
// CHECK:         vector.transfer_read %{{.*}} : tensor<16x64xf32>, vector<8x16xf32>
// CHECK:         vector.transfer_read %{{.*}} : tensor<64x784xf32>, vector<16x16xf32>
// CHECK:         vector.fma %{{.*}}, %{{.*}}, %{{.*}} : vector<16xf32>
// CHECK:       vector.transfer_write %{{.*}} : vector<8x16xf32>, tensor<16x784xf32>
// CHECK-NOT: linalg.matmul
// SIZES-LABEL: func.func @matmul(
// SIZES: step %c4
// SIZES: step %c16
// SIZES: step %c8
// SIZES: vector.fma %{{.*}}, %{{.*}}, %{{.*}} : vector<16xf32>
func.func @matmul(%a: tensor<16x64xf32>, %b: tensor<64x784xf32>,
                  %c: tensor<16x784xf32>) -> tensor<16x784xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<16x64xf32>, tensor<64x784xf32>)
      outs(%c : tensor<16x784xf32>) -> tensor<16x784xf32>
  return %r : tensor<16x784xf32>
}

// -----

// A·Bᵀ with f16 operands accumulating in f32 (the AMP linear layer): both
// operands are contiguous along K, so it becomes split-K dot products: the
// f16 rows are extended exactly, FMAs accumulate into a 4x4x16 accumulator
// across the K loop, and its K lanes are summed into the result once.
// CHECK-LABEL: func.func @dot(
// CHECK-DAG: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : vector<4x4x16xf32>
// CHECK:   scf.for %{{.*}} = %c0 to %c8 step %c4
// CHECK:     scf.for %{{.*}} = %c0 to %c12 step %c4
// CHECK:       %[[C:.*]] = vector.transfer_read %{{.*}} : tensor<8x12xf32>, vector<4x4xf32>
// CHECK:       %[[WIDE:.*]] = scf.for %{{.*}} = %c0 to %c64 step %c16 iter_args(%[[W:.*]] = %[[ZERO]]) -> (vector<4x4x16xf32>)
// CHECK:         %[[A:.*]] = vector.transfer_read %{{.*}} : tensor<8x64xf16>, vector<4x16xf16>
// CHECK:         %[[B:.*]] = vector.transfer_read %{{.*}} : tensor<12x64xf16>, vector<4x16xf16>
// CHECK:         %[[AE:.*]] = arith.extf %[[A]] : vector<4x16xf16> to vector<4x16xf32>
// CHECK:         %[[AB:.*]] = vector.broadcast %[[AE]] : vector<4x16xf32> to vector<4x4x16xf32>
// CHECK:         %[[AT:.*]] = vector.transpose %[[AB]], [1, 0, 2] : vector<4x4x16xf32> to vector<4x4x16xf32>
// CHECK:         %[[BE:.*]] = arith.extf %[[B]] : vector<4x16xf16> to vector<4x16xf32>
// CHECK:         %[[BB:.*]] = vector.broadcast %[[BE]] : vector<4x16xf32> to vector<4x4x16xf32>
// CHECK:         %[[FMA:.*]] = vector.fma %[[AT]], %[[BB]], %[[W]] : vector<4x4x16xf32>
// CHECK:         scf.yield %[[FMA]] : vector<4x4x16xf32>
// CHECK:       vector.transpose %[[WIDE]], [2, 0, 1] : vector<4x4x16xf32> to vector<16x4x4xf32>
// CHECK:       vector.shape_cast %[[C]] : vector<4x4xf32> to vector<16xf32>
// CHECK:       arith.addf %{{.*}} : vector<16xf32>
// CHECK:       vector.transfer_write %{{.*}} : vector<4x4xf32>, tensor<8x12xf32>
// SIZES-LABEL: func.func @dot(
// SIZES: scf.for %{{.*}} = %c0 to %c64 step %c8 iter_args(%{{.*}} = %{{.*}}) -> (vector<2x2x8xf32>)
func.func @dot(%a: tensor<8x64xf16>, %b: tensor<12x64xf16>,
               %c: tensor<8x12xf32>) -> tensor<8x12xf32> {
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                      affine_map<(m, n, k) -> (n, k)>,
                                      affine_map<(m, n, k) -> (m, n)>]
      ins(%a, %b : tensor<8x64xf16>, tensor<12x64xf16>)
      outs(%c : tensor<8x12xf32>) -> tensor<8x12xf32>
  return %r : tensor<8x12xf32>
}

// -----

// An f16 elementwise op computed in f32 keeps its rounding: the vector
// truncf to f16 stays. Tiles of 8x32 cover the two innermost loops.
// CHECK-LABEL: func.func @elementwise(
// CHECK:   scf.for %{{.*}} = %c0 to %c16 step %c8
// CHECK:     scf.for %{{.*}} = %c0 to %c64 step %c32
// CHECK:       %[[X:.*]] = vector.transfer_read %{{.*}} : tensor<16x64xf16>, vector<8x32xf16>
// CHECK:       %[[XE:.*]] = arith.extf %[[X]] : vector<8x32xf16> to vector<8x32xf32>
// CHECK:       %[[Y:.*]] = arith.mulf %[[XE]], %[[XE]] : vector<8x32xf32>
// CHECK:       %[[YT:.*]] = arith.truncf %[[Y]] : vector<8x32xf32> to vector<8x32xf16>
// CHECK:       vector.transfer_write %[[YT]], %{{.*}} : vector<8x32xf16>, tensor<16x64xf16>
// SIZES-LABEL: func.func @elementwise(
// SIZES: step %c1
// SIZES: step %c16
// SIZES: arith.truncf %{{.*}} : vector<16xf32> to vector<16xf16>
#id = affine_map<(i, j) -> (i, j)>
func.func @elementwise(%x: tensor<16x64xf16>) -> tensor<16x64xf16> {
  %e = tensor.empty() : tensor<16x64xf16>
  %r = linalg.generic {indexing_maps = [#id, #id],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<16x64xf16>) outs(%e : tensor<16x64xf16>) {
  ^bb0(%in: f16, %out: f16):
    %w = arith.extf %in : f16 to f32
    %sq = arith.mulf %w, %w : f32
    %t = arith.truncf %sq : f32 to f16
    linalg.yield %t : f16
  } -> tensor<16x64xf16>
  return %r : tensor<16x64xf16>
}

// -----

// A column sum (the bias gradient) reduces its outer loop: the loops are
// interchanged so that the reduction is innermost, and the 32 sums stay in
// a register across it, adding 8 rows per iteration.
// CHECK-LABEL: func.func @column_sum(
// CHECK:   scf.for %{{.*}} = %c0 to %c256 step %c32 iter_args(%{{.*}} = %{{.*}}) -> (tensor<256xf32>)
// CHECK:     %[[INIT:.*]] = vector.transfer_read %{{.*}} : tensor<256xf32>, vector<32xf32>
// CHECK:     %[[SUM:.*]] = scf.for %{{.*}} = %c0 to %c64 step %c8 iter_args(%[[S:.*]] = %[[INIT]]) -> (vector<32xf32>)
// CHECK:       vector.transfer_read %{{.*}} : tensor<64x256xf32>, vector<8x32xf32>
// CHECK:       arith.addf %{{.*}}, %[[S]] : vector<32xf32>
// CHECK-COUNT-7: arith.addf %{{.*}} : vector<32xf32>
// CHECK:     vector.transfer_write %[[SUM]], %{{.*}} : vector<32xf32>, tensor<256xf32>
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

// Operations on FP8 values and dynamically shaped ones are left alone.
// CHECK-LABEL: func.func @left_alone(
// CHECK:   linalg.generic
// CHECK:     arith.truncf %{{.*}} : f32 to f8E4M3FN
// CHECK:   linalg.generic
// CHECK:     arith.mulf %{{.*}} : f32
// CHECK-NOT: vector.
func.func @left_alone(%x: tensor<16x32xf32>, %d: tensor<?xf32>)
    -> (tensor<16x32xf8E4M3FN>, tensor<?xf32>) {
  %e = tensor.empty() : tensor<16x32xf8E4M3FN>
  %q = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>,
                                        affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<16x32xf32>) outs(%e : tensor<16x32xf8E4M3FN>) {
  ^bb0(%in: f32, %out: f8E4M3FN):
    %t = arith.truncf %in : f32 to f8E4M3FN
    linalg.yield %t : f8E4M3FN
  } -> tensor<16x32xf8E4M3FN>
  %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>,
                                        affine_map<(i) -> (i)>],
                       iterator_types = ["parallel"]}
      ins(%d : tensor<?xf32>) outs(%d : tensor<?xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.mulf %in, %in : f32
    linalg.yield %s : f32
  } -> tensor<?xf32>
  return %q, %r : tensor<16x32xf8E4M3FN>, tensor<?xf32>
}
