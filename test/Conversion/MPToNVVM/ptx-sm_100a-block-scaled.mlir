// The PTX of the sm_100a block-scaled kernels (mp.scaled_matmul): PTX ISA 8.8
// (LLVM selects the .block16 / .block32 forms from 8.8 on), per K slice one
// tcgen05.cp.cta_group::1.32x128b.warpx4 per scale atom (A's, then B's: 2
// for FP8 with 4 blocks of 32 per 128-element slice, 4 for kind::mxf4 with 8
// blocks of 32 per 256-element slice, 8 for kind::mxf4nvf4 with 16 blocks of
// 16), then one block-scaled tcgen05.mma per 32 bytes of K whose instruction
// descriptor carries the scale-factor ids (bits 29-30 for A, 4-5 for B), the
// scale type (bit 23: E8M0 1, E4M3 0), the operand types (E5M2 = 1 in bits
// 10-12; E2M1 = 1 for the packed kinds), N = 128 and M = 128:
//   FP8 E4M3 x E4M3, ids 0..3: 0x08A00000, 0x28A00010, 0x48A00020, 0x68A00030;
//   E4M3 x E5M2, id 0: 0x08A00400; kind::mxf4, ids 0 and 2: 0x08A00480,
//   0x48A004A0; kind::mxf4nvf4 (E4M3 scales), id 0: 0x08200480.
// Packed-FP4 kernels store the packed copy with st.shared.v2.b32 (8 bytes
// per 16-element chunk) behind the 2 stages (131072). The slices come by TMA
// (cp.async.bulk.tensor completing on full[s] behind the mbarrier and the
// Tensor Memory address: 132112 for FP8).

// RUN: mp-opt %S/../../Integration/GPU/Inputs/tensor-core-scaled-matmuls-sm100a.mlir --pass-pipeline="builtin.module(convert-mp-to-nvvm{chip=sm_100a},gpu.module(convert-scf-to-cf,convert-gpu-to-nvvm,convert-nvvm-to-llvm,reconcile-unrealized-casts),gpu-module-to-binary{format=isa})" \
// RUN:   | %python %mp_src_root/tools/bench/ptxas_report.py extract | FileCheck %s

