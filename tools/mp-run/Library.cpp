//===- Library.cpp - Ahead-of-time step libraries -------------------------===//
//
// emitLibrary (Library.h): the lowered module goes through the JIT's
// translation and LLVM pipeline (mp::compileForHostToObject) into an object
// file, which the C++ compiler mp-run was built with links into a shared
// library with the LLVM-free CUDA runtime wrappers (libMixedPrecCudaDriver.a,
// CudaDriver.h); the manifest records what mp-run's runner reads from the
// module's `mp.signature` (EntryPoint.h), so that a runner without MLIR can
// bind the C interface. It assumes the module is lowered (mp-cpu-pipeline or
// mp-gpu-pipeline) and `entry` is read from it.
//
//===----------------------------------------------------------------------===//

#include "Library.h"
#include "Options.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/OpenMP/OpenMPDialect.h"
#include "mp/Dialect/MP/IR/MPDialect.h"
#include "mp/ExecutionEngine/HostJIT.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mp_run;

/// `dir`/`name`.
static std::string inDir(StringRef dir, StringRef name) {
  llvm::SmallString<256> path(dir);
  llvm::sys::path::append(path, name);
  return path.str().str();
}

/// The `mp.init` value `init` as a JSON number or array of numbers (null
/// when there is none).
static llvm::json::Value initToJson(Attribute init) {
  auto toJson = [](Attribute element) -> llvm::json::Value {
    if (auto value = dyn_cast<FloatAttr>(element))
      return value.getValueAsDouble();
    if (auto value = dyn_cast<IntegerAttr>(element))
      return value.getValue().getSExtValue();
    return nullptr;
  };
  if (!init)
    return nullptr;
  if (auto dense = dyn_cast<DenseElementsAttr>(init)) {
    if (dense.isSplat())
      return toJson(dense.getSplatValue<Attribute>());
    llvm::json::Array values;
    for (Attribute element : dense.getValues<Attribute>())
      values.push_back(toJson(element));
    return std::move(values);
  }
  return toJson(init);
}

static llvm::json::Value specToJson(const TensorSpec &spec) {
  llvm::json::Array shape;
  for (int64_t size : spec.shape)
    shape.push_back(size);
  return llvm::json::Object{{"dtype", getKindName(spec.kind)},
                            {"shape", std::move(shape)},
                            {"bytes", static_cast<int64_t>(spec.getNumBytes())}};
}

/// The manifest: the C interface and the contract of every argument and
/// result, in the order of the C interface's pointers.
static std::string writeManifest(ModuleOp module, const EntryPoint &entry) {
  llvm::json::Array arguments;
  for (auto [i, argument] : llvm::enumerate(entry.arguments)) {
    llvm::json::Object object =
        std::move(*specToJson(argument.spec).getAsObject());
    object["index"] = static_cast<int64_t>(i);
    object["role"] = argument.role == ArgumentRole::Param   ? "param"
                     : argument.role == ArgumentRole::State ? "state"
                                                            : "data";
    if (argument.role == ArgumentRole::State) {
      object["state"] = argument.stateKind;
      object["init"] = initToJson(argument.init);
      if (argument.copyOf >= 0)
        object["copy_of"] = argument.copyOf;
      object["forward_state"] =
          mp::MPDialect::isForwardStateKind(argument.stateKind);
    }
    arguments.push_back(std::move(object));
  }
  llvm::json::Array results;
  for (auto [i, result] : llvm::enumerate(entry.results)) {
    llvm::json::Object object =
        std::move(*specToJson(result.spec).getAsObject());
    object["index"] = static_cast<int64_t>(i);
    object["role"] = result.isLoss      ? "loss"
                     : result.isSkipped ? "skipped"
                     : result.updates >= 0 ? "update"
                                           : "result";
    if (result.updates >= 0)
      object["updates"] = result.updates;
    results.push_back(std::move(object));
  }
  bool resident = module->hasAttr("mp.device_resident");
  llvm::json::Object manifest{
      {"function", entry.name},
      {"entry", (mp::MPDialect::kCInterfacePrefix + entry.name).str()},
      {"calling_convention",
       "void entry(descriptor *arguments..., descriptor *results...): each a "
       "pointer to a ranked memref descriptor {allocated, aligned, offset, "
       "sizes[rank], strides[rank]} of 64-bit words; results are "
       "out-parameters written into the caller's buffers"},
      {"input", inputFilename.getValue()},
      {"device", device == Device::CUDA ? "cuda" : "cpu"},
      {"device_resident", resident},
      {"pipeline", prePipeline.getValue()},
      {"gpu_pipeline", gpuPipelineOptions.getValue()},
      {"cpu_pipeline_options", cpuPipelineOptions.getValue()},
      {"opt_level", static_cast<int64_t>(optLevel)},
      {"arguments", std::move(arguments)},
      {"results", std::move(results)},
      {"loss_result", entry.lossResult},
      {"skipped_result", entry.skippedResult},
      {"loss_scale_argument", entry.lossScaleArgument}};
  std::string text;
  llvm::raw_string_ostream os(text);
  os << llvm::formatv("{0:2}", llvm::json::Value(std::move(manifest))) << "\n";
  return text;
}

