// RUN: mp-opt %s --convert-mp-to-nvvm="chip=sm_90a" | FileCheck %s
// RUN: mp-opt %s --convert-mp-to-nvvm="chip=sm_90a stmatrix-epilogue=false" | FileCheck %s --check-prefix=OFF

// The stmatrix epilogue of the wgmma kernels (f32 accumulator, bf16/f16
// result): per 64 columns, each consumer warp rounds its values (bias,
// result type, fused activation), writes 4 stmatrix.x4 of packed column
// pairs into its staging tile (after the 4 stages and 64 bytes of
// mbarriers: 4 * 49152 + 64 = 196672; 8 warps * 16 rows * 144 bytes =
// 18432 more), bar.warp.sync, stores 4 rows of 16 bytes per lane with one
// vector store where 8 columns lie inside C and N is a multiple of 8
// (element stores otherwise), bar.warp.sync.

// CHECK:       gpu.func @mp_tc_sm90a_wgmma_tma_bf16k_bf16k_accf32_outbf16_128x256x64_s4_bias_relu(
// CHECK-SAME:    epilogue = "stmatrix"
// CHECK-SAME:    shared_memory_bytes = 215104 : i64
// CHECK:         nvvm.wgmma.wait.group.sync.aligned 0
// CHECK:         arith.addf
// CHECK:         arith.maximumf
// CHECK:         arith.truncf %{{.*}} : f32 to bf16
// CHECK:         arith.bitcast %{{.*}} : bf16 to i16
// CHECK-COUNT-4: nvvm.stmatrix %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>} : !llvm.ptr<3>, i32, i32, i32, i32
// CHECK:         nvvm.bar.warp.sync %{{.*}} : i32
// CHECK:         llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xi32>
// CHECK:         llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<4xi32>, !llvm.ptr<1>
// CHECK:         llvm.store %{{.*}}, %{{.*}} : i16, !llvm.ptr<1>
// CHECK:         nvvm.bar.warp.sync
// 4 chunks of 64 columns.
// CHECK-COUNT-12: nvvm.stmatrix
// CHECK-NOT:     nvvm.stmatrix

// An f32 result keeps the per-element epilogue.
// CHECK:       gpu.func @mp_tc_sm90a_wgmma_tma_bf16k_bf16k_accf32_outf32_128x256x64_s4(
// CHECK-SAME:    epilogue = "per-element"
// CHECK-SAME:    shared_memory_bytes = 196672 : i64
// CHECK-NOT:     nvvm.stmatrix
// CHECK:         llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr<1>

// OFF:         gpu.func @mp_tc_sm90a_wgmma_tma_bf16k_bf16k_accf32_outbf16_128x256x64_s4_bias_relu(
// OFF-SAME:      epilogue = "per-element"
// OFF-SAME:      shared_memory_bytes = 196672 : i64
// OFF-NOT:       nvvm.stmatrix
// OFF:           llvm.store %{{.*}}, %{{.*}} : bf16, !llvm.ptr<1>
func.func @linear(%x: tensor<64x128xbf16>, %w: tensor<96x128xbf16>, %b: tensor<96xbf16>) -> tensor<64x96xbf16> {
  %y = mp.linear %x, %w, %b acc(f32) : (tensor<64x128xbf16>, tensor<96x128xbf16>, tensor<96xbf16>) -> tensor<64x96xbf16>
  %r = mp.relu %y : tensor<64x96xbf16>
  return %r : tensor<64x96xbf16>
}

func.func @f32_result(%x: tensor<64x128xbf16>, %w: tensor<96x128xbf16>) -> tensor<64x96xf32> {
  %y = mp.matmul %x, %w transpose_rhs acc(f32) : tensor<64x128xbf16>, tensor<96x128xbf16> -> tensor<64x96xf32>
  return %y : tensor<64x96xf32>
}
