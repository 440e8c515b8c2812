//===- MPSchedules.cpp - Learning-rate schedules as IR --------------------===//
//
// buildLRSchedule: the closed forms of torch.optim.lr_scheduler (PyTorch
// 1.13's `_get_closed_form_lr`) as scalar f64 arith/math ops on the counter
// read from its 0-d tensor. Each formula keeps Python's order of evaluation
// (left to right, integer `//` and `min` on the counter, `**` as C's pow,
// math.cos as C's cos), so the value is PyTorch's double bit for bit given
// the same libm. python/mixedprec/builder.py emits the same ops as text.
//
//===----------------------------------------------------------------------===//

#include "mp/Dialect/MP/IR/MPSchedules.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinTypes.h"

#include <cmath>
#include <string>

using namespace mlir;
using namespace mlir::mp;

LRSchedule LRSchedule::constant(double baseLr) {
  LRSchedule s;
  s.baseLr = baseLr;
  return s;
}

LRSchedule LRSchedule::step(double baseLr, int64_t stepSize, double gamma) {
  LRSchedule s = constant(baseLr);
  s.kind = Kind::Step;
  s.stepSize = stepSize;
  s.gamma = gamma;
  return s;
}

LRSchedule LRSchedule::multiStep(double baseLr, std::vector<int64_t> milestones,
                                 double gamma) {
  LRSchedule s = constant(baseLr);
  s.kind = Kind::MultiStep;
  s.milestones = std::move(milestones);
  s.gamma = gamma;
  return s;
}

LRSchedule LRSchedule::exponential(double baseLr, double gamma) {
  LRSchedule s = constant(baseLr);
  s.kind = Kind::Exponential;
  s.gamma = gamma;
  return s;
}

LRSchedule LRSchedule::cosineAnnealing(double baseLr, int64_t tMax,
                                       double etaMin) {
  LRSchedule s = constant(baseLr);
  s.kind = Kind::CosineAnnealing;
  s.tMax = tMax;
  s.etaMin = etaMin;
  return s;
}

LRSchedule LRSchedule::linear(double baseLr, double startFactor,
                              double endFactor, int64_t totalIters) {
  LRSchedule s = constant(baseLr);
  s.kind = Kind::Linear;
  s.startFactor = startFactor;
  s.endFactor = endFactor;
  s.totalIters = totalIters;
  return s;
}

LRSchedule LRSchedule::sequential(double baseLr,
                                  std::vector<LRSchedule> schedulers,
                                  std::vector<int64_t> milestones) {
  LRSchedule s = constant(baseLr);
  s.kind = Kind::Sequential;
  s.schedulers = std::move(schedulers);
  s.milestones = std::move(milestones);
  return s;
}

std::string LRSchedule::validate() const {
  if (!std::isfinite(baseLr) || baseLr < 0.0)
    return "the base learning rate must be a finite number >= 0";
  switch (kind) {
  case Kind::Constant:
    return "";
  case Kind::Step:
    if (stepSize < 1)
      return "StepLR: step_size must be >= 1";
    return std::isfinite(gamma) ? "" : "StepLR: gamma must be finite";
  case Kind::MultiStep:
    for (size_t i = 1; i < milestones.size(); ++i)
      if (milestones[i] < milestones[i - 1])
        return "MultiStepLR: milestones must be non-decreasing";
    return std::isfinite(gamma) ? "" : "MultiStepLR: gamma must be finite";
  case Kind::Exponential:
    return std::isfinite(gamma) ? "" : "ExponentialLR: gamma must be finite";
  case Kind::CosineAnnealing:
    if (tMax < 1)
      return "CosineAnnealingLR: T_max must be >= 1";
    return std::isfinite(etaMin) ? "" : "CosineAnnealingLR: eta_min must be "
                                        "finite";
  case Kind::Linear:
    if (!(startFactor > 0.0 && startFactor <= 1.0))
      return "LinearLR: start_factor must be in (0, 1]";
    if (!(endFactor >= 0.0 && endFactor <= 1.0))
      return "LinearLR: end_factor must be in [0, 1]";
    return totalIters >= 1 ? "" : "LinearLR: total_iters must be >= 1";
  case Kind::Sequential:
    if (schedulers.empty())
      return "SequentialLR: expects at least one scheduler";
    if (milestones.size() + 1 != schedulers.size())
      return "SequentialLR: expects one milestone fewer than schedulers";
    for (size_t i = 0; i < milestones.size(); ++i)
      if (milestones[i] < 0 || (i > 0 && milestones[i] <= milestones[i - 1]))
        return "SequentialLR: milestones must be increasing and >= 0";
    for (const LRSchedule &inner : schedulers) {
      if (inner.kind == Kind::Sequential)
        return "SequentialLR: nested SequentialLR is not supported";
      LRSchedule withBase = inner;
      withBase.baseLr = baseLr;
      if (std::string error = withBase.validate(); !error.empty())
        return error;
    }
    return "";
  }
  return "unknown schedule kind";
}

namespace {
/// Scalar f64/i64 arithmetic at one location.
struct ScalarBuilder {
  OpBuilder &b;
  Location loc;

