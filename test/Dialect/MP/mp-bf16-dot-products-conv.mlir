// RUN: mp-opt %s --mp-bf16-dot-products -split-input-file | FileCheck %s
// RUN: mp-opt %s --mp-bf16-dot-products=parallel=true -split-input-file | FileCheck %s --check-prefix=PAR
// RUN: mp-opt %s --mp-bf16-dot-products=unguarded=true -split-input-file | FileCheck %s --check-prefix=UNG
// RUN: mp-opt %s --mp-bf16-dot-products=pair-words-budget=1 -split-input-file | FileCheck %s --check-prefix=BLOCK1

// The implicit GEMM of a bf16 convolution (convert-mp-to-linalg's, 16
// filters, padding 1): both f32 operands are widened copies of bf16 tensors
// (the padding scatter into a zero fill, the filter copy behind its
// alloc_tensor barrier), so the guard reduces the bf16 input and filter.
// The kernel packs the filter [C·KH·KW, F] as words of bf16 pairs (the
// high half of K = 2p, the low half of K = 2p + 1: no rounding), then, per
// image (48 pixels, three tiles of 16), packs its padded input as A
// [K/2, 48] words, one vector per row of 8 output pixels and K pair. Its
// one user reads the result transposed to [N, F, OH, OW] (the copy
// convert-mp-to-linalg adds), so the tiles are 16 filters x 16 pixels: per
// K pair a row of 16 pixels' words of A and one broadcast filter word and
// dot per filter, written into the image's [16, 48] slice of the
// channel-major result. The else branch is the implicit GEMM (with its zero
// fill, which only it reads), its rows copied to that layout; the copy back
// to NCHW is gone, its user reads the kernel's result.
// CHECK-LABEL: func.func @conv(
// CHECK-SAME:      %[[X:.*]]: tensor<2x16x6x8xbf16>, %[[W:.*]]: tensor<16x16x3x3xbf16>
// CHECK:         %[[PAD:.*]] = linalg.generic {{.*}} ins(%[[X]] : tensor<2x16x6x8xbf16>) outs(%{{.*}} : tensor<2x16x8x10xf32>)
// CHECK:         %[[FILTER:.*]] = bufferization.alloc_tensor() copy(%{{.*}}) {mp.fusion_barrier} : tensor<16x3x3x16xf32>
// CHECK-NOT:     linalg.fill {{.*}} -> tensor<2x6x1x8x16xf32>
// CHECK:         tensor.collapse_shape %[[X]] {{\[}}[0, 1, 2, 3]] : tensor<2x16x6x8xbf16> into tensor<1536xbf16>
// CHECK:         tensor.collapse_shape %[[W]] {{\[}}[0, 1, 2, 3]] : tensor<16x16x3x3xbf16> into tensor<2304xbf16>
// CHECK:         arith.cmpi ule, %{{.*}}, %c380_i32
// CHECK-COUNT-4: arith.andi %{{.*}} : i1
// CHECK-NEXT:    %[[GUARD:.*]] = arith.andi
// CHECK-NEXT:    %[[R:.*]] = scf.if %[[GUARD]] -> (tensor<2x16x6x8xf32>) {
// CHECK:           %[[EB:.*]] = tensor.empty() : tensor<1x72x16xi32>
// CHECK:           %[[RB:.*]] = tensor.collapse_shape %[[FILTER]] {{\[}}[0, 1, 2], [3]] : tensor<16x3x3x16xf32> into tensor<144x16xf32>
// CHECK:           %[[PB:.*]] = scf.for {{.*}} iter_args(%{{.*}} = %[[EB]])
// CHECK:             scf.for %[[BP:[a-z0-9_]+]] =
// CHECK:               %[[B0:.*]] = vector.transfer_read %[[RB]]{{.*}} : tensor<144x16xf32>, vector<16xf32>
// CHECK:               %[[B1:.*]] = vector.transfer_read %[[RB]]{{.*}} : tensor<144x16xf32>, vector<16xf32>
// CHECK:               %[[B0I:.*]] = arith.bitcast %[[B0]] : vector<16xf32> to vector<16xi32>
// CHECK:               %[[HIGH:.*]] = arith.andi %[[B0I]], %{{.*}} : vector<16xi32>
// CHECK:               %[[B1I:.*]] = arith.bitcast %[[B1]] : vector<16xf32> to vector<16xi32>
// CHECK:               %[[LOW:.*]] = arith.shrui %[[B1I]], %{{.*}} : vector<16xi32>
// CHECK:               %[[WORDS:.*]] = arith.ori %[[HIGH]], %[[LOW]] : vector<16xi32>
// CHECK:               vector.transfer_write %[[WORDS]], %{{.*}}[%{{.*}}, %[[BP]], %{{.*}}] {in_bounds = [true]} : vector<16xi32>, tensor<1x72x16xi32>
// CHECK:           %[[OUT:.*]] = tensor.empty() : tensor<2x16x48xf32>
// CHECK:           %[[IMAGES:.*]] = scf.for %[[IMAGE:[a-z0-9_]+]] = %{{.*}} to %c2{{.*}} {{.*}} iter_args(%[[ACC:.*]] = %[[OUT]])
// CHECK-NEXT:        %[[DEST:.*]] = tensor.extract_slice %[[ACC]][%[[IMAGE]], 0, 0] [1, 16, 48] [1, 1, 1] : tensor<2x16x48xf32> to tensor<1x16x48xf32>
// CHECK:             %[[EA:.*]] = tensor.empty() : tensor<72x48xi32>
// CHECK:             %[[PA:.*]] = scf.for %[[P:[a-z0-9_]+]] = %{{.*}} to %c72{{.*}} {{.*}} iter_args(%{{.*}} = %[[EA]])
// CHECK:               scf.for
// CHECK:                 scf.for %[[OH:[a-z0-9_]+]] = %{{.*}} to %c6{{.*}}
// CHECK:                   %[[EVEN:.*]] = vector.transfer_read %[[PAD]]{{.*}} : tensor<2x16x8x10xf32>, vector<8xf32>
// CHECK:                   %[[ODD:.*]] = vector.transfer_read %[[PAD]]{{.*}} : tensor<2x16x8x10xf32>, vector<8xf32>
// CHECK:                   arith.bitcast %[[EVEN]] : vector<8xf32> to vector<8xi32>
// CHECK:                   arith.andi
// CHECK:                   arith.bitcast %[[ODD]] : vector<8xf32> to vector<8xi32>
// CHECK:                   arith.shrui
// CHECK:                   %[[WORDSA:.*]] = arith.ori
// CHECK:                   vector.transfer_write %[[WORDSA]], %{{.*}}[%[[P]], %{{.*}}] {in_bounds = [true]} : vector<8xi32>, tensor<72x48xi32>
// CHECK:             %[[BLOCK:.*]] = scf.for %[[PANEL:[a-z0-9_]+]] = {{.*}} iter_args(%{{.*}} = %[[DEST]])
// CHECK:               scf.for %[[PIXELS:[a-z0-9_]+]] = {{.*}} to %c3{{.*}}
// CHECK:                 %[[FIRST:.*]] = arith.muli %[[PIXELS]], %c16{{.*}} : index
// CHECK:                 tensor.extract_slice %{{.*}}[0, %{{.*}}, %[[FIRST]]] [1, 16, 16] [1, 1, 1] : tensor<1x16x48xf32> to tensor<16x16xf32>
// CHECK:                 %{{.*}}:16 = scf.for %[[PAIR:[a-z0-9_]+]] = {{.*}} to %c72
// CHECK:                   %[[COLUMN:.*]] = arith.addi %[[FIRST]], %{{.*}} : index
// CHECK-NEXT:              %[[ROWAW:.*]] = vector.transfer_read %[[PA]][%[[PAIR]], %[[COLUMN]]], {{.*}} : tensor<72x48xi32>, vector<16xi32>
// CHECK-NEXT:              %[[ROWA:.*]] = vector.bitcast %[[ROWAW]] : vector<16xi32> to vector<32xbf16>
// CHECK:                   %[[WORD:.*]] = tensor.extract %[[PB]][%[[PANEL]], %[[PAIR]], %{{.*}}] : tensor<1x72x16xi32>
// CHECK-NEXT:              %[[SPLAT:.*]] = vector.broadcast %[[WORD]] : i32 to vector<16xi32>
// CHECK-NEXT:              %[[PAIRS:.*]] = vector.bitcast %[[SPLAT]] : vector<16xi32> to vector<32xbf16>
// CHECK-NEXT:              x86vector.avx512.dot %{{.*}}, %[[ROWA]], %[[PAIRS]] : vector<32xbf16> -> vector<16xf32>
// CHECK-COUNT-15:          x86vector.avx512.dot %{{.*}}, %[[ROWA]], %{{.*}} : vector<32xbf16> -> vector<16xf32>
// CHECK-COUNT-16:        vector.transfer_write {{.*}} : vector<16xf32>, tensor<16x16xf32>
// CHECK:                 tensor.insert_slice {{.*}}[0, %{{.*}}, %[[FIRST]]] [1, 16, 16] [1, 1, 1] : tensor<16x16xf32> into tensor<1x16x48xf32>
// CHECK:             tensor.insert_slice %[[BLOCK]] into %[[ACC]][%[[IMAGE]], 0, 0] [1, 16, 48] [1, 1, 1] : tensor<1x16x48xf32> into tensor<2x16x48xf32>
// CHECK:           %[[KERNEL:.*]] = tensor.expand_shape %[[IMAGES]] {{\[}}[0], [1], [2, 3]] output_shape [2, 16, 6, 8] : tensor<2x16x48xf32> into tensor<2x16x6x8xf32>
// CHECK-NEXT:      scf.yield %[[KERNEL]]
// CHECK-NEXT:    } else {
// CHECK-NEXT:      %[[FILL:.*]] = linalg.fill {{.*}} -> tensor<2x6x1x8x16xf32>
// CHECK-NEXT:      %[[FALLBACK:.*]] = linalg.generic {{.*}} ins(%[[PAD]], %[[FILTER]] : tensor<2x16x8x10xf32>, tensor<16x3x3x16xf32>) outs(%[[FILL]] : tensor<2x6x1x8x16xf32>)
// CHECK:           %[[ROWS:.*]] = tensor.collapse_shape %[[FALLBACK]] {{\[}}[0, 1, 2, 3], [4]] : tensor<2x6x1x8x16xf32> into tensor<96x16xf32>
// CHECK:           %[[COPY:.*]] = linalg.generic {indexing_maps = [#[[$ROWS_MAP:.*]], #[[$IDENTITY:.*]]], {{.*}} ins(%[[ROWS]] : tensor<96x16xf32>) outs(%{{.*}} : tensor<2x16x6x8xf32>)
// CHECK-NEXT:      ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:        linalg.yield %[[IN]] : f32
// CHECK:           scf.yield %[[COPY]]
// CHECK-NOT:     linalg.generic
// CHECK:         %[[NEG:.*]] = linalg.generic {indexing_maps = [#[[$IDENTITY]], #[[$IDENTITY]]], {{.*}} ins(%[[R]] : tensor<2x16x6x8xf32>)
// CHECK:           arith.negf
// CHECK:         return %[[NEG]] : tensor<2x16x6x8xf32>
// PAR-LABEL: func.func @conv(
// PAR:         scf.forall (%[[IMAGE:.*]]) in (2) shared_outs(%[[ACC:.*]] = %{{.*}}) -> (tensor<2x16x48xf32>)
// PAR-NEXT:      %[[DEST:.*]] = tensor.extract_slice %[[ACC]][%[[IMAGE]], 0, 0] [1, 16, 48] [1, 1, 1] : tensor<2x16x48xf32> to tensor<1x16x48xf32>
// PAR:           scf.for {{.*}} iter_args(%{{.*}} = %[[DEST]])
// PAR:           x86vector.avx512.dot
// PAR:           tensor.parallel_insert_slice %{{.*}} into %[[ACC]][%[[IMAGE]], 0, 0] [1, 16, 48] [1, 1, 1] : tensor<1x16x48xf32> into tensor<2x16x48xf32>
// UNG-LABEL: func.func @conv(
// UNG-NOT:     scf.if
// UNG:         x86vector.avx512.dot
// UNG-NOT:     iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]
#map = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#map1 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2 + 1, d3 + 1)>
#map2 = affine_map<(d0, d1, d2, d3) -> (d3, d0, d1, d2)>
#map3 = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d5, d1 + d6, d2 * 8 + d3 + d7)>
#map4 = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d5, d6, d7, d4)>
#map5 = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d3, d4)>
#map6 = affine_map<(d0, d1, d2, d3) -> ((d0 * 6 + d2) * 8 + d3, d1)>
#map7 = affine_map<(d0, d1, d2, d3) -> ((d0 * 8 + d2) * 8 + d3, d1)>
func.func @conv(%arg0: tensor<2x16x6x8xbf16>, %arg1: tensor<16x16x3x3xbf16>) -> tensor<2x16x6x8xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<2x16x8x10xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<2x16x8x10xf32>) -> tensor<2x16x8x10xf32>
  %2 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%arg0 : tensor<2x16x6x8xbf16>) outs(%1 : tensor<2x16x8x10xf32>) {
  ^bb0(%in: bf16, %out: f32):
    %11 = arith.extf %in : bf16 to f32
    %12 = arith.addf %11, %out : f32
    %13 = arith.cmpf ord, %11, %11 : f32
    %14 = arith.select %13, %11, %12 : f32
    linalg.yield %14 : f32
  } -> tensor<2x16x8x10xf32>
  %3 = tensor.empty() : tensor<16x3x3x16xf32>
  %4 = linalg.generic {indexing_maps = [#map2, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%arg1 : tensor<16x16x3x3xbf16>) outs(%3 : tensor<16x3x3x16xf32>) {
  ^bb0(%in: bf16, %out: f32):
    %11 = arith.extf %in : bf16 to f32
    linalg.yield %11 : f32
  } -> tensor<16x3x3x16xf32>
  %5 = bufferization.alloc_tensor() copy(%4) {mp.fusion_barrier} : tensor<16x3x3x16xf32>
  %cst_0 = arith.constant 0.000000e+00 : f32
  %6 = tensor.empty() : tensor<2x6x1x8x16xf32>
  %7 = linalg.fill ins(%cst_0 : f32) outs(%6 : tensor<2x6x1x8x16xf32>) -> tensor<2x6x1x8x16xf32>
  %8 = linalg.generic {indexing_maps = [#map3, #map4, #map5], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%2, %5 : tensor<2x16x8x10xf32>, tensor<16x3x3x16xf32>) outs(%7 : tensor<2x6x1x8x16xf32>) {
  ^bb0(%in: f32, %in_1: f32, %out: f32):
    %11 = arith.mulf %in, %in_1 : f32
    %12 = arith.addf %out, %11 : f32
    linalg.yield %12 : f32
  } -> tensor<2x6x1x8x16xf32>
  %collapsed = tensor.collapse_shape %8 [[0, 1, 2, 3], [4]] : tensor<2x6x1x8x16xf32> into tensor<96x16xf32>
  %9 = tensor.empty() : tensor<2x16x6x8xf32>
  %10 = linalg.generic {indexing_maps = [#map6, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%collapsed : tensor<96x16xf32>) outs(%9 : tensor<2x16x6x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<2x16x6x8xf32>
  %11 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%10 : tensor<2x16x6x8xf32>) outs(%9 : tensor<2x16x6x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %12 = arith.negf %in : f32
    linalg.yield %12 : f32
  } -> tensor<2x16x6x8xf32>
  return %11 : tensor<2x16x6x8xf32>
}

// -----

// 32 filters on 8 x 8 pixels, channel-major: two 16-filter panels of
// 16 x 16 tiles (one dot per broadcast filter word, so that LLVM folds the
// broadcast into it), one image a block; one block, so no scf.forall with
// `parallel` (with two blocks, @conv, there is one).
// CHECK-LABEL: func.func @conv32(
// CHECK:         scf.if %{{.*}} -> (tensor<1x32x8x8xf32>)
// CHECK:           tensor.empty() : tensor<2x72x16xi32>
// CHECK:           scf.for {{.*}} to %c1{{.*}} -> (tensor<1x32x64xf32>)
// CHECK:             tensor.empty() : tensor<72x64xi32>
// CHECK:             scf.for {{.*}} to %c2{{.*}} -> (tensor<1x32x64xf32>)
// CHECK:               scf.for {{.*}} to %c4{{.*}} -> (tensor<1x32x64xf32>)
// CHECK:                 tensor.extract_slice {{.*}} [1, 16, 16] [1, 1, 1] : tensor<1x32x64xf32> to tensor<16x16xf32>
// CHECK:                 %[[SPLAT:.*]] = vector.broadcast %{{.*}} : i32 to vector<16xi32>
// CHECK-NEXT:            %[[PAIRS:.*]] = vector.bitcast %[[SPLAT]] : vector<16xi32> to vector<32xbf16>
// CHECK-NEXT:            x86vector.avx512.dot %{{.*}}, %{{.*}}, %[[PAIRS]] : vector<32xbf16> -> vector<16xf32>
// CHECK-NEXT:            arith.constant 1 : index
// CHECK:         } else {
// The copy the function returns stays (now an identity copy into the
// result's own buffer).
// CHECK:         %[[KEPT:.*]] = linalg.generic {indexing_maps = [#[[$IDENTITY]], #[[$IDENTITY]]], {{.*}} ins(%{{.*}} : tensor<1x32x8x8xf32>)
// CHECK:         return %[[KEPT]]
// UNG-LABEL: func.func @conv32(
// PAR-LABEL: func.func @conv32(
// PAR-NOT:     scf.forall
// PAR:         x86vector.avx512.dot
// PAR-NOT:     scf.forall
// PAR:         return
#map = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#map1 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2 + 1, d3 + 1)>
#map2 = affine_map<(d0, d1, d2, d3) -> (d3, d0, d1, d2)>
#map3 = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d5, d1 + d6, d2 * 8 + d3 + d7)>
#map4 = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d5, d6, d7, d4)>
#map5 = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d3, d4)>
#map6 = affine_map<(d0, d1, d2, d3) -> ((d0 * 6 + d2) * 8 + d3, d1)>
#map7 = affine_map<(d0, d1, d2, d3) -> ((d0 * 8 + d2) * 8 + d3, d1)>
func.func @conv32(%arg0: tensor<1x16x8x8xbf16>, %arg1: tensor<32x16x3x3xbf16>) -> tensor<1x32x8x8xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<1x16x10x10xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<1x16x10x10xf32>) -> tensor<1x16x10x10xf32>
  %2 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%arg0 : tensor<1x16x8x8xbf16>) outs(%1 : tensor<1x16x10x10xf32>) {
  ^bb0(%in: bf16, %out: f32):
    %11 = arith.extf %in : bf16 to f32
    %12 = arith.addf %11, %out : f32
    %13 = arith.cmpf ord, %11, %11 : f32
    %14 = arith.select %13, %11, %12 : f32
    linalg.yield %14 : f32
  } -> tensor<1x16x10x10xf32>
  %3 = tensor.empty() : tensor<16x3x3x32xf32>
  %4 = linalg.generic {indexing_maps = [#map2, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%arg1 : tensor<32x16x3x3xbf16>) outs(%3 : tensor<16x3x3x32xf32>) {
  ^bb0(%in: bf16, %out: f32):
    %11 = arith.extf %in : bf16 to f32
    linalg.yield %11 : f32
  } -> tensor<16x3x3x32xf32>
  %5 = bufferization.alloc_tensor() copy(%4) {mp.fusion_barrier} : tensor<16x3x3x32xf32>
  %cst_0 = arith.constant 0.000000e+00 : f32
  %6 = tensor.empty() : tensor<1x8x1x8x32xf32>
  %7 = linalg.fill ins(%cst_0 : f32) outs(%6 : tensor<1x8x1x8x32xf32>) -> tensor<1x8x1x8x32xf32>
  %8 = linalg.generic {indexing_maps = [#map3, #map4, #map5], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%2, %5 : tensor<1x16x10x10xf32>, tensor<16x3x3x32xf32>) outs(%7 : tensor<1x8x1x8x32xf32>) {
  ^bb0(%in: f32, %in_1: f32, %out: f32):
    %11 = arith.mulf %in, %in_1 : f32
    %12 = arith.addf %out, %11 : f32
    linalg.yield %12 : f32
  } -> tensor<1x8x1x8x32xf32>
  %collapsed = tensor.collapse_shape %8 [[0, 1, 2, 3], [4]] : tensor<1x8x1x8x32xf32> into tensor<64x32xf32>
  %9 = tensor.empty() : tensor<1x32x8x8xf32>
  %10 = linalg.generic {indexing_maps = [#map7, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%collapsed : tensor<64x32xf32>) outs(%9 : tensor<1x32x8x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<1x32x8x8xf32>
  return %10 : tensor<1x32x8x8xf32>
}

// -----

// Left in rows ([N·OH·OW, F], 16 pixels x 16 filters a tile, the form
// every implicit convolution had before): a result read as rows (here
// returned as is), and 36-pixel images, whose tiles of 16 pixels cross
// images (four images a block), even though its user reads it transposed.
// CHECK-LABEL: func.func @conv_rows(
// CHECK:         %[[R:.*]] = scf.if %{{.*}} -> (tensor<2x6x1x8x16xf32>) {
// CHECK:           %[[OUT:.*]] = tensor.empty() : tensor<96x16xf32>
// CHECK:           scf.for %[[IMAGE:[a-z0-9_]+]] = %{{.*}} to %c2{{.*}} {{.*}} iter_args(%[[ACC:.*]] = %[[OUT]])
// CHECK:             %[[ROW:.*]] = arith.muli %[[IMAGE]], %c48
// CHECK-NEXT:        tensor.extract_slice %[[ACC]][%[[ROW]], 0] [48, 16] [1, 1] : tensor<96x16xf32> to tensor<48x16xf32>
// CHECK:             tensor.extract_slice {{.*}} [16, 16] [1, 1] : tensor<48x16xf32> to tensor<16x16xf32>
// CHECK:               %[[ROWBW:.*]] = vector.transfer_read %{{.*}} : tensor<1x72x16xi32>, vector<16xi32>
// CHECK-NEXT:          %[[ROWB:.*]] = vector.bitcast %[[ROWBW]] : vector<16xi32> to vector<32xbf16>
// CHECK:               %[[WORD:.*]] = tensor.extract %{{.*}} : tensor<72x48xi32>
// CHECK-NEXT:          %[[SPLAT:.*]] = vector.broadcast %[[WORD]] : i32 to vector<16xi32>
// CHECK-NEXT:          %[[PAIRS:.*]] = vector.bitcast %[[SPLAT]] : vector<16xi32> to vector<32xbf16>
// CHECK-NEXT:          x86vector.avx512.dot %{{.*}}, %[[ROWB]], %[[PAIRS]] : vector<32xbf16> -> vector<16xf32>
// CHECK:           tensor.expand_shape %{{.*}} {{\[}}[0, 1, 2, 3], [4]] output_shape [2, 6, 1, 8, 16] : tensor<96x16xf32> into tensor<2x6x1x8x16xf32>
// CHECK:         } else {
// CHECK:         %[[ROWS:.*]] = tensor.collapse_shape %[[R]]
// CHECK:         return %[[ROWS]] : tensor<96x16xf32>
// CHECK-LABEL: func.func @conv_blocks(
// CHECK:         %[[R:.*]] = scf.if %{{.*}} -> (tensor<4x6x1x6x16xf32>) {
// CHECK:           tensor.empty() : tensor<72x144xi32>
// CHECK:           tensor.extract_slice {{.*}} [16, 16] [1, 1] : tensor<144x16xf32> to tensor<16x16xf32>
// CHECK:         } else {
// CHECK:         %[[ROWS:.*]] = tensor.collapse_shape %[[R]]
// CHECK:         linalg.generic {{.*}} ins(%[[ROWS]] : tensor<144x16xf32>) outs(%{{.*}} : tensor<4x16x6x6xf32>)
#map = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#map1 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2 + 1, d3 + 1)>
#map2 = affine_map<(d0, d1, d2, d3) -> (d3, d0, d1, d2)>
#map3 = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d5, d1 + d6, d2 * 8 + d3 + d7)>
#map4 = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d5, d6, d7, d4)>
#map5 = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d3, d4)>
#map6 = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d5, d1 + d6, d2 * 6 + d3 + d7)>
#map7 = affine_map<(d0, d1, d2, d3) -> ((d0 * 6 + d2) * 6 + d3, d1)>
func.func @conv_rows(%arg0: tensor<2x16x6x8xbf16>, %arg1: tensor<16x16x3x3xbf16>) -> tensor<96x16xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<2x16x8x10xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<2x16x8x10xf32>) -> tensor<2x16x8x10xf32>
  %2 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%arg0 : tensor<2x16x6x8xbf16>) outs(%1 : tensor<2x16x8x10xf32>) {
  ^bb0(%in: bf16, %out: f32):
    %11 = arith.extf %in : bf16 to f32
    %12 = arith.addf %11, %out : f32
    %13 = arith.cmpf ord, %11, %11 : f32
    %14 = arith.select %13, %11, %12 : f32
    linalg.yield %14 : f32
  } -> tensor<2x16x8x10xf32>
  %3 = tensor.empty() : tensor<16x3x3x16xf32>
  %4 = linalg.generic {indexing_maps = [#map2, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%arg1 : tensor<16x16x3x3xbf16>) outs(%3 : tensor<16x3x3x16xf32>) {
  ^bb0(%in: bf16, %out: f32):
    %11 = arith.extf %in : bf16 to f32
    linalg.yield %11 : f32
  } -> tensor<16x3x3x16xf32>
  %5 = bufferization.alloc_tensor() copy(%4) {mp.fusion_barrier} : tensor<16x3x3x16xf32>
  %6 = tensor.empty() : tensor<2x6x1x8x16xf32>
  %7 = linalg.fill ins(%cst : f32) outs(%6 : tensor<2x6x1x8x16xf32>) -> tensor<2x6x1x8x16xf32>
  %8 = linalg.generic {indexing_maps = [#map3, #map4, #map5], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%2, %5 : tensor<2x16x8x10xf32>, tensor<16x3x3x16xf32>) outs(%7 : tensor<2x6x1x8x16xf32>) {
  ^bb0(%in: f32, %in_1: f32, %out: f32):
    %11 = arith.mulf %in, %in_1 : f32
    %12 = arith.addf %out, %11 : f32
    linalg.yield %12 : f32
  } -> tensor<2x6x1x8x16xf32>
  %collapsed = tensor.collapse_shape %8 [[0, 1, 2, 3], [4]] : tensor<2x6x1x8x16xf32> into tensor<96x16xf32>
  return %collapsed : tensor<96x16xf32>
}
func.func @conv_blocks(%arg0: tensor<4x16x6x6xbf16>, %arg1: tensor<16x16x3x3xbf16>) -> tensor<4x16x6x6xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<4x16x8x8xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<4x16x8x8xf32>) -> tensor<4x16x8x8xf32>
  %2 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%arg0 : tensor<4x16x6x6xbf16>) outs(%1 : tensor<4x16x8x8xf32>) {
  ^bb0(%in: bf16, %out: f32):
    %11 = arith.extf %in : bf16 to f32
    %12 = arith.addf %11, %out : f32
    %13 = arith.cmpf ord, %11, %11 : f32
    %14 = arith.select %13, %11, %12 : f32
    linalg.yield %14 : f32
  } -> tensor<4x16x8x8xf32>
  %3 = tensor.empty() : tensor<16x3x3x16xf32>
  %4 = linalg.generic {indexing_maps = [#map2, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%arg1 : tensor<16x16x3x3xbf16>) outs(%3 : tensor<16x3x3x16xf32>) {
  ^bb0(%in: bf16, %out: f32):
    %11 = arith.extf %in : bf16 to f32
    linalg.yield %11 : f32
  } -> tensor<16x3x3x16xf32>
  %5 = bufferization.alloc_tensor() copy(%4) {mp.fusion_barrier} : tensor<16x3x3x16xf32>
  %6 = tensor.empty() : tensor<4x6x1x6x16xf32>
  %7 = linalg.fill ins(%cst : f32) outs(%6 : tensor<4x6x1x6x16xf32>) -> tensor<4x6x1x6x16xf32>
  %8 = linalg.generic {indexing_maps = [#map6, #map4, #map5], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%2, %5 : tensor<4x16x8x8xf32>, tensor<16x3x3x16xf32>) outs(%7 : tensor<4x6x1x6x16xf32>) {
  ^bb0(%in: f32, %in_1: f32, %out: f32):
    %11 = arith.mulf %in, %in_1 : f32
    %12 = arith.addf %out, %11 : f32
    linalg.yield %12 : f32
  } -> tensor<4x6x1x6x16xf32>
  %collapsed = tensor.collapse_shape %8 [[0, 1, 2, 3], [4]] : tensor<4x6x1x6x16xf32> into tensor<144x16xf32>
  %9 = tensor.empty() : tensor<4x16x6x6xf32>
  %10 = linalg.generic {indexing_maps = [#map7, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%collapsed : tensor<144x16xf32>) outs(%9 : tensor<4x16x6x6xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<4x16x6x6xf32>
  return %10 : tensor<4x16x6x6xf32>
}

// -----

// A width stride of 2: convert-mp-to-linalg's im2col in panels of 8 pixels
// [8, 144, 8] times the filter [144, 16] (a linalg.contract). The kernel
// reads the padded input itself, 16 columns a row of 8 output pixels, the
// even ones kept; the im2col moves into the else branch (the fast path
// never writes it). 64 pixels are whole tiles, so the result is written
// channel-major and the copy back to NCHW (returned) reads it.
// CHECK-LABEL: func.func @conv_strided(
// CHECK:         %[[PAD:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<1x16x18x18xf32>)
// CHECK-NOT:     linalg.generic {{.*}} -> tensor<8x144x8xf32>
// CHECK:         %[[R:.*]] = scf.if %{{.*}} -> (tensor<1x16x8x8xf32>) {
// CHECK:             %[[COLUMNS:.*]] = vector.transfer_read %[[PAD]]{{.*}} : tensor<1x16x18x18xf32>, vector<16xf32>
// CHECK-NEXT:        %[[EVEN:.*]], %{{.*}} = vector.deinterleave %[[COLUMNS]] : vector<16xf32> -> vector<8xf32>
// CHECK:             arith.bitcast %[[EVEN]] : vector<8xf32> to vector<8xi32>
// CHECK:             x86vector.avx512.dot
// CHECK:           tensor.expand_shape %{{.*}} {{\[}}[0], [1], [2, 3]] output_shape [1, 16, 8, 8] : tensor<1x16x64xf32> into tensor<1x16x8x8xf32>
// CHECK:         } else {
// CHECK-NEXT:      %[[PANELS:.*]] = linalg.generic {{.*}} ins(%[[PAD]], %{{.*}} : tensor<1x16x18x18xf32>, tensor<8x1x3x3x8xf32>) outs(%{{.*}} : tensor<8x144x8xf32>)
// CHECK:           linalg.contract {{.*}} ins(%[[PANELS]], %{{.*}} : tensor<8x144x8xf32>, tensor<144x16xf32>)
// CHECK:         linalg.generic {{.*}} ins(%[[R]] : tensor<1x16x8x8xf32>)
func.func @conv_strided(%arg0: tensor<1x16x16x16xbf16>, %arg1: tensor<16x16x3x3xbf16>) -> tensor<1x16x8x8xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<1x16x18x18xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<1x16x18x18xf32>) -> tensor<1x16x18x18xf32>
  %2 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2 + 1, d3 + 1)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%arg0 : tensor<1x16x16x16xbf16>) outs(%1 : tensor<1x16x18x18xf32>) {
  ^bb0(%in: bf16, %out: f32):
    %13 = arith.extf %in : bf16 to f32
    %14 = arith.addf %13, %out : f32
    %15 = arith.cmpf ord, %13, %13 : f32
    %16 = arith.select %15, %13, %14 : f32
    linalg.yield %16 : f32
  } -> tensor<1x16x18x18xf32>
  %3 = tensor.empty() : tensor<8x1x3x3x8xf32>
  %4 = tensor.empty() : tensor<8x144x8xf32>
  %5 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d3, d1 * 2 + d4, (d2 * 8 + d6) * 2 + d5)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d2, d4, d5, d6)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0 * 8 + d1 + d2, (d3 * 3 + d4) * 3 + d5, d6)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%2, %3 : tensor<1x16x18x18xf32>, tensor<8x1x3x3x8xf32>) outs(%4 : tensor<8x144x8xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<8x144x8xf32>
  %6 = tensor.empty() : tensor<144x16xf32>
  %7 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0 floordiv 9, (d0 floordiv 3) mod 3, d0 mod 3)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%arg1 : tensor<16x16x3x3xbf16>) outs(%6 : tensor<144x16xf32>) {
  ^bb0(%in: bf16, %out: f32):
    %13 = arith.extf %in : bf16 to f32
    linalg.yield %13 : f32
  } -> tensor<144x16xf32>
  %8 = tensor.empty() : tensor<8x8x16xf32>
  %9 = linalg.fill ins(%cst : f32) outs(%8 : tensor<8x8x16xf32>) -> tensor<8x8x16xf32>
  %10 = linalg.contract indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d3, d1)>, affine_map<(d0, d1, d2, d3) -> (d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>] ins(%5, %7 : tensor<8x144x8xf32>, tensor<144x16xf32>) outs(%9 : tensor<8x8x16xf32>) -> tensor<8x8x16xf32>
  %collapsed = tensor.collapse_shape %10 [[0, 1], [2]] : tensor<8x8x16xf32> into tensor<64x16xf32>
  %11 = tensor.empty() : tensor<1x16x8x8xf32>
  %12 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> ((d0 * 8 + d2) * 8 + d3, d1)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%collapsed : tensor<64x16xf32>) outs(%11 : tensor<1x16x8x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<1x16x8x8xf32>
  return %12 : tensor<1x16x8x8xf32>
}

