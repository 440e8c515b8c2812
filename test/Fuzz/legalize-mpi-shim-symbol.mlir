// Found while adding mp-legalize-mpi to mp-fuzz-passes (review of the
// symbols it declares, docs/Reliability.md): when the module already had a
// symbol named like the runtime shim of f16/bf16 all-reduces but of another
// kind or type, mp-legalize-mpi returned success with IR that does not
// verify (a second symbol of that name, or a call with the wrong operands);
// also through mp-cpu-pipeline{grid-size=N}. It is now an error at that
// symbol, and a declaration of the right type is reused.
// RUN: mp-opt %s -split-input-file -verify-diagnostics --mp-legalize-mpi=grid-size=2 --convert-shard-to-mpi --mp-legalize-mpi
// RUN: mp-opt %s -split-input-file -verify-diagnostics --mp-cpu-pipeline=grid-size=2
// RUN: not mp-opt %s -split-input-file --mp-legalize-mpi=grid-size=2 --convert-shard-to-mpi --mp-legalize-mpi 2>/dev/null | FileCheck %s --implicit-check-not='@mp_mpi_allreduce_sum_bf16('

// expected-error @+1 {{'func.func' op mp-legalize-mpi: symbol '@mp_mpi_allreduce_sum_bf16' names the runtime shim of f16/bf16 all-reduces: it must be a func.func of type '(i64, i64) -> ()'}}
func.func private @mp_mpi_allreduce_sum_bf16(i32)
shard.grid @mp_data_parallel(shape = ?)
func.func @step(%g: tensor<4xbf16>) -> tensor<4xbf16> {
  %s = shard.all_reduce %g on @mp_data_parallel grid_axes = [0] : tensor<4xbf16> -> tensor<4xbf16>
  return %s : tensor<4xbf16>
}

// -----

// expected-error @+1 {{'llvm.func' op mp-legalize-mpi: symbol '@mp_mpi_allreduce_sum_bf16' names the runtime shim}}
llvm.func @mp_mpi_allreduce_sum_bf16(i64, i64)
shard.grid @mp_data_parallel(shape = ?)
func.func @step(%g: tensor<4xbf16>) -> tensor<4xbf16> {
  %s = shard.all_reduce %g on @mp_data_parallel grid_axes = [0] : tensor<4xbf16> -> tensor<4xbf16>
  return %s : tensor<4xbf16>
}

// -----

// CHECK-LABEL: module
// CHECK:         func.func private @mp_mpi_allreduce_sum_bf16(i64, i64)
// CHECK:         func.func @reuse(
// CHECK:           call @mp_mpi_allreduce_sum_bf16(
func.func private @mp_mpi_allreduce_sum_bf16(i64, i64)
shard.grid @mp_data_parallel(shape = ?)
func.func @reuse(%g: tensor<4xbf16>) -> tensor<4xbf16> {
  %s = shard.all_reduce %g on @mp_data_parallel grid_axes = [0] : tensor<4xbf16> -> tensor<4xbf16>
  return %s : tensor<4xbf16>
}
