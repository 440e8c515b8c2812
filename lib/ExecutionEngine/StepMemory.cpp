//===- StepMemory.cpp - A caching allocator for compiled steps ------------===//
//
// The caching allocator of StepMemory.h. Each thread has free lists of its
// own (a thread_local ThreadCache), keyed by the rounded size of a block, so
// a request and a free take no lock and no atomic read-modify-write: a
// locked instruction waits until every store before it is written back, and
// a step calls `free` right after the loop nest that last wrote a buffer,
// with the store buffer full of cache-missing stores. (Measured on the conv
// net's BF16 step, 5,500 requests a step: behind a mutex the allocator took
// 2.0% of the step, as much as glibc's malloc and free; without, 0.4%.) The
// blocks a thread allocates it frees too: the lowered step allocates outside
// its parallel regions or inside one iteration of them. A block freed on
// another thread would go into that thread's lists (a step doing so on every
// call would take that block from libc every time).
//
// Each block comes from libc's malloc with a BlockHeader in front of it: its
// rounded size, and kBlockMagic where glibc keeps the size word of a chunk,
// in the 8 bytes before the pointer it returns. That word of glibc's is a
// multiple of 16 plus flag bits 0 to 2, never with bit 3 set as in
// kBlockMagic, so freeStepMemory tells a pointer of libc's (a calloc LLVM
// made of a malloc and a memset) from one of its own by that word alone.
// (With another malloc, e.g. a sanitizer's, that word is not defined for a
// pointer of libc's; the step frees none in practice: the conv net's step
// frees only blocks of the allocator's, StepMemoryStatistics::foreignFrees.)
//
// The bound on the cached bytes holds for all threads together without a
// shared counter on every call: each thread holds a reservation (the most
// bytes its lists have held), taken from the process's total when it grows
// past it. Its lists fill up to the reservation with no atomic operation;
// growing it is an atomic add that fails beyond the bound, and then the
// block goes back to libc. In a train step the reservations stop growing
// after the first step.
//
//===----------------------------------------------------------------------===//

#include "mp/ExecutionEngine/StepMemory.h"

#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ExecutionEngine/Orc/Mangling.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <mutex>

using namespace mlir;

namespace {

/// What precedes each block of the allocator's.
struct BlockHeader {
  /// The rounded size of the block after the header.
  uint64_t size;
  /// kBlockMagic while the allocator owns the block; where glibc's size word
  /// of a chunk is for a pointer of libc's.
  uint64_t magic;
};
static_assert(sizeof(BlockHeader) == 16,
              "the header keeps the blocks aligned as malloc's are");

/// Marks a block of the allocator's; bit 3 is set, which no glibc size word
/// has.
constexpr uint64_t kBlockMagic = 0x5374657050654d38; // "StepPeM8"

/// A counter written by one thread (a load and a store, no read-modify-write)
/// and read by any.
class OwnedCounter {
public:
  void add(uint64_t value) {
    count.store(count.load(std::memory_order_relaxed) + value,
                std::memory_order_relaxed);
  }
  void subtract(uint64_t value) {
    count.store(count.load(std::memory_order_relaxed) - value,
                std::memory_order_relaxed);
  }
  uint64_t get() const { return count.load(std::memory_order_relaxed); }

private:
  std::atomic<uint64_t> count{0};
};

/// The counts of one thread.
struct ThreadCounters {
  OwnedCounter cachedAllocations, libcAllocations, cachedFrees, libcFrees,
      foreignFrees, cachedBytes;

  /// Adds these counts to `statistics`.
  void addTo(mp::StepMemoryStatistics &statistics) const {
    statistics.cachedAllocations += cachedAllocations.get();
    statistics.libcAllocations += libcAllocations.get();
    statistics.cachedFrees += cachedFrees.get();
    statistics.libcFrees += libcFrees.get();
    statistics.foreignFrees += foreignFrees.get();
    statistics.cachedBytes += cachedBytes.get();
  }
};

/// What the threads share: the bound, the bytes reserved, and the counts of
/// every thread (those that exited summed up). Created on first use and
/// never destroyed (a thread may exit while static objects are destroyed).
struct SharedState {
  static SharedState &get() {
    static SharedState *state = new SharedState;
    return *state;
  }

