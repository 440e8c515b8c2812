//===- CudaSim.cpp - A simulated CUDA driver for tests without a GPU ------===//
//
// libmp_cuda_sim.so exports the CUDA driver functions that MixedPrec's CUDA
// runtime wrappers (lib/ExecutionEngine/CudaRuntime.cpp) resolve, so that
// `MP_CUDA_DRIVER=libmp_cuda_sim.so mp-run --device=cuda` runs a module
// lowered by mp-gpu-pipeline with binary-format=isa on the CPU:
//  - device memory is a shared memory arena (an unlinked temporary file of
//    MP_CUDA_SIM_ARENA_MB MiB, default 256, mapped in this process), so a
//    device pointer is an ordinary address and copies are memmove;
//  - cuModuleLoadData(Ex) takes PTX text and hands it to a Python process
//    running tools/bench/ptx_sim_launch.py (started once, on the first
//    load, with the arena's file descriptor), which parses it; the
//    module's variables (`.global`/`.const`: a device-resident step's
//    constant globals) get arena blocks, which the simulator initialises,
//    until the module is unloaded;
//  - cuLaunchKernel sends the launch (grid, block, dynamic shared memory,
//    each parameter's bytes, sized from the PTX's .entry header) and waits:
//    ptx_sim.simulate_grid runs every block, so launches complete in order
//    and streams and events are trivial;
//  - cuTensorMapEncodeTiled writes the simulator's 128-byte encoding of a
//    tensor map (ptx_sim.py, TENSOR_MAP_LAYOUT: the contract's layout with
//    the arrays shrunk to rank 3).
// MP_CUDA_SIM_PYTHON (default /usr/bin/python3) and MP_CUDA_SIM_LAUNCHER
// (default the source tree's tools/bench/ptx_sim_launch.py) locate the
// simulator. MP_CUDA_SIM_LOG=1 prints each driver allocation and launch on
// stderr, with each copy (its direction, and whether its host side is
// page-locked, cuMemHostAlloc, or pageable) and synchronisation;
// MP_CUDA_SIM_STATS=1 prints their counts at exit.
// Only what the wrappers use is implemented; cubins are rejected.
//
//===----------------------------------------------------------------------===//

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>
#include <spawn.h>
#include <string>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

extern char **environ;

