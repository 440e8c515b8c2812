//===- StepMemory.h - A caching allocator for compiled steps ----*- C++ -*-===//
//
// The memory a JIT-compiled step allocates (its lowered memref.alloc and
// memref.dealloc: `malloc` and `free`) comes from a process-wide caching
// allocator, the way PyTorch's caching allocator serves its tensors: a freed
// block is kept in a free list for its size (rounded up to a multiple of
// kStepMemoryGranule) and handed out again to the next request of that size.
// A train step allocates and frees the same blocks on every call (the conv
// net's BF16 step: 5,500 requests a call, from 250 call sites), so from the
// second step on no request reaches libc, whose malloc and free on these
// blocks cost 2% of the step in mp-run and 4.4% in a Python process whose
// heap torch fragmented (docs/performance.md).
//
// compileForHost (HostJIT.h) gives the JIT-compiled module these functions
// as its `malloc` and `free`. No memory crosses between the step and its
// caller (the step writes its results into the caller's buffers:
// mp-cpu-pipeline's buffer-results-to-out-params), so only the step's own
// code frees what it allocated. The ahead-of-time step libraries (mp-run
// --emit-library) keep libc's malloc; the bits computed are the same.
//
// The allocator is thread-safe (parallel loops run on OpenMP threads) and
// takes no lock: each thread has free lists of its own, and a 16-byte header
// in front of each block holds its size (StepMemory.cpp says why and how).
// Its blocks come from libc's malloc, aligned as malloc's are (the lowering
// over-allocates and aligns itself). Freeing a pointer it did not hand out
// (e.g. LLVM turned a malloc and memset into calloc) forwards it to libc's
// free. The free lists of all threads together hold at most
// getStepMemoryCacheLimit() bytes: a freed block beyond that goes back to
// libc, and so do a thread's blocks when it exits.
//
//===----------------------------------------------------------------------===//

#ifndef MP_EXECUTIONENGINE_STEPMEMORY_H
#define MP_EXECUTIONENGINE_STEPMEMORY_H

#include <cstddef>
#include <cstdint>

namespace mlir {
class ExecutionEngine;
} // namespace mlir

namespace mlir::mp {

/// The sizes of blocks are rounded up to a multiple of this many bytes, so
/// requests that differ by a little share a free list.
constexpr size_t kStepMemoryGranule = 512;

/// The default bound on the bytes kept in the free lists: 4 GiB. The
/// environment variable MP_STEP_MEMORY_CACHE_MIB (a number of MiB, read when
/// the allocator is first used) replaces it; 0 caches nothing.
constexpr uint64_t kDefaultStepMemoryCacheLimit = uint64_t(4) << 30;

/// Counts of the step allocator since the process started, of all threads.
struct StepMemoryStatistics {
  /// Requests served from a free list.
  uint64_t cachedAllocations = 0;
  /// Requests that called libc's malloc.
  uint64_t libcAllocations = 0;
  /// Blocks of the allocator's freed into a free list.
  uint64_t cachedFrees = 0;
  /// Blocks of the allocator's given back to libc's free (beyond the bound,
  /// or when their thread exited).
  uint64_t libcFrees = 0;
  /// Pointers it did not hand out, forwarded to libc's free.
  uint64_t foreignFrees = 0;
  /// The bytes in the free lists now.
  uint64_t cachedBytes = 0;
};

/// Returns a block of at least `size` bytes (aligned as libc's malloc's
/// blocks), from a free list when one holds a block of its rounded size;
/// null when libc has no memory left. The JIT-compiled step's `malloc`.
void *allocateStepMemory(size_t size);

/// Frees `pointer`: into the calling thread's free list of its size when the
/// allocator handed it out and the bound allows, to libc's free otherwise;
/// no-op on null. The JIT-compiled step's `free`.
void freeStepMemory(void *pointer);

/// The counts so far (a lock; not meant for a step's inner loop).
StepMemoryStatistics getStepMemoryStatistics();

/// The bound on the bytes the free lists keep (kDefaultStepMemoryCacheLimit
/// or MP_STEP_MEMORY_CACHE_MIB).
uint64_t getStepMemoryCacheLimit();

/// Defines `malloc` and `free` in `engine`'s module as allocateStepMemory
/// and freeStepMemory (the JIT's own definitions take precedence over the
/// process's). Call it before the engine looks up a symbol.
void registerStepMemorySymbols(ExecutionEngine &engine);

} // namespace mlir::mp

#endif // MP_EXECUTIONENGINE_STEPMEMORY_H
