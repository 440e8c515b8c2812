//===- LegalizeMPI.cpp - Shard/MPI lowering fixes for OpenMPI -------------===//
//
// mp-legalize-mpi fills the gaps of MLIR 22.1's shard → mpi → LLVM lowering
// that the data-parallel train steps of mp-data-parallel run into with
// Debian's OpenMPI (docs/DataParallel.md): it sizes dynamic 1-D grids, adds
// the OpenMPI `dlti.map` attribute, rejects symbols named like those the mpi
// → LLVM lowering declares (`MPI_Allreduce`, `ompi_mpi_comm_world`, ...) but
// of another kind or type, since the lowering would reuse them whatever their
// type, replaces `mpi.comm_split` with a constant color by its communicator,
// turns f16/bf16 all-reduces into calls of a runtime shim, erases
// `shard.grid` once nothing refers to it and renames the reduction-op globals
// to the symbols libmpi exports. Each fix applies only when the module is at
// the stage it concerns, so the pass runs before `convert-shard-to-mpi`,
// before the conversions to LLVM and after them.
//
//===----------------------------------------------------------------------===//

#include "mp/Conversion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/DLTI/DLTI.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MPI/IR/MPI.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Shard/IR/ShardDialect.h"
#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir::mp {
#define GEN_PASS_DEF_MPLEGALIZEMPI
#include "mp/Conversion/Passes.h.inc"
} // namespace mlir::mp

using namespace mlir;

namespace {

struct LegalizeMPIPass : public mp::impl::MPLegalizeMPIBase<LegalizeMPIPass> {
  using MPLegalizeMPIBase::MPLegalizeMPIBase;

  void runOnOperation() override;

private:
  LogicalResult sizeGrids(ModuleOp module);
  LogicalResult replaceHalfAllReduces(ModuleOp module);
  void renameReductionGlobals(ModuleOp module);
};

} // namespace

/// The shim of mp-run that sums `element` buffers in place over
/// MPI_COMM_WORLD, or an empty name for other types.
static StringRef getHalfAllReduceShim(Type element) {
  if (element.isF16())
    return "mp_mpi_allreduce_sum_f16";
  if (element.isBF16())
    return "mp_mpi_allreduce_sum_bf16";
  return "";
}

/// The symbols that MLIR 22.1's mpi → LLVM lowering (MPIToLLVM.cpp) declares
/// unless the module has one of that name and kind, which it then uses
/// whatever its type, with the type it declares them with for OpenMPI or the
/// MPICH ABI; for OpenMPI also the libmpi names that renameReductionGlobals
/// gives the reduction-op globals. A function type stands for an llvm.func,
/// any other type for an llvm.mlir.global.
static SmallVector<std::pair<std::string, Type>>
getMPILoweringSymbols(MLIRContext *context, bool openMPI) {
  Type i32 = IntegerType::get(context, 32);
  Type ptr = LLVM::LLVMPointerType::get(context);
  // Communicators, datatypes and reduction ops: pointers to OpenMPI's
  // globals, integer handles in the MPICH ABI.
  Type handle = openMPI ? ptr : i32;
  auto function = [&](ArrayRef<Type> params) -> Type {
    return LLVM::LLVMFunctionType::get(i32, params);
  };
  SmallVector<std::pair<std::string, Type>> symbols = {
      {"MPI_Init", function({ptr, ptr})},
      {"MPI_Finalize", function({})},
      {"MPI_Comm_rank", function({handle, ptr})},
      {"MPI_Comm_split", function({handle, i32, i32, ptr})},
      {"MPI_Send", function({ptr, i32, handle, i32, i32, handle})},
      {"MPI_Recv", function({ptr, i32, handle, i32, i32, handle, ptr})},
      {"MPI_Allreduce", function({ptr, ptr, i32, handle, handle, handle})},
  };
  if (!openMPI)
    return symbols;
  symbols.emplace_back(
      "ompi_mpi_comm_world",
      LLVM::LLVMStructType::getOpaque("ompi_communicator_t", context));
  Type datatype =
      LLVM::LLVMStructType::getOpaque("ompi_predefined_datatype_t", context);
  for (StringRef name :
       {"float", "double", "int64_t", "uint64_t", "int32_t", "uint32_t",
        "int16_t", "uint16_t", "int8_t", "uint8_t"})
    symbols.emplace_back(("ompi_mpi_" + name).str(), datatype);
  Type op = LLVM::LLVMStructType::getOpaque("ompi_predefined_op_t", context);
  for (StringRef name :
       {"no_op", "max", "min", "sum", "prod", "land", "band", "lor", "bor",
        "lxor", "bxor", "minloc", "maxloc", "replace"}) {
    symbols.emplace_back(("ompi_mpi_" + name).str(), op);
    symbols.emplace_back(("ompi_mpi_op_" + name).str(), op);
  }
  return symbols;
}

