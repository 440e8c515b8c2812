//===- MPSchedules.h - Learning-rate schedules as IR ------------*- C++ -*-===//
//
// Builders of the learning rate of one train step from a schedule counter,
// for PyTorch's torch.optim.lr_scheduler schedules. The counter is the
// schedule's `last_epoch` (train-step state `lr_scheduler.last_epoch`,
// `tensor<i64>`, 0 at the first step; the caller returns it incremented, on
// skipped steps too, as PyTorch's scheduler.step() runs after a skipped
// optimizer.step()). The learning rate is each schedule's closed form
// (`_get_closed_form_lr` of PyTorch 1.13) computed in f64 with arith and math
// ops on scalars, the operations in Python's order, so that it equals
// PyTorch's double-precision value bit for bit; the optimizers' `lr(...)`
// operand takes it as a `tensor<f64>`.
//
//===----------------------------------------------------------------------===//

#ifndef MP_DIALECT_MP_IR_MPSCHEDULES_H
#define MP_DIALECT_MP_IR_MPSCHEDULES_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/Value.h"

#include <cstdint>
#include <vector>

namespace mlir::mp {

/// One schedule of torch.optim.lr_scheduler with its arguments, applied to
/// the optimizer's initial learning rate `baseLr` (PyTorch's `base_lrs`).
struct LRSchedule {
  enum class Kind {
    /// No schedule: `baseLr` at every step.
    Constant,
    /// StepLR(step_size, gamma): base·γ^(e // step_size).
    Step,
    /// MultiStepLR(milestones, gamma): base·γ^bisect_right(milestones, e).
    MultiStep,
    /// ExponentialLR(gamma): base·γ^e.
    Exponential,
    /// CosineAnnealingLR(T_max, eta_min):
    /// η_min + (base − η_min)·(1 + cos(π·e / T_max)) / 2.
    CosineAnnealing,
    /// LinearLR(start_factor, end_factor, total_iters):
    /// base·(start + (end − start)·min(total_iters, e) / total_iters).
    Linear,
    /// SequentialLR(schedulers, milestones): schedule i (of those in
    /// `schedulers`) from milestone i − 1, at e − milestones[i − 1].
    Sequential
  };
  Kind kind = Kind::Constant;
  double baseLr = 0.0;
  int64_t stepSize = 1;
  double gamma = 0.1;
  /// MultiStepLR's milestones (non-decreasing) or SequentialLR's
  /// (increasing, one fewer than `schedulers`).
  std::vector<int64_t> milestones;
  int64_t tMax = 1;
  double etaMin = 0.0;
  double startFactor = 1.0 / 3.0;
  double endFactor = 1.0;
  int64_t totalIters = 5;
  /// SequentialLR's schedules; their `baseLr` is ignored (the outer one
  /// applies, as every PyTorch scheduler of one optimizer shares base_lrs).
  std::vector<LRSchedule> schedulers;

  static LRSchedule constant(double baseLr);
  static LRSchedule step(double baseLr, int64_t stepSize, double gamma = 0.1);
  static LRSchedule multiStep(double baseLr, std::vector<int64_t> milestones,
                              double gamma = 0.1);
  static LRSchedule exponential(double baseLr, double gamma);
  static LRSchedule cosineAnnealing(double baseLr, int64_t tMax,
                                    double etaMin = 0.0);
  static LRSchedule linear(double baseLr, double startFactor = 1.0 / 3.0,
                           double endFactor = 1.0, int64_t totalIters = 5);
  static LRSchedule sequential(double baseLr,
                               std::vector<LRSchedule> schedulers,
                               std::vector<int64_t> milestones);

  /// An empty string when the arguments are valid (PyTorch's own checks:
  /// step_size, T_max, total_iters >= 1; LinearLR's factors in (0, 1] and
  /// [0, 1]; ordered milestones; SequentialLR's counts and no nesting of
  /// SequentialLR), else what is wrong.
  std::string validate() const;
};

/// The learning rate (a 0-d `tensor<f64>`) of `schedule` at `counter` (a 0-d
/// `tensor<i64>`, the schedule's last_epoch), built at the builder's
/// insertion point from tensor.extract, arith and math ops and
/// tensor.from_elements. `schedule` must be valid (LRSchedule::validate).
Value buildLRSchedule(OpBuilder &builder, Location loc,
                      const LRSchedule &schedule, Value counter);

} // namespace mlir::mp

#endif // MP_DIALECT_MP_IR_MPSCHEDULES_H
