// RUN: mp-opt %s -mp-cpu-pipeline="bf16-dot-products=true" --mlir-print-ir-before=one-shot-bufferize -o %t 2>&1 | FileCheck %s --check-prefix=FILLS
// RUN: FileCheck %s --input-file=%t --implicit-check-not=memcpy --implicit-check-not=memrefCopy
// RUN: mp-opt %s -mp-cpu-pipeline="bf16-dot-products=true threads=2" --mlir-print-ir-before=one-shot-bufferize 2>&1 -o /dev/null | FileCheck %s --check-prefix=FILLS

// Two bf16 projections of one shape (an attention block's q and k, split
// into heads): CSE shares their zero accumulator (tiled: a loop nest
// writing zeros), which only the guarded kernels' fallbacks read, through
// a reshape of each. mp-rematerialize-fills gives each fallback its own
// fill and drops the shared one with the reshapes nothing reads any more;
// control-flow-sink moves each clone into its else branch, so the kernels'
// path fills nothing, and the lowered step copies nothing (on two threads
// the guard's parallel partial reductions copy 128 bytes each; the fills
// are sunk the same way).

// FILLS-LABEL: func.func @step(
// FILLS-NOT:     vector.transfer_write %cst{{.*}} : vector<16xf32>, tensor<1x1x1x16xf32>
// FILLS:         scf.if
// FILLS-NOT:     vector.transfer_write %cst{{.*}} : vector<16xf32>, tensor<1x1x1x16xf32>
// FILLS:         } else {
// FILLS:           vector.transfer_write %cst{{.*}} : vector<16xf32>, tensor<1x1x1x16xf32>
// FILLS-NOT:     vector.transfer_write %cst{{.*}} : vector<16xf32>, tensor<1x1x1x16xf32>
// FILLS:         scf.if
// FILLS-NOT:     vector.transfer_write %cst{{.*}} : vector<16xf32>, tensor<1x1x1x16xf32>
// FILLS:         } else {
// FILLS:           vector.transfer_write %cst{{.*}} : vector<16xf32>, tensor<1x1x1x16xf32>
// FILLS-NOT:     vector.transfer_write %cst{{.*}} : vector<16xf32>, tensor<1x1x1x16xf32>
// FILLS:         return

// CHECK: llvm.func @step(
// CHECK: llvm.func @_mlir_ciface_step(
func.func @step(%x: tensor<8x16x256xbf16>, %wq: tensor<256x256xbf16>, %wk: tensor<256x256xbf16>) -> tensor<8x16x4x64xf32> {
  %x2 = mp.reshape %x : tensor<8x16x256xbf16> to tensor<128x256xbf16>
  %q = mp.matmul %x2, %wq transpose_rhs acc(f32) : tensor<128x256xbf16>, tensor<256x256xbf16> -> tensor<128x256xf32>
  %k = mp.matmul %x2, %wk transpose_rhs acc(f32) : tensor<128x256xbf16>, tensor<256x256xbf16> -> tensor<128x256xf32>
  %q4 = mp.reshape %q : tensor<128x256xf32> to tensor<8x16x4x64xf32>
  %k4 = mp.reshape %k : tensor<128x256xf32> to tensor<8x16x4x64xf32>
  %s = mp.add %q4, %k4 : tensor<8x16x4x64xf32>, tensor<8x16x4x64xf32>
  return %s : tensor<8x16x4x64xf32>
}
