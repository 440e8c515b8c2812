// RUN: mp-opt %s -split-input-file --convert-mp-to-nvvm="chip=sm_100a fp8-k-major=false mainloop=cp-async" | FileCheck %s
// RUN: mp-opt %s -split-input-file --convert-mp-to-nvvm="chip=sm_100a instruction=mma-sync" | FileCheck %s --check-prefix=SYNC
// RUN: mp-opt %s -split-input-file --convert-mp-to-nvvm="chip=sm_120a" | FileCheck %s --check-prefix=SM120
// (fp8-k-major=false in the first run line: the FP8 mma.sync fallbacks below are about the operand layouts; with the default, FP8 operands get K-major copies, see convert-mp-to-nvvm-fp8-k-major.mlir.)

// tcgen05 on sm_100a: 128 threads, the 128 x block-n accumulator in Tensor
// Memory (block-n columns, a power of two of at least 32), the swizzled K
// slices of the wgmma kernels in 4 stages plus 16 bytes (mbarrier, Tensor
// Memory address). Prologue: warp 0 allocates, thread 0 initialises the
// mbarrier, fences around a barrier. Each slice: wait for the copies,
// fence.proxy.async, wait for the previous slice's MMA (mbarrier phase
// kTile - 1), barrier, then thread 0 issues 4 tcgen05.mma (k16) and commits.
// Descriptors: the wgmma fields plus the tcgen05 version (1 << 46) with the
// 128-byte swizzle (2 << 61): 4611756662049538048 = 1 << 62 | 1 << 46 |
// 64 << 32 | 1 << 16. Instruction descriptor 136316048 = M 128 >> 4 << 24 |
// N 128 >> 3 << 17 | B bf16 1 << 10 | A bf16 1 << 7 | D f32 1 << 4.
// Epilogue: tcgen05.ld 32x32b.x16 per 16 columns, then dealloc.

// CHECK:       gpu.module @mp_tensor_core_kernels [#nvvm.target<O = 3, chip = "sm_100a", features = "+ptx86">]
// CHECK:       gpu.func @mp_tc_sm100a_tcgen05_bf16k_bf16k_accf32_outbf16_128x128x64_s4(
// CHECK-SAME:    known_block_size = array<i32: 128, 1, 1>
// CHECK-SAME:    instruction = "tcgen05.mma"
// CHECK-SAME:    shared_memory_bytes = 131088 : i64, stages = 4 : i64, tensor_memory_columns = 128 : i64, threads = 128 : i64}
// CHECK:         %[[BAR:.*]] = llvm.getelementptr %{{.*}}[131072] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// CHECK:         %[[SLOT:.*]] = llvm.getelementptr %[[BAR]][8] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// CHECK:         nvvm.tcgen05.alloc %[[SLOT]], %{{.*}} : !llvm.ptr<3>, i32
// CHECK-NEXT:    nvvm.tcgen05.relinquish_alloc_permit
// CHECK:         nvvm.mbarrier.init %[[BAR]], %{{.*}} : !llvm.ptr<3>, i32
// CHECK-NEXT:    nvvm.fence.mbarrier.init
// CHECK:         nvvm.tcgen05.fence <before>
// CHECK-NEXT:    nvvm.barrier0
// CHECK-NEXT:    nvvm.tcgen05.fence <after>
// CHECK-NEXT:    %[[BASE:.*]] = llvm.load %[[SLOT]] : !llvm.ptr<3> -> i32
// CHECK-NEXT:    %[[TMEM:.*]] = llvm.inttoptr %[[BASE]] : i32 to !llvm.ptr<6>
// CHECK-COUNT-3: nvvm.cp.async.commit.group
// CHECK:         scf.for
// CHECK-NEXT:      nvvm.cp.async.wait.group 2
// CHECK:           nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK:           scf.while
// CHECK:             nvvm.mbarrier.try_wait %[[BAR]], %{{.*}} : !llvm.ptr<3>, i32 -> i1
// CHECK:           nvvm.barrier0
// CHECK:           nvvm.cp.async.commit.group
// CHECK:             nvvm.tcgen05.fence <after>
// CHECK:             %[[ADESC:.*]] = arith.ori %{{.*}}, %c4611756662049538048_i64 : i64
// CHECK:             %[[BDESC:.*]] = arith.ori %{{.*}}, %c4611756662049538048_i64{{.*}} : i64
// CHECK:             nvvm.tcgen05.mma %[[TMEM]], %[[ADESC]], %[[BDESC]], %c136316048_i32, %{{.*}} {ctaGroup = #nvvm.cta_group<cta_1>, kind = #nvvm.tcgen05_mma_kind<f16>} : (!llvm.ptr<6>, i64, i64, i32, i1)
// CHECK-COUNT-3:     nvvm.tcgen05.mma %[[TMEM]], {{.*}}, %true {ctaGroup = #nvvm.cta_group<cta_1>, kind = #nvvm.tcgen05_mma_kind<f16>}
// CHECK-NEXT:        nvvm.tcgen05.commit %[[BAR]] : !llvm.ptr<3>
// CHECK:         nvvm.cp.async.wait.group 0
// CHECK:         scf.while
// CHECK:           nvvm.mbarrier.try_wait %[[BAR]]
// CHECK:         nvvm.tcgen05.fence <after>
// CHECK-COUNT-8: nvvm.tcgen05.ld %{{.*}} {shape = #nvvm.tcgen05_ldst_shape<shape_32x32b>} : vector<16xi32>
// CHECK:         nvvm.tcgen05.fence <before>
// CHECK-NEXT:    nvvm.barrier0
// CHECK:           nvvm.tcgen05.fence <after>
// CHECK-NEXT:      nvvm.tcgen05.dealloc %[[TMEM]], %{{.*}} : !llvm.ptr<6>, i32

