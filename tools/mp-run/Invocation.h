//===- Invocation.h - Calling an entry point --------------------*- C++ -*-===//
//
// The host buffers of one call of a lowered entry point (arguments, then one
// out-parameter per result, as memref descriptors) and the packed call into
// its C interface; results fed back as the next step's arguments swap
// buffers rather than copy.
//
//===----------------------------------------------------------------------===//

#ifndef MP_RUN_INVOCATION_H
#define MP_RUN_INVOCATION_H

#include "EntryPoint.h"
#include "mp/Dialect/MP/IR/MPDialect.h"

#include "mlir/ExecutionEngine/ExecutionEngine.h"

namespace mp_run {

/// The buffers of one entry point and the packed call into it.
class Invocation {
public:
  Invocation(const EntryPoint &entry, void (*function)(void **))
      : function(function) {
    for (const ArgumentBinding &argument : entry.arguments)
      arguments.emplace_back(argument.spec);
    for (const ResultBinding &result : entry.results)
      results.emplace_back(result.spec);
    for (HostTensor &tensor : arguments)
      descriptors.emplace_back(tensor);
    for (HostTensor &tensor : results)
      descriptors.emplace_back(tensor);
    for (MemRefDescriptor &descriptor : descriptors)
      pointers.push_back(descriptor.get());
    for (void *&pointer : pointers)
      packed.push_back(&pointer);
  }

  void call() { function(packed.data()); }

  HostTensor &argument(size_t i) { return arguments[i]; }
  HostTensor &result(size_t i) { return results[i]; }
  size_t getNumArguments() const { return arguments.size(); }
  size_t getNumResults() const { return results.size(); }

  /// Points descriptor `i` (the arguments, then the results) at `data`, a
  /// buffer of its tensor's size elsewhere (device memory), instead of its
  /// host tensor; feedBack then no longer applies (DeviceBuffers swaps).
  void bindData(size_t i, void *data) {
    // The allocated and aligned pointers, the first two words (Tensor.h).
    auto *words = static_cast<int64_t *>(descriptors[i].get());
    words[0] = words[1] = reinterpret_cast<intptr_t>(data);
  }

  /// Makes result `r` the new argument `a` (and gives the result the old
  /// argument's buffer to overwrite next time).
  void feedBack(size_t r, size_t a) {
    arguments[a].swap(results[r]);
    descriptors[a].rebind(arguments[a]);
    descriptors[arguments.size() + r].rebind(results[r]);
  }

private:
  void (*function)(void **);
  std::vector<HostTensor> arguments, results;
  std::vector<MemRefDescriptor> descriptors;
  std::vector<void *> pointers;
  std::vector<void *> packed;
};

/// The packed C interface of `entry` in `engine`.
inline llvm::Expected<void (*)(void **)>
lookupEntryPoint(mlir::ExecutionEngine &engine, const EntryPoint &entry) {
  return engine.lookupPacked(
      (mlir::mp::MPDialect::kCInterfacePrefix + entry.name).str());
}
} // namespace mp_run

#endif // MP_RUN_INVOCATION_H
