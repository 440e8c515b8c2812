// The PTX of the sm_120a block-scaled kernels (mp.scaled_matmul): PTX ISA 8.7,
// one block-scaled mma.sync form per kind, scale vector and scale type; the
// scale selectors (byte-id, thread-id) are 0, and each scale vector is one
// shared-memory load (ld.shared.b8 for 1X, .b32 for 4X) from the buffer the
// block fills once per K slice. FP8/FP6/FP4 × FP8 take
// m16n8k32 kind::mxf8f6f4 scale_vec::1X ue8m0 (ldmatrix fragments), FP4 ×
// FP4 m16n8k64 kind::mxf4 scale_vec::2X ue8m0 or kind::mxf4nvf4
// scale_vec::4X ue4m3 (packed from 32-bit shared loads, no ldmatrix).

// RUN: mp-opt %S/../../Integration/GPU/Inputs/tensor-core-scaled-matmuls.mlir --pass-pipeline="builtin.module(convert-mp-to-nvvm{chip=sm_120a},gpu.module(convert-scf-to-cf,convert-gpu-to-nvvm,convert-nvvm-to-llvm,reconcile-unrealized-casts),gpu-module-to-binary{format=isa})" \
// RUN:   | %python %mp_src_root/tools/bench/ptxas_report.py extract | FileCheck %s

// CHECK:       .version 8.7
// CHECK-NEXT:  .target sm_120a
// CHECK-LABEL: .entry mp_tc_sm120a_mma_e4m3k_e4m3k_accf32_outbf16_128x128x64_w64x32_s3_mxf8f6f4_ue8m0x32(
// CHECK:       ldmatrix.sync.aligned.m8n8.x4.shared.b16
// CHECK:       ld.shared.b8
// CHECK:       mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e4m3.e4m3.f32.ue8m0
// CHECK-NEXT:    {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}},
// CHECK-NEXT:    {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}},
// CHECK-NEXT:    {%r{{[0-9]+}}, %r{{[0-9]+}}},
// CHECK-NEXT:    {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}},
// CHECK-NEXT:    %r{{[0-9]+}}, {%rs[[ZERO:[0-9]+]], %rs[[ZERO]]},
// CHECK-NEXT:    %r{{[0-9]+}}, {%rs[[ZERO]], %rs[[ZERO]]};
// CHECK-LABEL: .entry mp_tc_sm120a_mma_e4m3k_e5m2k_accf32_outf32_128x128x64_w64x32_s3_mxf8f6f4_ue8m0x32(
// CHECK:       mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e4m3.e5m2.f32.ue8m0
// CHECK-LABEL: .entry mp_tc_sm120a_mma_e4m3k_e4m3k_accf32_outbf16_128x128x64_w64x32_s3_mxf8f6f4_ue8m0x32_tiles1x32(
// CHECK:       mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e4m3.e4m3.f32.ue8m0
// CHECK-LABEL: .entry mp_tc_sm120a_mma_e2m3k_e3m2k_accf32_outbf16_128x128x64_w64x32_s3_mxf8f6f4_ue8m0x32(
// CHECK:       and.b32 {{.*}}, 1061109567;
// CHECK:       mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e2m3.e3m2.f32.ue8m0
// CHECK-LABEL: .entry mp_tc_sm120a_mma_e2m1k_e4m3k_accf32_outf16_128x128x64_w64x32_s3_mxf8f6f4_ue8m0x32(
// CHECK:       mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e2m1.e4m3.f32.ue8m0
// CHECK-LABEL: .entry mp_tc_sm120a_mma_e2m1k_e2m1k_accf32_outbf16_128x128x64_w64x32_s3_mxf4_ue8m0x32(
// CHECK-NOT:   ldmatrix
// CHECK:       mma.sync.aligned.m16n8k64.row.col.kind::mxf4.block_scale.scale_vec::2X.f32.e2m1.e2m1.f32.ue8m0
// CHECK-LABEL: .entry mp_tc_sm120a_mma_e2m1k_e2m1k_accf32_outbf16_128x128x64_w64x32_s3_mxf4nvf4_ue4m3x16(
// CHECK-NOT:   ldmatrix
// CHECK:       ld.shared.b32
// CHECK:       mma.sync.aligned.m16n8k64.row.col.kind::mxf4nvf4.block_scale.scale_vec::4X.f32.e2m1.e2m1.f32.ue4m3
// CHECK-LABEL: .entry mp_tc_sm120a_mma_e2m1k_e2m1k_accf32_outbf16_128x128x64_w64x32_s3_mxf4nvf4_ue4m3x16_tiles1x16(
// CHECK:       mma.sync.aligned.m16n8k64.row.col.kind::mxf4nvf4.block_scale.scale_vec::4X.f32.e2m1.e2m1.f32.ue4m3
