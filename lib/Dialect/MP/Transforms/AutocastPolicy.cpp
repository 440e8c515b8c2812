//===- AutocastPolicy.cpp - Op categories of mp-autocast ------------------===//
//
// The default category tables (PyTorch's CUDA autocast lists mapped onto the
// mp dialect, plus linalg's matmuls), the JSON policy-file reader and the
// per-op queries shared by mp-autocast and mp-precision-report. A policy is
// built in three layers: defaults, then the policy file, then pass options;
// each layer moves the ops it names to the list it names them in. Every
// error is reported as one message naming its source (file or option).
//
//===----------------------------------------------------------------------===//

#include "mp/Dialect/MP/Transforms/AutocastPolicy.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"
#include "mp/Dialect/MP/IR/MPDialect.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace mlir;
using namespace mlir::mp;

//===----------------------------------------------------------------------===//
// Default tables
//===----------------------------------------------------------------------===//

/// PyTorch's lower-precision list: matrix products and convolutions, forward
/// and backward (attention is its batch_matmuls).
static constexpr StringLiteral kDefaultAllow[] = {
    "mp.matmul",     "mp.batch_matmul",      "mp.linear",
    "mp.conv2d",     "mp.conv2d_grad_input", "mp.conv2d_grad_filter",
    "linalg.matmul", "linalg.batch_matmul"};

/// PyTorch's fp32 lists: transcendental and power functions, softmax,
/// normalisation, sums and means, losses, and their backward ops.
static constexpr StringLiteral kDefaultDeny[] = {"mp.exp",
                                                 "mp.log",
                                                 "mp.pow",
                                                 "mp.rsqrt",
                                                 "mp.softmax",
                                                 "mp.log_softmax",
                                                 "mp.layer_norm",
                                                 "mp.rms_norm",
                                                 "mp.reduce_sum",
                                                 "mp.reduce_mean",
                                                 "mp.cross_entropy",
                                                 "mp.mse",
                                                 "mp.softmax_grad",
                                                 "mp.log_softmax_grad",
                                                 "mp.layer_norm_grad",
                                                 "mp.rms_norm_grad",
                                                 "mp.cross_entropy_grad",
                                                 // nll_loss is on PyTorch's
                                                 // CUDA fp32 list.
                                                 "mp.nll_loss",
                                                 "mp.nll_loss_grad"};

/// Ops combining several float inputs that must agree. select and compare
/// are in none of PyTorch's autocast lists; torch.where and torch.eq/lt/...
/// promote their operands to a common type, which this list does.
static constexpr StringLiteral kDefaultPromote[] = {
    "mp.add",     "mp.sub",          "mp.mul",
    "mp.div",     "mp.concat",       "mp.maximum",
    "mp.minimum", "mp.maximum_grad", "mp.minimum_grad",
    "mp.select",  "mp.compare"};

/// Every other computing op of the dialect: PyTorch runs them in the type
/// that arrives (relu, tanh, sigmoid, gelu, sqrt and dropout are in none of
/// its lists).
static constexpr StringLiteral kDefaultClear[] = {
    "mp.neg",        "mp.relu",          "mp.tanh",
    "mp.sigmoid",    "mp.gelu",          "mp.sqrt",
    "mp.transpose",  "mp.reshape",       "mp.broadcast",
    "mp.slice",      "mp.embedding",     "mp.reduce_max",
    "mp.relu_grad",  "mp.gelu_grad",     "mp.reduce_max_grad",
    "mp.slice_grad", "mp.embedding_grad", "mp.dropout",
    "mp.dropout_grad",
    // Pooling, clamp (relu6, hardtanh), silu, hardswish, hardsigmoid,
    // leaky_relu, erf and abs are in none of PyTorch's CUDA autocast lists
    // (its fp32 list has erfinv, not erf), nor is detach (stop_gradient).
    "mp.max_pool2d", "mp.max_pool2d_grad", "mp.avg_pool2d",
    "mp.avg_pool2d_grad", "mp.adaptive_avg_pool2d",
    "mp.adaptive_avg_pool2d_grad", "mp.clamp", "mp.clamp_grad", "mp.silu",
    "mp.silu_grad", "mp.hardswish", "mp.hardswish_grad", "mp.hardsigmoid",
    "mp.hardsigmoid_grad", "mp.leaky_relu", "mp.leaky_relu_grad", "mp.erf",
    "mp.erf_grad", "mp.abs", "mp.abs_grad", "mp.stop_gradient"};

