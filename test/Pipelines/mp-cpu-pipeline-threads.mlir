// RUN: mp-opt %s -mp-cpu-pipeline="threads=2 matmul-tile-sizes=4,16,1" | FileCheck %s
// RUN: mp-opt %s -mp-cpu-pipeline="threads=0 matmul-tile-sizes=4,16,1" | FileCheck %s --check-prefix=ALL
// RUN: mp-opt %s -mp-cpu-pipeline="matmul-tile-sizes=4,16,1" | FileCheck %s --check-prefix=ONE
// RUN: mp-opt %s -mp-cpu-pipeline="threads=2 vectorize=false" | FileCheck %s --check-prefix=LOOPS
// RUN: not mp-opt %s -mp-cpu-pipeline="threads=-1" -o /dev/null 2>&1 | FileCheck %s --check-prefix=INVALID

// mp-cpu-pipeline's `threads`: the scf.forall of the outermost parallel tile
// loops (mp-tile-and-vectorize's `parallel`) becomes an OpenMP worksharing
// loop in an omp.parallel region of the requested threads, inside the
// outlined function of its loop nest; operations of fewer than 8192
// iterations stay sequential. threads=0 leaves the number to the OpenMP
// runtime; threads=1 (the default) makes no OpenMP at all.

// A is read in place (its rows are contiguous along K): no packing copy.
// The packing of B into two panels of 16 columns (4096 iterations) is
// sequential.
// CHECK-LABEL: llvm.func @__mp_step_0(
// CHECK-NOT:     omp.
// CHECK:         llvm.intr.memcpy
// CHECK-NOT:     omp.
// CHECK:         llvm.return

// The matmul: its B panels (32 / 16) and row tiles (64 / 4) are one
// collapsed loop nest of 32 iterations, each a 4x16 tile accumulated over K
// inside, from zeros in registers (the accumulator's fill is fused into
// the tile loops: no nest of its own).
// CHECK-LABEL: llvm.func @__mp_step_1(
// CHECK-DAG:     %[[N:.*]] = llvm.mlir.constant(2 : i32) : i32
// CHECK-DAG:     llvm.mlir.constant(dense<0.000000e+00> : vector<16xf32>) : vector<16xf32>
// CHECK:         omp.parallel num_threads(%[[N]] : i32) {
// CHECK-NEXT:      omp.wsloop {
// CHECK-NEXT:        omp.loop_nest (%{{.*}}, %{{.*}}) : i64 = ({{.*}}) to ({{.*}}) step ({{.*}}) collapse(2) {
// CHECK:               llvm.fmul {{.*}} : vector<16xf32>
// CHECK:               omp.yield
// CHECK:           omp.terminator

// The 64x128 addition: 64 rows of 128 / 16 vectors, the rows shared.
// CHECK-LABEL: llvm.func @__mp_step_2(
// CHECK:         omp.parallel num_threads(
// CHECK:           omp.loop_nest (%{{.*}}) : i64 = ({{.*}}) to ({{.*}}) step ({{.*}}) {
// CHECK:             llvm.fadd {{.*}} : vector<16xf32>

// The 4x16 addition (64 iterations) runs on the calling thread.
// CHECK-LABEL: llvm.func @__mp_step_3(
// CHECK-NOT:     omp.
// CHECK:         llvm.return
// CHECK-NOT:   llvm.func @__mp_step_4(

// ALL-LABEL: llvm.func @__mp_step_1(
// ALL:         omp.parallel {
// ALL-LABEL: llvm.func @__mp_step_2(
// ALL:         omp.parallel {

// ONE-NOT: omp.

// Unvectorised, the loop nests of mp-linalg-to-loops are shared
// among the threads too: each of the matmul's 64 rows is one iteration, its
// columns and their sums over K in order inside it; the 4x16 addition stays
// on the calling thread.
// LOOPS-LABEL: llvm.func @__mp_step_1(
// LOOPS:         omp.parallel num_threads(
// LOOPS:           omp.loop_nest (%{{.*}}) : i64 = ({{.*}}) to ({{.*}}) step ({{.*}}) {
// LOOPS-LABEL: llvm.func @__mp_step_3(
// LOOPS-NOT:     omp.
// LOOPS:         llvm.return

// INVALID: for the --threads option: '-1' value invalid for uint argument!
// INVALID: error: invalid value in the options `threads=-1` of mp-cpu-pipeline

func.func @step(%a: tensor<64x128xf32>, %b: tensor<128x32xf32>,
                %c: tensor<64x128xf32>, %d: tensor<4x16xf32>)
    -> (tensor<64x32xf32>, tensor<64x128xf32>, tensor<4x16xf32>) {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<64x32xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<64x32xf32>) -> tensor<64x32xf32>
  %product = linalg.matmul ins(%a, %b : tensor<64x128xf32>, tensor<128x32xf32>)
                           outs(%init : tensor<64x32xf32>) -> tensor<64x32xf32>
  %sum = arith.addf %a, %c : tensor<64x128xf32>
  %small = arith.addf %d, %d : tensor<4x16xf32>
  return %product, %sum, %small : tensor<64x32xf32>, tensor<64x128xf32>, tensor<4x16xf32>
}
