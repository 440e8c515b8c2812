// RUN: mp-opt %s -split-input-file --convert-mp-to-nvvm="chip=sm_100a mainloop=cp-async" | FileCheck %s

// mp.scaled_matmul on sm_100a: a block-scaled tcgen05 kernel (PTX ISA 8.8)
// whose launcher takes A, B, C, then the scales of A and B. Behind the 4
// stages (128 KiB): A's scale atom (512 bytes: 128 rows x 4 blocks of 32),
// B's, then the mbarrier; Tensor Memory: the accumulator's 128 columns, then
// A's scale columns (4, from column 128) and B's (4), 256 columns in all.
// Each slice, after the wait for the previous slice's MMAs: the scale words
// stored into the atoms and fence.proxy.async; thread 0 then issues one
// tcgen05.cp .32x128b.warpx4 per atom (descriptor: no swizzle, stride byte
// offset 128 = 8 << 32, version 1 << 46) and one kind::mxf8f6f4
// .block_scale.block32 MMA per 32 K with the scale-factor ids 0..3 in its
// instruction descriptor (E4M3 x E5M2: 0x08A00400 | id << 29 | id << 4).

// CHECK-LABEL: func.func @mxfp8(
// CHECK:         llvm.call @mp_tc_sm100a_tcgen05_e4m3k_e5m2k_accf32_outbf16_128x128x128_s4_mxf8f6f4_ue8m0x32_launch(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %c1_i64, %c64_i64, %c96_i64, %c128_i64)
// CHECK-NOT:     mp.scaled_matmul
// CHECK:       gpu.module @mp_tensor_core_kernels [#nvvm.target<O = 3, chip = "sm_100a", features = "+ptx88">]
// CHECK:         gpu.func @mp_tc_sm100a_tcgen05_e4m3k_e5m2k_accf32_outbf16_128x128x128_s4_mxf8f6f4_ue8m0x32(
// CHECK-SAME:      block_scale = "mxf8f6f4"
// CHECK-SAME:      shared_memory_bytes = 132112 : i64
// CHECK-SAME:      tensor_memory_columns = 256 : i64, threads = 128 : i64
// CHECK:           %[[SHARED:.*]] = llvm.mlir.addressof @mp_tensor_core_shared
// CHECK:           %[[ATOMS_A:.*]] = llvm.getelementptr %{{.*}}[131072]
// CHECK:           %[[ATOMS_B:.*]] = llvm.getelementptr %[[ATOMS_A]][512]
// CHECK:           %[[BARRIER:.*]] = llvm.getelementptr %[[ATOMS_A]][1024]
// CHECK:           nvvm.tcgen05.alloc %{{.*}}, %c256_i32
// CHECK:           %[[SCALES_A:.*]] = arith.addi %{{.*}}, %c128_i32
// CHECK:           %[[SCALES_B:.*]] = arith.addi %[[SCALES_A]], %c4_i32
// CHECK:           scf.for
// CHECK:             nvvm.mbarrier.try_wait %[[BARRIER]]
// CHECK:             llvm.store %{{.*}}, %{{.*}} : i32, !llvm.ptr<3>
// CHECK:             nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK:             nvvm.barrier0
// CHECK:             nvvm.tcgen05.fence <after>
// CHECK:             %[[TA:.*]] = llvm.inttoptr %[[SCALES_A]] : i32 to !llvm.ptr<6>
// CHECK:             llvm.ptrtoint %[[ATOMS_A]]
// CHECK:             arith.constant 70403103916032 : i64
// CHECK:             nvvm.tcgen05.cp %[[TA]], %{{.*}} {multicast = #nvvm.tcgen05_cp_multicast<warpx4>, shape = #nvvm.tcgen05_cp_shape<shape_32x128b>}
// CHECK:             %[[TB:.*]] = llvm.inttoptr %[[SCALES_B]] : i32 to !llvm.ptr<6>
// CHECK:             llvm.ptrtoint %[[ATOMS_B]]
// CHECK:             nvvm.tcgen05.cp %[[TB]], %{{.*}} {multicast = #nvvm.tcgen05_cp_multicast<warpx4>, shape = #nvvm.tcgen05_cp_shape<shape_32x128b>}
// CHECK-NOT:         nvvm.tcgen05.cp
// CHECK:             nvvm.tcgen05.mma.block_scale %{{.*}}, %{{.*}}, %{{.*}}, %c144704512_i32, %{{.*}}, %{{.*}}, %{{.*}} {blockScale = #nvvm.tcgen05_mma_block_scale<block32>, ctaGroup = #nvvm.cta_group<cta_1>, kind = #nvvm.block_scale_kind<mxf8f6f4>}
// CHECK:             nvvm.tcgen05.mma.block_scale %{{.*}}, %c681575440_i32,
// CHECK:             nvvm.tcgen05.mma.block_scale %{{.*}}, %c1218446368_i32,
// CHECK:             nvvm.tcgen05.mma.block_scale %{{.*}}, %c1755317296_i32,
// CHECK-NEXT:        nvvm.tcgen05.commit %[[BARRIER]]
func.func @mxfp8(%x: tensor<64x128xf8E4M3FN>, %xs: tensor<64x4xf8E8M0FNU>,
                 %w: tensor<96x128xf8E5M2>, %ws: tensor<96x4xf8E8M0FNU>) -> tensor<64x96xbf16> {
  %y = mp.scaled_matmul %x scales %xs, %w scales %ws transpose_rhs acc(f32)
      : tensor<64x128xf8E4M3FN>, tensor<64x4xf8E8M0FNU>, tensor<96x128xf8E5M2>, tensor<96x4xf8E8M0FNU> -> tensor<64x96xbf16>
  return %y : tensor<64x96xbf16>
}