  Value f64(double value) {
    return arith::ConstantOp::create(b, loc, b.getF64FloatAttr(value));
  }
  Value i64(int64_t value) {
    return arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(value));
  }
  Value toF64(Value integer) {
    return arith::SIToFPOp::create(b, loc, b.getF64Type(), integer);
  }
  Value add(Value x, Value y) { return arith::AddFOp::create(b, loc, x, y); }
  Value sub(Value x, Value y) { return arith::SubFOp::create(b, loc, x, y); }
  Value mul(Value x, Value y) { return arith::MulFOp::create(b, loc, x, y); }
  Value div(Value x, Value y) { return arith::DivFOp::create(b, loc, x, y); }
  /// Python's `float ** int`: C's pow with the integer as a double.
  Value pow(double base, Value integer) {
    return math::PowFOp::create(b, loc, f64(base), toF64(integer));
  }
  /// The number of `values` <= `counter` (Python's bisect_right).
  Value countAtMost(ArrayRef<int64_t> values, Value counter) {
    Value count = i64(0);
    for (int64_t value : values) {
      Value reached = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sle,
                                            i64(value), counter);
      count = arith::AddIOp::create(
          b, loc, count,
          arith::ExtUIOp::create(b, loc, b.getI64Type(), reached));
    }
    return count;
  }
};
} // namespace

/// The closed form of `s` (not Sequential) with base `baseLr` at the i64
/// scalar `e`.
static Value buildClosedForm(ScalarBuilder &sb, const LRSchedule &s,
                             double baseLr, Value e) {
  using Kind = LRSchedule::Kind;
  Value base = sb.f64(baseLr);
  switch (s.kind) {
  case Kind::Constant:
  case Kind::Sequential:
    return base;
  case Kind::Step:
    // base_lr * gamma ** (last_epoch // step_size)
    return sb.mul(base,
                  sb.pow(s.gamma, arith::FloorDivSIOp::create(
                                      sb.b, sb.loc, e, sb.i64(s.stepSize))));
  case Kind::MultiStep:
    // base_lr * gamma ** bisect_right(milestones, last_epoch)
    return sb.mul(base, sb.pow(s.gamma, sb.countAtMost(s.milestones, e)));
  case Kind::Exponential:
    // base_lr * gamma ** last_epoch
    return sb.mul(base, sb.pow(s.gamma, e));
  case Kind::CosineAnnealing: {
    // eta_min + (base_lr - eta_min) * (1 + math.cos(math.pi * last_epoch /
    // T_max)) / 2
    Value angle = sb.div(sb.mul(sb.f64(3.141592653589793 /* math.pi */), sb.toF64(e)),
                         sb.toF64(sb.i64(s.tMax)));
    Value cosine = math::CosOp::create(sb.b, sb.loc, angle);
    return sb.add(sb.f64(s.etaMin),
                  sb.div(sb.mul(sb.sub(base, sb.f64(s.etaMin)),
                                sb.add(sb.f64(1.0), cosine)),
                         sb.f64(2.0)));
  }
  case Kind::Linear: {
    // base_lr * (start_factor + (end_factor - start_factor) *
    // min(total_iters, last_epoch) / total_iters)
    Value iters = arith::MinSIOp::create(sb.b, sb.loc, sb.i64(s.totalIters), e);
    Value fraction =
        sb.div(sb.mul(sb.sub(sb.f64(s.endFactor), sb.f64(s.startFactor)),
                      sb.toF64(iters)),
               sb.toF64(sb.i64(s.totalIters)));
    return sb.mul(base, sb.add(sb.f64(s.startFactor), fraction));
  }
  }
  return base;
}

Value mp::buildLRSchedule(OpBuilder &builder, Location loc,
                          const LRSchedule &schedule, Value counter) {
  ScalarBuilder sb{builder, loc};
  Value e = tensor::ExtractOp::create(builder, loc, counter, ValueRange{});
  Value lr;
  if (schedule.kind != LRSchedule::Kind::Sequential) {
    lr = buildClosedForm(sb, schedule, schedule.baseLr, e);
  } else {
    // Schedule i runs from milestone i − 1 on, restarted at 0 there (PyTorch
    // steps it with step(0) at its milestone).
    Value index = sb.countAtMost(schedule.milestones, e);
    for (auto [i, inner] : llvm::enumerate(schedule.schedulers)) {
      Value local = i == 0 ? e
                           : arith::SubIOp::create(
                                 builder, loc, e,
                                 sb.i64(schedule.milestones[i - 1]));
      Value value = buildClosedForm(sb, inner, schedule.baseLr, local);
      if (i == 0) {
        lr = value;
        continue;
      }
      Value active = arith::CmpIOp::create(
          builder, loc, arith::CmpIPredicate::eq, index,
          sb.i64(static_cast<int64_t>(i)));
      lr = arith::SelectOp::create(builder, loc, active, value, lr);
    }
  }
  return tensor::FromElementsOp::create(
      builder, loc, RankedTensorType::get({}, builder.getF64Type()), lr);
}
