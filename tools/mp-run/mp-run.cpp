//===- mp-run.cpp - Run mp train steps on the CPU -------------------------===//
//
// mp-run JIT-compiles a module with MLIR's ExecutionEngine and runs one of
// its train steps for N steps, binding arguments and results by the
// train-step contract (docs/TrainStep.md): parameters are initialised from a
// seed or loaded from .npy files, state from `mp.init` (zeros otherwise,
// 1 for bn.running_var as PyTorch's BatchNorm, working copies from their
// parameter), batch data from a seeded generator,
// .npy files or Fashion-MNIST; every `mp.updates = N` result becomes argument
// N of the next step. It prints the loss, the loss scale and whether the step
// was skipped, and can write the trajectory as JSON, evaluate a classifier's
// test accuracy (passing it the trained forward state, e.g. batch-norm
// running statistics) and save the final parameters and forward state.
//
// Input is a module of mp train steps, of linalg on tensors, or one already
// lowered by mp-cpu-pipeline (LLVM dialect, with the `mp.signature` the
// pipeline records). See docs/MpRun.md.
//
//===----------------------------------------------------------------------===//

#include "Data.h"
#include "Distributed.h"
#include "HelpDefaults.h"
#include "Npy.h"
#include "Tensor.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mp/Dialect/MP/IR/MPDialect.h"
#include "mp/Dialect/MP/IR/MPOps.h"
#include "mp/ExecutionEngine/HostJIT.h"
#include "mp/InitAll.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <ctime>
#include <cmath>
#include <cstdio>
#include <unistd.h>

using namespace mlir;
using namespace mp_run;
namespace cl = llvm::cl;

//===----------------------------------------------------------------------===//
// Command line
//===----------------------------------------------------------------------===//

static cl::OptionCategory runCategory("mp-run options");

static cl::opt<std::string> inputFilename(cl::Positional,
                                          cl::desc("<input .mlir file>"),
                                          cl::Required, cl::cat(runCategory));
static cl::opt<std::string> functionName(
    "function",
    cl::desc("The train step to run (default: the only public function with "
             "an mp.loss result)"),
    cl::value_desc("name"), cl::cat(runCategory));
static cl::opt<int64_t> numSteps("steps", cl::desc("Number of steps to run"),
                                 cl::init(10), cl::cat(runCategory));
static cl::opt<uint64_t>
    seed("seed",
         cl::desc("Seed of the parameter initialisation, of random data and "
                  "of the batch order"),
         cl::init(0), cl::cat(runCategory));
static cl::opt<InitScheme> initScheme(
    "init", cl::desc("Initialisation of the mp.param arguments"),
    cl::values(clEnumValN(InitScheme::KaimingUniform, "kaiming-uniform",
                          "U(-1/sqrt(fan_in), 1/sqrt(fan_in)), PyTorch's "
                          "nn.Linear init (default)"),
               clEnumValN(InitScheme::Normal, "normal", "N(0, 1/fan_in)"),
               clEnumValN(InitScheme::Zeros, "zeros", "all zeros")),
    cl::init(InitScheme::KaimingUniform), cl::cat(runCategory));
static cl::opt<std::string>
    loadDir("load",
            cl::desc("Load every mp.param argument N from DIR/argN.npy "
                     "instead of initialising it"),
            cl::value_desc("DIR"), cl::cat(runCategory));
static cl::opt<std::string> dataSpec(
    "data",
    cl::desc("Batch data: 'random' (seeded N(0,1) floats, integers in "
             "[0, --num-classes)), 'npy:DIR' (argument N from DIR/argN.npy, "
             "samples along dimension 0), 'fashion-mnist[:DIR]' (default "
             "DIR: /usr/share/datasets/fashion-mnist) or 'text:FILE' (a "
             "character-level language model: byte tokens of FILE as [B, T] "
             "ids and next-token labels)"),
    cl::init("random"), cl::value_desc("source"), cl::cat(runCategory));
static cl::opt<bool>
    shuffle("shuffle",
            cl::desc("Draw the samples of npy and fashion-mnist data in a "
                     "seeded random order, reshuffled every epoch (else in "
                     "file order)"),
            cl::init(true), cl::cat(runCategory));
static cl::opt<int64_t>
    numClasses("num-classes",
               cl::desc("Integer data of --data=random is in [0, N)"),
               cl::init(10), cl::cat(runCategory));
static cl::opt<std::string>
    jsonFile("json", cl::desc("Write the whole trajectory as JSON to FILE"),
             cl::value_desc("FILE"), cl::cat(runCategory));
static cl::opt<bool>
    evaluate("eval",
             cl::desc("After training, report the test accuracy of the "
                      "classifier given by --eval-function"),
             cl::init(false), cl::cat(runCategory));
static cl::opt<std::string> evalFunctionName(
    "eval-function",
    cl::desc("The function --eval calls: its mp.param arguments are the "
             "train step's parameters in order, its mp.state arguments "
             "(forward state only) the train step's state of the same kind "
             "in order, its one other argument a batch of inputs, its first "
             "result the logits [batch, classes]"),
    cl::init("predict"), cl::value_desc("name"), cl::cat(runCategory));