// -----

// NVFP4 (kind::mxf4nvf4.block_scale.block16, E4M3 scales, 16x16 weight
// tiles): 2 stages of 256 one-byte elements per row (128 KiB), the packed
// copies of A and B (16 KiB each, st of 2 x i32 per 16-byte chunk), 4 atoms
// of A and 4 of B (16 blocks of 16 per 256-element slice); 128 + 16 + 16
// Tensor Memory columns (256); one MMA per 64 elements, each reading the 4
// scales of a whole atom word (scale-factor id 0).

// CHECK-LABEL: func.func @nvfp4(
// CHECK:         llvm.call @mp_tc_sm100a_tcgen05_e2m1k_e2m1k_accf32_outf32_128x128x256_s2_mxf4nvf4_ue4m3x16_tiles1x16_launch(
// CHECK:         gpu.func @mp_tc_sm100a_tcgen05_e2m1k_e2m1k_accf32_outf32_128x128x256_s2_mxf4nvf4_ue4m3x16_tiles1x16(
// CHECK-SAME:      shared_memory_bytes = 167952 : i64
// CHECK-SAME:      tensor_memory_columns = 256 : i64
// CHECK:           %[[PACKED_A:.*]] = llvm.getelementptr %{{.*}}[131072]
// CHECK:           %[[PACKED_B:.*]] = llvm.getelementptr %[[PACKED_A]][16384]
// CHECK:           %[[ATOMS_A:.*]] = llvm.getelementptr %[[PACKED_B]][16384]
// CHECK:           scf.for
// CHECK:             llvm.store %{{.*}}, %{{.*}} {alignment = 8 : i64} : vector<2xi32>, !llvm.ptr<3>
// CHECK-COUNT-8:     nvvm.tcgen05.cp
// CHECK-NOT:         nvvm.tcgen05.cp
// CHECK:             nvvm.tcgen05.mma.block_scale %{{.*}}, %c136316032_i32, {{.*}} {blockScale = #nvvm.tcgen05_mma_block_scale<block16>, ctaGroup = #nvvm.cta_group<cta_1>, kind = #nvvm.block_scale_kind<mxf4nvf4>}
// CHECK-COUNT-3:     nvvm.tcgen05.mma.block_scale %{{.*}}, %c136316032_i32{{(_[0-9]+)?}},
// CHECK-NEXT:        nvvm.tcgen05.commit
func.func @nvfp4(%x: tensor<64x256xf4E2M1FN>, %xs: tensor<64x16xf8E4M3FN>,
                 %w: tensor<96x256xf4E2M1FN>, %ws: tensor<6x16xf8E4M3FN>) -> tensor<64x96xf32> {
  %y = mp.scaled_matmul %x scales %xs, %w scales %ws transpose_rhs acc(f32)
      : tensor<64x256xf4E2M1FN>, tensor<64x16xf8E4M3FN>, tensor<96x256xf4E2M1FN>, tensor<6x16xf8E4M3FN> -> tensor<64x96xf32>
  return %y : tensor<64x96xf32>
}
