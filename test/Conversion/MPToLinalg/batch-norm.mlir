// mp.batch_norm and mp.batch_norm_grad to linalg, with PyTorch 1.13's CPU
// arithmetic (lib/Conversion/MPToLinalg/BatchNorm.cpp): f64 channel sums
// for H·W > 1, f32 sums with FMAs for [N, C]; rstd in f64; the output as
// fma(x, α, β) rounded once to the input type; the running statistics in
// f32 with the variance term in f64; the count + 1; the gradients in the
// summation order of PyTorch's backward kernels.
// RUN: mp-opt %s -split-input-file --convert-mp-to-linalg | FileCheck %s

// CHECK-DAG: #[[$ID4:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[$CH4:.*]] = affine_map<(d0, d1, d2, d3) -> (d1)>
// CHECK-DAG: #[[$ID1:.*]] = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @training_nchw_f16(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<2x3x4x4xf16>, %[[G:[^:]*]]: tensor<3xf32>, %[[B:[^:]*]]: tensor<3xf32>, %[[RM:[^:]*]]: tensor<3xf32>, %[[RV:[^:]*]]: tensor<3xf32>, %[[N:[^:]*]]: tensor<i64>)
// Σx per channel in f64.
// CHECK:         %[[SUM:.*]] = linalg.generic {indexing_maps = [#[[$ID4]], #[[$CH4]]], iterator_types = ["reduction", "parallel", "reduction", "reduction"]} ins(%[[X]] : tensor<2x3x4x4xf16>) outs(%{{.*}} : tensor<3xf64>)
// CHECK:           arith.extf %{{.*}} : f16 to f32
// CHECK-NEXT:      arith.extf %{{.*}} : f32 to f64
// CHECK-NEXT:      arith.addf %{{.*}} : f64
// mean = f32(Σx / n), n = 32.
// CHECK:         %[[MEAN:.*]] = linalg.generic {{.*}} ins(%[[SUM]] : tensor<3xf64>) outs(%{{.*}} : tensor<3xf32>)
// CHECK:           %[[C32:.*]] = arith.constant 3.200000e+01 : f64
// CHECK-NEXT:      arith.divf %{{.*}}, %[[C32]] : f64
// CHECK-NEXT:      arith.truncf %{{.*}} : f64 to f32
// Σ f64(f32((x − mean)²)).
// CHECK:         %[[SQ:.*]] = linalg.generic {{.*}} ins(%[[X]], %[[MEAN]] : tensor<2x3x4x4xf16>, tensor<3xf32>) outs(%{{.*}} : tensor<3xf64>)
// CHECK:           %[[D:.*]] = arith.subf
// CHECK-NEXT:      %[[D2:.*]] = arith.mulf %[[D]], %[[D]] : f32
// CHECK-NEXT:      %[[D2W:.*]] = arith.extf %[[D2]] : f32 to f64
// CHECK-NEXT:      arith.addf %{{.*}}, %[[D2W]] : f64
// var_sum rounded to f32; rstd = f32(1 / sqrt(f64(var_sum / n) + eps)).
// CHECK:         %[[STATS:.*]]:2 = linalg.generic {{.*}} ins(%[[SQ]] : tensor<3xf64>)
// CHECK:           %[[VS:.*]] = arith.truncf %{{.*}} : f64 to f32
// CHECK:           %[[VAR:.*]] = arith.divf %[[VS]], %{{.*}} : f32
// CHECK-NEXT:      %[[VARW:.*]] = arith.extf %[[VAR]] : f32 to f64
// CHECK-NEXT:      %[[EPS:.*]] = arith.constant 1.000000e-05 : f64
// CHECK-NEXT:      %[[SH:.*]] = arith.addf %[[VARW]], %[[EPS]] : f64
// CHECK:           %[[SQRT:.*]] = math.sqrt %[[SH]] : f64
// CHECK-NEXT:      %[[R:.*]] = arith.divf %{{.*}}, %[[SQRT]] : f64
// CHECK-NEXT:      %[[RF:.*]] = arith.truncf %[[R]] : f64 to f32
// CHECK-NEXT:      linalg.yield %[[VS]], %[[RF]]
// α = rstd·w, β = fma(−mean, α, b).
// CHECK:         %[[AB:.*]]:2 = linalg.generic {{.*}} ins(%[[MEAN]], %[[STATS]]#1, %[[G]], %[[B]] :
// CHECK:           %[[A:.*]] = arith.mulf
// CHECK-NEXT:      %[[NM:.*]] = arith.negf
// CHECK-NEXT:      %[[BETA:.*]] = math.fma %[[NM]], %[[A]], %{{.*}} : f32
// CHECK-NEXT:      linalg.yield %[[A]], %[[BETA]]
// y = fma(x, α, β), rounded once to f16.
// CHECK:         %[[Y:.*]] = linalg.generic {indexing_maps = [#[[$ID4]], #[[$CH4]], #[[$CH4]], #[[$ID4]]], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%[[X]], %[[AB]]#0, %[[AB]]#1 : tensor<2x3x4x4xf16>, tensor<3xf32>, tensor<3xf32>) outs(%{{.*}} : tensor<2x3x4x4xf16>)
// CHECK:           %[[XF:.*]] = arith.extf %{{.*}} : f16 to f32
// CHECK-NEXT:      %[[FMA:.*]] = math.fma %[[XF]], %{{.*}}, %{{.*}} : f32
// CHECK-NEXT:      arith.truncf %[[FMA]] : f32 to f16
// The count, then m·mean + (1 − m)·rm and f32(f64(m)·f64(var_sum/(n − 1)) + f64((1 − m)·rv)).
// CHECK:         %[[OLD:.*]] = tensor.extract %[[N]][] : tensor<i64>
// CHECK:         %[[NEW:.*]] = arith.addi %[[OLD]], %{{.*}} : i64
// CHECK:         %[[M:.*]] = arith.constant 1.000000e-01 : f32
// CHECK:         %[[RS:.*]]:2 = linalg.generic {{.*}} ins(%[[MEAN]], %[[STATS]]#0, %[[RM]], %[[RV]] :
// CHECK:           %[[KEEP:.*]] = arith.subf %{{.*}}, %[[M]] : f32
// CHECK-NEXT:      %[[T1:.*]] = arith.mulf %[[M]], %{{.*}} : f32
// CHECK-NEXT:      %[[T2:.*]] = arith.mulf %[[KEEP]], %{{.*}} : f32
// CHECK-NEXT:      %[[NRM:.*]] = arith.addf %[[T1]], %[[T2]] : f32
// CHECK-NEXT:      %[[C31:.*]] = arith.constant 3.100000e+01 : f32
// CHECK-NEXT:      %[[UV:.*]] = arith.divf %{{.*}}, %[[C31]] : f32
// CHECK-NEXT:      %[[MW:.*]] = arith.extf %[[M]] : f32 to f64
// CHECK-NEXT:      %[[UVW:.*]] = arith.extf %[[UV]] : f32 to f64
// CHECK-NEXT:      %[[P:.*]] = arith.mulf %[[MW]], %[[UVW]] : f64
// CHECK-NEXT:      %[[Q:.*]] = arith.mulf %[[KEEP]], %{{.*}} : f32
// CHECK-NEXT:      %[[QW:.*]] = arith.extf %[[Q]] : f32 to f64
// CHECK-NEXT:      %[[S:.*]] = arith.addf %[[P]], %[[QW]] : f64
// CHECK-NEXT:      %[[NRV:.*]] = arith.truncf %[[S]] : f64 to f32
// CHECK-NEXT:      linalg.yield %[[NRM]], %[[NRV]]
// CHECK:         %[[COUNT:.*]] = tensor.from_elements %[[NEW]] : tensor<i64>
// CHECK:         return %[[Y]], %[[RS]]#0, %[[RS]]#1, %[[COUNT]]
func.func @training_nchw_f16(%x: tensor<2x3x4x4xf16>, %g: tensor<3xf32>, %b: tensor<3xf32>, %rm: tensor<3xf32>, %rv: tensor<3xf32>, %n: tensor<i64>) -> (tensor<2x3x4x4xf16>, tensor<3xf32>, tensor<3xf32>, tensor<i64>) {
  %y, %rm1, %rv1, %n1 = mp.batch_norm %x weight %g bias %b stats(%rm, %rv, %n) training
      : (tensor<2x3x4x4xf16>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<i64>) -> (tensor<2x3x4x4xf16>, tensor<3xf32>, tensor<3xf32>, tensor<i64>)
  return %y, %rm1, %rv1, %n1 : tensor<2x3x4x4xf16>, tensor<3xf32>, tensor<3xf32>, tensor<i64>
}

