// RUN: mp-opt %s -mp-cpu-pipeline="matmul-tile-sizes=4,16,1" | FileCheck %s
// RUN: mp-opt %s -mp-cpu-pipeline="vectorize=false" | FileCheck %s --check-prefix=LOOPS
// RUN: mp-opt %s -mp-cpu-pipeline="matmul-tile-sizes=2,8,1 tile-sizes=4,16" | FileCheck %s --check-prefix=SIZES

// mp-cpu-pipeline lowers an mp train step (after the mixed-precision passes:
// here an f16 linear layer, its explicit backward and SGD) to the LLVM
// dialect: everything is an llvm op; every loop nest is a private noinline
// function of its own (__mp_step_N), called from the step in order; the
// step takes its 4 arguments and then one out-parameter per result as
// memref descriptors, and gets a C wrapper `_mlir_ciface_step` taking one
// descriptor pointer each; its train-step contract is recorded in
// mp.signature on both.

// CHECK-NOT: func.func
// The f16 rounding of the forward survives as a conversion to half; the
// contractions multiply and add rows of 16 as separate operations (no FMA,
// so the bits are those of the scalar loops).
// CHECK:         llvm.func @__mp_step_0(
// CHECK-SAME:      attributes {passthrough = ["noinline"], sym_visibility = "private"}
// CHECK:         llvm.fptrunc %{{.*}} : vector<{{[0-9]+}}xf32> to vector<{{[0-9]+}}xf16>
// CHECK:         llvm.fmul %{{.*}} : vector<16xf32>
// CHECK:         llvm.fadd %{{.*}} : vector<16xf32>
// CHECK-NOT:     llvm.intr.fmuladd
// The step itself is inlined into its C interface, so that no call passes
// every descriptor field (lib/Pipelines/InlineCInterfaceCallees.cpp); the
// outlined loop nests are not.
// CHECK-LABEL: llvm.func @step(
// CHECK-SAME:    attributes {always_inline, llvm.emit_c_interface, mp.signature = {
// CHECK-SAME:      arg_attrs = [{mp.param}, {}, {}, {}],
// CHECK-SAME:      function_type = (tensor<16x64xf32>, tensor<8x64xf32>, tensor<8x16xf32>, tensor<f32>) -> (tensor<f32>, tensor<16x64xf32>),
// CHECK-SAME:      res_attrs = [{mp.loss}, {mp.updates = 0 : i64}]}}
// CHECK:         llvm.call @__mp_step_0(
// CHECK:         llvm.call @__mp_step_1(
// CHECK-LABEL: llvm.func @_mlir_ciface_step(
// CHECK-SAME:    %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr)
// CHECK-SAME:    attributes {llvm.emit_c_interface, mp.signature =
// CHECK:         llvm.call @step(
// CHECK-NOT: memref.
// CHECK-NOT: vector.
// CHECK-NOT: linalg.
// CHECK-NOT: scf.
// CHECK-NOT: mp.{{[a-z_]+}} %

// Without vectorisation the code is scalar loops.
// LOOPS-NOT: vector<
// LOOPS: llvm.fptrunc %{{.*}} : f32 to f16
// LOOPS-LABEL: llvm.func @step(
// LOOPS-LABEL: llvm.func @_mlir_ciface_step(

// SIZES: llvm.fmul %{{.*}} : vector<8xf32>
// SIZES-LABEL: llvm.func @step(

func.func @step(%w: tensor<16x64xf32> {mp.param}, %x: tensor<8x64xf32>,
                %dy: tensor<8x16xf32>, %lr: tensor<f32>)
    -> (tensor<f32> {mp.loss}, tensor<16x64xf32> {mp.updates = 0 : i64}) {
  %wh = mp.cast %w : tensor<16x64xf32> to tensor<16x64xf16>
  %xh = mp.cast %x : tensor<8x64xf32> to tensor<8x64xf16>
  %y = mp.linear %xh, %wh acc(f32)
      : (tensor<8x64xf16>, tensor<16x64xf16>) -> tensor<8x16xf16>
  %y32 = mp.cast %y : tensor<8x16xf16> to tensor<8x16xf32>
  %prod = mp.mul %y32, %dy : tensor<8x16xf32>, tensor<8x16xf32>
  %loss = mp.reduce_sum %prod dims [0, 1] : tensor<8x16xf32>
  %dw = mp.matmul %dy, %x transpose_lhs acc(f32)
      : tensor<8x16xf32>, tensor<8x64xf32> -> tensor<16x64xf32>
  %step = mp.scale %dw by %lr : tensor<16x64xf32>
  %w1 = mp.sub %w, %step : tensor<16x64xf32>, tensor<16x64xf32>
  return %loss, %w1 : tensor<f32>, tensor<16x64xf32>
}
