// RUN: mp-opt %s -split-input-file -mp-tile-and-vectorize="matmul-tile-sizes=4,16,1" -canonicalize -cse | FileCheck %s
// RUN: mp-opt %s -split-input-file -mp-tile-and-vectorize="matmul-tile-sizes=2,8,1 tile-sizes=2,8" -canonicalize -cse | FileCheck %s --check-prefix=SIZES
// RUN: mp-opt %s -split-input-file -mp-tile-and-vectorize="matmul-tile-sizes=8,32,1" -canonicalize -cse | FileCheck %s --check-prefix=AVX512
// RUN: mp-opt %s -split-input-file -mp-tile-and-vectorize="matmul-tile-sizes=16,16,1" -canonicalize -cse | FileCheck %s --check-prefix=TALL

// Every loop is tiled (by 1 unless it is in the vector) and vectors keep a
// few registers. A plain matmul has its B packed first into panels of 16
// columns (49x64x16: one contiguous 16-element row per K step); its A, whose
// rows are contiguous along K, is read where it is. It becomes, B panel by
// B panel, then 4-row tile by tile, M rows (4) of N-vectors (16 lanes)
// accumulated over K one step at a time, in K's order: a column of A (a
// splat of each of its elements across a row: a stretching
// vector.broadcast of the column as 4 x 1, not a broadcast and a
// transpose, which LLVM would get as shuffles of all 64 lanes; LLVM loads
// each element of the column as a broadcast from its row) times a panel
// row, multiplied and added as separate operations (no FMA: the products
// round as in the scalar loops). The accumulator stays in registers across
// the K loop.
// CHECK-LABEL: func.func @matmul(
// CHECK-SAME:    %[[A:[^:]*]]: tensor<16x64xf32>
// CHECK-NOT:   tensor.expand_shape %[[A]]
// CHECK:   %[[BX:.*]] = tensor.expand_shape %{{.*}} {{\[\[}}0], [1, 2]] output_shape [64, 49, 16] : tensor<64x784xf32> into tensor<64x49x16xf32>
// CHECK:   %[[PACKED:.*]] = scf.for %{{.*}} -> (tensor<49x64x16xf32>)
// CHECK:       tensor.extract_slice %[[BX]]{{.*}} [1, 1, 16] [1, 1, 1] : tensor<64x49x16xf32> to tensor<1x1x16xf32>
// CHECK:   %[[CX:.*]] = tensor.expand_shape %{{.*}} {{\[\[}}0], [1, 2]] output_shape [16, 49, 16] : tensor<16x784xf32> into tensor<16x49x16xf32>
// CHECK:   %[[R:.*]] = scf.for %{{.*}} = %c0 to %c49 step %c1 iter_args(%{{.*}} = %[[CX]]) -> (tensor<16x49x16xf32>)
// CHECK:     scf.for %{{.*}} = %c0 to %c16 step %c4 iter_args(%{{.*}} = %{{.*}}) -> (tensor<16x49x16xf32>)
// CHECK:       %[[ACC:.*]] = vector.transfer_read %{{.*}} : tensor<4x16xf32>, vector<4x16xf32>
// CHECK:       %[[SUM:.*]] = scf.for %{{.*}} = %c0 to %c64 step %c1 iter_args(%[[S:.*]] = %[[ACC]]) -> (vector<4x16xf32>)
// CHECK:         %[[COLUMN:.*]] = vector.transfer_read %[[A]]{{.*}} : tensor<16x64xf32>, vector<4xf32>
// CHECK-NEXT:    %[[STRETCH:.*]] = vector.shape_cast %[[COLUMN]] : vector<4xf32> to vector<4x1xf32>
// CHECK-NEXT:    %[[ROWS:.*]] = vector.broadcast %[[STRETCH]] : vector<4x1xf32> to vector<4x16xf32>
// CHECK:         vector.transfer_read %[[PACKED]]{{.*}} : tensor<49x64x16xf32>, vector<16xf32>
// CHECK:         %[[P:.*]] = arith.mulf %[[ROWS]], %{{.*}} : vector<4x16xf32>
// CHECK:         %[[N:.*]] = arith.addf %[[S]], %[[P]] : vector<4x16xf32>
// CHECK:         scf.yield %[[N]] : vector<4x16xf32>
// CHECK:       vector.transfer_write %[[SUM]], %{{.*}} : vector<4x16xf32>, tensor<4x16xf32>
// CHECK:   tensor.collapse_shape %[[R]] {{\[\[}}0], [1, 2]] : tensor<16x49x16xf32> into tensor<16x784xf32>
// CHECK-NOT: linalg.matmul
// CHECK-NOT: vector.fma
// CHECK-NOT: math.fma
// The AVX-512 hosts' default tile, 8 x 32: N 784 has no 32-column divisor,
// so the tile is 8 x 16 (whole vectors), and M 16 is below 4 tiles of 8
// rows: nothing is packed, A's 8-element column and B's row are read where
// they are.
// AVX512-LABEL: func.func @matmul(
// AVX512-NOT:   tensor.expand_shape
// AVX512:       scf.for %{{.*}} = %c0 to %c16 step %c8
// AVX512:         scf.for %{{.*}} = %c0 to %c784 step %c16
// AVX512:           scf.for %{{.*}} = %c0 to %c64 step %c1 iter_args(%{{.*}}) -> (vector<8x16xf32>)
// AVX512:             vector.transfer_read %{{.*}} : tensor<16x64xf32>, vector<8xf32>
// AVX512-NEXT:        vector.shape_cast %{{.*}} : vector<8xf32> to vector<8x1xf32>
// AVX512-NEXT:        vector.broadcast %{{.*}} : vector<8x1xf32> to vector<8x16xf32>
// AVX512-NOT:         vector.transpose
// AVX512:             vector.transfer_read %{{.*}} : tensor<64x784xf32>, vector<16xf32>
// AVX512:             arith.mulf %{{.*}}, %{{.*}} : vector<8x16xf32>
// AVX512:             arith.addf %{{.*}}, %{{.*}} : vector<8x16xf32>
// SIZES-LABEL: func.func @matmul(
// SIZES-NOT: output_shape [8, 2, 64]
// SIZES: output_shape [64, 98, 8]
// SIZES: -> (tensor<98x64x8xf32>)
// SIZES: -> (tensor<16x98x8xf32>)
// SIZES: step %c1 iter_args(%{{.*}}) -> (vector<2x8xf32>)
// SIZES: arith.addf %{{.*}} : vector<2x8xf32>
func.func @matmul(%a: tensor<16x64xf32>, %b: tensor<64x784xf32>,
                  %c: tensor<16x784xf32>) -> tensor<16x784xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<16x64xf32>, tensor<64x784xf32>)
      outs(%c : tensor<16x784xf32>) -> tensor<16x784xf32>
  return %r : tensor<16x784xf32>
}


// -----

// A·Bᵀ with f16 operands accumulating in f32 (the AMP linear layer), M too
// small (8) to pack B: B is transposed first (exactly: f16 values moved, 16
// per step), and the contraction is the matmul above, the f16 operands
// extended exactly. Their products are exact in f32, so each K step is one
// fused multiply-add per row (math.fma: the bits of the product and the
// sum).
// CHECK-LABEL: func.func @dot(
// CHECK:   %[[BT:.*]] = scf.for %{{.*}} -> (tensor<64x12xf16>)
// CHECK:       vector.transfer_read %{{.*}} : tensor<12x64xf16>, vector<16xf16>
// CHECK:       vector.transfer_write %{{.*}} : vector<16x1xf16>, tensor<64x12xf16>
// CHECK:   scf.for %{{.*}} = %c0 to %c8 step %c4
// CHECK:     vector.transfer_read %{{.*}} : tensor<4x12xf32>, vector<4x12xf32>
// CHECK:     scf.for %{{.*}} = %c0 to %c64 step %c1 iter_args(%[[S:.*]] = %{{.*}}) -> (vector<4x12xf32>)
// CHECK:       vector.transfer_read %{{.*}} : tensor<8x64xf16>, vector<4xf16>
// CHECK:       vector.transfer_read %[[BT]]{{.*}} : tensor<64x12xf16>, vector<12xf16>
// CHECK:       %[[AE:.*]] = arith.extf %{{.*}} : vector<4x12xf16> to vector<4x12xf32>
// CHECK:       %[[BE:.*]] = arith.extf %{{.*}} : vector<4x12xf16> to vector<4x12xf32>
// CHECK-NOT:   arith.mulf
// CHECK:       %[[A0:.*]] = vector.extract %[[AE]][0] : vector<12xf32> from vector<4x12xf32>
// CHECK:       %[[B0:.*]] = vector.extract %[[BE]][0] : vector<12xf32> from vector<4x12xf32>
// CHECK:       %[[S0:.*]] = vector.extract %[[S]][0] : vector<12xf32> from vector<4x12xf32>
// CHECK:       math.fma %[[A0]], %[[B0]], %[[S0]] : vector<12xf32>
// CHECK-COUNT-3: math.fma %{{.*}}, %{{.*}}, %{{.*}} : vector<12xf32>
// CHECK-NOT:   arith.mulf
// CHECK:     vector.transfer_write %{{.*}} : vector<4x12xf32>, tensor<4x12xf32>
// SIZES-LABEL: func.func @dot(
// SIZES: scf.for %{{.*}} = %c0 to %c64 step %c1 iter_args(%{{.*}}) -> (vector<2x4xf32>)
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
// truncf to f16 stays. The innermost loop is the vector (16 lanes), the
// outer loop is tiled by 1.
// CHECK-LABEL: func.func @elementwise(
// CHECK:   scf.for %{{.*}} = %c0 to %c16 step %c1
// CHECK:     scf.for %{{.*}} = %c0 to %c64 step %c16
// CHECK:       %[[X:.*]] = vector.transfer_read %{{.*}} : tensor<16x64xf16>, vector<16xf16>
// CHECK:       %[[XE:.*]] = arith.extf %[[X]] : vector<16xf16> to vector<16xf32>
// CHECK:       %[[Y:.*]] = arith.mulf %[[XE]], %[[XE]] : vector<16xf32>
// CHECK:       %[[YT:.*]] = arith.truncf %[[Y]] : vector<16xf32> to vector<16xf16>
// CHECK:       vector.transfer_write %[[YT]], %{{.*}} : vector<16xf16>, tensor<1x16xf16>
// SIZES-LABEL: func.func @elementwise(
// SIZES: step %c2
// SIZES: step %c8
// SIZES: arith.truncf %{{.*}} : vector<2x8xf32> to vector<2x8xf16>
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
// interchanged so that the reduction is innermost, one row at a time (the
// sums in the rows' order), and the 16 sums stay in a register across it.
// CHECK-LABEL: func.func @column_sum(
// CHECK:   scf.for %{{.*}} = %c0 to %c256 step %c16 iter_args(%{{.*}} = %{{.*}}) -> (tensor<256xf32>)
// CHECK:     %[[INIT:.*]] = vector.transfer_read %{{.*}} : tensor<16xf32>, vector<16xf32>
// CHECK:     %[[SUM:.*]] = scf.for %{{.*}} = %c0 to %c64 step %c1 iter_args(%[[S:.*]] = %[[INIT]]) -> (vector<16xf32>)
// CHECK:       %[[ROW:.*]] = vector.transfer_read %{{.*}} : tensor<64x256xf32>, vector<16xf32>
// CHECK:       arith.addf %[[ROW]], %[[S]] : vector<16xf32>
// CHECK:     vector.transfer_write %[[SUM]], %{{.*}} : vector<16xf32>, tensor<16xf32>
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

