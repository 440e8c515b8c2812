//===- Arguments.cpp - Initial parameters and state -----------------------===//
//
// Initial values of parameters and state (Arguments.h).
//
//===----------------------------------------------------------------------===//

#include "Arguments.h"
#include "Npy.h"
#include "Options.h"

#include "llvm/Support/Path.h"

using namespace mlir;
using namespace mp_run;

namespace mp_run {

/// Fills `tensor` with the `mp.init` value `init` (dense or splat scalar).
static llvm::Error applyInitValue(Attribute init, HostTensor &tensor,
                                  unsigned index) {
  auto toDouble = [](Attribute element) -> std::optional<double> {
    if (auto value = dyn_cast<FloatAttr>(element))
      return value.getValueAsDouble();
    if (auto value = dyn_cast<IntegerAttr>(element))
      return static_cast<double>(value.getValue().getSExtValue());
    return std::nullopt;
  };
  if (std::optional<double> scalar = toDouble(init)) {
    for (int64_t i = 0, e = tensor.getNumElements(); i < e; ++i)
      tensor.set(i, *scalar);
    return llvm::Error::success();
  }
  auto dense = dyn_cast<DenseElementsAttr>(init);
  if (!dense || dense.getNumElements() != tensor.getNumElements())
    return llvm::createStringError(
        "the mp.init value of argument " + std::to_string(index) +
        " is neither a scalar nor a dense value of its type");
  int64_t i = 0;
  for (Attribute element : dense.getValues<Attribute>()) {
    std::optional<double> value = toDouble(element);
    if (!value)
      return llvm::createStringError("unsupported mp.init element in "
                                     "argument " +
                                     std::to_string(index));
    tensor.set(i++, *value);
  }
  return llvm::Error::success();
}

/// The rng state [seed, offset] (tensor<2xi64>, verified by the dialect):
/// its `mp.init` bit for bit when given, else [--seed, 0].
static void initializeRngState(Attribute init, HostTensor &tensor) {
  if (auto dense = dyn_cast_if_present<DenseIntElementsAttr>(init)) {
    int64_t i = 0;
    for (const APInt &word : dense.getValues<APInt>())
      tensor.setBits(i++, word.getZExtValue());
    return;
  }
  tensor.setBits(0, seed);
  tensor.setBits(1, 0);
}

std::string getArgumentPath(StringRef dir, unsigned index) {
  llvm::SmallString<256> path(dir);
  llvm::sys::path::append(path, "arg" + std::to_string(index) + ".npy");
  return path.str().str();
}

/// Loads `dir`/argN.npy into `tensor`, checking its shape and dtype.
static llvm::Error loadArgument(StringRef dir, unsigned index,
                                HostTensor &tensor, StringRef function) {
  std::string path = getArgumentPath(dir, index);
  llvm::Expected<HostTensor> file = readNpy(path);
  if (!file)
    return file.takeError();
  TensorSpec expected{getNpyStorageKind(tensor.getSpec().kind),
                      tensor.getSpec().shape};
  // Besides the exact dtype, a narrower float dtype widens exactly.
  ElementKind from = file->getSpec().kind, to = expected.kind;
  bool widens = (from == ElementKind::F16 &&
                 (to == ElementKind::F32 || to == ElementKind::F64)) ||
                (from == ElementKind::F32 && to == ElementKind::F64);
  if (file->getSpec().shape != expected.shape || (from != to && !widens))
    return llvm::createStringError(
        "'" + path + "' holds " + file->getSpec().str() + ", but argument " +
        std::to_string(index) + " of '@" + function.str() + "' is " +
        tensor.getSpec().str() + " (expected a .npy of " + expected.str() +
        ")");
  tensor.convertFrom(*file);
  return llvm::Error::success();
}

llvm::Error initializeArguments(const EntryPoint &entry, Invocation &call) {
  SmallVector<HostTensor *> params;
  for (auto [i, argument] : llvm::enumerate(entry.arguments))
    if (argument.role == ArgumentRole::Param)
      params.push_back(&call.argument(i));
  if (loadDir.empty()) {
    initializeParameters(params, initScheme, seed);
  } else {
    for (auto [i, argument] : llvm::enumerate(entry.arguments))
      if (argument.role == ArgumentRole::Param)
        if (llvm::Error error =
                loadArgument(loadDir, i, call.argument(i), entry.name))
          return error;
  }
  for (auto [i, argument] : llvm::enumerate(entry.arguments)) {
    if (argument.role != ArgumentRole::State)
      continue;
    if (argument.copyOf >= 0) {
      call.argument(i).convertFrom(call.argument(argument.copyOf));
    } else if (argument.stateKind == "rng") {
      initializeRngState(argument.init, call.argument(i));
    } else if (argument.init) {
      if (llvm::Error error =
              applyInitValue(argument.init, call.argument(i), i))
        return error;
    } else if (argument.stateKind == "bn.running_var") {
      // PyTorch's BatchNorm: running_var 1 (running_mean and
      // num_batches_tracked 0, like every other state).
      HostTensor &tensor = call.argument(i);
      for (int64_t j = 0, e = tensor.getNumElements(); j < e; ++j)
        tensor.set(j, 1.0);
    }
  }
  return llvm::Error::success();
}

} // namespace mp_run
