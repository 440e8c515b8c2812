// Optimizers (one elementwise generic computing in f32 in PyTorch's order,
// each result rounded once), gradient clipping, overflow checks, amax and the loss-scale and FP8 scaling state.
// RUN: mp-opt %s --convert-mp-to-linalg | FileCheck %s

// CHECK-DAG: #[[$ID1:.*]] = affine_map<(d0) -> (d0)>
// CHECK-DAG: #[[$ID2:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$ALL2:.*]] = affine_map<(d0, d1) -> ()>
// CHECK-DAG: #[[$ALL1:.*]] = affine_map<(d0) -> ()>

// An f16 parameter with momentum and no step operand: buf = buf·0.9 + g,
// p + (−0.1)·buf fused (PyTorch's add(alpha=-lr)), −lr rounded to f32 once
// from f64; both results rounded to f16 from f32.
// CHECK-LABEL: func.func @sgd_f16_momentum(
// CHECK-SAME:    %[[P:.*]]: tensor<256xf16>, %[[G:.*]]: tensor<256xf16>, %[[B:.*]]: tensor<256xf16>)
// CHECK:         %[[LR:.*]] = arith.constant 1.000000e-01 : f64
// CHECK-NEXT:    %[[NEGLR:.*]] = arith.negf %[[LR]] : f64
// CHECK-NEXT:    %[[NEGLR32:.*]] = arith.truncf %[[NEGLR]] : f64 to f32
// CHECK:         %{{.*}}:2 = linalg.generic {indexing_maps = [#[[$ID1]], #[[$ID1]], #[[$ID1]], #[[$ID1]], #[[$ID1]]], iterator_types = ["parallel"]}
// CHECK-SAME:      ins(%[[P]], %[[G]], %[[B]] : tensor<256xf16>, tensor<256xf16>, tensor<256xf16>) outs(%{{.*}}, %{{.*}} : tensor<256xf16>, tensor<256xf16>)
// CHECK-NEXT:    ^bb0(%[[PV:.*]]: f16, %[[GV:.*]]: f16, %[[BV:.*]]: f16, %{{.*}}: f16, %{{.*}}: f16):
// CHECK-NEXT:      %[[P32:.*]] = arith.extf %[[PV]] : f16 to f32
// CHECK-NEXT:      %[[G32:.*]] = arith.extf %[[GV]] : f16 to f32
// CHECK-NEXT:      %[[B32:.*]] = arith.extf %[[BV]] : f16 to f32
// CHECK-NEXT:      %[[MOM:.*]] = arith.constant 0.899999976 : f32
// CHECK-NEXT:      %[[MB:.*]] = arith.mulf %[[B32]], %[[MOM]] : f32
// CHECK-NEXT:      %[[NB:.*]] = arith.addf %[[MB]], %[[G32]] : f32
// CHECK-NEXT:      %[[NP:.*]] = math.fma %[[NB]], %[[NEGLR32]], %[[P32]] : f32
// CHECK-NEXT:      %[[NP16:.*]] = arith.truncf %[[NP]] : f32 to f16
// CHECK-NEXT:      %[[NB16:.*]] = arith.truncf %[[NB]] : f32 to f16
// CHECK-NEXT:      linalg.yield %[[NP16]], %[[NB16]] : f16, f16
func.func @sgd_f16_momentum(%p: tensor<256xf16>, %g: tensor<256xf16>, %b: tensor<256xf16>) -> (tensor<256xf16>, tensor<256xf16>) {
  %0:2 = mp.sgd %p, %g momentum_buffer %b {lr = 0.1 : f64, momentum = 0.9 : f64} : tensor<256xf16>, tensor<256xf16>
  return %0#0, %0#1 : tensor<256xf16>, tensor<256xf16>
}

