// RUN: mp-opt %s -split-input-file --convert-mp-to-nvvm="chip=sm_90a" | FileCheck %s
// RUN: mp-opt %s -split-input-file --convert-mp-to-nvvm="chip=sm_90a block-n=128" | FileCheck %s --check-prefix=N128

// The default sm_90a main loop (mainloop=auto, 16-byte aligned rows):
// warp-specialized TMA. 2 consumer warpgroups + 1 producer warpgroup (384
// threads), a 128x256x64 tile in 4 stages of 48 KiB, then 4 "full" mbarriers
// (count 1) and 4 "empty" ones (count 2, one per consumer warpgroup):
// 4 * 49152 + 64 = 196672 bytes, then the stmatrix epilogue's staging tiles
// (8 warps * 16 rows * 144 bytes = 18432: 215104 bytes). Consumers: setmaxnreg 232, wait on full[s],
// wgmma, commit, wait_group 1, one thread per warpgroup arrives on
// empty[(k-1) % 4]. Producer: setmaxnreg 40; one thread waits on empty[s]
// from round 1 on, arrive.expect_tx by the stage's 49152 bytes, one 3-D TMA
// load per operand (box[contiguous, rows, batch]) completing on full[s].

// CHECK:       gpu.func @mp_tc_sm90a_wgmma_tma_bf16k_bf16k_accf32_outbf16_128x256x64_s4(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: i64, %[[MAPA:.*]]: !llvm.ptr, %[[MAPB:.*]]: !llvm.ptr)
// CHECK-SAME:    known_block_size = array<i32: 384, 1, 1>
// CHECK-SAME:    lhs_tma_box = array<i64: 64, 128>, mainloop = "tma-warp-specialized", registers = array<i64: 232, 40>
// CHECK-SAME:    rhs_tma_box = array<i64: 64, 256>, shared_memory_bytes = 215104 : i64, stages = 4 : i64, threads = 384 : i64}
// CHECK-COUNT-4: nvvm.mbarrier.init %{{.*}}, %c{{[12]}}_i32
// CHECK:         nvvm.fence.mbarrier.init
// CHECK:         nvvm.barrier0
// CHECK:         %[[CONSUMER:.*]] = arith.cmpi slt, %{{.*}}, %c256_i32
// CHECK:         scf.if %[[CONSUMER]] {
// CHECK-NEXT:      nvvm.setmaxregister  increase 232
// CHECK:           scf.for %{{.*}} iter_args(%{{.*}} = %{{.*}}) -> (!llvm.struct<(f32,
// CHECK:             scf.while
// CHECK:               nvvm.mbarrier.try_wait
// CHECK:             nvvm.wgmma.fence.aligned
// CHECK-COUNT-4:     nvvm.wgmma.mma_async {{.*}} <m = 64, n = 256, k = 16>
// CHECK-NEXT:        nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT:        nvvm.wgmma.wait.group.sync.aligned 1
// CHECK:             scf.if
// CHECK:               nvvm.mbarrier.arrive %{{.*}} : !llvm.ptr<3>
// CHECK:           nvvm.wgmma.wait.group.sync.aligned 0
// CHECK:           nvvm.stmatrix
// CHECK:         } else {
// CHECK-NEXT:      nvvm.setmaxregister  decrease 40
// CHECK:           scf.for
// CHECK:             nvvm.mbarrier.try_wait
// CHECK:             nvvm.mbarrier.arrive.expect_tx %[[FULL:.*]], %c49152_i32 : !llvm.ptr<3>, i32
// CHECK:             nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[MAPA]], %[[FULL]], box[%{{.*}}, %{{.*}}, %{{.*}}] : !llvm.ptr<7>, !llvm.ptr
// CHECK:             nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[MAPB]], %[[FULL]], box[%{{.*}}, %{{.*}}, %{{.*}}] : !llvm.ptr<7>, !llvm.ptr

// The launcher: after copying A and B in, a 3-D tensor map per operand
// (BFLOAT16 = 9, rank 3, no interleave, SWIZZLE_128B = 3, L2_256B = 3, zero
// fill) in 128 bytes of device memory, passed after the strides and freed
// with the buffers.
// CHECK:       llvm.func internal @mp_tc_sm90a_wgmma_tma_bf16k_bf16k_accf32_outbf16_128x256x64_s4_launch(
// CHECK:         %[[A:.*]] = llvm.call @mgpuMemAlloc
// CHECK:         %[[B:.*]] = llvm.call @mgpuMemAlloc
// CHECK:         %[[HOSTA:.*]] = llvm.alloca %{{.*}} x !llvm.array<128 x i8> {alignment = 64 : i64}
// CHECK:         llvm.call @mgpuTensorMapEncodeTiled(%[[HOSTA]], %{{.*}}, %{{.*}}, %[[A]],
// CHECK:         %[[DEVA:.*]] = llvm.call @mgpuMemAlloc
// CHECK-NEXT:    llvm.call @mgpuMemcpy(%[[DEVA]], %[[HOSTA]],
// CHECK:         llvm.call @mgpuTensorMapEncodeTiled(%{{.*}}, %{{.*}}, %{{.*}}, %[[B]],
// CHECK:         %[[DEVB:.*]] = llvm.call @mgpuMemAlloc
// CHECK:         gpu.launch_func {{.*}} args({{.*}}, %[[DEVA]] : !llvm.ptr, %[[DEVB]] : !llvm.ptr)
// CHECK:         llvm.call @mgpuMemFree(%[[DEVA]],
// CHECK:         llvm.call @mgpuMemFree(%[[DEVB]],

