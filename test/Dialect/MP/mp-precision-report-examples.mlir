// RUN: mp-opt %mp_src_root/docs/examples/mlp_train_step.mlir --mp-precision-report -o /dev/null | FileCheck %s --check-prefix=MLP32
// RUN: mp-opt %mp_src_root/docs/examples/mlp_train_step.mlir --mp-autocast --mp-precision-report -o /dev/null | FileCheck %s --check-prefix=MLP16
// RUN: mp-opt %mp_src_root/docs/examples/transformer_block_train_step.mlir --mp-precision-report -o /dev/null | FileCheck %s --check-prefix=TB32
// RUN: mp-opt %mp_src_root/docs/examples/transformer_block_train_step.mlir --mp-autocast --mp-precision-report -o /dev/null | FileCheck %s --check-prefix=TB16

// The memory profile of the example train steps. The MLP has 203530
// parameters: 4 bytes each in f32, 8 of Adam state (12 bytes/param in FP32);
// after autocast each parameter of the linears but the output bias b2 also
// has a 2-byte f16 working copy (14 bytes/param): the second linear returns
// f32 logits for the cross entropy, so its bias is added in f32 and nothing
// is widened. Activations are 64x256 twice (linear, relu), 64x10 logits and
// the loss; in f16 the hidden ones halve, and the f16 copy of the input
// batch is kept for the weight gradient.
// MLP32: casts: 0
// MLP32: unknown ops: none
// MLP32-NEXT: bytes f32 i64 total
// MLP32-NEXT: parameters 814120 0 814120
// MLP32-NEXT: parameter copies 0 0 0
// MLP32-NEXT: gradients 814120 0 814120
// MLP32-NEXT: optimizer state 1628240 8 1628248
// MLP32-NEXT: activations 133636 0 133636
// MLP32-NEXT: total 3390116 8 3390124

// MLP16: casts: 4
// MLP16-NEXT: f32 -> f16: 4
// MLP16-NEXT: mlp_train_step.mlir:72:12 (argument 13)
// MLP16-NEXT: mlp_train_step.mlir:72:12 (argument 0)
// MLP16-NEXT: mlp_train_step.mlir:72:12 (argument 1)
// MLP16-NEXT: mlp_train_step.mlir:75:13 (argument 2)
// MLP16-NEXT: unknown ops: none
// MLP16-NEXT: bytes f16 f32 i64 total
// MLP16-NEXT: parameters 0 814120 0 814120
// MLP16-NEXT: parameter copies 407040 0 0 407040
// MLP16-NEXT: gradients 0 814120 0 814120
// MLP16-NEXT: optimizer state 0 1628240 8 1628248
// MLP16-NEXT: activations 165888 2564 0 168452
// MLP16-NEXT: total 572928 3259044 8 3831980

// The transformer block: 115520 parameters, 15 casts, all f32 -> f16. 11
// weights and biases of the linears (82368 parameters) get f16 working
// copies; the embedding table, the layer-norm parameters and the biases of
// the linears with f32 results (bo, b2) stay f32 only. The scores, the
// attention and MLP outputs and the logits are f32 accumulators: more f32
// and fewer f16 activations than with f16 results and f32 copies of them.
// TB32: casts: 0
// TB32: bytes f32 i64 total
// TB32-NEXT: parameters 462080 0 462080
// TB32-NEXT: parameter copies 0 0 0
// TB32-NEXT: gradients 462080 0 462080
// TB32-NEXT: optimizer state 924160 8 924168
// TB32-NEXT: activations 376836 256 377092

// TB16: casts: 15
// TB16-NEXT: f32 -> f16: 15
// TB16: unknown ops: none
// TB16-NEXT: bytes f16 f32 i64 total
// TB16-NEXT: parameters 0 462080 0 462080
// TB16-NEXT: parameter copies 164736 0 0 164736
// TB16-NEXT: gradients 0 462080 0 462080
// TB16-NEXT: optimizer state 0 924160 8 924168
// TB16-NEXT: activations 98304 212996 256 311556