// Dampening with the step operand: buf = g on step 1, else
// fma(g, 1 − dampening, buf·momentum); maximize negates g first, weight
// decay is fma(param, wd, g); the lr operand (f32) is extended to f64,
// negated and rounded back.
// CHECK-LABEL: func.func @sgd_dampening_step(
// CHECK-SAME:    %[[P:.*]]: tensor<64xf32>, %[[G:.*]]: tensor<64xf32>, %[[B:.*]]: tensor<64xf32>, %[[T:.*]]: tensor<i64>, %[[LRT:.*]]: tensor<f32>)
// CHECK:         %[[LR:.*]] = tensor.extract %[[LRT]][] : tensor<f32>
// CHECK-NEXT:    %[[LR64:.*]] = arith.extf %[[LR]] : f32 to f64
// CHECK-NEXT:    %[[NEG:.*]] = arith.negf %[[LR64]] : f64
// CHECK-NEXT:    %[[NEGLR:.*]] = arith.truncf %[[NEG]] : f64 to f32
// CHECK-NEXT:    %[[STEP:.*]] = tensor.extract %[[T]][] : tensor<i64>
// CHECK-NEXT:    %[[ONE:.*]] = arith.constant 1 : i64
// CHECK-NEXT:    %[[FIRST:.*]] = arith.cmpi eq, %[[STEP]], %[[ONE]] : i64
// CHECK:         linalg.generic
// CHECK-NEXT:    ^bb0(%[[PV:.*]]: f32, %[[GV:.*]]: f32, %[[BV:.*]]: f32, %{{.*}}: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[MG:.*]] = arith.negf %[[GV]] : f32
// CHECK-NEXT:      %[[WD:.*]] = arith.constant 0.00999999977 : f32
// CHECK-NEXT:      %[[DG:.*]] = math.fma %[[PV]], %[[WD]], %[[MG]] : f32
// CHECK-NEXT:      %[[MOM:.*]] = arith.constant 0.899999976 : f32
// CHECK-NEXT:      %[[MB:.*]] = arith.mulf %[[BV]], %[[MOM]] : f32
// CHECK-NEXT:      %[[DAMP:.*]] = arith.constant 5.000000e-01 : f32
// CHECK-NEXT:      %[[NB:.*]] = math.fma %[[DG]], %[[DAMP]], %[[MB]] : f32
// CHECK-NEXT:      %[[BUF:.*]] = arith.select %[[FIRST]], %[[DG]], %[[NB]] : f32
// CHECK-NEXT:      %[[NP:.*]] = math.fma %[[BUF]], %[[NEGLR]], %[[PV]] : f32
// CHECK-NEXT:      linalg.yield %[[NP]], %[[BUF]] : f32, f32
func.func @sgd_dampening_step(%p: tensor<64xf32>, %g: tensor<64xf32>, %b: tensor<64xf32>, %t: tensor<i64>, %lr: tensor<f32>) -> (tensor<64xf32>, tensor<64xf32>) {
  %0:2 = mp.sgd %p, %g momentum_buffer %b step(%t : tensor<i64>) lr(%lr : tensor<f32>) {momentum = 0.9 : f64, dampening = 0.5 : f64, weight_decay = 0.01 : f64, maximize} : tensor<64xf32>, tensor<64xf32>
  return %0#0, %0#1 : tensor<64xf32>, tensor<64xf32>
}

// Nesterov: g + momentum·buf fused.
// CHECK-LABEL: func.func @sgd_nesterov(
// CHECK:           %[[NB:.*]] = arith.addf
// CHECK-NEXT:      %[[MOM:.*]] = arith.constant 0.899999976 : f32
// CHECK-NEXT:      %[[NG:.*]] = math.fma %[[NB]], %[[MOM]], %{{.*}} : f32
// CHECK-NEXT:      math.fma %[[NG]], %{{.*}}, %{{.*}} : f32
func.func @sgd_nesterov(%p: tensor<64xf32>, %g: tensor<64xf32>, %b: tensor<64xf32>) -> (tensor<64xf32>, tensor<64xf32>) {
  %0:2 = mp.sgd %p, %g momentum_buffer %b {lr = 0.1 : f64, momentum = 0.9 : f64, nesterov} : tensor<64xf32>, tensor<64xf32>
  return %0#0, %0#1 : tensor<64xf32>, tensor<64xf32>
}

