// RUN: mp-opt %s --mp-bf16-dot-products -split-input-file | FileCheck %s
// RUN: mp-opt %s --mp-bf16-dot-products=parallel=true -split-input-file | FileCheck %s --check-prefix=PAR
// RUN: mp-opt %s --mp-bf16-dot-products=unguarded=true -split-input-file | FileCheck %s --check-prefix=UNG

// A bf16 matmul into a zero fill: the guard reduces both operands to their
// magnitude range; the kernel packs A into panels of 16 rows, a K pair's 16
// words (rotated by 16 bits, so that K = 2p is added first) one row of the
// panel (16 x 32 blocks of bf16 transposed as 16 x 16 words; here K = 8
// makes one partial block of 4 pairs), packs B into 16-column panels of
// (K = 2p + 1, K = 2p) pairs, and accumulates 16 x 16 tiles with
// x86vector.avx512.dot over the K pairs, each row's word of A broadcast as
// the second source (which vdpbf16ps may read from memory); the else branch
// is the original contraction, with its zero fill (the kernel writes every
// element of its result, so only the fallback reads the fill).
// CHECK-LABEL: func.func @matmul(
// CHECK-SAME:      %[[A:.*]]: tensor<16x8xbf16>, %[[B:.*]]: tensor<8x64xbf16>
// CHECK-NOT:     linalg.fill
// CHECK:         %[[FLATA:.*]] = tensor.collapse_shape %[[A]] {{\[}}[0, 1]] : tensor<16x8xbf16> into tensor<128xbf16>
// CHECK:         %[[RA:.*]]:2 = scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args({{.*}}) -> (vector<32xi16>, vector<32xi16>) {
// CHECK:           vector.transfer_read %[[FLATA]][%[[I]]], %{{.*}} {in_bounds = [true]} : tensor<128xbf16>, vector<32xbf16>
// CHECK:           vector.bitcast %{{.*}} : vector<32xbf16> to vector<32xi16>
// CHECK:           %[[MAG:.*]] = arith.andi
// CHECK:           %[[MINUS:.*]] = arith.subi %[[MAG]]
// CHECK:           arith.minui %{{.*}}, %[[MINUS]] : vector<32xi16>
// CHECK:           arith.maxui %{{.*}}, %[[MAG]] : vector<32xi16>
// CHECK:         vector.reduction <minui>, %[[RA]]#0 : vector<32xi16> into i16
// CHECK:         vector.reduction <maxui>, %[[RA]]#1 : vector<32xi16> into i16
// CHECK:         tensor.collapse_shape %[[B]] {{\[}}[0, 1]] : tensor<8x64xbf16> into tensor<512xbf16>
// CHECK:         arith.cmpi uge, %{{.*}}, %c127_i32
// CHECK:         arith.cmpi ult, %{{.*}}, %c32640_i32
// CHECK:         arith.cmpi uge, %{{.*}}, %c142_i32
// CHECK:         arith.cmpi ule, %{{.*}}, %c380_i32
// CHECK-COUNT-4: arith.andi %{{.*}} : i1
// CHECK-NEXT:    %[[GUARD:.*]] = arith.andi
// CHECK-NEXT:    %[[R:.*]] = scf.if %[[GUARD]] -> (tensor<16x64xf32>) {
// CHECK:           %[[RA:.*]] = tensor.expand_shape %[[A]] {{\[}}[0, 1], [2]] output_shape [1, 16, 8] : tensor<16x8xbf16> into tensor<1x16x8xbf16>
// CHECK:           %[[RB:.*]] = tensor.expand_shape %[[B]] {{\[}}[0, 1], [2]] output_shape [1, 8, 64] : tensor<8x64xbf16> into tensor<1x8x64xbf16>
// CHECK:           %[[EA:.*]] = tensor.empty() : tensor<1x1x4x16xi32>
// CHECK:           %[[PA:.*]] = scf.for {{.*}} iter_args(%{{.*}} = %[[EA]])
// CHECK:             scf.for %[[APANEL:[a-z0-9_]+]] = {{.*}} iter_args(%[[APACKED:.*]] = %{{.*}})
// CHECK:               %[[ADEST:.*]] = tensor.extract_slice %[[APACKED]][%{{.*}}, %[[APANEL]], 0, 0] [1, 1, 4, 16] [1, 1, 1, 1] : tensor<1x1x4x16xi32> to tensor<4x16xi32>
// CHECK:               %[[BLOCK:.*]] = vector.transfer_read %[[RA]][{{.*}}], %{{.*}} {in_bounds = [true, false]} : tensor<1x16x8xbf16>, vector<16x32xbf16>
// CHECK-NEXT:          %[[SIXTEEN:.*]] = arith.constant dense<16> : vector<16x16xi32>
// CHECK-NEXT:          %[[WORDS:.*]] = vector.bitcast %[[BLOCK]] : vector<16x32xbf16> to vector<16x16xi32>
// CHECK-NEXT:          %[[HIGH:.*]] = arith.shli %[[WORDS]], %[[SIXTEEN]] : vector<16x16xi32>
// CHECK-NEXT:          %[[LOW:.*]] = arith.shrui %[[WORDS]], %[[SIXTEEN]] : vector<16x16xi32>
// CHECK-NEXT:          %[[ROTATED:.*]] = arith.ori %[[HIGH]], %[[LOW]] : vector<16x16xi32>
// CHECK-NEXT:          %[[COLUMNS:.*]] = vector.transpose %[[ROTATED]], [1, 0] : vector<16x16xi32> to vector<16x16xi32>
// CHECK-NEXT:          %[[USED:.*]] = vector.extract_strided_slice %[[COLUMNS]] {offsets = [0, 0], sizes = [4, 16], strides = [1, 1]} : vector<16x16xi32> to vector<4x16xi32>
// CHECK:               %[[AFILLED:.*]] = vector.transfer_write %[[USED]], %[[ADEST]][{{.*}}] {in_bounds = [true, true]} : vector<4x16xi32>, tensor<4x16xi32>
// CHECK-NEXT:          tensor.insert_slice %[[AFILLED]] into %[[APACKED]][%{{.*}}, %[[APANEL]], 0, 0] [1, 1, 4, 16] [1, 1, 1, 1] : tensor<4x16xi32> into tensor<1x1x4x16xi32>
// CHECK:           %[[EB:.*]] = tensor.empty() : tensor<1x4x4x16xi32>
// CHECK:           %[[PB:.*]] = scf.for {{.*}} iter_args(%{{.*}} = %[[EB]])
// CHECK:             scf.for
// CHECK:               scf.for %[[P:[a-z0-9_]+]] =
// CHECK:                 %[[EVEN:.*]] = arith.muli %[[P]]
// CHECK:                 %[[ODD:.*]] = arith.addi %[[EVEN]]
// CHECK:                 %[[ROWODD:.*]] = vector.transfer_read %[[RB]][%{{.*}}, %[[ODD]], %{{.*}}], {{.*}} : tensor<1x8x64xbf16>, vector<16xbf16>
// CHECK-NEXT:            %[[ROWEVEN:.*]] = vector.transfer_read %[[RB]][%{{.*}}, %[[EVEN]], %{{.*}}], {{.*}} : tensor<1x8x64xbf16>, vector<16xbf16>
// CHECK-NEXT:            %[[PAIRSB:.*]] = vector.interleave %[[ROWODD]], %[[ROWEVEN]] : vector<16xbf16> -> vector<32xbf16>
// CHECK-NEXT:            %[[WORDSB:.*]] = vector.bitcast %[[PAIRSB]] : vector<32xbf16> to vector<16xi32>
// CHECK:                 vector.transfer_write %[[WORDSB]], %{{.*}}[%[[P]], %{{.*}}] {in_bounds = [true]} : vector<16xi32>, tensor<4x16xi32>
// CHECK:           %[[OUT:.*]] = tensor.empty() : tensor<16x64xf32>
// CHECK:           scf.for %[[BATCH:[a-z0-9_]+]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %[[OUT]])
// CHECK:             scf.for %[[PANEL:[a-z0-9_]+]] = {{.*}} iter_args
// CHECK:               scf.for %[[ROWS:[a-z0-9_]+]] = {{.*}} iter_args
// CHECK:                 tensor.extract_slice {{.*}} [16, 16] [1, 1] : tensor<16x64xf32> to tensor<16x16xf32>
// CHECK:                 %[[TILEA:.*]] = tensor.extract_slice %[[PA]][%[[BATCH]], %[[ROWS]], 0, 0] [1, 1, 4, 16] [1, 1, 1, 1] : tensor<1x1x4x16xi32> to tensor<4x16xi32>
// CHECK:                 %[[PANELSB:.*]] = tensor.extract_slice %[[PB]][%[[BATCH]], 0, 0, 0] [1, 4, 4, 16] [1, 1, 1, 1] : tensor<1x4x4x16xi32> to tensor<4x4x16xi32>
// CHECK:                 %{{.*}}:16 = scf.for %[[PAIR:[a-z0-9_]+]] = {{.*}} -> (vector<16xf32>, {{.*}}
// CHECK:                   %[[ROWBW:.*]] = vector.transfer_read %[[PANELSB]][%[[PANEL]], %[[PAIR]], %{{.*}}], {{.*}} : tensor<4x4x16xi32>, vector<16xi32>
// CHECK-NEXT:              %[[ROWB:.*]] = vector.bitcast %[[ROWBW]] : vector<16xi32> to vector<32xbf16>
// CHECK:                   %[[WORD:.*]] = tensor.extract %[[TILEA]][%[[PAIR]], %{{.*}}] : tensor<4x16xi32>
// CHECK-NEXT:              %[[SPLAT:.*]] = vector.broadcast %[[WORD]] : i32 to vector<16xi32>
// CHECK-NEXT:              %[[PAIRS:.*]] = vector.bitcast %[[SPLAT]] : vector<16xi32> to vector<32xbf16>
// CHECK-NEXT:              x86vector.avx512.dot %{{.*}}, %[[ROWB]], %[[PAIRS]] : vector<32xbf16> -> vector<16xf32>
// CHECK-COUNT-15:          x86vector.avx512.dot %{{.*}}, %[[ROWB]], %{{.*}} : vector<32xbf16> -> vector<16xf32>
// CHECK-COUNT-16:        vector.transfer_write {{.*}} : vector<16xf32>, tensor<16x16xf32>
// CHECK:                 tensor.insert_slice {{.*}} [16, 16] [1, 1] : tensor<16x16xf32> into tensor<16x64xf32>
// CHECK:         } else {
// CHECK-NEXT:      %[[FILL:.*]] = linalg.fill
// CHECK-NEXT:      %[[FALLBACK:.*]] = linalg.matmul ins(%[[A]], %[[B]] : tensor<16x8xbf16>, tensor<8x64xbf16>) outs(%[[FILL]] : tensor<16x64xf32>)
// CHECK-NEXT:      scf.yield %[[FALLBACK]]
// CHECK:         return %[[R]]
// UNG-LABEL: func.func @matmul(
// UNG-NOT:     scf.if
// UNG-NOT:     linalg.matmul
// UNG:         x86vector.avx512.dot
func.func @matmul(%a: tensor<16x8xbf16>, %b: tensor<8x64xbf16>) -> tensor<16x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<16x64xf32>) -> tensor<16x64xf32>
  %r = linalg.matmul ins(%a, %b : tensor<16x8xbf16>, tensor<8x64xbf16>) outs(%f : tensor<16x64xf32>) -> tensor<16x64xf32>
  return %r : tensor<16x64xf32>
}

