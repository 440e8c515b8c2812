//===- Device.cpp - Device-resident buffers of a train step ---------------===//
//
// DeviceBuffers (Device.h) over the CUDA runtime wrappers.
//
//===----------------------------------------------------------------------===//

#include "Device.h"

#include <cstring>

using namespace mp_run;

/// The offset of each of `buffers` (bytes `sizeOf(buffer)`) in one slot,
/// 16-byte aligned pieces; returns the slot's bytes.
template <typename SizeOf>
static size_t layOut(std::vector<std::pair<size_t, size_t>> &buffers,
                     SizeOf sizeOf) {
  size_t bytes = 0;
  for (auto &[buffer, offset] : buffers) {
    offset = bytes;
    bytes += (sizeOf(buffer) + 15) & ~size_t(15);
  }
  return bytes;
}

DeviceBuffers::DeviceBuffers(Invocation &call,
                             llvm::ArrayRef<size_t> stagedResults,
                             llvm::ArrayRef<size_t> stagedArguments,
                             llvm::ArrayRef<size_t> batchArguments)
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
  auto sizeOf = [&](size_t buffer) { return tensor(buffer).getNumBytes(); };
  slotBytes = layOut(staged, sizeOf);
  for (unsigned s = 0; s < 2; ++s) {
    slots[s] = mlir::mp::allocatePinnedHost(slotBytes);
    events[s] = mgpuEventCreate();
  }
  for (size_t a : batchArguments)
    batch.emplace_back(a, 0);
  if (!batch.empty())
    batchStaging = std::make_unique<mlir::mp::PinnedStaging>(
        stream, layOut(batch, sizeOf));
  mgpuStreamSynchronize(stream);
}

DeviceBuffers::~DeviceBuffers() {
  mgpuStreamSynchronize(stream);
  batchStaging.reset();
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

void DeviceBuffers::copyBatchIn() {
  if (!batchStaging)
    return;
  char *slot = static_cast<char *>(batchStaging->acquire());
  if (slot)
    for (auto [a, offset] : batch) {
      const HostTensor &host = call.argument(a);
      memcpy(slot + offset, host.data(), host.getNumBytes());
      batchStaging->copyToDevice(buffers[a], offset, host.getNumBytes());
    }
  batchStaging->release();
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
