// Found by review of the symbols of MLIR 22.1's mpi → LLVM lowering
// (docs/Reliability.md): the lowering reuses a symbol named like what it
// declares (`MPI_Allreduce`, `MPI_Comm_rank`, ..., OpenMPI's globals
// `ompi_mpi_comm_world`, `ompi_mpi_float`, `ompi_mpi_sum`, ...) whatever its
// type, and adds a second one next to a symbol of another kind.
// mp-cpu-pipeline{grid-size=2} then failed in the pass manager's verifier
// after `convert-to-llvm{filter-dialects=mpi}` ("'llvm.call' op incorrect
// number of operands (6) for callee (expecting: 1)" for `func.func private
// @MPI_Allreduce(i32)`, "redefinition of symbol named 'ompi_mpi_comm_world'"
// for a func.func of that name), and returned success with a global of the
// wrong type (`ompi_mpi_float : i32`) or a function in place of libmpi's
// `ompi_mpi_op_sum`. mp-legalize-mpi now rejects each such symbol at the
// symbol, before convert-shard-to-mpi; a declaration of the lowering's kind
// and type (or a func.func of its signature) is reused.
// RUN: mp-opt %s -split-input-file -verify-diagnostics --mp-legalize-mpi=grid-size=2 --convert-shard-to-mpi --mp-legalize-mpi
// RUN: mp-opt %s -split-input-file -verify-diagnostics --mp-cpu-pipeline=grid-size=2
// The declarations of the right type are reused, not declared twice (the
// other cases fail and print nothing).
// RUN: not mp-opt %s -split-input-file --mp-cpu-pipeline=grid-size=2 2>/dev/null | FileCheck %s

// expected-error @+1 {{'func.func' op mp-legalize-mpi: symbol '@MPI_Allreduce' names a function that the MPI lowering to LLVM calls: it must be an llvm.func of type '!llvm.func<i32 (ptr, ptr, i32, ptr, ptr, ptr)>' (or a func.func of type '(!llvm.ptr, !llvm.ptr, i32, !llvm.ptr, !llvm.ptr, !llvm.ptr) -> i32')}}
func.func private @MPI_Allreduce(i32)
shard.grid @mp_data_parallel(shape = ?)
func.func @step(%g: tensor<4xf32>) -> tensor<4xf32> {
  %s = shard.all_reduce %g on @mp_data_parallel grid_axes = [0] : tensor<4xf32> -> tensor<4xf32>
  return %s : tensor<4xf32>
}

// -----

// A function named like an OpenMPI global.
// expected-error @+1 {{'func.func' op mp-legalize-mpi: symbol '@ompi_mpi_comm_world' names a global of libmpi that the MPI lowering to LLVM refers to: it must be an llvm.mlir.global of type '!llvm.struct<"ompi_communicator_t", opaque>'}}
func.func private @ompi_mpi_comm_world()
shard.grid @mp_data_parallel(shape = ?)
func.func @step(%g: tensor<4xf32>) -> tensor<4xf32> {
  %s = shard.all_reduce %g on @mp_data_parallel grid_axes = [0] : tensor<4xf32> -> tensor<4xf32>
  return %s : tensor<4xf32>
}

// -----

// An llvm.func of the MPICH type in an OpenMPI module, and every wrong
// symbol is reported.
// expected-error @+1 {{'llvm.func' op mp-legalize-mpi: symbol '@MPI_Comm_rank' names a function that the MPI lowering to LLVM calls: it must be an llvm.func of type '!llvm.func<i32 (ptr, ptr)>'}}
llvm.func @MPI_Comm_rank(i32, !llvm.ptr) -> i32
// expected-error @+1 {{'llvm.mlir.global' op mp-legalize-mpi: symbol '@ompi_mpi_float' names a global of libmpi that the MPI lowering to LLVM refers to: it must be an llvm.mlir.global of type '!llvm.struct<"ompi_predefined_datatype_t", opaque>'}}
llvm.mlir.global external @ompi_mpi_float() : i32
// The name renameReductionGlobals gives `ompi_mpi_sum`.
// expected-error @+1 {{'func.func' op mp-legalize-mpi: symbol '@ompi_mpi_op_sum' names a global of libmpi}}
func.func private @ompi_mpi_op_sum()
shard.grid @mp_data_parallel(shape = ?)
func.func @step(%g: tensor<4xf32>) -> tensor<4xf32> {
  %s = shard.all_reduce %g on @mp_data_parallel grid_axes = [0] : tensor<4xf32> -> tensor<4xf32>
  return %s : tensor<4xf32>
}

