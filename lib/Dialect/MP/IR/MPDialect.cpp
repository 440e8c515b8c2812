//===- MPDialect.cpp - The mp training-graph dialect ----------------------===//
//
// Registers the operations, enums and attributes of the `mp` dialect and
// verifies the dialect's discardable attributes: the train-step roles on
// function arguments and results (`mp.param`, `mp.state`, `mp.loss`,
// `mp.updates`) and the autocast controls on operations (`mp.autocast`,
// `mp.precision`).
//
//===----------------------------------------------------------------------===//

#include "mp/Dialect/MP/IR/MPDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mp/Dialect/MP/IR/MPOps.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::mp;

#include "mp/Dialect/MP/IR/MPEnums.cpp.inc"
#include "mp/Dialect/MP/IR/MPOpsDialect.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "mp/Dialect/MP/IR/MPAttrs.cpp.inc"

void MPDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "mp/Dialect/MP/IR/MPOps.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "mp/Dialect/MP/IR/MPAttrs.cpp.inc"
      >();
}

/// True for a ranked, statically shaped tensor of a floating-point type.
static bool isFloatTensor(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && tensor.hasStaticShape() &&
         isa<FloatType>(tensor.getElementType());
}

bool MPDialect::isForwardStateKind(StringRef kind) {
  return kind == "rng" || kind.starts_with("bn.") ||
         kind.starts_with("lr_scheduler.") || kind.starts_with("forward.");
}

LogicalResult MPDialect::verifyRegionArgAttribute(Operation *op,
                                                  unsigned regionIndex,
                                                  unsigned argIndex,
                                                  NamedAttribute attribute) {
  StringRef name = attribute.getName().strref();
  auto function = dyn_cast<FunctionOpInterface>(op);
  if (!function || regionIndex != 0)
    return op->emitError() << "'" << name
                           << "' is only valid on a function argument";
  Type argType = function.getArgumentTypes()[argIndex];
  if (name == kParamAttrName) {
    if (!isa<UnitAttr>(attribute.getValue()))
      return op->emitError() << "'" << name << "' on argument " << argIndex
                             << " must be a unit attribute";
    if (!isFloatTensor(argType))
      return op->emitError()
             << "'" << name << "' on argument " << argIndex
             << " requires a statically shaped float tensor, got " << argType;
    if (function.getArgAttr(argIndex, kStateAttrName))
      return op->emitError() << "argument " << argIndex << " cannot be both '"
                             << kParamAttrName << "' and '" << kStateAttrName
                             << "'";
    return success();
  }
  if (name == kStateAttrName) {
    auto kind = dyn_cast<StringAttr>(attribute.getValue());
    if (!kind || kind.getValue().empty())
      return op->emitError() << "'" << name << "' on argument " << argIndex
                             << " must be a non-empty string naming the state";
    if (!isa<RankedTensorType>(argType))
      return op->emitError() << "'" << name << "' on argument " << argIndex
                             << " requires a ranked tensor, got " << argType;
    if (kind.getValue() == "rng" && !isRngStateType(argType))
      return op->emitError()
             << "'" << name << "' = \"rng\" on argument " << argIndex
             << " requires tensor<2xi64> ([seed, offset]), got " << argType;
    return success();
  }
  if (name == kInitAttrName) {
    if (!function.getArgAttr(argIndex, kStateAttrName))
      return op->emitError() << "'" << name << "' on argument " << argIndex
                             << " requires '" << kStateAttrName << "'";
    auto tensor = dyn_cast<RankedTensorType>(argType);
    auto init = dyn_cast<TypedAttr>(attribute.getValue());
    bool matches =
        tensor && init &&
        (init.getType() == tensor ||
         (isa<FloatAttr, IntegerAttr>(init) &&
          init.getType() == tensor.getElementType()));
    if (!matches)
      return op->emitError()
             << "'" << name << "' on argument " << argIndex
             << " must be a dense value of type " << argType
             << " or a scalar of its element type";
    // A splat would make the offset equal to the seed: an rng state is
    // initialised with both words.
    auto kind = function.getArgAttrOfType<StringAttr>(argIndex, kStateAttrName);
    if (kind && kind.getValue() == "rng" && init.getType() != tensor)
      return op->emitError()
             << "'" << name << "' of the rng state argument " << argIndex
             << " must be dense<[seed, offset]> : "
                "tensor<2xi64>, got a scalar";
    return success();
  }
  if (name == kCopyOfAttrName) {
    auto index = dyn_cast<IntegerAttr>(attribute.getValue());
    auto state = function.getArgAttrOfType<StringAttr>(argIndex, kStateAttrName);
    if (!state || state.getValue() != "working_copy")
      return op->emitError() << "'" << name << "' on argument " << argIndex
                             << " requires '" << kStateAttrName
                             << "' = \"working_copy\"";
    int64_t numArgs = function.getNumArguments();
    if (!index || index.getInt() < 0 || index.getInt() >= numArgs ||
        !function.getArgAttr(index.getInt(), kParamAttrName))
      return op->emitError() << "'" << name << "' on argument " << argIndex
                             << " must name an '" << kParamAttrName
                             << "' argument";
    auto copyType = dyn_cast<RankedTensorType>(argType);
    auto paramType = dyn_cast<RankedTensorType>(
        function.getArgumentTypes()[index.getInt()]);
    if (!copyType || !paramType ||
        copyType.getShape() != paramType.getShape())
      return op->emitError() << "working copy argument " << argIndex
                             << " must have the shape of parameter argument "
                             << index.getInt();
    return success();
  }
  return op->emitError() << "unknown argument attribute '" << name
                         << "'; expected '" << kParamAttrName << "', '"
                         << kStateAttrName << "', '" << kInitAttrName
                         << "' or '" << kCopyOfAttrName << "'";
}