// A row sum reduces its contiguous innermost loop: the vector is along the
// reduction, 16 elements at a time, summed in order into the accumulator
// (vector.reduction without reassociation: ((acc + x0) + x1) + ...).
// CHECK-LABEL: func.func @row_sum(
// CHECK:   scf.for %{{.*}} = %c0 to %c8 step %c1
// CHECK:     scf.for %{{.*}} = %c0 to %c64 step %c16
// CHECK:       %[[X:.*]] = vector.transfer_read %{{.*}} : tensor<8x64xf32>, vector<16xf32>
// CHECK:       vector.reduction <add>, %[[X]], %{{.*}} : vector<16xf32> into f32
// SIZES-LABEL: func.func @row_sum(
// SIZES: scf.for %{{.*}} = %c0 to %c8 step %c2
// SIZES: scf.for %{{.*}} = %c0 to %c64 step %c8
// SIZES-COUNT-2: vector.reduction <add>, %{{.*}}, %{{.*}} : vector<8xf32> into f32
func.func @row_sum(%x: tensor<8x64xf32>, %init: tensor<8xf32>) -> tensor<8xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>,
                                        affine_map<(i, j) -> (i)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<8x64xf32>) outs(%init : tensor<8xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %in, %acc : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  return %r : tensor<8xf32>
}

// -----

// Sums carried across a reduction loop outside the vector (batch norm
// backward's per-lane sums: [N, C, S/8, 8] summed over S/8, Σdy by
// additions, Σ(x − mean)·dy by multiply-adds) are tiled even though the
// vectoriser takes no multiply-add as the reduction of the whole operation:
// the reduction loop is tiled by 1, so each tile is elementwise on its
// accumulators. The tile has 4 rows of the parallel loop before the vector
// (4 channels × 8 lanes: independent sums, 4 chains of each in flight),
// kept in registers across the 98 steps, each lane summed in its order.
// CHECK-LABEL: func.func @lane_sums(
// CHECK:   scf.for %{{.*}} = %c0 to %c4 step %c1
// CHECK:     scf.for %{{.*}} = %c0 to %c16 step %c4
// CHECK:       %[[SUMS:.*]]:2 = scf.for %{{.*}} = %c0 to %c98 step %c1 iter_args(%[[S:.*]] = %{{.*}}, %[[D:.*]] = %{{.*}}) -> (vector<4x8xf32>, vector<4x8xf32>)
// CHECK:         %[[DY:.*]] = vector.transfer_read %{{.*}} : tensor<4x16x98x8xf32>, vector<4x8xf32>
// CHECK:         %[[X:.*]] = vector.transfer_read %{{.*}} : tensor<4x16x98x8xf32>, vector<4x8xf32>
// CHECK:         %[[C:.*]] = arith.subf %[[X]], %{{.*}} : vector<4x8xf32>
// CHECK:         %[[NS:.*]] = arith.addf %[[S]], %[[DY]] : vector<4x8xf32>
// CHECK-COUNT-4: math.fma %{{.*}}, %{{.*}}, %{{.*}} : vector<8xf32>
// CHECK:         scf.yield %[[NS]], %{{.*}} : vector<4x8xf32>, vector<4x8xf32>
// CHECK:       vector.transfer_write %[[SUMS]]#1, %{{.*}} : vector<4x8xf32>, tensor<4x8xf32>
// CHECK:       vector.transfer_write %[[SUMS]]#0, %{{.*}} : vector<4x8xf32>, tensor<4x8xf32>
// CHECK-NOT: linalg.generic
// `tile-sizes` sizes the rows itself.
// SIZES-LABEL: func.func @lane_sums(
// SIZES: scf.for %{{.*}} = %c0 to %c16 step %c2
// SIZES: scf.for %{{.*}} = %c0 to %c98 step %c1 iter_args(%{{.*}}, %{{.*}}) -> (vector<2x8xf32>, vector<2x8xf32>)
func.func @lane_sums(%dy: tensor<4x16x98x8xf32>, %x: tensor<4x16x98x8xf32>,
                     %mean: tensor<16xf32>, %init: tensor<4x16x8xf32>)
    -> (tensor<4x16x8xf32>, tensor<4x16x8xf32>) {
  %r:2 = linalg.generic {indexing_maps = [affine_map<(n, c, v, l) -> (n, c, v, l)>,
                                          affine_map<(n, c, v, l) -> (n, c, v, l)>,
                                          affine_map<(n, c, v, l) -> (c)>,
                                          affine_map<(n, c, v, l) -> (n, c, l)>,
                                          affine_map<(n, c, v, l) -> (n, c, l)>],
                         iterator_types = ["parallel", "parallel", "reduction", "parallel"]}
      ins(%dy, %x, %mean : tensor<4x16x98x8xf32>, tensor<4x16x98x8xf32>, tensor<16xf32>)
      outs(%init, %init : tensor<4x16x8xf32>, tensor<4x16x8xf32>) {
  ^bb0(%g: f32, %in: f32, %m: f32, %s: f32, %d: f32):
    %c = arith.subf %in, %m : f32
    %a = arith.addf %s, %g : f32
    %f = math.fma %c, %g, %d : f32
    linalg.yield %a, %f : f32, f32
  } -> (tensor<4x16x8xf32>, tensor<4x16x8xf32>)
  return %r#0, %r#1 : tensor<4x16x8xf32>, tensor<4x16x8xf32>
}

// -----

// Sums in f64 of f32 values (batch norm's statistics, per channel over N,
// H and W) are vectors across their outputs (the 16 channels: 16 sums, one
// vector addition advances them all), not along the contiguous W loop (an
// ordered f64 vector.reduction: one chain of dependent additions), each
// channel still summed in the order n, h, w. Each step gathers the 16
// channels' values of one pixel (the sums are returned here: a transposed
// sum, @channel_statistics, would reshape its input).
// CHECK: #[[$CHANNELS:.*]] = affine_map<(d0, d1, d2, d3) -> (d1)>
// CHECK-LABEL: func.func @channel_sums(
// CHECK:   %[[SUM:.*]] = scf.for %{{.*}} = %c0 to %c4 step %c1 iter_args(%{{.*}} = %{{.*}}) -> (vector<16xf64>)
// CHECK:     scf.for %{{.*}} = %c0 to %c28 step %c1 iter_args(%{{.*}} = %{{.*}}) -> (vector<16xf64>)
// CHECK:       scf.for %{{.*}} = %c0 to %c28 step %c1 iter_args(%[[S:.*]] = %{{.*}}) -> (vector<16xf64>)
// CHECK:         %[[X:.*]] = vector.transfer_read %{{.*}} {in_bounds = [true], permutation_map = #[[$CHANNELS]]} : tensor<4x16x28x28xf32>, vector<16xf32>
// CHECK:         %[[W:.*]] = arith.extf %[[X]] : vector<16xf32> to vector<16xf64>
// CHECK:         arith.addf %[[S]], %[[W]] : vector<16xf64>
// CHECK:   vector.transfer_write %[[SUM]], %{{.*}} : vector<16xf64>, tensor<16xf64>
// CHECK-NOT: vector.reduction
// CHECK-NOT: linalg.generic
// An f32 sum of the same values stays along W (the ordered vector.reduction).
// CHECK-LABEL: func.func @channel_sums_f32(
// CHECK:   vector.transfer_read %{{.*}} : tensor<4x16x28x28xf32>, vector<4xf32>
// CHECK:   vector.reduction <add>, %{{.*}}, %{{.*}} : vector<4xf32> into f32
func.func @channel_sums(%x: tensor<4x16x28x28xf32>) -> tensor<16xf64> {
  %zero = arith.constant 0.0 : f64
  %e = tensor.empty() : tensor<16xf64>
  %init = linalg.fill ins(%zero : f64) outs(%e : tensor<16xf64>) -> tensor<16xf64>
  %r = linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>,
                                        affine_map<(n, c, h, w) -> (c)>],
                       iterator_types = ["reduction", "parallel", "reduction", "reduction"]}
      ins(%x : tensor<4x16x28x28xf32>) outs(%init : tensor<16xf64>) {
  ^bb0(%in: f32, %acc: f64):
    %w = arith.extf %in : f32 to f64
    %s = arith.addf %acc, %w : f64
    linalg.yield %s : f64
  } -> tensor<16xf64>
  return %r : tensor<16xf64>
}