namespace {
using CUresult = int;
constexpr CUresult kSuccess = 0, kInvalidValue = 1, kOutOfMemory = 2,
                   kNotInitialized = 3, kInvalidImage = 200, kNotFound = 500,
                   kLaunchFailed = 719, kUnknown = 999;

struct Function {
  int module;
  std::string name;
  std::vector<size_t> paramSizes;
};

struct Simulator {
  std::mutex mutex;
  bool initialized = false;
  int arenaFd = -1;
  char *arena = nullptr;
  size_t arenaSize = 0, arenaTop = 0;
  std::multimap<size_t, size_t> freeBlocks; // size -> offset
  std::map<size_t, size_t> liveBlocks;      // offset -> size
  pid_t child = -1;
  FILE *requests = nullptr, *replies = nullptr;
  int nextModule = 1;
  std::map<int, std::map<std::string, std::vector<size_t>>> modules;
  /// The device memory of each module's variables (`.global`/`.const`),
  /// allocated when it is loaded and freed when it is unloaded.
  std::map<int, std::vector<uintptr_t>> moduleVariables;
  /// The functions handed out per module and kernel name (one handle each, as
  /// the driver's; freed with their module).
  std::map<std::pair<int, std::string>, std::unique_ptr<Function>> functions;
  bool log = false;
  /// Page-locked host blocks (cuMemHostAlloc): address -> size.
  std::map<uintptr_t, size_t> pinned;
  /// What MP_CUDA_SIM_STATS=1 prints at exit.
  struct {
    unsigned long long launches = 0, streamSynchronizes = 0,
                       eventSynchronizes = 0, eventRecords = 0,
                       hostToDevice = 0, pinnedToDevice = 0, deviceToHost = 0,
                       deviceToPinned = 0, deviceToDevice = 0,
                       pinnedAllocations = 0;
  } counts;
};

Simulator &sim() {
  static auto *simulator = new Simulator;
  return *simulator;
}

/// Prints the counts of MP_CUDA_SIM_STATS=1 (at exit).
void printStats() {
  Simulator &s = sim();
  auto &c = s.counts;
  fprintf(stderr,
          "mp-cuda-sim: %llu launches, %llu cuStreamSynchronize, %llu "
          "cuEventSynchronize, %llu cuEventRecord; copies: %llu pageable host "
          "to device, %llu pinned host to device, %llu device to pageable "
          "host, %llu device to pinned host, %llu device to device; %llu "
          "cuMemHostAlloc\n",
          c.launches, c.streamSynchronizes, c.eventSynchronizes, c.eventRecords,
          c.hostToDevice, c.pinnedToDevice, c.deviceToHost, c.deviceToPinned,
          c.deviceToDevice, c.pinnedAllocations);
}

void fail(const std::string &message) {
  fprintf(stderr, "mp-cuda-sim: %s\n", message.c_str());
}

CUresult initialize(Simulator &s) {
  if (s.initialized)
    return kSuccess;
  s.log = getenv("MP_CUDA_SIM_LOG") && *getenv("MP_CUDA_SIM_LOG") == '1';
  if (getenv("MP_CUDA_SIM_STATS") && *getenv("MP_CUDA_SIM_STATS") == '1')
    atexit(printStats);
  size_t megabytes = 256;
  if (const char *value = getenv("MP_CUDA_SIM_ARENA_MB"))
    megabytes = strtoull(value, nullptr, 10);
  s.arenaSize = megabytes << 20;
  const char *dir = getenv("TMPDIR");
  std::string path =
      std::string(dir && *dir ? dir : "/tmp") + "/mp-cuda-sim-XXXXXX";
  std::vector<char> name(path.begin(), path.end());
  name.push_back(0);
  s.arenaFd = mkstemp(name.data());
  if (s.arenaFd < 0) {
    fail("cannot create the arena '" + path + "': " + strerror(errno));
    return kNotInitialized;
  }
  unlink(name.data());
  if (ftruncate(s.arenaFd, s.arenaSize) != 0) {
    fail(std::string("cannot size the arena: ") + strerror(errno));
    return kNotInitialized;
  }
  void *mapped = mmap(nullptr, s.arenaSize, PROT_READ | PROT_WRITE, MAP_SHARED,
                      s.arenaFd, 0);
  if (mapped == MAP_FAILED) {
    fail(std::string("cannot map the arena: ") + strerror(errno));
    return kNotInitialized;
  }
  s.arena = static_cast<char *>(mapped);
  // Address 0 is never handed out: the first block starts at 256.
  s.arenaTop = 256;
  s.initialized = true;
  return kSuccess;
}

/// Starts the Python simulator with the arena's descriptor.
CUresult startSimulator(Simulator &s) {
  if (s.child > 0)
    return kSuccess;
  int toChild[2], fromChild[2];
  if (pipe(toChild) || pipe(fromChild)) {
    fail(std::string("pipe: ") + strerror(errno));
    return kUnknown;
  }
  const char *python = getenv("MP_CUDA_SIM_PYTHON");
  const char *launcher = getenv("MP_CUDA_SIM_LAUNCHER");
  std::string pythonPath = python && *python ? python : "/usr/bin/python3";
  std::string launcherPath =
      launcher && *launcher ? launcher : MP_CUDA_SIM_DEFAULT_LAUNCHER;
  std::string fd = std::to_string(s.arenaFd);
  std::string size = std::to_string(s.arenaSize);
  char base[32];
  snprintf(
      base, sizeof(base), "%llx",
      static_cast<unsigned long long>(reinterpret_cast<uintptr_t>(s.arena)));
  std::vector<std::string> args = {pythonPath, launcherPath, "--serve",
                                   fd,         size,         base};
  std::vector<char *> argv;
  for (std::string &arg : args)
    argv.push_back(arg.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, toChild[0], 0);
  posix_spawn_file_actions_adddup2(&actions, fromChild[1], 1);
  posix_spawn_file_actions_addclose(&actions, toChild[1]);
  posix_spawn_file_actions_addclose(&actions, fromChild[0]);
  int error = posix_spawn(&s.child, pythonPath.c_str(), &actions, nullptr,
                          argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(toChild[0]);
  close(fromChild[1]);
  if (error) {
    fail("cannot start '" + pythonPath + "': " + strerror(error));
    s.child = -1;
    return kUnknown;
  }
  s.requests = fdopen(toChild[1], "w");
  s.replies = fdopen(fromChild[0], "r");
  return kSuccess;
}

/// Sends `request` (and `payload`), returns the reply line.
bool exchange(Simulator &s, const std::string &request,
              const std::string &payload, std::string &reply) {
  if (fputs(request.c_str(), s.requests) < 0 ||
      fwrite(payload.data(), 1, payload.size(), s.requests) != payload.size() ||
      fflush(s.requests) != 0) {
    fail("the simulator process is gone");
    return false;
  }
  reply.clear();
  int c;
  while ((c = fgetc(s.replies)) != EOF && c != '\n')
    reply += static_cast<char>(c);
  if (c == EOF) {
    fail("the simulator process ended (see its messages above)");
    return false;
  }
  return true;
}

bool inArena(Simulator &s, uintptr_t address) {
  uintptr_t base = reinterpret_cast<uintptr_t>(s.arena);
  return address >= base && address < base + s.arenaSize;
}

/// True when [address, address + size) lies in one page-locked host block.
bool isPinned(Simulator &s, uintptr_t address, size_t size) {
  auto it = s.pinned.upper_bound(address);
  return it != s.pinned.begin() &&
         address + size <= std::prev(it)->first + std::prev(it)->second;
}

/// Allocates `size` bytes of the arena (256-byte aligned), with the lock
/// held.
CUresult allocate(Simulator &s, size_t size, uintptr_t &pointer) {
  size_t rounded = (std::max<size_t>(size, 1) + 255) & ~size_t(255);
  size_t offset;
  auto it = s.freeBlocks.find(rounded);
  if (it != s.freeBlocks.end()) {
    offset = it->second;
    s.freeBlocks.erase(it);
  } else {
    if (s.arenaTop + rounded > s.arenaSize) {
      fail("out of device memory: " + std::to_string(size) +
           " bytes more than the arena's " + std::to_string(s.arenaSize) +
           " (MP_CUDA_SIM_ARENA_MB)");
      return kOutOfMemory;
    }
    offset = s.arenaTop;
    s.arenaTop += rounded;
  }
  s.liveBlocks[offset] = rounded;
  pointer = reinterpret_cast<uintptr_t>(s.arena + offset);
  return kSuccess;
}

/// Frees an arena block of allocate's, with the lock held.
CUresult release(Simulator &s, uintptr_t pointer) {
  if (!inArena(s, pointer))
    return kInvalidValue;
  size_t offset = pointer - reinterpret_cast<uintptr_t>(s.arena);
  auto it = s.liveBlocks.find(offset);
  if (it == s.liveBlocks.end())
    return kInvalidValue;
  s.freeBlocks.emplace(it->second, offset);
  s.liveBlocks.erase(it);
  return kSuccess;
}

CUresult loadModule(int **module, const void *image) {
  Simulator &s = sim();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (CUresult result = initialize(s))
    return result;
  const char *text = static_cast<const char *>(image);
  // PTX is text; a cubin (ELF) or fat binary cannot be simulated.
  if (!text || !strstr(text, ".entry")) {
    fail("cuModuleLoadData: not PTX text (lower with "
         "mp-gpu-pipeline{binary-format=isa} to simulate)");
    return kInvalidImage;
  }
  if (CUresult result = startSimulator(s))
    return result;
  int id = s.nextModule++;
  std::string payload(text);
  std::string reply;
  if (!exchange(s,
                "load " + std::to_string(id) + " " +
                    std::to_string(payload.size()) + "\n",
                payload, reply))
    return kUnknown;
  if (reply.compare(0, 2, "ok") != 0) {
    fail("cuModuleLoadData: " + reply);
    return kInvalidImage;
  }
  // "ok NAME:S,S NAME:..." with each parameter's bytes, then
  // "@NAME:BYTES:ALIGN" for each module variable, which the driver places
  // in device memory and the simulator initialises.
  auto &kernels = s.modules[id];
  std::string placement = "place " + std::to_string(id);
  size_t position = 2;
  while (position < reply.size()) {
    size_t start = reply.find_first_not_of(' ', position);
    if (start == std::string::npos)
      break;
    size_t end = reply.find(' ', start);
    std::string entry = reply.substr(start, end - start);
    size_t colon = entry.find(':');
    position = end == std::string::npos ? reply.size() : end;
    if (entry[0] == '@') {
      size_t second = entry.find(':', colon + 1);
      size_t bytes = std::stoull(entry.substr(colon + 1, second - colon - 1));
      size_t align = std::stoull(entry.substr(second + 1));
      std::string name = entry.substr(1, colon - 1);
      if (align > 256) {
        fail("cuModuleLoadData: module variable " + name + " aligned to " +
             std::to_string(align) + " bytes, more than the arena's 256");
        return kInvalidImage;
      }
      uintptr_t pointer;
      if (CUresult result = allocate(s, bytes, pointer))
        return result;
      s.moduleVariables[id].push_back(pointer);
      char address[32];
      snprintf(address, sizeof(address), "%llx",
               static_cast<unsigned long long>(pointer));
      placement += " " + name + "=" + address;
      if (s.log)
        fprintf(stderr, "mp-cuda-sim: module %d variable %s: %zu bytes\n", id,
                name.c_str(), bytes);
      continue;
    }
    std::vector<size_t> sizes;
    for (size_t p = colon + 1; p < entry.size();) {
      size_t comma = entry.find(',', p);
      sizes.push_back(std::stoull(entry.substr(p, comma - p)));
      p = comma == std::string::npos ? entry.size() : comma + 1;
    }
    kernels[entry.substr(0, colon)] = sizes;
  }
  if (s.moduleVariables.count(id)) {
    if (!exchange(s, placement + "\n", "", reply))
      return kUnknown;
    if (reply != "ok") {
      fail("cuModuleLoadData: " + reply);
      return kInvalidImage;
    }
  }
  *module = new int(id);
  return kSuccess;
}
} // namespace

extern "C" {

CUresult cuInit(unsigned) {
  Simulator &s = sim();
  std::lock_guard<std::mutex> lock(s.mutex);
  return initialize(s);
}

CUresult cuGetErrorName(CUresult error, const char **name) {
  switch (error) {
  case kSuccess:
    *name = "CUDA_SUCCESS";
    break;
  case kInvalidValue:
    *name = "CUDA_ERROR_INVALID_VALUE";
    break;
  case kOutOfMemory:
    *name = "CUDA_ERROR_OUT_OF_MEMORY";
    break;
  case kNotInitialized:
    *name = "CUDA_ERROR_NOT_INITIALIZED";
    break;
  case kInvalidImage:
    *name = "CUDA_ERROR_INVALID_IMAGE";
    break;
  case kNotFound:
    *name = "CUDA_ERROR_NOT_FOUND";
    break;
  case kLaunchFailed:
    *name = "CUDA_ERROR_LAUNCH_FAILED";
    break;
  default:
    *name = "CUDA_ERROR_UNKNOWN";
    break;
  }
  return kSuccess;
}

CUresult cuDeviceGet(int *device, int ordinal) {
  if (ordinal != 0)
    return kInvalidValue;
  *device = 0;
  return kSuccess;
}

CUresult cuDevicePrimaryCtxRetain(void **context, int) {
  static int primary;
  *context = &primary;
  return kSuccess;
}

CUresult cuCtxSetCurrent(void *) { return kSuccess; }

CUresult cuModuleLoadData(int **module, const void *image) {
  return loadModule(module, image);
}

CUresult cuModuleLoadDataEx(int **module, const void *image, unsigned, int *,
                            void **) {
  return loadModule(module, image);
}

CUresult cuModuleUnload(int *module) {
  Simulator &s = sim();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.modules.erase(*module);
  for (uintptr_t pointer : s.moduleVariables[*module])
    release(s, pointer);
  s.moduleVariables.erase(*module);
  for (auto it = s.functions.lower_bound({*module, std::string()});
       it != s.functions.end() && it->first.first == *module;)
    it = s.functions.erase(it);
  delete module;
  return kSuccess;
}

CUresult cuModuleGetFunction(Function **function, int *module,
                             const char *name) {
  Simulator &s = sim();
  std::lock_guard<std::mutex> lock(s.mutex);
  auto it = s.modules.find(*module);
  if (it == s.modules.end())
    return kInvalidValue;
  auto kernel = it->second.find(name);
  if (kernel == it->second.end()) {
    fail(std::string("cuModuleGetFunction: no kernel '") + name + "'");
    return kNotFound;
  }
  std::unique_ptr<Function> &handle = s.functions[{*module, name}];
  if (!handle)
    handle.reset(new Function{*module, name, kernel->second});
  *function = handle.get();
  return kSuccess;
}

CUresult cuFuncSetAttribute(Function *, int, int) { return kSuccess; }

CUresult cuLaunchKernel(Function *function, unsigned gx, unsigned gy,
                        unsigned gz, unsigned bx, unsigned by, unsigned bz,
                        unsigned smem, void *, void **params, void **extra) {
  Simulator &s = sim();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (extra || (!params && !function->paramSizes.empty()))
    return kInvalidValue;
  std::string request =
      "launch " + std::to_string(function->module) + " " + function->name;
  for (unsigned value : {gx, gy, gz, bx, by, bz, smem})
    request += " " + std::to_string(value);
  static const char digits[] = "0123456789abcdef";
  for (size_t i = 0; i < function->paramSizes.size(); ++i) {
    request += ' ';
    auto *bytes = static_cast<const unsigned char *>(params[i]);
    for (size_t b = 0; b < function->paramSizes[i]; ++b) {
      request += digits[bytes[b] >> 4];
      request += digits[bytes[b] & 15];
    }
  }
  ++s.counts.launches;
  if (s.log)
    fprintf(stderr, "mp-cuda-sim: launch %s grid (%u, %u, %u) block %u\n",
            function->name.c_str(), gx, gy, gz, bx);
  std::string reply;
  if (!exchange(s, request + "\n", "", reply))
    return kLaunchFailed;
  if (reply != "ok") {
    fail("cuLaunchKernel " + function->name + ": " + reply);
    return kLaunchFailed;
  }
  return kSuccess;
}

CUresult cuStreamCreate(void **stream, unsigned) {
  static int streams;
  *stream = reinterpret_cast<void *>(static_cast<uintptr_t>(++streams));
  return kSuccess;
}
CUresult cuStreamDestroy_v2(void *) { return kSuccess; }
CUresult cuStreamSynchronize(void *) {
  Simulator &s = sim();
  std::lock_guard<std::mutex> lock(s.mutex);
  ++s.counts.streamSynchronizes;
  if (s.log)
    fprintf(stderr, "mp-cuda-sim: cuStreamSynchronize\n");
  return kSuccess;
}
CUresult cuStreamWaitEvent(void *, void *, unsigned) { return kSuccess; }
CUresult cuEventCreate(void **event, unsigned) {
  *event = new char;
  return kSuccess;
}
CUresult cuEventDestroy_v2(void *event) {
  delete static_cast<char *>(event);
  return kSuccess;
}
CUresult cuEventSynchronize(void *) {
  Simulator &s = sim();
  std::lock_guard<std::mutex> lock(s.mutex);
  ++s.counts.eventSynchronizes;
  if (s.log)
    fprintf(stderr, "mp-cuda-sim: cuEventSynchronize\n");
  return kSuccess;
}
// Launches and copies complete before their call returns: every recorded
// event has completed.
CUresult cuEventQuery(void *) { return kSuccess; }
CUresult cuEventRecord(void *, void *) {
  Simulator &s = sim();
  std::lock_guard<std::mutex> lock(s.mutex);
  ++s.counts.eventRecords;
  return kSuccess;
}

CUresult cuMemHostAlloc(void **pointer, size_t size, unsigned) {
  Simulator &s = sim();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (!s.initialized)
    return kNotInitialized;
  void *block = calloc(1, std::max<size_t>(size, 1));
  if (!block)
    return kOutOfMemory;
  s.pinned[reinterpret_cast<uintptr_t>(block)] = std::max<size_t>(size, 1);
  ++s.counts.pinnedAllocations;
  if (s.log)
    fprintf(stderr, "mp-cuda-sim: cuMemHostAlloc %zu bytes\n", size);
  *pointer = block;
  return kSuccess;
}

CUresult cuMemFreeHost(void *pointer) {
  Simulator &s = sim();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (!s.pinned.erase(reinterpret_cast<uintptr_t>(pointer)))
    return kInvalidValue;
  free(pointer);
  return kSuccess;
}

CUresult cuMemAlloc_v2(unsigned long long *pointer, size_t size) {
  Simulator &s = sim();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (!s.initialized)
    return kNotInitialized;
  uintptr_t address;
  if (CUresult result = allocate(s, size, address))
    return result;
  *pointer = address;
  if (s.log)
    fprintf(stderr, "mp-cuda-sim: cuMemAlloc %zu bytes\n", size);
  return kSuccess;
}

CUresult cuMemAllocManaged(unsigned long long *pointer, size_t size, unsigned) {
  return cuMemAlloc_v2(pointer, size);
}

CUresult cuMemFree_v2(unsigned long long pointer) {
  Simulator &s = sim();
  std::lock_guard<std::mutex> lock(s.mutex);
  return release(s, pointer);
}

CUresult cuMemcpyAsync(unsigned long long dst, unsigned long long src,
                       size_t size, void *) {
  Simulator &s = sim();
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    bool fromDevice = inArena(s, src), toDevice = inArena(s, dst);
    const char *kind = "device to device";
    if (fromDevice && toDevice) {
      ++s.counts.deviceToDevice;
    } else if (toDevice) {
      bool pinned = isPinned(s, src, size);
      ++(pinned ? s.counts.pinnedToDevice : s.counts.hostToDevice);
      kind = pinned ? "pinned host to device" : "pageable host to device";
    } else if (fromDevice) {
      bool pinned = isPinned(s, dst, size);
      ++(pinned ? s.counts.deviceToPinned : s.counts.deviceToHost);
      kind = pinned ? "device to pinned host" : "device to pageable host";
    } else {
      kind = "host to host";
    }
    if (s.log)
      fprintf(stderr, "mp-cuda-sim: cuMemcpyAsync %zu bytes %s\n", size, kind);
  }
  memmove(reinterpret_cast<void *>(dst), reinterpret_cast<void *>(src), size);
  return kSuccess;
}

CUresult cuMemsetD32Async(unsigned long long dst, unsigned value, size_t count,
                          void *) {
  auto *words = reinterpret_cast<uint32_t *>(dst);
  for (size_t i = 0; i < count; ++i)
    words[i] = value;
  return kSuccess;
}

CUresult cuMemsetD16Async(unsigned long long dst, unsigned short value,
                          size_t count, void *) {
  auto *halves = reinterpret_cast<uint16_t *>(dst);
  for (size_t i = 0; i < count; ++i)
    halves[i] = value;
  return kSuccess;
}

/// The simulator's tensor map (ptx_sim.py TENSOR_MAP_LAYOUT, "<QII3Q2Q3I3I4I"
/// padded to 128 bytes).
CUresult cuTensorMapEncodeTiled(void *tensorMap, int dataType, uint32_t rank,
                                void *address, const uint64_t *dims,
                                const uint64_t *strides, const uint32_t *box,
                                const uint32_t *elementStrides, int interleave,
                                int swizzle, int l2Promotion, int oobFill) {
  // CUtensorMapDataType: element bytes.
  static const uint32_t elementBytes[] = {1, 2, 4, 4, 8, 8, 2,
                                          4, 8, 2, 4, 4, 4};
  if (rank < 1 || rank > 3 || dataType < 0 || dataType > 12) {
    fail("cuTensorMapEncodeTiled: the simulator encodes ranks 1-3 and data "
         "types 0-12, got rank " +
         std::to_string(rank) + ", type " + std::to_string(dataType));
    return kInvalidValue;
  }
  unsigned char out[128] = {0};
  size_t at = 0;
  auto put = [&](uint64_t value, size_t bytes) {
    memcpy(out + at, &value, bytes); // little-endian hosts
    at += bytes;
  };
  put(reinterpret_cast<uintptr_t>(address), 8);
  put(rank, 4);
  put(elementBytes[dataType], 4);
  for (uint32_t i = 0; i < 3; ++i)
    put(i < rank ? dims[i] : 0, 8);
  for (uint32_t i = 0; i < 2; ++i)
    put(i + 1 < rank ? strides[i] : 0, 8);
  for (uint32_t i = 0; i < 3; ++i)
    put(i < rank ? box[i] : 0, 4);
  for (uint32_t i = 0; i < 3; ++i)
    put(i < rank ? elementStrides[i] : 0, 4);
  for (int value : {interleave, swizzle, l2Promotion, oobFill})
    put(static_cast<uint32_t>(value), 4);
  memcpy(tensorMap, out, sizeof(out));
  return kSuccess;
}

} // extern "C"
