//===- Distributed.h - mp-run under mpirun ----------------------*- C++ -*-===//
//
// What mp-run needs from MPI to run a data-parallel train step (the output of
// mp-data-parallel) on every process of an `mpirun -np N` launch: the size of
// the launch before MPI is initialised (it sizes the step's grid), MPI_Init
// and MPI_Finalize, the runtime shims the lowered step calls for f16/bf16
// all-reduces, and the end-of-run check that every process holds the same
// parameters. Without MPI at build time, mp-run runs single-process only and
// these report an error when a launch or a step needs MPI.
//
//===----------------------------------------------------------------------===//

#ifndef MP_RUN_DISTRIBUTED_H
#define MP_RUN_DISTRIBUTED_H

#include "llvm/Support/Error.h"

#include <cstdint>

namespace mlir {
class ExecutionEngine;
} // namespace mlir

namespace mp_run {

/// This process's place in its launch.
struct ProcessGroup {
  int rank = 0;
  int size = 1;
  /// Whether MPI was initialised (and must be finalised).
  bool initialized = false;
};

/// The number of processes of the mpirun launch this process belongs to,
/// read from the environment MPI launchers set (OMPI_COMM_WORLD_SIZE,
/// PMI_SIZE); 1 when not launched by mpirun.
int getLaunchSize();

/// Initialises MPI and returns this process's rank and the world size; an
/// error when mp-run was built without MPI.
llvm::Expected<ProcessGroup> initializeMPI();

/// Finalises MPI if `group` initialised it.
void finalizeMPI(ProcessGroup &group);

/// Ends every process of the launch with exit status 1 (after an error on
/// this one, the others may be waiting in a collective).
[[noreturn]] void abortMPI();

/// Makes the runtime shims of the lowered collectives
/// (`mp_mpi_allreduce_sum_f16`/`_bf16`, see mp-legalize-mpi) resolvable in
/// `engine`. Call before the engine is initialised.
void registerDistributedSymbols(mlir::ExecutionEngine &engine);

/// Compares `checksum` with rank 0's on every process; an error naming the
/// processes that differ (on every process) when one does.
llvm::Error checkSameOnAllRanks(const ProcessGroup &group, uint64_t checksum,
                                llvm::StringRef what);

} // namespace mp_run

#endif // MP_RUN_DISTRIBUTED_H
