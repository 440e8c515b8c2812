// RUN: mp-opt %s --convert-mp-to-nvvm="chip=sm_89" | FileCheck %s

// FP8 on sm_89: mma.sync m16n8k32 through the LLVM intrinsic of each pairing
// (nvvm.mma.sync rejects FP8 in MLIR 22), which needs PTX ISA 8.4. K slices
// are 64 bytes = 64 elements; an M-contiguous A (the gradient of a weight,
// dW = dYᵀ X, HYBRID: e5m2 gradients × e4m3 activations) is read byte by byte.

// CHECK:       gpu.module @mp_tensor_core_kernels [#nvvm.target<O = 3, chip = "sm_89", features = "+ptx84">]

// CHECK:       gpu.func @mp_tc_sm89_mma_e4m3k_e4m3k_accf32_outbf16_128x128x64_w64x32_s3(
// CHECK:         scf.for
// CHECK-COUNT-6:   nvvm.ldmatrix
// CHECK:           llvm.call_intrinsic "llvm.nvvm.mma.m16n8k32.row.col.f32.e4m3.e4m3.f32"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : (i32, i32, i32, i32, i32, i32, f32, f32, f32, f32) -> !llvm.struct<(f32, f32, f32, f32)>

// CHECK:       gpu.func @mp_tc_sm89_mma_e4m3k_e5m2k_accf32_outf32_128x128x64_w64x32_s3(
// CHECK:         llvm.call_intrinsic "llvm.nvvm.mma.m16n8k32.row.col.f32.e4m3.e5m2.f32"

// CHECK:       gpu.func @mp_tc_sm89_mma_e5m2m_e4m3n_accf32_outf32_128x128x64_w64x32_s3(
// CHECK:         scf.for
// CHECK:           llvm.load %{{.*}} : !llvm.ptr<3> -> i8
// CHECK:           llvm.call_intrinsic "llvm.nvvm.mma.m16n8k32.row.col.f32.e5m2.e4m3.f32"

// CHECK:       gpu.func @mp_tc_sm89_mma_e5m2k_e5m2k_accf32_outf16_128x128x64_w64x32_s3(
// CHECK:         llvm.call_intrinsic "llvm.nvvm.mma.m16n8k32.row.col.f32.e5m2.e5m2.f32"

// The other formats run on sm_89 as on sm_80.
// CHECK:       gpu.func @mp_tc_sm89_mma_bf16k_bf16k_accf32_outbf16_128x128x32_w64x32_s3(
// CHECK:         nvvm.mma.sync {{.*}}multiplicandAPtxType = #nvvm.mma_type<bf16>
func.func @fp8(%x: tensor<64x128xf8E4M3FN>, %w: tensor<96x128xf8E4M3FN>,
               %gw: tensor<96x128xf8E5M2>, %dy: tensor<64x96xf8E5M2>,
               %gv: tensor<48x96xf8E5M2>,
               %xb: tensor<64x128xbf16>, %wb: tensor<96x128xbf16>)
    -> (tensor<64x96xbf16>, tensor<64x96xf32>, tensor<96x128xf32>, tensor<64x48xf16>,
        tensor<64x96xbf16>) {
  %y = mp.linear %x, %w acc(f32)
      : (tensor<64x128xf8E4M3FN>, tensor<96x128xf8E4M3FN>) -> tensor<64x96xbf16>
  %h = mp.matmul %x, %gw transpose_rhs acc(f32)
      : tensor<64x128xf8E4M3FN>, tensor<96x128xf8E5M2> -> tensor<64x96xf32>
  %dw = mp.matmul %dy, %x transpose_lhs acc(f32)
      : tensor<64x96xf8E5M2>, tensor<64x128xf8E4M3FN> -> tensor<96x128xf32>
  %g = mp.matmul %dy, %gv transpose_rhs acc(f32)
      : tensor<64x96xf8E5M2>, tensor<48x96xf8E5M2> -> tensor<64x48xf16>
  %b = mp.linear %xb, %wb acc(f32)
      : (tensor<64x128xbf16>, tensor<96x128xbf16>) -> tensor<64x96xbf16>
  return %y, %h, %dw, %g, %b
      : tensor<64x96xbf16>, tensor<64x96xf32>, tensor<96x128xf32>, tensor<64x48xf16>,
        tensor<64x96xbf16>
}