// block-n=128: 32 KiB stages (4 * 32768 + 64 + 18432 of staging).
// N128:        gpu.func @mp_tc_sm90a_wgmma_tma_bf16k_bf16k_accf32_outbf16_128x128x64_s4(
// N128-SAME:     shared_memory_bytes = 149568 : i64
// N128:          nvvm.mbarrier.arrive.expect_tx %{{.*}}, %c32768_i32
func.func @bf16(%x: tensor<200x256xbf16>, %w: tensor<136x256xbf16>) -> tensor<200x136xbf16> {
  %y = mp.linear %x, %w acc(f32) : (tensor<200x256xbf16>, tensor<136x256xbf16>) -> tensor<200x136xbf16>
  return %y : tensor<200x136xbf16>
}

// -----

// M-contiguous A (K x M) with 64-element columns: two TMA boxes of 64 x 64
// per slice for A's 128 rows of M (box[M, K, batch]), one per 128-byte
// column; FP8 K-major tiles of 128 bytes; a batch_matmul's third coordinate
// is the batch.
// CHECK:       gpu.func @mp_tc_sm90a_wgmma_tma_f16m_f16n_accf32_outf16_128x256x64_s4(
// CHECK-SAME:    lhs_tma_box = array<i64: 64, 64>
// CHECK-SAME:    rhs_tma_box = array<i64: 64, 64>
// CHECK:         nvvm.mbarrier.arrive.expect_tx %{{.*}}, %c49152_i32
// CHECK-COUNT-6: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK:       gpu.func @mp_tc_sm90a_wgmma_tma_e4m3k_e4m3k_accf32_outbf16_128x256x128_s4(
// CHECK-SAME:    lhs_tma_box = array<i64: 128, 128>
// CHECK:         nvvm.wgmma.mma_async {{.*}} <m = 64, n = 256, k = 32>
// CHECK:         nvvm.wgmma.wait.group.sync.aligned 1
// CHECK-COUNT-2: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK-NOT:     nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK:       llvm.func internal @mp_tc_sm90a_wgmma_tma_f16m_f16n_
func.func @layouts(%a: tensor<2x128x200xf16>, %b: tensor<2x128x136xf16>,
                   %x: tensor<64x128xf8E4M3FN>, %w: tensor<96x128xf8E4M3FN>)
    -> (tensor<2x200x136xf16>, tensor<64x96xbf16>) {
  %y = mp.batch_matmul %a, %b transpose_lhs acc(f32)
      : tensor<2x128x200xf16>, tensor<2x128x136xf16> -> tensor<2x200x136xf16>
  %z = mp.linear %x, %w acc(f32) : (tensor<64x128xf8E4M3FN>, tensor<96x128xf8E4M3FN>) -> tensor<64x96xbf16>
  return %y, %z : tensor<2x200x136xf16>, tensor<64x96xbf16>
}

// -----

// tf32 and rows that are not 16-byte aligned keep the cp.async kernel.
// CHECK:       gpu.func @mp_tc_sm90a_wgmma_tf32k_tf32k_accf32_outf32_128x128x32_s4(
// CHECK-SAME:    mainloop = "cp-async"
// CHECK:       gpu.func @mp_tc_sm90a_wgmma_f16ku_f16ku_accf32_outf16_128x128x64_s4(
// CHECK-SAME:    mainloop = "cp-async"
func.func @fallback(%x: tensor<64x128xf32>, %w: tensor<96x128xf32>,
                    %xu: tensor<64x12xf16>, %wu: tensor<96x12xf16>)
    -> (tensor<64x96xf32>, tensor<64x96xf16>) {
  %t = mp.matmul %x, %w transpose_rhs acc(f32) compute tf32
      : tensor<64x128xf32>, tensor<96x128xf32> -> tensor<64x96xf32>
  %u = mp.matmul %xu, %wu transpose_rhs acc(f32)
      : tensor<64x12xf16>, tensor<96x12xf16> -> tensor<64x96xf16>
  return %t, %u : tensor<64x96xf32>, tensor<64x96xf16>
}
