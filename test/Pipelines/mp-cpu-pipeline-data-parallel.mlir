// A data-parallel train step through mp-cpu-pipeline: shard.all_reduce →
// convert-shard-to-mpi → mpi → LLVM calls into OpenMPI, with the fixes of
// mp-legalize-mpi (docs/DataParallel.md).
// RUN: mp-opt %s --pass-pipeline='builtin.module(mp-mixed-precision-pipeline{compute-type=f16 data-parallel=true reduce-type=bf16},mp-cpu-pipeline{grid-size=2})' | FileCheck %s --check-prefix=BF16
// RUN: mp-opt %s --pass-pipeline='builtin.module(mp-mixed-precision-pipeline{compute-type=f16 data-parallel=true},mp-cpu-pipeline{grid-size=2})' | FileCheck %s --check-prefix=F32
// The result translates to LLVM IR (no shard.grid or mpi op is left).
// RUN: mp-opt %s --pass-pipeline='builtin.module(mp-mixed-precision-pipeline{compute-type=f16 data-parallel=true},mp-cpu-pipeline{grid-size=2})' | mlir-translate --mlir-to-llvmir | FileCheck %s --check-prefix=LLVM
// The grid's size must be known when the step is lowered.
// RUN: not mp-opt %s --pass-pipeline='builtin.module(mp-mixed-precision-pipeline{compute-type=f16 data-parallel=true},mp-cpu-pipeline)' 2>&1 | FileCheck %s --check-prefix=NOSIZE

func.func @step(%w: tensor<4x3xf32> {mp.param}, %x: tensor<2x3xf32>,
                %y: tensor<2xi64>)
    -> (tensor<f32> {mp.loss}, tensor<4x3xf32> {mp.updates = 0 : i64}) {
  %l = mp.linear %x, %w acc(f32)
      : (tensor<2x3xf32>, tensor<4x3xf32>) -> tensor<2x4xf32>
  %loss = mp.cross_entropy %l, %y : tensor<2x4xf32>, tensor<2xi64>
  %g = mp.grad %loss wrt %w : tensor<f32>, tensor<4x3xf32>
  %w1 = mp.sgd %w, %g {lr = 0.1 : f64} : tensor<4x3xf32>
  return %loss, %w1 : tensor<f32>, tensor<4x3xf32>
}

// bf16: the gradient through the runtime shim, the found_inf flag (i32 max)
// and the loss (f32 sum) through MPI_Allreduce on MPI_COMM_WORLD, with
// libmpi's names of the reduction ops.
// BF16:     module attributes {dlti.map = #dlti.map<"MPI:Implementation" = "OpenMPI">}
// BF16-DAG: llvm.mlir.global external @ompi_mpi_op_sum()
// BF16-DAG: llvm.mlir.global external @ompi_mpi_op_max()
// BF16-DAG: llvm.mlir.global external @ompi_mpi_int32_t()
// BF16-DAG: llvm.mlir.global external @ompi_mpi_float()
// BF16-DAG: llvm.mlir.global external @ompi_mpi_comm_world()
// BF16-DAG: llvm.func @MPI_Allreduce(!llvm.ptr, !llvm.ptr, i32, !llvm.ptr, !llvm.ptr, !llvm.ptr) -> i32
// BF16-DAG: llvm.func @mp_mpi_allreduce_sum_bf16(i64, i64)
// BF16-LABEL: llvm.func @step(
// BF16-NOT: llvm.func @
// BF16:     llvm.call @mp_mpi_allreduce_sum_bf16(%{{.*}}, %{{.*}}) : (i64, i64) -> ()
// BF16-NOT: llvm.func @
// BF16:     llvm.call @MPI_Allreduce(
// BF16-NOT: llvm.func @
// BF16:     llvm.call @MPI_Allreduce(
// BF16-NOT: mpi.
// BF16-NOT: shard.
// BF16-NOT: @ompi_mpi_sum
// BF16-NOT: @ompi_mpi_max

// f32: three MPI_Allreduce calls (gradient, flag, loss), no shim.
// F32-NOT:  mp_mpi_allreduce
// F32-LABEL: llvm.func @step(
// F32-COUNT-3: llvm.call @MPI_Allreduce(
// F32-NOT:  llvm.call @MPI_Allreduce(
// F32-LABEL: llvm.func @_mlir_ciface_step(

// LLVM-DAG: @ompi_mpi_op_sum = external global %ompi_predefined_op_t
// LLVM-DAG: @ompi_mpi_op_max = external global %ompi_predefined_op_t
// LLVM-DAG: @ompi_mpi_comm_world = external global %ompi_communicator_t
// LLVM:     call i32 @MPI_Allreduce(

// NOSIZE: error: mp-legalize-mpi: the size of grid '@mp_data_parallel' is not known: give it with grid-size=N