func.func @channel_sums_f32(%x: tensor<4x16x28x28xf32>, %init: tensor<16xf32>) -> tensor<16xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>,
                                        affine_map<(n, c, h, w) -> (c)>],
                       iterator_types = ["reduction", "parallel", "reduction", "reduction"]}
      ins(%x : tensor<4x16x28x28xf32>) outs(%init : tensor<16xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %acc, %in : f32
    linalg.yield %s : f32
  } -> tensor<16xf32>
  return %r : tensor<16xf32>
}

// -----

// Batch norm's statistics (f64 sums of f32 values per channel, the mean's
// then the squared deviations') of an NCHW tensor whose 28x28 pixels are 49
// rows of 16: transposed sums. The pixels' loops are one (a 4x16x784 view)
// and the channels innermost; a tile reads 16 pixels of each of the 16
// channels as rows, transposes them in registers (vector<16x16xf32>), widens
// them and adds the 16 pixel rows to the 16 channels' sums one after the
// other (row 0 first): each channel summed in the order n, h, w, as above,
// without gathering a vector per pixel.
// CHECK-LABEL: func.func @channel_statistics(
// CHECK:   %[[X:.*]] = tensor.collapse_shape %{{.*}} {{\[\[}}0], [1], [2, 3]] : tensor<4x16x28x28xf32> into tensor<4x16x784xf32>
// CHECK:   %[[SUM:.*]] = scf.for %[[N:.*]] = %c0 to %c4 step %c1 iter_args(%{{.*}} = %{{.*}}) -> (vector<16xf64>)
// CHECK:     scf.for %[[P:.*]] = %c0 to %c784 step %c16 iter_args(%[[S:.*]] = %{{.*}}) -> (vector<16xf64>)
// CHECK:       %[[ROWS:.*]] = vector.transfer_read %[[X]][%[[N]], %c0, %[[P]]], %{{.*}} {in_bounds = [true, true]} : tensor<4x16x784xf32>, vector<16x16xf32>
// CHECK:       %[[T:.*]] = vector.transpose %[[ROWS]], [1, 0] : vector<16x16xf32> to vector<16x16xf32>
// CHECK:       %[[W:.*]] = arith.extf %[[T]] : vector<16x16xf32> to vector<16x16xf64>
// CHECK:       %[[R0:.*]] = vector.extract %[[W]][0] : vector<16xf64> from vector<16x16xf64>
// CHECK:       %[[S0:.*]] = arith.addf %[[R0]], %[[S]] : vector<16xf64>
// CHECK:       %[[R1:.*]] = vector.extract %[[W]][1] : vector<16xf64> from vector<16x16xf64>
// CHECK:       %[[S1:.*]] = arith.addf %[[R1]], %[[S0]] : vector<16xf64>
// CHECK:       %[[R15:.*]] = vector.extract %[[W]][15] : vector<16xf64> from vector<16x16xf64>
// CHECK:       %[[S15:.*]] = arith.addf %[[R15]], %{{.*}} : vector<16xf64>
// CHECK:       scf.yield %[[S15]] : vector<16xf64>
// The deviations: the mean broadcast across the pixel rows, subtracted and
// squared in f32 before the widening.
// CHECK:       %[[D:.*]] = vector.transpose %{{.*}}, [1, 0] : vector<16x16xf32> to vector<16x16xf32>
// CHECK:       %[[MEAN:.*]] = vector.broadcast %{{.*}} : vector<16xf32> to vector<16x16xf32>
// CHECK:       %[[DEV:.*]] = arith.subf %[[D]], %[[MEAN]] : vector<16x16xf32>
// CHECK:       %[[SQ:.*]] = arith.mulf %[[DEV]], %[[DEV]] : vector<16x16xf32>
// CHECK:       arith.extf %[[SQ]] : vector<16x16xf32> to vector<16x16xf64>
// CHECK-NOT: vector.reduction
// CHECK-NOT: vector.multi_reduction
// 14x14 pixels (196, no multiple of 16): gathered per pixel, as above.
// CHECK-LABEL: func.func @channel_statistics_196(
// CHECK-NOT:   tensor.collapse_shape
// CHECK:       vector.transfer_read %{{.*}} {in_bounds = [true], permutation_map = #{{.*}}} : tensor<4x16x14x14xf32>, vector<16xf32>
func.func @channel_statistics(%x: tensor<4x16x28x28xf32>) -> tensor<16xf32> {
  %zero = arith.constant 0.0 : f64
  %count = arith.constant 3136.0 : f64
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
    %d = arith.divf %in, %count : f64
    %t = arith.truncf %d : f64 to f32
    linalg.yield %t : f32
  } -> tensor<16xf32>
  %squares = linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>,
                                              affine_map<(n, c, h, w) -> (c)>,
                                              affine_map<(n, c, h, w) -> (c)>],
                             iterator_types = ["reduction", "parallel", "reduction", "reduction"]}
      ins(%x, %mean : tensor<4x16x28x28xf32>, tensor<16xf32>) outs(%init : tensor<16xf64>) {
  ^bb0(%in: f32, %m: f32, %acc: f64):
    %d = arith.subf %in, %m : f32
    %q = arith.mulf %d, %d : f32
    %w = arith.extf %q : f32 to f64
    %s = arith.addf %acc, %w : f64
    linalg.yield %s : f64
  } -> tensor<16xf64>
  %var = linalg.generic {indexing_maps = [affine_map<(c) -> (c)>, affine_map<(c) -> (c)>],
                         iterator_types = ["parallel"]}
      ins(%squares : tensor<16xf64>) outs(%e32 : tensor<16xf32>) {
  ^bb0(%in: f64, %out: f32):
    %d = arith.divf %in, %count : f64
    %t = arith.truncf %d : f64 to f32
    linalg.yield %t : f32
  } -> tensor<16xf32>
  return %var : tensor<16xf32>
}

func.func @channel_statistics_196(%x: tensor<4x16x14x14xf32>) -> tensor<16xf32> {
  %zero = arith.constant 0.0 : f64
  %e = tensor.empty() : tensor<16xf64>
  %init = linalg.fill ins(%zero : f64) outs(%e : tensor<16xf64>) -> tensor<16xf64>
  %sum = linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>,
                                          affine_map<(n, c, h, w) -> (c)>],
                         iterator_types = ["reduction", "parallel", "reduction", "reduction"]}
      ins(%x : tensor<4x16x14x14xf32>) outs(%init : tensor<16xf64>) {
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

// -----

// A multiply-add sum along the vector loop (its contiguous innermost
// reduction) would need a vector reduction by multiply-adds, which has no
// ordered form: it is left as it is, for the scalar loops.
// CHECK-LABEL: func.func @row_fma_sum(
// CHECK:   linalg.generic
// CHECK:     math.fma %{{.*}}, %{{.*}}, %{{.*}} : f32
// CHECK-NOT: vector.
func.func @row_fma_sum(%x: tensor<8x64xf32>, %init: tensor<8xf32>) -> tensor<8xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>,
                                        affine_map<(i, j) -> (i)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<8x64xf32>) outs(%init : tensor<8xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = math.fma %in, %in, %acc : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  return %r : tensor<8xf32>
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


// -----

// The weight gradient Aᵀ·B reads A along M: A [K, M] is packed into panels
// of 4 rows with K inside ([M/4, K, 4]), so that a K step reads the next 4
// contiguous elements instead of 4 elements M apart.
// CHECK-LABEL: func.func @weight_gradient(
// CHECK:   %[[AX:.*]] = tensor.expand_shape %{{.*}} {{\[\[}}0], [1, 2]] output_shape [64, 4, 4] : tensor<64x16xf32> into tensor<64x4x4xf32>
// CHECK:   %[[PACKEDA:.*]] = scf.for %{{.*}} -> (tensor<4x64x4xf32>)
// CHECK:   %[[PACKED:.*]] = scf.for %{{.*}} -> (tensor<2x64x16xf32>)
// CHECK:   scf.for %{{.*}} = %c0 to %c2 step %c1 iter_args(%{{.*}}) -> (tensor<4x4x2x16xf32>)
// CHECK:     scf.for %{{.*}} = %c0 to %c4 step %c1 iter_args(%{{.*}}) -> (tensor<4x4x2x16xf32>)
// CHECK:       scf.for %{{.*}} = %c0 to %c64 step %c1 iter_args(%{{.*}}) -> (vector<4x16xf32>)
// CHECK:         vector.transfer_read %[[PACKEDA]]{{.*}} : tensor<4x64x4xf32>, vector<4xf32>
// CHECK:         vector.transfer_read %[[PACKED]]{{.*}} : tensor<2x64x16xf32>, vector<16xf32>
// CHECK:         arith.mulf %{{.*}}, %{{.*}} : vector<4x16xf32>
// CHECK:         arith.addf %{{.*}}, %{{.*}} : vector<4x16xf32>
func.func @weight_gradient(%a: tensor<64x16xf32>, %b: tensor<64x32xf32>,
                           %c: tensor<16x32xf32>) -> tensor<16x32xf32> {
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>,
                                      affine_map<(m, n, k) -> (k, n)>,
                                      affine_map<(m, n, k) -> (m, n)>]
      ins(%a, %b : tensor<64x16xf32>, tensor<64x32xf32>)
      outs(%c : tensor<16x32xf32>) -> tensor<16x32xf32>
  return %r : tensor<16x32xf32>
}


