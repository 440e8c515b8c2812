// RUN: mp-opt %s --convert-mp-to-nvvm="chip=sm_90a" | FileCheck %s
// RUN: mp-opt %s --convert-mp-to-nvvm="chip=sm_90a fp8-promote-fprop=true fp8-promote-interval=8" | FileCheck %s --check-prefix=ALL
// RUN: mp-opt %s --convert-mp-to-nvvm="chip=sm_90a fp8-promote-interval=0" | FileCheck %s --check-prefix=OFF
// RUN: mp-opt %s --convert-mp-to-nvvm="chip=sm_90a mainloop=cp-async" | FileCheck %s --check-prefix=CPASYNC
// RUN: mp-opt %s --convert-mp-to-nvvm="chip=sm_100a" | FileCheck %s --check-prefix=SM100

// FP8 accumulation promoted to f32 (fp8-promote-interval, default 4 wgmma
// instructions = one K slice of 128): the backward GEMMs of an FP8 layer
// (dX = dY · W with W N-contiguous, dW = dYᵀ · X with dY M-contiguous,
// E5M2 gradients) get it, the forward X · Wᵀ (E4M3, K-major) does not
// (Transformer Engine: split accumulator for dgrad and wgrad only).
//
// TMA kernels: 128x128 tiles (two accumulators of 64 registers), an outer
// loop over windows of 1 slice, each accumulating from zero with one wgmma
// group in flight (wait_group 1), retired by wait_group 0 and added into the
// f32 sum (64 add.f32 per thread) that the epilogue stores.

// CHECK-LABEL: func.func @layer(
// CHECK:         llvm.call @mp_tc_sm90a_wgmma_tma_e4m3k_e4m3k_accf32_outbf16_128x256x128_s4_launch
// CHECK:         llvm.call @mp_tc_sm90a_wgmma_tma_e5m2k_e4m3k_accf32_outbf16_128x128x128_s4_p4_launch
// CHECK:         llvm.call @mp_tc_sm90a_wgmma_tma_e5m2k_e4m3k_accf32_outbf16_128x128x128_s4_p4_launch

// CHECK:       gpu.func @mp_tc_sm90a_wgmma_tma_e4m3k_e4m3k_accf32_outbf16_128x256x128_s4(
// CHECK-NOT:     fp8_promote_interval
// CHECK-SAME:    mainloop = "tma-warp-specialized"
// CHECK-NOT:     arith.addf
// CHECK:       gpu.func @mp_tc_sm90a_wgmma_tma_e5m2k_e4m3k_accf32_outbf16_128x128x128_s4_p4(
// CHECK-SAME:    fp8_promote_interval = 4 : i64
// CHECK:         nvvm.setmaxregister  increase 232
// CHECK:         %[[SUM:.*]] = scf.for %{{.*}} = %c0_i32 to %{{.*}} step %{{.*}} iter_args(%[[S:.*]] = %{{.*}}) -> (!llvm.struct<(f32,
// CHECK:           %[[ZERO:.*]] = llvm.mlir.zero : !llvm.struct<(f32,
// CHECK:           %[[PART:.*]] = scf.for %{{.*}} iter_args(%{{.*}} = %[[ZERO]]) -> (!llvm.struct<(f32,
// CHECK:             nvvm.mbarrier.try_wait
// CHECK:             nvvm.wgmma.fence.aligned
// CHECK-COUNT-4:     nvvm.wgmma.mma_async {{.*}} <m = 64, n = 128, k = 32>
// CHECK-NEXT:        nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT:        nvvm.wgmma.wait.group.sync.aligned 1
// CHECK:             nvvm.mbarrier.arrive
// CHECK:           nvvm.wgmma.wait.group.sync.aligned 0
// CHECK-NEXT:      llvm.extractvalue %[[S]][0]
// CHECK-NEXT:      llvm.extractvalue %[[PART]][0]
// CHECK-NEXT:      arith.addf
// CHECK-COUNT-63:  arith.addf
// CHECK:           scf.yield
// CHECK:         llvm.extractvalue %[[SUM]][0]
// CHECK:         nvvm.stmatrix

// fp8-promote-fprop: every FP8 GEMM, here every 8 instructions (2 slices).
// ALL:           llvm.call @mp_tc_sm90a_wgmma_tma_e4m3k_e4m3k_accf32_outbf16_128x128x128_s4_p8_launch
// ALL:           llvm.call @mp_tc_sm90a_wgmma_tma_e5m2k_e4m3k_accf32_outbf16_128x128x128_s4_p8_launch
// ALL:         gpu.func @mp_tc_sm90a_wgmma_tma_e4m3k_e4m3k_accf32_outbf16_128x128x128_s4_p8(
// ALL-SAME:      fp8_promote_interval = 8 : i64

// OFF-NOT:       _p4
// OFF:           llvm.call @mp_tc_sm90a_wgmma_tma_e5m2k_e4m3k_accf32_outbf16_128x256x128_s4_launch

// cp.async main loop (wait_group 0 every slice): the accumulators are
// (wgmma accumulator, f32 sum); after the wait, at the end of a window or
// of K, the sum takes the accumulator and the accumulator restarts at zero.
// CPASYNC:     gpu.func @mp_tc_sm90a_wgmma_e5m2k_e4m3k_accf32_outbf16_128x128x128_s4_p4(
// CPASYNC:       scf.for {{.*}} iter_args(%{{.*}} = %[[Z:.*]], %{{.*}} = %[[Z]]) -> (!llvm.struct<(f32,
// CPASYNC:         nvvm.wgmma.wait.group.sync.aligned 0
// CPASYNC:         %[[END:.*]] = arith.ori
// CPASYNC:         scf.if %[[END]] -> (!llvm.struct<(f32,
// CPASYNC:           llvm.mlir.zero
// CPASYNC-COUNT-64:  arith.addf
// CPASYNC:         } else {

// tcgen05 (sm_100a) accumulates FP8 in f32 Tensor Memory: no promotion.
// SM100-NOT:     _p4
// SM100:         llvm.call @mp_tc_sm100a_tcgen05_tma_e5m2k_e4m3k_
func.func @layer(%x: tensor<128x256xf8E4M3FN>, %w: tensor<128x256xf8E4M3FN>,
                 %dy: tensor<128x128xf8E5M2>)
    -> (tensor<128x128xbf16>, tensor<128x256xbf16>, tensor<128x256xbf16>) {
  %y = mp.matmul %x, %w transpose_rhs acc(f32)
      : tensor<128x256xf8E4M3FN>, tensor<128x256xf8E4M3FN> -> tensor<128x128xbf16>
  %dx = mp.matmul %dy, %w acc(f32)
      : tensor<128x128xf8E5M2>, tensor<128x256xf8E4M3FN> -> tensor<128x256xbf16>
  %dw = mp.matmul %dy, %x transpose_lhs acc(f32)
      : tensor<128x128xf8E5M2>, tensor<128x256xf8E4M3FN> -> tensor<128x256xbf16>
  return %y, %dx, %dw : tensor<128x128xbf16>, tensor<128x256xbf16>, tensor<128x256xbf16>
}
