//===- Batches.cpp - The batches of each step -----------------------------===//
//
// The data sources of --data (Batches.h).
//
//===----------------------------------------------------------------------===//

#include "Batches.h"
#include "Arguments.h"
#include "Npy.h"
#include "Options.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mp/Dialect/MP/IR/MPOps.h"
#include "llvm/ADT/StringMap.h"

using namespace mlir;
using namespace mp_run;

namespace mp_run {

/// Seeded N(0, 1) floats and integers in [0, bound), the bound of each
/// integer argument given (--num-classes, or fewer where the step indexes
/// fewer; i1: 2).
class RandomData : public DataSource {
public:
  RandomData(SmallVector<unsigned> dataArguments, SmallVector<int64_t> bounds)
      : dataArguments(std::move(dataArguments)), bounds(std::move(bounds)),
        random(seed, kDataStream) {}
  void fill(Invocation &call) override {
    for (auto [i, bound] : llvm::zip(dataArguments, bounds)) {
      HostTensor &tensor = call.argument(i);
      bool isFloat = isFloatKind(tensor.getSpec().kind);
      // Under mpirun: the values of the global batch, this rank's block.
      int64_t e = tensor.getNumElements(), first = processGroup.rank * e;
      for (int64_t j = 0; j < processGroup.size * e; ++j) {
        double value = isFloat ? random.normal()
                               : static_cast<double>(random.below(bound));
        if (j >= first && j < first + e)
          tensor.set(j - first, value);
      }
    }
  }

private:
  SmallVector<unsigned> dataArguments;
  SmallVector<int64_t> bounds;
  Random random;
};

/// Batches drawn from per-argument sample tensors.
class SampledData : public DataSource {
public:
  SampledData(SmallVector<unsigned> dataArguments,
              std::vector<HostTensor> samples, int64_t batchSize)
      : dataArguments(std::move(dataArguments)), samples(std::move(samples)),
        order(this->samples.front().getSpec().shape.front(),
              batchSize * processGroup.size, shuffle, seed),
        batchSize(batchSize) {}
  void fill(Invocation &call) override {
    // Under mpirun: this rank's slice of the global batch.
    ArrayRef<int64_t> batch =
        order.next().slice(processGroup.rank * batchSize, batchSize);
    for (auto [i, argument] : llvm::enumerate(dataArguments))
      gatherSamples(samples[i], batch, call.argument(argument));
  }

private:
  SmallVector<unsigned> dataArguments;
  std::vector<HostTensor> samples;
  BatchOrder order;
  int64_t batchSize;
};

/// The batch size of data arguments: their common first dimension (1 for
/// 0-d arguments).
static llvm::Expected<int64_t> getBatchSize(const EntryPoint &entry,
                                            ArrayRef<unsigned> dataArguments) {
  std::optional<int64_t> batch;
  for (unsigned i : dataArguments) {
    ArrayRef<int64_t> shape = entry.arguments[i].spec.shape;
    int64_t size = shape.empty() ? 1 : shape.front();
    if (batch && *batch != size)
      return llvm::createStringError(
          "the data arguments of '@" + entry.name +
          "' disagree on the batch size (their first dimension): " +
          std::to_string(*batch) + " and " + std::to_string(size));
    batch = size;
  }
  return batch.value_or(1);
}

namespace {
/// What the values of an integer data argument index: the bound they must
/// stay below, and the op that indexes with them (for diagnostics; a label
/// equal to its ignore_index is allowed too).
struct IndexBound {
  int64_t bound;
  std::string op, location;
  std::optional<int64_t> ignoreIndex;
};
} // namespace

/// Per function and data argument, the tightest IndexBound its values meet
/// in the mp ops that read them (through mp.reshape), recorded before
/// lowering.
static llvm::StringMap<llvm::DenseMap<unsigned, IndexBound>> indexBounds;

/// The data argument of a function that `value` is (through mp.reshape), if
/// any.
static std::optional<std::pair<func::FuncOp, unsigned>>
getDataArgument(Value value) {
  while (auto reshape = value.getDefiningOp<mp::ReshapeOp>())
    value = reshape.getInput();
  auto argument = dyn_cast<BlockArgument>(value);
  auto function =
      argument ? dyn_cast<func::FuncOp>(argument.getOwner()->getParentOp())
               : func::FuncOp();
  if (!function ||
      function.getArgAttr(argument.getArgNumber(),
                          mp::MPDialect::kParamAttrName) ||
      function.getArgAttr(argument.getArgNumber(),
                          mp::MPDialect::kStateAttrName))
    return std::nullopt;
  return std::make_pair(function, argument.getArgNumber());
}

void recordIndexBounds(ModuleOp module) {
  auto record = [](Operation *op, Value indices, int64_t bound,
                   std::optional<int64_t> ignoreIndex) {
    std::optional<std::pair<func::FuncOp, unsigned>> argument =
        getDataArgument(indices);
    if (!argument || ShapedType::isDynamic(bound))
      return;
    std::string location;
    llvm::raw_string_ostream os(location);
    if (auto file = dyn_cast<FileLineColLoc>(op->getLoc()))
      os << file.getFilename().getValue() << ":" << file.getLine() << ":"
         << file.getColumn();
    else
      op->getLoc().print(os);
    auto &bounds = indexBounds[argument->first.getName()];
    auto it = bounds.find(argument->second);
    if (it == bounds.end() || bound < it->second.bound)
      bounds[argument->second] = IndexBound{
          bound, op->getName().getStringRef().str(), location, ignoreIndex};
  };
  module.walk([&](Operation *op) {
    if (auto embedding = dyn_cast<mp::EmbeddingOp>(op))
      record(op, embedding.getIndices(),
             embedding.getTable().getType().getDimSize(0), std::nullopt);
    else if (auto loss = dyn_cast<mp::CrossEntropyOp>(op))
      record(op, loss.getLabels(),
             cast<ShapedType>(loss.getLogits().getType()).getDimSize(1),
             loss.getIgnoreIndex());
    else if (auto loss = dyn_cast<mp::NLLLossOp>(op))
      record(op, loss.getTargets(),
             cast<ShapedType>(loss.getInput().getType()).getDimSize(1),
             loss.getIgnoreIndex());
  });
}

/// The IndexBound of data argument `argument` of `entry`, if recorded.
static const IndexBound *getIndexBound(const EntryPoint &entry,
                                       unsigned argument) {
  auto bounds = indexBounds.find(entry.name);
  if (bounds == indexBounds.end())
    return nullptr;
  auto it = bounds->second.find(argument);
  return it == bounds->second.end() ? nullptr : &it->second;
}

/// What `bound` says about data argument `argument` of `entry`, for
/// diagnostics: "data argument 9 of '@f' indexes the 10 classes of
/// mp.cross_entropy at loc(...)".
static std::string describeBound(const EntryPoint &entry, unsigned argument,
                                 const IndexBound &bound) {
  return "data argument " + std::to_string(argument) + " of '@" + entry.name +
         "' indexes " + std::to_string(bound.bound) +
         (bound.op == "mp.embedding" ? " rows of " : " classes of ") +
         bound.op + " at " + bound.location;
}

/// Checks that the integer values of `samples` (the samples of data argument
/// `argument` of `entry`, from `source`) stay below their IndexBound.
static llvm::Error checkIndexBound(const EntryPoint &entry, unsigned argument,
                                   const HostTensor &samples,
                                   StringRef source) {
  const IndexBound *bound = getIndexBound(entry, argument);
  if (!bound || isFloatKind(samples.getSpec().kind))
    return llvm::Error::success();
  for (int64_t i = 0, e = samples.getNumElements(); i < e; ++i) {
    auto value = static_cast<int64_t>(samples.get(i));
    if ((value >= 0 && value < bound->bound) || value == bound->ignoreIndex)
      continue;
    return llvm::createStringError(
        source + " holds " + std::to_string(value) + " at element " +
        std::to_string(i) + ", outside [0, " + std::to_string(bound->bound) +
        "): " + describeBound(entry, argument, *bound));
  }
  return llvm::Error::success();
}

std::optional<std::string> getFashionMNISTDir() {
  StringRef spec = dataSpec;
  if (spec == "fashion-mnist")
    return std::string("/usr/share/datasets/fashion-mnist");
  if (spec.consume_front("fashion-mnist:"))
    return spec.str();
  return std::nullopt;
}

llvm::Error bindClassifierData(const EntryPoint &entry,
                               ArrayRef<unsigned> dataArguments,
                               int64_t features, bool needLabels, int &inputs,
                               int &labels) {
  inputs = labels = -1;
  bool unexpected = false;
  for (unsigned i : dataArguments) {
    const TensorSpec &spec = entry.arguments[i].spec;
    bool isFloat = isFloatKind(spec.kind);
    if (isFloat && inputs < 0 && !spec.shape.empty() &&
        spec.getNumElements() / spec.shape.front() == features)
      inputs = i;
    else if (!isFloat && labels < 0 && spec.shape.size() == 1 &&
             spec.kind != ElementKind::I1)
      labels = i;
    else
      unexpected = true;
  }
  if (unexpected || inputs < 0 || (needLabels ? labels < 0 : labels >= 0))
    return llvm::createStringError(
        "'@" + entry.name + "' does not take classifier data: expected " +
        "one float argument [batch, ...] with " + std::to_string(features) +
        " values per sample" +
        (needLabels ? " and one integer label argument [batch]" : "") +
        " besides its mp.param and mp.state arguments");
  return llvm::Error::success();
}

llvm::Expected<std::unique_ptr<DataSource>>
createDataSource(const EntryPoint &entry) {
  SmallVector<unsigned> dataArguments;
  for (auto [i, argument] : llvm::enumerate(entry.arguments))
    if (argument.role == ArgumentRole::Data)
      dataArguments.push_back(i);
  llvm::Expected<int64_t> batchSize = getBatchSize(entry, dataArguments);
  if (!batchSize)
    return batchSize.takeError();

  StringRef spec = dataSpec;
  if (spec == "random") {
    // --num-classes, checked against what each integer argument indexes;
    // by default 10, or fewer where the step indexes fewer.
    SmallVector<int64_t> bounds;
    for (unsigned i : dataArguments) {
      const IndexBound *bound = getIndexBound(entry, i);
      int64_t classes = numClasses;
      if (entry.arguments[i].spec.kind == ElementKind::I1)
        classes = 2;
      else if (bound && numClasses > bound->bound) {
        if (numClasses.getNumOccurrences())
          return llvm::createStringError(
              "--num-classes=" + std::to_string(numClasses) +
              " draws labels beyond the step's: " +
              describeBound(entry, i, *bound) + " (give --num-classes=" +
              std::to_string(bound->bound) + " or fewer)");
        classes = bound->bound;
      }
      bounds.push_back(classes);
    }
    return std::make_unique<RandomData>(dataArguments, std::move(bounds));
  }
  if (dataArguments.empty())
    return llvm::createStringError(
        "'@" + entry.name + "' has no data arguments for --data=" + dataSpec);

  std::vector<HostTensor> samples;
  if (std::optional<std::string> dir = getFashionMNISTDir()) {
    int inputs, labels;
    if (llvm::Error error =
            bindClassifierData(entry, dataArguments, 784,
                               /*needLabels=*/true, inputs, labels))
      return std::move(error);
    llvm::Expected<LabelledData> data = loadFashionMNIST(*dir, "train");
    if (!data)
      return data.takeError();
    for (unsigned i : dataArguments)
      samples.push_back(std::move(
          static_cast<int>(i) == inputs ? data->inputs : data->labels));
  } else if (spec.consume_front("npy:")) {
    for (unsigned i : dataArguments) {
      std::string path = getArgumentPath(spec, i);
      llvm::Expected<HostTensor> file = readNpy(path);
      if (!file)
        return file.takeError();
      const TensorSpec &argument = entry.arguments[i].spec;
      ArrayRef<int64_t> sampleShape =
          argument.shape.empty() ? ArrayRef<int64_t>()
                                 : ArrayRef(argument.shape).drop_front();
      ArrayRef<int64_t> fileShape = file->getSpec().shape;
      ElementKind kind = getNpyStorageKind(argument.kind);
      if (fileShape.empty() || fileShape.drop_front() != sampleShape ||
          file->getSpec().kind != kind)
        return llvm::createStringError(
            "'" + path + "' holds " + file->getSpec().str() +
            ", but data argument " + std::to_string(i) + " of '@" + entry.name +
            "' (" + argument.str() +
            ") needs samples stacked along dimension 0: " +
            TensorSpec{kind,
                       [&] {
                         SmallVector<int64_t> shape{-1};
                         shape.append(sampleShape.begin(), sampleShape.end());
                         return shape;
                       }()}
                .str());
      if (!samples.empty() &&
          fileShape.front() != samples.front().getSpec().shape.front())
        return llvm::createStringError("the .npy files in '" + spec.str() +
                                       "' hold different numbers of samples");
      samples.push_back(std::move(*file));
    }
  } else if (spec.consume_front("text:")) {
    // Ids and labels: two integer data arguments [B, T] of one shape.
    const TensorSpec &ids = entry.arguments[dataArguments.front()].spec;
    if (dataArguments.size() != 2 || isFloatKind(ids.kind) ||
        ids.shape.size() != 2 ||
        !(entry.arguments[dataArguments.back()].spec == ids))
      return llvm::createStringError(
          "'@" + entry.name + "' does not take language-model data: " +
          "--data=text expects two integer data arguments [batch, tokens] "
          "of one shape (token ids, then next-token labels)");
    const IndexBound *vocab = getIndexBound(entry, dataArguments.front());
    if (!vocab || vocab->op != "mp.embedding")
      return llvm::createStringError(
          "--data=text: no mp.embedding of '@" + entry.name +
          "' reads a data argument, so its vocabulary is unknown (give the "
          "mp-level step, not a lowered one)");
    llvm::Expected<LabelledData> text =
        loadTextWindows(spec, ids.shape[1], vocab->bound);
    if (!text)
      return text.takeError();
    samples.push_back(std::move(text->inputs));
    samples.push_back(std::move(text->labels));
  } else {
    return llvm::createStringError(
        "unknown --data '" + dataSpec +
        "' (expected random, npy:DIR, fashion-mnist[:DIR] or text:FILE)");
  }
  // Labels and ids the step would read out of bounds.
  for (auto [i, argument] : llvm::enumerate(dataArguments))
    if (llvm::Error error =
            checkIndexBound(entry, argument, samples[i],
                            "the data of argument " + std::to_string(argument) +
                                " (--data=" + dataSpec + ")"))
      return std::move(error);
  int64_t available = samples.front().getSpec().shape.front();
  if (available < *batchSize)
    return llvm::createStringError(
        "the data holds " + std::to_string(available) +
        " samples, fewer than one batch of " + std::to_string(*batchSize));
  return std::make_unique<SampledData>(dataArguments, std::move(samples),
                                       *batchSize);
}

} // namespace mp_run
