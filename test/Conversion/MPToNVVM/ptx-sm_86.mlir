// The PTX of the sm_86 kernels (gpu-module-to-binary{format=isa}): PTX ISA
// 7.1, the mma.sync of each format, ldmatrix (.trans for transposed 16-bit
// operands), the cp.async pipeline and the epilogue conversions. LLVM lays
// the K loop out in its own block order, so the instructions of each kernel
// are checked for presence (CHECK-DAG), not order; test/Conversion/MPToNVVM/
// convert-mp-to-nvvm.mlir checks the order in the NVVM IR.

// RUN: mp-opt %s --pass-pipeline="builtin.module(convert-mp-to-nvvm{chip=sm_86},gpu.module(convert-scf-to-cf,convert-gpu-to-nvvm,convert-nvvm-to-llvm,reconcile-unrealized-casts),gpu-module-to-binary{format=isa})" \
// RUN:   | %python %mp_src_root/tools/bench/ptxas_report.py extract | FileCheck %s

// CHECK:       .version 7.1
// CHECK-NEXT:  .target sm_86
// CHECK:       .extern .shared .align 1024 .b8 mp_tensor_core_shared[];

// CHECK-LABEL: .entry mp_tc_sm86_mma_f16k_f16k_accf32_outf16_128x128x32_w64x32_s3(
// CHECK:       .maxntid 256, 1, 1
// CHECK-DAG:   cp.async.cg.shared.global [%rd{{[0-9]+}}], [%rd{{[0-9]+}}], 16, %r{{[0-9]+}};
// CHECK-DAG:   cp.async.commit_group;
// CHECK-DAG:   cp.async.wait_group 1;
// CHECK-DAG:   bar.sync 0;
// CHECK-DAG:   ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}, [%rd{{[0-9]+}}
// CHECK-DAG:   mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// CHECK-DAG:   cp.async.wait_group 0;
// CHECK-DAG:   cvt.rn.f16.f32
// CHECK-DAG:   st.global.b16

// CHECK-LABEL: .entry mp_tc_sm86_mma_bf16m_bf16n_accf32_outbf16_128x128x32_w64x32_s3(
// CHECK-DAG:   ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// CHECK-DAG:   mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// CHECK-DAG:   cvt.rn.bf16.f32
// CHECK-DAG:   st.global.b16

// CHECK-LABEL: .entry mp_tc_sm86_mma_f16k_f16k_accf16_outf16_128x128x32_w64x32_s3(
// CHECK-DAG:   mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16

// CHECK-LABEL: .entry mp_tc_sm86_mma_tf32k_tf32n_accf32_outf32_128x128x16_w64x32_s3(
// CHECK-DAG:   ld.shared.b32
// CHECK-DAG:   cvt.rna.tf32.f32
// CHECK-DAG:   mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32
// CHECK-DAG:   st.global.b32

// CHECK-LABEL: .entry mp_tc_sm86_mma_s8k_s8k_acci32_outi32_128x128x64_w64x32_s3(
// CHECK-DAG:   ldmatrix.sync.aligned.m8n8.x4.shared.b16
// CHECK-DAG:   mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32
// CHECK-DAG:   st.global.b32

// CHECK-LABEL: .entry mp_tc_sm86_mma_f16k_f16k_accf32_outf16_128x128x32_w64x32_s3_bias_relu(
// CHECK-DAG:   ld.global.b16
// CHECK-DAG:   max.NaN.f32
func.func @formats(%x: tensor<64x128xf16>, %w: tensor<96x128xf16>, %b: tensor<96xf16>,
                   %at: tensor<128x64xbf16>, %bn: tensor<128x96xbf16>,
                   %xs: tensor<64x128xf32>, %ws: tensor<128x96xf32>,
                   %xi: tensor<64x128xi8>, %wi: tensor<96x128xi8>)
    -> (tensor<64x96xf16>, tensor<64x96xbf16>, tensor<64x96xf16>, tensor<64x96xf32>,
        tensor<64x96xi32>, tensor<64x96xf16>) {
  %f16 = mp.linear %x, %w acc(f32) : (tensor<64x128xf16>, tensor<96x128xf16>) -> tensor<64x96xf16>
  %bf16 = mp.matmul %at, %bn transpose_lhs acc(f32)
      : tensor<128x64xbf16>, tensor<128x96xbf16> -> tensor<64x96xbf16>
  %acc16 = mp.matmul %x, %w transpose_rhs acc(f16)
      : tensor<64x128xf16>, tensor<96x128xf16> -> tensor<64x96xf16>
  %tf32 = mp.matmul %xs, %ws acc(f32) compute tf32
      : tensor<64x128xf32>, tensor<128x96xf32> -> tensor<64x96xf32>
  %s8 = mp.matmul %xi, %wi transpose_rhs acc(i32)
      : tensor<64x128xi8>, tensor<96x128xi8> -> tensor<64x96xi32>
  %l = mp.linear %x, %w, %b acc(f32)
      : (tensor<64x128xf16>, tensor<96x128xf16>, tensor<96xf16>) -> tensor<64x96xf16>
  %r = mp.relu %l : tensor<64x96xf16>
  return %f16, %bf16, %acc16, %tf32, %s8, %r
      : tensor<64x96xf16>, tensor<64x96xbf16>, tensor<64x96xf16>, tensor<64x96xf32>,
        tensor<64x96xi32>, tensor<64x96xf16>
}
