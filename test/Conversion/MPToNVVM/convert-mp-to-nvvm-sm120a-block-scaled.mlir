// RUN: mp-opt %s -split-input-file --convert-mp-to-nvvm="chip=sm_120a" | FileCheck %s
// RUN: mp-opt %s -split-input-file --convert-mp-to-nvvm="chip=sm_90a" | FileCheck %s --check-prefix=CPU

// mp.scaled_matmul on sm_120a: a block-scaled mma.sync kernel whose launcher
// takes A, B, C, then the scales of A and B (one byte each; the launcher
// copies K/16 · M and K/16 · N bytes for NVFP4). Per m16n8 tile and k64
// step one nvvm.mma.block_scale kind::mxf4nvf4 x4 ue4m3 with byte-id and
// thread-id 0. Before the K loop's barrier the block copies the slice's
// scales into shared memory: per row of A or B, four ld.global of
// consecutive K blocks (0x38, E4M3 1.0, outside the matrix) and four byte
// stores; each scale vector of an mma is then one shared-memory load. On chips without block-scaled MMAs
// the op stays for the CPU lowering (sm_100a:
// convert-mp-to-nvvm-sm100a-block-scaled.mlir).

// CHECK-LABEL: func.func @nvfp4(
// CHECK-SAME:    %[[X:.*]]: tensor<64x128xf4E2M1FN>, %[[XS:.*]]: tensor<64x8xf8E4M3FN>, %[[W:.*]]: tensor<96x128xf4E2M1FN>, %[[WS:.*]]: tensor<96x8xf8E4M3FN>)
// CHECK:         bufferization.to_buffer %[[X]] read_only : tensor<64x128xf4E2M1FN> to memref<64x128xf4E2M1FN>
// CHECK:         %[[A:.*]] = llvm.inttoptr
// CHECK:         bufferization.to_buffer %[[W]] read_only
// CHECK:         %[[B:.*]] = llvm.inttoptr
// CHECK:         memref.alloc() {alignment = 64 : i64} : memref<64x96xbf16>
// CHECK:         %[[C:.*]] = llvm.inttoptr
// CHECK:         bufferization.to_buffer %[[XS]] read_only : tensor<64x8xf8E4M3FN> to memref<64x8xf8E4M3FN>
// CHECK:         %[[SA:.*]] = llvm.inttoptr
// CHECK:         bufferization.to_buffer %[[WS]] read_only
// CHECK:         %[[SB:.*]] = llvm.inttoptr
// CHECK:         llvm.call @mp_tc_sm120a_mma_e2m1k_e2m1k_accf32_outbf16_128x128x64_w64x32_s3_mxf4nvf4_ue4m3x16_launch(%[[A]], %[[B]], %[[C]], %[[SA]], %[[SB]], %c1_i64, %c64_i64, %c96_i64, %c128_i64)
// CHECK-NOT:     mp.scaled_matmul
// CHECK:       gpu.module @mp_tensor_core_kernels [#nvvm.target<O = 3, chip = "sm_120a", features = "+ptx87">]
// CHECK:         gpu.func @mp_tc_sm120a_mma_e2m1k_e2m1k_accf32_outbf16_128x128x64_w64x32_s3_mxf4nvf4_ue4m3x16(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: i64) kernel
// CHECK-SAME:      block_scale = "mxf4nvf4"
// CHECK-SAME:      lhs_format = "e2m1"
// CHECK-SAME:      scale_block = array<i64: 1, 1, 16>, scale_format = "ue4m3"
// CHECK:           scf.for
// CHECK:             arith.constant 56 : i8
// CHECK-COUNT-4:     llvm.load %{{.*}} : !llvm.ptr<1> -> i8
// CHECK-COUNT-4:     llvm.store %{{.*}}, %{{.*}} : i8, !llvm.ptr<3>
// CHECK:             nvvm.barrier0
// CHECK:             nvvm.mma.block_scale A[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] B[%{{.*}}, %{{.*}}] C[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] scaleA[%{{.*}}, %[[ID:.*]], %[[ID]]] scaleB[%{{.*}}, %[[ID]], %[[ID]]] {blockScaleFormat = #nvvm.block_scale_format<ue4m3>, kind = #nvvm.block_scale_kind<mxf4nvf4>, multiplicandAPtxType = #nvvm.mma_type<e2m1>, multiplicandBPtxType = #nvvm.mma_type<e2m1>, scaleVecSize = #nvvm.scale_vec_size<x4>, shape = #nvvm.shape<m = 16, n = 8, k = 64>} : (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
// CHECK-COUNT-15:    nvvm.mma.block_scale
// CHECK-NOT:         nvvm.mma.block_scale
// CHECK:           scf.yield
// CHECK:       llvm.func internal @mp_tc_sm120a_mma_e2m1k_e2m1k_accf32_outbf16_128x128x64_w64x32_s3_mxf4nvf4_ue4m3x16_launch(
// CHECK:         %[[K16:.*]] = llvm.udiv %arg8, %{{.*}} : i64
// CHECK:         llvm.mul %{{.*}}, %[[K16]] : i64
// CHECK:         llvm.mul %{{.*}}, %[[K16]] : i64
// CHECK-COUNT-5: llvm.call @mgpuMemAlloc
// CHECK:         gpu.launch_func

