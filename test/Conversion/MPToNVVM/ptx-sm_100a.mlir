// The PTX of the sm_100a kernels: PTX ISA 8.6, tcgen05.mma.cta_group::1 of
// each kind (f16 for f16/bf16, tf32, f8f6f4, i8) from shared-memory
// descriptors into Tensor Memory, tcgen05.alloc / relinquish / ld / dealloc,
// the tcgen05 fences, the mbarrier the MMAs commit to, and mma.sync where
// tcgen05 does not apply (f16 accumulation). The default main loop is TMA:
// mbarriers behind the stages (the last commit's at 131072, full[s] at
// 131088 + 8s, empty[s] at 131120 + 8s), arrive.expect_tx, the 3-D
// cp.async.bulk.tensor of each operand completing on full[s], the slice's
// commit to empty[s] and the last to 131072 (the second run line:
// mainloop=cp-async).
// Instructions are checked for presence in each kernel (LLVM chooses the
// block order of the K loop).

// RUN: mp-opt %s --pass-pipeline="builtin.module(convert-mp-to-nvvm{chip=sm_100a},gpu.module(convert-scf-to-cf,convert-gpu-to-nvvm,convert-nvvm-to-llvm,reconcile-unrealized-casts),gpu-module-to-binary{format=isa})" \
// RUN:   | %python %mp_src_root/tools/bench/ptxas_report.py extract | FileCheck %s
// RUN: mp-opt %s --pass-pipeline="builtin.module(convert-mp-to-nvvm{chip=sm_100a mainloop=cp-async},gpu.module(convert-scf-to-cf,convert-gpu-to-nvvm,convert-nvvm-to-llvm,reconcile-unrealized-casts),gpu-module-to-binary{format=isa})" \
// RUN:   | %python %mp_src_root/tools/bench/ptxas_report.py extract | FileCheck %s --check-prefix=CPASYNC

// CHECK:       .version 8.6
// CHECK-NEXT:  .target sm_100a

// CHECK-LABEL: .entry mp_tc_sm100a_tcgen05_tma_bf16k_bf16k_accf32_outbf16_128x128x64_s4(
// CHECK-DAG:   tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [mp_tensor_core_shared+131080], %r{{[0-9]+}};
// CHECK-DAG:   tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;
// CHECK-DAG:   mbarrier.init.shared.b64 [mp_tensor_core_shared+131072], %r{{[0-9]+}};
// CHECK-DAG:   mbarrier.init.shared.b64 [mp_tensor_core_shared+131088], %r{{[0-9]+}};
// CHECK-DAG:   mbarrier.init.shared.b64 [mp_tensor_core_shared+131144], %r{{[0-9]+}};
// CHECK-DAG:   fence.mbarrier_init.release.cluster;
// CHECK-DAG:   mbarrier.arrive.expect_tx.shared.b64 %rd{{[0-9]+}}, [mp_tensor_core_shared+131088], %r{{[0-9]+}};
// CHECK-DAG:   cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%rd{{[0-9]+}}], [%rd{{[0-9]+}}, {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}], [mp_tensor_core_shared+131088];
// CHECK-DAG:   mbarrier.try_wait.parity.shared.b64 %p{{[0-9]+}}, [mp_tensor_core_shared+131072], %r{{[0-9]+}};
// CHECK-DAG:   tcgen05.mma.cta_group::1.kind::f16.collector::a::discard [%r{{[0-9]+}}], %rd{{[0-9]+}}, %rd{{[0-9]+}}, %r{{[0-9]+}}, %p{{[0-9]+}};
// CHECK-DAG:   tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%rd{{[0-9]+}}+131120];
// CHECK-DAG:   tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [mp_tensor_core_shared+131072];
// CHECK-DAG:   tcgen05.ld.sync.aligned.32x32b.x16.b32 {%r{{[0-9]+}}, {{.*}}}, [%r{{[0-9]+}}];
// CHECK-DAG:   tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r{{[0-9]+}}, %r{{[0-9]+}};
// CHECK-NOT:   cp.async.cg.shared.global

