//===- Passes.td - Passes of the mp dialect ----------------*- tablegen -*-===//
//
// The mixed-precision passes over mp train steps. Flags are prefixed `mp-`;
// options are generated (no `let constructor`): each pass gets a
// `create<Name>()` / `create<Name>(const <Name>Options &)` pair.
//
//===----------------------------------------------------------------------===//

#ifndef MP_DIALECT_MP_TRANSFORMS_PASSES_TD
#define MP_DIALECT_MP_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def MPLossScaling : Pass<"mp-loss-scaling", "func::FuncOp"> {
  let summary = "Scale the loss before mp.grad, unscale the gradients in f32 "
                "and skip steps whose gradients are not finite";
  let description = [{
    Rewrites a train step (a function with one `mp.grad` in its body) the way
    PyTorch's `GradScaler` runs it:

    - the loss that reaches `mp.grad` is multiplied by the scale S
      (`mp.scale`); the function still returns the unscaled loss;
    - every gradient is cast to f32 and multiplied by 1/S, computed as
      GradScaler does (reciprocal in f64, rounded to f32);
    - `found_inf` is true when any element of any unscaled gradient is inf or
      NaN (`mp.all_finite`); on such a step every result marked
      `mp.updates` (parameters, master weights, working copies, optimizer
      state, step counters) returns its argument unchanged, bit for bit, and
      a new result `tensor<i1> {mp.skipped}` says so;
    - dynamic mode threads the scale state through the signature: arguments
      `tensor<f32> {mp.state = "loss_scale", mp.init = <init-scale>}`,
      `tensor<i32> {mp.state = "growth_tracker"}` and, with hysteresis > 1,
      `tensor<i32> {mp.state = "hysteresis_tracker", mp.init = <hysteresis>}`,
      appended after the existing arguments; their new values
      (`mp.update_loss_scale`) are appended to the results with
      `mp.updates`.

    Users of a gradient that expect its original type get the unscaled value
    cast back to it. The function is marked `mp.loss_scaling = "dynamic"` or
    `"static"`; running the pass again leaves it unchanged. A function without
    `mp.grad` is left alone. Run it before `mp-autodiff`.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::tensor::TensorDialect"];
  let options = [
    Option<"mode", "mode", "std::string", /*default=*/"\"dynamic\"",
           "Loss scaling mode: 'dynamic' (GradScaler) or 'static' (fixed S)">,
    Option<"initScale", "init-scale", "double", /*default=*/"65536.0",
           "Initial scale (dynamic) or the fixed scale (static)">,
    Option<"growthFactor", "growth-factor", "double", /*default=*/"2.0",
           "Factor the scale grows by after growth-interval finite steps">,
    Option<"backoffFactor", "backoff-factor", "double", /*default=*/"0.5",
           "Factor the scale shrinks by on a non-finite step">,
    Option<"growthInterval", "growth-interval", "int64_t", /*default=*/"2000",
           "Finite steps between two growths of the scale">,
    Option<"hysteresis", "hysteresis", "int64_t", /*default=*/"1",
           "Non-finite steps tolerated before backing off (1 = GradScaler, "
           "2 = Megatron-LM's default)">,
    Option<"minScale", "min-scale", "double", /*default=*/"0.0",
           "Lower bound of the dynamic scale (0 = none)">,
    Option<"maxScale", "max-scale", "double", /*default=*/"0.0",
           "Upper bound of the dynamic scale (0 = none)">,
    Option<"skipNonFinite", "skip-nonfinite", "bool", /*default=*/"true",
           "Skip the update of steps with non-finite gradients (static mode "
           "may turn it off; dynamic mode always skips)">
  ];
}

def MPMasterWeights : Pass<"mp-master-weights", "func::FuncOp"> {
  let summary = "Keep parameters as f32 masters and run the optimizer in f32";
  let description = [{
    Materialises FP32 master weights in a train step:

    - `style=cast-per-step` (PyTorch AMP): every `mp.param` argument becomes
      (or stays) an f32 master in the signature; where the body used it in a
      lower precision it is cast once per step; gradients are taken with
      respect to the master, so they reach the optimizer in f32;
    - `style=stored-copy` (Apex O2): each parameter the forward uses in a
      lower precision T gets a working copy argument of type T
      (`mp.state = "working_copy"`, `mp.copy_of = <master index>`); the
      forward and backward use the copy, its gradient is cast to f32 for the
      optimizer, and the copy is refreshed from the updated master and
      returned.

    In both styles the optimizer ops (`mp.sgd`, `mp.adam`, `mp.adamw`) and
    their state arguments run in f32. Run it after `mp-autocast` and before
    `mp-loss-scaling` and `mp-autodiff`. A function without parameters in a
    lower precision is left unchanged (so the pass is idempotent).
  }];
  let options = [
    Option<"style", "style", "std::string", /*default=*/"\"cast-per-step\"",
           "Master-weight style: 'cast-per-step' (PyTorch AMP) or "
           "'stored-copy' (Apex O2)">,
    Option<"masterType", "master-type", "std::string", /*default=*/"\"f32\"",
           "Element type of master weights and optimizer state (f32)">
  ];
}

#endif // MP_DIALECT_MP_TRANSFORMS_PASSES_TD