// -----

// A batch matmul of 16384 iterations: with `parallel` the tile loops (batch,
// panels, row tiles) are one scf.forall writing disjoint 16 x 16 tiles.
// CHECK-LABEL: func.func @batch_matmul(
// CHECK:         scf.if
// CHECK-NOT:     scf.forall
// CHECK:         linalg.batch_matmul
// PAR-LABEL: func.func @batch_matmul(
// PAR:         scf.if
// PAR:           %[[OUT:.*]] = tensor.empty() : tensor<2x16x32xf32>
// PAR:           scf.forall (%[[BATCH:.*]], %[[PANEL:.*]], %[[ROWS:.*]]) in (2, 2, 1) shared_outs(%[[SHARED:.*]] = %[[OUT]])
// PAR:             tensor.extract_slice %[[SHARED]][%[[BATCH]], %{{.*}}, %{{.*}}] [1, 16, 16] [1, 1, 1] : tensor<2x16x32xf32> to tensor<16x16xf32>
// PAR:             x86vector.avx512.dot
// PAR:             scf.forall.in_parallel {
// PAR-NEXT:          tensor.parallel_insert_slice %{{.*}} into %[[SHARED]][%[[BATCH]], %{{.*}}, %{{.*}}] [1, 16, 16] [1, 1, 1] : tensor<16x16xf32> into tensor<2x16x32xf32>
// PAR:         } else {
// PAR-NEXT:      linalg.fill
// PAR-NEXT:      linalg.batch_matmul
func.func @batch_matmul(%a: tensor<2x16x16xbf16>, %b: tensor<2x16x32xbf16>) -> tensor<2x16x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x16x32xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x16x32xf32>) -> tensor<2x16x32xf32>
  %r = linalg.batch_matmul ins(%a, %b : tensor<2x16x16xbf16>, tensor<2x16x32xbf16>) outs(%f : tensor<2x16x32xf32>) -> tensor<2x16x32xf32>
  return %r : tensor<2x16x32xf32>
}

