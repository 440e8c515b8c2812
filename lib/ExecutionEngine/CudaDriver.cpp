//===- CudaDriver.cpp - MLIR's CUDA runtime wrappers, in-tree -------------===//
//
// Implements the mgpu* functions and the runner helpers of CudaDriver.h over
// the CUDA driver API, whose few types and functions are declared here and
// resolved with dlsym from the library loadCudaDriverLibrary opens (the real
// libcuda.so.1, or the simulated driver of test/lib/CudaSim). Every wrapper
// but mgpuModuleLoad/mgpuModuleLoadJIT assumes the driver is loaded: mp-run
// and the engine load it before compiling a module that launches kernels;
// a module load before it (the constructors of an ahead-of-time step
// library, which run when it is opened) loads the default driver first.
//
// The file needs neither LLVM's headers nor its libraries (C++17 and libdl):
// it is the CUDA runtime of mp-run's JIT (CudaRuntime.cpp adds the LLVM
// side) and of the step libraries `mp-run --emit-library` links.
//
//===----------------------------------------------------------------------===//

#include "mp/ExecutionEngine/CudaDriver.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <map>
#include <mutex>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <vector>

using namespace mlir;

//===----------------------------------------------------------------------===//
// The driver API (the subset of cuda.h the wrappers use)
//===----------------------------------------------------------------------===//

namespace {
using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = struct CUctx_st *;

/// CUjit_option and CUfunction_attribute values of cuda.h.
constexpr int kJitErrorLogBuffer = 5, kJitErrorLogBufferSize = 6,
              kJitOptimizationLevel = 7;
constexpr int kFuncMaxDynamicSharedSize = 8;
constexpr unsigned kStreamNonBlocking = 1, kEventDisableTiming = 2,
                   kMemAttachGlobal = 1;
/// CUDA_ERROR_NOT_READY: cuEventQuery of work not yet complete.
constexpr CUresult kErrorNotReady = 600;

/// The driver's entry points, by the symbol names libcuda exports (the _v2
/// names are what cuda.h's macros resolve to).
struct Driver {
  CUresult (*cuInit)(unsigned);
  CUresult (*cuGetErrorName)(CUresult, const char **);
  CUresult (*cuDeviceGet)(CUdevice *, int);
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *, CUdevice);
  CUresult (*cuCtxSetCurrent)(CUcontext);
  CUresult (*cuModuleLoadData)(MgpuModule *, const void *);
  CUresult (*cuModuleLoadDataEx)(MgpuModule *, const void *, unsigned, int *,
                                 void **);
  CUresult (*cuModuleUnload)(MgpuModule);
  CUresult (*cuModuleGetFunction)(MgpuFunction *, MgpuModule, const char *);
  CUresult (*cuFuncSetAttribute)(MgpuFunction, int, int);
  CUresult (*cuLaunchKernel)(MgpuFunction, unsigned, unsigned, unsigned,
                             unsigned, unsigned, unsigned, unsigned, MgpuStream,
                             void **, void **);
  CUresult (*cuStreamCreate)(MgpuStream *, unsigned);
  CUresult (*cuStreamDestroy)(MgpuStream);
  CUresult (*cuStreamSynchronize)(MgpuStream);
  CUresult (*cuStreamWaitEvent)(MgpuStream, MgpuEvent, unsigned);
  CUresult (*cuEventCreate)(MgpuEvent *, unsigned);
  CUresult (*cuEventDestroy)(MgpuEvent);
  CUresult (*cuEventSynchronize)(MgpuEvent);
  CUresult (*cuEventQuery)(MgpuEvent);
  CUresult (*cuEventRecord)(MgpuEvent, MgpuStream);
  CUresult (*cuMemAlloc)(CUdeviceptr *, size_t);
  CUresult (*cuMemAllocManaged)(CUdeviceptr *, size_t, unsigned);
  CUresult (*cuMemFree)(CUdeviceptr);
  CUresult (*cuMemHostAlloc)(void **, size_t, unsigned);
  CUresult (*cuMemFreeHost)(void *);
  CUresult (*cuMemcpyAsync)(CUdeviceptr, CUdeviceptr, size_t, MgpuStream);
  CUresult (*cuMemsetD32Async)(CUdeviceptr, unsigned, size_t, MgpuStream);
  CUresult (*cuMemsetD16Async)(CUdeviceptr, unsigned short, size_t, MgpuStream);
  CUresult (*cuTensorMapEncodeTiled)(void *, int, uint32_t, void *,
                                     const uint64_t *, const uint64_t *,
                                     const uint32_t *, const uint32_t *, int,
                                     int, int, int);
};

