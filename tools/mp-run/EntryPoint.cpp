//===- EntryPoint.cpp - The train-step contract ---------------------------===//
//
// Reads and checks the contract of a lowered entry point (EntryPoint.h).
//
//===----------------------------------------------------------------------===//

#include "EntryPoint.h"

#include "mp/Dialect/MP/IR/MPDialect.h"

using namespace mlir;
using namespace mp_run;

namespace mp_run {

llvm::Expected<EntryPoint> readEntryPoint(LLVM::LLVMFuncOp function) {
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

llvm::Error checkCInterface(ModuleOp module, const EntryPoint &entry) {
  auto wrapper = module.lookupSymbol<LLVM::LLVMFuncOp>(
      (mp::MPDialect::kCInterfacePrefix + entry.name).str());
  size_t expected = entry.arguments.size() + entry.results.size();
  if (!wrapper || wrapper.isExternal() ||
      wrapper.getNumArguments() != expected ||
      !llvm::all_of(wrapper.getArgumentTypes(),
                    llvm::IsaPred<LLVM::LLVMPointerType>) ||
      !isa<LLVM::LLVMVoidType>(wrapper.getFunctionType().getReturnType()))
    return llvm::createStringError(
        "the lowered module has no '" + mp::MPDialect::kCInterfacePrefix +
        entry.name + "' taking " + std::to_string(expected) +
        " memref descriptor pointers (arguments, then one out-parameter per "
        "result); lower it with mp-cpu-pipeline");
  return llvm::Error::success();
}

SmallVector<LLVM::LLVMFuncOp> getEntryPoints(ModuleOp module) {
  SmallVector<LLVM::LLVMFuncOp> functions;
  for (auto function : module.getOps<LLVM::LLVMFuncOp>())
    if (function->hasAttr(mp::MPDialect::kSignatureAttrName) &&
        !function.getName().starts_with(mp::MPDialect::kCInterfacePrefix))
      functions.push_back(function);
  return functions;
}

} // namespace mp_run