// -----

// With `parallel`, operands of at least 8192 elements are packed and
// guarded on the threads too: B (2 x 128 x 64) one 16-column panel an
// iteration, its 64 x 16 words of pairs written into the panel's slice of
// the packed B; its guard reductions in 64 chunks of 8 steps of 32
// elements, their partial vectors combined by one loop after. A (4096
// elements) is reduced and packed (four 16 x 32 blocks a panel) in loops.
// Without it, no scf.forall.
// CHECK-LABEL: func.func @parallel_packs(
// CHECK-NOT:     scf.forall
// CHECK:         x86vector.avx512.dot
// CHECK-NOT:     scf.forall
// PAR-LABEL: func.func @parallel_packs(
// PAR:         scf.for %{{.*}} = %c0 to %c4096 step %c32 iter_args
// PAR:         %[[PARTIALS:.*]] = scf.forall (%[[CHUNK:.*]]) in (64) shared_outs(%[[ROWS:.*]] = %{{.*}}) -> (tensor<64x2x32xi16>)
// PAR:           scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) -> (vector<32xi16>, vector<32xi16>)
// PAR:           arith.minui
// PAR:           arith.maxui
// PAR:           scf.forall.in_parallel
// PAR-NEXT:        tensor.parallel_insert_slice %{{.*}} into %[[ROWS]][%[[CHUNK]], 0, 0] [1, 2, 32] [1, 1, 1] : tensor<2x32xi16> into tensor<64x2x32xi16>
// PAR:         scf.for %{{.*}} = %{{.*}} to %c64 step %{{.*}} iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) -> (vector<32xi16>, vector<32xi16>)
// PAR:           vector.transfer_read %[[PARTIALS]]
// PAR:         scf.if
// PAR-NOT:       scf.forall
// PAR:           scf.for %{{.*}} = %{{.*}} to %c64{{.*}} step %c16{{.*}} iter_args(%{{.*}} = %{{.*}}) -> (tensor<64x16xi32>)
// PAR:             vector.transpose
// PAR:           scf.forall (%[[BATCH:.*]], %[[PANEL:.*]]) in (2, 4) shared_outs(%[[PACKED:.*]] = %{{.*}}) -> (tensor<2x4x64x16xi32>)
// PAR-NEXT:        %[[DEST:.*]] = tensor.extract_slice %[[PACKED]][%[[BATCH]], %[[PANEL]], 0, 0] [1, 1, 64, 16] [1, 1, 1, 1] : tensor<2x4x64x16xi32> to tensor<64x16xi32>
// PAR:             scf.for %{{.*}} iter_args(%{{.*}} = %[[DEST]]) -> (tensor<64x16xi32>)
// PAR:               vector.interleave
// PAR:             scf.forall.in_parallel
// PAR-NEXT:          tensor.parallel_insert_slice %{{.*}} into %[[PACKED]][%[[BATCH]], %[[PANEL]], 0, 0] [1, 1, 64, 16] [1, 1, 1, 1] : tensor<64x16xi32> into tensor<2x4x64x16xi32>
// PAR:           scf.forall (%{{.*}}, %{{.*}}, %{{.*}}) in (2, 4, 1)
// PAR:             x86vector.avx512.dot
func.func @parallel_packs(%a: tensor<2x16x128xbf16>, %b: tensor<2x128x64xbf16>) -> tensor<2x16x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x16x64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x16x64xf32>) -> tensor<2x16x64xf32>
  %r = linalg.batch_matmul ins(%a, %b : tensor<2x16x128xbf16>, tensor<2x128x64xbf16>) outs(%f : tensor<2x16x64xf32>) -> tensor<2x16x64xf32>
  return %r : tensor<2x16x64xf32>
}