// CPU-LABEL: func.func @nvfp4(
// CPU:         mp.scaled_matmul
// CPU-NOT:     gpu.module
func.func @nvfp4(%x: tensor<64x128xf4E2M1FN>, %xs: tensor<64x8xf8E4M3FN>,
                 %w: tensor<96x128xf4E2M1FN>, %ws: tensor<96x8xf8E4M3FN>) -> tensor<64x96xbf16> {
  %y = mp.scaled_matmul %x scales %xs, %w scales %ws transpose_rhs acc(f32)
      : tensor<64x128xf4E2M1FN>, tensor<64x8xf8E4M3FN>, tensor<96x128xf4E2M1FN>, tensor<96x8xf8E4M3FN> -> tensor<64x96xbf16>
  return %y : tensor<64x96xbf16>
}

// -----

// MXFP8 with E4M3 x E5M2 (kind::mxf8f6f4, k32: two steps per 64-element
// slice), 32x32 scale tiles on B (scale row = column / 32), a fused ReLU;
// FP8 bytes go to the mma unchanged, E8M0 1.0 (127) outside the matrix.

// CHECK-LABEL: func.func @mxfp8_tiles(
// CHECK:         llvm.call @mp_tc_sm120a_mma_e4m3k_e5m2k_accf32_outbf16_128x128x64_w64x32_s3_relu_mxf8f6f4_ue8m0x32_tiles1x32_launch(
// CHECK-NOT:     mp.relu
// CHECK:       gpu.func @mp_tc_sm120a_mma_e4m3k_e5m2k_accf32_outbf16_128x128x64_w64x32_s3_relu_mxf8f6f4_ue8m0x32_tiles1x32(
// CHECK-SAME:      scale_block = array<i64: 1, 32, 32>, scale_format = "ue8m0"
// CHECK:           arith.constant 127 : i8
// CHECK:           nvvm.mma.block_scale {{.*}} {blockScaleFormat = #nvvm.block_scale_format<ue8m0>, kind = #nvvm.block_scale_kind<mxf8f6f4>, multiplicandAPtxType = #nvvm.mma_type<e4m3>, multiplicandBPtxType = #nvvm.mma_type<e5m2>, scaleVecSize = #nvvm.scale_vec_size<x1>, shape = #nvvm.shape<m = 16, n = 8, k = 32>}
// CHECK-COUNT-31:  nvvm.mma.block_scale
// CHECK-NOT:       nvvm.mma.block_scale
// CHECK:           scf.yield
func.func @mxfp8_tiles(%x: tensor<64x128xf8E4M3FN>, %xs: tensor<64x4xf8E8M0FNU>,
                       %w: tensor<96x128xf8E5M2>, %ws: tensor<3x4xf8E8M0FNU>) -> tensor<64x96xbf16> {
  %y = mp.scaled_matmul %x scales %xs, %w scales %ws transpose_rhs acc(f32)
      : tensor<64x128xf8E4M3FN>, tensor<64x4xf8E8M0FNU>, tensor<96x128xf8E5M2>, tensor<3x4xf8E8M0FNU> -> tensor<64x96xbf16>
  %r = mp.relu %y : tensor<64x96xbf16>
  return %r : tensor<64x96xbf16>
}

// -----

// FP4 x FP8 through kind::mxf8f6f4: E2M1 moved into bits 2..5 of its 8-bit
// container ((w & 0x0F0F0F0F) << 2), FP6 masked to bits 0..5.

// CHECK-LABEL: gpu.func @mp_tc_sm120a_mma_e2m1k_e2m3k_accf32_outf32_128x128x64_w64x32_s3_mxf8f6f4_ue8m0x32(
// CHECK:           %[[LOW:.*]] = arith.andi %{{.*}}, %c252645135_i32{{.*}} : i32
// CHECK-NEXT:      arith.constant 2 : i32
// CHECK-NEXT:      arith.shli %[[LOW]], %c2_i32{{.*}} : i32
// CHECK:           arith.andi %{{.*}}, %c1061109567_i32{{.*}} : i32
// CHECK:           nvvm.mma.block_scale {{.*}} multiplicandAPtxType = #nvvm.mma_type<e2m1>, multiplicandBPtxType = #nvvm.mma_type<e2m3>
func.func @fp4_fp6(%x: tensor<64x128xf4E2M1FN>, %xs: tensor<64x4xf8E8M0FNU>,
                   %w: tensor<96x128xf6E2M3FN>, %ws: tensor<96x4xf8E8M0FNU>) -> tensor<64x96xf32> {
  %y = mp.scaled_matmul %x scales %xs, %w scales %ws transpose_rhs acc(f32)
      : tensor<64x128xf4E2M1FN>, tensor<64x4xf8E8M0FNU>, tensor<96x128xf6E2M3FN>, tensor<96x4xf8E8M0FNU> -> tensor<64x96xf32>
  return %y : tensor<64x96xf32>
}
