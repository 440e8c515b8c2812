//===- PrecisionReport.cpp - Per-op precision, casts and memory -----------===//
//
// mp-precision-report describes each function of a module without changing
// it: every op with its autocast category (from the same AutocastPolicy as
// mp-autocast) and the element type it computes in; the `mp.cast` ops by
// (from, to) with their locations; the ops autocast does not know; and the
// bytes, by element type, of the parameters, gradients, optimizer state,
// forward state (when there is some) and activations (forward values live
// across the forward -> backward boundary).
// The report goes to a readable table and, optionally, to a JSON file.
//
// It reads the train-step contract (docs/TrainStep.md): `mp.param` and
// `mp.state` arguments, the `mp.loss` result, `mp.grad`, and the optimizer
// ops' gradient operands when `mp.grad` has been expanded. Shapes must be
// static for a value to be counted.
//
//===----------------------------------------------------------------------===//

#include "mp/Dialect/MP/Transforms/Passes.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Support/DebugStringHelper.h"
#include "mlir/Support/FileUtilities.h"
#include "mp/Dialect/MP/IR/MPOps.h"
#include "mp/Dialect/MP/Transforms/AutocastPolicy.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/ToolOutputFile.h"
#include <map>

namespace mlir::mp {
#define GEN_PASS_DEF_MPPRECISIONREPORT
#include "mp/Dialect/MP/Transforms/Passes.h.inc"
} // namespace mlir::mp

using namespace mlir;
using namespace mlir::mp;

namespace {

/// Bytes by element type name, in name order.
using ByteCounts = std::map<std::string, int64_t>;

/// One op of a function.
struct OpEntry {
  std::string name;
  std::string category;
  std::string executionType;
  std::string accType;
  std::string pinned;
  bool enabled;
  std::string location;
};

/// One `mp.cast`.
struct CastEntry {
  std::string location;
  std::string input;
};

/// One tensor quantised to FP8 (a saturating `mp.cast` of an `mp.scale`, as
/// mp-fp8-scaling emits) and where its scale comes from.
struct FP8TensorEntry {
  std::string location;
  std::string input;
  std::string format;
  std::string usedBy;
  /// "delayed" (a `fp8.scale` state argument), "current" (mp.fp8_scale of
  /// this step's amax) or "other".
  std::string scaleKind;
  int64_t scaleArgument = -1, historyArgument = -1, historyLength = 0;
};

/// One `mp.block_quantize` (the block-scaled recipes of mp-fp8-scaling): its
/// formats, block and bytes, data and scales packed (4-bit and 6-bit
/// elements at their width, as the hardware stores them).
struct BlockTensorEntry {
  std::string location;
  std::string input;
  std::string dataFormat, scaleFormat, block, usedBy;
  bool stochastic = false;
  int64_t dataBytes = 0, scaleBytes = 0;
  /// 4 with an f32 tensor-level scale (NVFP4), else 0.
  int64_t globalBytes = 0;
};

/// The report of one function.
struct FunctionReport {
  std::string name;
  std::vector<OpEntry> ops;
  std::map<std::pair<std::string, std::string>, std::vector<CastEntry>> casts;
  unsigned numCasts = 0;
  std::vector<const OpEntry *> unknownOps;
  std::vector<FP8TensorEntry> fp8Tensors;
  std::vector<BlockTensorEntry> blockTensors;
  /// Bytes of the parameters, their working copies (casts), gradients,
  /// optimizer state, forward state (the `mp.state` arguments of
  /// MPDialect::isForwardStateKind: the rng state, batch-norm statistics)
  /// and activations.
  ByteCounts parameters, parameterCopies, gradients, optimizerState,
      forwardState, activations;
  /// How activations were found: "mp.grad", "mp.loss" or "none".
  std::string activationsFrom;
  /// Elements of the gradients, and bytes the function's own
  /// `shard.all_reduce` ops reduce (data-parallel-processes > 0).
  int64_t gradientElements = 0, allReduceBytes = 0;
  /// data-parallel-processes (0: no communication section).
  int64_t processes = 0;
};

} // namespace

/// Returns `file:line:col` of the first file location in `loc`.
static std::string locationToString(Location loc) {
  if (auto file = loc->findInstanceOf<FileLineColLoc>())
    return llvm::formatv("{0}:{1}:{2}", file.getFilename().getValue(),
                         file.getLine(), file.getColumn());
  return "unknown";
}

