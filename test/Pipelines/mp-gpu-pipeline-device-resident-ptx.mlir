// The kernels mp-gpu-pipeline{device-resident} makes of linalg on tensors,
// as PTX: one element per thread (256 threads per block, guarded), the CPU
// lowering's rounding. Multiplies and adds stay separate `.rn` instructions,
// which ptxas does not contract into FMAs (no fast-math flags reach the
// NVPTX backend); a bf16 truncation is arith-expand's integer rounding
// (round to nearest even, NaN to 0x7FC0), not cvt.rn.bf16.f32; a
// reduction computes each output element in one thread in ascending order
// (a column sum is interchanged so that its parallel dimension is the
// thread's), in the order of mp-cpu-pipeline{vectorize=false}. A full
// reduction is a fixed two-level tree: 300 elements, 17 threads adding
// elements p, p + 17, p + 34, ... in that order, then one thread adding the
// initial value and the 17 partial sums in order (TREE); with
// sequential-reductions=true it runs in one thread in the CPU's order
// (SEQ). The fill of a reduction's accumulator is fused into the
// reduction's kernel.

// RUN: mp-opt %s --mp-gpu-pipeline="chip=sm_80 binary-format=isa" \
// RUN:   | %python %mp_src_root/tools/bench/ptxas_report.py extract \
// RUN:   | FileCheck %s --check-prefixes=CHECK,TREE
// RUN: mp-opt %s --mp-gpu-pipeline="chip=sm_80 binary-format=isa sequential-reductions=true" \
// RUN:   | %python %mp_src_root/tools/bench/ptxas_report.py extract \
// RUN:   | FileCheck %s --check-prefixes=CHECK,SEQ

// CHECK-LABEL: .entry muladd_kernel(
// CHECK:         setp.ge.u64 %p1, %rd{{[0-9]+}}, %rd{{[0-9]+}};
// CHECK:         mul.rn.f32 [[P:%r[0-9]+]], %r{{[0-9]+}}, %r{{[0-9]+}};
// CHECK-NEXT:    add.rn.f32 %r{{[0-9]+}}, [[P]], %r{{[0-9]+}};
// CHECK-NOT:     fma
// CHECK-LABEL: .entry to_bf16_kernel(
// CHECK-NOT:     cvt.rn.bf16
// CHECK:         setp.nan.f32
// CHECK:         bfe.u32 %r{{[0-9]+}}, %r{{[0-9]+}}, 16, 1;
// CHECK:         add.s32 %r{{[0-9]+}}, %r{{[0-9]+}}, 32767;
// CHECK:         selp.b16 %rs{{[0-9]+}}, 0x7FC0,
// CHECK:         st.global.b16
// CHECK-LABEL: .entry colsum_kernel(
// CHECK:         st.global.b32 [%rd{{[0-9]+}}], 0;
// CHECK-COUNT-7: add.rn.f32
// CHECK-NOT:     add.rn.f32
// CHECK-LABEL: .entry total_kernel(
// CHECK:         st.global.b32 [%rd{{[0-9]+}}], 0;
// SEQ:         $L__BB0_2:
// SEQ-COUNT-12:  add.rn.f32
// SEQ:           setp.ne.b64 %p2, %rd{{[0-9]+}}, 1200;
// SEQ-NEXT:      @%p2 bra $L__BB0_2;
// SEQ-NOT:     .entry
// TREE:          sub.s64 %rd{{[0-9]+}}, 316, %rd{{[0-9]+}};
// TREE:          add.rn.f32
// TREE:          st.global.b32
// TREE-LABEL:  .entry total_kernel_0(
// TREE-COUNT-17: add.rn.f32
// TREE-NOT:      add.rn.f32
// rsqrt (layer_norm's) is 1 / sqrt, each correctly rounded, as on the CPU
// (convert-math-to-llvm), not libdevice's rsqrt.approx.
// CHECK-LABEL: .entry rsqrt_kernel(
// CHECK-NOT:     {{rsqrt\.|approx}}
// CHECK:         sqrt.rn.f32 [[R:%r[0-9]+]], %r{{[0-9]+}};
// CHECK-NEXT:    rcp.rn.f32 %r{{[0-9]+}}, [[R]];
// CHECK:         sqrt.rn.f64 [[D:%rd[0-9]+]], %rd{{[0-9]+}};
// CHECK-NEXT:    rcp.rn.f64 %rd{{[0-9]+}}, [[D]];
// CHECK-NOT:     {{rsqrt\.|approx}}

#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
func.func @muladd(%a: tensor<300xf32>, %b: tensor<300xf32>, %c: tensor<300xf32>) -> tensor<300xf32> {
  %p = arith.mulf %a, %b : tensor<300xf32>
  %s = arith.addf %p, %c : tensor<300xf32>
  return %s : tensor<300xf32>
}
func.func @to_bf16(%a: tensor<300xf32>) -> tensor<300xbf16> {
  %r = arith.truncf %a : tensor<300xf32> to tensor<300xbf16>
  return %r : tensor<300xbf16>
}
func.func @colsum(%a: tensor<7x300xf32>) -> tensor<300xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<300xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<300xf32>) -> tensor<300xf32>
  %r = linalg.generic {indexing_maps = [#id, #col], iterator_types = ["reduction", "parallel"]}
      ins(%a : tensor<7x300xf32>) outs(%init : tensor<300xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %y = arith.addf %acc, %x : f32
    linalg.yield %y : f32
  } -> tensor<300xf32>
  return %r : tensor<300xf32>
}
func.func @total(%a: tensor<300xf32>) -> tensor<f32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<f32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<f32>) -> tensor<f32>
  %r = linalg.reduce ins(%a : tensor<300xf32>) outs(%init : tensor<f32>) dimensions = [0]
    (%x: f32, %acc: f32) {
      %y = arith.addf %acc, %x : f32
      linalg.yield %y : f32
    }
  return %r : tensor<f32>
}
func.func @rsqrt(%a: tensor<300xf32>, %b: tensor<300xf64>) -> (tensor<300xf32>, tensor<300xf64>) {
  %r = math.rsqrt %a : tensor<300xf32>
  %s = math.rsqrt %b : tensor<300xf64>
  return %r, %s : tensor<300xf32>, tensor<300xf64>
}