// -----

// An AMP matmul (bf16 operands, f32 accumulation) widens its operands
// (extf is exact): A, whose rows are contiguous along K, by an elementwise
// copy in its own layout (16 lanes per step), B while packing it: the tile's
// K steps multiply and add f32 values with no conversion, as an f32 matmul
// does.
// CHECK-LABEL: func.func @widened(
// CHECK:   %[[WIDEA:.*]] = scf.for %{{.*}} -> (tensor<16x64xf32>)
// CHECK:         vector.transfer_read %{{.*}} : tensor<16x64xbf16>, vector<16xbf16>
// CHECK:         arith.extf %{{.*}} : vector<16xbf16> to vector<16xf32>
// CHECK:         vector.transfer_write %{{.*}} : vector<16xf32>, tensor<1x16xf32>
// CHECK:   %[[PACKED:.*]] = scf.for %{{.*}} -> (tensor<2x64x16xf32>)
// CHECK:       vector.transfer_read %{{.*}} : tensor<64x2x16xbf16>, vector<16xbf16>
// CHECK:       arith.extf %{{.*}} : vector<16xbf16> to vector<16xf32>
// CHECK:       scf.for %{{.*}} = %c0 to %c64 step %c1 iter_args(%[[S:.*]] = %{{.*}}) -> (vector<4x16xf32>)
// CHECK-NEXT:    vector.transfer_read %[[WIDEA]]{{.*}} : tensor<16x64xf32>, vector<4xf32>
// CHECK-NEXT:    vector.shape_cast
// CHECK-NEXT:    vector.broadcast
// CHECK-NEXT:    vector.transfer_read %[[PACKED]]{{.*}} : tensor<2x64x16xf32>, vector<16xf32>
// CHECK-NEXT:    vector.broadcast
// CHECK-NEXT:    %[[P:.*]] = arith.mulf %{{.*}}, %{{.*}} : vector<4x16xf32>
// CHECK-NEXT:    arith.addf %[[S]], %[[P]] : vector<4x16xf32>
// CHECK-NOT:     math.fma
func.func @widened(%a: tensor<16x64xbf16>, %b: tensor<64x32xbf16>,
                   %c: tensor<16x32xf32>) -> tensor<16x32xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<16x64xbf16>, tensor<64x32xbf16>)
      outs(%c : tensor<16x32xf32>) -> tensor<16x32xf32>
  return %r : tensor<16x32xf32>
}


// -----

// A contraction into a zero fill (a convolution's pixel-major product: the
// im2col in panels of 7 pixels, [P, K, 7], read at (p, k, r)): the fill is
// fused into the parallel tile loops, so the accumulators start from a
// zero vector in registers, the loops' destination is the fill's empty
// tensor (no fill of the whole result, no reading it back), and nothing
// zeroes the tile's slice in memory. The M loop of 7 pixels is one tile
// even with an M tile of 4 (its divisors up to 4: 1) and with 8.
// CHECK-LABEL: func.func @panels(
// CHECK-DAG:   %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : vector<7x16xf32>
// CHECK-DAG:   %[[EMPTY:.*]] = tensor.empty() : tensor<6x7x16xf32>
// CHECK-NOT:   linalg.fill
// CHECK:       %[[R:.*]] = scf.for %[[P:.*]] = %c0 to %c6 step %c1 iter_args(%[[T:.*]] = %[[EMPTY]]) -> (tensor<6x7x16xf32>)
// CHECK-NEXT:    %[[SLICE:.*]] = tensor.extract_slice %[[T]][%[[P]], 0, 0] [1, 7, 16] [1, 1, 1]
// CHECK-NEXT:    %[[TILE:.*]] = tensor.extract_slice %[[SLICE]][0, 0, 0] [1, 7, 16] [1, 1, 1] : tensor<1x7x16xf32> to tensor<7x16xf32>
// CHECK-NEXT:    %[[SUM:.*]] = scf.for %{{.*}} = %c0 to %c144 step %c1 iter_args(%[[S:.*]] = %[[ZERO]]) -> (vector<7x16xf32>)
// CHECK-NEXT:      vector.transfer_read %{{.*}} : tensor<6x144x7xf32>, vector<7xf32>
// CHECK-NEXT:      vector.shape_cast %{{.*}} : vector<7xf32> to vector<7x1xf32>
// CHECK-NEXT:      vector.broadcast %{{.*}} : vector<7x1xf32> to vector<7x16xf32>
// CHECK-NEXT:      vector.transfer_read %{{.*}} : tensor<144x16xf32>, vector<16xf32>
// CHECK-NEXT:      vector.broadcast
// CHECK-NEXT:      %[[PR:.*]] = arith.mulf %{{.*}}, %{{.*}} : vector<7x16xf32>
// CHECK-NEXT:      arith.addf %[[S]], %[[PR]] : vector<7x16xf32>
// CHECK:         %[[W:.*]] = vector.transfer_write %[[SUM]], %[[TILE]][%c0, %c0] {{.*}} : vector<7x16xf32>, tensor<7x16xf32>
// CHECK-NEXT:    tensor.insert_slice %[[W]] into %[[SLICE]]
// CHECK-NOT:   vector.transfer_write %[[ZERO]]
// CHECK:       return %[[R]]
// AVX512-LABEL: func.func @panels(
// AVX512-NOT:   linalg.fill
// AVX512:       scf.for %{{.*}} = %c0 to %c6 step %c1
// AVX512:         scf.for %{{.*}} = %c0 to %c144 step %c1 iter_args(%{{.*}} = %{{.*}}) -> (vector<7x16xf32>)
func.func @panels(%col: tensor<6x144x7xf32>, %w: tensor<144x16xf32>) -> tensor<6x7x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<6x7x16xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<6x7x16xf32>) -> tensor<6x7x16xf32>
  %r = linalg.contract indexing_maps = [affine_map<(p, r, f, k) -> (p, k, r)>,
                                        affine_map<(p, r, f, k) -> (k, f)>,
                                        affine_map<(p, r, f, k) -> (p, r, f)>]
      ins(%col, %w : tensor<6x144x7xf32>, tensor<144x16xf32>)
      outs(%acc : tensor<6x7x16xf32>) -> tensor<6x7x16xf32>
  return %r : tensor<6x7x16xf32>
}


// -----

// A fill with a use other than accumulators is not fused: it is filled on
// its own (rows of 16 zeros), and the contraction reads its accumulators
// from it.
// CHECK-LABEL: func.func @shared_fill(
// CHECK:       %[[FILLED:.*]] = scf.for {{.*}} -> (tensor<16x16xf32>)
// CHECK:         vector.transfer_write %{{.*}} : vector<16xf32>, tensor<1x16xf32>
// CHECK:       %[[R:.*]] = scf.for %{{.*}} = %c0 to %c16 step %c4 iter_args(%[[T:.*]] = %[[FILLED]])
// CHECK-NEXT:    %[[SLICE:.*]] = tensor.extract_slice %[[T]]
// CHECK-NEXT:    %[[ACC:.*]] = vector.transfer_read %[[SLICE]]{{.*}} : tensor<4x16xf32>, vector<4x16xf32>
// CHECK-NEXT:    scf.for %{{.*}} = %c0 to %c64 step %c1 iter_args(%{{.*}} = %[[ACC]]) -> (vector<4x16xf32>)
// CHECK:       return %[[R]], %[[FILLED]]
func.func @shared_fill(%a: tensor<16x64xf32>, %b: tensor<64x16xf32>) -> (tensor<16x16xf32>, tensor<16x16xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x16xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<16x16xf32>) -> tensor<16x16xf32>
  %r = linalg.matmul ins(%a, %b : tensor<16x64xf32>, tensor<64x16xf32>)
      outs(%acc : tensor<16x16xf32>) -> tensor<16x16xf32>
  return %r, %acc : tensor<16x16xf32>, tensor<16x16xf32>
}


// -----

