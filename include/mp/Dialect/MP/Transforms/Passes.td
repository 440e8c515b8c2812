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

def MPTileAndVectorize : Pass<"mp-tile-and-vectorize", "func::FuncOp"> {
  let summary = "Tile and vectorise linalg operations on tensors for the CPU";
  let description = [{
    CPU code generation for linalg on tensors (what `convert-mp-to-linalg`
    produces): every statically shaped linalg operation is tiled with
    `scf.for` loops and each tile is vectorised (`linalg::vectorize`); the
    vector code is then rewritten into the forms `convert-vector-to-llvm`
    turns into SIMD instructions: multiply-accumulate reductions become
    `vector.contract` and then outer products (rows of fused multiply-adds),
    transfers with permutation maps become plain transfers and transposes.

    Contractions (matmul, batch matmul, and generics whose body multiplies
    and accumulates) are tiled over their M, N and K loops by
    `matmul-tile-sizes` (leading batch loops by 1) and computed as outer
    products; those whose two operands are both contiguous along K (A·Bᵀ,
    as in a linear layer) are tiled by `dot-tile-sizes` and computed as
    split-K dot products: FMAs of K-vectors into an accumulator that keeps
    the K dimension, summed once after the K loop. Every other operation
    over its innermost loops by `tile-sizes`, aligned on the innermost loop
    (outer loops by 1). A tile size that does not divide its loop's extent is
    lowered to the largest divisor of the extent below it, so every tile is
    full and no masking is needed. Operations the vectoriser rejects (dynamic
    shapes, unsupported bodies) are left as they are, for
    `convert-linalg-to-loops`.

    Element types and rounding are kept: an f16 elementwise operation becomes
    f16 vector arithmetic (LLVM rounds every operation to f16), an
    `arith.truncf` stays a rounding, and no fast-math flags are added.
    Operations on FP8 tensors are not vectorised (their conversions are
    lowered elementwise).

    ```mlir
    // linalg.matmul ins(tensor<64x784xf32>, tensor<784x256xf32>) becomes
    // scf.for %m step 8 / scf.for %n step 32 / scf.for %k step 16 around
    // vector.transfer_read, vector.outerproduct and vector.transfer_write.
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::vector::VectorDialect"];
  let options = [
    ListOption<"matmulTileSizes", "matmul-tile-sizes", "int64_t",
               "Tile sizes of the M, N and K loops of contractions "
               "(default 8,32,16)">,
    ListOption<"dotTileSizes", "dot-tile-sizes", "int64_t",
               "Tile sizes of the M, N and K loops of contractions whose "
               "operands are both contiguous along K, such as A·Bᵀ "
               "(default 4,4,16)">,
    ListOption<"tileSizes", "tile-sizes", "int64_t",
               "Tile sizes of the innermost loops of the other linalg "
               "operations, the last one for the innermost loop "
               "(default 8,32)">
  ];
}

def MPExportEntryPoints : Pass<"mp-export-entry-points", "ModuleOp"> {
  let summary = "Prepare public functions to be called from C by drivers";
  let dependentDialects = ["::mlir::bufferization::BufferizationDialect",
                           "::mlir::LLVM::LLVMDialect"];
  let description = [{
    Makes the public functions of a module callable by drivers such as
    `mp-run` once the module is lowered:

    - every public `func.func` with a body gets `llvm.emit_c_interface`, so
      that lowering to LLVM adds a `_mlir_ciface_<name>` wrapper taking one
      memref descriptor pointer per argument;
    - its tensor-level signature is recorded as the function attribute
      `mp.signature`: a dictionary holding `function_type` and, where the
      function has `mp.*` argument or result attributes (the train-step
      contract of docs/TrainStep.md), `arg_attrs` and `res_attrs` with them.
      Those attributes are removed from the arguments and results: they
      describe tensors, and bufferization replaces the tensors by memrefs;
    - its tensor arguments are marked `bufferization.writable = false`: the
      caller's buffers are read-only (one-shot bufferization copies where it
      would otherwise write into them), so a driver may compare results with
      arguments and keep arguments it does not replace.

    Run it on tensors, just before bufferization. Functions that already have
    `mp.signature` are left unchanged.

    For example, `func.func @step(%w: tensor<4xf32> {mp.param}) ->
    (tensor<4xf32> {mp.updates = 0 : i64})` keeps its types, loses its
    argument and result attributes, and gets `llvm.emit_c_interface` and an
    `mp.signature` whose `function_type` is `(tensor<4xf32>) ->
    tensor<4xf32>`, whose `arg_attrs` hold `{mp.param}` and whose `res_attrs`
    hold `{mp.updates = 0 : i64}`.
  }];
}

def MPAutodiff : Pass<"mp-autodiff", "func::FuncOp"> {
  let summary = "Expand mp.grad into explicit backward ops (reverse mode)";
  let description = [{
    Replaces every `mp.grad %loss wrt %v0, ...` by the backward computation
    of the ops between the differentiated values and the loss, in reverse
    order, built by each op through `DifferentiableOpInterface` (so an op
    states its gradient next to its definition):

    - the seed is 1.0 in the loss's type; a loss scaled by `mp.scale` (see
      `mp-loss-scaling`) is differentiated like any other op, so the seed is
      effectively S;
    - the adjoint of every value has the value's type: the adjoint of an
      `mp.cast` is cast back (f32 parameters used through f16 casts get f32
      gradients), the backward of a low-precision op runs in that precision
      (after `mp-autocast` the backward matmuls are f16/bf16 accumulating in
      f32, with transpose flags rather than explicit transposes), and a value
      used several times accumulates its adjoints with `mp.add` in its type;
    - labels, indices and scale factors get no gradient; a value the loss
      does not depend on gets zeros (`arith.constant dense<0.0>`), with a
      warning naming it;
    - only the ops on a path from a differentiated value to the loss are
      differentiated (no backward for batch data).

    Each `mp.grad` is expanded independently. The differentiated values must
    be defined in the block of the `mp.grad`, before it (function arguments
    or results of earlier ops). Errors, at the offending op: an op on the
    path without a gradient (ops of other dialects, ops with regions, the
    dialect's backward, gradient and optimizer ops — second-order
    differentiation is out of scope), a matmul, linear or conv2d of FP8
    operands, a loss that is not a 0-d float tensor. On an error the function is left
    as it was. Run it after `mp-autocast`, `mp-master-weights` and
    `mp-loss-scaling`.

    ```mlir
    // before: an f32 parameter used in f16
    %wh = mp.cast %w : tensor<2x4xf32> to tensor<2x4xf16>
    %y = mp.matmul %x, %wh transpose_rhs acc(f32)
        : tensor<8x4xf16>, tensor<2x4xf16> -> tensor<8x2xf16>
    %l = mp.cross_entropy %y, %labels : tensor<8x2xf16>, tensor<8xi64>
    %dw = mp.grad %l wrt %w : tensor<f16>, tensor<2x4xf32>
    // after: f16 backward accumulating in f32, f32 gradient
    %one = arith.constant dense<1.000000e+00> : tensor<f16>
    %dy = mp.cross_entropy_grad %one, %y, %labels
        : (tensor<f16>, tensor<8x2xf16>, tensor<8xi64>) -> tensor<8x2xf16>
    %dwh = mp.matmul %dy, %x transpose_lhs acc(f32)
        : tensor<8x2xf16>, tensor<8x4xf16> -> tensor<2x4xf16>
    %dw = mp.cast %dwh : tensor<2x4xf16> to tensor<2x4xf32>
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

/// Options that define an autocast policy, shared by mp-autocast and
/// mp-precision-report (so the report's categories are the policy's).
defvar MP_AutocastPolicyOptions = [
  Option<"policyFile", "policy-file", "std::string", /*default=*/"\"\"",
         "JSON policy file: {\"compute-type\", \"level\", \"defaults\", "
         "\"allow\", \"deny\", \"promote\", \"clear\"} (docs/Autocast.md)">,
  ListOption<"allow", "allow", "std::string",
             "Op names (any dialect) moved to the allow list: run in the "
             "compute type, accumulate in f32">,
  ListOption<"deny", "deny", "std::string",
             "Op names (any dialect) moved to the deny list: run in f32">,
  ListOption<"promote", "promote", "std::string",
             "Op names (any dialect) moved to the promote list: run in the "
             "widest float type among their inputs">,
  ListOption<"clear", "clear", "std::string",
             "Op names (any dialect) moved to the clear list: run in the "
             "type of their inputs">
];

def MPAutocast : Pass<"mp-autocast", "ModuleOp"> {
  let summary = "Run each op in the precision of its autocast category, with "
                "as few mp.cast ops as possible";
  let description = [{
    The compiler equivalent of `torch.autocast` (and of TensorFlow's
    auto_mixed_precision rewrite), applied to every function of the module
    ahead of time. Each op falls in a category of the policy, looked up by
    op name, so ops of any dialect can be listed:

    - allow: runs in the compute type (f16 or bf16) and accumulates in f32 —
      matmul, batch_matmul, linear, conv2d and their backward convolutions,
      linalg.matmul and linalg.batch_matmul. The result has the compute type
      (linalg ops keep the type of their `outs` operand, their accumulator).
    - deny: runs in f32 — exp, log, pow, rsqrt, softmax, log_softmax,
      layer_norm, rms_norm, reduce_sum, reduce_mean, the losses and the
      backward ops of these.
    - promote: runs in the widest float type among its inputs — add, sub,
      mul, div, concat, maximum, minimum and the backward ops of the last two.
    - clear: runs in the type of its inputs — every other computing op of
      the dialect (relu, neg, tanh, sigmoid, gelu, sqrt, transpose, reshape,
      broadcast, slice, embedding, reduce_max and their backward ops).

    The training and precision ops (`mp.grad`, the optimizers, `mp.cast`,
    `mp.scale`, the loss-scale and FP8 ops) and terminators are never
    changed; ops that are in no list, ops with regions and ops computing in
    FP8 are left as they are. Integer tensors are never cast. Where an op's
    result type changes, users that are not rewritten get a cast back to the
    original type, so function signatures never change.

    Casts are minimised: one `mp.cast` per (value, type), placed after the
    value's definition and shared by every user (a weight used by several
    matmuls is cast once); low precision flows through clear ops; a reshape,
    transpose, broadcast, relu or neg whose users all run in the compute type
    runs in it too (the cast moves before it, where it is often shared); no
    cast where the type already fits; a round trip such as f32 → f16 → f32
    is never folded. Running the pass on its own output changes nothing.

    Per-op control: `mp.precision = "f32" | "f16" | "bf16"` pins an op's
    execution type; `mp.autocast = false` on an op, an op with regions or a
    function leaves everything below it alone, and `mp.autocast = true`
    re-enables autocast inside. The defaults, the policy file format and the
    cast rules are described in docs/Autocast.md.

    ```mlir
    %y = mp.matmul %x, %w acc(f32) : tensor<8x4xf32>, tensor<4x2xf32> -> tensor<8x2xf32>
    // becomes
    %xh = mp.cast %x : tensor<8x4xf32> to tensor<8x4xf16>
    %wh = mp.cast %w : tensor<4x2xf32> to tensor<4x2xf16>
    %y = mp.matmul %xh, %wh acc(f32) : tensor<8x4xf16>, tensor<4x2xf16> -> tensor<8x2xf16>
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::mp::MPDialect"];
  let options = !listconcat([
    Option<"computeType", "compute-type", "std::string", /*default=*/"\"\"",
           "Low-precision compute type of allow-list ops: f16 or bf16 "
           "(default: the policy file's, else f16)">,
    Option<"level", "level", "std::string", /*default=*/"\"\"",
           "'default', or 'tensor-cores-only': only allow-list ops change "
           "precision (default: the policy file's, else default)">
  ], MP_AutocastPolicyOptions);
  let statistics = [
    Statistic<"numCasts", "casts", "Number of mp.cast ops inserted">,
    Statistic<"numRewritten", "rewritten-ops",
              "Number of ops whose precision changed">
  ];
}

def MPPrecisionReport : Pass<"mp-precision-report", "ModuleOp"> {
  let summary = "Report each op's precision, the casts and the memory of a "
                "train step";
  let description = [{
    Writes, for each function of the module, a report of its precision and
    memory, without changing the IR:

    - every op with its autocast category (allow, deny, promote, clear;
      exempt for the training and precision ops and terminators; unknown for
      ops with float operands that are in no list; none for the others), its
      execution type (the element type of its float operands) and its
      accumulation type where it has one, and whether it is pinned
      (`mp.precision`) or disabled (`mp.autocast = false`);
    - the `mp.cast` ops grouped by (from → to), each with its location and
      the value it casts;
    - the ops autocast does not know (category unknown);
    - bytes by element type of the parameters (`mp.param` arguments), their
      working copies (`mp.cast` of a parameter), the gradients (results of
      `mp.grad`, or the gradient operands of the optimizer ops once
      `mp.grad` is expanded), the optimizer state (`mp.state` arguments) and
      the activations: values of the forward pass live across the forward →
      backward boundary (before `mp-autodiff`, the results of the ops
      `mp.grad`'s loss depends on; after it, results of the ops the
      `mp.loss` result depends on that other ops use as well; constants and
      working copies excluded), with totals.

    The report is printed as a table to `table-output` (stdout by default)
    and, when `output` is given, written as JSON (format in
    docs/Autocast.md). The category options are those of `mp-autocast`, so
    that the report uses the same policy.
  }];
  let options = !listconcat([
    Option<"output", "output", "std::string", /*default=*/"\"\"",
           "File to write the JSON report to ('-' for stdout; none when "
           "empty)">,
    Option<"tableOutput", "table-output", "std::string", /*default=*/"\"-\"",
           "File to print the readable table to ('-' for stdout, the "
           "default; none when empty)">
  ], MP_AutocastPolicyOptions);
}

#endif // MP_DIALECT_MP_TRANSFORMS_PASSES_TD