// The state below is constant-initialised, or built on first use: a step
// library's constructors that load its GPU modules (priority 123, the GPU
// dialect's translation) run before this file's dynamic initialisers.
Driver driver;
void *driverHandle = nullptr;
CUcontext context = nullptr;
int32_t defaultDevice = 0;
std::mutex errorMutex;

/// The loaded driver's path; the first driver error not yet taken. Never
/// destroyed (module destructors may report errors after static
/// destruction).
std::string &getDriverPath() {
  static auto *path = new std::string;
  return *path;
}
std::string &getFirstError() {
  static auto *error = new std::string;
  return *error;
}

/// Reports a failed driver call on stderr and remembers the first one.
void check(CUresult result, const char *call) {
  if (!result)
    return;
  const char *name = nullptr;
  if (driver.cuGetErrorName)
    driver.cuGetErrorName(result, &name);
  std::string message = std::string("CUDA driver call '") + call +
                        "' failed with " + (name ? name : "error") + " (" +
                        std::to_string(result) + ")";
  fprintf(stderr, "mp-run: %s\n", message.c_str());
  std::lock_guard<std::mutex> lock(errorMutex);
  if (getFirstError().empty())
    getFirstError() = message;
}
#define CUDA_CHECK(call) check(driver.call, #call)

/// The calling thread's step stream (setCudaStepStream), or null.
thread_local MgpuStream stepStream = nullptr;

/// Host synchronisations the wrappers asked the driver for, and those the
/// step stream deferred.
std::atomic<uint64_t> streamSynchronizes{0}, eventSynchronizes{0},
    deferredSynchronizes{0};

/// Makes the primary context current on the calling thread.
void setContext() {
  thread_local bool current = false;
  if (!current && context) {
    CUDA_CHECK(cuCtxSetCurrent(context));
    current = true;
  }
}

//===----------------------------------------------------------------------===//
// The caching allocator
//===----------------------------------------------------------------------===//

class CachingAllocator {
public:
  static constexpr uint64_t kGranule = 512;

  void *allocate(uint64_t size, MgpuStream stream) {
    std::lock_guard<std::mutex> lock(mutex);
    ++stats.requests;
    uint64_t rounded = roundUp(size);
    // Same stream first (its pending work is ordered before the reuse), then
    // blocks free on every stream.
    void *block = take(pendingByStream[stream], rounded);
    if (!block)
      block = take(free, rounded);
    if (!block) {
      CUdeviceptr pointer = 0;
      CUDA_CHECK(cuMemAlloc(&pointer, rounded));
      if (!pointer)
        return nullptr;
      block = reinterpret_cast<void *>(pointer);
      ++stats.driverAllocations;
      stats.driverBytes += rounded;
    }
    sizes[block] = rounded;
    ++stats.live;
    return block;
  }

  void release(void *block, MgpuStream stream) {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = sizes.find(block);
    if (it == sizes.end()) {
      fprintf(stderr,
              "mp-run: mgpuMemFree of %p, which mgpuMemAlloc did not "
              "return\n",
              block);
      return;
    }
    uint64_t size = it->second;
    sizes.erase(it);
    --stats.live;
    (stream ? pendingByStream[stream] : free).emplace(size, block);
  }

  /// Work on `stream` has completed: its freed blocks serve every stream.
  void streamDone(MgpuStream stream) {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = pendingByStream.find(stream);
    if (it == pendingByStream.end())
      return;
    free.insert(it->second.begin(), it->second.end());
    pendingByStream.erase(it);
  }

  mp::CudaAllocatorStats getStats() {
    std::lock_guard<std::mutex> lock(mutex);
    return stats;
  }

private:
  using Blocks = std::multimap<uint64_t, void *>;
  static uint64_t roundUp(uint64_t size) {
    return std::max<uint64_t>(1, (size + kGranule - 1) / kGranule) * kGranule;
  }
  static void *take(Blocks &blocks, uint64_t size) {
    auto it = blocks.find(size);
    if (it == blocks.end())
      return nullptr;
    void *block = it->second;
    blocks.erase(it);
    return block;
  }

