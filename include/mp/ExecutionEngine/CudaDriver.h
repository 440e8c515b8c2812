//===- CudaDriver.h - MLIR's CUDA runtime wrappers, in-tree -----*- C++ -*-===//
//
// The `mgpu*` functions that gpu-to-llvm and the GPU dialect's LLVM IR
// translation emit calls to (names and signatures of upstream MLIR's
// mlir/lib/ExecutionEngine/CudaRuntimeWrappers.cpp, LLVM 22), implemented
// over the CUDA driver API loaded at run time with dlopen: no CUDA headers
// or libraries are needed to build them, and a machine without the NVIDIA
// driver gets an error from loadCudaDriverLibrary rather than a crash.
// Neither this header nor its implementation (CudaDriver.cpp) uses LLVM:
// the same code is the runtime of mp-run's JIT (CudaRuntime.h adds its LLVM
// side) and of the ahead-of-time step libraries of `mp-run --emit-library`,
// which also export the small C interface at the end (mpCuda*).
//
// Differences from upstream, all invisible to the generated code:
//  - mgpuMemAlloc/mgpuMemFree go through a caching allocator: a freed block
//    is kept and handed out again for a request of the same rounded size
//    (512-byte granules), so a train step that allocates the same buffers
//    every step calls cuMemAlloc only during its first step. A block freed
//    on a stream is reused on that stream at once (stream order makes that
//    safe) and on other streams once the stream was synchronised or
//    destroyed.
//  - mgpuModuleLoad/mgpuModuleLoadJIT load each image once and count
//    references, so a launcher that loads its module per launch does not
//    JIT-compile PTX per launch. Before the driver is loaded they load the
//    default one ($MP_CUDA_DRIVER, else libcuda.so.1).
//  - A step stream (setCudaStepStream) makes the calling thread's
//    mgpuStreamCreate return the caller's stream and its
//    mgpuStreamSynchronize/mgpuStreamDestroy of that stream do nothing: a
//    device-resident step, which creates one stream at its entry and waits
//    for it before it returns, then only enqueues its work on the caller's
//    stream and returns without a host synchronisation.
//  - Driver errors are reported on stderr with the call that failed and
//    remembered; takeFirstCudaError() returns the first one, so a runner can
//    stop with an error after a step instead of computing on garbage.
//
//===----------------------------------------------------------------------===//

#ifndef MP_EXECUTIONENGINE_CUDADRIVER_H
#define MP_EXECUTIONENGINE_CUDADRIVER_H

#include <cstddef>
#include <cstdint>
#include <string>

/// Opaque driver handles, as CUDA's cuda.h declares them.
using MgpuModule = struct CUmod_st *;
using MgpuFunction = struct CUfunc_st *;
using MgpuStream = struct CUstream_st *;
using MgpuEvent = struct CUevent_st *;

namespace mlir::mp {

/// Loads the CUDA driver library: `path` when not null or empty, else the
/// environment variable MP_CUDA_DRIVER when set, else libcuda.so.1; resolves
/// the driver functions the wrappers use and initialises the driver and the
/// primary context of device 0. Returns an error message, empty on success.
/// Idempotent once it succeeded.
std::string loadCudaDriverLibrary(const char *path);

/// The path of the loaded driver library (empty before it is loaded).
const std::string &getCudaDriverLibraryPath();

/// The first driver error since the last call, or an empty string.
std::string takeFirstCudaError();

/// Counts of the caching allocator.
struct CudaAllocatorStats {
  /// mgpuMemAlloc calls (device memory, not host-shared).
  uint64_t requests = 0;
  /// Of those, served by cuMemAlloc.
  uint64_t driverAllocations = 0;
  /// Bytes obtained from cuMemAlloc in all.
  uint64_t driverBytes = 0;
  /// Blocks currently handed out.
  uint64_t live = 0;
};
CudaAllocatorStats getCudaAllocatorStats();

/// Sets the calling thread's step stream (null: none). While it is set, the
/// stream a lowered step creates is `stream`, and the step's synchronisation
/// with it and its destruction are skipped (counted as deferred): the step's
/// work is enqueued on `stream` in order and the call returns at once. The
/// caller owns `stream` (mgpuStreamCreate before setting it) and waits for
/// it, or for an event recorded on it, before reading what the step wrote.
void setCudaStepStream(MgpuStream stream);
MgpuStream getCudaStepStream();

/// Sets the step stream for the lifetime of the object.
class CudaStepStreamScope {
public:
  explicit CudaStepStreamScope(MgpuStream stream)
      : previous(getCudaStepStream()) {
    setCudaStepStream(stream);
  }
  ~CudaStepStreamScope() { setCudaStepStream(previous); }
  CudaStepStreamScope(const CudaStepStreamScope &) = delete;
  CudaStepStreamScope &operator=(const CudaStepStreamScope &) = delete;

private:
  MgpuStream previous;
};

/// Host synchronisations through the wrappers since the driver was loaded.
struct CudaSyncStats {
  /// cuStreamSynchronize calls (mgpuStreamSynchronize).
  uint64_t streamSynchronizes = 0;
  /// cuEventSynchronize calls (mgpuEventSynchronize).
  uint64_t eventSynchronizes = 0;
  /// mgpuStreamSynchronize calls on the step stream, not made.
  uint64_t deferredSynchronizes = 0;
};
CudaSyncStats getCudaSyncStats();

/// Page-locked host memory (cuMemHostAlloc): a device-to-host copy into it is
/// asynchronous. Null (and a recorded driver error) on failure.
void *allocatePinnedHost(size_t bytes);
/// Frees what allocatePinnedHost returned (null is ignored).
void freePinnedHost(void *pointer);

/// True when the work recorded before `event` has completed (cuEventQuery;
/// never waits). A driver error other than "not ready" is recorded and
/// counts as complete.
bool isEventComplete(MgpuEvent event);

/// Double-buffered page-locked staging of what a stream's work reads from
/// host memory, such as each train step's batch. A copy to the device from
/// pageable memory may make the driver wait for the stream before it
/// returns (CUDA's "API synchronization behavior"); from page-locked memory
/// it is asynchronous. So the host writes the next inputs into a slot of
/// `bytes` page-locked bytes (allocated once, two of them), queues their
/// copies to the device on `stream` and releases the slot, which records the
/// slot's event after the copies; the next inputs go into the other slot
/// while the copies out of the first one may still be in flight. acquire()
/// returns a slot only once the copies out of it have completed: it asks
/// the slot's event (isEventComplete) and waits for it (cuEventSynchronize)
/// only while they are still pending, i.e. when the host runs two uploads
/// ahead of the stream.
class PinnedStaging {
public:
  PinnedStaging(MgpuStream stream, size_t bytes);
  ~PinnedStaging();
  PinnedStaging(const PinnedStaging &) = delete;
  PinnedStaging &operator=(const PinnedStaging &) = delete;