/// Training and precision ops: autocast never changes them. Batch norm is
/// in none of PyTorch's CUDA autocast lists and cuDNN runs it in the type
/// of its input with f32 statistics (and f32 affine parameters under AMP):
/// a clear op would be widened to its widest float operand, the f32
/// statistics, so batch_norm and its gradient pass through unchanged.
static constexpr StringLiteral kExempt[] = {
    "mp.grad",           "mp.sgd",
    "mp.adam",           "mp.adamw",
    "mp.cast",           "mp.scale",
    "mp.all_finite",     "mp.update_loss_scale",
    "mp.amax",           "mp.amax_history_push",
    "mp.fp8_scale",      "mp.batch_norm",
    "mp.batch_norm_grad",
    // The random samplers have no float operand: their result type is the
    // program's choice (PyTorch's lists do not name torch.rand/randn).
    "mp.random_uniform", "mp.random_normal",
    "mp.random_bits",
    // Block-scaled formats (MPBlockScaledOps.td) are in no PyTorch autocast
    // list: recipes choose their types after autocast.
    "mp.stochastic_cast", "mp.block_quantize", "mp.block_dequantize",
    "mp.scaled_matmul",
    // Gradient clipping consumes gradients (f32 after master weights), as
    // torch.nn.utils.clip_grad_norm_ runs outside autocast.
    "mp.clip_grad_norm"};

/// Ops whose values do not depend on whether their input is rounded first or
/// their result afterwards.
static constexpr StringLiteral kCommutesWithRounding[] = {
    "mp.reshape", "mp.transpose", "mp.broadcast", "mp.neg", "mp.relu",
    "mp.abs",     "mp.stop_gradient"};

/// The list names, in the order files and options are applied.
static constexpr std::pair<StringLiteral, AutocastCategory> kListNames[] = {
    {"allow", AutocastCategory::Allow},
    {"deny", AutocastCategory::Deny},
    {"promote", AutocastCategory::Promote},
    {"clear", AutocastCategory::Clear}};

StringRef mlir::mp::stringifyAutocastCategory(AutocastCategory category) {
  switch (category) {
  case AutocastCategory::Allow:
    return "allow";
  case AutocastCategory::Deny:
    return "deny";
  case AutocastCategory::Promote:
    return "promote";
  case AutocastCategory::Clear:
    return "clear";
  }
  llvm_unreachable("unknown autocast category");
}

StringRef mlir::mp::stringifyAutocastRole(AutocastRole role) {
  switch (role) {
  case AutocastRole::Allow:
    return "allow";
  case AutocastRole::Deny:
    return "deny";
  case AutocastRole::Promote:
    return "promote";
  case AutocastRole::Clear:
    return "clear";
  case AutocastRole::Exempt:
    return "exempt";
  case AutocastRole::Unknown:
    return "unknown";
  case AutocastRole::None:
    return "none";
  }
  llvm_unreachable("unknown autocast role");
}

bool AutocastPolicy::isExempt(StringRef opName) {
  return llvm::is_contained(kExempt, opName);
}

bool AutocastPolicy::commutesWithRounding(StringRef opName) {
  return llvm::is_contained(kCommutesWithRounding, opName);
}

//===----------------------------------------------------------------------===//
// Building a policy
//===----------------------------------------------------------------------===//

/// Parses a compute type name.
static FloatType parseComputeType(MLIRContext *context, StringRef name) {
  Builder builder(context);
  if (name == "f16")
    return builder.getF16Type();
  if (name == "bf16")
    return builder.getBF16Type();
  return {};
}

/// Parses a level name.
static std::optional<AutocastLevel> parseLevel(StringRef name) {
  if (name == "default")
    return AutocastLevel::Default;
  if (name == "tensor-cores-only")
    return AutocastLevel::TensorCoresOnly;
  return std::nullopt;
}

/// Checks that `name` can be put in a list: a `dialect.op` name, and for the
/// mp dialect an op that exists and is not exempt. Returns the problem, or an
/// empty string.
static std::string checkOpName(MLIRContext *context, StringRef name) {
  auto [dialect, op] = name.split('.');
  if (dialect.empty() || op.empty())
    return llvm::formatv("'{0}' is not an op name of the form 'dialect.op'",
                         name);
  if (dialect != MPDialect::getDialectNamespace())
    return {};
  if (AutocastPolicy::isExempt(name))
    return llvm::formatv("'{0}' cannot be listed: autocast never changes the "
                         "training and precision ops",
                         name);
  if (!RegisteredOperationName::lookup(name, context))
    return llvm::formatv("the mp dialect has no op '{0}'", name);
  return {};
}