// -----

// [N, C] in training: f32 sums, the squares accumulated by FMAs; the
// cumulative average's factor is f32(1 / f64(count + 1)).
// CHECK-LABEL: func.func @training_nc_cumulative(
// CHECK:         linalg.generic {{.*}} iterator_types = ["reduction", "parallel"]} ins(%{{.*}} : tensor<8x3xf32>) outs(%{{.*}} : tensor<3xf32>)
// CHECK-NEXT:    ^bb0(%[[IN:.*]]: f32, %[[OUT:.*]]: f32):
// CHECK-NEXT:      arith.addf %[[OUT]], %[[IN]] : f32
// CHECK:           arith.constant 8.000000e+00 : f32
// CHECK:         linalg.generic {{.*}} iterator_types = ["reduction", "parallel"]} ins(%{{.*}}, %{{.*}} : tensor<8x3xf32>, tensor<3xf32>) outs(%{{.*}} : tensor<3xf32>)
// CHECK:           %[[D:.*]] = arith.subf
// CHECK-NEXT:      math.fma %[[D]], %[[D]], %{{.*}} : f32
// CHECK:         %[[NEW:.*]] = arith.addi
// CHECK-NEXT:    %[[NEWF:.*]] = arith.sitofp %[[NEW]] : i64 to f64
// CHECK-NEXT:    %[[ONE:.*]] = arith.constant 1.000000e+00 : f64
// CHECK-NEXT:    %[[INV:.*]] = arith.divf %[[ONE]], %[[NEWF]] : f64
// CHECK-NEXT:    %[[FACTOR:.*]] = arith.truncf %[[INV]] : f64 to f32
// CHECK:           arith.mulf %[[FACTOR]], %{{.*}} : f32
func.func @training_nc_cumulative(%x: tensor<8x3xf32>, %rm: tensor<3xf32>, %rv: tensor<3xf32>, %n: tensor<i64>) -> (tensor<3xf32>, tensor<3xf32>) {
  %y, %rm1, %rv1, %n1 = mp.batch_norm %x stats(%rm, %rv, %n) training cumulative_average
      : (tensor<8x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<i64>) -> (tensor<8x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<i64>)
  return %rm1, %rv1 : tensor<3xf32>, tensor<3xf32>
}