// PyTorch's scalars in f64 from the step tensor: −lr / (1 − β1^step) and
// sqrt(1 − β2^step), rounded to f32; AdamW decays the parameter by
// 1 − lr·wd (f64, rounded) first. m = fma(g, 1 − β1, m·β1),
// v = fma((1 − β2)·g, g, v·β2), denom = sqrt(v) / sqrt(bc2) + eps,
// p + (step·m) / denom.
// CHECK-LABEL: func.func @adamw(
// CHECK-SAME:    %[[P:.*]]: tensor<256xf32>, %[[G:.*]]: tensor<256xf32>, %[[M:.*]]: tensor<256xf32>, %[[V:.*]]: tensor<256xf32>, %[[STEP:.*]]: tensor<i64>)
// CHECK:         %[[LR:.*]] = arith.constant 1.000000e-03 : f64
// CHECK:         %[[T:.*]] = tensor.extract %[[STEP]][] : tensor<i64>
// CHECK:         %[[TF:.*]] = arith.sitofp %[[T]] : i64 to f64
// CHECK:         %[[B1:.*]] = arith.constant 9.000000e-01 : f64
// CHECK:         %[[POW1:.*]] = math.powf %[[B1]], %[[TF]] : f64
// CHECK:         %[[C1:.*]] = arith.subf %{{.*}}, %[[POW1]] : f64
// CHECK:         %[[SS:.*]] = arith.divf %[[LR]], %[[C1]] : f64
// CHECK:         %[[NSS:.*]] = arith.negf %[[SS]] : f64
// CHECK:         %[[NSS32:.*]] = arith.truncf %[[NSS]] : f64 to f32
// CHECK:         %[[B2:.*]] = arith.constant 0.99899999999999999 : f64
// CHECK:         %[[POW2:.*]] = math.powf %[[B2]], %[[TF]] : f64
// CHECK:         %[[C2:.*]] = arith.subf %{{.*}}, %[[POW2]] : f64
// CHECK:         %[[R2:.*]] = math.sqrt %[[C2]] : f64
// CHECK:         %[[R2F:.*]] = arith.truncf %[[R2]] : f64 to f32
// CHECK:         %[[LRWD:.*]] = arith.mulf %[[LR]], %{{.*}} : f64
// CHECK:         %[[DEC:.*]] = arith.subf %{{.*}}, %[[LRWD]] : f64
// CHECK:         %[[DECF:.*]] = arith.truncf %[[DEC]] : f64 to f32
// CHECK:         %{{.*}}:3 = linalg.generic
// CHECK-SAME:      ins(%[[P]], %[[G]], %[[M]], %[[V]] : tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>)
// CHECK-NEXT:    ^bb0(%[[PV:.*]]: f32, %[[GV:.*]]: f32, %[[MV:.*]]: f32, %[[VV:.*]]: f32, %{{.*}}: f32, %{{.*}}: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[PD:.*]] = arith.mulf %[[PV]], %[[DECF]] : f32
// CHECK:           %[[MB:.*]] = arith.mulf %[[MV]], %{{.*}} : f32
// CHECK:           %[[NM:.*]] = math.fma %[[GV]], %{{.*}}, %[[MB]] : f32
// CHECK:           %[[SG:.*]] = arith.mulf %{{.*}}, %[[GV]] : f32
// CHECK:           %[[VB:.*]] = arith.mulf %[[VV]], %{{.*}} : f32
// CHECK:           %[[NV:.*]] = math.fma %[[SG]], %[[GV]], %[[VB]] : f32
// CHECK:           %[[ROOT:.*]] = math.sqrt %[[NV]] : f32
// CHECK:           %[[Q:.*]] = arith.divf %[[ROOT]], %[[R2F]] : f32
// CHECK:           %[[DEN:.*]] = arith.addf %[[Q]], %{{.*}} : f32
// CHECK:           %[[NUM:.*]] = arith.mulf %[[NSS32]], %[[NM]] : f32
// CHECK:           %[[UPD:.*]] = arith.divf %[[NUM]], %[[DEN]] : f32
// CHECK:           %[[NP:.*]] = arith.addf %[[PD]], %[[UPD]] : f32
// CHECK:           linalg.yield %[[NP]], %[[NM]], %[[NV]] : f32, f32, f32
func.func @adamw(%p: tensor<256xf32>, %g: tensor<256xf32>, %m: tensor<256xf32>, %v: tensor<256xf32>, %step: tensor<i64>) -> (tensor<256xf32>, tensor<256xf32>, tensor<256xf32>) {
  %0:3 = mp.adamw %p, %g, %m, %v, %step {lr = 1.0e-03 : f64} : tensor<256xf32>, tensor<i64>
  return %0#0, %0#1, %0#2 : tensor<256xf32>, tensor<256xf32>, tensor<256xf32>
}

