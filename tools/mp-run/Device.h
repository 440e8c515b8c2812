//===- Device.h - Device-resident buffers of a train step -------*- C++ -*-===//
//
// A module that mp-gpu-pipeline lowered with the whole step on the device
// carries `mp.device_resident`: every memref argument and out-parameter of
// its entry points is device memory. DeviceBuffers gives an Invocation one
// device buffer per argument and result (through the CUDA runtime wrappers'
// caching allocator), copies the initial parameters and state in once,
// and then per step copies in only the data arguments and out only the
// results and state the runner reads (the loss, the skipped flag, the
// loss-scale state); results fed back swap device buffers. The host tensors
// of the Invocation hold the initial values and, after copyAllToHost, the
// final ones.
//
// The copies go on the default stream, which the lowered step's work is
// ordered after (it launches there or synchronises its own streams), and
// the runner reads what it copied out after synchronising that stream once
// per step.
//
//===----------------------------------------------------------------------===//

#ifndef MP_RUN_DEVICE_H
#define MP_RUN_DEVICE_H

#include "Invocation.h"

namespace mp_run {

class DeviceBuffers {
public:
  /// Allocates the device buffers of `call`, binds its descriptors to them
  /// and copies every argument in.
  explicit DeviceBuffers(Invocation &call);
  ~DeviceBuffers();

  /// Queues the copy of argument `a` from its host tensor to the device.
  void copyArgumentIn(size_t a);
  /// Queues the copy of argument `a` / result `r` to its host tensor.
  void copyArgumentOut(size_t a);
  void copyResultOut(size_t r);
  /// Waits for the queued copies.
  void synchronize();
  /// Copies every argument to its host tensor and waits.
  void copyAllToHost();
  /// Makes result `r` the new argument `a` on the device.
  void feedBack(size_t r, size_t a);

private:
  Invocation &call;
  /// The arguments' buffers, then the results'.
  std::vector<void *> buffers;
};

} // namespace mp_run

#endif // MP_RUN_DEVICE_H