// -----

// The input a slice of a widened padded tensor (as a strided input
// gradient's phases read the padded gradient): the guard reduces the whole
// bf16 source, a superset of the slice's elements.
// CHECK-LABEL: func.func @conv_slice(
// CHECK-SAME:      %[[X:.*]]: tensor<2x16x7x9xbf16>
// CHECK:         %[[SLICE:.*]] = tensor.extract_slice %{{.*}}[0, 0, 1, 1] [2, 16, 8, 10] [1, 1, 1, 1]
// CHECK:         tensor.collapse_shape %[[X]] {{\[}}[0, 1, 2, 3]] : tensor<2x16x7x9xbf16> into tensor<2016xbf16>
// CHECK:         scf.if
// CHECK:           vector.transfer_read %[[SLICE]]{{.*}} : tensor<2x16x8x10xf32>, vector<8xf32>
// CHECK:           x86vector.avx512.dot
// CHECK:         } else {
func.func @conv_slice(%arg0: tensor<2x16x7x9xbf16>, %arg1: tensor<16x16x3x3xbf16>) -> tensor<2x6x1x8x16xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<2x16x9x11xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<2x16x9x11xf32>) -> tensor<2x16x9x11xf32>
  %2 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2 + 1, d3 + 1)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%arg0 : tensor<2x16x7x9xbf16>) outs(%1 : tensor<2x16x9x11xf32>) {
  ^bb0(%in: bf16, %out: f32):
    %11 = arith.extf %in : bf16 to f32
    %12 = arith.addf %11, %out : f32
    %13 = arith.cmpf ord, %11, %11 : f32
    %14 = arith.select %13, %11, %12 : f32
    linalg.yield %14 : f32
  } -> tensor<2x16x9x11xf32>
  %slice = tensor.extract_slice %2[0, 0, 1, 1] [2, 16, 8, 10] [1, 1, 1, 1] : tensor<2x16x9x11xf32> to tensor<2x16x8x10xf32>
  %3 = tensor.empty() : tensor<16x3x3x16xf32>
  %4 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d3, d0, d1, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%arg1 : tensor<16x16x3x3xbf16>) outs(%3 : tensor<16x3x3x16xf32>) {
  ^bb0(%in: bf16, %out: f32):
    %11 = arith.extf %in : bf16 to f32
    linalg.yield %11 : f32
  } -> tensor<16x3x3x16xf32>
  %5 = bufferization.alloc_tensor() copy(%4) {mp.fusion_barrier} : tensor<16x3x3x16xf32>
  %6 = tensor.empty() : tensor<2x6x1x8x16xf32>
  %7 = linalg.fill ins(%cst : f32) outs(%6 : tensor<2x6x1x8x16xf32>) -> tensor<2x6x1x8x16xf32>
  %8 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d5, d1 + d6, d2 * 8 + d3 + d7)>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d5, d6, d7, d4)>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d3, d4)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%slice, %5 : tensor<2x16x8x10xf32>, tensor<16x3x3x16xf32>) outs(%7 : tensor<2x6x1x8x16xf32>) {
  ^bb0(%in: f32, %in_1: f32, %out: f32):
    %11 = arith.mulf %in, %in_1 : f32
    %12 = arith.addf %out, %11 : f32
    linalg.yield %12 : f32
  } -> tensor<2x6x1x8x16xf32>
  return %8 : tensor<2x6x1x8x16xf32>
}