// An implicit-GEMM convolution (the pixel-major product read from the
// padded input: its map sums loops, so it is no contraction linalg
// recognises): tiled as one, the 7 pixels r of a panel (one tile with an M
// tile of 4 too) times 16 filters f, the fill fused into the parallel
// loops, the reductions c, kh, kw by 1 in that order inside, the
// accumulators in registers across all three from a zero vector. A tile
// reads the 7 input elements at (n, c, oh + kh, 7·owb + kw) one by one
// (scalar reads, each extended exactly, then splat across its row: no
// vector load whose lanes LLVM would splat with shuffles), and multiplies
// and adds them separately (no FMA). kw shifts the row the tile reads, so
// its loop carries an LLVM loop annotation that keeps it rolled: unrolled,
// LLVM would load an element two kw steps share once for two products,
// not fold it into each multiplication.
// CHECK-DAG:   #[[$UNROLL:.*]] = #llvm.loop_unroll<disable = true>
// CHECK-DAG:   #[[$ROLLED:.*]] = #llvm.loop_annotation<unroll = #[[$UNROLL]]>
// CHECK-LABEL: func.func @implicit_conv(
// CHECK-SAME:    %[[X:.*]]: tensor<1x2x4x9xbf16>, %[[W:.*]]: tensor<2x3x3x16xf32>)
// CHECK-DAG:   %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : vector<7x16xf32>
// CHECK-DAG:   %[[EMPTY:.*]] = tensor.empty() : tensor<1x2x1x7x16xf32>
// CHECK-NOT:   linalg.fill
// CHECK:       scf.for %[[OH:.*]] = %c0 to %c2 step %c1 iter_args(%{{.*}} = %[[EMPTY]]) -> (tensor<1x2x1x7x16xf32>)
// CHECK:         %[[ROWS:.*]] = tensor.extract_slice %[[X]][0, 0, %[[OH]], 0] [1, 2, 3, 9] [1, 1, 1, 1] : tensor<1x2x4x9xbf16> to tensor<1x2x3x9xbf16>
// CHECK:         %[[TILE:.*]] = tensor.extract_slice %{{.*}} : tensor<1x1x1x7x16xf32> to tensor<7x16xf32>
// CHECK-NEXT:    %[[SUM:.*]] = scf.for %[[C:.*]] = %c0 to %c2 step %c1 iter_args(%[[S0:.*]] = %[[ZERO]]) -> (vector<7x16xf32>)
// CHECK-NEXT:      scf.for %[[KH:.*]] = %c0 to %c3 step %c1 iter_args(%[[S1:.*]] = %[[S0]]) -> (vector<7x16xf32>)
// CHECK-NEXT:        scf.for %[[KW:.*]] = %c0 to %c3 step %c1 iter_args(%[[S2:.*]] = %[[S1]]) -> (vector<7x16xf32>)
// CHECK-NEXT:          %[[SLICE:.*]] = tensor.extract_slice %[[ROWS]][0, %[[C]], %[[KH]], %[[KW]]] [1, 1, 1, 7] [1, 1, 1, 1] : tensor<1x2x3x9xbf16> to tensor<1x1x1x7xbf16>
// CHECK-NEXT:          %[[PIXELS:.*]] = tensor.extract_slice %[[SLICE]][0, 0, 0, 0] [1, 1, 1, 7] [1, 1, 1, 1] : tensor<1x1x1x7xbf16> to tensor<7xbf16>
// CHECK-NEXT:          %[[A0:.*]] = tensor.extract %[[PIXELS]][%c0] : tensor<7xbf16>
// CHECK-NEXT:          %[[E0:.*]] = arith.extf %[[A0]] : bf16 to f32
// CHECK-NEXT:          %[[A1:.*]] = tensor.extract %[[PIXELS]][%c1] : tensor<7xbf16>
// CHECK-NEXT:          %[[E1:.*]] = arith.extf %[[A1]] : bf16 to f32
// CHECK-COUNT-5:       arith.extf %{{.*}} : bf16 to f32
// CHECK-NEXT:          %[[COLUMN:.*]] = vector.from_elements %[[E0]], %[[E1]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : vector<7xf32>
// CHECK-NEXT:          %[[STRETCH:.*]] = vector.shape_cast %[[COLUMN]] : vector<7xf32> to vector<7x1xf32>
// CHECK-NEXT:          %[[SPLATS:.*]] = vector.broadcast %[[STRETCH]] : vector<7x1xf32> to vector<7x16xf32>
// CHECK-NEXT:          %[[B:.*]] = vector.transfer_read %[[W]][%[[C]], %[[KH]], %[[KW]], %c0], %{{.*}} {in_bounds = [true]} : tensor<2x3x3x16xf32>, vector<16xf32>
// CHECK-NEXT:          %[[BS:.*]] = vector.broadcast %[[B]] : vector<16xf32> to vector<7x16xf32>
// CHECK-NEXT:          %[[P:.*]] = arith.mulf %[[SPLATS]], %[[BS]] : vector<7x16xf32>
// CHECK-NEXT:          %[[N:.*]] = arith.addf %[[S2]], %[[P]] : vector<7x16xf32>
// CHECK-NEXT:          scf.yield %[[N]] : vector<7x16xf32>
// CHECK-NEXT:        } {loop_annotation = #[[$ROLLED]]}
// CHECK-NEXT:        scf.yield
// CHECK-NEXT:      }
// CHECK-NOT:       loop_annotation
// CHECK:         vector.transfer_write %[[SUM]], %[[TILE]][%c0, %c0] {{.*}} : vector<7x16xf32>, tensor<7x16xf32>
// CHECK-NOT:   math.fma
// CHECK-NOT:   vector<7xbf16>
func.func @implicit_conv(%x: tensor<1x2x4x9xbf16>, %w: tensor<2x3x3x16xf32>) -> tensor<1x2x1x7x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x2x1x7x16xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<1x2x1x7x16xf32>) -> tensor<1x2x1x7x16xf32>
  %r = linalg.generic {
      indexing_maps = [affine_map<(n, oh, owb, r, f, c, kh, kw) -> (n, c, oh + kh, owb * 7 + r + kw)>,
                       affine_map<(n, oh, owb, r, f, c, kh, kw) -> (c, kh, kw, f)>,
                       affine_map<(n, oh, owb, r, f, c, kh, kw) -> (n, oh, owb, r, f)>],
      iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%x, %w : tensor<1x2x4x9xbf16>, tensor<2x3x3x16xf32>) outs(%acc : tensor<1x2x1x7x16xf32>) {
  ^bb0(%a: bf16, %b: f32, %out: f32):
    %aw = arith.extf %a : bf16 to f32
    %p = arith.mulf %aw, %b : f32
    %s = arith.addf %out, %p : f32
    linalg.yield %s : f32
  } -> tensor<1x2x1x7x16xf32>
  return %r : tensor<1x2x1x7x16xf32>
}

// -----

// A 1x1 implicit convolution: kh and kw have one step each, their loops
// fold away, and the loop left, over the channels c, reads a new row each
// step (no overlap): it carries no loop annotation. The tile still reads
// its 4 pixels one by one.
// CHECK-LABEL: func.func @implicit_conv_1x1(
// CHECK:         scf.for %[[C:.*]] = %c0 to %c4 step %c1 iter_args(%{{.*}}) -> (vector<4x16xf32>)
// CHECK:           %[[PIXELS:.*]] = tensor.extract_slice %{{.*}} : tensor<1x1x1x4xf32> to tensor<4xf32>
// CHECK-NEXT:      %[[A0:.*]] = tensor.extract %[[PIXELS]][%c0] : tensor<4xf32>
// CHECK-NEXT:      %[[A1:.*]] = tensor.extract %[[PIXELS]][%c1] : tensor<4xf32>
// CHECK-NEXT:      %[[A2:.*]] = tensor.extract %[[PIXELS]][%c2] : tensor<4xf32>
// CHECK-NEXT:      %[[A3:.*]] = tensor.extract %[[PIXELS]][%c3] : tensor<4xf32>
// CHECK-NEXT:      vector.from_elements %[[A0]], %[[A1]], %[[A2]], %[[A3]] : vector<4xf32>
// CHECK:           scf.yield %{{.*}} : vector<4x16xf32>
// CHECK-NEXT:    }
// CHECK-NOT:     loop_annotation
// CHECK:       return
func.func @implicit_conv_1x1(%x: tensor<1x4x2x8xf32>, %w: tensor<4x1x1x16xf32>) -> tensor<1x2x2x4x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x2x2x4x16xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<1x2x2x4x16xf32>) -> tensor<1x2x2x4x16xf32>
  %r = linalg.generic {
      indexing_maps = [affine_map<(n, oh, owb, r, f, c, kh, kw) -> (n, c, oh + kh, owb * 4 + r + kw)>,
                       affine_map<(n, oh, owb, r, f, c, kh, kw) -> (c, kh, kw, f)>,
                       affine_map<(n, oh, owb, r, f, c, kh, kw) -> (n, oh, owb, r, f)>],
      iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%x, %w : tensor<1x4x2x8xf32>, tensor<4x1x1x16xf32>) outs(%acc : tensor<1x2x2x4x16xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %out, %p : f32
    linalg.yield %s : f32
  } -> tensor<1x2x2x4x16xf32>
  return %r : tensor<1x2x2x4x16xf32>
}

// -----

