// RUN: mp-opt %s -mp-cpu-pipeline="bf16-dot-products=true" --mlir-print-ir-before=mp-drop-fusion-barriers -o %t 2>&1 | FileCheck %s --check-prefix=BARRIERS
// RUN: FileCheck %s --input-file=%t --implicit-check-not=memcpy --implicit-check-not=memrefCopy
// RUN: mp-opt %s -mp-cpu-pipeline="bf16-dot-products=false" | FileCheck %s --implicit-check-not=memcpy --implicit-check-not=memrefCopy
// RUN: mp-opt %s -mp-cpu-pipeline="bf16-dot-products=true threads=2" | FileCheck %s --implicit-check-not=memcpy --implicit-check-not=memrefCopy

// mp-cpu-pipeline copies no tensor that only one op reads: the fusion
// barriers of convert-mp-to-linalg (the bf16 convolution's filter widened
// to [KH, KW, C, F], the filter gradient's transposed dY) are gone before
// bufferization, and mp-bf16-dot-products' convolution writes its blocks
// into the result in place. So the lowered step has no memcpy.

// BARRIERS-COUNT-2: bufferization.alloc_tensor() copy({{.*}}) {mp.fusion_barrier}
// BARRIERS-NOT: bufferization.alloc_tensor() copy

// CHECK: llvm.func @step(
// CHECK: llvm.func @_mlir_ciface_step(
func.func @step(%x: tensor<2x16x8x8xbf16>, %w: tensor<16x16x3x3xbf16>,
                %dy: tensor<2x16x8x8xf32>, %xf: tensor<2x16x8x8xf32>)
    -> (tensor<2x16x8x8xf32>, tensor<16x16x3x3xf32>) {
  %y = mp.conv2d %x, %w acc(f32) {padding = array<i64: 1, 1>} : (tensor<2x16x8x8xbf16>, tensor<16x16x3x3xbf16>) -> tensor<2x16x8x8xf32>
  %g = mp.conv2d_grad_filter %dy, %xf acc(f32) {padding = array<i64: 1, 1>} : (tensor<2x16x8x8xf32>, tensor<2x16x8x8xf32>) -> tensor<16x16x3x3xf32>
  return %y, %g : tensor<2x16x8x8xf32>, tensor<16x16x3x3xf32>
}
