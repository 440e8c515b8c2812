// The PTX of the sm_120a kernels: PTX ISA 8.7, the warp-level mma.sync of
// each format (Ada's m16n8k32 e4m3/e5m2 for FP8); no tcgen05 (sm_120a has no
// Tensor Memory).

// RUN: mp-opt %s --pass-pipeline="builtin.module(convert-mp-to-nvvm{chip=sm_120a},gpu.module(convert-scf-to-cf,convert-gpu-to-nvvm,convert-nvvm-to-llvm,reconcile-unrealized-casts),gpu-module-to-binary{format=isa})" \
// RUN:   | %python %mp_src_root/tools/bench/ptxas_report.py extract | FileCheck %s

// CHECK:       .version 8.7
// CHECK-NEXT:  .target sm_120a
// CHECK-NOT:   tcgen05
// CHECK-LABEL: .entry mp_tc_sm120a_mma_bf16k_bf16k_accf32_outbf16_128x128x32_w64x32_s3(
// CHECK-DAG:   ldmatrix.sync.aligned.m8n8.x4.shared.b16
// CHECK-DAG:   mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// CHECK-LABEL: .entry mp_tc_sm120a_mma_f16m_f16n_accf32_outf16_128x128x32_w64x32_s3(
// CHECK-DAG:   ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// CHECK-DAG:   mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// CHECK-LABEL: .entry mp_tc_sm120a_mma_f16k_f16k_accf16_outf16_128x128x32_w64x32_s3(
// CHECK-DAG:   mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16
// CHECK-LABEL: .entry mp_tc_sm120a_mma_tf32k_tf32k_accf32_outf32_128x128x16_w64x32_s3(
// CHECK-DAG:   cvt.rna.tf32.f32
// CHECK-DAG:   mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32
// CHECK-LABEL: .entry mp_tc_sm120a_mma_e4m3k_e5m2k_accf32_outbf16_128x128x64_w64x32_s3(
// CHECK-DAG:   mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e5m2.f32
// CHECK-LABEL: .entry mp_tc_sm120a_mma_s8k_s8k_acci32_outi32_128x128x64_w64x32_s3(
// CHECK-DAG:   mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32
// CHECK-NOT:   tcgen05
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
