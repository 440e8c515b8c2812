// RUN: mp-opt %s -split-input-file --mp-legalize-mpi='grid-size=2' | FileCheck %s --check-prefix=SIZE
// RUN: mp-opt %s -split-input-file --mp-legalize-mpi='grid-size=2' --convert-shard-to-mpi --mp-legalize-mpi | FileCheck %s --check-prefix=MPI

// What mp-data-parallel emits (reduce-type=bf16, grid sized at run time).
shard.grid @mp_data_parallel(shape = ?)
func.func @step(%g: tensor<4xf32>, %inf: tensor<i32>, %l: tensor<f32>)
    -> (tensor<4xf32>, tensor<i32>, tensor<f32>, index) {
  %n = shard.grid_shape @mp_data_parallel axes = [0] : index
  %h = mp.cast %g : tensor<4xf32> to tensor<4xbf16>
  %s = shard.all_reduce %h on @mp_data_parallel grid_axes = [0] : tensor<4xbf16> -> tensor<4xbf16>
  %r = mp.cast %s : tensor<4xbf16> to tensor<4xf32>
  %any = shard.all_reduce %inf on @mp_data_parallel grid_axes = [0] reduction = max : tensor<i32> -> tensor<i32>
  %ls = shard.all_reduce %l on @mp_data_parallel grid_axes = [0] : tensor<f32> -> tensor<f32>
  return %r, %any, %ls, %n : tensor<4xf32>, tensor<i32>, tensor<f32>, index
}

// The grid gets its size, shard.grid_shape a constant, the module the
// OpenMPI ABI.
// SIZE:      module attributes {dlti.map = #dlti.map<"MPI:Implementation" = "OpenMPI">}
// SIZE:      shard.grid @mp_data_parallel(shape = 2)
// SIZE:      %[[N:.*]] = arith.constant 2 : index
// SIZE-NOT:  shard.grid_shape
// SIZE:      return %{{.*}}, %{{.*}}, %{{.*}}, %[[N]]

// After convert-shard-to-mpi: no comm_split (comm_world itself), the bf16
// sum is a call of the runtime shim on the buffer's address, the 0-d
// buffers are all-reduced as memref<1x...>, and the grid is gone.
// MPI-NOT:   shard.grid
// MPI:       func.func private @mp_mpi_allreduce_sum_bf16(i64, i64)
// MPI-LABEL: func.func @step
// MPI-NOT:   mpi.comm_split
// MPI:       %[[BUF:.*]] = memref.alloc() : memref<4xbf16>
// MPI:       %[[BASE:.*]] = memref.extract_aligned_pointer_as_index %[[BUF]] : memref<4xbf16> -> index
// MPI:       %{{.*}}, %[[OFFSET:.*]], %{{.*}}, %{{.*}} = memref.extract_strided_metadata %[[BUF]]
// MPI:       %[[BYTES:.*]] = arith.muli %[[OFFSET]], %{{.*}} : index
// MPI:       %[[ADDRESS:.*]] = arith.addi %[[BASE]], %[[BYTES]] : index
// MPI:       %[[ADDRESS64:.*]] = arith.index_cast %[[ADDRESS]] : index to i64
// MPI:       %[[COUNT:.*]] = arith.constant 4 : i64
// MPI:       call @mp_mpi_allreduce_sum_bf16(%[[ADDRESS64]], %[[COUNT]]) : (i64, i64) -> ()
// MPI:       %[[FLAG:.*]] = memref.expand_shape %{{.*}} [] output_shape [1] : memref<i32> into memref<1xi32>
// MPI:       mpi.allreduce(%[[FLAG]], %[[FLAG]], MPI_MAX, %{{.*}}) : memref<1xi32>, memref<1xi32>
// MPI:       %[[LOSS:.*]] = memref.expand_shape %{{.*}} [] output_shape [1] : memref<f32> into memref<1xf32>
// MPI:       mpi.allreduce(%[[LOSS]], %[[LOSS]], MPI_SUM, %{{.*}}) : memref<1xf32>, memref<1xf32>
// MPI-NOT:   mpi.comm_split

// -----

// A module without shard or mpi ops is left exactly as it is.
// SIZE:      module {
// SIZE-NEXT:   func.func @plain
// MPI-LABEL:  func.func @plain
func.func @plain(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}

// -----

// After the LLVM lowering: the reduction-op globals become libmpi's names.
// SIZE: llvm.mlir.global external @ompi_mpi_op_sum() {addr_space = 0 : i32} : !llvm.struct<"ompi_predefined_op_t", opaque>
// SIZE: llvm.mlir.global external @ompi_mpi_op_max()
// SIZE: llvm.mlir.addressof @ompi_mpi_op_sum : !llvm.ptr
// SIZE: llvm.mlir.addressof @ompi_mpi_op_max : !llvm.ptr
module attributes {dlti.map = #dlti.map<"MPI:Implementation" = "OpenMPI">} {
  llvm.mlir.global external @ompi_mpi_sum() {addr_space = 0 : i32} : !llvm.struct<"ompi_predefined_op_t", opaque>
  llvm.mlir.global external @ompi_mpi_max() {addr_space = 0 : i32} : !llvm.struct<"ompi_predefined_op_t", opaque>
  llvm.func @MPI_Allreduce(!llvm.ptr, !llvm.ptr, i32, !llvm.ptr, !llvm.ptr, !llvm.ptr) -> i32
  llvm.func @f() -> !llvm.ptr {
    %0 = llvm.mlir.addressof @ompi_mpi_sum : !llvm.ptr
    %1 = llvm.mlir.addressof @ompi_mpi_max : !llvm.ptr
    llvm.return %0 : !llvm.ptr
  }
}
