//===- Device.h - Device-resident buffers of a train step -------*- C++ -*-===//
//
// A module that mp-gpu-pipeline lowered with the whole step on the device
// carries `mp.device_resident`: every memref argument and out-parameter of
// its entry points is device memory. DeviceBuffers gives an Invocation one
// device buffer per argument and result (through the CUDA runtime wrappers'
// caching allocator), copies the initial parameters and state in once,
// and then per step copies in only the data arguments (the batch, through
// page-locked staging) and out only the results and state the runner reads (the
// loss, the skipped flag, the loss-scale state); results fed back swap device
// buffers. The host tensors of the Invocation hold the initial values and,
// after copyAllToHost, the final ones.
//
// Everything goes on one stream that DeviceBuffers owns, and the step is
// called with it as the step stream (CudaRuntime.h): the step enqueues its
// work there and returns without waiting. What a step's runner reads is
// staged: copied into one of two page-locked slots, behind an event, so
// that the runner enqueues step k + 1 before it waits for step k's loss; the
// only host synchronisation of a step is that event's. The batch goes the
// other way through a PinnedStaging (CudaRuntime.h): written into one of two
// page-locked slots and copied to the device asynchronously, so that the
// driver never waits for the stream before a step's batch copy returns.
//
//===----------------------------------------------------------------------===//

#ifndef MP_RUN_DEVICE_H
#define MP_RUN_DEVICE_H

#include "Invocation.h"

#include "mp/ExecutionEngine/CudaRuntime.h"

namespace mp_run {

class DeviceBuffers {
public:
  /// Allocates the device buffers of `call`, binds its descriptors to them
  /// and copies every argument in. The results `stagedResults` and the
  /// arguments `stagedArguments` are what stage() copies out; the arguments
  /// `batchArguments` are what copyBatchIn() copies in.
  DeviceBuffers(Invocation &call, llvm::ArrayRef<size_t> stagedResults,
                llvm::ArrayRef<size_t> stagedArguments,
                llvm::ArrayRef<size_t> batchArguments);
  ~DeviceBuffers();

  /// The stream of every copy; call the step with it as the step stream.
  MgpuStream getStream() const { return stream; }

  /// Queues the copy of argument `a` from its host tensor to the device.
  void copyArgumentIn(size_t a);
  /// Writes the host tensors of the batch arguments into the next
  /// page-locked batch slot and queues their copies to the device.
  void copyBatchIn();
  /// Queues the copies of the staged results and arguments into staging
  /// slot `slot` (0 or 1) and records the slot's event after them.
  void stage(unsigned slot);
  /// Waits for slot `slot`'s event and copies what it staged into the host
  /// tensors of those results and arguments.
  void unstage(unsigned slot);
  /// Copies every argument to its host tensor and waits.
  void copyAllToHost();
  /// Makes result `r` the new argument `a` on the device.
  void feedBack(size_t r, size_t a);

private:
  Invocation &call;
  MgpuStream stream;
  /// The arguments' buffers, then the results'.
  std::vector<void *> buffers;
  /// Staged buffers (indices into `buffers`) and their offsets in a slot.
  std::vector<std::pair<size_t, size_t>> staged;
  size_t slotBytes = 0;
  /// Two page-locked slots of slotBytes, and their events.
  void *slots[2] = {nullptr, nullptr};
  MgpuEvent events[2] = {nullptr, nullptr};
  /// The batch arguments and their offsets in a batch slot.
  std::vector<std::pair<size_t, size_t>> batch;
  std::unique_ptr<mlir::mp::PinnedStaging> batchStaging;

  HostTensor &tensor(size_t buffer);
};

} // namespace mp_run

#endif // MP_RUN_DEVICE_H