  std::mutex mutex;
  Blocks free;
  std::map<MgpuStream, Blocks> pendingByStream;
  std::unordered_map<void *, uint64_t> sizes;
  mp::CudaAllocatorStats stats;
};

CachingAllocator &getAllocator() {
  // Never destroyed: module destructors may free after static destruction.
  static auto *allocator = new CachingAllocator;
  return *allocator;
}

//===----------------------------------------------------------------------===//
// Loaded modules
//===----------------------------------------------------------------------===//

struct LoadedModule {
  MgpuModule module;
  int references;
};
std::mutex moduleMutex;
std::map<const void *, LoadedModule> &getModules() {
  static auto *modules = new std::map<const void *, LoadedModule>;
  return *modules;
}

/// Loads `data` once (`jitOptLevel` >= 0: PTX to JIT-compile).
MgpuModule loadModule(const void *data, int jitOptLevel) {
  std::lock_guard<std::mutex> lock(moduleMutex);
  auto &modules = getModules();
  auto it = modules.find(data);
  if (it != modules.end()) {
    ++it->second.references;
    return it->second.module;
  }
  // The constructors of a step library load its modules when it is opened,
  // before its caller could load the driver.
  if (!driverHandle) {
    std::string error = mp::loadCudaDriverLibrary("");
    if (!error.empty()) {
      fprintf(stderr, "mp-run: %s\n", error.c_str());
      std::lock_guard<std::mutex> lock(errorMutex);
      if (getFirstError().empty())
        getFirstError() = error;
      return nullptr;
    }
  }
  setContext();
  MgpuModule module = nullptr;
  if (jitOptLevel < 0) {
    CUDA_CHECK(cuModuleLoadData(&module, data));
  } else {
    char log[8192] = {0};
    int options[] = {kJitErrorLogBuffer, kJitErrorLogBufferSize,
                     kJitOptimizationLevel};
    void *values[] = {log, reinterpret_cast<void *>(sizeof(log)),
                      reinterpret_cast<void *>(
                          static_cast<intptr_t>(std::min(jitOptLevel, 4)))};
    CUresult result =
        driver.cuModuleLoadDataEx(&module, data, 3, options, values);
    if (result && log[0])
      fprintf(stderr, "mp-run: the CUDA driver's PTX compiler says:\n%s\n",
              log);
    check(result, "cuModuleLoadDataEx");
  }
  if (module)
    modules[data] = {module, 1};
  return module;
}
} // namespace

//===----------------------------------------------------------------------===//
// Loading the driver
//===----------------------------------------------------------------------===//