static cl::opt<std::string>
    saveDir("save",
            cl::desc("Write the final mp.param and forward-state (bn.*, "
                     "rng, ...) arguments to DIR/argN.npy"),
            cl::value_desc("DIR"), cl::cat(runCategory));
static cl::opt<std::string> prePipeline(
    "pipeline",
    cl::desc("Passes run on the input module before mp-cpu-pipeline: a "
             "textual pass pipeline on builtin.module, nested explicitly as "
             "for mlir-opt (e.g. 'mp-loss-scaling,func.func(mp-autodiff)'), "
             "'auto' (func.func(mp-autodiff) when the module holds mp.grad) "
             "or 'none'"),
    cl::init("auto"), cl::value_desc("pipeline"), cl::cat(runCategory));
static cl::opt<std::string> cpuPipelineOptions(
    "cpu-pipeline-options",
    cl::desc("Options of mp-cpu-pipeline, e.g. 'vectorize=false' or "
             "'matmul-tile-sizes=4,16,1'"),
    cl::init(""), cl::value_desc("options"), cl::cat(runCategory));
/// --threads, registered in main: libLLVM registers an undocumented global
/// `threads` option of its own, which main unregisters first.
static cl::opt<unsigned> &getNumThreadsOption() {
  static cl::opt<unsigned> option(
      "threads",
      cl::desc("Threads the step's parallel loops run on (mp-cpu-pipeline's "
               "threads; OpenMP); 0: all cores. The bits do not depend on it"),
      cl::init(1), cl::cat(runCategory));
  return option;
}
static cl::opt<bool>
    lowerOnly("lower-only",
              cl::desc("Print the lowered module (LLVM dialect, what mp-run "
                       "would run) and exit"),
              cl::init(false), cl::cat(runCategory));
static cl::opt<int64_t>
    printEvery("print-every",
               cl::desc("Print every N-th step (and the last); 0 prints "
                        "only the summary"),
               cl::init(1), cl::cat(runCategory));

/// This process's place in an mpirun launch (rank 0 of 1 otherwise); see
/// Distributed.h.
static ProcessGroup processGroup;

//===----------------------------------------------------------------------===//
// The train-step contract
//===----------------------------------------------------------------------===//

