// RUN: mp-opt %s -split-input-file -mp-linalg-to-loops=parallel | FileCheck %s

// mp-linalg-to-loops{parallel}: the loops of convert-linalg-to-loops, the
// leading parallel loops of an operation of at least 8192 iterations one
// scf.parallel (as many as make 64 iterations), the others sequential inside
// each of its iterations.

// 32x16x28x28 elements: (n, c) = 512 iterations of the scf.parallel (n alone
// would be 32 < 64), h and w sequential inside.
// CHECK-LABEL: func.func @large_elementwise(
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:     %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG:     %[[C16:.*]] = arith.constant 16 : index
// CHECK-DAG:     %[[C28:.*]] = arith.constant 28 : index
// CHECK-DAG:     %[[C32:.*]] = arith.constant 32 : index
// CHECK:         scf.parallel (%[[N:.*]], %[[C:.*]]) = (%[[C0]], %[[C0]]) to (%[[C32]], %[[C16]]) step (%[[C1]], %[[C1]]) {
// CHECK-NEXT:      scf.for %[[H:.*]] = %[[C0]] to %[[C28]] step %[[C1]] {
// CHECK-NEXT:        scf.for %[[W:.*]] = %[[C0]] to %[[C28]] step %[[C1]] {
// CHECK-NEXT:          %[[X:.*]] = memref.load %{{.*}}[%[[N]], %[[C]], %[[H]], %[[W]]]
// CHECK-NEXT:          %[[Y:.*]] = arith.addf %[[X]], %[[X]] : f32
// CHECK-NEXT:          memref.store %[[Y]], %{{.*}}[%[[N]], %[[C]], %[[H]], %[[W]]]
// CHECK-NOT:     scf.parallel
// CHECK:         return
func.func @large_elementwise(%x: memref<32x16x28x28xf32>, %y: memref<32x16x28x28xf32>) {
  linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>,
                                   affine_map<(n, c, h, w) -> (n, c, h, w)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x : memref<32x16x28x28xf32>) outs(%y : memref<32x16x28x28xf32>) {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %a : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// 8x1024 = 8192 iterations, 8 rows: the leading parallel loop alone (the
// reduction loop stays sequential inside, in order).
// CHECK-LABEL: func.func @row_sums(
// CHECK:         scf.parallel (%[[I:.*]]) = (%{{.*}}) to (%{{.*}}) step (%{{.*}}) {
// CHECK-NEXT:      scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:             arith.addf
// CHECK-NOT:     scf.parallel
// CHECK:         return
func.func @row_sums(%x: memref<8x1024xf32>, %y: memref<8xf32>) {
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>,
                                   affine_map<(i, j) -> (i)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<8x1024xf32>) outs(%y : memref<8xf32>) {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Below 8192 iterations (64x127), and with a leading reduction loop:
// sequential loops only, as convert-linalg-to-loops writes them.
// CHECK-LABEL: func.func @sequential(
// CHECK-NOT:     scf.parallel
// CHECK:         scf.for
// CHECK:           scf.for
// CHECK-NOT:     scf.parallel
// CHECK:         scf.for
// CHECK:           scf.for
// CHECK-NOT:     scf.parallel
// CHECK:         return
func.func @sequential(%x: memref<64x127xf32>, %y: memref<64x127xf32>,
                      %z: memref<1024x64xf32>, %s: memref<64xf32>) {
  linalg.copy ins(%x : memref<64x127xf32>) outs(%y : memref<64x127xf32>)
  linalg.generic {indexing_maps = [affine_map<(k, i) -> (k, i)>,
                                   affine_map<(k, i) -> (i)>],
                  iterator_types = ["reduction", "parallel"]}
      ins(%z : memref<1024x64xf32>) outs(%s : memref<64xf32>) {
  ^bb0(%a: f32, %b: f32):
    %t = arith.addf %a, %b : f32
    linalg.yield %t : f32
  }
  return
}

// -----

// Inside an scf.parallel (a tile of mp-tile-and-vectorize's scf.forall,
// after bufferization) the operation stays sequential: no nested threads.
// CHECK-LABEL: func.func @nested(
// CHECK:         scf.parallel (%{{.*}}) =
// CHECK-NOT:       scf.parallel
// CHECK:           scf.for
// CHECK:             scf.for
// CHECK:         return
func.func @nested(%x: memref<4x64x128xf32>, %y: memref<4x64x128xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    %a = memref.subview %x[%i, 0, 0] [1, 64, 128] [1, 1, 1]
        : memref<4x64x128xf32> to memref<64x128xf32, strided<[128, 1], offset: ?>>
    %b = memref.subview %y[%i, 0, 0] [1, 64, 128] [1, 1, 1]
        : memref<4x64x128xf32> to memref<64x128xf32, strided<[128, 1], offset: ?>>
    linalg.copy ins(%a : memref<64x128xf32, strided<[128, 1], offset: ?>>)
                outs(%b : memref<64x128xf32, strided<[128, 1], offset: ?>>)
    scf.reduce
  }
  return
}

// -----

// RUN: mp-opt %s -split-input-file -mp-linalg-to-loops=vector-copies | FileCheck %s --check-prefix=COPY

// vector-copies: an im2col (the window operand only gives the loops their
// extents) copies rows of 8 output pixels, read at [n, c, kh + oh, kw] and
// written at [(c*3 + kh)*3 + kw, (n*8 + oh)*8]; no parallel loop without
// `parallel`.
// COPY-LABEL: func.func @im2col(
// COPY-NOT:     scf.parallel
// COPY:         scf.for %[[C:.*]] =
// COPY:           scf.for %[[KH:.*]] =
// COPY:             scf.for %[[KW:.*]] =
// COPY:               scf.for %[[N:.*]] =
// COPY:                 scf.for %[[OH:.*]] =
// COPY-NEXT:              %[[H:.*]] = affine.apply #{{.*}}(%[[KH]], %[[OH]])
// COPY-NEXT:              %[[ROW:.*]] = vector.transfer_read %{{.*}}[%[[N]], %[[C]], %[[H]], %[[KW]]], %{{.*}} {in_bounds = [true]} : memref<2x3x10x10xf32>, vector<8xf32>
// COPY-NEXT:              %[[K:.*]] = affine.apply #{{.*}}(%[[C]], %[[KH]], %[[KW]])
// COPY-NEXT:              %[[M:.*]] = affine.apply #{{.*}}(%[[N]], %[[OH]])
// COPY-NEXT:              vector.transfer_write %[[ROW]], %{{.*}}[%[[K]], %[[M]]] {in_bounds = [true]} : vector<8xf32>, memref<27x128xf32>
// COPY-NOT:     memref.load
func.func @im2col(%x: memref<2x3x10x10xf32>, %w: memref<3x3x8x8xf32>, %y: memref<27x128xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d3, d0, d1 + d4, d2 + d5)>,
                                   affine_map<(d0, d1, d2, d3, d4, d5) -> (d1, d2, d4, d5)>,
                                   affine_map<(d0, d1, d2, d3, d4, d5) -> ((d0 * 3 + d1) * 3 + d2, (d3 * 8 + d4) * 8 + d5)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]}
      ins(%x, %w : memref<2x3x10x10xf32>, memref<3x3x8x8xf32>) outs(%y : memref<27x128xf32>) {
  ^bb0(%in: f32, %in2: f32, %out: f32):
    linalg.yield %in : f32
  }
  return
}