// -----

// Eval mode: rstd = 1 / sqrt(running_var + eps) in f32; without affine
// parameters α = rstd and β = fma(−mean, α, 0); the statistics results are
// the operands.
// CHECK-LABEL: func.func @eval_nc_bf16(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<8x3xbf16>, %[[RM:[^:]*]]: tensor<3xf32>, %[[RV:[^:]*]]: tensor<3xf32>, %[[N:[^:]*]]: tensor<i64>)
// CHECK:         %[[RSTD:.*]] = linalg.generic {{.*}} ins(%[[RV]] : tensor<3xf32>)
// CHECK:           %[[EPS:.*]] = arith.constant 1.000000e-03 : f32
// CHECK-NEXT:      %[[SH:.*]] = arith.addf %{{.*}}, %[[EPS]] : f32
// CHECK:           %[[SQRT:.*]] = math.sqrt %[[SH]] : f32
// CHECK-NEXT:      arith.divf %{{.*}}, %[[SQRT]] : f32
// CHECK:         %[[AB:.*]]:2 = linalg.generic {{.*}} ins(%[[RM]], %[[RSTD]] :
// CHECK:           %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      %[[NM:.*]] = arith.negf
// CHECK-NEXT:      math.fma %[[NM]], %{{.*}}, %[[ZERO]] : f32
// CHECK:         %[[Y:.*]] = linalg.generic {{.*}} ins(%[[X]], %[[AB]]#0, %[[AB]]#1 :
// CHECK:           math.fma
// CHECK-NEXT:      arith.truncf %{{.*}} : f32 to bf16
// CHECK:         return %[[Y]], %[[RM]], %[[RV]], %[[N]]
func.func @eval_nc_bf16(%x: tensor<8x3xbf16>, %rm: tensor<3xf32>, %rv: tensor<3xf32>, %n: tensor<i64>) -> (tensor<8x3xbf16>, tensor<3xf32>, tensor<3xf32>, tensor<i64>) {
  %y, %rm1, %rv1, %n1 = mp.batch_norm %x stats(%rm, %rv, %n) eval eps 1.0e-3
      : (tensor<8x3xbf16>, tensor<3xf32>, tensor<3xf32>, tensor<i64>) -> (tensor<8x3xbf16>, tensor<3xf32>, tensor<3xf32>, tensor<i64>)
  return %y, %rm1, %rv1, %n1 : tensor<8x3xbf16>, tensor<3xf32>, tensor<3xf32>, tensor<i64>
}