// -----

// Several M, N and K loops (the reshaped contractions of a transformer
// step): the kernel runs on the flattened [M, N] = [8*2, 2*32] and expands
// its result back; K = (2, 4) is summed in loop order, pairs along the last.
// A is read in place ([1, 16, 8]); B, stored [K0, K1, N0, N1] too, as
// [1, 8, 64] rows.
// CHECK-LABEL: func.func @reshaped(
// CHECK:         scf.if
// CHECK:           tensor.collapse_shape %{{.*}} {{\[}}[0, 1], [2, 3]] : tensor<8x2x2x4xbf16> into tensor<16x8xbf16>
// CHECK:           tensor.collapse_shape %{{.*}} {{\[}}[0, 1], [2, 3]] : tensor<2x4x2x32xbf16> into tensor<8x64xbf16>
// CHECK:           tensor.expand_shape %{{.*}} {{\[}}[0, 1], [2, 3]] output_shape [8, 2, 2, 32] : tensor<16x64xf32> into tensor<8x2x2x32xf32>

#a = affine_map<(m0, m1, n0, n1, k0, k1) -> (m0, m1, k0, k1)>
#b = affine_map<(m0, m1, n0, n1, k0, k1) -> (k0, k1, n0, n1)>
#c = affine_map<(m0, m1, n0, n1, k0, k1) -> (m0, m1, n0, n1)>
func.func @reshaped(%a: tensor<8x2x2x4xbf16>, %b: tensor<2x4x2x32xbf16>) -> tensor<8x2x2x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x2x2x32xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<8x2x2x32xf32>) -> tensor<8x2x2x32xf32>
  %r = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%a, %b : tensor<8x2x2x4xbf16>, tensor<2x4x2x32xbf16>) outs(%f : tensor<8x2x2x32xf32>) {
  ^bb0(%x: bf16, %y: bf16, %acc: f32):
    %xf = arith.extf %x : bf16 to f32
    %yf = arith.extf %y : bf16 to f32
    %p = arith.mulf %xf, %yf : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<8x2x2x32xf32>
  return %r : tensor<8x2x2x32xf32>
}