// SYNC:        gpu.func @mp_tc_sm100a_mma_bf16k_bf16k_accf32_outbf16_128x128x32_w64x32_s3(
// SYNC-NOT:      nvvm.tcgen05
// SYNC:          nvvm.mma.sync

// sm_120a has no tcgen05: mma.sync, PTX ISA 8.7.
// SM120:       gpu.module @mp_tensor_core_kernels [#nvvm.target<O = 3, chip = "sm_120a", features = "+ptx87">]
// SM120:       gpu.func @mp_tc_sm120a_mma_bf16k_bf16k_accf32_outbf16_128x128x32_w64x32_s3(
// SM120-NOT:     nvvm.tcgen05
// SM120:         nvvm.mma.sync
func.func @bf16(%x: tensor<200x256xbf16>, %w: tensor<136x256xbf16>) -> tensor<200x136xbf16> {
  %y = mp.linear %x, %w acc(f32) : (tensor<200x256xbf16>, tensor<136x256xbf16>) -> tensor<200x136xbf16>
  return %y : tensor<200x136xbf16>
}

// -----

// M- and N-major 16-bit operands: MN-major descriptors (LBO 64 K rows x 128
// bytes = 512 << 16): 4611756662083026944, and the transpose bits of A
// (1 << 15) and B (1 << 16) in the instruction descriptor: 136413200.

// CHECK:       gpu.func @mp_tc_sm100a_tcgen05_f16m_f16n_accf32_outf16_128x128x64_s4(
// CHECK:           arith.ori %{{.*}}, %c4611756662083026944_i64
// CHECK:           arith.ori %{{.*}}, %c4611756662083026944_i64
// CHECK:           nvvm.tcgen05.mma %{{.*}}, %{{.*}}, %{{.*}}, %c136413200_i32, %{{.*}} {ctaGroup = #nvvm.cta_group<cta_1>, kind = #nvvm.tcgen05_mma_kind<f16>}
func.func @f16_transposed(%a: tensor<128x200xf16>, %b: tensor<128x136xf16>) -> tensor<200x136xf16> {
  %y = mp.matmul %a, %b transpose_lhs acc(f32) : tensor<128x200xf16>, tensor<128x136xf16> -> tensor<200x136xf16>
  return %y : tensor<200x136xf16>
}

// -----

// The other kinds (K-major): tf32 (k8, rounded in shared memory; types 2 <<
// 7 | 2 << 10: 136317200), f8f6f4 (k32; e4m3 = 0, e5m2 = 1: 136315920), i8
// (k32; signed 1 << 7 | 1 << 10, D s32 2 << 4: 136316064).

