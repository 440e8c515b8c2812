//===- StepMemory.cpp - A caching allocator for JIT-compiled steps --------===//
//
// The process-wide caching allocator of StepMemory.h: free lists keyed by the
// rounded size of a block, a map from each block handed out to its rounded
// size (how freeStepMemory knows a block and its size without a header, and
// tells a pointer of libc's from one of its own), and the counts, all behind
// one mutex. A request pops the most recently freed block of its size (still
// warm in the caches), or calls libc's malloc; libc is called outside the
// mutex.
//
//===----------------------------------------------------------------------===//

#include "mp/ExecutionEngine/StepMemory.h"

#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ExecutionEngine/Orc/Mangling.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <cstdlib>
#include <mutex>

using namespace mlir;

namespace {

/// The allocator's state; one per process (StepMemory::get).
class StepMemory {
public:
  /// The process's allocator, created on first use and never destroyed (a
  /// step may still run while static objects are destroyed at exit).
  static StepMemory &get() {
    static StepMemory *memory = new StepMemory;
    return *memory;
  }

  void *allocate(size_t size);
  void deallocate(void *pointer);
  void release();
  mp::StepMemoryStatistics getStatistics() {
    std::lock_guard<std::mutex> lock(mutex);
    return statistics;
  }
  uint64_t getLimit() const { return limit; }

private:
  StepMemory();

  /// The bound on statistics.cachedBytes.
  uint64_t limit = mp::kDefaultStepMemoryCacheLimit;
  std::mutex mutex;
  /// The blocks handed out and not freed yet, with their rounded sizes.
  llvm::DenseMap<void *, size_t> liveBlocks;
  /// The freed blocks of each rounded size, the most recent last, keyed by
  /// the size in granules (DenseMap's hash of an integer, 37 times it, would
  /// put every multiple of the granule into the same few buckets).
  llvm::DenseMap<size_t, llvm::SmallVector<void *, 0>> freeLists;
  mp::StepMemoryStatistics statistics;
};

} // namespace

StepMemory::StepMemory() {
  uint64_t mebibytes;
  if (const char *value = std::getenv("MP_STEP_MEMORY_CACHE_MIB"))
    if (!llvm::StringRef(value).trim().getAsInteger(10, mebibytes) &&
        mebibytes <= (UINT64_MAX >> 20))
      limit = mebibytes << 20;
}

void *StepMemory::allocate(size_t size) {
  // A size whose rounding would overflow is libc's to refuse.
  if (size > SIZE_MAX - mp::kStepMemoryGranule)
    return std::malloc(size);
  size_t rounded = std::max<size_t>(llvm::alignTo(size, mp::kStepMemoryGranule),
                                    mp::kStepMemoryGranule);
  {
    std::lock_guard<std::mutex> lock(mutex);
    auto list = freeLists.find(rounded / mp::kStepMemoryGranule);
    if (list != freeLists.end() && !list->second.empty()) {
      void *block = list->second.pop_back_val();
      liveBlocks[block] = rounded;
      statistics.cachedBytes -= rounded;
      ++statistics.cachedAllocations;
      return block;
    }
  }
  void *block = std::malloc(rounded);
  if (!block)
    return nullptr;
  std::lock_guard<std::mutex> lock(mutex);
  liveBlocks[block] = rounded;
  ++statistics.libcAllocations;
  return block;
}

void StepMemory::deallocate(void *pointer) {
  if (!pointer)
    return;
  {
    std::lock_guard<std::mutex> lock(mutex);
    auto live = liveBlocks.find(pointer);
    if (live == liveBlocks.end()) {
      ++statistics.foreignFrees;
    } else {
      size_t rounded = live->second;
      liveBlocks.erase(live);
      if (statistics.cachedBytes + rounded <= limit) {
        freeLists[rounded / mp::kStepMemoryGranule].push_back(pointer);
        statistics.cachedBytes += rounded;
        ++statistics.cachedFrees;
        return;
      }
      ++statistics.libcFrees;
    }
  }
  std::free(pointer);
}

void StepMemory::release() {
  llvm::SmallVector<void *> blocks;
  {
    std::lock_guard<std::mutex> lock(mutex);
    for (auto &[granules, list] : freeLists)
      blocks.append(list.begin(), list.end());
    freeLists.clear();
    statistics.cachedBytes = 0;
    statistics.libcFrees += blocks.size();
  }
  for (void *block : blocks)
    std::free(block);
}

void *mp::allocateStepMemory(size_t size) {
  return StepMemory::get().allocate(size);
}

void mp::freeStepMemory(void *pointer) {
  StepMemory::get().deallocate(pointer);
}

void mp::releaseStepMemoryCache() { StepMemory::get().release(); }

mp::StepMemoryStatistics mp::getStepMemoryStatistics() {
  return StepMemory::get().getStatistics();
}

uint64_t mp::getStepMemoryCacheLimit() { return StepMemory::get().getLimit(); }

void mp::registerStepMemorySymbols(ExecutionEngine &engine) {
  engine.registerSymbols([](llvm::orc::MangleAndInterner interner) {
    llvm::orc::SymbolMap symbols;
    symbols[interner("malloc")] = {
        llvm::orc::ExecutorAddr::fromPtr(&allocateStepMemory),
        llvm::JITSymbolFlags::Exported};
    symbols[interner("free")] = {
        llvm::orc::ExecutorAddr::fromPtr(&freeStepMemory),
        llvm::JITSymbolFlags::Exported};
    return symbols;
  });
}