// An implicit filter gradient (convert-mp-to-linalg's, read from the padded
// input, loops (kh, kw, c, f, n, oh, ow)): tiled as a contraction whose M
// rows are the channels c (the last parallel loop that the input and the
// output read and the transposed gradient does not) and whose N vector is
// the filters f. Outside, kh and kw by 1, c by the M tile and f by the N
// tile; inside, the reductions n, oh, ow by 1 in that order, the
// accumulators in registers across all three from a zero vector (the fill
// fused). Per (n, oh, ow) a tile reads a column of the input, one element
// per channel (at (n, c, oh + kh, ow + kw), a stretching broadcast of it:
// a broadcast per row, as a matmul's A read in place), and one row of the
// gradient, and multiplies and adds them separately (no FMA). With 16
// channels, twice the M tile (4), and 16 filters, more than half the N tile
// (16), the tile is 8 rows of 8: one product per broadcast element. No
// reduction loop shifts the channels it reads, so its loops may be
// unrolled (no loop annotation) and its column stays one read.
// CHECK-DAG:   #[[$ROW:.*]] = affine_map<()[s0, s1] -> (s0 + s1)>
// CHECK-DAG:   #[[$COLUMN:.*]] = affine_map<(d0, d1, d2, d3) -> (d1)>
// CHECK-LABEL: func.func @implicit_grad_filter(
// CHECK-SAME:    %[[X:.*]]: tensor<2x16x6x6xf32>, %[[DY:.*]]: tensor<2x4x4x16xf32>)
// CHECK-DAG:   %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : vector<8x8xf32>
// CHECK-DAG:   %[[EMPTY:.*]] = tensor.empty() : tensor<3x3x16x16xf32>
// CHECK-NOT:   linalg.fill
// CHECK:       scf.for %[[KH:.*]] = %c0 to %c3 step %c1 iter_args(%{{.*}} = %[[EMPTY]]) -> (tensor<3x3x16x16xf32>)
// CHECK-NEXT:    scf.for %[[KW:.*]] = %c0 to %c3 step %c1
// CHECK-NEXT:      scf.for %[[C:.*]] = %c0 to %c16 step %c8
// CHECK-NEXT:        scf.for %[[F:.*]] = %c0 to %c16 step %c8
// CHECK:               %[[TILE:.*]] = tensor.extract_slice %{{.*}} : tensor<1x1x8x8xf32> to tensor<8x8xf32>
// CHECK-NEXT:          %[[SUM:.*]] = scf.for %[[N:.*]] = %c0 to %c2 step %c1 iter_args(%[[S0:.*]] = %[[ZERO]]) -> (vector<8x8xf32>)
// CHECK-NEXT:            scf.for %[[OH:.*]] = %c0 to %c4 step %c1 iter_args(%[[S1:.*]] = %[[S0]]) -> (vector<8x8xf32>)
// CHECK-NEXT:              scf.for %[[OW:.*]] = %c0 to %c4 step %c1 iter_args(%[[S2:.*]] = %[[S1]]) -> (vector<8x8xf32>)
// CHECK-NEXT:                %[[H:.*]] = affine.apply #[[$ROW]]()[%[[KH]], %[[OH]]]
// CHECK-NEXT:                %[[W:.*]] = affine.apply #[[$ROW]]()[%[[KW]], %[[OW]]]
// CHECK-NEXT:                %[[COL:.*]] = vector.transfer_read %[[X]][%[[N]], %[[C]], %[[H]], %[[W]]], %{{.*}} {in_bounds = [true], permutation_map = #[[$COLUMN]]} : tensor<2x16x6x6xf32>, vector<8xf32>
// CHECK-NEXT:                %[[STRETCH:.*]] = vector.shape_cast %[[COL]] : vector<8xf32> to vector<8x1xf32>
// CHECK-NEXT:                %[[ROWS:.*]] = vector.broadcast %[[STRETCH]] : vector<8x1xf32> to vector<8x8xf32>
// CHECK-NEXT:                %[[G:.*]] = vector.transfer_read %[[DY]][%[[N]], %[[OH]], %[[OW]], %[[F]]], %{{.*}} {in_bounds = [true]} : tensor<2x4x4x16xf32>, vector<8xf32>
// CHECK-NEXT:                %[[GS:.*]] = vector.broadcast %[[G]] : vector<8xf32> to vector<8x8xf32>
// CHECK-NEXT:                %[[P:.*]] = arith.mulf %[[ROWS]], %[[GS]] : vector<8x8xf32>
// CHECK-NEXT:                %[[NEXT:.*]] = arith.addf %[[S2]], %[[P]] : vector<8x8xf32>
// CHECK-NEXT:                scf.yield %[[NEXT]] : vector<8x8xf32>
// CHECK:               vector.transfer_write %[[SUM]], %[[TILE]][%c0, %c0] {{.*}} : vector<8x8xf32>, tensor<8x8xf32>
// CHECK-NOT:   math.fma
// CHECK-NOT:   vector.transpose
// CHECK-NOT:   loop_annotation
// The AVX-512 tile, 8 x 32: 16 filters fit in half of it, so the tile keeps
// its 8 rows, of 16 filters.
// AVX512-LABEL: func.func @implicit_grad_filter(
// AVX512:       scf.for %{{.*}} = %c0 to %c16 step %c8
// AVX512-NOT:     scf.for
// AVX512:         tensor.extract_slice %{{.*}} : tensor<1x1x8x16xf32> to tensor<8x16xf32>
// AVX512-NEXT:    scf.for %{{.*}} = %c0 to %c2 step %c1 iter_args(%{{.*}}) -> (vector<8x16xf32>)
// AVX512:           vector.transfer_read %{{.*}} : tensor<2x16x6x6xf32>, vector<8xf32>
// AVX512-NEXT:      vector.shape_cast %{{.*}} : vector<8xf32> to vector<8x1xf32>
// AVX512-NEXT:      vector.broadcast %{{.*}} : vector<8x1xf32> to vector<8x16xf32>
// AVX512:           vector.transfer_read %{{.*}} : tensor<2x4x4x16xf32>, vector<16xf32>
func.func @implicit_grad_filter(%x: tensor<2x16x6x6xf32>, %dy: tensor<2x4x4x16xf32>) -> tensor<3x3x16x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3x3x16x16xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<3x3x16x16xf32>) -> tensor<3x3x16x16xf32>
  %r = linalg.generic {
      indexing_maps = [affine_map<(kh, kw, c, f, n, oh, ow) -> (n, c, oh + kh, ow + kw)>,
                       affine_map<(kh, kw, c, f, n, oh, ow) -> (n, oh, ow, f)>,
                       affine_map<(kh, kw, c, f, n, oh, ow) -> (kh, kw, c, f)>],
      iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%x, %dy : tensor<2x16x6x6xf32>, tensor<2x4x4x16xf32>) outs(%acc : tensor<3x3x16x16xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %out, %p : f32
    linalg.yield %s : f32
  } -> tensor<3x3x16x16xf32>
  return %r : tensor<3x3x16x16xf32>
}

// -----

// A packed contraction onto a zero fill: packing expands the output into
// panels ([64, 8, 16]), and the reshaped fill becomes a fill of the panel
// shape, which is fused into the tile loops like any accumulator fill: no
// fill nest of its own, the loops start from a tensor.empty of the panels.
// CHECK-LABEL: func.func @packed_fill(
// CHECK-DAG:   %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : vector<4x1x16xf32>
// CHECK-NOT:   linalg.fill
// CHECK:       %[[EMPTY:.*]] = tensor.empty() : tensor<64x8x16xf32>
// CHECK:       %[[R:.*]] = scf.for %{{.*}} iter_args(%{{.*}} = %[[EMPTY]]) -> (tensor<64x8x16xf32>)
// CHECK:         scf.for %{{.*}} = %c0 to %c64 step %c4
// CHECK:           vector.transfer_write %[[ZERO]]
// CHECK:           scf.for %{{.*}} = %c0 to %c32 step %c1 iter_args(%{{.*}}) -> (vector<4x16xf32>)
// CHECK:       tensor.collapse_shape %[[R]] {{\[\[}}0], [1, 2]] : tensor<64x8x16xf32> into tensor<64x128xf32>
func.func @packed_fill(%a: tensor<64x32xf32>, %b: tensor<32x128xf32>) -> tensor<64x128xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x128xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<64x128xf32>) -> tensor<64x128xf32>
  %r = linalg.matmul ins(%a, %b : tensor<64x32xf32>, tensor<32x128xf32>)
      outs(%c : tensor<64x128xf32>) -> tensor<64x128xf32>
  return %r : tensor<64x128xf32>
}

// -----