std::string mp::loadCudaDriverLibrary(const char *path) {
  if (driverHandle)
    return "";
  std::string library = path ? path : "";
  if (library.empty())
    if (const char *fromEnvironment = getenv("MP_CUDA_DRIVER"))
      library = fromEnvironment;
  if (library.empty())
    library = "libcuda.so.1";
  void *handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char *reason = dlerror();
    return "--device=cuda needs the NVIDIA driver (" + library +
           "): " + (reason ? reason : "cannot load it");
  }
  Driver loaded;
  std::string missing;
  auto resolve = [&](auto &function, const char *name) {
    function = reinterpret_cast<std::remove_reference_t<decltype(function)>>(
        dlsym(handle, name));
    if (!function)
      missing += std::string(missing.empty() ? "" : ", ") + name;
  };
  resolve(loaded.cuInit, "cuInit");
  resolve(loaded.cuGetErrorName, "cuGetErrorName");
  resolve(loaded.cuDeviceGet, "cuDeviceGet");
  resolve(loaded.cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain");
  resolve(loaded.cuCtxSetCurrent, "cuCtxSetCurrent");
  resolve(loaded.cuModuleLoadData, "cuModuleLoadData");
  resolve(loaded.cuModuleLoadDataEx, "cuModuleLoadDataEx");
  resolve(loaded.cuModuleUnload, "cuModuleUnload");
  resolve(loaded.cuModuleGetFunction, "cuModuleGetFunction");
  resolve(loaded.cuFuncSetAttribute, "cuFuncSetAttribute");
  resolve(loaded.cuLaunchKernel, "cuLaunchKernel");
  resolve(loaded.cuStreamCreate, "cuStreamCreate");
  resolve(loaded.cuStreamDestroy, "cuStreamDestroy_v2");
  resolve(loaded.cuStreamSynchronize, "cuStreamSynchronize");
  resolve(loaded.cuStreamWaitEvent, "cuStreamWaitEvent");
  resolve(loaded.cuEventCreate, "cuEventCreate");
  resolve(loaded.cuEventDestroy, "cuEventDestroy_v2");
  resolve(loaded.cuEventSynchronize, "cuEventSynchronize");
  resolve(loaded.cuEventQuery, "cuEventQuery");
  resolve(loaded.cuEventRecord, "cuEventRecord");
  resolve(loaded.cuMemAlloc, "cuMemAlloc_v2");
  resolve(loaded.cuMemAllocManaged, "cuMemAllocManaged");
  resolve(loaded.cuMemFree, "cuMemFree_v2");
  resolve(loaded.cuMemHostAlloc, "cuMemHostAlloc");
  resolve(loaded.cuMemFreeHost, "cuMemFreeHost");
  resolve(loaded.cuMemcpyAsync, "cuMemcpyAsync");
  resolve(loaded.cuMemsetD32Async, "cuMemsetD32Async");
  resolve(loaded.cuMemsetD16Async, "cuMemsetD16Async");
  // CUDA 12 and later; only kernels with TMA need it.
  loaded.cuTensorMapEncodeTiled =
      reinterpret_cast<decltype(loaded.cuTensorMapEncodeTiled)>(
          dlsym(handle, "cuTensorMapEncodeTiled"));
  if (!missing.empty()) {
    dlclose(handle);
    return "--device=cuda: the CUDA driver '" + library + "' lacks " +
           missing;
  }
  driver = loaded;
  auto fail = [&](CUresult result, const char *call) {
    const char *name = nullptr;
    driver.cuGetErrorName(result, &name);
    return "--device=cuda: " + std::string(call) + " failed with " +
           (name ? name : "error") + " (" + std::to_string(result) +
           ") in the CUDA driver '" + library + "'";
  };
  if (CUresult result = driver.cuInit(0))
    return fail(result, "cuInit");
  CUdevice device = 0;
  if (CUresult result = driver.cuDeviceGet(&device, defaultDevice))
    return fail(result, "cuDeviceGet");
  if (CUresult result = driver.cuDevicePrimaryCtxRetain(&context, device))
    return fail(result, "cuDevicePrimaryCtxRetain");
  driverHandle = handle;
  getDriverPath() = library;
  setContext();
  return "";
}

const std::string &mp::getCudaDriverLibraryPath() { return getDriverPath(); }

std::string mp::takeFirstCudaError() {
  std::lock_guard<std::mutex> lock(errorMutex);
  std::string message = std::move(getFirstError());
  getFirstError().clear();
  return message;
}

mp::CudaAllocatorStats mp::getCudaAllocatorStats() {
  return getAllocator().getStats();
}

void mp::setCudaStepStream(MgpuStream stream) { stepStream = stream; }

MgpuStream mp::getCudaStepStream() { return stepStream; }

mp::CudaSyncStats mp::getCudaSyncStats() {
  return {streamSynchronizes.load(), eventSynchronizes.load(),
          deferredSynchronizes.load()};
}

void *mp::allocatePinnedHost(size_t bytes) {
  setContext();
  void *pointer = nullptr;
  CUDA_CHECK(cuMemHostAlloc(&pointer, std::max<size_t>(bytes, 1),
                            /*flags=*/0));
  return pointer;
}

void mp::freePinnedHost(void *pointer) {
  if (pointer)
    CUDA_CHECK(cuMemFreeHost(pointer));
}

bool mp::isEventComplete(MgpuEvent event) {
  CUresult result = driver.cuEventQuery(event);
  if (result == kErrorNotReady)
    return false;
  check(result, "cuEventQuery(event)");
  return true;
}

mp::PinnedStaging::PinnedStaging(MgpuStream stream, size_t bytes)
    : stream(stream), bytes(bytes) {
  for (unsigned s = 0; s < 2; ++s) {
    slots[s] = allocatePinnedHost(bytes);
    events[s] = mgpuEventCreate();
  }
}

