//===- ExportEntryPoints.cpp - Make public functions callable from C ------===//
//
// mp-export-entry-points prepares the public functions of a module for
// drivers that call them once the module is lowered to LLVM (mp-run, the C
// API): each gets `llvm.emit_c_interface`, and its tensor-level signature,
// with the `mp.*` argument and result attributes of the train-step contract,
// is recorded as the function attribute `mp.signature` and removed from the
// arguments and results (bufferization turns them into memrefs, on which the
// contract attributes do not verify). Tensor arguments are marked
// `bufferization.writable = false`: the caller's buffers are read-only, so a
// driver can compare results with arguments and reuse unchanged ones.
//
// It assumes tensor-level functions: it runs just before bufferization.
// Functions already carrying `mp.signature` are left unchanged; private and
// external functions lose their `mp.*` argument and result attributes (they
// are not entry points, and the attributes would not verify on memrefs). A
// public function whose C interface name (`_mlir_ciface_<name>`) is already a
// symbol of the module is an error, and so is a function in a nested module
// (the CPU lowering would leave it half lowered). A tensor a function returns
// more than once is returned as a copy the second time (every result gets its
// own buffer, as buffer-results-to-out-params needs).
//
//===----------------------------------------------------------------------===//

#include "mp/Dialect/MP/Transforms/Passes.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir::mp {
#define GEN_PASS_DEF_MPEXPORTENTRYPOINTS
#include "mp/Dialect/MP/Transforms/Passes.h.inc"
} // namespace mlir::mp

using namespace mlir;
using namespace mlir::mp;

namespace {

/// Splits `attrs` into the `mp.*` attributes (returned) and the others (left
/// in `attrs`).
static DictionaryAttr takeContractAttributes(MLIRContext *context,
                                             DictionaryAttr &attrs) {
  NamedAttrList contract, rest;
  if (attrs)
    for (NamedAttribute attr : attrs)
      (attr.getName().strref().starts_with("mp.") ? contract : rest)
          .push_back(attr);
  attrs = rest.getDictionary(context);
  return contract.getDictionary(context);
}

/// Removes the `mp.*` attributes of the arguments and results of `function`.
static void dropContractAttributes(func::FuncOp function) {
  MLIRContext *context = function.getContext();
  for (unsigned i = 0, e = function.getNumArguments(); i < e; ++i) {
    DictionaryAttr attrs = function.getArgAttrDict(i);
    takeContractAttributes(context, attrs);
    function.setArgAttrs(i, attrs);
  }
  for (unsigned i = 0, e = function.getNumResults(); i < e; ++i) {
    DictionaryAttr attrs = function.getResultAttrDict(i);
    takeContractAttributes(context, attrs);
    function.setResultAttrs(i, attrs);
  }
}

/// Gives every tensor result of `function` its own value: a tensor returned
/// a second time is returned as a copy (`bufferization.alloc_tensor copy`).
/// Results become separate out-parameters after bufferization
/// (buffer-results-to-out-params), which crashes on one buffer returned twice.
static void copyRepeatedResults(func::FuncOp function) {
  function.walk([](func::ReturnOp returnOp) {
    llvm::SmallPtrSet<Value, 8> seen;
    OpBuilder builder(returnOp);
    for (OpOperand &operand : returnOp->getOpOperands()) {
      Value value = operand.get();
      auto type = dyn_cast<RankedTensorType>(value.getType());
      if (!type || seen.insert(value).second)
        continue;
      operand.set(bufferization::AllocTensorOp::create(
          builder, returnOp.getLoc(), type, /*dynamicSizes=*/ValueRange(),
          /*copy=*/value));
    }
  });
}

struct ExportEntryPoints
    : public mp::impl::MPExportEntryPointsBase<ExportEntryPoints> {
  void runOnOperation() override {
    MLIRContext *context = &getContext();
    Builder builder(context);
    // The CPU lowering after this pass runs its function passes on the
    // functions of this module only: those of a nested module would reach
    // the LLVM conversions half lowered.
    for (auto nested : getOperation().getOps<ModuleOp>()) {
      if (nested->walk([](func::FuncOp) { return WalkResult::interrupt(); })
              .wasInterrupted()) {
        nested.emitOpError()
            << "mp-export-entry-points: functions in a nested module are not "
               "supported (the CPU lowering handles the functions of the "
               "top-level module only)";
        return signalPassFailure();
      }
    }
    for (auto function : getOperation().getOps<func::FuncOp>())
      copyRepeatedResults(function);
    for (auto function : getOperation().getOps<func::FuncOp>()) {
      if (function->hasAttr(MPDialect::kSignatureAttrName))
        continue;
      if (!function.isPublic() || function.isExternal()) {
        // Not an entry point: the contract attributes mean nothing here and
        // would not verify on the memrefs bufferization gives its signature.
        dropContractAttributes(function);
        continue;
      }
      // The LLVM lowering names the C interface `_mlir_ciface_<name>`; a
      // symbol of that name already in the module would be defined twice.
      std::string interfaceName =
          (MPDialect::kCInterfacePrefix + function.getName()).str();
      if (Operation *clash =
              SymbolTable::lookupSymbolIn(getOperation(), interfaceName)) {
        InFlightDiagnostic diagnostic =
            function.emitOpError()
            << "cannot be exported: the module already has a symbol '@"
            << interfaceName << "', the name of its C interface";
        diagnostic.attachNote(clash->getLoc()) << "defined here";
        return signalPassFailure();
      }
      function->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(),
                        builder.getUnitAttr());

      SmallVector<Attribute> argContract, resultContract;
      bool hasContract = false;
      for (unsigned i = 0, e = function.getNumArguments(); i < e; ++i) {
        DictionaryAttr attrs = function.getArgAttrDict(i);
        DictionaryAttr contract = takeContractAttributes(context, attrs);
        hasContract |= !contract.empty();
        argContract.push_back(contract);
        function.setArgAttrs(i, attrs);
        if (isa<TensorType>(function.getArgumentTypes()[i]))
          function.setArgAttr(
              i, bufferization::BufferizationDialect::kWritableAttrName,
              builder.getBoolAttr(false));
      }
      for (unsigned i = 0, e = function.getNumResults(); i < e; ++i) {
        DictionaryAttr attrs = function.getResultAttrDict(i);
        DictionaryAttr contract = takeContractAttributes(context, attrs);
        hasContract |= !contract.empty();
        resultContract.push_back(contract);
        function.setResultAttrs(i, attrs);
      }

      NamedAttrList signature;
      signature.append("function_type",
                       TypeAttr::get(function.getFunctionType()));
      if (hasContract) {
        signature.append("arg_attrs", builder.getArrayAttr(argContract));
        signature.append("res_attrs", builder.getArrayAttr(resultContract));
      }
      function->setAttr(MPDialect::kSignatureAttrName,
                        signature.getDictionary(context));
    }
  }
};

} // namespace