// The AVX-512 hosts' default tile, 16 x 16: one accumulator register a row,
// so that each broadcast A element feeds one multiplication (LLVM folds it
// into the multiply). 16 rows read in place would be 16 streams through L1,
// evicting each other at 4 KiB strides, so A is packed into panels of 16
// rows ([4, 32, 16], K inside; 16 x 16 blocks transposed in registers) as
// well as B ([8, 32, 16]), and the
// accumulator fill, reshaped twice into the panels' shape, is still fused
// into the tile loops (they start from a tensor.empty).
// With the 8 x 32 tile (8 rows) A is read in place.
// TALL-LABEL: func.func @tall_tile(
// TALL-SAME:    %[[A:[^:]*]]: tensor<64x32xf32>
// TALL:         %[[AX:.*]] = tensor.expand_shape %[[A]] {{\[\[}}0, 1], [2]] output_shape [4, 16, 32]
// TALL:         %[[PA:.*]] = scf.for {{.*}} -> (tensor<4x32x16xf32>)
// TALL:           vector.transfer_read %[[AX]]{{.*}} : tensor<4x16x32xf32>, vector<16x16xf32>
// TALL:           vector.transpose
// TALL:         %[[PB:.*]] = scf.for {{.*}} -> (tensor<8x32x16xf32>)
// TALL-NOT:     linalg.fill
// TALL:         %[[EMPTY:.*]] = tensor.empty() : tensor<4x16x8x16xf32>
// TALL:         scf.for %{{.*}} = %c0 to %c8 step %c1 iter_args(%{{.*}} = %[[EMPTY]])
// TALL:           scf.for %{{.*}} = %c0 to %c4 step %c1
// TALL:             scf.for %{{.*}} = %c0 to %c32 step %c1 iter_args(%{{.*}}) -> (vector<16x16xf32>)
// TALL:               vector.transfer_read %[[PA]]{{.*}} : tensor<4x32x16xf32>, vector<16xf32>
// TALL:               vector.transfer_read %[[PB]]{{.*}} : tensor<8x32x16xf32>, vector<16xf32>
// TALL:               arith.mulf %{{.*}}, %{{.*}} : vector<16x16xf32>
// TALL:               arith.addf %{{.*}}, %{{.*}} : vector<16x16xf32>
// AVX512-LABEL: func.func @tall_tile(
// AVX512-SAME:    %[[A:[^:]*]]: tensor<64x32xf32>
// AVX512-NOT:     tensor.expand_shape %[[A]]
// AVX512:         scf.for {{.*}} -> (vector<8x32xf32>)
// AVX512:           vector.transfer_read %[[A]]{{.*}} : tensor<64x32xf32>, vector<8xf32>
func.func @tall_tile(%a: tensor<64x32xf32>, %b: tensor<32x128xf32>) -> tensor<64x128xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x128xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<64x128xf32>) -> tensor<64x128xf32>
  %r = linalg.matmul ins(%a, %b : tensor<64x32xf32>, tensor<32x128xf32>)
      outs(%c : tensor<64x128xf32>) -> tensor<64x128xf32>
  return %r : tensor<64x128xf32>
}

// -----

