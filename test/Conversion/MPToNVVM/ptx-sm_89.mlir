// The PTX of the sm_89 kernels: PTX ISA 8.4 (FP8 mma.sync needs it), the
// m16n8k32 FP8 mma of every pairing of e4m3 and e5m2 with f32 accumulation,
// and the formats of sm_80. Instructions are checked for presence in each
// kernel (LLVM chooses the block order of the K loop).

// RUN: mp-opt %s --pass-pipeline="builtin.module(convert-mp-to-nvvm{chip=sm_89},gpu.module(convert-scf-to-cf,convert-gpu-to-nvvm,convert-nvvm-to-llvm,reconcile-unrealized-casts),gpu-module-to-binary{format=isa})" \
// RUN:   | %python %mp_src_root/tools/bench/ptxas_report.py extract | FileCheck %s

// CHECK:       .version 8.4
// CHECK-NEXT:  .target sm_89

// CHECK-LABEL: .entry mp_tc_sm89_mma_e4m3k_e4m3k_accf32_outbf16_128x128x64_w64x32_s3(
// CHECK-DAG:   cp.async.cg.shared.global
// CHECK-DAG:   ldmatrix.sync.aligned.m8n8.x4.shared.b16
// CHECK-DAG:   mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32
// CHECK-DAG:   cvt.rn.bf16.f32

// CHECK-LABEL: .entry mp_tc_sm89_mma_e4m3k_e5m2k_accf32_outf32_128x128x64_w64x32_s3(
// CHECK-DAG:   mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e5m2.f32

// CHECK-LABEL: .entry mp_tc_sm89_mma_e5m2m_e4m3n_accf32_outf32_128x128x64_w64x32_s3(
// CHECK-DAG:   ld.shared.b8
// CHECK-DAG:   mma.sync.aligned.m16n8k32.row.col.f32.e5m2.e4m3.f32

// CHECK-LABEL: .entry mp_tc_sm89_mma_e5m2k_e5m2k_accf32_outf16_128x128x64_w64x32_s3(
// CHECK-DAG:   mma.sync.aligned.m16n8k32.row.col.f32.e5m2.e5m2.f32
// CHECK-DAG:   cvt.rn.f16.f32

// CHECK-LABEL: .entry mp_tc_sm89_mma_f16k_f16k_accf32_outf16_128x128x32_w64x32_s3(
// CHECK-DAG:   mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// CHECK-LABEL: .entry mp_tc_sm89_mma_bf16k_bf16k_accf32_outbf16_128x128x32_w64x32_s3(
// CHECK-DAG:   mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// CHECK-LABEL: .entry mp_tc_sm89_mma_tf32k_tf32k_accf32_outf32_128x128x16_w64x32_s3(
// CHECK-DAG:   cvt.rna.tf32.f32
// CHECK-DAG:   mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32
// CHECK-LABEL: .entry mp_tc_sm89_mma_s8k_s8k_acci32_outi32_128x128x64_w64x32_s3(
// CHECK-DAG:   mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32
func.func @formats(%x: tensor<64x128xf8E4M3FN>, %w: tensor<96x128xf8E4M3FN>,
                   %g: tensor<96x128xf8E5M2>, %dy: tensor<64x96xf8E5M2>,
                   %gv: tensor<48x96xf8E5M2>,
                   %xh: tensor<64x128xf16>, %wh: tensor<96x128xf16>,
                   %xb: tensor<64x128xbf16>, %wb: tensor<96x128xbf16>,
                   %xs: tensor<64x128xf32>, %ws: tensor<96x128xf32>,
                   %xi: tensor<64x128xi8>, %wi: tensor<96x128xi8>)
    -> (tensor<64x96xbf16>, tensor<64x96xf32>, tensor<96x128xf32>, tensor<64x48xf16>,
        tensor<64x96xf16>, tensor<64x96xbf16>, tensor<64x96xf32>, tensor<64x96xi32>) {
  %e4e4 = mp.linear %x, %w acc(f32)
      : (tensor<64x128xf8E4M3FN>, tensor<96x128xf8E4M3FN>) -> tensor<64x96xbf16>
  %e4e5 = mp.matmul %x, %g transpose_rhs acc(f32)
      : tensor<64x128xf8E4M3FN>, tensor<96x128xf8E5M2> -> tensor<64x96xf32>
  %e5e4 = mp.matmul %dy, %x transpose_lhs acc(f32)
      : tensor<64x96xf8E5M2>, tensor<64x128xf8E4M3FN> -> tensor<96x128xf32>
  %e5e5 = mp.matmul %dy, %gv transpose_rhs acc(f32)
      : tensor<64x96xf8E5M2>, tensor<48x96xf8E5M2> -> tensor<64x48xf16>
  %f16 = mp.linear %xh, %wh acc(f32) : (tensor<64x128xf16>, tensor<96x128xf16>) -> tensor<64x96xf16>
  %bf16 = mp.linear %xb, %wb acc(f32) : (tensor<64x128xbf16>, tensor<96x128xbf16>) -> tensor<64x96xbf16>
  %tf32 = mp.matmul %xs, %ws transpose_rhs acc(f32) compute tf32
      : tensor<64x128xf32>, tensor<96x128xf32> -> tensor<64x96xf32>
  %s8 = mp.matmul %xi, %wi transpose_rhs acc(i32)
      : tensor<64x128xi8>, tensor<96x128xi8> -> tensor<64x96xi32>
  return %e4e4, %e4e5, %e5e4, %e5e5, %f16, %bf16, %tf32, %s8
      : tensor<64x96xbf16>, tensor<64x96xf32>, tensor<96x128xf32>, tensor<64x48xf16>,
        tensor<64x96xf16>, tensor<64x96xbf16>, tensor<64x96xf32>, tensor<64x96xi32>
}