// -----

// Rows of 200 bf16 elements: chunks of 50 (the largest divisor up to 64),
// into the interior of a padded buffer.
// COPY-LABEL: func.func @padding(
// COPY:         scf.for %{{.*}} = %{{.*}} to %[[C200:.*]] step %[[C50:.*]] {
// COPY:           vector.transfer_read {{.*}} : memref<4x200xbf16>, vector<50xbf16>
// COPY:           vector.transfer_write {{.*}} : vector<50xbf16>, memref<6x202xbf16>
func.func @padding(%x: memref<4x200xbf16>, %y: memref<6x202xbf16>) {
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>,
                                   affine_map<(i, j) -> (i + 1, j + 1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<4x200xbf16>) outs(%y : memref<6x202xbf16>) {
  ^bb0(%in: bf16, %out: bf16):
    linalg.yield %in : bf16
  }
  return
}

// -----

// Not copied as vectors: a transposition (the input's stride along the
// innermost loop is 16), a stride-2 read, i1 elements (bit-packed in a
// vector, not in a memref), an operation that reads its output (an
// accumulation) and one whose payload is not arith (math.exp).
// COPY-LABEL: func.func @scalar(
// COPY-NOT:     vector.
// COPY:         return
func.func @scalar(%x: memref<16x16xf32>, %y: memref<16x16xf32>, %z: memref<16x32xf32>,
                  %b: memref<16x16xi1>, %c: memref<16x16xi1>) {
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (j, i)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<16x16xf32>) outs(%y : memref<16x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, 2 * j)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%z : memref<16x32xf32>) outs(%y : memref<16x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  linalg.copy ins(%b : memref<16x16xi1>) outs(%c : memref<16x16xi1>)
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<16x16xf32>) outs(%y : memref<16x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %n = arith.addf %in, %out : f32
    linalg.yield %n : f32
  }
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<16x16xf32>) outs(%y : memref<16x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %n = math.exp %in : f32
    linalg.yield %n : f32
  }
  return
}