// CHECK-LABEL: .entry mp_tc_sm100a_tcgen05_tma_f16m_f16n_accf32_outf16_128x128x64_s4(
// CHECK-DAG:   tcgen05.mma.cta_group::1.kind::f16.collector::a::discard
// CHECK-LABEL: .entry mp_tc_sm100a_mma_f16k_f16k_accf16_outf16_128x128x32_w64x32_s3(
// CHECK-DAG:   mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16
// CHECK-LABEL: .entry mp_tc_sm100a_tcgen05_tma_tf32k_tf32k_accf32_outf32_128x128x32_s4(
// CHECK-DAG:   cvt.rna.tf32.f32
// CHECK-DAG:   tcgen05.mma.cta_group::1.kind::tf32.collector::a::discard
// CHECK-LABEL: .entry mp_tc_sm100a_tcgen05_tma_e4m3k_e5m2k_accf32_outbf16_128x128x128_s4(
// CHECK-DAG:   tcgen05.mma.cta_group::1.kind::f8f6f4.collector::a::discard
// CHECK-LABEL: .entry mp_tc_sm100a_tcgen05_tma_s8k_s8k_acci32_outi32_128x128x128_s4(
// CHECK-DAG:   tcgen05.mma.cta_group::1.kind::i8.collector::a::discard
// CPASYNC-LABEL: .entry mp_tc_sm100a_tcgen05_bf16k_bf16k_accf32_outbf16_128x128x64_s4(
// CPASYNC-DAG:   tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [mp_tensor_core_shared+131080], %r{{[0-9]+}};
// CPASYNC-DAG:   tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;
// CPASYNC-DAG:   mbarrier.init.shared.b64 [mp_tensor_core_shared+131072], %r{{[0-9]+}};
// CPASYNC-DAG:   fence.mbarrier_init.release.cluster;
// CPASYNC-DAG:   tcgen05.fence::before_thread_sync;
// CPASYNC-DAG:   tcgen05.fence::after_thread_sync;
// CPASYNC-DAG:   cp.async.cg.shared.global
// CPASYNC-DAG:   cp.async.wait_group 2;
// CPASYNC-DAG:   fence.proxy.async.shared::cta;
// CPASYNC-DAG:   mbarrier.try_wait.parity.shared.b64 %p{{[0-9]+}}, [mp_tensor_core_shared+131072], %r{{[0-9]+}};
// CPASYNC-DAG:   tcgen05.mma.cta_group::1.kind::f16.collector::a::discard [%r{{[0-9]+}}], %rd{{[0-9]+}}, %rd{{[0-9]+}}, %r{{[0-9]+}}, %p{{[0-9]+}};
// CPASYNC-DAG:   tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [mp_tensor_core_shared+131072];
// CPASYNC-DAG:   tcgen05.ld.sync.aligned.32x32b.x16.b32 {%r{{[0-9]+}}, {{.*}}}, [%r{{[0-9]+}}];
// CPASYNC-DAG:   tcgen05.wait::ld.sync.aligned;
// CPASYNC-DAG:   tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r{{[0-9]+}}, %r{{[0-9]+}};

func.func @formats(%x: tensor<64x128xbf16>, %w: tensor<96x128xbf16>,
                   %at: tensor<128x64xf16>, %bn: tensor<128x96xf16>,
                   %xh: tensor<64x128xf16>, %wh: tensor<96x128xf16>,
                   %xs: tensor<64x128xf32>, %ws: tensor<96x128xf32>,
                   %x8: tensor<64x128xf8E4M3FN>, %g8: tensor<96x128xf8E5M2>,
                   %xi: tensor<64x128xi8>, %wi: tensor<96x128xi8>)
    -> (tensor<64x96xbf16>, tensor<64x96xf16>, tensor<64x96xf16>, tensor<64x96xf32>,
        tensor<64x96xbf16>, tensor<64x96xi32>) {
  %bf16 = mp.linear %x, %w acc(f32) : (tensor<64x128xbf16>, tensor<96x128xbf16>) -> tensor<64x96xbf16>
  %f16t = mp.matmul %at, %bn transpose_lhs acc(f32) : tensor<128x64xf16>, tensor<128x96xf16> -> tensor<64x96xf16>
  %acc16 = mp.matmul %xh, %wh transpose_rhs acc(f16) : tensor<64x128xf16>, tensor<96x128xf16> -> tensor<64x96xf16>
  %tf32 = mp.matmul %xs, %ws transpose_rhs acc(f32) compute tf32 : tensor<64x128xf32>, tensor<96x128xf32> -> tensor<64x96xf32>
  %e4e5 = mp.matmul %x8, %g8 transpose_rhs acc(f32) : tensor<64x128xf8E4M3FN>, tensor<96x128xf8E5M2> -> tensor<64x96xbf16>
  %s8 = mp.matmul %xi, %wi transpose_rhs acc(i32) : tensor<64x128xi8>, tensor<96x128xi8> -> tensor<64x96xi32>
  return %bf16, %f16t, %acc16, %tf32, %e4e5, %s8 : tensor<64x96xbf16>, tensor<64x96xf16>, tensor<64x96xf16>, tensor<64x96xf32>, tensor<64x96xbf16>, tensor<64x96xi32>
}
