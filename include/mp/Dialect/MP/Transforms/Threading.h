//===- Threading.h - When CPU loop nests run on threads ---------*- C++ -*-===//
//
// The sizes below which the CPU pipeline's code generation keeps a loop nest
// on one thread, shared by mp-tile-and-vectorize (its scf.forall loops) and
// mp-linalg-to-loops (the linalg operations left for loops).
//
//===----------------------------------------------------------------------===//

#ifndef MP_DIALECT_MP_TRANSFORMS_THREADING_H
#define MP_DIALECT_MP_TRANSFORMS_THREADING_H

#include <cstdint>

namespace mlir::mp {

/// Operations with fewer iterations than this run on one thread: starting
/// the threads would cost more than the work.
inline constexpr int64_t kMinParallelIterations = 8192;

/// Parallel iterations (a tile or a slice of loops each, in any order on any
/// thread) up to this many are enough to share among the threads; the loops
/// inside them stay sequential.
inline constexpr int64_t kMinParallelTiles = 64;

} // namespace mlir::mp

#endif // MP_DIALECT_MP_TRANSFORMS_THREADING_H