namespace mp_run {

llvm::Error emitLibrary(ModuleOp module, const EntryPoint &entry,
                        StringRef dir) {
  bool usesOpenMP = false;
  module.walk([&](Operation *op) {
    usesOpenMP |= isa<omp::OpenMPDialect>(op->getDialect());
  });
  if (usesOpenMP)
    return llvm::createStringError(
        "--emit-library: the lowered step runs loops on threads (OpenMP), "
        "which a step library does not link; give --threads=1");
  // memref.copy of strided memrefs calls MLIR's C runner utilities, whose
  // Debian build needs libMLIR and libLLVM.
  for (auto function : module.getOps<LLVM::LLVMFuncOp>())
    if (function.isExternal() && function.getName().starts_with("memref"))
      return llvm::createStringError(
          "--emit-library: the lowered step calls @" +
          function.getName().str() +
          " of MLIR's C runner utilities, which a step library does not "
          "link (libmlir_c_runner_utils needs libMLIR and libLLVM)");
  if (std::error_code code = llvm::sys::fs::create_directories(dir))
    return llvm::createStringError("cannot create '" + dir.str() +
                                   "': " + code.message());
  std::string manifestPath = inDir(dir, "manifest.json");
  {
    std::error_code code;
    llvm::raw_fd_ostream out(manifestPath, code);
    if (code)
      return llvm::createStringError("cannot write '" + manifestPath +
                                     "': " + code.message());
    out << writeManifest(module, entry);
  }
  std::string object = inDir(dir, "step.o");
  if (llvm::Error error =
          mp::compileForHostToObject(module, object, optLevel))
    return error;

  std::string library = inDir(dir, "step.so");
  std::vector<std::string> command = {MP_LIBRARY_LINKER, "-shared",
                                      // The library's own calls of the
                                      // wrappers stay in the library.
                                      "-Wl,-Bsymbolic", "-Wl,--no-undefined",
                                      "-o", library, object,
                                      MP_CUDA_DRIVER_ARCHIVE};
  command.insert(command.end(), {"-ldl", "-lpthread"});
  SmallVector<StringRef> args(command.begin(), command.end());
  std::string message;
  int status = llvm::sys::ExecuteAndWait(MP_LIBRARY_LINKER, args,
                                         std::nullopt, {}, 0, 0, &message);
  if (status != 0) {
    std::string line;
    for (StringRef arg : args)
      line += (line.empty() ? "" : " ") + arg.str();
    return llvm::createStringError(
        "--emit-library: linking '" + library + "' failed" +
        (message.empty() ? "" : " (" + message + ")") + ": " + line);
  }
  llvm::outs() << "mp-run: @" << entry.name << " compiled into " << library
               << " (" << mp::MPDialect::kCInterfacePrefix << entry.name
               << ", " << entry.arguments.size() << " arguments, "
               << entry.results.size() << " results; " << manifestPath
               << ")\n";
  return llvm::Error::success();
}

} // namespace mp_run
