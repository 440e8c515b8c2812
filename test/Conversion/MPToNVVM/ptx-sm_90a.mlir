// The PTX of the sm_90a kernels: PTX ISA 8.0, wgmma.mma_async m64n128 of each
// format on shared-memory descriptors (imm-trans-a/b 1 for M- or N-major
// 16-bit operands), wgmma.fence, commit and wait groups, fence.proxy.async
// between the cp.async copies and the wgmma reads. Instructions are checked
// for presence in each kernel (LLVM chooses the block order of the K loop).

// RUN: mp-opt %s --pass-pipeline="builtin.module(convert-mp-to-nvvm{chip=sm_90a mainloop=cp-async},gpu.module(convert-scf-to-cf,convert-gpu-to-nvvm,convert-nvvm-to-llvm,reconcile-unrealized-casts),gpu-module-to-binary{format=isa})" \
// RUN:   | %python %mp_src_root/tools/bench/ptxas_report.py extract | FileCheck %s

// CHECK:       .version 8.0
// CHECK-NEXT:  .target sm_90a

// CHECK-LABEL: .entry mp_tc_sm90a_wgmma_bf16k_bf16k_accf32_outbf16_128x128x64_s4(
// CHECK-DAG:   cp.async.cg.shared.global
// CHECK-DAG:   cp.async.wait_group 2;
// CHECK-DAG:   fence.proxy.async.shared::cta;
// CHECK-DAG:   bar.sync 0;
// CHECK-DAG:   wgmma.fence.sync.aligned;
// CHECK-DAG:   wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {{{.*}}}, %rd{{[0-9]+}}, %rd{{[0-9]+}}, p, 1,  1, 0,  0;
// CHECK-DAG:   wgmma.commit_group.sync.aligned;
// CHECK-DAG:   wgmma.wait_group.sync.aligned 0;
// The stmatrix epilogue: staging tiles after the 4 stages (131072 bytes),
// 16-byte global stores, element stores at the edges.
// CHECK-DAG:   stmatrix.sync.aligned.m8n8.x4.shared.b16 [%rd{{[0-9]+}}+131072], {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}};
// CHECK-DAG:   bar.warp.sync -1;
// CHECK-DAG:   ld.shared.v4.b32
// CHECK-DAG:   st.global.v4.b32 [%rd{{[0-9]+}}], {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}};
// CHECK-DAG:   st.global.b16

// CHECK-LABEL: .entry mp_tc_sm90a_wgmma_f16m_f16n_accf32_outf16_128x128x64_s4(
// CHECK-DAG:   wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {{{.*}}}, %rd{{[0-9]+}}, %rd{{[0-9]+}}, p, 1,  1, 1,  1;

// CHECK-LABEL: .entry mp_tc_sm90a_wgmma_f16k_f16k_accf16_outf16_128x128x64_s4(
// CHECK-DAG:   wgmma.mma_async.sync.aligned.m64n128k16.f16.f16.f16

// CHECK-LABEL: .entry mp_tc_sm90a_wgmma_tf32k_tf32k_accf32_outf32_128x128x32_s4(
// CHECK-DAG:   cvt.rna.tf32.f32
// CHECK-DAG:   ld.shared.v4.b32
// CHECK-DAG:   st.shared.v4.b32
// CHECK-DAG:   wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32

// CHECK-LABEL: .entry mp_tc_sm90a_wgmma_e4m3k_e5m2k_accf32_outbf16_128x128x128_s4_p4(
// CHECK-DAG:   wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e5m2
// Promotion (E5M2 operand: a backward GEMM): the sum adds the accumulator.
// CHECK-DAG:   add.rn.f32
// CHECK-LABEL: .entry mp_tc_sm90a_wgmma_e4m3k_e4m3k_accf32_outbf16_128x128x128_s4(
// CHECK-DAG:   wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3
// CHECK-LABEL: .entry mp_tc_sm90a_wgmma_e5m2k_e5m2k_accf32_outf16_128x128x128_s4_p4(
// CHECK-DAG:   wgmma.mma_async.sync.aligned.m64n128k32.f32.e5m2.e5m2
// CHECK-LABEL: .entry mp_tc_sm90a_wgmma_s8k_s8k_acci32_outi32_128x128x128_s4(
// CHECK-DAG:   wgmma.mma_async.sync.aligned.m64n128k32.s32.s8.s8
func.func @formats(%x: tensor<64x128xbf16>, %w: tensor<96x128xbf16>,
                   %at: tensor<128x64xf16>, %bn: tensor<128x96xf16>,
                   %xh: tensor<64x128xf16>, %wh: tensor<96x128xf16>,
                   %xs: tensor<64x128xf32>, %ws: tensor<96x128xf32>,
                   %x8: tensor<64x128xf8E4M3FN>, %w8: tensor<96x128xf8E4M3FN>,
                   %g8: tensor<96x128xf8E5M2>, %xg8: tensor<64x128xf8E5M2>,
                   %xi: tensor<64x128xi8>, %wi: tensor<96x128xi8>)
    -> (tensor<64x96xbf16>, tensor<64x96xf16>, tensor<64x96xf16>, tensor<64x96xf32>,
        tensor<64x96xbf16>, tensor<64x96xbf16>, tensor<64x96xf16>, tensor<64x96xi32>) {
  %bf16 = mp.linear %x, %w acc(f32) : (tensor<64x128xbf16>, tensor<96x128xbf16>) -> tensor<64x96xbf16>
  %f16t = mp.matmul %at, %bn transpose_lhs acc(f32)
      : tensor<128x64xf16>, tensor<128x96xf16> -> tensor<64x96xf16>
  %acc16 = mp.matmul %xh, %wh transpose_rhs acc(f16)
      : tensor<64x128xf16>, tensor<96x128xf16> -> tensor<64x96xf16>
  %tf32 = mp.matmul %xs, %ws transpose_rhs acc(f32) compute tf32
      : tensor<64x128xf32>, tensor<96x128xf32> -> tensor<64x96xf32>
  %e4e5 = mp.matmul %x8, %g8 transpose_rhs acc(f32)
      : tensor<64x128xf8E4M3FN>, tensor<96x128xf8E5M2> -> tensor<64x96xbf16>
  %e4e4 = mp.linear %x8, %w8 acc(f32)
      : (tensor<64x128xf8E4M3FN>, tensor<96x128xf8E4M3FN>) -> tensor<64x96xbf16>
  %e5e5 = mp.matmul %xg8, %g8 transpose_rhs acc(f32)
      : tensor<64x128xf8E5M2>, tensor<96x128xf8E5M2> -> tensor<64x96xf16>
  %s8 = mp.matmul %xi, %wi transpose_rhs acc(i32)
      : tensor<64x128xi8>, tensor<96x128xi8> -> tensor<64x96xi32>
  return %bf16, %f16t, %acc16, %tf32, %e4e5, %e4e4, %e5e5, %s8
      : tensor<64x96xbf16>, tensor<64x96xf16>, tensor<64x96xf16>, tensor<64x96xf32>,
        tensor<64x96xbf16>, tensor<64x96xbf16>, tensor<64x96xf16>, tensor<64x96xi32>
}
