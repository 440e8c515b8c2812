//===- MPDialect.td - The mp training-graph dialect --------*- tablegen -*-===//
//
// The `mp` dialect models a training step (forward, loss, gradients,
// optimizer update) on builtin tensors with value semantics.
//
//===----------------------------------------------------------------------===//

#ifndef MP_DIALECT_MP_IR_MPDIALECT_TD
#define MP_DIALECT_MP_IR_MPDIALECT_TD

include "mlir/IR/OpBase.td"

def MP_Dialect : Dialect {
  let name = "mp";
  let cppNamespace = "::mlir::mp";
  let summary = "Training graphs for mixed-precision compilation";
  let description = [{
    The `mp` dialect describes one training step of a neural network —
    forward computation, loss, gradients and optimizer update — on builtin
    ranked, statically shaped tensors with value semantics. Element types are
    the storage formats of mixed-precision training: `f32`, `f16`, `bf16`,
    `f8E4M3FN` and `f8E5M2`; integer tensors carry labels and indices. TF32 is
    not a storage type but a compute mode of a matrix multiplication.

    Elementwise binary operations broadcast with the NumPy rule: the operand
    shapes are aligned at their trailing dimension; each pair of aligned
    dimensions must be equal or one of them must be 1; a missing leading
    dimension counts as 1; the result dimension is the larger of the pair.
    Operands of one operation share one element type: mixing precisions is
    always explicit through `mp.cast`.

    A train step is an ordinary `func.func`. Its arguments carry the roles
    given by the argument attributes `mp.param` (a trainable parameter) and
    `mp.state` (threaded state: optimizer moments, step counts, loss-scale
    state; `mp.init` optionally gives its initial value, zeros otherwise);
    arguments without either are batch data. Results carry `mp.loss`
    (the 0-d loss), `mp.updates = N` (the new value of argument N, fed back
    as that argument in the next step) or `mp.skipped` (a 0-d i1, true when
    the step skipped its update). Passes add their state with these roles
    (`mp.copy_of = N` marks the working copy of parameter N). See
    docs/TrainStep.md. Before bufferization, `mp-export-entry-points` moves
    these attributes into the function attribute `mp.signature`, which
    records the tensor-level signature for drivers of the lowered module.
  }];

  let hasRegionArgAttrVerify = 1;
  let hasRegionResultAttrVerify = 1;
  let hasOperationAttrVerify = 1;
  let useDefaultAttributePrinterParser = 1;

  let extraClassDeclaration = [{
    /// Argument attribute marking a trainable parameter of a train step.
    static constexpr ::llvm::StringLiteral kParamAttrName = "mp.param";
    /// Argument attribute naming the kind of threaded state an argument is.
    static constexpr ::llvm::StringLiteral kStateAttrName = "mp.state";
    /// Argument attribute (with `mp.state`): the state's initial value, a
    /// dense value of the argument's type or a scalar splat; zeros when absent.
    static constexpr ::llvm::StringLiteral kInitAttrName = "mp.init";
    /// Argument attribute (with `mp.state = "working_copy"`): the argument is
    /// the low-precision working copy of parameter argument N.
    static constexpr ::llvm::StringLiteral kCopyOfAttrName = "mp.copy_of";
    /// Result attribute marking the 0-d i1 result that is true when the step's
    /// update was skipped (non-finite gradients).
    static constexpr ::llvm::StringLiteral kSkippedAttrName = "mp.skipped";
    /// Function attribute recording the loss scaling applied ("dynamic" or
    /// "static"); mp-loss-scaling leaves such functions alone.
    static constexpr ::llvm::StringLiteral kLossScalingAttrName =
        "mp.loss_scaling";
    /// Result attribute marking the loss returned by a train step.
    static constexpr ::llvm::StringLiteral kLossAttrName = "mp.loss";
    /// Result attribute: this result is the next value of argument N.
    static constexpr ::llvm::StringLiteral kUpdatesAttrName = "mp.updates";
    /// Unit attribute of a `bufferization.alloc_tensor copy(...)` that
    /// convert-mp-to-linalg made a fusion barrier (no copy is wanted):
    /// mp-drop-fusion-barriers replaces it by its source.
    static constexpr ::llvm::StringLiteral kFusionBarrierAttrName =
        "mp.fusion_barrier";
    /// Operation/function attribute: `false` disables autocast below it.
    static constexpr ::llvm::StringLiteral kAutocastAttrName = "mp.autocast";
    /// Function attribute recording a function's tensor-level signature and
    /// train-step contract once the function is lowered (a dictionary with
    /// `function_type` and optionally `arg_attrs`/`res_attrs`).
    static constexpr ::llvm::StringLiteral kSignatureAttrName = "mp.signature";
    /// Prefix of the C-interface wrapper that lowering to LLVM adds to each
    /// function marked `llvm.emit_c_interface` (mp-export-entry-points marks
    /// the entry points): drivers call `_mlir_ciface_<name>`.
    static constexpr ::llvm::StringLiteral kCInterfacePrefix = "_mlir_ciface_";
    /// Unit attribute of a module whose step mp-gpu-pipeline lowered with
    /// every op on the device: the memrefs of its public functions are device
    /// memory.
    static constexpr ::llvm::StringLiteral kDeviceResidentAttrName =
        "mp.device_resident";
    /// Unit attribute of a device-resident launcher call (convert-mp-to-nvvm
    /// with `device-resident`): its last operand is the stream the kernel runs
    /// on, a null placeholder until mp-gpu-pipeline puts the step on one
    /// stream.
    static constexpr ::llvm::StringLiteral kDeviceStreamAttrName = "mp.stream";
    /// Operation attribute pinning the execution type of one op.
    static constexpr ::llvm::StringLiteral kPrecisionAttrName = "mp.precision";

    /// Whether threaded state of `kind` is forward state: state the forward
    /// pass updates (the RNG key/counter `rng`, batch-norm statistics `bn.*`,
    /// learning-rate schedule counters `lr_scheduler.*`, and any user kind
    /// `forward.*`). A skipped step still advances it, as PyTorch does
    /// (GradScaler skips only `optimizer.step()`); every other state kind is
    /// optimizer-side and a skipped step returns it bit for bit.
    static bool isForwardStateKind(::llvm::StringRef kind);
  }];
}

class MP_Op<string mnemonic, list<Trait> traits = []>
    : Op<MP_Dialect, mnemonic, traits>;

#endif // MP_DIALECT_MP_IR_MPDIALECT_TD