// -----

// A transposed B (x times W^T, W stored [N, K]): no transposing copy; W is
// read in place as [1, 64, 8] and packed the way A is (16 x 32 blocks, 16
// columns a panel, each block's words rotated and transposed), which gives
// the same words as packing its [K, N] transpose.
// CHECK-LABEL: func.func @transposed(
// CHECK-SAME:      %[[A:.*]]: tensor<16x8xbf16>, %[[W:.*]]: tensor<64x8xbf16>
// CHECK:         scf.if
// CHECK-NOT:       linalg.generic
// CHECK:           %[[RW:.*]] = tensor.expand_shape %[[W]] {{\[}}[0, 1], [2]] output_shape [1, 64, 8] : tensor<64x8xbf16> into tensor<1x64x8xbf16>
// CHECK:           %[[EB:.*]] = tensor.empty() : tensor<1x4x4x16xi32>
// CHECK:           scf.for {{.*}} iter_args(%{{.*}} = %[[EB]])
// CHECK:             scf.for %[[PANEL:[a-z0-9_]+]] =
// CHECK:               %[[COLUMN:.*]] = arith.muli %[[PANEL]], %c16
// CHECK:               %[[BLOCK:.*]] = vector.transfer_read %[[RW]][%{{.*}}, %[[COLUMN]], %{{.*}}], %{{.*}} {in_bounds = [true, false]} : tensor<1x64x8xbf16>, vector<16x32xbf16>
// CHECK-NEXT:          arith.constant dense<16> : vector<16x16xi32>
// CHECK-NEXT:          vector.bitcast %[[BLOCK]] : vector<16x32xbf16> to vector<16x16xi32>
// CHECK:               vector.transpose %{{.*}}, [1, 0] : vector<16x16xi32> to vector<16x16xi32>
// CHECK:           x86vector.avx512.dot
// CHECK:         } else {
// CHECK-NEXT:      linalg.fill
// CHECK-NEXT:      linalg.matmul
func.func @transposed(%a: tensor<16x8xbf16>, %w: tensor<64x8xbf16>) -> tensor<16x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<16x64xf32>) -> tensor<16x64xf32>
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>] ins(%a, %w : tensor<16x8xbf16>, tensor<64x8xbf16>) outs(%f : tensor<16x64xf32>) -> tensor<16x64xf32>
  return %r : tensor<16x64xf32>
}