// CHECK:       .version 8.8
// CHECK-NEXT:  .target sm_100a
// CHECK-LABEL: .entry mp_tc_sm100a_tcgen05_tma_e4m3k_e4m3k_accf32_outbf16_128x128x128_s4_mxf8f6f4_ue8m0x32(
// CHECK:       tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [mp_tensor_core_shared+132104], %r{{[0-9]+}};
// CHECK:       mbarrier.init.shared.b64 [mp_tensor_core_shared+132096], %r{{[0-9]+}};
// CHECK:       cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%rd{{[0-9]+}}], [%rd{{[0-9]+}}, {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}], [mp_tensor_core_shared+132112];
// CHECK:       fence.proxy.async.shared::cta;
// CHECK-COUNT-2: tcgen05.cp.cta_group::1.32x128b.warpx4 [%r{{[0-9]+}}], %rd{{[0-9]+}};
// CHECK-NOT:   tcgen05.cp
// CHECK:       mov.b32 %r{{[0-9]+}}, 144703488;
// CHECK-NEXT:  tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.block32.collector::a::discard [%r{{[0-9]+}}], %rd{{[0-9]+}}, %rd{{[0-9]+}}, %r{{[0-9]+}}, [%r[[SFA:[0-9]+]]], [%r[[SFB:[0-9]+]]], %p{{[0-9]+}};
// CHECK:       mov.b32 %r{{[0-9]+}}, 681574416;
// CHECK-NEXT:  tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.block32.collector::a::discard [%r{{[0-9]+}}], %rd{{[0-9]+}}, %rd{{[0-9]+}}, %r{{[0-9]+}}, [%r[[SFA]]], [%r[[SFB]]], %p{{[0-9]+}};
// CHECK:       mov.b32 %r{{[0-9]+}}, 1218445344;
// CHECK:       mov.b32 %r{{[0-9]+}}, 1755316272;
// CHECK:       tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [mp_tensor_core_shared+132096];
// CHECK:       tcgen05.ld.sync.aligned.32x32b.x16.b32
// CHECK-LABEL: .entry mp_tc_sm100a_tcgen05_tma_e4m3k_e5m2k_accf32_outf32_128x128x128_s4_mxf8f6f4_ue8m0x32(
// CHECK:       mov.b32 %r{{[0-9]+}}, 144704512;
// CHECK-NEXT:  tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.block32
// CHECK-LABEL: .entry mp_tc_sm100a_tcgen05_tma_e4m3k_e4m3k_accf32_outbf16_128x128x128_s4_mxf8f6f4_ue8m0x32_tiles1x32(
// CHECK:       tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.block32
// CHECK-LABEL: .entry mp_tc_sm100a_tcgen05_tma_e2m1k_e2m1k_accf32_outbf16_128x128x256_s2_mxf4_ue8m0x32(
// CHECK:       st.shared.v2.b32 [%rd{{[0-9]+}}+131072], {%r{{[0-9]+}}, %r{{[0-9]+}}};
// CHECK-COUNT-4: tcgen05.cp.cta_group::1.32x128b.warpx4
// CHECK-NOT:   tcgen05.cp
// CHECK:       mov.b32 %r{{[0-9]+}}, 144704640;
// CHECK-NEXT:  tcgen05.mma.cta_group::1.kind::mxf4.block_scale.block32.collector::a::discard
// CHECK:       mov.b32 %r{{[0-9]+}}, 1218446496;
// CHECK-NEXT:  tcgen05.mma.cta_group::1.kind::mxf4.block_scale.block32.collector::a::discard
// CHECK-LABEL: .entry mp_tc_sm100a_tcgen05_tma_e2m1k_e2m1k_accf32_outbf16_128x128x256_s2_mxf4nvf4_ue4m3x16(
// CHECK-COUNT-8: tcgen05.cp.cta_group::1.32x128b.warpx4
// CHECK-NOT:   tcgen05.cp
// CHECK:       mov.b32 %r{{[0-9]+}}, 136316032;
// CHECK-NEXT:  tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.block16.collector::a::discard
// CHECK-LABEL: .entry mp_tc_sm100a_tcgen05_tma_e2m1k_e2m1k_accf32_outf16_128x128x256_s2_mxf4nvf4_ue4m3x16_tiles1x16(
// CHECK:       tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.block16
// MXFP6 (E2M3 x E3M2) on kind::mxf8f6f4: each thread rewrites its 16-byte
// chunks in place into the padded form (12 bytes of packed FP6, 4 of zero
// padding: st.shared.v4.b32 {w0, w1, w2, 0}); idesc types E2M3 = 3 (bits
// 7-9), E3M2 = 4 (bits 10-12): 0x08A01180 = 144707968. FP4 x FP8: A's chunks
// become 8 bytes of packed FP4 and 8 of padding (st.shared.v2.b64), E2M1 = 5:
// 0x08A00280 = 144704128.
// CHECK-LABEL: .entry mp_tc_sm100a_tcgen05_tma_e2m3k_e3m2k_accf32_outbf16_128x128x128_s4_mxf8f6f4_ue8m0x32(
// CHECK:       cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// CHECK:       st.shared.v4.b32 [%rd{{[0-9]+}}], {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, 0};
// CHECK:       mov.b32 %r{{[0-9]+}}, 144707968;
// CHECK-NEXT:  tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.block32.collector::a::discard
// CHECK-LABEL: .entry mp_tc_sm100a_tcgen05_tma_e2m1k_e4m3k_accf32_outf32_128x128x128_s4_mxf8f6f4_ue8m0x32(
// CHECK:       st.shared.v2.b64 [%rd{{[0-9]+}}], {%rd{{[0-9]+}}, %rd{{[0-9]+}}};
// CHECK:       mov.b32 %r{{[0-9]+}}, 144704128;
// CHECK-NEXT:  tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.block32.collector::a::discard