// -----

// The implicit filter gradient of bf16 data (loops (kh, kw, c, f, n, oh,
// ow), summed over (n, oh, ow)): the guard reduces the bf16 input and
// gradient; B of every image first, [2 images, 1 panel, 24 pairs, 16]
// words of the gradient's neighbouring pixels (read from the bf16 gradient
// dY [N, F, OH, OW] as 16 filters x 32 pixels, words rotated and
// transposed; its widened transpose, the fusion barrier, is only the
// fallback's and moves into the else branch); then, both images one block
// (their words take 16 KiB of the default 512 KiB), the pair words of
// their padded inputs [2 images, 2 phases, 16 channels, 8 rows, 16 words]
// (phase k's word j: columns 2j + k and 2j + k + 1, one vector of 32
// columns a row split into even and odd columns, made words), and the 18
// tiles of 8 (kh, kw, c) rows x 16 filters, each continuing its sums (read
// from the result, which starts as the op's zero fill) image by image over
// the image's 24 pairs, the word of a row at pair p being [image, kw mod 2,
// c, p / 4 + kh, p mod 4 + kw / 2], its B row the image's slice of B.
// With pair-words-budget=1 (BLOCK1) each image is a block of its own.
// CHECK-LABEL: func.func @grad_filter(
// CHECK-SAME:      %[[DY:.*]]: tensor<2x16x6x8xbf16>, %[[X:.*]]: tensor<2x16x6x8xbf16>
// CHECK:         %[[PAD:.*]] = linalg.generic {{.*}} ins(%[[X]] : tensor<2x16x6x8xbf16>) outs(%{{.*}} : tensor<2x16x8x10xf32>)
// CHECK-NOT:     bufferization.alloc_tensor
// CHECK:         %[[FILL:.*]] = linalg.fill {{.*}} -> tensor<3x3x16x16xf32>
// CHECK:         tensor.collapse_shape %[[X]] {{\[}}[0, 1, 2, 3]] : tensor<2x16x6x8xbf16> into tensor<1536xbf16>
// CHECK:         tensor.collapse_shape %[[DY]] {{\[}}[0, 1, 2, 3]] : tensor<2x16x6x8xbf16> into tensor<1536xbf16>
// CHECK:         %[[R:.*]] = scf.if %{{.*}} -> (tensor<3x3x16x16xf32>) {
// CHECK:           %[[INIT:.*]] = tensor.collapse_shape %[[FILL]] {{\[}}[0, 1, 2], [3]] : tensor<3x3x16x16xf32> into tensor<144x16xf32>
// CHECK:           %[[EB:.*]] = tensor.empty() : tensor<2x1x24x16xi32>
// CHECK:           %[[ROWS:.*]] = tensor.collapse_shape %[[DY]] {{\[}}[0], [1], [2, 3]] : tensor<2x16x6x8xbf16> into tensor<2x16x48xbf16>
// CHECK:           %[[PB:.*]] = scf.for %[[BN:[a-z0-9_]+]] = {{.*}} to %c2{{.*}} iter_args(%{{.*}} = %[[EB]])
// CHECK:             scf.for %[[PANEL:[a-z0-9_]+]] = {{.*}} to %c1
// CHECK:               tensor.extract_slice %{{.*}}[%[[BN]], %[[PANEL]], 0, 0] [1, 1, 24, 16] [1, 1, 1, 1] : tensor<2x1x24x16xi32> to tensor<24x16xi32>
// CHECK:               %[[BLOCK16:.*]] = vector.transfer_read %[[ROWS]][%[[BN]], {{.*}}], %{{.*}} {in_bounds = [true, false]} : tensor<2x16x48xbf16>, vector<16x32xbf16>
// CHECK-NEXT:          %[[ROTATE:.*]] = arith.constant dense<16> : vector<16x16xi32>
// CHECK-NEXT:          %[[W16:.*]] = vector.bitcast %[[BLOCK16]] : vector<16x32xbf16> to vector<16x16xi32>
// CHECK-NEXT:          %[[HI:.*]] = arith.shli %[[W16]], %[[ROTATE]] : vector<16x16xi32>
// CHECK-NEXT:          %[[LO:.*]] = arith.shrui %[[W16]], %[[ROTATE]] : vector<16x16xi32>
// CHECK-NEXT:          %[[ROT:.*]] = arith.ori %[[HI]], %[[LO]] : vector<16x16xi32>
// CHECK-NEXT:          %[[PAIRSB:.*]] = vector.transpose %[[ROT]], [1, 0] : vector<16x16xi32> to vector<16x16xi32>
// CHECK:               vector.transfer_write %[[PAIRSB]], %{{.*}} {in_bounds = [false, true]} : vector<16x16xi32>, tensor<24x16xi32>
// CHECK:           %[[BLOCKS:.*]] = scf.for %[[FIRST_N:[a-z0-9_]+]] = %{{.*}} to %c2{{.*}} step %c2{{.*}} iter_args(%[[ACC:.*]] = %[[INIT]]) -> (tensor<144x16xf32>)
// CHECK:             %[[EA:.*]] = tensor.empty() : tensor<2x2x16x8x16xi32>
// CHECK:             %[[PA:.*]] = scf.for %[[I:[a-z0-9_]+]] = {{.*}} iter_args(%{{.*}} = %[[EA]])
// CHECK:               scf.for %[[K:[a-z0-9_]+]] = {{.*}} to %c2
// CHECK:                 scf.for %[[C:[a-z0-9_]+]] = {{.*}} to %c16
// CHECK:                   %[[SLICE:.*]] = tensor.extract_slice %{{.*}}[%[[I]], %[[K]], %[[C]], 0, 0] [1, 1, 1, 8, 16] [1, 1, 1, 1, 1] : tensor<2x2x16x8x16xi32> to tensor<8x16xi32>
// CHECK-NEXT:              %[[N:.*]] = arith.addi %[[FIRST_N]], %[[I]] : index
// CHECK:                   scf.for %[[H:[a-z0-9_]+]] = {{.*}} to %c8
// CHECK:                     %[[COLUMN:.*]] = arith.addi %[[K]], %{{.*}} : index
// CHECK-NEXT:                %[[ROW:.*]] = vector.transfer_read %[[PAD]][%[[N]], %[[C]], %[[H]], %[[COLUMN]]], %{{.*}} : tensor<2x16x8x10xf32>, vector<32xf32>
// CHECK-NEXT:                %[[EVEN:.*]], %[[ODD:.*]] = vector.deinterleave %[[ROW]] : vector<32xf32> -> vector<16xf32>
// CHECK:                     arith.bitcast %[[EVEN]] : vector<16xf32> to vector<16xi32>
// CHECK:                     arith.bitcast %[[ODD]] : vector<16xf32> to vector<16xi32>
// CHECK:                     %[[WORDS:.*]] = arith.ori
// CHECK:                     vector.transfer_write %[[WORDS]], %{{.*}}[%[[H]], %{{.*}}] {in_bounds = [true]} : vector<16xi32>, tensor<8x16xi32>
// CHECK:                   tensor.insert_slice %{{.*}} into %{{.*}}[%[[I]], %[[K]], %[[C]], 0, 0] [1, 1, 1, 8, 16] [1, 1, 1, 1, 1] : tensor<8x16xi32> into tensor<2x2x16x8x16xi32>
// CHECK:             scf.for {{.*}} iter_args(%{{.*}} = %[[ACC]])
// CHECK:               scf.for {{.*}} to %c18
// CHECK:                 %[[TILE:.*]] = tensor.extract_slice {{.*}} [8, 16] [1, 1] : tensor<144x16xf32> to tensor<8x16xf32>
// CHECK:                 %[[WINDOW:.*]] = arith.divui %{{.*}}, %c16{{.*}} : index
// CHECK:                 %[[FIRST_C:.*]] = arith.remui %{{.*}}, %c16{{.*}} : index
// CHECK:                 scf.for %[[IMAGE:[a-z0-9_]+]] = %{{.*}} to %c2{{.*}} step %c1{{.*}} iter_args(%[[SUMS:.*]] = %[[TILE]]) -> (tensor<8x16xf32>)
// CHECK-NEXT:              %[[NB:.*]] = arith.addi %[[FIRST_N]], %[[IMAGE]] : index
// CHECK-NEXT:              %[[IMAGEB:.*]] = tensor.extract_slice %[[PB]][%[[NB]], 0, 0, 0] [1, 1, 24, 16] [1, 1, 1, 1] : tensor<2x1x24x16xi32> to tensor<1x24x16xi32>
// CHECK:                   %[[FIRST:.*]] = vector.transfer_read %[[SUMS]]{{.*}} : tensor<8x16xf32>, vector<16xf32>
// CHECK-COUNT-7:           vector.transfer_read %[[SUMS]]{{.*}} : tensor<8x16xf32>, vector<16xf32>
// CHECK:                   %{{.*}}:8 = scf.for %[[PAIR:[a-z0-9_]+]] = {{.*}} to %c24 {{.*}} iter_args(%{{.*}} = %[[FIRST]],
// CHECK:                     vector.transfer_read %[[IMAGEB]][%{{.*}}, %[[PAIR]], %{{.*}}], {{.*}} : tensor<1x24x16xi32>, vector<16xi32>
// CHECK:                     arith.divui %[[PAIR]], %c4{{.*}} : index
// CHECK:                     arith.remui %[[PAIR]], %c4{{.*}} : index
// CHECK:                     tensor.extract %[[PA]][%[[IMAGE]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] : tensor<2x2x16x8x16xi32>
// CHECK:                     x86vector.avx512.dot
// CHECK:         } else {
// CHECK:           %[[G:.*]] = bufferization.alloc_tensor() copy(%{{.*}}) {mp.fusion_barrier} : tensor<2x6x8x16xf32>
// CHECK-NEXT:      %[[FALLBACK:.*]] = linalg.generic {{.*}} ins(%[[PAD]], %[[G]] : tensor<2x16x8x10xf32>, tensor<2x6x8x16xf32>) outs(%[[FILL]] : tensor<3x3x16x16xf32>)
// CHECK:           scf.yield %[[FALLBACK]]
// PAR-LABEL: func.func @grad_filter(
// PAR:         scf.for
// PAR:           scf.forall (%{{.*}}, %{{.*}}) in (1, 18) shared_outs(%{{.*}} = %{{.*}}) -> (tensor<144x16xf32>)
// PAR:             x86vector.avx512.dot
// PAR:             tensor.parallel_insert_slice {{.*}} [8, 16] [1, 1] : tensor<8x16xf32> into tensor<144x16xf32>
// UNG-LABEL: func.func @grad_filter(
// UNG-NOT:     scf.if
// UNG:         x86vector.avx512.dot
// BLOCK1-LABEL: func.func @grad_filter(
// BLOCK1:         scf.if
// BLOCK1:           scf.for %[[FIRST_N:[a-z0-9_]+]] = %{{.*}} to %c2{{.*}} step %c1{{.*}} iter_args(%{{.*}}) -> (tensor<144x16xf32>)
// BLOCK1-NEXT:        tensor.empty() : tensor<1x2x16x8x16xi32>
// BLOCK1:             scf.for %[[IMAGE:[a-z0-9_]+]] = %{{.*}} to %c1{{.*}} step %c1{{.*}} iter_args(%{{.*}}) -> (tensor<8x16xf32>)
// BLOCK1-NEXT:          arith.addi %[[FIRST_N]], %[[IMAGE]] : index
// BLOCK1:               x86vector.avx512.dot
// BLOCK1:         } else {
#map = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#map1 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2 + 1, d3 + 1)>
#map2 = affine_map<(d0, d1, d2, d3, d4) -> (d1, d0 * 16 + d4, d2, d3)>
#map3 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>
#map4 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d2, d0 + d5, d1 + d6)>
#map5 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d3)>
#map6 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
#map7 = affine_map<(d0, d1, d2, d3) -> (d2, d3, d1, d0)>
func.func @grad_filter(%arg0: tensor<2x16x6x8xbf16>, %arg1: tensor<2x16x6x8xbf16>) -> tensor<16x16x3x3xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<2x16x8x10xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<2x16x8x10xf32>) -> tensor<2x16x8x10xf32>
  %2 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%arg1 : tensor<2x16x6x8xbf16>) outs(%1 : tensor<2x16x8x10xf32>) {
  ^bb0(%in: bf16, %out: f32):
    %11 = arith.extf %in : bf16 to f32
    %12 = arith.addf %11, %out : f32
    %13 = arith.cmpf ord, %11, %11 : f32
    %14 = arith.select %13, %11, %12 : f32
    linalg.yield %14 : f32
  } -> tensor<2x16x8x10xf32>
  %3 = tensor.empty() : tensor<1x2x6x8x16xf32>
  %4 = linalg.generic {indexing_maps = [#map2, #map3], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%arg0 : tensor<2x16x6x8xbf16>) outs(%3 : tensor<1x2x6x8x16xf32>) {
  ^bb0(%in: bf16, %out: f32):
    %11 = arith.extf %in : bf16 to f32
    linalg.yield %11 : f32
  } -> tensor<1x2x6x8x16xf32>
  %collapsed = tensor.collapse_shape %4 [[0, 1], [2], [3], [4]] : tensor<1x2x6x8x16xf32> into tensor<2x6x8x16xf32>
  %5 = bufferization.alloc_tensor() copy(%collapsed) {mp.fusion_barrier} : tensor<2x6x8x16xf32>
  %cst_0 = arith.constant 0.000000e+00 : f32
  %6 = tensor.empty() : tensor<3x3x16x16xf32>
  %7 = linalg.fill ins(%cst_0 : f32) outs(%6 : tensor<3x3x16x16xf32>) -> tensor<3x3x16x16xf32>
  %8 = linalg.generic {indexing_maps = [#map4, #map5, #map6], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%2, %5 : tensor<2x16x8x10xf32>, tensor<2x6x8x16xf32>) outs(%7 : tensor<3x3x16x16xf32>) {
  ^bb0(%in: f32, %in_1: f32, %out: f32):
    %11 = arith.mulf %in, %in_1 : f32
    %12 = arith.addf %out, %11 : f32
    linalg.yield %12 : f32
  } -> tensor<3x3x16x16xf32>
  %9 = tensor.empty() : tensor<16x16x3x3xf32>
  %10 = linalg.generic {indexing_maps = [#map7, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%8 : tensor<3x3x16x16xf32>) outs(%9 : tensor<16x16x3x3xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<16x16x3x3xf32>
  return %10 : tensor<16x16x3x3xf32>
}

// -----

// A filter gradient with strides 2: a K pair is two neighbouring output
// pixels, input columns 2 apart, so there are 4 phases (k's word j:
// columns 4j + k and 4j + k + 2), each row read as 64 columns, its even
// columns (the pixels') kept and split into the pairs' first and second.
// CHECK-LABEL: func.func @grad_filter_strided(
// CHECK:         scf.if
// CHECK:           tensor.empty() : tensor<2x4x16x7x16xi32>
// CHECK:           %[[ROW:.*]] = vector.transfer_read {{.*}} : tensor<2x16x8x10xf32>, vector<64xf32>
// CHECK-NEXT:      %[[COLUMNS:.*]], %{{.*}} = vector.deinterleave %[[ROW]] : vector<64xf32> -> vector<32xf32>
// CHECK-NEXT:      %[[EVEN:.*]], %[[ODD:.*]] = vector.deinterleave %[[COLUMNS]] : vector<32xf32> -> vector<16xf32>
// CHECK:           vector.transfer_write %{{.*}} {in_bounds = [true]} : vector<16xi32>, tensor<7x16xi32>
// CHECK:           scf.for %{{.*}} to %c6{{.*}} iter_args
// CHECK:             tensor.extract %{{.*}} : tensor<2x4x16x7x16xi32>
// CHECK:             x86vector.avx512.dot
// CHECK:         } else {
func.func @grad_filter_strided(%arg0: tensor<2x16x3x4xbf16>, %arg1: tensor<2x16x6x8xbf16>) -> tensor<16x16x3x3xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<2x16x8x10xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<2x16x8x10xf32>) -> tensor<2x16x8x10xf32>
  %2 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2 + 1, d3 + 1)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%arg1 : tensor<2x16x6x8xbf16>) outs(%1 : tensor<2x16x8x10xf32>) {
  ^bb0(%in: bf16, %out: f32):
    %11 = arith.extf %in : bf16 to f32
    %12 = arith.addf %11, %out : f32
    %13 = arith.cmpf ord, %11, %11 : f32
    %14 = arith.select %13, %11, %12 : f32
    linalg.yield %14 : f32
  } -> tensor<2x16x8x10xf32>
  %3 = tensor.empty() : tensor<1x2x3x4x16xf32>
  %4 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d1, d0 * 16 + d4, d2, d3)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%arg0 : tensor<2x16x3x4xbf16>) outs(%3 : tensor<1x2x3x4x16xf32>) {
  ^bb0(%in: bf16, %out: f32):
    %11 = arith.extf %in : bf16 to f32
    linalg.yield %11 : f32
  } -> tensor<1x2x3x4x16xf32>
  %collapsed = tensor.collapse_shape %4 [[0, 1], [2], [3], [4]] : tensor<1x2x3x4x16xf32> into tensor<2x3x4x16xf32>
  %5 = bufferization.alloc_tensor() copy(%collapsed) {mp.fusion_barrier} : tensor<2x3x4x16xf32>
  %6 = tensor.empty() : tensor<3x3x16x16xf32>
  %7 = linalg.fill ins(%cst : f32) outs(%6 : tensor<3x3x16x16xf32>) -> tensor<3x3x16x16xf32>
  %8 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d2, d5 * 2 + d0, d6 * 2 + d1)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d3)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%2, %5 : tensor<2x16x8x10xf32>, tensor<2x3x4x16xf32>) outs(%7 : tensor<3x3x16x16xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %11 = arith.mulf %in, %in_0 : f32
    %12 = arith.addf %out, %11 : f32
    linalg.yield %12 : f32
  } -> tensor<3x3x16x16xf32>
  %9 = tensor.empty() : tensor<16x16x3x3xf32>
  %10 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d2, d3, d1, d0)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%8 : tensor<3x3x16x16xf32>) outs(%9 : tensor<16x16x3x3xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<16x16x3x3xf32>
  return %10 : tensor<16x16x3x3xf32>
}