LogicalResult MPDialect::verifyRegionResultAttribute(Operation *op,
                                                     unsigned regionIndex,
                                                     unsigned resultIndex,
                                                     NamedAttribute attribute) {
  StringRef name = attribute.getName().strref();
  auto function = dyn_cast<FunctionOpInterface>(op);
  if (!function || regionIndex != 0)
    return op->emitError() << "'" << name
                           << "' is only valid on a function result";
  Type resultType = function.getResultTypes()[resultIndex];
  if (name == kLossAttrName) {
    auto tensor = dyn_cast<RankedTensorType>(resultType);
    if (!isa<UnitAttr>(attribute.getValue()))
      return op->emitError() << "'" << name << "' on result " << resultIndex
                             << " must be a unit attribute";
    if (!tensor || tensor.getRank() != 0 ||
        !isa<FloatType>(tensor.getElementType()))
      return op->emitError() << "'" << name << "' on result " << resultIndex
                             << " requires a 0-d float tensor, got "
                             << resultType;
    return success();
  }
  if (name == kUpdatesAttrName) {
    auto index = dyn_cast<IntegerAttr>(attribute.getValue());
    int64_t numArgs = function.getNumArguments();
    if (!index || !index.getType().isInteger(64))
      return op->emitError() << "'" << name << "' on result " << resultIndex
                             << " must be an i64 argument index";
    int64_t argIndex = index.getInt();
    if (argIndex < 0 || argIndex >= numArgs)
      return op->emitError() << "'" << name << "' on result " << resultIndex
                             << " names argument " << argIndex
                             << ", but the function has " << numArgs
                             << (numArgs == 1 ? " argument" : " arguments");
    Type argType = function.getArgumentTypes()[argIndex];
    if (argType != resultType)
      return op->emitError() << "result " << resultIndex << " of type "
                             << resultType << " cannot update argument "
                             << argIndex << " of type " << argType;
    if (!function.getArgAttr(argIndex, kParamAttrName) &&
        !function.getArgAttr(argIndex, kStateAttrName))
      return op->emitError() << "result " << resultIndex
                             << " updates argument " << argIndex
                             << ", which is neither '" << kParamAttrName
                             << "' nor '" << kStateAttrName << "'";
    // Check all results for two updating one argument once, when verifying
    // the last result that carries `mp.updates` (linear in the results).
    unsigned numResults = function.getNumResults();
    for (unsigned later = resultIndex + 1; later < numResults; ++later)
      if (function.getResultAttr(later, kUpdatesAttrName))
        return success();
    DenseMap<int64_t, unsigned> updater;
    for (unsigned result = 0; result <= resultIndex; ++result) {
      auto target =
          function.getResultAttrOfType<IntegerAttr>(result, kUpdatesAttrName);
      if (!target)
        continue;
      auto [it, inserted] = updater.try_emplace(target.getInt(), result);
      if (!inserted)
        return op->emitError() << "results " << it->second << " and " << result
                               << " both update argument " << target.getInt();
    }
    return success();
  }
  if (name == kSkippedAttrName) {
    auto tensor = dyn_cast<RankedTensorType>(resultType);
    if (!isa<UnitAttr>(attribute.getValue()) || !tensor ||
        tensor.getRank() != 0 || !tensor.getElementType().isInteger(1))
      return op->emitError() << "'" << name << "' on result " << resultIndex
                             << " must be a unit attribute on a tensor<i1>";
    return success();
  }
  return op->emitError() << "unknown result attribute '" << name
                         << "'; expected '" << kLossAttrName << "', '"
                         << kUpdatesAttrName << "' or '" << kSkippedAttrName
                         << "'";
}