// Adam folds L2 weight decay into the gradient (fused).
// CHECK-LABEL: func.func @adam_weight_decay(
// CHECK:         ^bb0(%[[PV:[a-z0-9_]+]]: f32, %[[GV:[a-z0-9_]+]]: f32,
// CHECK-NEXT:      %[[WD:.*]] = arith.constant 0.00999999977 : f32
// CHECK-NEXT:      %{{.*}} = math.fma %[[PV]], %[[WD]], %[[GV]] : f32
func.func @adam_weight_decay(%p: tensor<8xf32>, %g: tensor<8xf32>, %m: tensor<8xf32>, %v: tensor<8xf32>, %step: tensor<i32>) -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) {
  %0:3 = mp.adam %p, %g, %m, %v, %step {weight_decay = 1.0e-02 : f64} : tensor<8xf32>, tensor<i32>
  return %0#0, %0#1, %0#2 : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
}

// amsgrad: max_exp_avg_sq = maximumf(max, v) is the fourth result and the
// denominator's second moment; maximize negates g; an f64 lr operand enters
// the step size unrounded.
// CHECK-LABEL: func.func @adam_amsgrad(
// CHECK-SAME:    %{{.*}}: tensor<8xf32>, %{{.*}}: tensor<8xf32>, %{{.*}}: tensor<8xf32>, %{{.*}}: tensor<8xf32>, %[[VMAX:.*]]: tensor<8xf32>, %{{.*}}: tensor<i64>, %[[LRT:.*]]: tensor<f64>)
// CHECK:         %[[LR:.*]] = tensor.extract %[[LRT]][] : tensor<f64>
// CHECK:         arith.divf %[[LR]], %{{.*}} : f64
// CHECK:         %{{.*}}:4 = linalg.generic
// CHECK-SAME:      ins(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[VMAX]] : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>)
// CHECK-NEXT:    ^bb0(%{{[a-z0-9_]+}}: f32, %[[GV:[a-z0-9_]+]]: f32, %{{[a-z0-9_]+}}: f32, %{{[a-z0-9_]+}}: f32, %[[XV:[a-z0-9_]+]]: f32,
// CHECK-NEXT:      arith.negf %[[GV]] : f32
// CHECK:           math.fma
// CHECK:           %[[NV:.*]] = math.fma
// CHECK-NEXT:      %[[NX:.*]] = arith.maximumf %[[XV]], %[[NV]] : f32
// CHECK-NEXT:      math.sqrt %[[NX]] : f32
// CHECK:           linalg.yield %{{.*}}, %{{.*}}, %[[NV]], %[[NX]] : f32, f32, f32, f32
func.func @adam_amsgrad(%p: tensor<8xf32>, %g: tensor<8xf32>, %m: tensor<8xf32>, %v: tensor<8xf32>, %vmax: tensor<8xf32>, %step: tensor<i64>, %lr: tensor<f64>) -> (tensor<8xf32>, tensor<8xf32>) {
  %0:4 = mp.adam %p, %g, %m, %v, %step amsgrad %vmax lr(%lr : tensor<f64>) {maximize} : tensor<8xf32>, tensor<i64>
  return %0#0, %0#3 : tensor<8xf32>, tensor<8xf32>
}