// -----

// A gradient that is not a transpose of a bf16 [N, F, OH, OW] tensor (here
// given as [N, OH, OW, F] and widened in place): B is packed from the
// widened rows, two rows of 16 filters made words per pixel pair.
// CHECK-LABEL: func.func @grad_filter_rows(
// CHECK:         %[[G:.*]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<2x6x8x16xbf16>) outs(%{{.*}} : tensor<2x6x8x16xf32>)
// CHECK:         scf.if
// CHECK:           tensor.empty() : tensor<2x1x24x16xi32>
// CHECK:                 vector.transfer_read %[[G]]{{.*}} : tensor<2x6x8x16xf32>, vector<16xf32>
// CHECK:                 vector.transfer_read %[[G]]{{.*}} : tensor<2x6x8x16xf32>, vector<16xf32>
// CHECK:                 vector.transfer_write {{.*}} : vector<16xi32>, tensor<24x16xi32>
// CHECK:           x86vector.avx512.dot
// CHECK:         } else {
func.func @grad_filter_rows(%arg0: tensor<2x6x8x16xbf16>, %arg1: tensor<2x16x6x8xbf16>) -> tensor<3x3x16x16xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<2x16x8x10xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<2x16x8x10xf32>) -> tensor<2x16x8x10xf32>
  %2 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2 + 1, d3 + 1)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%arg1 : tensor<2x16x6x8xbf16>) outs(%1 : tensor<2x16x8x10xf32>) {
  ^bb0(%in: bf16, %out: f32):
    %11 = arith.extf %in : bf16 to f32
    %12 = arith.addf %11, %out : f32
    %13 = arith.cmpf ord, %11, %11 : f32
    %14 = arith.select %13, %11, %12 : f32
    linalg.yield %14 : f32
  } -> tensor<2x16x8x10xf32>
  %3 = tensor.empty() : tensor<2x6x8x16xf32>
  %4 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%arg0 : tensor<2x6x8x16xbf16>) outs(%3 : tensor<2x6x8x16xf32>) {
  ^bb0(%in: bf16, %out: f32):
    %11 = arith.extf %in : bf16 to f32
    linalg.yield %11 : f32
  } -> tensor<2x6x8x16xf32>
  %6 = tensor.empty() : tensor<3x3x16x16xf32>
  %7 = linalg.fill ins(%cst : f32) outs(%6 : tensor<3x3x16x16xf32>) -> tensor<3x3x16x16xf32>
  %8 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d2, d0 + d5, d1 + d6)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d3)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%2, %4 : tensor<2x16x8x10xf32>, tensor<2x6x8x16xf32>) outs(%7 : tensor<3x3x16x16xf32>) {
  ^bb0(%in: f32, %in_1: f32, %out: f32):
    %11 = arith.mulf %in, %in_1 : f32
    %12 = arith.addf %out, %11 : f32
    linalg.yield %12 : f32
  } -> tensor<3x3x16x16xf32>
  return %8 : tensor<3x3x16x16xf32>
}