// CHECK-LABEL: gpu.func @mp_tc_sm100a_tcgen05_tf32k_tf32k_accf32_outf32_128x128x32_s4(
// CHECK:           nvvm.convert.float.to.tf32
// CHECK:           nvvm.tcgen05.mma {{.*}}, %c136317200_i32, %{{.*}} {ctaGroup = #nvvm.cta_group<cta_1>, kind = #nvvm.tcgen05_mma_kind<tf32>}
// CHECK-LABEL: gpu.func @mp_tc_sm100a_tcgen05_e4m3k_e5m2k_accf32_outbf16_128x128x128_s4(
// CHECK:           nvvm.tcgen05.mma {{.*}}, %c136315920_i32, %{{.*}} {ctaGroup = #nvvm.cta_group<cta_1>, kind = #nvvm.tcgen05_mma_kind<f8f6f4>}
// CHECK-LABEL: gpu.func @mp_tc_sm100a_tcgen05_s8k_s8k_acci32_outi32_128x128x128_s4(
// CHECK:           nvvm.tcgen05.mma {{.*}}, %c136316064_i32, %{{.*}} {ctaGroup = #nvvm.cta_group<cta_1>, kind = #nvvm.tcgen05_mma_kind<i8>}
func.func @kinds(%xs: tensor<64x96xf32>, %ws: tensor<32x96xf32>,
                 %x8: tensor<64x128xf8E4M3FN>, %g8: tensor<96x128xf8E5M2>,
                 %xi: tensor<64x128xi8>, %wi: tensor<96x128xi8>)
    -> (tensor<64x32xf32>, tensor<64x96xbf16>, tensor<64x96xi32>) {
  %tf32 = mp.matmul %xs, %ws transpose_rhs acc(f32) compute tf32 : tensor<64x96xf32>, tensor<32x96xf32> -> tensor<64x32xf32>
  %fp8 = mp.matmul %x8, %g8 transpose_rhs acc(f32) : tensor<64x128xf8E4M3FN>, tensor<96x128xf8E5M2> -> tensor<64x96xbf16>
  %s8 = mp.matmul %xi, %wi transpose_rhs acc(i32) : tensor<64x128xi8>, tensor<96x128xi8> -> tensor<64x96xi32>
  return %tf32, %fp8, %s8 : tensor<64x32xf32>, tensor<64x96xbf16>, tensor<64x96xi32>
}

// -----

// With instruction=auto, what tcgen05 cannot run goes to mma.sync: f16
// accumulation, and 8-bit (or tf32) operands that are not K-major (the
// weight gradient dW = dY^T X of an FP8 layer).

// CHECK-LABEL: gpu.func @mp_tc_sm100a_mma_f16k_f16k_accf16_outf16_128x128x32_w64x32_s3(
// CHECK-NOT:     nvvm.tcgen05
// CHECK:         nvvm.mma.sync
// CHECK-LABEL: gpu.func @mp_tc_sm100a_mma_e5m2m_e4m3n_accf32_outf32_128x128x64_w64x32_s3(
// CHECK-NOT:     nvvm.tcgen05
// CHECK:         llvm.call_intrinsic "llvm.nvvm.mma.m16n8k32.row.col.f32.e5m2.e4m3.f32"
func.func @fallbacks(%xh: tensor<64x128xf16>, %wh: tensor<96x128xf16>,
                     %dy: tensor<128x64xf8E5M2>, %x: tensor<128x96xf8E4M3FN>)
    -> (tensor<64x96xf16>, tensor<64x96xf32>) {
  %acc16 = mp.matmul %xh, %wh transpose_rhs acc(f16) : tensor<64x128xf16>, tensor<96x128xf16> -> tensor<64x96xf16>
  %dw = mp.matmul %dy, %x transpose_lhs acc(f32) : tensor<128x64xf8E5M2>, tensor<128x96xf8E4M3FN> -> tensor<64x96xf32>
  return %acc16, %dw : tensor<64x96xf16>, tensor<64x96xf32>
}