// -----

// A weight gradient (xᵀ·dy, x stored [tokens, features]: A K-major with K =
// (2, 6) two loops): no transposing copy; x is collapsed to [1, 12, 32] and
// packed the way B is, a K pair's two rows of 16 features interleaved, the
// same words as packing its [M, K] transpose.
// CHECK-LABEL: func.func @transposed_lhs(
// CHECK-SAME:      %[[X:.*]]: tensor<2x6x32xbf16>, %[[DY:.*]]: tensor<2x6x16xbf16>
// CHECK:         scf.if
// CHECK-NOT:       linalg.generic
// CHECK:           %[[FLATX:.*]] = tensor.collapse_shape %[[X]] {{\[}}[0, 1], [2]] : tensor<2x6x32xbf16> into tensor<12x32xbf16>
// CHECK-NEXT:      %[[RX:.*]] = tensor.expand_shape %[[FLATX]] {{\[}}[0, 1], [2]] output_shape [1, 12, 32] : tensor<12x32xbf16> into tensor<1x12x32xbf16>
// CHECK:           %[[EA:.*]] = tensor.empty() : tensor<1x2x6x16xi32>
// CHECK:           scf.for {{.*}} iter_args(%{{.*}} = %[[EA]])
// CHECK:             scf.for %[[PANEL:[a-z0-9_]+]] =
// CHECK:               %[[LINE:.*]] = arith.muli %[[PANEL]], %c16
// CHECK:               scf.for %[[P:[a-z0-9_]+]] =
// CHECK:                 %[[EVEN:.*]] = arith.muli %[[P]]
// CHECK:                 %[[ODD:.*]] = arith.addi %[[EVEN]]
// CHECK:                 %[[ROWODD:.*]] = vector.transfer_read %[[RX]][%{{.*}}, %[[ODD]], %[[LINE]]], {{.*}} : tensor<1x12x32xbf16>, vector<16xbf16>
// CHECK-NEXT:            %[[ROWEVEN:.*]] = vector.transfer_read %[[RX]][%{{.*}}, %[[EVEN]], %[[LINE]]], {{.*}} : tensor<1x12x32xbf16>, vector<16xbf16>
// CHECK-NEXT:            vector.interleave %[[ROWODD]], %[[ROWEVEN]] : vector<16xbf16> -> vector<32xbf16>
// CHECK:           tensor.empty() : tensor<1x1x6x16xi32>
// CHECK:           x86vector.avx512.dot
// CHECK:         } else {
#xt = affine_map<(m, n, b, s) -> (b, s, m)>
#dy = affine_map<(m, n, b, s) -> (b, s, n)>
#dw = affine_map<(m, n, b, s) -> (m, n)>
func.func @transposed_lhs(%x: tensor<2x6x32xbf16>, %dy: tensor<2x6x16xbf16>) -> tensor<32x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x16xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<32x16xf32>) -> tensor<32x16xf32>
  %r = linalg.generic {indexing_maps = [#xt, #dy, #dw], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%x, %dy : tensor<2x6x32xbf16>, tensor<2x6x16xbf16>) outs(%f : tensor<32x16xf32>) {
  ^bb0(%xv: bf16, %yv: bf16, %acc: f32):
    %xf = arith.extf %xv : bf16 to f32
    %yf = arith.extf %yv : bf16 to f32
    %p = arith.mulf %xf, %yf : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<32x16xf32>
  return %r : tensor<32x16xf32>
}

// -----

// Stored in neither order (the batch loop inside, K of B split around N):
// copied into [batch, K, N] first, a linalg.generic of the transposing map.
// CHECK-DAG: #[[SPLIT:.*]] = affine_map<(d0, d1, d2) -> (d1, d0, d2)>
// CHECK-LABEL: func.func @copied(
// CHECK:         scf.if
// CHECK:           linalg.generic {indexing_maps = [#[[SPLIT]], #{{.*}}], iterator_types = ["parallel", "parallel", "parallel"]} ins(%{{.*}} : tensor<8x2x32xbf16>) outs(%{{.*}} : tensor<2x8x32xbf16>)
// CHECK:           x86vector.avx512.dot
#ca = affine_map<(b, m, n, k) -> (b, m, k)>
#cb = affine_map<(b, m, n, k) -> (k, b, n)>
#cc = affine_map<(b, m, n, k) -> (b, m, n)>
func.func @copied(%a: tensor<2x16x8xbf16>, %b: tensor<8x2x32xbf16>) -> tensor<2x16x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x16x32xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x16x32xf32>) -> tensor<2x16x32xf32>
  %r = linalg.generic {indexing_maps = [#ca, #cb, #cc], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%a, %b : tensor<2x16x8xbf16>, tensor<8x2x32xbf16>) outs(%f : tensor<2x16x32xf32>) {
  ^bb0(%av: bf16, %bv: bf16, %acc: f32):
    %af = arith.extf %av : bf16 to f32
    %bf = arith.extf %bv : bf16 to f32
    %p = arith.mulf %af, %bf : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<2x16x32xf32>
  return %r : tensor<2x16x32xf32>
}

// -----

// Left alone: f32 operands, N not a multiple of 16, M not a multiple of 16,
// K odd, an accumulator that is not a zero fill, and a payload that is not
// extf/mulf/addf.
// CHECK-LABEL: func.func @unchanged(
// CHECK-NOT:     scf.if
// CHECK-NOT:     x86vector
// CHECK:         return
func.func @unchanged(%a: tensor<16x8xf32>, %b: tensor<8x64xf32>, %c: tensor<16x8xbf16>, %d: tensor<8x40xbf16>, %e7: tensor<16x7xbf16>, %f7: tensor<7x64xbf16>, %g: tensor<8x64xbf16>, %init: tensor<16x64xf32>, %h: tensor<8x8xbf16>) -> (tensor<16x64xf32>, tensor<16x40xf32>, tensor<16x64xf32>, tensor<16x64xf32>, tensor<16x64xf32>, tensor<8x64xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<16x64xf32>) -> tensor<16x64xf32>
  %e40 = tensor.empty() : tensor<16x40xf32>
  %f40 = linalg.fill ins(%zero : f32) outs(%e40 : tensor<16x40xf32>) -> tensor<16x40xf32>
  %e8 = tensor.empty() : tensor<8x64xf32>
  %f8 = linalg.fill ins(%zero : f32) outs(%e8 : tensor<8x64xf32>) -> tensor<8x64xf32>
  %r0 = linalg.matmul ins(%a, %b : tensor<16x8xf32>, tensor<8x64xf32>) outs(%f : tensor<16x64xf32>) -> tensor<16x64xf32>
  %r1 = linalg.matmul ins(%c, %d : tensor<16x8xbf16>, tensor<8x40xbf16>) outs(%f40 : tensor<16x40xf32>) -> tensor<16x40xf32>
  %r5 = linalg.matmul ins(%h, %g : tensor<8x8xbf16>, tensor<8x64xbf16>) outs(%f8 : tensor<8x64xf32>) -> tensor<8x64xf32>
  %r2 = linalg.matmul ins(%e7, %f7 : tensor<16x7xbf16>, tensor<7x64xbf16>) outs(%f : tensor<16x64xf32>) -> tensor<16x64xf32>
  %r3 = linalg.matmul ins(%c, %g : tensor<16x8xbf16>, tensor<8x64xbf16>) outs(%init : tensor<16x64xf32>) -> tensor<16x64xf32>
  %r4 = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%c, %g : tensor<16x8xbf16>, tensor<8x64xbf16>) outs(%f : tensor<16x64xf32>) {
  ^bb0(%x: bf16, %y: bf16, %acc: f32):
    %xf = arith.extf %x : bf16 to f32
    %yf = arith.extf %y : bf16 to f32
    %p = arith.mulf %xf, %yf fastmath<contract> : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<16x64xf32>
  return %r0, %r1, %r2, %r3, %r4, %r5 : tensor<16x64xf32>, tensor<16x40xf32>, tensor<16x64xf32>, tensor<16x64xf32>, tensor<16x64xf32>, tensor<8x64xf32>
}