// -----

// The gradient of an [N, C] input (PyTorch's channels-last kernel): the
// statistics recomputed, Σdy and Σ(x − mean)·dy in one two-accumulator f32
// reduction over the samples, the dot product by FMAs; per channel
// k = dotp·rstd·rstd/n and Σdy/n; dx = fma(−(x − mean), k, dy − Σdy/n)·rstd·w
// rounded once to bf16; weight_grad = dotp·rstd rounded to the weight's
// type, bias_grad = Σdy.
// CHECK-LABEL: func.func @grad_training_bf16(
// CHECK-SAME:    %[[DY:[^:]*]]: tensor<8x3xbf16>, %[[X:[^:]*]]: tensor<8x3xbf16>, %[[G:[^:]*]]: tensor<3xbf16>
// CHECK:         %[[SUMS:.*]]:2 = linalg.generic {{.*}} iterator_types = ["reduction", "parallel"]} ins(%[[DY]], %[[X]], %[[MEAN:.*]] : tensor<8x3xbf16>, tensor<8x3xbf16>, tensor<3xf32>) outs(%{{.*}}, %{{.*}} : tensor<3xf32>, tensor<3xf32>)
// CHECK:           %[[C:.*]] = arith.subf
// CHECK-NEXT:      %[[S0:.*]] = arith.addf %{{.*}} : f32
// CHECK-NEXT:      %[[S1:.*]] = math.fma %[[C]], %{{.*}}, %{{.*}} : f32
// CHECK-NEXT:      linalg.yield %[[S0]], %[[S1]]
// CHECK:         %[[CO:.*]]:5 = linalg.generic {{.*}} ins(%[[RSTD:.*]], %[[SUMS]]#0, %[[SUMS]]#1, %[[G]] : {{.*}}) outs({{.*}} : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xbf16>, tensor<3xf32>)
// CHECK:           %[[W:.*]] = arith.extf %{{.*}} : bf16 to f32
// CHECK-NEXT:      %[[K1:.*]] = arith.mulf %{{.*}}, %{{.*}} : f32
// CHECK-NEXT:      %[[K2:.*]] = arith.mulf %[[K1]], %{{.*}} : f32
// CHECK:           %[[K:.*]] = arith.divf %[[K2]], %{{.*}} : f32
// CHECK:           %[[GM:.*]] = arith.divf %{{.*}}, %{{.*}} : f32
// CHECK-NEXT:      %[[DG:.*]] = arith.mulf %{{.*}}, %{{.*}} : f32
// CHECK-NEXT:      %[[DGB:.*]] = arith.truncf %[[DG]] : f32 to bf16
// CHECK-NEXT:      linalg.yield %[[W]], %[[K]], %[[GM]], %[[DGB]], %{{.*}}
// CHECK:         %[[DX:.*]] = linalg.generic {{.*}} ins(%[[DY]], %[[X]], %[[MEAN]], %[[RSTD]], %[[CO]]#0, %[[CO]]#1, %[[CO]]#2 : {{.*}}) outs(%{{.*}} : tensor<8x3xbf16>)
// CHECK:           %[[XC:.*]] = arith.subf
// CHECK-NEXT:      %[[NXC:.*]] = arith.negf %[[XC]] : f32
// CHECK-NEXT:      %[[A:.*]] = arith.subf %{{.*}}, %{{.*}} : f32
// CHECK-NEXT:      %[[B:.*]] = math.fma %[[NXC]], %{{.*}}, %[[A]] : f32
// CHECK-NEXT:      %[[E:.*]] = arith.mulf %[[B]], %{{.*}} : f32
// CHECK-NEXT:      %[[F:.*]] = arith.mulf %[[E]], %{{.*}} : f32
// CHECK-NEXT:      arith.truncf %[[F]] : f32 to bf16
// CHECK:         return %[[DX]], %[[CO]]#3, %[[CO]]#4
func.func @grad_training_bf16(%dy: tensor<8x3xbf16>, %x: tensor<8x3xbf16>, %g: tensor<3xbf16>, %rm: tensor<3xf32>, %rv: tensor<3xf32>) -> (tensor<8x3xbf16>, tensor<3xbf16>, tensor<3xf32>) {
  %dx, %dg, %db = mp.batch_norm_grad %dy, %x weight %g stats(%rm, %rv) training
      : (tensor<8x3xbf16>, tensor<8x3xbf16>, tensor<3xbf16>, tensor<3xf32>, tensor<3xf32>) -> (tensor<8x3xbf16>, tensor<3xbf16>, tensor<3xf32>)
  return %dx, %dg, %db : tensor<8x3xbf16>, tensor<3xbf16>, tensor<3xf32>
}