namespace {
/// The op lists of one layer of a policy (a file or the options), checked
/// before any of them is applied.
struct ListLayer {
  SmallVector<std::pair<std::string, AutocastCategory>> entries;

  /// Adds `names` to the list `listName`; returns the problem (starting with
  /// the list's name), or an empty string.
  std::string add(MLIRContext *context, StringRef listName,
                  AutocastCategory category, ArrayRef<std::string> names) {
    for (const std::string &name : names) {
      std::string problem = checkOpName(context, name);
      if (!problem.empty())
        return llvm::formatv("'{0}': {1}", listName, problem);
      for (auto &[other, otherCategory] : entries)
        if (other == name && otherCategory != category)
          return llvm::formatv("'{0}': '{1}' is also in '{2}'", listName, name,
                               stringifyAutocastCategory(otherCategory));
      entries.emplace_back(name, category);
    }
    return {};
  }
};

/// The contents of a policy file.
struct PolicyFile {
  std::optional<std::string> computeType, level;
  bool defaults = true;
  ListLayer lists;
};
} // namespace

/// Reads and checks the policy file at `path`; returns the problem, or an
/// empty string.
static std::string readPolicyFile(MLIRContext *context, StringRef path,
                                  PolicyFile &file) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!buffer)
    return "cannot read it: " + buffer.getError().message();
  llvm::Expected<llvm::json::Value> json =
      llvm::json::parse((*buffer)->getBuffer());
  if (!json)
    return "malformed JSON: " + llvm::toString(json.takeError());
  const llvm::json::Object *object = json->getAsObject();
  if (!object)
    return "the policy must be a JSON object";

  // Unknown keys first, in a stable order.
  static constexpr StringLiteral kKeys[] = {
      "compute-type", "level", "defaults", "allow", "deny", "promote", "clear"};
  SmallVector<StringRef> keys;
  for (const auto &entry : *object)
    keys.push_back(entry.first);
  llvm::sort(keys);
  for (StringRef key : keys)
    if (!llvm::is_contained(kKeys, key))
      return llvm::formatv("unknown key '{0}' (expected compute-type, level, "
                           "defaults, or an op category: allow, deny, "
                           "promote, clear)",
                           key);

  if (const llvm::json::Value *value = object->get("compute-type")) {
    std::optional<StringRef> name = value->getAsString();
    if (!name || !parseComputeType(context, *name))
      return "'compute-type' must be \"f16\" or \"bf16\"";
    file.computeType = name->str();
  }
  if (const llvm::json::Value *value = object->get("level")) {
    std::optional<StringRef> name = value->getAsString();
    if (!name || !parseLevel(*name))
      return "'level' must be \"default\" or \"tensor-cores-only\"";
    file.level = name->str();
  }
  if (const llvm::json::Value *value = object->get("defaults")) {
    std::optional<bool> flag = value->getAsBoolean();
    if (!flag)
      return "'defaults' must be true or false";
    file.defaults = *flag;
  }
  for (auto [listName, category] : kListNames) {
    const llvm::json::Value *value = object->get(listName);
    if (!value)
      continue;
    const llvm::json::Array *array = value->getAsArray();
    if (!array)
      return llvm::formatv("'{0}': must be an array of op names", listName);
    std::vector<std::string> names;
    for (auto [index, element] : llvm::enumerate(*array)) {
      std::optional<StringRef> name = element.getAsString();
      if (!name)
        return llvm::formatv("'{0}': element {1} must be a string (an op "
                             "name)",
                             listName, index);
      names.push_back(name->str());
    }
    std::string problem = file.lists.add(context, listName, category, names);
    if (!problem.empty())
      return problem;
  }
  return {};
}