/// Adds the storage of `type` (a statically shaped tensor) to `counts`.
static void addBytes(ByteCounts &counts, Type type) {
  auto shaped = dyn_cast<ShapedType>(type);
  if (!shaped || !shaped.hasStaticShape())
    return;
  Type element = shaped.getElementType();
  unsigned bits = element.isIntOrFloat() ? element.getIntOrFloatBitWidth()
                  : element.isIndex()    ? 64
                                         : 0;
  if (bits == 0)
    return;
  // Saturating: a huge static shape reports INT64_MAX bytes instead of
  // overflowing.
  uint64_t product = llvm::SaturatingMultiply<uint64_t>(shaped.getNumElements(),
                                                        (bits + 7) / 8);
  int64_t bytes = product > INT64_MAX ? INT64_MAX : product;
  int64_t &count = counts[debugString(element)];
  count = llvm::AddOverflow(count, bytes, count) ? INT64_MAX : count;
}

static int64_t total(const ByteCounts &counts) {
  int64_t sum = 0;
  for (const auto &entry : counts)
    if (llvm::AddOverflow(sum, entry.second, sum))
      return INT64_MAX;
  return sum;
}

/// The element type(s) `op` computes in: those of its float tensor operands
/// (inputs only for a destination-style op), else of its float results.
static std::string getExecutionType(Operation *op) {
  SmallVector<std::string> types;
  auto add = [&](Type type) {
    if (!isFloatTensor(type))
      return;
    std::string name = debugString(getElementTypeOrSelf(type));
    if (!llvm::is_contained(types, name))
      types.push_back(name);
  };
  auto dps = dyn_cast<DestinationStyleOpInterface>(op);
  for (OpOperand &operand : op->getOpOperands())
    if (!dps || !dps.isDpsInit(&operand))
      add(operand.get().getType());
  if (types.empty())
    for (Type type : op->getResultTypes())
      add(type);
  return llvm::join(types, "/");
}

/// The accumulation type of a contraction: mp's `acc_type`, or the element
/// type of a destination-style op's float accumulator.
static std::string getAccumulationType(Operation *op) {
  if (auto acc = op->getAttrOfType<TypeAttr>("acc_type"))
    return debugString(acc.getValue());
  if (auto dps = dyn_cast<DestinationStyleOpInterface>(op))
    for (Value init : dps.getDpsInits())
      if (isFloatTensor(init.getType()))
        return debugString(getElementTypeOrSelf(init.getType()));
  return "";
}

/// Names what a cast converts: a function argument or an op's result.
static std::string describeValue(Value value, FunctionOpInterface function) {
  if (auto argument = dyn_cast<BlockArgument>(value)) {
    if (argument.getOwner()->isEntryBlock() &&
        argument.getOwner()->getParentOp() == function.getOperation())
      return llvm::formatv("argument {0}", argument.getArgNumber());
    return "block argument";
  }
  Operation *def = value.getDefiningOp();
  if (def->getNumResults() == 1)
    return llvm::formatv("result of {0}", def->getName());
  return llvm::formatv("result #{0} of {1}",
                       cast<OpResult>(value).getResultNumber(), def->getName());
}

/// True for an `mp.cast` of a parameter: a working copy.
static bool isParameterCopy(Operation *op, FunctionOpInterface function) {
  auto cast = dyn_cast<CastOp>(op);
  auto argument =
      cast ? dyn_cast<BlockArgument>(cast.getInput()) : BlockArgument();
  return argument && argument.getOwner()->isEntryBlock() &&
         argument.getOwner()->getParentOp() == function.getOperation() &&
         function.getArgAttr(argument.getArgNumber(),
                             MPDialect::kParamAttrName);
}