mp::PinnedStaging::~PinnedStaging() {
  for (unsigned s = 0; s < 2; ++s) {
    waitFor(s);
    freePinnedHost(slots[s]);
    mgpuEventDestroy(events[s]);
  }
}

void mp::PinnedStaging::waitFor(unsigned slot) {
  if (pending[slot] && !isEventComplete(events[slot]))
    mgpuEventSynchronize(events[slot]);
  pending[slot] = false;
}

void *mp::PinnedStaging::acquire() {
  waitFor(next);
  acquired = true;
  return slots[next];
}

void mp::PinnedStaging::copyToDevice(void *device, size_t offset, size_t size) {
  if (slots[next] && size)
    mgpuMemcpy(device, static_cast<char *>(slots[next]) + offset, size, stream);
}

void mp::PinnedStaging::release() {
  mgpuEventRecord(events[next], stream);
  pending[next] = true;
  acquired = false;
  next ^= 1;
}

//===----------------------------------------------------------------------===//
// The wrappers
//===----------------------------------------------------------------------===//

extern "C" MgpuModule mgpuModuleLoad(void *data, size_t /*gpuBlobSize*/) {
  return loadModule(data, /*jitOptLevel=*/-1);
}

extern "C" MgpuModule mgpuModuleLoadJIT(void *data, int optLevel) {
  return loadModule(data, std::max(optLevel, 0));
}

extern "C" void mgpuModuleUnload(MgpuModule module) {
  std::lock_guard<std::mutex> lock(moduleMutex);
  auto &modules = getModules();
  for (auto it = modules.begin(); it != modules.end(); ++it)
    if (it->second.module == module) {
      if (--it->second.references == 0) {
        CUDA_CHECK(cuModuleUnload(module));
        modules.erase(it);
      }
      return;
    }
}

extern "C" MgpuFunction mgpuModuleGetFunction(MgpuModule module,
                                              const char *name) {
  MgpuFunction function = nullptr;
  CUDA_CHECK(cuModuleGetFunction(&function, module, name));
  return function;
}

extern "C" void mgpuLaunchKernel(MgpuFunction function, intptr_t gridX,
                                 intptr_t gridY, intptr_t gridZ,
                                 intptr_t blockX, intptr_t blockY,
                                 intptr_t blockZ, int32_t smem,
                                 MgpuStream stream, void **params, void **extra,
                                 size_t /*paramsCount*/) {
  setContext();
  // Beyond 48 KiB, dynamic shared memory must be opted in per function.
  if (smem > 48 * 1024)
    CUDA_CHECK(cuFuncSetAttribute(function, kFuncMaxDynamicSharedSize, smem));
  CUDA_CHECK(cuLaunchKernel(function, gridX, gridY, gridZ, blockX, blockY,
                            blockZ, smem, stream, params, extra));
}

extern "C" MgpuStream mgpuStreamCreate() {
  setContext();
  // A step called with a step stream enqueues its work there.
  if (stepStream)
    return stepStream;
  MgpuStream stream = nullptr;
  CUDA_CHECK(cuStreamCreate(&stream, kStreamNonBlocking));
  return stream;
}

extern "C" void mgpuStreamDestroy(MgpuStream stream) {
  // The step stream is the caller's: the step's wait for it and its
  // destruction are left to the caller.
  if (stream && stream == stepStream)
    return;
  // Blocks freed on the stream may serve other streams only once its work
  // is done.
  CUDA_CHECK(cuStreamSynchronize(stream));
  getAllocator().streamDone(stream);
  CUDA_CHECK(cuStreamDestroy(stream));
}

extern "C" void mgpuStreamSynchronize(MgpuStream stream) {
  if (stream && stream == stepStream) {
    ++deferredSynchronizes;
    return;
  }
  ++streamSynchronizes;
  CUDA_CHECK(cuStreamSynchronize(stream));
  getAllocator().streamDone(stream);
}

extern "C" void mgpuStreamWaitEvent(MgpuStream stream, MgpuEvent event) {
  CUDA_CHECK(cuStreamWaitEvent(stream, event, /*flags=*/0));
}

extern "C" MgpuEvent mgpuEventCreate() {
  setContext();
  MgpuEvent event = nullptr;
  CUDA_CHECK(cuEventCreate(&event, kEventDisableTiming));
  return event;
}

