//===- LRScheduleTest.cpp - Drives mp::buildLRSchedule for tests ----------===//
//
// mp-lr-schedule-test reads a module (a file or stdin) and gives every
// function declaration carrying a `test.lr_schedule` dictionary a body built
// by mp::buildLRSchedule: `(tensor<i64>) -> tensor<f64>`, the learning rate
// at that counter. The dictionary names the schedule as
// torch.optim.lr_scheduler does, e.g.
//   {kind = "StepLR", base_lr = 0.1 : f64, step_size = 30 : i64,
//    gamma = 0.1 : f64}
//   {kind = "SequentialLR", base_lr = 0.1 : f64, milestones = [5],
//    schedulers = [{kind = "LinearLR", ...}, {kind = "ExponentialLR", ...}]}
// Arguments not given take PyTorch's defaults. It prints the module; invalid
// specifications are reported at the function. It exists to test the C++
// builder (test/Integration/Torch/lr-schedules.test); it is never installed.
//
//===----------------------------------------------------------------------===//

#include "mp/Dialect/MP/IR/MPSchedules.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::mp;

/// The schedule `spec` describes, or failure after reporting at `loc`.
static FailureOr<LRSchedule> parseSchedule(Location loc, DictionaryAttr spec,
                                           double baseLr) {
  auto kind = spec.getAs<StringAttr>("kind");
  if (!kind)
    return emitError(loc, "expects a string 'kind'"), failure();
  if (auto base = spec.getAs<FloatAttr>("base_lr"))
    baseLr = base.getValueAsDouble();
  auto getF64 = [&](StringRef name, double fallback) {
    auto attr = spec.getAs<FloatAttr>(name);
    return attr ? attr.getValueAsDouble() : fallback;
  };
  auto getI64 = [&](StringRef name, int64_t fallback) {
    auto attr = spec.getAs<IntegerAttr>(name);
    return attr ? attr.getInt() : fallback;
  };
  std::vector<int64_t> milestones;
  if (auto list = spec.getAs<ArrayAttr>("milestones"))
    for (Attribute m : list)
      milestones.push_back(cast<IntegerAttr>(m).getInt());
  LRSchedule schedule;
  StringRef name = kind.getValue();
  if (name == "StepLR")
    schedule = LRSchedule::step(baseLr, getI64("step_size", 1),
                                getF64("gamma", 0.1));
  else if (name == "MultiStepLR")
    schedule = LRSchedule::multiStep(baseLr, milestones, getF64("gamma", 0.1));
  else if (name == "ExponentialLR")
    schedule = LRSchedule::exponential(baseLr, getF64("gamma", 0.1));
  else if (name == "CosineAnnealingLR")
    schedule = LRSchedule::cosineAnnealing(baseLr, getI64("T_max", 1),
                                           getF64("eta_min", 0.0));
  else if (name == "LinearLR")
    schedule = LRSchedule::linear(baseLr, getF64("start_factor", 1.0 / 3.0),
                                  getF64("end_factor", 1.0),
                                  getI64("total_iters", 5));
  else if (name == "ConstantLR")
    schedule = LRSchedule::constant(baseLr);
  else if (name == "SequentialLR") {
    std::vector<LRSchedule> inner;
    if (auto list = spec.getAs<ArrayAttr>("schedulers"))
      for (Attribute s : list) {
        FailureOr<LRSchedule> parsed =
            parseSchedule(loc, cast<DictionaryAttr>(s), baseLr);
        if (failed(parsed))
          return failure();
        inner.push_back(*parsed);
      }
    schedule = LRSchedule::sequential(baseLr, inner, milestones);
  } else {
    return emitError(loc, "unknown schedule kind '") << name << "'",
           failure();
  }
  return schedule;
}

int main(int argc, char **argv) {
  llvm::cl::opt<std::string> input(llvm::cl::Positional,
                                   llvm::cl::desc("<input>"),
                                   llvm::cl::init("-"));
  llvm::cl::ParseCommandLineOptions(argc, argv, "mp::buildLRSchedule driver\n");

  // Every upstream dialect, so that the module around the declarations (a
  // test's driver) parses.
  DialectRegistry registry;
  registerAllDialects(registry);
  MLIRContext context(registry);
  context.loadDialect<func::FuncDialect, arith::ArithDialect,
                      math::MathDialect, tensor::TensorDialect>();
  llvm::SourceMgr sourceMgr;
  std::string error;
  auto file = openInputFile(input, &error);
  if (!file) {
    llvm::errs() << error << "\n";
    return 1;
  }
  sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  SourceMgrDiagnosticHandler handler(sourceMgr, &context);
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!module)
    return 1;

  bool ok = true;
  module->walk([&](func::FuncOp func) {
    auto spec = func->getAttrOfType<DictionaryAttr>("test.lr_schedule");
    if (!spec || !func.isDeclaration())
      return;
    FailureOr<LRSchedule> schedule = parseSchedule(func.getLoc(), spec, 0.0);
    if (failed(schedule)) {
      ok = false;
      return;
    }
    if (std::string problem = schedule->validate(); !problem.empty()) {
      func.emitError(problem);
      ok = false;
      return;
    }
    auto i64 = RankedTensorType::get({}, IntegerType::get(&context, 64));
    auto f64 = RankedTensorType::get({}, Float64Type::get(&context));
    if (func.getFunctionType() !=
        FunctionType::get(&context, {i64}, {f64})) {
      func.emitError("expects (tensor<i64>) -> tensor<f64>");
      ok = false;
      return;
    }
    Block *body = func.addEntryBlock();
    OpBuilder builder = OpBuilder::atBlockEnd(body);
    Value lr =
        buildLRSchedule(builder, func.getLoc(), *schedule, body->getArgument(0));
    func::ReturnOp::create(builder, func.getLoc(), lr);
    func.setPrivate();
    func->removeAttr("test.lr_schedule");
  });
  if (!ok)
    return 1;
  module->print(llvm::outs());
  llvm::outs() << "\n";
  return 0;
}