/// Counts the activations of `function` into `report`: before mp-autodiff,
/// the results of the ops `mp.grad`'s loss depends on; after it, results of
/// the ops the `mp.loss` result depends on that other ops use as well.
/// Constants and working copies of parameters are not activations.
static void countActivations(FunctionOpInterface function,
                             FunctionReport &report) {
  Value loss;
  bool beforeAutodiff = false;
  function.walk([&](GradOp grad) {
    if (!loss) {
      loss = grad.getLoss();
      beforeAutodiff = true;
    }
  });
  if (!loss) {
    for (unsigned i = 0, e = function.getNumResults(); i < e && !loss; ++i) {
      if (!function.getResultAttr(i, MPDialect::kLossAttrName))
        continue;
      for (Block &block : function.getFunctionBody()) {
        Operation *terminator = block.getTerminator();
        if (terminator->hasTrait<OpTrait::ReturnLike>() &&
            terminator->getNumOperands() == e) {
          loss = terminator->getOperand(i);
          break;
        }
      }
    }
  }
  if (!loss) {
    report.activationsFrom = "none";
    return;
  }
  report.activationsFrom = beforeAutodiff ? "mp.grad" : "mp.loss";

  SetVector<Operation *> forward;
  BackwardSliceOptions options;
  options.inclusive = true;
  options.omitBlockArguments = true;
  (void)getBackwardSlice(loss, &forward, options);
  for (Operation *op : forward) {
    if (op->hasTrait<OpTrait::ConstantLike>() || isParameterCopy(op, function))
      continue;
    for (Value result : op->getResults()) {
      bool live = beforeAutodiff ||
                  llvm::any_of(result.getUsers(), [&](Operation *user) {
                    return !forward.contains(user) &&
                           !user->hasTrait<OpTrait::ReturnLike>();
                  });
      if (live)
        addBytes(report.activations, result.getType());
    }
  }
}

/// The names of the ops that use `value`, in order, without repeats.
static std::string describeUsers(Value value) {
  SmallVector<std::string> users;
  for (Operation *user : value.getUsers()) {
    std::string name = user->getName().getStringRef().str();
    if (!llvm::is_contained(users, name))
      users.push_back(name);
  }
  return users.empty() ? "-" : llvm::join(users, ", ");
}

/// Describes an FP8 quantisation `cast` of `function`, or returns nullopt
/// when `cast` is not one.
static std::optional<FP8TensorEntry>
describeFP8Tensor(CastOp quantise, FunctionOpInterface function) {
  Type element = quantise.getType().getElementType();
  if (!quantise.getSaturate() ||
      !isa<Float8E4M3FNType, Float8E5M2Type>(element))
    return std::nullopt;
  FP8TensorEntry entry;
  entry.location = locationToString(quantise.getLoc());
  entry.format = debugString(element);
  Value input = quantise.getInput();
  entry.scaleKind = "other";
  if (auto scale = input.getDefiningOp<ScaleOp>()) {
    input = scale.getInput();
    Value factor = scale.getFactor();
    auto argument = dyn_cast<BlockArgument>(factor);
    auto kind = argument && argument.getOwner()->isEntryBlock()
                    ? function.getArgAttrOfType<StringAttr>(
                          argument.getArgNumber(), MPDialect::kStateAttrName)
                    : StringAttr();
    if (kind && kind.getValue() == "fp8.scale") {
      entry.scaleKind = "delayed";
      entry.scaleArgument = argument.getArgNumber();
      // The history the next scale is computed from.
      for (Operation *user : argument.getUsers()) {
        auto next = dyn_cast<FP8ScaleOp>(user);
        auto push = next ? next.getHistory().getDefiningOp<AmaxHistoryPushOp>()
                         : AmaxHistoryPushOp();
        if (auto history = push ? dyn_cast<BlockArgument>(push.getHistory())
                                : BlockArgument()) {
          entry.historyArgument = history.getArgNumber();
          entry.historyLength =
              cast<ShapedType>(history.getType()).getDimSize(0);
        }
      }
    } else if (factor.getDefiningOp<FP8ScaleOp>()) {
      entry.scaleKind = "current";
    }
  }
  // The value quantised, before its widening to f32.
  if (auto widen = input.getDefiningOp<CastOp>();
      widen && widen.getType().getElementType().isF32())
    input = widen.getInput();
  entry.input = describeValue(input, function);
  entry.usedBy = describeUsers(quantise.getResult());
  return entry;
}

/// Bytes of `type`'s elements packed at their bit width.
static int64_t getPackedBytes(ShapedType type) {
  uint64_t bits = llvm::SaturatingMultiply<uint64_t>(
      type.getNumElements(), type.getElementTypeBitWidth());
  return int64_t(std::min<uint64_t>((bits + 7) / 8, INT64_MAX));
}

