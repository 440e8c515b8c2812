// RUN: mp-opt %s -split-input-file --convert-mp-to-nvvm="chip=sm_90a mainloop=cp-async fp8-k-major=false" | FileCheck %s
// RUN: mp-opt %s -split-input-file --convert-mp-to-nvvm="chip=sm_90a instruction=mma-sync" | FileCheck %s --check-prefix=SYNC

// wgmma on sm_90a: 2 warpgroups (256 threads) of 64 rows each, K slices of
// 128 bytes (one 128-byte swizzle atom) in 4 stages. Each slice: wait for its
// copies, fence.proxy.async, barrier, then wgmma.fence, 4 wgmma (k16) on
// descriptors, commit and wait. Descriptors: (address & 0x3FFFF) >> 4 with
// LBO 16 (unused for K-major), SBO 1024 and the 128-byte swizzle:
// 4611686293305360384 = 1 << 62 | 64 << 32 | 1 << 16.

// CHECK:       gpu.module @mp_tensor_core_kernels [#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx80">]
// CHECK:       gpu.func @mp_tc_sm90a_wgmma_bf16k_bf16k_accf32_outbf16_128x128x64_s4(
// CHECK-SAME:    known_block_size = array<i32: 256, 1, 1>
// CHECK-SAME:    shared_memory_bytes = 149504 : i64, stages = 4 : i64, threads = 256 : i64}
// CHECK:         %[[ZERO:.*]] = llvm.mlir.zero : !llvm.struct<(f32, f32,
// CHECK-COUNT-3: nvvm.cp.async.commit.group
// CHECK:         scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %[[ZERO]]) -> (!llvm.struct<(f32,
// CHECK-NEXT:      nvvm.cp.async.wait.group 2
// CHECK:           nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK-NEXT:      nvvm.barrier0
// CHECK:           nvvm.cp.async.commit.group
// CHECK-NEXT:      nvvm.wgmma.fence.aligned
// CHECK:           %[[AADDR:.*]] = llvm.ptrtoint %{{.*}} : !llvm.ptr<3> to i64
// CHECK:           %[[AMASKED:.*]] = arith.andi %[[AADDR]], %{{.*}} : i64
// CHECK:           %[[AENC:.*]] = arith.shrui %[[AMASKED]], %{{.*}} : i64
// CHECK:           %[[ADESC:.*]] = arith.ori %[[AENC]], %c4611686293305360384_i64 : i64
// CHECK:           %[[BDESC:.*]] = arith.ori %{{.*}}, %c4611686293305360384_i64{{.*}} : i64
// CHECK:           %[[D0:.*]] = nvvm.wgmma.mma_async %[[ADESC]], %[[BDESC]], %[[ACC]], <m = 64, n = 128, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <col>]
// CHECK-COUNT-3:   nvvm.wgmma.mma_async
// CHECK-NEXT:      nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT:      nvvm.wgmma.wait.group.sync.aligned 0
// CHECK:         nvvm.cp.async.wait.group 0
// CHECK:         llvm.extractvalue %{{.*}}[0] : !llvm.struct<(f32,
// CHECK:         nvvm.stmatrix
// CHECK:         llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<4xi32>, !llvm.ptr<1>

// With instruction=mma-sync, sm_90a runs the warp-level kernel.
// SYNC:        gpu.func @mp_tc_sm90a_mma_bf16k_bf16k_accf32_outbf16_128x128x32_w64x32_s3(
// SYNC:          nvvm.mma.sync
// SYNC-NOT:      nvvm.wgmma
func.func @bf16(%x: tensor<200x256xbf16>, %w: tensor<136x256xbf16>) -> tensor<200x136xbf16> {
  %y = mp.linear %x, %w acc(f32) : (tensor<200x256xbf16>, tensor<136x256xbf16>) -> tensor<200x136xbf16>
  return %y : tensor<200x136xbf16>
}

// -----

// 16-bit operands may be MN-major: transposed descriptors (layout col for A,
// row for B) with LBO = 64 K rows × 128 bytes = 8192 (512 << 16) between the
// 64-element columns: 4611686293338849280. f16 accumulation gives f16x2
// registers.