// clip_grad_norm, norm 2: per-gradient Σx² in f32 and its sqrt, the norm of
// the norms, coef = max_norm / (norm + 1e-6) clamped to 1 by minimumf, one
// product per gradient.
// CHECK-LABEL: func.func @clip_grad_norm_2(
// CHECK-SAME:    %[[A:.*]]: tensor<4x8xf32>, %[[B:.*]]: tensor<8xf16>)
// CHECK:         %[[SA:.*]] = linalg.generic {indexing_maps = [#[[$ID2]], #[[$ALL2]]], iterator_types = ["reduction", "reduction"]}
// CHECK-SAME:      ins(%[[A]] : tensor<4x8xf32>)
// CHECK:           %[[SQ:.*]] = arith.mulf %[[X:.*]], %[[X]] : f32
// CHECK-NEXT:      arith.addf %{{.*}}, %[[SQ]] : f32
// CHECK:         %[[NA2:.*]] = tensor.extract %[[SA]][] : tensor<f32>
// CHECK-NEXT:    %[[NA:.*]] = math.sqrt %[[NA2]] : f32
// CHECK-NEXT:    %[[NA_SQ:.*]] = arith.mulf %[[NA]], %[[NA]] : f32
// CHECK-NEXT:    %[[ACC1:.*]] = arith.addf %{{.*}}, %[[NA_SQ]] : f32
// CHECK:         %[[SB:.*]] = linalg.generic {indexing_maps = [#[[$ID1]], #[[$ALL1]]], iterator_types = ["reduction"]}
// CHECK-SAME:      ins(%[[B]] : tensor<8xf16>)
// CHECK:         %[[NB:.*]] = math.sqrt
// CHECK:         %[[ACC2:.*]] = arith.addf %[[ACC1]], %{{.*}} : f32
// CHECK-NEXT:    %[[TOTAL:.*]] = math.sqrt %[[ACC2]] : f32
// CHECK-NEXT:    %[[MAXN:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:    %[[EPS:.*]] = arith.constant 9.99999997E-7 : f32
// CHECK-NEXT:    %[[DEN:.*]] = arith.addf %[[TOTAL]], %[[EPS]] : f32
// CHECK-NEXT:    %[[COEF:.*]] = arith.divf %[[MAXN]], %[[DEN]] : f32
// CHECK-NEXT:    %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:    %[[CLAMP:.*]] = arith.minimumf %[[COEF]], %[[ONE]] : f32
// CHECK:         linalg.generic {{.*}} ins(%[[A]] : tensor<4x8xf32>)
// CHECK:           arith.mulf %{{.*}}, %[[CLAMP]] : f32
// CHECK:         linalg.generic {{.*}} ins(%[[B]] : tensor<8xf16>)
// CHECK:           arith.mulf %{{.*}}, %[[CLAMP]] : f32
// CHECK-NEXT:      arith.truncf %{{.*}} : f32 to f16
// CHECK:         %[[NORM:.*]] = tensor.from_elements %[[TOTAL]] : tensor<f32>
// CHECK:         return %{{.*}}, %{{.*}}, %[[NORM]]
func.func @clip_grad_norm_2(%a: tensor<4x8xf32>, %b: tensor<8xf16>) -> (tensor<4x8xf32>, tensor<8xf16>, tensor<f32>) {
  %0:3 = mp.clip_grad_norm %a, %b max_norm 1.0 : tensor<4x8xf32>, tensor<8xf16>
  return %0#0, %0#1, %0#2 : tensor<4x8xf32>, tensor<8xf16>, tensor<f32>
}