/// Describes a block quantisation of `function`.
static BlockTensorEntry describeBlockTensor(BlockQuantizeOp quantise,
                                            FunctionOpInterface function) {
  BlockTensorEntry entry;
  entry.location = locationToString(quantise.getLoc());
  entry.input = describeValue(quantise.getInput(), function);
  entry.dataFormat = debugString(quantise.getData().getType().getElementType());
  entry.scaleFormat =
      debugString(quantise.getScales().getType().getElementType());
  SmallVector<std::string> block;
  for (int64_t b : quantise.getBlockShape())
    block.push_back(std::to_string(b));
  entry.block = llvm::join(block, "x");
  entry.stochastic = static_cast<bool>(quantise.getRandomBits());
  entry.dataBytes = getPackedBytes(quantise.getData().getType());
  entry.scaleBytes = getPackedBytes(quantise.getScales().getType());
  entry.globalBytes = quantise.getGlobalScale() ? 4 : 0;
  entry.usedBy = describeUsers(quantise.getData());
  return entry;
}

/// Builds the report of one function.
static FunctionReport buildReport(FunctionOpInterface function,
                                  const AutocastPolicy &policy) {
  FunctionReport report;
  report.name = function.getName().str();

  function.getFunctionBody().walk<WalkOrder::PreOrder>([&](Operation *op) {
    OpEntry entry;
    entry.name = op->getName().getStringRef().str();
    entry.category = stringifyAutocastRole(policy.getRole(op)).str();
    entry.executionType = getExecutionType(op);
    entry.accType = getAccumulationType(op);
    if (FloatType pinned = getPinnedPrecision(op))
      entry.pinned = debugString(pinned);
    entry.enabled = isAutocastEnabled(op);
    entry.location = locationToString(op->getLoc());
    report.ops.push_back(std::move(entry));

    if (auto cast = dyn_cast<CastOp>(op)) {
      std::pair<std::string, std::string> key{
          debugString(cast.getInput().getType().getElementType()),
          debugString(cast.getType().getElementType())};
      report.casts[key].push_back({report.ops.back().location,
                                   describeValue(cast.getInput(), function)});
      ++report.numCasts;
      if (isParameterCopy(op, function))
        addBytes(report.parameterCopies, cast.getType());
      if (std::optional<FP8TensorEntry> fp8 = describeFP8Tensor(cast, function))
        report.fp8Tensors.push_back(std::move(*fp8));
    }
    if (auto quantise = dyn_cast<BlockQuantizeOp>(op))
      report.blockTensors.push_back(describeBlockTensor(quantise, function));
  });
  for (const OpEntry &entry : report.ops)
    if (entry.category == "unknown")
      report.unknownOps.push_back(&entry);

  for (auto [index, argument] : llvm::enumerate(function.getArguments())) {
    if (function.getArgAttr(index, MPDialect::kParamAttrName))
      addBytes(report.parameters, argument.getType());
    if (isForwardStateArgument(function, index))
      addBytes(report.forwardState, argument.getType());
    else if (function.getArgAttr(index, MPDialect::kStateAttrName))
      addBytes(report.optimizerState, argument.getType());
  }

  auto countElements = [](Type type) -> int64_t {
    auto shaped = dyn_cast<ShapedType>(type);
    return shaped && shaped.hasStaticShape() ? shaped.getNumElements() : 0;
  };
  bool hasGrad = false;
  function.walk([&](GradOp grad) {
    hasGrad = true;
    for (Value gradient : grad.getGradients()) {
      addBytes(report.gradients, gradient.getType());
      report.gradientElements += countElements(gradient.getType());
    }
  });
  if (!hasGrad) {
    // After mp-autodiff: the gradients the optimizers consume.
    llvm::SetVector<Value> gradients;
    function.walk([&](Operation *op) {
      if (isa<SGDOp, AdamOp, AdamWOp>(op))
        gradients.insert(op->getOperand(1));
    });
    for (Value gradient : gradients) {
      addBytes(report.gradients, gradient.getType());
      report.gradientElements += countElements(gradient.getType());
    }
  }
  // mp-data-parallel's collectives (generic: no shard dependency).
  function.walk([&](Operation *op) {
    if (op->getName().getStringRef() != "shard.all_reduce")
      return;
    ByteCounts reduced;
    addBytes(reduced, op->getOperand(0).getType());
    report.allReduceBytes += total(reduced);
  });
  countActivations(function, report);
  return report;
}

//===----------------------------------------------------------------------===//
// Output
//===----------------------------------------------------------------------===//

