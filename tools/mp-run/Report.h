//===- Report.h - What mp-run writes ----------------------------*- C++ -*-===//
//
// mp-run's outputs besides the step lines: the JSON trajectory of --json,
// the final parameters and forward state of --save (.npy files, all or
// nothing), and the number formats they share.
//
//===----------------------------------------------------------------------===//

#ifndef MP_RUN_REPORT_H
#define MP_RUN_REPORT_H

#include "Eval.h"

#include <optional>
#include <string>
#include <vector>

namespace mp_run {

struct StepRecord {
  int64_t step;
  double loss;
  std::optional<double> lossScale;
  bool skipped;
  /// Whether every parameter and non-loss-scale state came back bit-identical
  /// (only computed when needed; never for a device-resident step).
  std::optional<bool> unchanged;
  /// The wall-clock and CPU seconds of the compiled step's call (the CPU
  /// path; a device-resident step overlaps the next, so none).
  std::optional<double> seconds, cpuSeconds;
  /// The blocks the compiled step's call took from libc's malloc rather than
  /// from the step allocator's free lists (StepMemory.h; the CPU path).
  std::optional<uint64_t> libcAllocations;
};

/// What a run measured, for --json.
struct RunReport {
  std::string function;
  /// --device, and the CUDA driver library with --device=cuda.
  std::string device, cudaDriver;
  std::vector<StepRecord> records;
  int64_t skippedSteps = 0;
  std::optional<double> finalScale;
  std::optional<EvalResult> accuracy;
  double compileSeconds = 0, compileCPUSeconds = 0, runSeconds = 0,
         computeSeconds = 0;
  /// The CPU time of the process's threads in the step.
  double computeCPUSeconds = 0;
};

/// A JSON number, with Python's spelling of non-finite values.
std::string jsonNumber(double value);

/// A JSON string literal of `text`.
std::string jsonString(llvm::StringRef text);

/// Writes `text` to `path` through a temporary file renamed at the end, so
/// that `path` is never half-written.
llvm::Error writeFileAtomically(llvm::StringRef path, llvm::StringRef text);

/// Writes every parameter and forward-state argument (batch-norm running
/// statistics, ...) to --save DIR/argN.npy, all or nothing.
llvm::Error saveParameters(const EntryPoint &entry, Invocation &call);

/// A loss scale as printed, "-" without loss scaling.
std::string formatScale(std::optional<double> scale);

/// Writes `report` (with the inputs named on the command line) as JSON to
/// --json.
llvm::Error writeJsonReport(const RunReport &report);

} // namespace mp_run

#endif // MP_RUN_REPORT_H