/// Emits an error at every symbol of `module` that is named like one of the
/// MPI lowering (getMPILoweringSymbols) but is not of its kind and type: the
/// lowering would call or take the address of it with the operands of its
/// own declaration, or add a second symbol of that name. A func.func of the
/// same signature is accepted for a function: convert-func-to-llvm turns it
/// into the llvm.func before the mpi lowering runs.
static LogicalResult checkMPILoweringSymbols(ModuleOp module) {
  MLIRContext *context = module.getContext();
  FailureOr<Attribute> implementation =
      dlti::query(module, {"MPI:Implementation"});
  auto implementationName = succeeded(implementation)
                                ? dyn_cast<StringAttr>(*implementation)
                                : StringAttr();
  bool openMPI =
      implementationName && implementationName.getValue() == "OpenMPI";
  bool valid = true;
  for (auto &[name, type] : getMPILoweringSymbols(context, openMPI)) {
    Operation *existing = module.lookupSymbol(name);
    if (!existing)
      continue;
    if (auto functionType = dyn_cast<LLVM::LLVMFunctionType>(type)) {
      auto funcType = FunctionType::get(context, functionType.getParams(),
                                        functionType.getReturnType());
      auto llvmFunction = dyn_cast<LLVM::LLVMFuncOp>(existing);
      auto function = dyn_cast<func::FuncOp>(existing);
      if ((llvmFunction && llvmFunction.getFunctionType() == functionType) ||
          (function && function.getFunctionType() == funcType))
        continue;
      existing->emitOpError()
          << "mp-legalize-mpi: symbol '@" << name
          << "' names a function that the MPI lowering to LLVM calls: it must "
             "be an llvm.func of type "
          << type << " (or a func.func of type " << funcType << ")";
    } else {
      auto global = dyn_cast<LLVM::GlobalOp>(existing);
      if (global && global.getGlobalType() == type)
        continue;
      existing->emitOpError()
          << "mp-legalize-mpi: symbol '@" << name
          << "' names a global of libmpi that the MPI lowering to LLVM refers "
             "to: it must be an llvm.mlir.global of type "
          << type;
    }
    valid = false;
  }
  return success(valid);
}

LogicalResult LegalizeMPIPass::sizeGrids(ModuleOp module) {
  for (auto grid : module.getOps<shard::GridOp>()) {
    if (!llvm::is_contained(grid.getShape(), ShapedType::kDynamic))
      continue;
    if (grid.getRank() != 1)
      return grid.emitError("mp-legalize-mpi: only 1-D grids may have a "
                            "dynamic size");
    if (gridSize <= 0)
      return grid.emitError("mp-legalize-mpi: the size of grid '@")
             << grid.getSymName()
             << "' is not known: give it with grid-size=N "
                "(mp-cpu-pipeline{grid-size=N}; mp-run sets the number of "
                "MPI processes)";
    grid.setShape(ArrayRef<int64_t>{gridSize});
  }
  // shard.grid_shape of static grids: constants.
  SymbolTableCollection symbols;
  WalkResult result = module.walk([&](shard::GridShapeOp op) {
    auto grid =
        symbols.lookupNearestSymbolFrom<shard::GridOp>(op, op.getGridAttr());
    if (!grid)
      return WalkResult::advance();
    ArrayRef<int64_t> shape = grid.getShape();
    SmallVector<int64_t> sizes;
    if (op.getAxes().empty())
      sizes.assign(shape.begin(), shape.end());
    for (int16_t axis : op.getAxes())
      sizes.push_back(shape[axis]);
    if (llvm::is_contained(sizes, ShapedType::kDynamic))
      return WalkResult::advance();
    OpBuilder builder(op);
    for (auto [value, size] : llvm::zip(op.getResult(), sizes))
      value.replaceAllUsesWith(
          arith::ConstantIndexOp::create(builder, op.getLoc(), size));
    op.erase();
    return WalkResult::advance();
  });
  (void)result;
  return success();
}