/// Bytes one process sends in a ring all-reduce of `elements` elements of
/// `width` bytes over `processes` processes: 2·(N−1)/N × the buffer.
static int64_t getRingAllReduceBytes(int64_t elements, int64_t width,
                                     int64_t processes) {
  return 2 * (processes - 1) * elements * width / processes;
}

/// The reduce types of mp-data-parallel and their widths in bytes.
static constexpr std::pair<StringLiteral, int64_t> kReduceTypes[] = {
    {"f32", 4}, {"bf16", 2}, {"f16", 2}};

static llvm::json::Object toJSON(const ByteCounts &counts) {
  llvm::json::Object object;
  for (const auto &[type, bytes] : counts)
    object[type] = bytes;
  return object;
}

static llvm::json::Value toJSON(const FunctionReport &report) {
  llvm::json::Array ops;
  for (const OpEntry &entry : report.ops) {
    llvm::json::Object op{{"name", entry.name},
                          {"category", entry.category},
                          {"exec_type", entry.executionType},
                          {"enabled", entry.enabled},
                          {"loc", entry.location}};
    if (!entry.accType.empty())
      op["acc_type"] = entry.accType;
    if (!entry.pinned.empty())
      op["pinned"] = entry.pinned;
    ops.push_back(std::move(op));
  }
  llvm::json::Array casts;
  for (const auto &[types, entries] : report.casts) {
    llvm::json::Array at;
    for (const CastEntry &entry : entries)
      at.push_back(
          llvm::json::Object{{"loc", entry.location}, {"input", entry.input}});
    casts.push_back(llvm::json::Object{{"from", types.first},
                                       {"to", types.second},
                                       {"count", int64_t(entries.size())},
                                       {"at", std::move(at)}});
  }
  llvm::json::Array unknown;
  for (const OpEntry *entry : report.unknownOps)
    unknown.push_back(
        llvm::json::Object{{"name", entry->name}, {"loc", entry->location}});
  llvm::json::Array fp8Tensors;
  for (const FP8TensorEntry &entry : report.fp8Tensors) {
    llvm::json::Object tensor{{"loc", entry.location},
                              {"input", entry.input},
                              {"format", entry.format},
                              {"used_by", entry.usedBy},
                              {"scale", entry.scaleKind}};
    if (entry.scaleArgument >= 0)
      tensor["scale_argument"] = entry.scaleArgument;
    if (entry.historyArgument >= 0) {
      tensor["history_argument"] = entry.historyArgument;
      tensor["history_length"] = entry.historyLength;
    }
    fp8Tensors.push_back(std::move(tensor));
  }
  llvm::json::Array blockTensors;
  for (const BlockTensorEntry &entry : report.blockTensors) {
    llvm::json::Object tensor{
        {"loc", entry.location},
        {"input", entry.input},
        {"format", entry.dataFormat},
        {"scale_format", entry.scaleFormat},
        {"block", entry.block},
        {"rounding", entry.stochastic ? "stochastic" : "nearest"},
        {"data_bytes", entry.dataBytes},
        {"scale_bytes", entry.scaleBytes},
        {"used_by", entry.usedBy}};
    if (entry.globalBytes)
      tensor["tensor_scale_bytes"] = entry.globalBytes;
    blockTensors.push_back(std::move(tensor));
  }
  int64_t all = total(report.parameters) + total(report.parameterCopies) +
                total(report.gradients) + total(report.optimizerState) +
                total(report.forwardState) + total(report.activations);
  llvm::json::Object bytes{
      {"parameters", toJSON(report.parameters)},
      {"parameter_copies", toJSON(report.parameterCopies)},
      {"gradients", toJSON(report.gradients)},
      {"optimizer_state", toJSON(report.optimizerState)},
      {"activations", toJSON(report.activations)},
      {"activations_from", report.activationsFrom},
      {"totals",
       llvm::json::Object{{"parameters", total(report.parameters)},
                          {"parameter_copies", total(report.parameterCopies)},
                          {"gradients", total(report.gradients)},
                          {"optimizer_state", total(report.optimizerState)},
                          {"activations", total(report.activations)},
                          {"all", all}}}};
  // Forward state only where there is some (the keys of older reports stay
  // as they were).
  if (!report.forwardState.empty()) {
    bytes["forward_state"] = toJSON(report.forwardState);
    bytes.getObject("totals")->try_emplace("forward_state",
                                           total(report.forwardState));
  }
  llvm::json::Object object{{"name", report.name},
                            {"ops", std::move(ops)},
                            {"num_casts", int64_t(report.numCasts)},
                            {"casts", std::move(casts)},
                            {"unknown_ops", std::move(unknown)},
                            {"bytes", std::move(bytes)}};
  if (!fp8Tensors.empty())
    object["fp8_tensors"] = std::move(fp8Tensors);
  if (!blockTensors.empty())
    object["block_tensors"] = std::move(blockTensors);
  if (report.processes > 0) {
    llvm::json::Object ring;
    for (auto [type, width] : kReduceTypes)
      ring[type] = getRingAllReduceBytes(report.gradientElements, width,
                                         report.processes);
    object["communication"] = llvm::json::Object{
        {"processes", report.processes},
        {"gradient_elements", report.gradientElements},
        {"ring_allreduce_bytes_per_process", std::move(ring)},
        {"shard_all_reduce_bytes", report.allReduceBytes}};
  }
  return object;
}