  /// The bytes of one slot.
  size_t getSlotBytes() const { return bytes; }
  /// True between acquire() and release().
  bool isAcquired() const { return acquired; }
  /// The slot to write next, once the copies out of it have completed (null
  /// where the page-locked allocation failed: a recorded driver error).
  void *acquire();
  /// Queues the copy of `size` bytes at `offset` of the acquired slot to the
  /// device memory `device` on the stream (offset + size <= getSlotBytes()).
  void copyToDevice(void *device, size_t offset, size_t size);
  /// Records the acquired slot's event after its copies; the other slot is
  /// the next one.
  void release();

private:
  MgpuStream stream;
  size_t bytes;
  void *slots[2] = {nullptr, nullptr};
  MgpuEvent events[2] = {nullptr, nullptr};
  /// The slot's event was recorded and not yet seen complete.
  bool pending[2] = {false, false};
  unsigned next = 0;
  bool acquired = false;

  void waitFor(unsigned slot);
};

} // namespace mlir::mp

extern "C" {
MgpuModule mgpuModuleLoad(void *data, size_t gpuBlobSize);
MgpuModule mgpuModuleLoadJIT(void *data, int optLevel);
void mgpuModuleUnload(MgpuModule module);
MgpuFunction mgpuModuleGetFunction(MgpuModule module, const char *name);
void mgpuLaunchKernel(MgpuFunction function, intptr_t gridX, intptr_t gridY,
                      intptr_t gridZ, intptr_t blockX, intptr_t blockY,
                      intptr_t blockZ, int32_t smem, MgpuStream stream,
                      void **params, void **extra, size_t paramsCount);
MgpuStream mgpuStreamCreate();
void mgpuStreamDestroy(MgpuStream stream);
void mgpuStreamSynchronize(MgpuStream stream);
void mgpuStreamWaitEvent(MgpuStream stream, MgpuEvent event);
MgpuEvent mgpuEventCreate();
void mgpuEventDestroy(MgpuEvent event);
void mgpuEventSynchronize(MgpuEvent event);
void mgpuEventRecord(MgpuEvent event, MgpuStream stream);
void *mgpuMemAlloc(uint64_t sizeBytes, MgpuStream stream, bool isHostShared);
void mgpuMemFree(void *ptr, MgpuStream stream);
void mgpuMemcpy(void *dst, void *src, size_t sizeBytes, MgpuStream stream);
void mgpuMemset32(void *dst, unsigned int value, size_t count,
                  MgpuStream stream);
void mgpuMemset16(void *dst, unsigned short value, size_t count,
                  MgpuStream stream);
void mgpuSetDefaultDevice(int32_t device);
/// cuTensorMapEncodeTiled into `tensorMap` (a CUtensorMap: 128 bytes,
/// 64-byte aligned); the enum arguments are CUDA's values.
void mgpuTensorMapEncodeTiled(void *tensorMap, int tensorDataType,
                              uint32_t tensorRank, void *globalAddress,
                              const uint64_t *globalDim,
                              const uint64_t *globalStrides,
                              const uint32_t *boxDim,
                              const uint32_t *elementStrides, int interleave,
                              int swizzle, int l2Promotion, int oobFill);

/// The C interface of a step library (what a runner without C++, such as
/// tools/bench/gpu/aot_step.py over ctypes, calls besides the mgpu*
/// functions). mpCudaLoadDriver: loadCudaDriverLibrary (`path` may be null);
/// 0 on success, else 1 and the message in `error` (`size` bytes, may be
/// null). mpCudaTakeError: 1 and the first driver error since the last call
/// in `message`, or 0. mpCudaSetStepStream: setCudaStepStream.
/// mpCudaGetAllocatorStats: the four counts of CudaAllocatorStats in order.
int mpCudaLoadDriver(const char *path, char *error, size_t size);
int mpCudaTakeError(char *message, size_t size);
void mpCudaSetStepStream(MgpuStream stream);
void mpCudaGetAllocatorStats(uint64_t *counts);
}

#endif // MP_EXECUTIONENGINE_CUDADRIVER_H