namespace {

/// How an argument is bound.
enum class ArgumentRole { Param, State, Data };

struct ArgumentBinding {
  ArgumentRole role;
  TensorSpec spec;
  /// `mp.state` kind.
  std::string stateKind;
  /// `mp.init`, if any.
  Attribute init;
  /// `mp.copy_of`, or -1.
  int64_t copyOf = -1;
};

struct ResultBinding {
  TensorSpec spec;
  bool isLoss = false;
  bool isSkipped = false;
  /// `mp.updates`, or -1.
  int64_t updates = -1;
};

/// A function's signature and contract, read from `mp.signature`.
struct EntryPoint {
  std::string name;
  std::vector<ArgumentBinding> arguments;
  std::vector<ResultBinding> results;
  int lossResult = -1;
  int skippedResult = -1;
  int lossScaleArgument = -1;
};

/// The state kinds of dynamic loss scaling (they change on skipped steps).
static bool isLossScaleState(StringRef kind) {
  return kind == "loss_scale" || kind == "growth_tracker" ||
         kind == "hysteresis_tracker";
}

/// Reads the signature recorded by mp-export-entry-points on `function`.
static llvm::Expected<EntryPoint> readEntryPoint(LLVM::LLVMFuncOp function) {
  EntryPoint entry;
  entry.name = function.getName().str();
  auto signature = function->getAttrOfType<DictionaryAttr>(
      mp::MPDialect::kSignatureAttrName);
  auto typeAttr =
      signature ? signature.getAs<TypeAttr>("function_type") : TypeAttr();
  auto type =
      typeAttr ? dyn_cast<FunctionType>(typeAttr.getValue()) : FunctionType();
  if (!type)
    return llvm::createStringError(
        "'@" + entry.name +
        "' has no 'mp.signature' recording its tensor signature (lower it "
        "with mp-cpu-pipeline, which runs mp-export-entry-points)");
  auto argAttrs = signature.getAs<ArrayAttr>("arg_attrs");
  auto resAttrs = signature.getAs<ArrayAttr>("res_attrs");
  auto attrsOf = [](ArrayAttr all, unsigned i) {
    return all ? cast<DictionaryAttr>(all[i]) : DictionaryAttr();
  };
  auto where = [&](StringRef what, unsigned i) {
    return (what + " " + llvm::Twine(i) + " of '@" + entry.name + "'").str();
  };

  for (unsigned i = 0, e = type.getNumInputs(); i < e; ++i) {
    llvm::Expected<TensorSpec> spec =
        getTensorSpec(type.getInput(i), where("argument", i));
    if (!spec)
      return spec.takeError();
    ArgumentBinding binding{ArgumentRole::Data, *spec, "", {}, -1};
    if (DictionaryAttr attrs = attrsOf(argAttrs, i)) {
      if (attrs.get(mp::MPDialect::kParamAttrName)) {
        binding.role = ArgumentRole::Param;
        if (!isFloatKind(spec->kind))
          return llvm::createStringError(where("parameter argument", i) +
                                         " must be a float tensor");
      } else if (auto kind =
                     attrs.getAs<StringAttr>(mp::MPDialect::kStateAttrName)) {
        binding.role = ArgumentRole::State;
        binding.stateKind = kind.getValue().str();
        binding.init = attrs.get(mp::MPDialect::kInitAttrName);
        if (auto copyOf =
                attrs.getAs<IntegerAttr>(mp::MPDialect::kCopyOfAttrName))
          binding.copyOf = copyOf.getInt();
        if (binding.stateKind == "loss_scale")
          entry.lossScaleArgument = i;
        if (binding.stateKind == "rng" &&
            (spec->kind != ElementKind::I64 ||
             spec->shape != llvm::ArrayRef<int64_t>{2}))
          return llvm::createStringError(
              where("rng state argument", i) +
              " must be tensor<2xi64> ([seed, offset]), got " + spec->str());
      }
    }
    entry.arguments.push_back(std::move(binding));
  }
  for (const ArgumentBinding &binding : entry.arguments) {
    int64_t n = binding.copyOf;
    if (n >= 0 && (n >= static_cast<int64_t>(entry.arguments.size()) ||
                   entry.arguments[n].role != ArgumentRole::Param ||
                   entry.arguments[n].spec.shape != binding.spec.shape))
      return llvm::createStringError("a working copy of '@" + entry.name +
                                     "' names argument " + std::to_string(n) +
                                     ", which is not a parameter of its shape");
  }

  for (unsigned i = 0, e = type.getNumResults(); i < e; ++i) {
    llvm::Expected<TensorSpec> spec =
        getTensorSpec(type.getResult(i), where("result", i));
    if (!spec)
      return spec.takeError();
    ResultBinding binding{*spec};
    if (DictionaryAttr attrs = attrsOf(resAttrs, i)) {
      if (attrs.get(mp::MPDialect::kLossAttrName)) {
        if (entry.lossResult >= 0)
          return llvm::createStringError("'@" + entry.name +
                                         "' has two results marked mp.loss");
        if (!isFloatKind(spec->kind) || !spec->shape.empty())
          return llvm::createStringError(where("the mp.loss result", i) +
                                         " must be a 0-d float tensor");
        binding.isLoss = true;
        entry.lossResult = i;
      }
      if (attrs.get(mp::MPDialect::kSkippedAttrName)) {
        if (spec->kind != ElementKind::I1 || !spec->shape.empty())
          return llvm::createStringError(where("the mp.skipped result", i) +
                                         " must be a tensor<i1>");
        binding.isSkipped = true;
        entry.skippedResult = i;
      }
      if (auto updates =
              attrs.getAs<IntegerAttr>(mp::MPDialect::kUpdatesAttrName)) {
        int64_t n = updates.getInt();
        if (n < 0 || n >= static_cast<int64_t>(entry.arguments.size()) ||
            entry.arguments[n].role == ArgumentRole::Data)
          return llvm::createStringError(
              where("result", i) + " updates argument " + std::to_string(n) +
              ", which is neither mp.param nor mp.state");
        if (!(entry.arguments[n].spec == *spec))
          return llvm::createStringError(
              where("result", i) + " of type " + spec->str() +
              " cannot update argument " + std::to_string(n) + " of type " +
              entry.arguments[n].spec.str());
        for (const ResultBinding &other : entry.results)
          if (other.updates == n)
            return llvm::createStringError("two results of '@" + entry.name +
                                           "' update argument " +
                                           std::to_string(n));
        binding.updates = n;
      }
    }
    entry.results.push_back(std::move(binding));
  }
  return entry;
}

/// Checks that the C interface of `entry` in `module` takes one pointer per
/// argument and result, as the out-parameter convention gives.
static llvm::Error checkCInterface(ModuleOp module, const EntryPoint &entry) {
  auto wrapper =
      module.lookupSymbol<LLVM::LLVMFuncOp>("_mlir_ciface_" + entry.name);
  size_t expected = entry.arguments.size() + entry.results.size();
  if (!wrapper || wrapper.isExternal() ||
      wrapper.getNumArguments() != expected ||
      !llvm::all_of(wrapper.getArgumentTypes(),
                    llvm::IsaPred<LLVM::LLVMPointerType>) ||
      !isa<LLVM::LLVMVoidType>(wrapper.getFunctionType().getReturnType()))
    return llvm::createStringError(
        "the lowered module has no '_mlir_ciface_" + entry.name + "' taking " +
        std::to_string(expected) +
        " memref descriptor pointers (arguments, then one out-parameter per "
        "result); lower it with mp-cpu-pipeline");
  return llvm::Error::success();
}

/// The public functions of `module` that have a recorded signature.
static SmallVector<LLVM::LLVMFuncOp> getEntryPoints(ModuleOp module) {
  SmallVector<LLVM::LLVMFuncOp> functions;
  for (auto function : module.getOps<LLVM::LLVMFuncOp>())
    if (function->hasAttr(mp::MPDialect::kSignatureAttrName) &&
        !function.getName().starts_with("_mlir_ciface_"))
      functions.push_back(function);
  return functions;
}

//===----------------------------------------------------------------------===//
// Lowering and compilation
//===----------------------------------------------------------------------===//

/// Runs --pipeline and mp-cpu-pipeline on `module`.
static llvm::Error lowerModule(ModuleOp module) {
  std::string pre = prePipeline;
  if (pre == "auto") {
    bool hasGrad = false;
    module.walk([&](Operation *op) {
      hasGrad |= op->getName().getStringRef() == "mp.grad";
    });
    pre = hasGrad ? "func.func(mp-autodiff)" : "";
  } else if (pre == "none") {
    pre = "";
  }
  mp::HostLowering lowering;
  lowering.prePipeline = pre;
  lowering.cpuPipelineOptions = cpuPipelineOptions;
  // A data-parallel step's grid gets the processes of the launch.
  if (StringRef(cpuPipelineOptions).find("grid-size") == StringRef::npos)
    lowering.extraCpuPipelineOptions =
        "grid-size=" + std::to_string(getLaunchSize());
  if (unsigned threads = getNumThreadsOption(); threads != 1)
    lowering.extraCpuPipelineOptions += " threads=" + std::to_string(threads);
  lowering.prePipelineName = "--pipeline";
  lowering.cpuPipelineOptionsName = "--cpu-pipeline-options";
  return mp::lowerForHost(module, lowering, "'" + inputFilename + "'");
}

/// JIT-compiles `module` for the host CPU, with the MPI shim's symbols.
static llvm::Expected<std::unique_ptr<ExecutionEngine>>
compileModule(ModuleOp module) {
  return mp::compileForHost(module, [](ExecutionEngine &engine) {
    registerDistributedSymbols(engine);
  });
}

//===----------------------------------------------------------------------===//
// Calling an entry point
//===----------------------------------------------------------------------===//

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

static llvm::Expected<void (*)(void **)>
lookupEntryPoint(ExecutionEngine &engine, const EntryPoint &entry) {
  return engine.lookupPacked("_mlir_ciface_" + entry.name);
}

//===----------------------------------------------------------------------===//
// Initial values
//===----------------------------------------------------------------------===//

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

/// The .npy path of argument `index` in `dir`.
static std::string getArgumentPath(StringRef dir, unsigned index) {
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

/// Initialises parameters and state of `call` per the contract.
static llvm::Error initializeArguments(const EntryPoint &entry,
                                       Invocation &call) {
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

//===----------------------------------------------------------------------===//
// Data sources
//===----------------------------------------------------------------------===//

/// Fills the data arguments of each step.
class DataSource {
public:
  virtual ~DataSource() = default;
  virtual void fill(Invocation &call) = 0;
};

/// Seeded N(0, 1) floats and integers in [0, --num-classes).
class RandomData : public DataSource {
public:
  RandomData(SmallVector<unsigned> dataArguments)
      : dataArguments(std::move(dataArguments)), random(seed, kDataStream) {}
  void fill(Invocation &call) override {
    for (unsigned i : dataArguments) {
      HostTensor &tensor = call.argument(i);
      bool isFloat = isFloatKind(tensor.getSpec().kind);
      uint64_t bound =
          tensor.getSpec().kind == ElementKind::I1 ? 2 : numClasses;
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

/// The vocabulary of each function with a data argument that indexes an
/// mp.embedding (the table's first dimension), recorded before lowering.
static llvm::StringMap<int64_t> embeddingVocabularies;

/// Records `embeddingVocabularies` from the functions of `module`.
static void recordEmbeddingVocabularies(ModuleOp module) {
  module.walk([](mp::EmbeddingOp embedding) {
    auto argument = dyn_cast<BlockArgument>(embedding.getIndices());
    auto function =
        argument ? dyn_cast<func::FuncOp>(argument.getOwner()->getParentOp())
                 : func::FuncOp();
    if (!function ||
        function.getArgAttr(argument.getArgNumber(),
                            mp::MPDialect::kParamAttrName) ||
        function.getArgAttr(argument.getArgNumber(),
                            mp::MPDialect::kStateAttrName))
      return;
    int64_t size = embedding.getTable().getType().getDimSize(0);
    auto [it, inserted] =
        embeddingVocabularies.try_emplace(function.getName(), size);
    if (!inserted)
      it->second = std::min(it->second, size);
  });
}

/// The Fashion-MNIST directory of --data, or nothing when another source.
static std::optional<std::string> getFashionMNISTDir() {
  StringRef spec = dataSpec;
  if (spec == "fashion-mnist")
    return std::string("/usr/share/datasets/fashion-mnist");
  if (spec.consume_front("fashion-mnist:"))
    return spec.str();
  return std::nullopt;
}

/// Which of `dataArguments` take images and which labels, for a classifier
/// on samples of `features` values: one float argument [B, ...] with
/// `features` values per sample, and optionally one integer argument [B].
static llvm::Error bindClassifierData(const EntryPoint &entry,
                                      ArrayRef<unsigned> dataArguments,
                                      int64_t features, bool needLabels,
                                      int &inputs, int &labels) {
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

static llvm::Expected<std::unique_ptr<DataSource>>
createDataSource(const EntryPoint &entry) {
  SmallVector<unsigned> dataArguments;
  for (auto [i, argument] : llvm::enumerate(entry.arguments))
    if (argument.role == ArgumentRole::Data)
      dataArguments.push_back(i);
  llvm::Expected<int64_t> batchSize = getBatchSize(entry, dataArguments);
  if (!batchSize)
    return batchSize.takeError();

  StringRef spec = dataSpec;
  if (spec == "random")
    return std::make_unique<RandomData>(dataArguments);
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
    auto vocab = embeddingVocabularies.find(entry.name);
    if (vocab == embeddingVocabularies.end())
      return llvm::createStringError(
          "--data=text: no mp.embedding of '@" + entry.name +
          "' reads a data argument, so its vocabulary is unknown (give the "
          "mp-level step, not a lowered one)");
    llvm::Expected<LabelledData> text =
        loadTextWindows(spec, ids.shape[1], vocab->second);
    if (!text)
      return text.takeError();
    samples.push_back(std::move(text->inputs));
    samples.push_back(std::move(text->labels));
  } else {
    return llvm::createStringError(
        "unknown --data '" + dataSpec +
        "' (expected random, npy:DIR, fashion-mnist[:DIR] or text:FILE)");
  }
  int64_t available = samples.front().getSpec().shape.front();
  if (available < *batchSize)
    return llvm::createStringError(
        "the data holds " + std::to_string(available) +
        " samples, fewer than one batch of " + std::to_string(*batchSize));
  return std::make_unique<SampledData>(dataArguments, std::move(samples),
                                       *batchSize);
}

//===----------------------------------------------------------------------===//
// Evaluation
//===----------------------------------------------------------------------===//

struct EvalResult {
  int64_t correct = 0, total = 0;
};

/// Runs the eval function over the test split and counts correct argmaxes.
static llvm::Expected<EvalResult> evaluateClassifier(ExecutionEngine &engine,
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

//===----------------------------------------------------------------------===//
// Output
//===----------------------------------------------------------------------===//

struct StepRecord {
  int64_t step;
  double loss;
  std::optional<double> lossScale;
  bool skipped;
  /// Whether every parameter and non-loss-scale state came back bit-identical
  /// (only computed when needed).
  std::optional<bool> unchanged;
};

/// A JSON number, with Python's spelling of non-finite values.
static std::string jsonNumber(double value) {
  if (std::isnan(value))
    return "NaN";
  if (std::isinf(value))
    return value > 0 ? "Infinity" : "-Infinity";
  char buffer[32];
  snprintf(buffer, sizeof(buffer), "%.17g", value);
  return buffer;
}

static std::string jsonString(StringRef text) {
  std::string quoted = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\')
      quoted += '\\';
    if (static_cast<unsigned char>(c) < 0x20) {
      char escape[8];
      snprintf(escape, sizeof(escape), "\\u%04x", c);
      quoted += escape;
      continue;
    }
    quoted += c;
  }
  return quoted + "\"";
}

/// Writes `text` to `path` through a temporary file renamed at the end, so
/// that `path` is never half-written.
static llvm::Error writeFileAtomically(StringRef path, StringRef text) {
  std::string temporary = (path + ".tmp").str();
  {
    std::error_code error;
    llvm::raw_fd_ostream os(temporary, error, llvm::sys::fs::OF_Text);
    if (error)
      return llvm::createStringError("cannot write '" + temporary +
                                     "': " + error.message());
    os << text;
    os.close();
    if (os.has_error()) {
      llvm::sys::fs::remove(temporary);
      return llvm::createStringError("cannot write '" + temporary +
                                     "': " + os.error().message());
    }
  }
  if (std::error_code error = llvm::sys::fs::rename(temporary, path)) {
    llvm::sys::fs::remove(temporary);
    return llvm::createStringError("cannot write '" + path.str() +
                                   "': " + error.message());
  }
  return llvm::Error::success();
}

/// Writes every parameter and forward-state argument (batch-norm running
/// statistics, ...) to `dir`/argN.npy, all or nothing.
static llvm::Error saveParameters(const EntryPoint &entry, Invocation &call) {
  if (std::error_code error = llvm::sys::fs::create_directories(saveDir))
    return llvm::createStringError("cannot create '" + saveDir +
                                   "': " + error.message());
  SmallVector<std::pair<std::string, std::string>> written;
  auto removeWritten = [&] {
    for (auto &[temporary, final] : written)
      llvm::sys::fs::remove(temporary);
  };
  for (auto [i, argument] : llvm::enumerate(entry.arguments)) {
    if (argument.role != ArgumentRole::Param &&
        !(argument.role == ArgumentRole::State &&
          mp::MPDialect::isForwardStateKind(argument.stateKind)))
      continue;
    std::string path = getArgumentPath(saveDir, i);
    std::string temporary = path + ".tmp";
    if (llvm::Error error = writeNpy(temporary, call.argument(i))) {
      removeWritten();
      llvm::sys::fs::remove(temporary);
      return error;
    }
    written.emplace_back(temporary, path);
  }
  for (auto &[temporary, path] : written)
    if (std::error_code error = llvm::sys::fs::rename(temporary, path)) {
      removeWritten();
      return llvm::createStringError("cannot write '" + path +
                                     "': " + error.message());
    }
  return llvm::Error::success();
}

static std::string formatScale(std::optional<double> scale) {
  if (!scale)
    return "-";
  char buffer[32];
  snprintf(buffer, sizeof(buffer), "%.9g", *scale);
  return buffer;
}

//===----------------------------------------------------------------------===//
// Under mpirun
//===----------------------------------------------------------------------===//

/// Initialises MPI when the launch has several processes or the lowered
/// step calls MPI; ranks other than 0 then print nothing on stdout.
static llvm::Error joinLaunch(ModuleOp module) {
  bool callsMPI = false;
  for (auto function : module.getOps<LLVM::LLVMFuncOp>())
    callsMPI |= function.getName().starts_with("MPI_") ||
                function.getName().starts_with("mp_mpi_");
  if (!callsMPI && getLaunchSize() == 1)
    return llvm::Error::success();
  llvm::Expected<ProcessGroup> group = initializeMPI();
  if (!group)
    return group.takeError();
  processGroup = *group;
  if (processGroup.size != getLaunchSize())
    return llvm::createStringError("MPI reports " +
                                   std::to_string(processGroup.size) +
                                   " processes, the launch environment " +
                                   std::to_string(getLaunchSize()));
  if (processGroup.rank != 0) {
    llvm::outs().flush();
    if (FILE *null = fopen("/dev/null", "w")) {
      dup2(fileno(null), STDOUT_FILENO);
      fclose(null);
    }
  }
  return llvm::Error::success();
}

/// Under mpirun: checks that every process ends with rank 0's parameters and
/// state other than forward state (FNV-1a of their bytes), and says so on
/// rank 0.
static llvm::Error checkParametersAgree(const EntryPoint &entry,
                                        Invocation &call) {
  if (processGroup.size == 1)
    return llvm::Error::success();
  uint64_t checksum = 0xcbf29ce484222325ULL;
  for (auto [i, argument] : llvm::enumerate(entry.arguments)) {
    // Forward state is per process: each updates the batch-norm statistics
    // from its own batch (DDP broadcasts rank 0's at the start of the next
    // step, so after the last one they differ, as in PyTorch).
    if (argument.role == ArgumentRole::Data ||
        mp::MPDialect::isForwardStateKind(argument.stateKind))
      continue;
    const HostTensor &tensor = call.argument(i);
    for (size_t b = 0, e = tensor.getNumBytes(); b < e; ++b)
      checksum = (checksum ^ static_cast<unsigned char>(tensor.data()[b])) *
                 0x100000001b3ULL;
  }
  if (llvm::Error error = checkSameOnAllRanks(
          processGroup, checksum, "parameters and state at the end"))
    return error;
  char line[160];
  snprintf(line, sizeof(line),
           "data-parallel: %d processes, parameters and state identical on "
           "every process (checksum %016llx)\n",
           processGroup.size, static_cast<unsigned long long>(checksum));
  llvm::outs() << line;
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// Driver
//===----------------------------------------------------------------------===//

static llvm::Error run(MLIRContext &context) {
  if (numSteps < 0)
    return llvm::createStringError("--steps must not be negative");
  if (numClasses < 1)
    return llvm::createStringError("--num-classes must be positive");

  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
  OwningOpRef<ModuleOp> module =
      parseSourceFile<ModuleOp>(inputFilename, sourceMgr, &context);
  if (!module)
    return llvm::createStringError("cannot parse '" + inputFilename + "'");

  auto compileStart = std::chrono::steady_clock::now();
  recordEmbeddingVocabularies(*module);
  std::clock_t compileCPUStart = std::clock();
  if (mp::needsHostLowering(*module))
    if (llvm::Error error = lowerModule(*module))
      return error;
  if (lowerOnly) {
    module->print(llvm::outs());
    llvm::outs() << "\n";
    return llvm::Error::success();
  }
  if (llvm::Error error = joinLaunch(*module))
    return error;

  // The train step.
  SmallVector<LLVM::LLVMFuncOp> candidates = getEntryPoints(*module);
  LLVM::LLVMFuncOp function;
  if (!functionName.empty()) {
    function = module->lookupSymbol<LLVM::LLVMFuncOp>(functionName);
    if (!function || function.isExternal())
      return llvm::createStringError("no function '@" + functionName +
                                     "' in '" + inputFilename + "'");
  } else {
    SmallVector<LLVM::LLVMFuncOp> steps;
    for (LLVM::LLVMFuncOp candidate : candidates) {
      llvm::Expected<EntryPoint> entry = readEntryPoint(candidate);
      if (entry && entry->lossResult >= 0)
        steps.push_back(candidate);
      else
        llvm::consumeError(entry.takeError());
    }
    if (steps.size() != 1) {
      std::string names;
      for (LLVM::LLVMFuncOp step : steps)
        names += " @" + step.getName().str();
      return llvm::createStringError(
          "'" + inputFilename + "' has " + std::to_string(steps.size()) +
          " train steps (public functions with an mp.loss result)" +
          (names.empty() ? "" : ":" + names) + "; choose one with --function");
    }
    function = steps.front();
  }
  llvm::Expected<EntryPoint> entry = readEntryPoint(function);
  if (!entry)
    return entry.takeError();
  if (entry->lossResult < 0)
    return llvm::createStringError(
        "'@" + entry->name +
        "' is not a train step: no result is marked mp.loss (see "
        "docs/TrainStep.md)");
  if (llvm::Error error = checkCInterface(*module, *entry))
    return error;

  // Everything that can fail on user input is checked before compiling.
  llvm::Expected<std::unique_ptr<DataSource>> data = createDataSource(*entry);
  if (!data)
    return data.takeError();

  llvm::Expected<std::unique_ptr<ExecutionEngine>> engine =
      compileModule(*module);
  if (!engine)
    return engine.takeError();
  llvm::Expected<void (*)(void **)> pointer =
      lookupEntryPoint(**engine, *entry);
  if (!pointer)
    return pointer.takeError();
  Invocation call(*entry, *pointer);
  if (llvm::Error error = initializeArguments(*entry, call))
    return error;
  double compileSeconds = std::chrono::duration<double>(
                              std::chrono::steady_clock::now() - compileStart)
                              .count();
  // CPU time of this process: what a loaded machine does not inflate.
  double compileCPUSeconds =
      static_cast<double>(std::clock() - compileCPUStart) / CLOCKS_PER_SEC;

  // Results compared to their argument when no result says whether the step
  // was skipped: parameters and state other than the loss-scale state and
  // forward state (batch-norm statistics advance on a skipped step too).
  SmallVector<std::pair<unsigned, unsigned>> comparedUpdates;
  bool updatesParams = false;
  for (auto [r, result] : llvm::enumerate(entry->results)) {
    if (result.updates < 0)
      continue;
    const ArgumentBinding &argument = entry->arguments[result.updates];
    updatesParams |= argument.role == ArgumentRole::Param;
    if (!isLossScaleState(argument.stateKind) &&
        !mp::MPDialect::isForwardStateKind(argument.stateKind))
      comparedUpdates.emplace_back(r, result.updates);
  }

  llvm::outs() << "mp-run: @" << entry->name << " for " << numSteps
               << " steps, data " << dataSpec << ", seed " << seed << "\n";
  std::vector<StepRecord> records;
  int64_t skippedSteps = 0;
  auto runStart = std::chrono::steady_clock::now();
  // Time spent in the compiled step itself, without the data and the
  // bookkeeping around it.
  std::chrono::steady_clock::duration computeTime{};
  for (int64_t step = 1; step <= numSteps; ++step) {
    (*data)->fill(call);
    std::optional<double> scale;
    if (entry->lossScaleArgument >= 0)
      scale = call.argument(entry->lossScaleArgument).get(0);
    auto callStart = std::chrono::steady_clock::now();
    call.call();
    computeTime += std::chrono::steady_clock::now() - callStart;

    std::optional<bool> unchanged;
    if (entry->skippedResult < 0 || !jsonFile.empty()) {
      unchanged = updatesParams;
      for (auto [r, a] : comparedUpdates)
        *unchanged =
            *unchanged && call.result(r).bitwiseEqual(call.argument(a));
    }
    bool skipped = entry->skippedResult >= 0
                       ? call.result(entry->skippedResult).getBits(0) & 1
                       : *unchanged;
    skippedSteps += skipped;
    double loss = call.result(entry->lossResult).get(0);
    records.push_back({step, loss, scale, skipped, unchanged});

    for (auto [r, result] : llvm::enumerate(entry->results))
      if (result.updates >= 0)
        call.feedBack(r, result.updates);

    if (printEvery > 0 && (step % printEvery == 0 || step == numSteps)) {
      char line[160];
      snprintf(line, sizeof(line),
               "step %6lld  loss %-14.9g  scale %-12s  %s\n",
               static_cast<long long>(step), loss, formatScale(scale).c_str(),
               skipped ? "skipped" : "ok");
      llvm::outs() << line;
    }

    // A skipped step that left the loss scale where it was, although it
    // should have backed off, means the scale is at its minimum (min-scale,
    // or 0): every further step would be skipped. Stop with an error rather
    // than spin (docs/Reliability.md); nothing is written.
    if (skipped && scale && entry->lossScaleArgument >= 0 &&
        call.argument(entry->lossScaleArgument).get(0) >= *scale) {
      bool shouldBackOff = true;
      for (auto [i, argument] : llvm::enumerate(entry->arguments))
        if (argument.stateKind == "hysteresis_tracker")
          shouldBackOff = call.argument(i).get(0) <= 0;
      if (shouldBackOff)
        return llvm::createStringError(
            "step " + std::to_string(step) +
            ": the gradients are not finite and the loss scale cannot back "
            "off below its minimum " +
            formatScale(scale) +
            "; every further step would be skipped, so training stops here "
            "(the parameters are those before this step; nothing is "
            "written)");
    }
  }
  double runSeconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - runStart)
          .count();
  double computeSeconds = std::chrono::duration<double>(computeTime).count();
  std::optional<double> finalScale;
  if (entry->lossScaleArgument >= 0)
    finalScale = call.argument(entry->lossScaleArgument).get(0);

  std::optional<EvalResult> accuracy;
  if (evaluate) {
    llvm::Expected<EvalResult> result =
        evaluateClassifier(**engine, *module, *entry, call);
    if (!result)
      return result.takeError();
    accuracy = *result;
  }

  char summary[256];
  snprintf(summary, sizeof(summary),
           "final: loss %.9g  skipped %lld/%lld  scale %s  "
           "%.1f steps/s, %.3f ms in the step (compile %.2f s)\n",
           records.empty() ? NAN : records.back().loss,
           static_cast<long long>(skippedSteps),
           static_cast<long long>(numSteps), formatScale(finalScale).c_str(),
           runSeconds > 0 ? numSteps / runSeconds : 0.0,
           numSteps > 0 ? 1e3 * computeSeconds / numSteps : 0.0,
           compileSeconds);
  llvm::outs() << summary;
  if (accuracy) {
    snprintf(summary, sizeof(summary), "test accuracy: %.2f%% (%lld/%lld)\n",
             100.0 * accuracy->correct / std::max<int64_t>(accuracy->total, 1),
             static_cast<long long>(accuracy->correct),
             static_cast<long long>(accuracy->total));
    llvm::outs() << summary;
  }

  if (llvm::Error error = checkParametersAgree(*entry, call))
    return error;

  if (!saveDir.empty() && processGroup.rank == 0)
    if (llvm::Error error = saveParameters(*entry, call))
      return error;

  if (!jsonFile.empty() && processGroup.rank == 0) {
    std::string json;
    llvm::raw_string_ostream os(json);
    os << "{\n  \"input\": " << jsonString(inputFilename)
       << ",\n  \"function\": " << jsonString(entry->name)
       << ",\n  \"data\": " << jsonString(dataSpec) << ",\n  \"seed\": " << seed
       << ",\n  \"steps\": [";
    for (auto [i, record] : llvm::enumerate(records))
      os << (i ? ",\n" : "\n") << "    {\"step\": " << record.step
         << ", \"loss\": " << jsonNumber(record.loss) << ", \"loss_scale\": "
         << (record.lossScale ? jsonNumber(*record.lossScale) : "null")
         << ", \"skipped\": " << (record.skipped ? "true" : "false")
         << ", \"unchanged\": " << (*record.unchanged ? "true" : "false")
         << "}";
    os << "\n  ],\n  \"skipped_steps\": " << skippedSteps
       << ",\n  \"final_loss\": "
       << (records.empty() ? "null" : jsonNumber(records.back().loss))
       << ",\n  \"final_loss_scale\": "
       << (finalScale ? jsonNumber(*finalScale) : "null");
    if (accuracy)
      os << ",\n  \"eval\": {\"function\": " << jsonString(evalFunctionName)
         << ", \"correct\": " << accuracy->correct
         << ", \"total\": " << accuracy->total << ", \"accuracy\": "
         << jsonNumber(static_cast<double>(accuracy->correct) /
                       std::max<int64_t>(accuracy->total, 1))
         << "}";
    os << ",\n  \"compile_seconds\": " << jsonNumber(compileSeconds)
       << ",\n  \"compile_cpu_seconds\": " << jsonNumber(compileCPUSeconds)
       << ",\n  \"run_seconds\": " << jsonNumber(runSeconds)
       << ",\n  \"compute_seconds\": " << jsonNumber(computeSeconds)
       << ",\n  \"steps_per_second\": "
       << jsonNumber(runSeconds > 0 ? numSteps / runSeconds : 0.0) << "\n}\n";
    if (llvm::Error error = writeFileAtomically(jsonFile, json))
      return error;
  }
  return llvm::Error::success();
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();

  registerAllPasses();
  mp::registerAllPasses();
  if (cl::Option *other = cl::getRegisteredOptions().lookup("threads"))
    other->removeArgument();
  cl::opt<unsigned> &numThreads = getNumThreadsOption();
  cl::HideUnrelatedOptions(runCategory);
  appendDefaultsToHelp(numSteps, seed, loadDir, dataSpec, shuffle, numClasses,
                       jsonFile, evaluate, evalFunctionName, saveDir,
                       prePipeline, cpuPipelineOptions, numThreads, lowerOnly, printEvery);
  cl::ParseCommandLineOptions(
      argc, argv,
      "mp-run: JIT-compile a module and run one of its train steps on the "
      "CPU (see docs/MpRun.md)\n");

  DialectRegistry registry;
  registerAllDialects(registry);
  registerAllExtensions(registry);
  registerAllToLLVMIRTranslations(registry);
  mp::registerAllDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();

  if (llvm::Error error = run(context)) {
    llvm::outs().flush();
    llvm::WithColor::error(llvm::errs(), "mp-run")
        << llvm::toString(std::move(error)) << "\n";
    // The other processes of a launch may wait in a collective.
    if (processGroup.size > 1)
      abortMPI();
    finalizeMPI(processGroup);
    return 1;
  }
  finalizeMPI(processGroup);
  return 0;
}
