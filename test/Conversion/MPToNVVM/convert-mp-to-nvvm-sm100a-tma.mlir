// RUN: mp-opt %s -split-input-file --convert-mp-to-nvvm="chip=sm_100a" | FileCheck %s

// The default tcgen05 main loop on sm_100a where the rows of A and B span a
// multiple of 16 bytes: TMA. Shared memory: 4 stages of 32 KiB, the
// mbarrier the last commit completes (131072) and the Tensor Memory address
// (131080), then a "full" mbarrier per stage (131088 + 8s) and an "empty"
// one (131120 + 8s): 131152 bytes. Thread 0 initialises the 9 mbarriers
// (count 1), loads the first 4 slices (arrive.expect_tx full[s] by the
// stage's 32768 bytes, one 3-D TMA box of 64 x 128 rows per operand), then
// runs the K loop alone: wait for full[s], the slice's 4 tcgen05.mma,
// commit to empty[s], then, from slice 1 on and while slices remain, wait
// for empty[(k-1) % 4] (the previous slice's MMAs) and refill that stage.
// After the loop it commits once more to the first mbarrier, whose phase 0
// every thread waits for before the tcgen05.ld epilogue.

// CHECK:       gpu.func @mp_tc_sm100a_tcgen05_tma_bf16k_bf16k_accf32_outbf16_128x128x64_s4(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: i64, %[[MAPA:.*]]: !llvm.ptr, %[[MAPB:.*]]: !llvm.ptr)
// CHECK-SAME:    known_block_size = array<i32: 128, 1, 1>
// CHECK-SAME:    lhs_tma_box = array<i64: 64, 128>, mainloop = "tma"
// CHECK-SAME:    rhs_tma_box = array<i64: 64, 128>, shared_memory_bytes = 131152 : i64, stages = 4 : i64, tensor_memory_columns = 128 : i64, threads = 128 : i64}
// CHECK-NOT:     registers =
// CHECK:         %[[BAR:.*]] = llvm.getelementptr %{{.*}}[131072] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// CHECK:         nvvm.tcgen05.alloc
// CHECK-COUNT-9: nvvm.mbarrier.init %{{.*}}, %c1_i32{{.*}} : !llvm.ptr<3>, i32
// CHECK-NEXT:    nvvm.fence.mbarrier.init
// CHECK:         nvvm.tcgen05.fence <before>
// CHECK-NEXT:    nvvm.barrier0
// CHECK-NEXT:    nvvm.tcgen05.fence <after>
// CHECK:         nvvm.read.ptx.sreg.ctaid.z
// CHECK-NEXT:    scf.if %{{.*}} {
// CHECK-COUNT-4:   nvvm.mbarrier.arrive.expect_tx %{{.*}}, %c32768_i32{{.*}} : !llvm.ptr<3>, i32
// CHECK:           scf.for
// CHECK:             scf.while
// CHECK:               nvvm.mbarrier.try_wait
// CHECK-NOT:         nvvm.barrier0
// CHECK:             nvvm.tcgen05.fence <after>
// CHECK-COUNT-4:     nvvm.tcgen05.mma {{.*}}kind = #nvvm.tcgen05_mma_kind<f16>}
// CHECK-NEXT:        nvvm.tcgen05.commit %{{.*}} : !llvm.ptr<3>
// CHECK:             scf.if
// CHECK:               scf.while
// CHECK:                 nvvm.mbarrier.try_wait
// CHECK:               nvvm.mbarrier.arrive.expect_tx %[[FULL:.*]], %c32768_i32{{.*}} : !llvm.ptr<3>, i32
// CHECK:               nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[MAPA]], %[[FULL]], box[%{{.*}}, %{{.*}}, %{{.*}}] : !llvm.ptr<7>, !llvm.ptr
// CHECK:               nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[MAPB]], %[[FULL]], box[%{{.*}}, %{{.*}}, %{{.*}}] : !llvm.ptr<7>, !llvm.ptr
// CHECK:         scf.if
// CHECK-NEXT:      nvvm.tcgen05.commit %[[BAR]] : !llvm.ptr<3>
// CHECK:         scf.while
// CHECK:           nvvm.mbarrier.try_wait %[[BAR]]
// CHECK:         nvvm.tcgen05.fence <after>
// CHECK-COUNT-8: nvvm.tcgen05.ld