// norm_type inf: max |x| per gradient and the max of those (NaN propagates).
// CHECK-LABEL: func.func @clip_grad_norm_inf(
// CHECK:           %[[ABS:.*]] = math.absf %{{.*}} : f32
// CHECK-NEXT:      arith.maximumf %{{.*}}, %[[ABS]] : f32
// CHECK:         %[[N:.*]] = tensor.extract %{{.*}}[] : tensor<f32>
// CHECK-NEXT:    %[[NABS:.*]] = math.absf %[[N]] : f32
// CHECK-NEXT:    %[[TOTAL:.*]] = arith.maximumf %{{.*}}, %[[NABS]] : f32
// CHECK-NOT:     math.sqrt
// CHECK:         arith.constant 5.000000e-01 : f32
func.func @clip_grad_norm_inf(%a: tensor<16xf32>) -> (tensor<16xf32>, tensor<f32>) {
  %0:2 = mp.clip_grad_norm %a max_norm 0.5 norm_type inf : tensor<16xf32>
  return %0#0, %0#1 : tensor<16xf32>, tensor<f32>
}

// One i1 accumulator, ANDed with math.isfinite over every operand in turn.
// CHECK-LABEL: func.func @all_finite(
// CHECK-SAME:    %[[A:.*]]: tensor<4x8xf16>, %[[B:.*]]: tensor<8xf32>)
// CHECK:         %[[TRUE:.*]] = arith.constant true
// CHECK:         %[[INIT:.*]] = linalg.fill ins(%[[TRUE]] : i1) outs(%{{.*}} : tensor<i1>)
// CHECK:         %[[F1:.*]] = linalg.generic {indexing_maps = [#[[$ID2]], #[[$ALL2]]], iterator_types = ["reduction", "reduction"]}
// CHECK-SAME:      ins(%[[A]] : tensor<4x8xf16>) outs(%[[INIT]] : tensor<i1>)
// CHECK-NEXT:    ^bb0(%[[X:.*]]: f16, %[[ACC:.*]]: i1):
// CHECK-NEXT:      %[[W:.*]] = arith.extf %[[X]] : f16 to f32
// CHECK-NEXT:      %[[OK:.*]] = math.isfinite %[[W]] : f32
// CHECK-NEXT:      %[[AND:.*]] = arith.andi %[[ACC]], %[[OK]] : i1
// CHECK-NEXT:      linalg.yield %[[AND]] : i1
// CHECK:         %[[F2:.*]] = linalg.generic {indexing_maps = [#[[$ID1]], #[[$ALL1]]], iterator_types = ["reduction"]}
// CHECK-SAME:      ins(%[[B]] : tensor<8xf32>) outs(%[[F1]] : tensor<i1>)
// CHECK:         return %[[F2]] : tensor<i1>
func.func @all_finite(%a: tensor<4x8xf16>, %b: tensor<8xf32>) -> tensor<i1> {
  %0 = mp.all_finite %a, %b : tensor<4x8xf16>, tensor<8xf32>
  return %0 : tensor<i1>
}

// mp.amax ignores NaN (maxnumf from 0, as Transformer Engine's amax kernels).
// CHECK-LABEL: func.func @amax(
// CHECK:         %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:         %[[INIT:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%{{.*}} : tensor<f32>)
// CHECK:         linalg.generic {indexing_maps = [#[[$ID2]], #[[$ALL2]]], iterator_types = ["reduction", "reduction"]}
// CHECK-SAME:      ins(%{{.*}} : tensor<4x8xbf16>) outs(%[[INIT]] : tensor<f32>)
// CHECK:           %[[W:.*]] = arith.extf %{{.*}} : bf16 to f32
// CHECK:           %[[ABS:.*]] = math.absf %[[W]] : f32
// CHECK:           arith.maxnumf %{{.*}}, %[[ABS]] : f32
func.func @amax(%a: tensor<4x8xbf16>) -> tensor<f32> {
  %0 = mp.amax %a : tensor<4x8xbf16>
  return %0 : tensor<f32>
}