FailureOr<AutocastPolicy>
AutocastPolicy::build(MLIRContext *context,
                      const AutocastPolicySettings &settings,
                      std::string &error) {
  // Read and check everything before building anything.
  PolicyFile file;
  if (!settings.policyFile.empty()) {
    std::string problem = readPolicyFile(context, settings.policyFile, file);
    if (!problem.empty()) {
      error =
          llvm::formatv("policy file '{0}': {1}", settings.policyFile, problem);
      return failure();
    }
  }
  ListLayer options;
  for (auto [listName, category] : kListNames) {
    const std::vector<std::string> &names =
        category == AutocastCategory::Allow     ? settings.allow
        : category == AutocastCategory::Deny    ? settings.deny
        : category == AutocastCategory::Promote ? settings.promote
                                                : settings.clear;
    std::string problem = options.add(context, listName, category, names);
    if (!problem.empty()) {
      error = "option " + problem;
      return failure();
    }
  }

  std::string computeTypeName = settings.computeType.empty()
                                    ? file.computeType.value_or("f16")
                                    : settings.computeType;
  FloatType computeType = parseComputeType(context, computeTypeName);
  if (!computeType) {
    error = llvm::formatv("option 'compute-type': unknown compute type '{0}' "
                          "(expected f16 or bf16)",
                          computeTypeName);
    return failure();
  }
  std::string levelName =
      settings.level.empty() ? file.level.value_or("default") : settings.level;
  std::optional<AutocastLevel> level = parseLevel(levelName);
  if (!level) {
    error = llvm::formatv("option 'level': unknown level '{0}' (expected "
                          "default or tensor-cores-only)",
                          levelName);
    return failure();
  }

  AutocastPolicy policy(computeType);
  policy.level = *level;
  if (file.defaults) {
    for (auto [names, category] :
         {std::pair<ArrayRef<StringLiteral>, AutocastCategory>{
              kDefaultAllow, AutocastCategory::Allow},
          {kDefaultDeny, AutocastCategory::Deny},
          {kDefaultPromote, AutocastCategory::Promote},
          {kDefaultClear, AutocastCategory::Clear}})
      for (StringRef name : names)
        policy.categories[name] = category;
  }
  for (const ListLayer *layer : {&file.lists, &options})
    for (const auto &[name, category] : layer->entries)
      policy.categories[name] = category;
  return policy;
}

//===----------------------------------------------------------------------===//
// Queries
//===----------------------------------------------------------------------===//

std::optional<AutocastCategory> AutocastPolicy::lookup(StringRef opName) const {
  auto it = categories.find(opName);
  if (it == categories.end())
    return std::nullopt;
  return it->second;
}

AutocastRole AutocastPolicy::getRole(Operation *op) const {
  StringRef name = op->getName().getStringRef();
  if (isExempt(name) || op->hasTrait<OpTrait::IsTerminator>())
    return AutocastRole::Exempt;
  // Ops with regions are containers, except destination-style ops with a
  // body (linalg.matmul's multiply-accumulate).
  if (op->getNumRegions() == 0 || isa<DestinationStyleOpInterface>(op)) {
    if (std::optional<AutocastCategory> category = lookup(name)) {
      switch (*category) {
      case AutocastCategory::Allow:
        return AutocastRole::Allow;
      case AutocastCategory::Deny:
        return AutocastRole::Deny;
      case AutocastCategory::Promote:
        return AutocastRole::Promote;
      case AutocastCategory::Clear:
        return AutocastRole::Clear;
      }
    }
  }
  if (llvm::any_of(op->getOperandTypes(), isFloatTensor))
    return AutocastRole::Unknown;
  return AutocastRole::None;
}

bool mlir::mp::isAutocastEnabled(Operation *op) {
  for (Operation *current = op; current; current = current->getParentOp())
    if (auto flag =
            current->getAttrOfType<BoolAttr>(MPDialect::kAutocastAttrName))
      return flag.getValue();
  return true;
}

FloatType mlir::mp::getPinnedPrecision(Operation *op) {
  auto name = op->getAttrOfType<StringAttr>(MPDialect::kPrecisionAttrName);
  if (!name)
    return {};
  Builder builder(op->getContext());
  if (name.getValue() == "f32")
    return builder.getF32Type();
  return parseComputeType(op->getContext(), name.getValue());
}

bool mlir::mp::isFloatTensor(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && isa<FloatType>(tensor.getElementType());
}

bool mlir::mp::isCastableFloatTensor(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && tensor.hasStaticShape() &&
         isa<Float32Type, Float16Type, BFloat16Type, Float8E4M3FNType,
             Float8E5M2Type>(tensor.getElementType());
}
