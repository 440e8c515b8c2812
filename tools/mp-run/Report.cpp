//===- Report.cpp - What mp-run writes ------------------------------------===//
//
// JSON, .npy and number output of mp-run (Report.h).
//
//===----------------------------------------------------------------------===//

#include "Report.h"
#include "Arguments.h"
#include "Npy.h"
#include "Options.h"

#include "mp/Dialect/MP/IR/MPDialect.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <cstdio>

using namespace mlir;
using namespace mp_run;

namespace mp_run {

std::string jsonNumber(double value) {
  if (std::isnan(value))
    return "NaN";
  if (std::isinf(value))
    return value > 0 ? "Infinity" : "-Infinity";
  char buffer[32];
  snprintf(buffer, sizeof(buffer), "%.17g", value);
  return buffer;
}

std::string jsonString(StringRef text) {
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

llvm::Error writeFileAtomically(StringRef path, StringRef text) {
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

llvm::Error saveParameters(const EntryPoint &entry, Invocation &call) {
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

std::string formatScale(std::optional<double> scale) {
  if (!scale)
    return "-";
  char buffer[32];
  snprintf(buffer, sizeof(buffer), "%.9g", *scale);
  return buffer;
}

llvm::Error writeJsonReport(const RunReport &report) {
  std::string json;
  llvm::raw_string_ostream os(json);
  os << "{\n  \"input\": " << jsonString(inputFilename)
     << ",\n  \"function\": " << jsonString(report.function)
     << ",\n  \"device\": " << jsonString(report.device);
  if (!report.cudaDriver.empty())
    os << ",\n  \"cuda_driver\": " << jsonString(report.cudaDriver);
  os << ",\n  \"data\": " << jsonString(dataSpec) << ",\n  \"seed\": " << seed
     << ",\n  \"steps\": [";
  for (auto [i, record] : llvm::enumerate(report.records))
    os << (i ? ",\n" : "\n") << "    {\"step\": " << record.step
       << ", \"loss\": " << jsonNumber(record.loss) << ", \"loss_scale\": "
       << (record.lossScale ? jsonNumber(*record.lossScale) : "null")
       << ", \"skipped\": " << (record.skipped ? "true" : "false")
       << ", \"unchanged\": "
       << (!record.unchanged   ? "null"
           : *record.unchanged ? "true"
                               : "false")
       << ", \"seconds\": "
       << (record.seconds ? jsonNumber(*record.seconds) : "null")
       << ", \"cpu_seconds\": "
       << (record.cpuSeconds ? jsonNumber(*record.cpuSeconds) : "null")
       << ", \"libc_allocations\": "
       << (record.libcAllocations ? std::to_string(*record.libcAllocations)
                                  : "null")
       << "}";
  os << "\n  ],\n  \"skipped_steps\": " << report.skippedSteps
     << ",\n  \"final_loss\": "
     << (report.records.empty() ? "null"
                                : jsonNumber(report.records.back().loss))
     << ",\n  \"final_loss_scale\": "
     << (report.finalScale ? jsonNumber(*report.finalScale) : "null");
  if (report.accuracy)
    os << ",\n  \"eval\": {\"function\": " << jsonString(evalFunctionName)
       << ", \"correct\": " << report.accuracy->correct
       << ", \"total\": " << report.accuracy->total << ", \"accuracy\": "
       << jsonNumber(static_cast<double>(report.accuracy->correct) /
                     std::max<int64_t>(report.accuracy->total, 1))
       << "}";
  os << ",\n  \"compile_seconds\": " << jsonNumber(report.compileSeconds)
     << ",\n  \"compile_cpu_seconds\": " << jsonNumber(report.compileCPUSeconds)
     << ",\n  \"run_seconds\": " << jsonNumber(report.runSeconds)
     << ",\n  \"compute_seconds\": " << jsonNumber(report.computeSeconds)
     << ",\n  \"compute_cpu_seconds\": "
     << jsonNumber(report.computeCPUSeconds)
     << ",\n  \"steps_per_second\": "
     << jsonNumber(report.runSeconds > 0 ? numSteps / report.runSeconds : 0.0)
     << "\n}\n";
  return writeFileAtomically(jsonFile, json);
}

} // namespace mp_run