// -----

// mpi ops already there (no shard op): the same check.
// expected-error @+1 {{'llvm.func' op mp-legalize-mpi: symbol '@MPI_Allreduce' names a function that the MPI lowering to LLVM calls}}
llvm.func @MPI_Allreduce(!llvm.ptr, !llvm.ptr, i32, !llvm.ptr, !llvm.ptr, !llvm.ptr)
func.func @sum(%a: memref<4xf32>) {
  %world = mpi.comm_world : !mpi.comm
  mpi.allreduce(%a, %a, MPI_SUM, %world) : memref<4xf32>, memref<4xf32>
  return
}

// -----

// The MPICH ABI (a module whose dlti.map says so): integer handles, and
// OpenMPI's globals are not used.
module attributes {dlti.map = #dlti.map<"MPI:Implementation" = "MPICH">} {
  // expected-error @+1 {{'llvm.func' op mp-legalize-mpi: symbol '@MPI_Allreduce' names a function that the MPI lowering to LLVM calls: it must be an llvm.func of type '!llvm.func<i32 (ptr, ptr, i32, i32, i32, i32)>'}}
  llvm.func @MPI_Allreduce(!llvm.ptr, !llvm.ptr, i32, !llvm.ptr, !llvm.ptr, !llvm.ptr) -> i32
  llvm.mlir.global external @ompi_mpi_float() : i32
  func.func @sum(%a: memref<4xf32>) {
    %world = mpi.comm_world : !mpi.comm
    mpi.allreduce(%a, %a, MPI_SUM, %world) : memref<4xf32>, memref<4xf32>
    return
  }
}

// -----

// Declarations of the lowering's kind and type are reused: one declaration
// of each, called or referred to.
// CHECK-LABEL: module attributes
// CHECK-NOT:     @MPI_Allreduce(
// CHECK:         llvm.mlir.global external @ompi_mpi_comm_world() {addr_space = 0 : i32, user_declared} : !llvm.struct<"ompi_communicator_t", opaque>
// CHECK-NOT:     @MPI_Allreduce(
// CHECK:         llvm.func @MPI_Allreduce(!llvm.ptr, !llvm.ptr, i32, !llvm.ptr, !llvm.ptr, !llvm.ptr) -> i32 attributes {user_declared}
// CHECK-NOT:     @MPI_Allreduce(
// CHECK-LABEL:   llvm.func @step(
// CHECK:           llvm.mlir.addressof @ompi_mpi_comm_world : !llvm.ptr
// CHECK:           llvm.call @MPI_Allreduce(
// CHECK-NOT:     @MPI_Allreduce(
// CHECK-NOT:     @ompi_mpi_comm_world()
llvm.mlir.global external @ompi_mpi_comm_world() {user_declared} : !llvm.struct<"ompi_communicator_t", opaque>
llvm.func @MPI_Allreduce(!llvm.ptr, !llvm.ptr, i32, !llvm.ptr, !llvm.ptr, !llvm.ptr) -> i32 attributes {user_declared}
shard.grid @mp_data_parallel(shape = ?)
func.func @step(%g: tensor<4xf32>) -> tensor<4xf32> {
  %s = shard.all_reduce %g on @mp_data_parallel grid_axes = [0] : tensor<4xf32> -> tensor<4xf32>
  return %s : tensor<4xf32>
}

// -----

// A func.func of the signature: convert-func-to-llvm makes it the llvm.func
// before the mpi lowering, which reuses it.
// CHECK-LABEL: module attributes
// CHECK-NOT:     @MPI_Allreduce(
// CHECK:         llvm.func @MPI_Allreduce(!llvm.ptr, !llvm.ptr, i32, !llvm.ptr, !llvm.ptr, !llvm.ptr) -> i32 attributes {sym_visibility = "private", user_declared}
// CHECK-NOT:     @MPI_Allreduce(
// CHECK-LABEL:   llvm.func @step(
// CHECK:           llvm.call @MPI_Allreduce(
// CHECK-NOT:     @MPI_Allreduce(
func.func private @MPI_Allreduce(!llvm.ptr, !llvm.ptr, i32, !llvm.ptr, !llvm.ptr, !llvm.ptr) -> i32 attributes {user_declared}
shard.grid @mp_data_parallel(shape = ?)
func.func @step(%g: tensor<4xf32>) -> tensor<4xf32> {
  %s = shard.all_reduce %g on @mp_data_parallel grid_axes = [0] : tensor<4xf32> -> tensor<4xf32>
  return %s : tensor<4xf32>
}