// CHECK:       gpu.func @mp_tc_sm90a_wgmma_f16m_f16n_accf16_outf16_128x128x64_s4(
// CHECK:         scf.for {{.*}} -> (!llvm.struct<(vector<2xf16>, vector<2xf16>,
// CHECK:           arith.ori %{{.*}}, %c4611686293338849280_i64
// CHECK:           arith.ori %{{.*}}, %c4611686293338849280_i64
// CHECK:           nvvm.wgmma.mma_async %{{.*}}, %{{.*}}, %{{.*}}, <m = 64, n = 128, k = 16>, D[<f16>, <one>], A[<f16>, <one>, <col>], B[<f16>, <one>, <row>]
func.func @f16_transposed(%a: tensor<128x200xf16>, %b: tensor<128x136xf16>) -> tensor<200x136xf16> {
  %y = mp.matmul %a, %b transpose_lhs acc(f16) : tensor<128x200xf16>, tensor<128x136xf16> -> tensor<200x136xf16>
  return %y : tensor<200x136xf16>
}

// -----

// TF32 (k8, K slices of 32 elements): each thread rounds the chunks it copied
// to TF32 in shared memory (cvt.rna.tf32.f32) before the fence.

// CHECK:       gpu.func @mp_tc_sm90a_wgmma_tf32k_tf32k_accf32_outf32_128x128x32_s4(
// CHECK:         scf.for
// CHECK:           nvvm.cp.async.wait.group 2
// CHECK:           %[[WORDS:.*]] = llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xi32>
// CHECK-COUNT-4:   nvvm.convert.float.to.tf32 %{{.*}} {rnd = #nvvm.fp_rnd_mode<rna>}
// CHECK:           llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<4xi32>, !llvm.ptr<3>
// CHECK:           nvvm.fence.proxy
// CHECK:           nvvm.wgmma.mma_async %{{.*}}, %{{.*}}, %{{.*}}, <m = 64, n = 128, k = 8>, D[<f32>, <one>], A[<tf32>, <one>, <row>], B[<tf32>, <one>, <col>]
func.func @tf32(%a: tensor<64x96xf32>, %b: tensor<32x96xf32>) -> tensor<64x32xf32> {
  %y = mp.matmul %a, %b transpose_rhs acc(f32) compute tf32 : tensor<64x96xf32>, tensor<32x96xf32> -> tensor<64x32xf32>
  return %y : tensor<64x32xf32>
}

// -----

// 8-bit formats: m64nNk32 with K slices of 128 elements; e4m3 × e5m2 and s8
// (s32 accumulators, no satfinite: wrapping sums).

// CHECK:       gpu.module @mp_tensor_core_kernels [#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx84">]
// CHECK:       gpu.func @mp_tc_sm90a_wgmma_e4m3k_e5m2k_accf32_outbf16_128x128x128_s4_p4(
// CHECK:         nvvm.wgmma.mma_async %{{.*}}, %{{.*}}, %{{.*}}, <m = 64, n = 128, k = 32>, D[<f32>, <one>], A[<e4m3>, <one>, <row>], B[<e5m2>, <one>, <col>]
// CHECK:       gpu.func @mp_tc_sm90a_wgmma_s8k_s8k_acci32_outi32_128x128x128_s4(
// CHECK:         nvvm.wgmma.mma_async %{{.*}}, %{{.*}}, %{{.*}}, <m = 64, n = 128, k = 32>, D[<s32>, <one>], A[<s8>, <one>, <row>], B[<s8>, <one>, <col>] :
// FP8 operands that are not K-major fall back to mma.sync (wgmma reads
// 8-bit operands K-major only); the target needs +ptx84 for it.
// CHECK:       gpu.func @mp_tc_sm90a_mma_e5m2m_e4m3n_accf32_outf32_128x128x64_w64x32_s3(
// CHECK:         llvm.call_intrinsic "llvm.nvvm.mma.m16n8k32.row.col.f32.e5m2.e4m3.f32"
func.func @fp8_s8(%x: tensor<64x128xf8E4M3FN>, %g: tensor<96x128xf8E5M2>,
                  %dy: tensor<64x96xf8E5M2>, %a: tensor<64x128xi8>, %b: tensor<32x128xi8>)
    -> (tensor<64x96xbf16>, tensor<64x32xi32>, tensor<96x128xf32>) {
  %y = mp.matmul %x, %g transpose_rhs acc(f32)
      : tensor<64x128xf8E4M3FN>, tensor<96x128xf8E5M2> -> tensor<64x96xbf16>
  %i = mp.matmul %a, %b transpose_rhs acc(i32)
      : tensor<64x128xi8>, tensor<32x128xi8> -> tensor<64x32xi32>
  %dw = mp.matmul %dy, %x transpose_lhs acc(f32)
      : tensor<64x96xf8E5M2>, tensor<64x128xf8E4M3FN> -> tensor<96x128xf32>
  return %y, %i, %dw : tensor<64x96xbf16>, tensor<64x32xi32>, tensor<96x128xf32>
}
