// RUN: mp-opt %s -split-input-file -verify-diagnostics --mp-legalize-mpi

// A grid sized at run time, without grid-size.
// expected-error @+1 {{mp-legalize-mpi: the size of grid '@mp_data_parallel' is not known: give it with grid-size=N}}
shard.grid @mp_data_parallel(shape = ?)
func.func @step(%g: tensor<4xf32>) -> tensor<4xf32> {
  %s = shard.all_reduce %g on @mp_data_parallel grid_axes = [0] : tensor<4xf32> -> tensor<4xf32>
  return %s : tensor<4xf32>
}

// -----

// Only 1-D grids may be sized at run time.
// expected-error @+1 {{mp-legalize-mpi: only 1-D grids may have a dynamic size}}
shard.grid @g(shape = 2x?)

// -----

// An f16 all-reduce the shim cannot take: not in place.
func.func @copy(%a: memref<4xf16>, %b: memref<4xf16>) {
  %world = mpi.comm_world : !mpi.comm
  // expected-error @+1 {{mp-legalize-mpi: an f16/bf16 mpi.allreduce must be an in-place MPI_SUM over mpi.comm_world of a statically shaped buffer, without a used retval}}
  mpi.allreduce(%a, %b, MPI_SUM, %world) : memref<4xf16>, memref<4xf16>
  return
}
