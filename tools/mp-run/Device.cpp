//===- Device.cpp - Device-resident buffers of a train step ---------------===//
//
// DeviceBuffers (Device.h) over the CUDA runtime wrappers.
//
//===----------------------------------------------------------------------===//

#include "Device.h"

#include "mp/ExecutionEngine/CudaRuntime.h"

using namespace mp_run;

DeviceBuffers::DeviceBuffers(Invocation &call) : call(call) {
  size_t arguments = call.getNumArguments();
  for (size_t i = 0, e = arguments + call.getNumResults(); i < e; ++i) {
    HostTensor &tensor =
        i < arguments ? call.argument(i) : call.result(i - arguments);
    buffers.push_back(
        mgpuMemAlloc(tensor.getNumBytes(), nullptr, /*isHostShared=*/false));
    call.bindData(i, buffers.back());
  }
  for (size_t a = 0; a < arguments; ++a)
    copyArgumentIn(a);
  synchronize();
}

DeviceBuffers::~DeviceBuffers() {
  mgpuStreamSynchronize(nullptr);
  for (void *buffer : buffers)
    mgpuMemFree(buffer, nullptr);
}

void DeviceBuffers::copyArgumentIn(size_t a) {
  HostTensor &tensor = call.argument(a);
  mgpuMemcpy(buffers[a], tensor.data(), tensor.getNumBytes(), nullptr);
}

void DeviceBuffers::copyArgumentOut(size_t a) {
  HostTensor &tensor = call.argument(a);
  mgpuMemcpy(tensor.data(), buffers[a], tensor.getNumBytes(), nullptr);
}

void DeviceBuffers::copyResultOut(size_t r) {
  HostTensor &tensor = call.result(r);
  mgpuMemcpy(tensor.data(), buffers[call.getNumArguments() + r],
             tensor.getNumBytes(), nullptr);
}

void DeviceBuffers::synchronize() { mgpuStreamSynchronize(nullptr); }

void DeviceBuffers::copyAllToHost() {
  for (size_t a = 0, e = call.getNumArguments(); a < e; ++a)
    copyArgumentOut(a);
  synchronize();
}

void DeviceBuffers::feedBack(size_t r, size_t a) {
  size_t result = call.getNumArguments() + r;
  std::swap(buffers[a], buffers[result]);
  call.bindData(a, buffers[a]);
  call.bindData(result, buffers[result]);
}