// A convolution's product read back to NCHW with a per-channel scale (the
// rounding generic of the conv lowering): the input is read at linearised
// loops ((n·4 + h)·8 + w, c) of a 64x16 N(HW)C tensor, which becomes an
// expanded view [2, 32, 16] read at (n, hw, c), h and w (consecutive in
// both) collapse into one loop of 32 pixels, and the tiles are 16 channels
// x 16 pixels: 16 rows of 16 channels read, transposed in registers, scaled
// and written as 16 rows of 16 pixels. The scale is a column splat.
// CHECK-LABEL: func.func @to_nchw(
// CHECK-SAME:    %[[X:.*]]: tensor<64x16xf32>, %[[S:.*]]: tensor<16xf32>)
// CHECK-DAG:   %[[EMPTY:.*]] = tensor.empty() : tensor<2x16x4x8xf32>
// CHECK-DAG:   %[[VIEW:.*]] = tensor.expand_shape %[[X]] {{\[\[}}0, 1], [2]] output_shape [2, 32, 16] : tensor<64x16xf32> into tensor<2x32x16xf32>
// CHECK-DAG:   %[[OUT:.*]] = tensor.collapse_shape %[[EMPTY]] {{\[\[}}0], [1], [2, 3]] : tensor<2x16x4x8xf32> into tensor<2x16x32xf32>
// CHECK:       %[[R:.*]] = scf.for %[[N:.*]] = %c0 to %c2 step %c1 iter_args(%{{.*}} = %[[OUT]]) -> (tensor<2x16x32xf32>)
// CHECK:         scf.for %[[P:.*]] = %c0 to %c32 step %c16 iter_args(%{{.*}}) -> (tensor<2x16x32xf32>)
// CHECK:           %[[ROWS:.*]] = vector.transfer_read %[[VIEW]][%[[N]], %[[P]], %c0], %{{.*}} {in_bounds = [true, true]} : tensor<2x32x16xf32>, vector<16x16xf32>
// CHECK-NEXT:      %[[T:.*]] = vector.transpose %[[ROWS]], [1, 0] : vector<16x16xf32> to vector<16x16xf32>
// CHECK-NEXT:      %[[SV:.*]] = vector.transfer_read %[[S]][%c0], %{{.*}} : tensor<16xf32>, vector<16xf32>
// CHECK-NEXT:      %[[COL:.*]] = vector.shape_cast %[[SV]] : vector<16xf32> to vector<16x1xf32>
// CHECK-NEXT:      %[[SPLAT:.*]] = vector.broadcast %[[COL]] : vector<16x1xf32> to vector<16x16xf32>
// CHECK-NEXT:      %[[Y:.*]] = arith.mulf %[[T]], %[[SPLAT]] : vector<16x16xf32>
// CHECK-NEXT:      vector.transfer_write %[[Y]], %{{.*}}[%c0, %c0, %c0] {in_bounds = [true, true]} : vector<16x16xf32>, tensor<1x16x16xf32>
// CHECK:       %[[Y:.*]] = tensor.expand_shape %[[R]] {{\[\[}}0], [1], [2, 3]] output_shape [2, 16, 4, 8] : tensor<2x16x32xf32> into tensor<2x16x4x8xf32>
// CHECK:       call @use(%[[Y]])
// CHECK-NOT:   linalg.generic
// A result that is returned keeps its loops (the returned reshape would be
// copied into the caller's buffer): blocks of 16 channels x the 8 pixels of
// a row.
// CHECK-LABEL: func.func @to_nchw_returned(
// CHECK-NOT:   tensor.collapse_shape
// CHECK:       vector.transfer_read %{{.*}} : tensor<2x4x8x16xf32>, vector<8x16xf32>
// CHECK-NEXT:  vector.transpose %{{.*}}, [1, 0] : vector<8x16xf32> to vector<16x8xf32>
func.func private @use(tensor<2x16x4x8xf32>)
func.func @to_nchw(%x: tensor<64x16xf32>, %s: tensor<16xf32>) {
  %e = tensor.empty() : tensor<2x16x4x8xf32>
  %r = linalg.generic {
      indexing_maps = [affine_map<(n, c, h, w) -> ((n * 4 + h) * 8 + w, c)>,
                       affine_map<(n, c, h, w) -> (c)>,
                       affine_map<(n, c, h, w) -> (n, c, h, w)>],
      iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x, %s : tensor<64x16xf32>, tensor<16xf32>) outs(%e : tensor<2x16x4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<2x16x4x8xf32>
  call @use(%r) : (tensor<2x16x4x8xf32>) -> ()
  return
}
func.func @to_nchw_returned(%x: tensor<64x16xf32>, %s: tensor<16xf32>) -> tensor<2x16x4x8xf32> {
  %e = tensor.empty() : tensor<2x16x4x8xf32>
  %r = linalg.generic {
      indexing_maps = [affine_map<(n, c, h, w) -> ((n * 4 + h) * 8 + w, c)>,
                       affine_map<(n, c, h, w) -> (c)>,
                       affine_map<(n, c, h, w) -> (n, c, h, w)>],
      iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x, %s : tensor<64x16xf32>, tensor<16xf32>) outs(%e : tensor<2x16x4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<2x16x4x8xf32>
  return %r : tensor<2x16x4x8xf32>
}

// -----

// NCHW bf16 to N(HW)C f32 (the gradient transposed for the filter
// gradient, extended to f32): the channel index (g·16 + c) with one group
// reads an expanded [2, 1, 16, 4, 4] view, and the 16-pixel blocks of 16
// channels are read as bf16 rows of pixels, extended, and transposed as
// f32 lanes (16-bit blocks are not transposed: the extension comes first).
// CHECK-LABEL: func.func @to_nhwc_extended(
// CHECK:       tensor.expand_shape %{{.*}} {{\[\[}}0], [1, 2], [3], [4]] output_shape [2, 1, 16, 4, 4] : tensor<2x16x4x4xbf16> into tensor<2x1x16x4x4xbf16>
// CHECK:       tensor.collapse_shape %{{.*}} {{\[\[}}0], [1], [2], [3, 4]] : tensor<2x1x16x4x4xbf16> into tensor<2x1x16x16xbf16>
// CHECK:       scf.for
// CHECK:         %[[ROWS:.*]] = vector.transfer_read %{{.*}} {in_bounds = [true, true]} : tensor<2x1x16x16xbf16>, vector<16x16xbf16>
// CHECK-NEXT:    %[[WIDE:.*]] = arith.extf %[[ROWS]] : vector<16x16xbf16> to vector<16x16xf32>
// CHECK-NEXT:    %[[T:.*]] = vector.transpose %[[WIDE]], [1, 0] : vector<16x16xf32> to vector<16x16xf32>
// CHECK-NEXT:    vector.transfer_write %[[T]], %{{.*}} : vector<16x16xf32>, tensor<1x1x16x16xf32>
// CHECK-NOT:   vector.transpose {{.*}}bf16
func.func private @use_nhwc(tensor<1x2x4x4x16xf32>)
func.func @to_nhwc_extended(%x: tensor<2x16x4x4xbf16>) {
  %e = tensor.empty() : tensor<1x2x4x4x16xf32>
  %r = linalg.generic {
      indexing_maps = [affine_map<(g, n, h, w, c) -> (n, g * 16 + c, h, w)>,
                       affine_map<(g, n, h, w, c) -> (g, n, h, w, c)>],
      iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]}
      ins(%x : tensor<2x16x4x4xbf16>) outs(%e : tensor<1x2x4x4x16xf32>) {
  ^bb0(%a: bf16, %o: f32):
    %w = arith.extf %a : bf16 to f32
    linalg.yield %w : f32
  } -> tensor<1x2x4x4x16xf32>
  call @use_nhwc(%r) : (tensor<1x2x4x4x16xf32>) -> ()
  return
}

// -----

// Not transposed as blocks: a 16-bit block the payload does not extend
// (vectors of 16 along the input's rows, written as columns), and a
// transpose with a side below 4 (as the first, f32 values).
// CHECK-LABEL: func.func @not_blocks(
// CHECK-NOT:   vector.transpose {{.*}} : vector<16x16xbf16>
// CHECK:       vector.transfer_read %{{.*}} : tensor<16x32xbf16>, vector<16xbf16>
// CHECK:       vector.transfer_write %{{.*}} : vector<16x1xbf16>, tensor<32x16xbf16>
// CHECK:       vector.transfer_read %{{.*}} : tensor<2x32xf32>, vector<16xf32>
// CHECK:       vector.transfer_write %{{.*}} : vector<16x1xf32>, tensor<32x2xf32>
// CHECK-NOT:   vector.transpose {{.*}} : vector<16x16x
func.func @not_blocks(%x: tensor<16x32xbf16>, %y: tensor<2x32xf32>) -> (tensor<32x16xbf16>, tensor<32x2xf32>) {
  %e = tensor.empty() : tensor<32x16xbf16>
  %t = linalg.transpose ins(%x : tensor<16x32xbf16>) outs(%e : tensor<32x16xbf16>) permutation = [1, 0]
  %f = tensor.empty() : tensor<32x2xf32>
  %u = linalg.transpose ins(%y : tensor<2x32xf32>) outs(%f : tensor<32x2xf32>) permutation = [1, 0]
  return %t, %u : tensor<32x16xbf16>, tensor<32x2xf32>
}

// -----

// Linearised loops whose strides are not those of a row-major array (h·3 +
// w with 4 values of w: rows overlap) are not read through a view: the
// generic is left for mp-linalg-to-loops.
// CHECK-LABEL: func.func @overlapping_rows(
// CHECK-NOT:   tensor.expand_shape
// CHECK:       linalg.generic
func.func @overlapping_rows(%x: tensor<12xf32>) -> tensor<3x4xf32> {
  %e = tensor.empty() : tensor<3x4xf32>
  %r = linalg.generic {
      indexing_maps = [affine_map<(h, w) -> (h * 3 + w)>,
                       affine_map<(h, w) -> (h, w)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<12xf32>) outs(%e : tensor<3x4xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<3x4xf32>
  return %r : tensor<3x4xf32>
}

// -----

// A transpose of a slice (here strided: not contiguous) keeps its loops:
// collapsing them would copy the slice into a new buffer. Blocks of 16
// channels x the 8 pixels of a row.
// CHECK-LABEL: func.func @slice_kept(
// CHECK-NOT:   tensor.collapse_shape
// CHECK:       vector.transfer_read %{{.*}} : tensor<2x4x8x16xf32>, vector<8x16xf32>
// CHECK-NEXT:  vector.transpose %{{.*}}, [1, 0] : vector<8x16xf32> to vector<16x8xf32>
func.func private @use_slice(tensor<2x16x4x8xf32>)
func.func @slice_kept(%x: tensor<2x4x16x16xf32>) {
  %s = tensor.extract_slice %x[0, 0, 0, 0] [2, 4, 8, 16] [1, 1, 2, 1] : tensor<2x4x16x16xf32> to tensor<2x4x8x16xf32>
  %e = tensor.empty() : tensor<2x16x4x8xf32>
  %r = linalg.transpose ins(%s : tensor<2x4x8x16xf32>) outs(%e : tensor<2x16x4x8xf32>) permutation = [0, 3, 1, 2]
  call @use_slice(%r) : (tensor<2x16x4x8xf32>) -> ()
  return
}

// -----

// An elementwise operation whose rows (28 pixels) are not a multiple of the
// vector: the h and w loops, consecutive in every operand, are one loop of
// 112 pixels, vectors of 16 (28 alone would give vectors of 4). The
// per-channel operand does not read them.
// CHECK-LABEL: func.func @rows_collapsed(
// CHECK:       tensor.collapse_shape %{{.*}} {{\[\[}}0], [1], [2, 3]] : tensor<2x3x4x28xf32> into tensor<2x3x112xf32>
// CHECK:       scf.for %{{.*}} = %c0 to %c112 step %c16
// CHECK:         arith.addf %{{.*}}, %{{.*}} : vector<16xf32>
// CHECK:       tensor.expand_shape %{{.*}} {{\[\[}}0], [1], [2, 3]] output_shape [2, 3, 4, 28] : tensor<2x3x112xf32> into tensor<2x3x4x28xf32>
// Rows of 32 pixels are left as they are.
// CHECK-LABEL: func.func @rows_kept(
// CHECK-NOT:   tensor.collapse_shape
// CHECK:       arith.addf %{{.*}}, %{{.*}} : vector<16xf32>
func.func private @use_rows(tensor<2x3x4x28xf32>)
func.func @rows_collapsed(%x: tensor<2x3x4x28xf32>, %b: tensor<3xf32>) {
  %e = tensor.empty() : tensor<2x3x4x28xf32>
  %r = linalg.generic {
      indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>,
                       affine_map<(n, c, h, w) -> (c)>,
                       affine_map<(n, c, h, w) -> (n, c, h, w)>],
      iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x, %b : tensor<2x3x4x28xf32>, tensor<3xf32>) outs(%e : tensor<2x3x4x28xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.addf %a, %c : f32
    linalg.yield %s : f32
  } -> tensor<2x3x4x28xf32>
  call @use_rows(%r) : (tensor<2x3x4x28xf32>) -> ()
  return
}
func.func private @use_rows32(tensor<2x3x4x32xf32>)
func.func @rows_kept(%x: tensor<2x3x4x32xf32>, %b: tensor<3xf32>) {
  %e = tensor.empty() : tensor<2x3x4x32xf32>
  %r = linalg.generic {
      indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>,
                       affine_map<(n, c, h, w) -> (c)>,
                       affine_map<(n, c, h, w) -> (n, c, h, w)>],
      iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x, %b : tensor<2x3x4x32xf32>, tensor<3xf32>) outs(%e : tensor<2x3x4x32xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.addf %a, %c : f32
    linalg.yield %s : f32
  } -> tensor<2x3x4x32xf32>
  call @use_rows32(%r) : (tensor<2x3x4x32xf32>) -> ()
  return
}

// -----

// A per-channel scale and shift (batch norm's normalisation, rounded to
// bf16): the vectors run along the pixels, which the tensor and the result
// have innermost, not along the channels, which only the two small
// broadcast inputs have innermost (that would gather the tensor 16
// elements at a time); the scale and shift are broadcast per channel.
// CHECK-LABEL: func.func @per_channel_scale(
// CHECK-SAME:    %[[X:.*]]: tensor<2x16x64xf32>, %[[SCALE:.*]]: tensor<16xf32>, %[[SHIFT:.*]]: tensor<16xf32>)
// CHECK:         scf.for %[[N:.*]] = %c0 to %c2 step %c1
// CHECK:           scf.for %[[C:.*]] = %c0 to %c16 step %c1
// CHECK:             scf.for %[[P:.*]] = %c0 to %c64 step %c16
// CHECK:               %[[ROW:.*]] = vector.transfer_read %[[X]][%[[N]], %[[C]], %[[P]]], %{{.*}} {in_bounds = [true]} : tensor<2x16x64xf32>, vector<16xf32>
// CHECK-NEXT:          %[[S:.*]] = vector.transfer_read %[[SCALE]][%[[C]]], %{{.*}} : tensor<16xf32>, vector<f32>
// CHECK-NEXT:          %[[SV:.*]] = vector.broadcast %[[S]] : vector<f32> to vector<16xf32>
// CHECK-NEXT:          %[[B:.*]] = vector.transfer_read %[[SHIFT]][%[[C]]], %{{.*}} : tensor<16xf32>, vector<f32>
// CHECK-NEXT:          %[[BV:.*]] = vector.broadcast %[[B]] : vector<f32> to vector<16xf32>
// CHECK-NEXT:          %[[Y:.*]] = math.fma %[[ROW]], %[[SV]], %[[BV]] : vector<16xf32>
// CHECK-NEXT:          %[[R:.*]] = arith.truncf %[[Y]] : vector<16xf32> to vector<16xbf16>
// CHECK-NEXT:          vector.transfer_write %[[R]], %{{.*}}[%c0, %c0, %c0] {in_bounds = [true]} : vector<16xbf16>, tensor<1x1x16xbf16>
func.func @per_channel_scale(%x: tensor<2x16x64xf32>, %scale: tensor<16xf32>, %shift: tensor<16xf32>) -> tensor<2x16x64xbf16> {
  %e = tensor.empty() : tensor<2x16x64xbf16>
  %r = linalg.generic {indexing_maps = [affine_map<(n, c, p) -> (n, c, p)>, affine_map<(n, c, p) -> (c)>, affine_map<(n, c, p) -> (c)>, affine_map<(n, c, p) -> (n, c, p)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%x, %scale, %shift : tensor<2x16x64xf32>, tensor<16xf32>, tensor<16xf32>) outs(%e : tensor<2x16x64xbf16>) {
  ^bb0(%a: f32, %s: f32, %b: f32, %out: bf16):
    %f = math.fma %a, %s, %b : f32
    %t = arith.truncf %f : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<2x16x64xbf16>
  return %r : tensor<2x16x64xbf16>
}