// -----

// Left alone: 8 filters (not a multiple of 16), operands that are not
// widened bf16 (f32 sources), a padding copy into a tensor.empty, whose
// payload reads undefined output elements, and a filter gradient of odd
// width (its K pairs would cross rows of pixels).
// CHECK-LABEL: func.func @conv8(
// CHECK-NOT:     scf.if
// CHECK-NOT:     x86vector.avx512.dot
// CHECK-LABEL: func.func @conv_f32_sources(
// CHECK-NOT:     scf.if
// CHECK-NOT:     x86vector.avx512.dot
// CHECK-LABEL: func.func @conv_pad_into_empty(
// CHECK-NOT:     scf.if
// CHECK-NOT:     x86vector.avx512.dot
// CHECK-LABEL: func.func @grad_filter_odd_width(
// CHECK-NOT:     scf.if
// CHECK-NOT:     x86vector.avx512.dot
#map = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#map1 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2 + 1, d3 + 1)>
#map2 = affine_map<(d0, d1, d2, d3) -> (d3, d0, d1, d2)>
#map3 = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d5, d1 + d6, d2 * 8 + d3 + d7)>
#map4 = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d5, d6, d7, d4)>
#map5 = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d3, d4)>
#map6 = affine_map<(d0, d1, d2, d3) -> ((d0 * 6 + d2) * 8 + d3, d1)>
#map7 = affine_map<(d0, d1, d2, d3) -> ((d0 * 8 + d2) * 8 + d3, d1)>
func.func @conv8(%arg0: tensor<2x16x6x8xbf16>, %arg1: tensor<8x16x3x3xbf16>) -> tensor<2x8x6x8xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<2x16x8x10xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<2x16x8x10xf32>) -> tensor<2x16x8x10xf32>
  %2 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%arg0 : tensor<2x16x6x8xbf16>) outs(%1 : tensor<2x16x8x10xf32>) {
  ^bb0(%in: bf16, %out: f32):
    %11 = arith.extf %in : bf16 to f32
    %12 = arith.addf %11, %out : f32
    %13 = arith.cmpf ord, %11, %11 : f32
    %14 = arith.select %13, %11, %12 : f32
    linalg.yield %14 : f32
  } -> tensor<2x16x8x10xf32>
  %3 = tensor.empty() : tensor<16x3x3x8xf32>
  %4 = linalg.generic {indexing_maps = [#map2, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%arg1 : tensor<8x16x3x3xbf16>) outs(%3 : tensor<16x3x3x8xf32>) {
  ^bb0(%in: bf16, %out: f32):
    %11 = arith.extf %in : bf16 to f32
    linalg.yield %11 : f32
  } -> tensor<16x3x3x8xf32>
  %5 = bufferization.alloc_tensor() copy(%4) {mp.fusion_barrier} : tensor<16x3x3x8xf32>
  %cst_0 = arith.constant 0.000000e+00 : f32
  %6 = tensor.empty() : tensor<2x6x1x8x8xf32>
  %7 = linalg.fill ins(%cst_0 : f32) outs(%6 : tensor<2x6x1x8x8xf32>) -> tensor<2x6x1x8x8xf32>
  %8 = linalg.generic {indexing_maps = [#map3, #map4, #map5], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%2, %5 : tensor<2x16x8x10xf32>, tensor<16x3x3x8xf32>) outs(%7 : tensor<2x6x1x8x8xf32>) {
  ^bb0(%in: f32, %in_1: f32, %out: f32):
    %11 = arith.mulf %in, %in_1 : f32
    %12 = arith.addf %out, %11 : f32
    linalg.yield %12 : f32
  } -> tensor<2x6x1x8x8xf32>
  %collapsed = tensor.collapse_shape %8 [[0, 1, 2, 3], [4]] : tensor<2x6x1x8x8xf32> into tensor<96x8xf32>
  %9 = tensor.empty() : tensor<2x8x6x8xf32>
  %10 = linalg.generic {indexing_maps = [#map6, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%collapsed : tensor<96x8xf32>) outs(%9 : tensor<2x8x6x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<2x8x6x8xf32>
  return %10 : tensor<2x8x6x8xf32>
}

func.func @conv_f32_sources(%arg0: tensor<2x16x6x8xf32>, %arg1: tensor<16x16x3x3xf32>) -> tensor<2x16x6x8xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<2x16x8x10xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<2x16x8x10xf32>) -> tensor<2x16x8x10xf32>
  %2 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%arg0 : tensor<2x16x6x8xf32>) outs(%1 : tensor<2x16x8x10xf32>) {
  ^bb0(%in: f32, %out: f32):
    %11 = arith.addf %in, %out : f32
    %12 = arith.cmpf ord, %in, %in : f32
    %13 = arith.select %12, %in, %11 : f32
    linalg.yield %13 : f32
  } -> tensor<2x16x8x10xf32>
  %3 = tensor.empty() : tensor<16x3x3x16xf32>
  %4 = linalg.generic {indexing_maps = [#map2, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%arg1 : tensor<16x16x3x3xf32>) outs(%3 : tensor<16x3x3x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<16x3x3x16xf32>
  %5 = bufferization.alloc_tensor() copy(%4) {mp.fusion_barrier} : tensor<16x3x3x16xf32>
  %cst_0 = arith.constant 0.000000e+00 : f32
  %6 = tensor.empty() : tensor<2x6x1x8x16xf32>
  %7 = linalg.fill ins(%cst_0 : f32) outs(%6 : tensor<2x6x1x8x16xf32>) -> tensor<2x6x1x8x16xf32>
  %8 = linalg.generic {indexing_maps = [#map3, #map4, #map5], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%2, %5 : tensor<2x16x8x10xf32>, tensor<16x3x3x16xf32>) outs(%7 : tensor<2x6x1x8x16xf32>) {
  ^bb0(%in: f32, %in_1: f32, %out: f32):
    %11 = arith.mulf %in, %in_1 : f32
    %12 = arith.addf %out, %11 : f32
    linalg.yield %12 : f32
  } -> tensor<2x6x1x8x16xf32>
  %collapsed = tensor.collapse_shape %8 [[0, 1, 2, 3], [4]] : tensor<2x6x1x8x16xf32> into tensor<96x16xf32>
  %9 = tensor.empty() : tensor<2x16x6x8xf32>
  %10 = linalg.generic {indexing_maps = [#map6, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%collapsed : tensor<96x16xf32>) outs(%9 : tensor<2x16x6x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<2x16x6x8xf32>
  return %10 : tensor<2x16x6x8xf32>
}

func.func @conv_pad_into_empty(%arg0: tensor<2x16x6x8xbf16>, %arg1: tensor<16x16x3x3xbf16>) -> tensor<2x16x6x8xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<2x16x8x10xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<2x16x8x10xf32>) -> tensor<2x16x8x10xf32>
  %2 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%arg0 : tensor<2x16x6x8xbf16>) outs(%0 : tensor<2x16x8x10xf32>) {
  ^bb0(%in: bf16, %out: f32):
    %11 = arith.extf %in : bf16 to f32
    %12 = arith.addf %11, %out : f32
    %13 = arith.cmpf ord, %11, %11 : f32
    %14 = arith.select %13, %11, %12 : f32
    linalg.yield %14 : f32
  } -> tensor<2x16x8x10xf32>
  %3 = tensor.empty() : tensor<16x3x3x16xf32>
  %4 = linalg.generic {indexing_maps = [#map2, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%arg1 : tensor<16x16x3x3xbf16>) outs(%3 : tensor<16x3x3x16xf32>) {
  ^bb0(%in: bf16, %out: f32):
    %11 = arith.extf %in : bf16 to f32
    linalg.yield %11 : f32
  } -> tensor<16x3x3x16xf32>
  %5 = bufferization.alloc_tensor() copy(%4) {mp.fusion_barrier} : tensor<16x3x3x16xf32>
  %cst_0 = arith.constant 0.000000e+00 : f32
  %6 = tensor.empty() : tensor<2x6x1x8x16xf32>
  %7 = linalg.fill ins(%cst_0 : f32) outs(%6 : tensor<2x6x1x8x16xf32>) -> tensor<2x6x1x8x16xf32>
  %8 = linalg.generic {indexing_maps = [#map3, #map4, #map5], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%2, %5 : tensor<2x16x8x10xf32>, tensor<16x3x3x16xf32>) outs(%7 : tensor<2x6x1x8x16xf32>) {
  ^bb0(%in: f32, %in_1: f32, %out: f32):
    %11 = arith.mulf %in, %in_1 : f32
    %12 = arith.addf %out, %11 : f32
    linalg.yield %12 : f32
  } -> tensor<2x6x1x8x16xf32>
  %collapsed = tensor.collapse_shape %8 [[0, 1, 2, 3], [4]] : tensor<2x6x1x8x16xf32> into tensor<96x16xf32>
  %9 = tensor.empty() : tensor<2x16x6x8xf32>
  %10 = linalg.generic {indexing_maps = [#map6, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%collapsed : tensor<96x16xf32>) outs(%9 : tensor<2x16x6x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<2x16x6x8xf32>
  return %10 : tensor<2x16x6x8xf32>
}

// -----

#map = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#map1 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2 + 1, d3 + 1)>
#map2 = affine_map<(d0, d1, d2, d3, d4) -> (d1, d0 * 16 + d4, d2, d3)>
#map3 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>
#map4 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d2, d0 + d5, d1 + d6)>
#map5 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d3)>
#map6 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
#map7 = affine_map<(d0, d1, d2, d3) -> (d2, d3, d1, d0)>
func.func @grad_filter_odd_width(%arg0: tensor<1x16x5x5xbf16>, %arg1: tensor<1x16x5x5xbf16>) -> tensor<16x16x3x3xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<1x16x7x7xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<1x16x7x7xf32>) -> tensor<1x16x7x7xf32>
  %2 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%arg1 : tensor<1x16x5x5xbf16>) outs(%1 : tensor<1x16x7x7xf32>) {
  ^bb0(%in: bf16, %out: f32):
    %11 = arith.extf %in : bf16 to f32
    %12 = arith.addf %11, %out : f32
    %13 = arith.cmpf ord, %11, %11 : f32
    %14 = arith.select %13, %11, %12 : f32
    linalg.yield %14 : f32
  } -> tensor<1x16x7x7xf32>
  %3 = tensor.empty() : tensor<1x1x5x5x16xf32>
  %4 = linalg.generic {indexing_maps = [#map2, #map3], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%arg0 : tensor<1x16x5x5xbf16>) outs(%3 : tensor<1x1x5x5x16xf32>) {
  ^bb0(%in: bf16, %out: f32):
    %11 = arith.extf %in : bf16 to f32
    linalg.yield %11 : f32
  } -> tensor<1x1x5x5x16xf32>
  %collapsed = tensor.collapse_shape %4 [[0], [1, 2], [3], [4]] : tensor<1x1x5x5x16xf32> into tensor<1x5x5x16xf32>
  %5 = bufferization.alloc_tensor() copy(%collapsed) {mp.fusion_barrier} : tensor<1x5x5x16xf32>
  %cst_0 = arith.constant 0.000000e+00 : f32
  %6 = tensor.empty() : tensor<3x3x16x16xf32>
  %7 = linalg.fill ins(%cst_0 : f32) outs(%6 : tensor<3x3x16x16xf32>) -> tensor<3x3x16x16xf32>
  %8 = linalg.generic {indexing_maps = [#map4, #map5, #map6], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%2, %5 : tensor<1x16x7x7xf32>, tensor<1x5x5x16xf32>) outs(%7 : tensor<3x3x16x16xf32>) {
  ^bb0(%in: f32, %in_1: f32, %out: f32):
    %11 = arith.mulf %in, %in_1 : f32
    %12 = arith.addf %out, %11 : f32
    linalg.yield %12 : f32
  } -> tensor<3x3x16x16xf32>
  %9 = tensor.empty() : tensor<16x16x3x3xf32>
  %10 = linalg.generic {indexing_maps = [#map7, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%8 : tensor<3x3x16x16xf32>) outs(%9 : tensor<16x16x3x3xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<16x16x3x3xf32>
  return %10 : tensor<16x16x3x3xf32>
}