static void printTable(raw_ostream &os, const FunctionReport &report) {
  os << "mp-precision-report @" << report.name << "\n";
  os << llvm::formatv("  {0,-24} {1,-8} {2,-9} {3,-5} {4,-10} {5}\n", "op",
                      "category", "type", "acc", "note", "location");
  for (const OpEntry &entry : report.ops) {
    std::string note = !entry.enabled          ? "disabled"
                       : !entry.pinned.empty() ? "pinned"
                                               : "";
    os << llvm::formatv("  {0,-24} {1,-8} {2,-9} {3,-5} {4,-10} {5}\n",
                        entry.name, entry.category,
                        entry.executionType.empty() ? "-" : entry.executionType,
                        entry.accType.empty() ? "-" : entry.accType,
                        note.empty() ? "-" : note, entry.location);
  }

  os << "  casts: " << report.numCasts << "\n";
  for (const auto &[types, entries] : report.casts) {
    os << "    " << types.first << " -> " << types.second << ": "
       << entries.size() << "\n";
    for (const CastEntry &entry : entries)
      os << "      " << entry.location << " (" << entry.input << ")\n";
  }

  if (!report.fp8Tensors.empty())
    os << "  fp8 tensors: " << report.fp8Tensors.size() << "\n";
  for (const FP8TensorEntry &entry : report.fp8Tensors) {
    os << "    " << entry.format << " " << entry.location << " (" << entry.input
       << ") -> " << entry.usedBy << ": ";
    if (entry.scaleKind == "delayed") {
      os << "delayed scale argument " << entry.scaleArgument;
      if (entry.historyArgument >= 0)
        os << ", amax history argument " << entry.historyArgument << " ["
           << entry.historyLength << "]";
    } else if (entry.scaleKind == "current") {
      os << "current scale (this step's amax)";
    } else {
      os << "scale not from mp-fp8-scaling";
    }
    os << "\n";
  }

  if (!report.blockTensors.empty()) {
    int64_t data = 0, scales = 0;
    for (const BlockTensorEntry &entry : report.blockTensors) {
      data += entry.dataBytes;
      scales += entry.scaleBytes + entry.globalBytes;
    }
    os << "  block-scaled tensors: " << report.blockTensors.size() << " ("
       << data << " bytes of data, " << scales << " bytes of scales)\n";
  }
  for (const BlockTensorEntry &entry : report.blockTensors) {
    os << "    " << entry.dataFormat << " " << entry.block << " blocks of "
       << entry.scaleFormat << " scales";
    if (entry.globalBytes)
      os << " and an f32 tensor scale";
    if (entry.stochastic)
      os << ", stochastic rounding";
    os << " " << entry.location << " (" << entry.input << ") -> "
       << entry.usedBy << ": " << entry.dataBytes << " + "
       << entry.scaleBytes + entry.globalBytes << " bytes\n";
  }

  os << "  unknown ops:";
  if (report.unknownOps.empty())
    os << " none";
  for (const OpEntry *entry : report.unknownOps)
    os << " " << entry->name << " (" << entry->location << ")";
  os << "\n";

  std::vector<std::string> types;
  for (const ByteCounts *counts :
       {&report.parameters, &report.parameterCopies, &report.gradients,
        &report.optimizerState, &report.forwardState, &report.activations})
    for (const auto &entry : *counts)
      if (!llvm::is_contained(types, entry.first))
        types.push_back(entry.first);
  llvm::sort(types);
  os << llvm::formatv("  {0,-17}", "bytes");
  for (const std::string &type : types)
    os << llvm::formatv(" {0,12}", type);
  os << llvm::formatv(" {0,12}\n", "total");
  ByteCounts sums;
  auto row = [&](StringRef name, const ByteCounts &counts) {
    os << llvm::formatv("  {0,-17}", name);
    for (const std::string &type : types) {
      auto it = counts.find(type);
      os << llvm::formatv(" {0,12}", it == counts.end() ? 0 : it->second);
    }
    os << llvm::formatv(" {0,12}\n", total(counts));
  };
  for (auto [name, counts] : {std::pair<StringRef, const ByteCounts *>{
                                  "parameters", &report.parameters},
                              {"parameter copies", &report.parameterCopies},
                              {"gradients", &report.gradients},
                              {"optimizer state", &report.optimizerState},
                              {"forward state", &report.forwardState},
                              {"activations", &report.activations}}) {
    // The forward-state row only where there is some.
    if (counts == &report.forwardState && counts->empty())
      continue;
    row(name, *counts);
    for (const auto &[type, bytes] : *counts)
      sums[type] += bytes;
  }
  row("total", sums);
  os << "  (activations: "
     << (report.activationsFrom == "mp.grad"
             ? "results of the ops mp.grad's loss depends on"
         : report.activationsFrom == "mp.loss"
             ? "forward values (the mp.loss result depends on them) used "
               "by the backward"
             : "no mp.grad and no mp.loss result: not counted")
     << ")\n";

  if (report.processes <= 0)
    return;
  os << "  communication per step, ring all-reduce of the gradients over "
     << report.processes << " processes (bytes each sends: 2(N-1)/N x "
     << "gradient bytes):\n";
  os << "    gradient elements: " << report.gradientElements << "\n";
  for (auto [type, width] : kReduceTypes)
    os << llvm::formatv("    reduce-type={0,-5} {1,16} bytes\n", type,
                        getRingAllReduceBytes(report.gradientElements, width,
                                              report.processes));
  os << "    shard.all_reduce in this function: " << report.allReduceBytes
     << " bytes reduced\n";
}