// -----

// The gradient over 5×5 maps (PyTorch's contiguous kernel): per sample and
// channel the 25 values zero-padded to 4 vectors of 8 lanes, each lane
// summed over the vectors (dot product by FMAs), the lanes added as a tree,
// the per-image sums added over the samples in f64; the mean gradient,
// weight and bias gradients in f64 rounded once, k from f32(dotp).
// CHECK-LABEL: func.func @grad_training_nchw(
// CHECK-SAME:    %[[DY:[^:]*]]: tensor<2x3x5x5xf32>, %[[X:[^:]*]]: tensor<2x3x5x5xf32>
// CHECK:         %[[DY3:.*]] = tensor.collapse_shape %[[DY]] {{\[\[}}0], [1], [2, 3]] : tensor<2x3x5x5xf32> into tensor<2x3x25xf32>
// CHECK:         %[[X3:.*]] = tensor.collapse_shape %[[X]] {{\[\[}}0], [1], [2, 3]] : tensor<2x3x5x5xf32> into tensor<2x3x25xf32>
// CHECK:         %[[DYP:.*]] = tensor.pad %[[DY3]] low[0, 0, 0] high[0, 0, 7]
// CHECK:         %[[DYL:.*]] = tensor.expand_shape %[[DYP]] {{\[\[}}0], [1], [2, 3]] output_shape [2, 3, 4, 8] : tensor<2x3x32xf32> into tensor<2x3x4x8xf32>
// CHECK:         %[[XP:.*]] = tensor.pad %[[X3]] low[0, 0, 0] high[0, 0, 7]
// CHECK:         %[[XL:.*]] = tensor.expand_shape %[[XP]]
// CHECK:         %[[LANES:.*]]:2 = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction", "parallel"]} ins(%[[DYL]], %[[XL]], %{{.*}} : tensor<2x3x4x8xf32>, tensor<2x3x4x8xf32>, tensor<3xf32>) outs(%{{.*}}, %{{.*}} : tensor<2x3x8xf32>, tensor<2x3x8xf32>)
// CHECK:           %[[C:.*]] = arith.subf
// CHECK-NEXT:      %[[S0:.*]] = arith.addf %{{.*}} : f32
// CHECK-NEXT:      %[[S1:.*]] = math.fma %[[C]], %{{.*}}, %{{.*}} : f32
// CHECK-NEXT:      linalg.yield %[[S0]], %[[S1]]
// CHECK:         %[[L0:.*]] = tensor.extract_slice %[[LANES]]#0[0, 0, 0] [2, 3, 1] [1, 1, 1] : tensor<2x3x8xf32> to tensor<2x3xf32>
// CHECK:         %[[L7:.*]] = tensor.extract_slice %[[LANES]]#0[0, 0, 7] [2, 3, 1] [1, 1, 1]
// CHECK:         %[[IMG0:.*]] = linalg.generic {{.*}} ins(%[[L0]], {{.*}}, %[[L7]] : {{.*}}) outs(%{{.*}} : tensor<2x3xf32>)
// CHECK-NEXT:    ^bb0(%[[A0:[^:]*]]: f32, %[[A1:[^:]*]]: f32, %[[A2:[^:]*]]: f32, %[[A3:[^:]*]]: f32, %[[A4:[^:]*]]: f32, %[[A5:[^:]*]]: f32, %[[A6:[^:]*]]: f32, %[[A7:[^:]*]]: f32,
// CHECK-NEXT:      %[[T04:.*]] = arith.addf %[[A0]], %[[A4]] : f32
// CHECK-NEXT:      %[[T26:.*]] = arith.addf %[[A2]], %[[A6]] : f32
// CHECK-NEXT:      %[[T0246:.*]] = arith.addf %[[T04]], %[[T26]] : f32
// CHECK-NEXT:      %[[T15:.*]] = arith.addf %[[A1]], %[[A5]] : f32
// CHECK-NEXT:      %[[T37:.*]] = arith.addf %[[A3]], %[[A7]] : f32
// CHECK-NEXT:      %[[T1357:.*]] = arith.addf %[[T15]], %[[T37]] : f32
// CHECK-NEXT:      %[[T:.*]] = arith.addf %[[T0246]], %[[T1357]] : f32
// CHECK-NEXT:      linalg.yield %[[T]]
// CHECK:         %[[IMG1:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<2x3xf32>)
// CHECK:         %[[SUMS:.*]]:2 = linalg.generic {{.*}} iterator_types = ["reduction", "parallel"]} ins(%[[IMG0]], %[[IMG1]] : tensor<2x3xf32>, tensor<2x3xf32>) outs(%{{.*}}, %{{.*}} : tensor<3xf64>, tensor<3xf64>)
// CHECK:           arith.extf %{{.*}} : f32 to f64
// CHECK-NEXT:      arith.addf %{{.*}} : f64
// CHECK:         linalg.generic {{.*}} ins(%{{.*}}, %[[SUMS]]#0, %[[SUMS]]#1, %{{.*}} : tensor<3xf32>, tensor<3xf64>, tensor<3xf64>, tensor<3xf32>)
// CHECK:           %[[DOT32:.*]] = arith.truncf %{{.*}} : f64 to f32
// CHECK-NEXT:      %[[K1:.*]] = arith.mulf %[[DOT32]], %{{.*}} : f32
// CHECK:           %[[GM:.*]] = arith.divf %{{.*}}, %{{.*}} : f64
// CHECK-NEXT:      %[[DG:.*]] = arith.mulf %{{.*}}, %{{.*}} : f64
// CHECK-NEXT:      arith.truncf %[[GM]] : f64 to f32
// CHECK-NEXT:      arith.truncf %[[DG]] : f64 to f32
// CHECK-NEXT:      arith.truncf %{{.*}} : f64 to f32
func.func @grad_training_nchw(%dy: tensor<2x3x5x5xf32>, %x: tensor<2x3x5x5xf32>, %g: tensor<3xf32>, %rm: tensor<3xf32>, %rv: tensor<3xf32>) -> (tensor<2x3x5x5xf32>, tensor<3xf32>, tensor<3xf32>) {
  %dx, %dg, %db = mp.batch_norm_grad %dy, %x weight %g stats(%rm, %rv) training
      : (tensor<2x3x5x5xf32>, tensor<2x3x5x5xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3x5x5xf32>, tensor<3xf32>, tensor<3xf32>)
  return %dx, %dg, %db : tensor<2x3x5x5xf32>, tensor<3xf32>, tensor<3xf32>
}