  /// The bound on the bytes cached by all threads together.
  uint64_t limit = mp::kDefaultStepMemoryCacheLimit;
  /// The sum of the threads' reservations (at most `limit`).
  std::atomic<uint64_t> reservedBytes{0};
  /// Guards `threads` and `exited`.
  std::mutex mutex;
  llvm::SmallVector<const ThreadCounters *> threads;
  mp::StepMemoryStatistics exited;

private:
  SharedState() {
    uint64_t mebibytes;
    if (const char *value = std::getenv("MP_STEP_MEMORY_CACHE_MIB"))
      if (!llvm::StringRef(value).trim().getAsInteger(10, mebibytes) &&
          mebibytes <= (UINT64_MAX >> 20))
        limit = mebibytes << 20;
  }
};

/// The free lists of one thread.
class ThreadCache {
public:
  ThreadCache() : shared(SharedState::get()) {
    std::lock_guard<std::mutex> lock(shared.mutex);
    shared.threads.push_back(&counters);
  }
  /// Gives the cached blocks back to libc, and the reservation back to the
  /// process.
  ~ThreadCache();

  void *allocate(size_t size);
  void deallocate(BlockHeader *header);
  /// Counts a pointer of libc's given to freeStepMemory.
  void countForeignFree() { counters.foreignFrees.add(1); }

private:
  SharedState &shared;
  /// The freed blocks of each rounded size, the most recent (still warm in
  /// the caches) last, keyed by the size in granules (DenseMap's hash of an
  /// integer, 37 times it, would put every multiple of the granule into the
  /// same few buckets).
  llvm::DenseMap<size_t, llvm::SmallVector<BlockHeader *, 0>> freeLists;
  /// The bytes this thread may keep in `freeLists`, taken from
  /// shared.reservedBytes.
  uint64_t reservation = 0;
  ThreadCounters counters;
};

} // namespace

/// Gives `header`'s block back to libc.
static void freeBlock(BlockHeader *header) {
  header->magic = 0;
  std::free(header);
}

ThreadCache::~ThreadCache() {
  for (auto &[granules, list] : freeLists)
    for (BlockHeader *header : list) {
      freeBlock(header);
      counters.libcFrees.add(1);
    }
  // (An exited thread caches nothing.)
  counters.cachedBytes.subtract(counters.cachedBytes.get());
  shared.reservedBytes.fetch_sub(reservation);
  std::lock_guard<std::mutex> lock(shared.mutex);
  counters.addTo(shared.exited);
  llvm::erase(shared.threads, &counters);
}

void *ThreadCache::allocate(size_t size) {
  size_t rounded = std::max<size_t>(llvm::alignTo(size, mp::kStepMemoryGranule),
                                    mp::kStepMemoryGranule);
  auto list = freeLists.find(rounded / mp::kStepMemoryGranule);
  if (list != freeLists.end() && !list->second.empty()) {
    BlockHeader *header = list->second.pop_back_val();
    counters.cachedBytes.subtract(rounded);
    counters.cachedAllocations.add(1);
    return header + 1;
  }
  auto *header =
      static_cast<BlockHeader *>(std::malloc(sizeof(BlockHeader) + rounded));
  if (!header)
    return nullptr;
  header->size = rounded;
  header->magic = kBlockMagic;
  counters.libcAllocations.add(1);
  return header + 1;
}

void ThreadCache::deallocate(BlockHeader *header) {
  uint64_t cached = counters.cachedBytes.get() + header->size;
  if (cached > reservation) {
    // Take what the lists need beyond the reservation from the process's
    // total, or give the block back when the bound is reached.
    uint64_t more = cached - reservation;
    if (shared.reservedBytes.fetch_add(more) + more > shared.limit) {
      shared.reservedBytes.fetch_sub(more);
      freeBlock(header);
      counters.libcFrees.add(1);
      return;
    }
    reservation = cached;
  }
  freeLists[header->size / mp::kStepMemoryGranule].push_back(header);
  counters.cachedBytes.add(header->size);
  counters.cachedFrees.add(1);
}

/// The calling thread's free lists.
static ThreadCache &getThreadCache() {
  static thread_local ThreadCache cache;
  return cache;
}

void *mp::allocateStepMemory(size_t size) {
  // A size whose rounding would overflow is libc's to refuse.
  if (size > SIZE_MAX - kStepMemoryGranule - sizeof(BlockHeader))
    return std::malloc(size);
  return getThreadCache().allocate(size);
}

void mp::freeStepMemory(void *pointer) {
  if (!pointer)
    return;
  auto *header = static_cast<BlockHeader *>(pointer) - 1;
  if (header->magic != kBlockMagic) {
    getThreadCache().countForeignFree();
    std::free(pointer);
    return;
  }
  getThreadCache().deallocate(header);
}

mp::StepMemoryStatistics mp::getStepMemoryStatistics() {
  SharedState &shared = SharedState::get();
  std::lock_guard<std::mutex> lock(shared.mutex);
  StepMemoryStatistics statistics = shared.exited;
  for (const ThreadCounters *counters : shared.threads)
    counters->addTo(statistics);
  return statistics;
}

uint64_t mp::getStepMemoryCacheLimit() { return SharedState::get().limit; }

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