namespace {
struct PrecisionReportPass
    : public mp::impl::MPPrecisionReportBase<PrecisionReportPass> {
  using MPPrecisionReportBase::MPPrecisionReportBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    AutocastPolicySettings settings =
        makePolicySettings(policyFile, allow, deny, promote, clear);
    std::string error;
    FailureOr<AutocastPolicy> policy =
        AutocastPolicy::build(&getContext(), settings, error);
    if (failed(policy)) {
      // On the module's location, without printing the module.
      emitError(module.getLoc()) << "mp-precision-report: " << error;
      return signalPassFailure();
    }

    std::vector<FunctionReport> reports;
    module.walk([&](FunctionOpInterface function) {
      if (function.isExternal() ||
          function->getParentOfType<FunctionOpInterface>())
        return;
      reports.push_back(buildReport(function, *policy));
      reports.back().processes = dataParallelProcesses;
    });

    if (!tableOutput.empty() &&
        failed(writeTo(tableOutput, [&](raw_ostream &os) {
          for (const FunctionReport &report : reports)
            printTable(os, report);
        })))
      return signalPassFailure();
    if (!output.empty() && failed(writeTo(output, [&](raw_ostream &os) {
          llvm::json::Array functions;
          for (const FunctionReport &report : reports)
            functions.push_back(toJSON(report));
          os << llvm::formatv("{0:2}",
                              llvm::json::Value(llvm::json::Object{
                                  {"functions", std::move(functions)}}))
             << "\n";
        })))
      return signalPassFailure();
    markAllAnalysesPreserved();
  }

  /// Writes with `print` to the file `path` ('-' is stdout).
  LogicalResult writeTo(StringRef path,
                        function_ref<void(raw_ostream &)> print) {
    std::string message;
    std::unique_ptr<llvm::ToolOutputFile> file = openOutputFile(path, &message);
    if (!file)
      return emitError(getOperation().getLoc())
             << "mp-precision-report: cannot write '" << path
             << "': " << message;
    print(file->os());
    file->keep();
    return success();
  }
};
} // namespace
