//===- Device.cpp - Device-resident buffers of a train step ---------------===//
//
// DeviceBuffers (Device.h) over the CUDA runtime wrappers.
//
//===----------------------------------------------------------------------===//

#include "Device.h"

#include <cstring>

using namespace mp_run;

DeviceBuffers::DeviceBuffers(Invocation &call,
                             llvm::ArrayRef<size_t> stagedResults,
                             llvm::ArrayRef<size_t> stagedArguments)
    : call(call), stream(mgpuStreamCreate()) {
  size_t arguments = call.getNumArguments();
  for (size_t i = 0, e = arguments + call.getNumResults(); i < e; ++i) {
    buffers.push_back(
        mgpuMemAlloc(tensor(i).getNumBytes(), stream, /*isHostShared=*/false));
    call.bindData(i, buffers.back());
  }
  for (size_t a = 0; a < arguments; ++a)
    copyArgumentIn(a);
  for (size_t a : stagedArguments)
    staged.emplace_back(a, 0);
  for (size_t r : stagedResults)
    staged.emplace_back(arguments + r, 0);
  for (auto &[buffer, offset] : staged) {
    offset = slotBytes;
    // 16-byte aligned pieces.
    slotBytes += (tensor(buffer).getNumBytes() + 15) & ~size_t(15);
  }
  for (unsigned s = 0; s < 2; ++s) {
    slots[s] = mlir::mp::allocatePinnedHost(slotBytes);
    events[s] = mgpuEventCreate();
  }
  mgpuStreamSynchronize(stream);
}

DeviceBuffers::~DeviceBuffers() {
  mgpuStreamSynchronize(stream);
  for (void *buffer : buffers)
    mgpuMemFree(buffer, stream);
  for (unsigned s = 0; s < 2; ++s) {
    mlir::mp::freePinnedHost(slots[s]);
    mgpuEventDestroy(events[s]);
  }
  mgpuStreamDestroy(stream);
}

HostTensor &DeviceBuffers::tensor(size_t buffer) {
  size_t arguments = call.getNumArguments();
  return buffer < arguments ? call.argument(buffer)
                            : call.result(buffer - arguments);
}

void DeviceBuffers::copyArgumentIn(size_t a) {
  HostTensor &host = call.argument(a);
  mgpuMemcpy(buffers[a], host.data(), host.getNumBytes(), stream);
}

void DeviceBuffers::stage(unsigned slot) {
  char *base = static_cast<char *>(slots[slot]);
  if (!base)
    return; // allocatePinnedHost reported the error
  for (auto [buffer, offset] : staged)
    mgpuMemcpy(base + offset, buffers[buffer], tensor(buffer).getNumBytes(),
               stream);
  mgpuEventRecord(events[slot], stream);
}

void DeviceBuffers::unstage(unsigned slot) {
  mgpuEventSynchronize(events[slot]);
  const char *base = static_cast<const char *>(slots[slot]);
  if (!base)
    return;
  for (auto [buffer, offset] : staged) {
    HostTensor &host = tensor(buffer);
    memcpy(host.data(), base + offset, host.getNumBytes());
  }
}

void DeviceBuffers::copyAllToHost() {
  for (size_t a = 0, e = call.getNumArguments(); a < e; ++a) {
    HostTensor &host = call.argument(a);
    mgpuMemcpy(host.data(), buffers[a], host.getNumBytes(), stream);
  }
  mgpuStreamSynchronize(stream);
}

void DeviceBuffers::feedBack(size_t r, size_t a) {
  size_t result = call.getNumArguments() + r;
  std::swap(buffers[a], buffers[result]);
  call.bindData(a, buffers[a]);
  call.bindData(result, buffers[result]);
}