LogicalResult LegalizeMPIPass::replaceHalfAllReduces(ModuleOp module) {
  SmallVector<mpi::AllReduceOp> reduces;
  module.walk([&](mpi::AllReduceOp op) {
    if (!getHalfAllReduceShim(op.getSendbuf().getType().getElementType())
             .empty())
      reduces.push_back(op);
  });
  // Check every all-reduce and the shims' symbols before changing anything.
  Type i64 = IntegerType::get(module.getContext(), 64);
  auto shimType = FunctionType::get(module.getContext(), {i64, i64}, {});
  for (mpi::AllReduceOp op : reduces) {
    MemRefType type = op.getSendbuf().getType();
    StringRef shim = getHalfAllReduceShim(type.getElementType());
    if (op.getSendbuf() != op.getRecvbuf() ||
        op.getOp() != mpi::MPI_ReductionOpEnum::MPI_SUM ||
        !op.getComm().getDefiningOp<mpi::CommWorldOp>() ||
        !type.hasStaticShape() ||
        (op.getRetval() && !op.getRetval().use_empty()))
      return op.emitError("mp-legalize-mpi: an f16/bf16 mpi.allreduce must "
                          "be an in-place MPI_SUM over mpi.comm_world of a "
                          "statically shaped buffer, without a used retval");
    auto parent = op->getParentOfType<ModuleOp>();
    Operation *existing = parent.lookupSymbol(shim);
    auto function = dyn_cast_or_null<func::FuncOp>(existing);
    if (existing && (!function || function.getFunctionType() != shimType))
      return existing->emitOpError()
             << "mp-legalize-mpi: symbol '@" << shim
             << "' names the runtime shim of f16/bf16 all-reduces: it must "
                "be a func.func of type "
             << shimType;
  }
  for (mpi::AllReduceOp op : reduces) {
    MemRefType type = op.getSendbuf().getType();
    StringRef shim = getHalfAllReduceShim(type.getElementType());
    auto parent = op->getParentOfType<ModuleOp>();
    OpBuilder builder(op);
    Location loc = op.getLoc();
    if (!parent.lookupSymbol<func::FuncOp>(shim)) {
      OpBuilder::InsertionGuard guard(builder);
      builder.setInsertionPointToStart(parent.getBody());
      auto declaration = func::FuncOp::create(builder, loc, shim, shimType);
      declaration.setPrivate();
    }
    // The address of the first element: aligned pointer + offset × 2 bytes.
    Value base = memref::ExtractAlignedPointerAsIndexOp::create(
        builder, loc, op.getSendbuf());
    auto metadata =
        memref::ExtractStridedMetadataOp::create(builder, loc, op.getSendbuf());
    Value two = arith::ConstantIndexOp::create(builder, loc, 2);
    Value bytes =
        arith::MulIOp::create(builder, loc, metadata.getOffset(), two);
    Value address = arith::AddIOp::create(builder, loc, base, bytes);
    Value address64 = arith::IndexCastOp::create(builder, loc, i64, address);
    Value count =
        arith::ConstantIntOp::create(builder, loc, i64, type.getNumElements());
    func::CallOp::create(builder, loc, shim, TypeRange{},
                         ValueRange{address64, count});
    op.erase();
  }
  return success();
}