// -----

// An elementwise map (the interior of a convolution's padding after
// mp-rematerialize-fills: bf16 widened, NaN kept by the select) maps rows
// of 28 as vectors, lane by lane the payload's ops, the scalar constant
// broadcast (folded to a vector constant), into the strided interior of the padded buffer.
// COPY-LABEL: func.func @elementwise_rows(
// COPY-SAME:    %[[X:.*]]: memref<2x28xbf16>, %[[Y:.*]]: memref<2x28xf32, strided<[30, 1], offset: 31>>)
// COPY:         %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : vector<28xf32>
// COPY:         scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// COPY-NEXT:      %[[ROW:.*]] = vector.transfer_read %[[X]][%[[I]], %{{.*}}], %{{.*}} {in_bounds = [true]} : memref<2x28xbf16>, vector<28xbf16>
// COPY-NEXT:      %[[W:.*]] = arith.extf %[[ROW]] : vector<28xbf16> to vector<28xf32>
// COPY-NEXT:      %[[S:.*]] = arith.addf %[[W]], %[[ZERO]] : vector<28xf32>
// COPY-NEXT:      %[[O:.*]] = arith.cmpf ord, %[[W]], %[[W]] : vector<28xf32>
// COPY-NEXT:      %[[R:.*]] = arith.select %[[O]], %[[W]], %[[S]] : vector<28xi1>, vector<28xf32>
// COPY-NEXT:      vector.transfer_write %[[R]], %[[Y]][%[[I]], %{{.*}}] {in_bounds = [true]} : vector<28xf32>, memref<2x28xf32, strided<[30, 1], offset: 31>>
// COPY-NOT:     memref.load
func.func @elementwise_rows(%x: memref<2x28xbf16>, %y: memref<2x28xf32, strided<[30, 1], offset: 31>>) {
  %zero = arith.constant 0.0 : f32
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<2x28xbf16>) outs(%y : memref<2x28xf32, strided<[30, 1], offset: 31>>) {
  ^bb0(%in: bf16, %out: f32):
    %w = arith.extf %in : bf16 to f32
    %s = arith.addf %w, %zero : f32
    %o = arith.cmpf ord, %w, %w : f32
    %r = arith.select %o, %w, %s : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// A memref.copy into a strided view: rows of 196 in chunks of 49 (the
// runtime's memrefCopy would copy element by element); a contiguous one
// stays a memref.copy (a memcpy).
// COPY-LABEL: func.func @strided_copy(
// COPY:         scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} {
// COPY:           vector.transfer_read {{.*}} : memref<8x196xf32>, vector<49xf32>
// COPY:           vector.transfer_write {{.*}} : vector<49xf32>, memref<8x196xf32, strided<[200, 1]>>
// COPY:         memref.copy %{{.*}}, %{{.*}} : memref<8x196xf32> to memref<8x196xf32>
func.func @strided_copy(%x: memref<8x196xf32>, %y: memref<8x200xf32>, %z: memref<8x196xf32>) {
  %view = memref.subview %y[0, 0] [8, 196] [1, 1] : memref<8x200xf32> to memref<8x196xf32, strided<[200, 1]>>
  memref.copy %x, %view : memref<8x196xf32> to memref<8x196xf32, strided<[200, 1]>>
  memref.copy %x, %z : memref<8x196xf32> to memref<8x196xf32>
  return
}