// CHECK-LABEL: func.func @amax_history_push(
// CHECK-SAME:    %[[H:.*]]: tensor<16xf32>, %[[A:.*]]: tensor<f32>)
// CHECK:         %[[NEW:.*]] = tensor.expand_shape %[[A]] [] output_shape [1] : tensor<f32> into tensor<1xf32>
// CHECK:         %[[OLD:.*]] = tensor.extract_slice %[[H]][0] [15] [1] : tensor<16xf32> to tensor<15xf32>
// CHECK:         tensor.concat dim(0) %[[NEW]], %[[OLD]] : (tensor<1xf32>, tensor<15xf32>) -> tensor<16xf32>
func.func @amax_history_push(%h: tensor<16xf32>, %a: tensor<f32>) -> tensor<16xf32> {
  %0 = mp.amax_history_push %h, %a : tensor<16xf32>
  return %0 : tensor<16xf32>
}

// (448 / max(history)) / 2^2, kept unless amax is 0 or not finite or the
// new scale is not finite.
// CHECK-LABEL: func.func @fp8_scale(
// CHECK-SAME:    %[[H:.*]]: tensor<16xf32>, %[[S:.*]]: tensor<f32>)
// CHECK:         %[[MAX:.*]] = linalg.generic {indexing_maps = [#[[$ID1]], #[[$ALL1]]], iterator_types = ["reduction"]}
// CHECK:           arith.maximumf
// CHECK:         %[[AMAX:.*]] = tensor.extract %[[MAX]][] : tensor<f32>
// CHECK:         %[[OLD:.*]] = tensor.extract %[[S]][] : tensor<f32>
// CHECK:         %[[FMAX:.*]] = arith.constant 4.480000e+02 : f32
// CHECK:         %[[Q:.*]] = arith.divf %[[FMAX]], %[[AMAX]] : f32
// CHECK:         %[[MARGIN:.*]] = arith.constant 4.000000e+00 : f32
// CHECK:         %[[NEW:.*]] = arith.divf %[[Q]], %[[MARGIN]] : f32
// CHECK:         %[[ISZERO:.*]] = arith.cmpf oeq, %[[AMAX]]
// CHECK:         %[[AMAXOK:.*]] = math.isfinite %[[AMAX]] : f32
// CHECK:         %[[NEWOK:.*]] = math.isfinite %[[NEW]] : f32
// CHECK:         arith.andi %[[AMAXOK]], %[[NEWOK]] : i1
// CHECK:         %[[R:.*]] = arith.select %{{.*}}, %[[NEW]], %[[OLD]] : f32
// CHECK:         tensor.from_elements %[[R]] : tensor<f32>
func.func @fp8_scale(%h: tensor<16xf32>, %s: tensor<f32>) -> tensor<f32> {
  %0 = mp.fp8_scale %h, %s format e4m3 {margin = 2 : i64} : tensor<16xf32>
  return %0 : tensor<f32>
}

// CHECK-LABEL: func.func @fp8_scale_most_recent(
// CHECK:         %[[C0:.*]] = arith.constant 0 : index
// CHECK:         %[[AMAX:.*]] = tensor.extract %{{.*}}[%[[C0]]] : tensor<16xf32>
// CHECK:         arith.constant 5.734400e+04 : f32
func.func @fp8_scale_most_recent(%h: tensor<16xf32>, %s: tensor<f32>) -> tensor<f32> {
  %0 = mp.fp8_scale %h, %s format e5m2 amax_compute most_recent : tensor<16xf32>
  return %0 : tensor<f32>
}