void LegalizeMPIPass::renameReductionGlobals(ModuleOp module) {
  // The lowering declares `ompi_mpi_<op>` for the reduction ops; libmpi's
  // predefined ops are `ompi_mpi_op_<op>`.
  SmallVector<LLVM::GlobalOp> globals;
  for (auto global : module.getOps<LLVM::GlobalOp>()) {
    auto type = dyn_cast<LLVM::LLVMStructType>(global.getGlobalType());
    if (type && type.isIdentified() &&
        type.getName() == "ompi_predefined_op_t" &&
        global.getSymName().starts_with("ompi_mpi_") &&
        !global.getSymName().starts_with("ompi_mpi_op_"))
      globals.push_back(global);
  }
  for (LLVM::GlobalOp global : globals) {
    std::string name =
        ("ompi_mpi_op_" + global.getSymName().drop_front(strlen("ompi_mpi_")))
            .str();
    auto newName = StringAttr::get(module.getContext(), name);
    if (failed(SymbolTable::replaceAllSymbolUses(global.getSymNameAttr(),
                                                 newName, module)))
      continue;
    if (module.lookupSymbol(newName))
      global.erase();
    else
      global.setSymName(name);
  }
}

void LegalizeMPIPass::runOnOperation() {
  ModuleOp module = getOperation();
  bool hasShard = false, hasMPI = false, hasShardOtherThanGrids = false;
  module.walk([&](Operation *op) {
    Dialect *dialect = op->getDialect();
    if (isa_and_nonnull<shard::ShardDialect>(dialect)) {
      hasShard = true;
      hasShardOtherThanGrids |= !isa<shard::GridOp>(op);
    }
    hasMPI |= isa_and_nonnull<mpi::MPIDialect>(dialect);
  });
  bool hasMPISymbols =
      llvm::any_of(module.getOps<LLVM::LLVMFuncOp>(), [](LLVM::LLVMFuncOp f) {
        return f.getName().starts_with("MPI_");
      });
  if (!hasShard && !hasMPI && !hasMPISymbols)
    return;

  if (!module->hasAttr("dlti.map")) {
    MLIRContext *context = module.getContext();
    auto entry =
        DataLayoutEntryAttr::get(StringAttr::get(context, "MPI:Implementation"),
                                 StringAttr::get(context, "OpenMPI"));
    module->setAttr("dlti.map", MapAttr::get(context, {entry}));
  }
  // Before the fixes change anything: symbols that the mpi lowering (for the
  // implementation now known) would misuse.
  bool symbolsValid = true;
  module.walk([&](ModuleOp nested) {
    symbolsValid &= succeeded(checkMPILoweringSymbols(nested));
  });
  if (!symbolsValid)
    return signalPassFailure();
  if (failed(sizeGrids(module)))
    return signalPassFailure();

  // A split with one color for every process is its communicator.
  module.walk([&](mpi::CommSplitOp split) {
    if (!matchPattern(split.getColor(), m_Constant()) ||
        (split.getRetval() && !split.getRetval().use_empty()))
      return;
    split.getNewcomm().replaceAllUsesWith(split.getComm());
    split.erase();
  });
  if (failed(replaceHalfAllReduces(module)))
    return signalPassFailure();
  // The LLVM lowering of a 0-d buffer's all-reduce fails (outside a full
  // convert-to-llvm): all-reduce it as a buffer of one element.
  module.walk([&](mpi::AllReduceOp op) {
    DenseMap<Value, Value> expanded;
    for (OpOperand *operand :
         {&op.getSendbufMutable(), &op.getRecvbufMutable()}) {
      Value buffer = operand->get();
      auto type = cast<MemRefType>(buffer.getType());
      if (type.getRank() != 0 || !type.getLayout().isIdentity())
        continue;
      Value &vector = expanded[buffer];
      if (!vector) {
        OpBuilder builder(op);
        vector = memref::ExpandShapeOp::create(
            builder, op.getLoc(),
            MemRefType::get({1}, type.getElementType(), nullptr,
                            type.getMemorySpace()),
            buffer, ArrayRef<ReassociationIndices>{});
      }
      operand->set(vector);
    }
  });

  if (hasShard && !hasShardOtherThanGrids)
    for (auto grid : llvm::make_early_inc_range(module.getOps<shard::GridOp>()))
      grid.erase();
  renameReductionGlobals(module);
}