extern "C" void mgpuEventDestroy(MgpuEvent event) {
  CUDA_CHECK(cuEventDestroy(event));
}

extern "C" void mgpuEventSynchronize(MgpuEvent event) {
  ++eventSynchronizes;
  CUDA_CHECK(cuEventSynchronize(event));
}

extern "C" void mgpuEventRecord(MgpuEvent event, MgpuStream stream) {
  CUDA_CHECK(cuEventRecord(event, stream));
}

extern "C" void *mgpuMemAlloc(uint64_t sizeBytes, MgpuStream stream,
                              bool isHostShared) {
  setContext();
  if (isHostShared) {
    CUdeviceptr pointer = 0;
    CUDA_CHECK(cuMemAllocManaged(&pointer, std::max<uint64_t>(sizeBytes, 1),
                                 kMemAttachGlobal));
    return reinterpret_cast<void *>(pointer);
  }
  return getAllocator().allocate(sizeBytes, stream);
}

extern "C" void mgpuMemFree(void *ptr, MgpuStream stream) {
  if (ptr)
    getAllocator().release(ptr, stream);
}

extern "C" void mgpuMemcpy(void *dst, void *src, size_t sizeBytes,
                           MgpuStream stream) {
  CUDA_CHECK(cuMemcpyAsync(reinterpret_cast<CUdeviceptr>(dst),
                           reinterpret_cast<CUdeviceptr>(src), sizeBytes,
                           stream));
}

extern "C" void mgpuMemset32(void *dst, unsigned int value, size_t count,
                             MgpuStream stream) {
  CUDA_CHECK(cuMemsetD32Async(reinterpret_cast<CUdeviceptr>(dst), value, count,
                              stream));
}

extern "C" void mgpuMemset16(void *dst, unsigned short value, size_t count,
                             MgpuStream stream) {
  CUDA_CHECK(cuMemsetD16Async(reinterpret_cast<CUdeviceptr>(dst), value, count,
                              stream));
}

extern "C" void mgpuSetDefaultDevice(int32_t device) { defaultDevice = device; }

extern "C" void
mgpuTensorMapEncodeTiled(void *tensorMap, int tensorDataType,
                         uint32_t tensorRank, void *globalAddress,
                         const uint64_t *globalDim,
                         const uint64_t *globalStrides, const uint32_t *boxDim,
                         const uint32_t *elementStrides, int interleave,
                         int swizzle, int l2Promotion, int oobFill) {
  if (!driver.cuTensorMapEncodeTiled) {
    check(1, "cuTensorMapEncodeTiled (absent: the driver predates CUDA 12)");
    return;
  }
  CUDA_CHECK(cuTensorMapEncodeTiled(tensorMap, tensorDataType, tensorRank,
                                    globalAddress, globalDim, globalStrides,
                                    boxDim, elementStrides, interleave, swizzle,
                                    l2Promotion, oobFill));
}

//===----------------------------------------------------------------------===//
// The C interface of step libraries
//===----------------------------------------------------------------------===//

/// Copies `message` into `buffer` of `size` bytes (truncated, terminated).
static void copyMessage(const std::string &message, char *buffer,
                        size_t size) {
  if (!buffer || !size)
    return;
  size_t n = std::min(message.size(), size - 1);
  memcpy(buffer, message.data(), n);
  buffer[n] = 0;
}

extern "C" int mpCudaLoadDriver(const char *path, char *error, size_t size) {
  std::string message = mp::loadCudaDriverLibrary(path);
  copyMessage(message, error, size);
  return message.empty() ? 0 : 1;
}

extern "C" int mpCudaTakeError(char *message, size_t size) {
  std::string error = mp::takeFirstCudaError();
  copyMessage(error, message, size);
  return error.empty() ? 0 : 1;
}

extern "C" void mpCudaSetStepStream(MgpuStream stream) {
  mp::setCudaStepStream(stream);
}

extern "C" void mpCudaGetAllocatorStats(uint64_t *counts) {
  mp::CudaAllocatorStats stats = mp::getCudaAllocatorStats();
  counts[0] = stats.requests;
  counts[1] = stats.driverAllocations;
  counts[2] = stats.driverBytes;
  counts[3] = stats.live;
}