// -----

// The eval-mode gradient over 2×2 maps: rstd = f32(1 / sqrt(f64(var) + eps))
// in f64; fewer values than a vector are summed sequentially, products
// rounded; dx = dy·rstd·w.
// CHECK-LABEL: func.func @grad_eval_small(
// CHECK:         %[[RSTD:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<3xf32>)
// CHECK:           arith.extf %{{.*}} : f32 to f64
// CHECK:           arith.addf %{{.*}} : f64
// CHECK:           math.sqrt %{{.*}} : f64
// CHECK-NEXT:      arith.divf %{{.*}} : f64
// CHECK-NEXT:      arith.truncf %{{.*}} : f64 to f32
// CHECK:         linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]} ins(%{{.*}} : tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<3xf32>) outs(%{{.*}}, %{{.*}} : tensor<2x3xf32>, tensor<2x3xf32>)
// CHECK:           %[[C:.*]] = arith.subf
// CHECK-NEXT:      %[[P:.*]] = arith.mulf %[[C]], %{{.*}} : f32
// CHECK-NEXT:      arith.addf %{{.*}} : f32
// CHECK-NEXT:      arith.addf %{{.*}}, %[[P]] : f32
// CHECK:         linalg.generic {{.*}} outs(%{{.*}} : tensor<2x3x2x2xf32>)
// CHECK:           %[[E:.*]] = arith.mulf %{{.*}}, %{{.*}} : f32
// CHECK-NEXT:      %[[F:.*]] = arith.mulf %[[E]], %{{.*}} : f32
// CHECK-NEXT:      linalg.yield %[[F]] : f32
func.func @grad_eval_small(%dy: tensor<2x3x2x2xf32>, %x: tensor<2x3x2x2xf32>, %rm: tensor<3xf32>, %rv: tensor<3xf32>) -> tensor<2x3x2x2xf32> {
  %dx, %dg, %db = mp.batch_norm_grad %dy, %x stats(%rm, %rv) eval
      : (tensor<2x3x2x2xf32>, tensor<2x3x2x2xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3x2x2xf32>, tensor<3xf32>, tensor<3xf32>)
  return %dx : tensor<2x3x2x2xf32>
}
