//===- MPIMemoryEffects.h - Memory effects of mpi.allreduce -----*- C++ -*-===//
//
// MLIR 22.1's `mpi.allreduce` declares no memory effects, which the
// ownership-based buffer deallocation of mp-cpu-pipeline rejects ("ops with
// unknown memory side effects are not supported") once convert-shard-to-mpi
// has put one on the buffers of a data-parallel step. This external model
// states them: it reads the send buffer, writes the receive buffer, and
// writes the default resource (the collective itself, which nothing may
// reorder or drop). Header-only, so that registering it needs nothing beyond
// libMLIR.
//
//===----------------------------------------------------------------------===//

#ifndef MP_CONVERSION_SHARDTOMPI_MPIMEMORYEFFECTS_H
#define MP_CONVERSION_SHARDTOMPI_MPIMEMORYEFFECTS_H

#include "mlir/Dialect/MPI/IR/MPI.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::mp {

/// The memory effects of `mpi.allreduce`.
struct MPIAllReduceMemoryEffects
    : public MemoryEffectOpInterface::ExternalModel<MPIAllReduceMemoryEffects,
                                                    mpi::AllReduceOp> {
  void
  getEffects(Operation *op,
             SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
                 &effects) const {
    auto allReduce = cast<mpi::AllReduceOp>(op);
    effects.emplace_back(MemoryEffects::Read::get(),
                         &allReduce.getSendbufMutable(),
                         SideEffects::DefaultResource::get());
    effects.emplace_back(MemoryEffects::Write::get(),
                         &allReduce.getRecvbufMutable(),
                         SideEffects::DefaultResource::get());
    effects.emplace_back(MemoryEffects::Write::get(),
                         SideEffects::DefaultResource::get());
  }
};

/// Attaches MPIAllReduceMemoryEffects to `mpi.allreduce` when the mpi
/// dialect is loaded.
inline void registerMPIMemoryEffects(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *context, mpi::MPIDialect *) {
    mpi::AllReduceOp::attachInterface<MPIAllReduceMemoryEffects>(*context);
  });
}

} // namespace mlir::mp

#endif // MP_CONVERSION_SHARDTOMPI_MPIMEMORYEFFECTS_H