/// Verifies `mp.signature`: on a function, a dictionary with a
/// `function_type` and, optionally, `arg_attrs`/`res_attrs` arrays of
/// dictionaries with one entry per argument/result of that type.
static LogicalResult verifySignatureAttribute(Operation *op,
                                              NamedAttribute attribute) {
  StringRef name = attribute.getName().strref();
  auto signature = dyn_cast<DictionaryAttr>(attribute.getValue());
  auto type =
      signature ? signature.getAs<TypeAttr>("function_type") : TypeAttr();
  auto functionType =
      type ? dyn_cast<FunctionType>(type.getValue()) : FunctionType();
  if (!isa<FunctionOpInterface>(op) || !functionType)
    return op->emitError() << "'" << name
                           << "' must be a dictionary with a 'function_type' "
                              "on a function";
  for (auto [key, count] :
       {std::pair<StringRef, size_t>{"arg_attrs", functionType.getNumInputs()},
        {"res_attrs", functionType.getNumResults()}}) {
    Attribute entry = signature.get(key);
    if (!entry)
      continue;
    auto array = dyn_cast<ArrayAttr>(entry);
    if (!array || array.size() != count ||
        !llvm::all_of(array, llvm::IsaPred<DictionaryAttr>))
      return op->emitError() << "'" << name << "' entry '" << key
                             << "' must hold " << count << " dictionaries";
  }
  return success();
}

LogicalResult MPDialect::verifyOperationAttribute(Operation *op,
                                                  NamedAttribute attribute) {
  StringRef name = attribute.getName().strref();
  if (name == kAutocastAttrName) {
    if (!isa<BoolAttr>(attribute.getValue()))
      return op->emitError() << "'" << name << "' must be a boolean";
    return success();
  }
  if (name == kPrecisionAttrName) {
    auto precision = dyn_cast<StringAttr>(attribute.getValue());
    if (!precision || !llvm::is_contained(ArrayRef<StringRef>{"f32", "f16",
                                                              "bf16"},
                                          precision.getValue()))
      return op->emitError() << "'" << name
                             << "' must be one of \"f32\", \"f16\", \"bf16\"";
    return success();
  }
  if (name == kLossScalingAttrName) {
    auto mode = dyn_cast<StringAttr>(attribute.getValue());
    if (!isa<FunctionOpInterface>(op) || !mode ||
        !llvm::is_contained(ArrayRef<StringRef>{"dynamic", "static"},
                            mode.getValue()))
      return op->emitError() << "'" << name
                             << "' must be \"dynamic\" or \"static\" on a "
                                "function";
    return success();
  }
  if (name == kSignatureAttrName)
    return verifySignatureAttribute(op, attribute);
  // The device-resident GPU lowering's markers (mp-gpu-pipeline).
  if (name == kDeviceResidentAttrName || name == kDeviceStreamAttrName) {
    if (!isa<UnitAttr>(attribute.getValue()))
      return op->emitError() << "'" << name << "' must be a unit attribute";
    return success();
  }
  // convert-mp-to-linalg's fusion barriers (mp-drop-fusion-barriers).
  if (name == kFusionBarrierAttrName) {
    if (!isa<UnitAttr>(attribute.getValue()) ||
        op->getName().getStringRef() != "bufferization.alloc_tensor")
      return op->emitError() << "'" << name
                             << "' must be a unit attribute of a "
                                "bufferization.alloc_tensor";
    return success();
  }
  return op->emitError() << "unknown operation attribute '" << name
                         << "'; expected '" << kAutocastAttrName << "', '"
                         << kPrecisionAttrName << "', '" << kLossScalingAttrName
                         << "', '" << kSignatureAttrName << "', '"
                         << kDeviceResidentAttrName << "', '"
                         << kDeviceStreamAttrName << "' or '"
                         << kFusionBarrierAttrName << "'";
}
