//===- Eval.cpp - Test accuracy of a classifier ---------------------------===//
//
// The classifier evaluation of --eval (Eval.h).
//
//===----------------------------------------------------------------------===//

#include "Eval.h"
#include "Batches.h"
#include "Data.h"
#include "Npy.h"
#include "Options.h"

#include "mp/Dialect/MP/IR/MPDialect.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Path.h"

using namespace mlir;
using namespace mp_run;

namespace mp_run {

llvm::Expected<EvalResult> evaluateClassifier(ExecutionEngine &engine,
                                              ModuleOp module,
                                              const EntryPoint &train,
                                              Invocation &trainCall) {
  auto function = module.lookupSymbol<LLVM::LLVMFuncOp>(evalFunctionName);
  if (!function)
    return llvm::createStringError("--eval: no function '@" + evalFunctionName +
                                   "' in '" + inputFilename + "'");
  llvm::Expected<EntryPoint> entry = readEntryPoint(function);
  if (!entry)
    return entry.takeError();
  if (llvm::Error error = checkCInterface(module, *entry))
    return std::move(error);
  llvm::Expected<void (*)(void **)> pointer = lookupEntryPoint(engine, *entry);
  if (!pointer)
    return pointer.takeError();
  Invocation call(*entry, *pointer);

  // Parameters, in order; forward state (batch-norm running statistics),
  // the k-th argument of a kind bound to the train step's k-th state
  // argument of that kind.
  SmallVector<unsigned> trainParams, dataArguments;
  for (auto [i, argument] : llvm::enumerate(train.arguments))
    if (argument.role == ArgumentRole::Param)
      trainParams.push_back(i);
  llvm::StringMap<unsigned> nextOfKind;
  size_t next = 0;
  for (auto [i, argument] : llvm::enumerate(entry->arguments)) {
    if (argument.role == ArgumentRole::Data) {
      dataArguments.push_back(i);
      continue;
    }
    if (argument.role == ArgumentRole::State) {
      const std::string &kind = argument.stateKind;
      if (!mp::MPDialect::isForwardStateKind(kind))
        return llvm::createStringError(
            "argument " + std::to_string(i) + " of '@" + entry->name +
            "' is mp.state \"" + kind +
            "\", which is not forward state; an eval function takes "
            "parameters, forward state (bn.*, rng, ...) and inputs");
      unsigned ordinal = nextOfKind[kind]++;
      std::optional<unsigned> match;
      unsigned seen = 0;
      for (auto [j, trainArgument] : llvm::enumerate(train.arguments))
        if (trainArgument.role == ArgumentRole::State &&
            trainArgument.stateKind == kind && seen++ == ordinal) {
          match = j;
          break;
        }
      if (!match)
        return llvm::createStringError(
            "argument " + std::to_string(i) + " of '@" + entry->name +
            "' is mp.state \"" + kind + "\" number " + std::to_string(ordinal) +
            " of its kind, but '@" + train.name + "' has " +
            std::to_string(seen) + " state arguments of that kind");
      if (!(argument.spec == train.arguments[*match].spec))
        return llvm::createStringError(
            "argument " + std::to_string(i) + " of '@" + entry->name + "' (" +
            argument.spec.str() + ") does not match state argument " +
            std::to_string(*match) + " of '@" + train.name + "' (" +
            train.arguments[*match].spec.str() + "), both \"" + kind + "\"");
      call.argument(i).convertFrom(trainCall.argument(*match));
      continue;
    }
    if (next >= trainParams.size() ||
        argument.spec.shape != train.arguments[trainParams[next]].spec.shape)
      return llvm::createStringError(
          "parameter argument " + std::to_string(i) + " of '@" + entry->name +
          "' (" + argument.spec.str() + ") does not match parameter " +
          std::to_string(next) + " of '@" + train.name + "'");
    call.argument(i).convertFrom(trainCall.argument(trainParams[next++]));
  }
  if (next != trainParams.size())
    return llvm::createStringError("'@" + entry->name + "' takes " +
                                   std::to_string(next) + " parameters, '@" +
                                   train.name + "' has " +
                                   std::to_string(trainParams.size()));
  if (entry->results.empty() || entry->results[0].spec.shape.size() != 2 ||
      !isFloatKind(entry->results[0].spec.kind))
    return llvm::createStringError("the first result of '@" + entry->name +
                                   "' must be float logits [batch, classes]");

  // Test data.
  std::optional<LabelledData> test;
  if (std::optional<std::string> dir = getFashionMNISTDir()) {
    llvm::Expected<LabelledData> data = loadFashionMNIST(*dir, "t10k");
    if (!data)
      return data.takeError();
    test.emplace(std::move(*data));
  } else if (StringRef(dataSpec).starts_with("npy:")) {
    StringRef dir = StringRef(dataSpec).drop_front(4);
    llvm::SmallString<256> inputsPath(dir), labelsPath(dir);
    llvm::sys::path::append(inputsPath, "eval_inputs.npy");
    llvm::sys::path::append(labelsPath, "eval_labels.npy");
    llvm::Expected<HostTensor> inputs = readNpy(inputsPath);
    if (!inputs)
      return inputs.takeError();
    llvm::Expected<HostTensor> labels = readNpy(labelsPath);
    if (!labels)
      return labels.takeError();
    if (inputs->getSpec().shape.empty() ||
        labels->getSpec().shape.size() != 1 ||
        isFloatKind(labels->getSpec().kind) ||
        labels->getSpec().shape[0] != inputs->getSpec().shape[0])
      return llvm::createStringError(
          "'" + inputsPath + "' and '" + labelsPath +
          "' must hold [N, ...] inputs and [N] integer labels");
    test.emplace(LabelledData{std::move(*inputs), std::move(*labels)});
  } else {
    return llvm::createStringError(
        "--eval needs test data: --data=fashion-mnist[:DIR] or npy:DIR with "
        "eval_inputs.npy and eval_labels.npy");
  }

  int64_t count = test->inputs.getSpec().shape.front();
  int64_t features =
      test->inputs.getNumElements() / std::max<int64_t>(count, 1);
  int inputArgument, unused;
  if (llvm::Error error =
          bindClassifierData(*entry, dataArguments, features,
                             /*needLabels=*/false, inputArgument, unused))
    return std::move(error);
  HostTensor &batch = call.argument(inputArgument);
  int64_t batchSize = batch.getSpec().shape.front();
  HostTensor &logits = call.result(0);
  int64_t classes = logits.getSpec().shape[1];
  if (logits.getSpec().shape[0] != batchSize)
    return llvm::createStringError("the logits of '@" + entry->name +
                                   "' do not have the batch size " +
                                   std::to_string(batchSize));

  EvalResult result;
  SmallVector<int64_t> indices;
  for (int64_t start = 0; start < count; start += batchSize) {
    // The last batch is padded with copies of sample 0; their predictions
    // are ignored.
    int64_t valid = std::min(batchSize, count - start);
    indices.clear();
    for (int64_t i = 0; i < batchSize; ++i)
      indices.push_back(i < valid ? start + i : 0);
    gatherSamples(test->inputs, indices, batch);
    call.call();
    for (int64_t i = 0; i < valid; ++i) {
      int64_t best = 0;
      for (int64_t c = 1; c < classes; ++c)
        if (logits.get(i * classes + c) > logits.get(i * classes + best))
          best = c;
      result.correct +=
          best == static_cast<int64_t>(test->labels.get(start + i));
    }
    result.total += valid;
  }
  return result;
}

} // namespace mp_run