// The launcher: the tensor maps of sm_90a's TMA kernels (BFLOAT16 = 9, rank
// 3), passed after the strides.
// CHECK:       llvm.func internal @mp_tc_sm100a_tcgen05_tma_bf16k_bf16k_accf32_outbf16_128x128x64_s4_launch(
// CHECK:         llvm.call @mgpuTensorMapEncodeTiled(%{{.*}}, %[[TYPE:.*]], %{{.*}}, %{{.*}},
// CHECK:         llvm.call @mgpuTensorMapEncodeTiled(
// CHECK:         gpu.launch_func {{.*}} args({{.*}}, %{{.*}} : !llvm.ptr, %{{.*}} : !llvm.ptr)
func.func @bf16(%x: tensor<200x256xbf16>, %w: tensor<136x256xbf16>) -> tensor<200x136xbf16> {
  %y = mp.linear %x, %w acc(f32) : (tensor<200x256xbf16>, tensor<136x256xbf16>) -> tensor<200x136xbf16>
  return %y : tensor<200x136xbf16>
}

// -----

// tf32 with TMA: every thread runs the loop, waits for full[s], rounds the
// chunks it owns to TF32 in shared memory (FLOAT32 tensor maps = 7), fences
// the async proxy and meets the others at a barrier before thread 0 issues.
// CHECK:       gpu.func @mp_tc_sm100a_tcgen05_tma_tf32k_tf32k_accf32_outf32_128x128x32_s4(
// CHECK-SAME:    mainloop = "tma"
// CHECK:         scf.for
// CHECK:           nvvm.mbarrier.try_wait
// CHECK:           nvvm.convert.float.to.tf32 %{{.*}} {rnd = #nvvm.fp_rnd_mode<rna>}
// CHECK:           nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK-NEXT:      nvvm.barrier0
// CHECK:           scf.if
// CHECK:             nvvm.tcgen05.mma {{.*}}kind = #nvvm.tcgen05_mma_kind<tf32>}
// CHECK:       llvm.func internal @mp_tc_sm100a_tcgen05_tma_tf32k_tf32k_accf32_outf32_128x128x32_s4_launch(
// CHECK:         %[[F32:.*]] = llvm.mlir.constant(7 : i32) : i32
// CHECK:         llvm.call @mgpuTensorMapEncodeTiled(%{{.*}}, %[[F32]],
func.func @tf32(%x: tensor<64x128xf32>, %w: tensor<96x128xf32>) -> tensor<64x96xf32> {
  %y = mp.matmul %x, %w transpose_rhs acc(f32) compute tf32 : tensor<64x128xf32>, tensor<96x128xf32> -> tensor<64x96xf32>
  return %y : tensor<64x96xf32>
}

// -----

// Rows that TMA cannot stride (N = 12 f16: 24 bytes) keep the cp.async loop.
// CHECK:       gpu.func @mp_tc_sm100a_tcgen05_f16k_f16nu_
// CHECK-SAME:    mainloop = "cp-async"
// CHECK-NOT:     nvvm.cp.async.bulk.tensor
// CHECK:         nvvm.cp.async.commit.group
func.func @unaligned(%x: tensor<64x128xf16>, %w: tensor<128x12xf16>) -> tensor<64x12xf32> {
  %y = mp.matmul %x, %w acc(f32) : tensor<64x128xf16>, tensor<128x12xf16> -> tensor<64x12xf32>
  return %y : tensor<64x12xf32>
}