// Scalar GradScaler logic on values extracted from the 0-d tensors.
// CHECK-LABEL: func.func @update_loss_scale(
// CHECK-SAME:    %[[S:.*]]: tensor<f32>, %[[T:.*]]: tensor<i32>, %[[F:.*]]: tensor<i1>)
// CHECK:         %[[SV:.*]] = tensor.extract %[[S]][] : tensor<f32>
// CHECK:         %[[TV:.*]] = tensor.extract %[[T]][] : tensor<i32>
// CHECK:         %[[FV:.*]] = tensor.extract %[[F]][] : tensor<i1>
// CHECK:         %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK:         %[[BACK:.*]] = arith.mulf %[[SV]], %{{.*}} : f32
// CHECK:         %[[FLOOR:.*]] = arith.constant 1.000000e+00 : f32
// CHECK:         %[[BACKED:.*]] = arith.maximumf %[[BACK]], %[[FLOOR]] : f32
// CHECK:         %[[GROW:.*]] = arith.mulf %[[SV]], %{{.*}} : f32
// CHECK:         %[[FIN:.*]] = math.isfinite %[[GROW]] : f32
// CHECK:         %[[GROWN:.*]] = arith.select %[[FIN]], %[[GROW]], %[[SV]] : f32
// CHECK:         %[[COUNT:.*]] = arith.addi %[[TV]], %{{.*}} : i32
// CHECK:         %[[INTERVAL:.*]] = arith.constant 100 : i32
// CHECK:         %[[REACHED:.*]] = arith.cmpi eq, %[[COUNT]], %[[INTERVAL]] : i32
// CHECK:         %[[CLEAN:.*]] = arith.select %[[REACHED]], %[[GROWN]], %[[SV]] : f32
// CHECK:         %[[CLEANT:.*]] = arith.select %[[REACHED]], %[[ZERO]], %[[COUNT]] : i32
// CHECK:         %[[NS:.*]] = arith.select %[[FV]], %[[BACKED]], %[[CLEAN]] : f32
// CHECK:         %[[NT:.*]] = arith.select %[[FV]], %[[ZERO]], %[[CLEANT]] : i32
// CHECK:         %[[RS:.*]] = tensor.from_elements %[[NS]] : tensor<f32>
// CHECK:         %[[RT:.*]] = tensor.from_elements %[[NT]] : tensor<i32>
// CHECK:         return %[[RS]], %[[RT]]
func.func @update_loss_scale(%s: tensor<f32>, %t: tensor<i32>, %f: tensor<i1>) -> (tensor<f32>, tensor<i32>) {
  %0:2 = mp.update_loss_scale %s, %t, %f {growth_interval = 100 : i64, min_scale = 1.0 : f64}
  return %0#0, %0#1 : tensor<f32>, tensor<i32>
}

// With hysteresis an overflow backs off only when the decremented tracker
// reaches 0; a growth resets it to the hysteresis.
// CHECK-LABEL: func.func @update_loss_scale_hysteresis(
// CHECK-SAME:    %{{.*}}: tensor<f32>, %{{.*}}: tensor<i32>, %{{.*}}: tensor<i1>, %[[HT:.*]]: tensor<i32>)
// CHECK:         %[[H:.*]] = tensor.extract %[[HT]][] : tensor<i32>
// CHECK:         %[[DEC:.*]] = arith.subi %[[H]], %{{.*}} : i32
// CHECK:         %[[EXHAUSTED:.*]] = arith.cmpi sle, %[[DEC]], %{{.*}} : i32
// CHECK:         arith.select %[[EXHAUSTED]]
// CHECK:         %[[HYST:.*]] = arith.constant 3 : i32
// CHECK:         %[[RESET:.*]] = arith.select %{{.*}}, %[[HYST]], %[[H]] : i32
// CHECK:         %[[NH:.*]] = arith.select %{{.*}}, %[[DEC]], %[[RESET]] : i32
// CHECK:         tensor.from_elements %[[NH]] : tensor<i32>
func.func @update_loss_scale_hysteresis(%s: tensor<f32>, %t: tensor<i32>, %f: tensor<i1>, %h: tensor<i32>) -> (tensor<f32>, tensor<i32>, tensor<i32>) {
  %0:3 = mp.update_loss_scale %s, %t, %f hysteresis_tracker %h {hysteresis = 3 : i64}
  return %0#0, %0#1, %0#2 : tensor<f32>, tensor<i32>, tensor<i32>
}
