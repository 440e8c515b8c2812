// The communication section of mp-precision-report: bytes each process sends
// per step in a ring all-reduce of the gradients, 2(N-1)/N x gradient bytes,
// for the two example models and a 7B-parameter decoder (the figures of
// docs/DataParallel.md).
// RUN: mp-opt %mp_src_root/docs/examples/mlp_train_step.mlir --mp-precision-report='data-parallel-processes=2' -o /dev/null | FileCheck %s --check-prefix=MLP2
// RUN: mp-opt %mp_src_root/docs/examples/mlp_train_step.mlir --mp-precision-report='data-parallel-processes=8' -o /dev/null | FileCheck %s --check-prefix=MLP8
// RUN: mp-opt %mp_src_root/docs/examples/transformer_block_train_step.mlir --mp-precision-report='data-parallel-processes=8' -o /dev/null | FileCheck %s --check-prefix=BLOCK
// RUN: %python %S/Inputs/transformer_7b_shape.py > %t.7b.mlir
// RUN: mp-opt %t.7b.mlir --mp-precision-report='data-parallel-processes=8 table-output= output=-' -o /dev/null | FileCheck %s --check-prefix=JSON7B
// RUN: mp-opt %t.7b.mlir --mp-precision-report='data-parallel-processes=64' -o /dev/null | FileCheck %s --check-prefix=T7B64
// After mp-data-parallel the step's own all-reduces are counted too (the
// bf16 gradients, the i32 flag and the f32 loss).
// RUN: mp-opt %mp_src_root/docs/examples/mlp_train_step.mlir --pass-pipeline='builtin.module(mp-mixed-precision-pipeline{compute-type=f16 data-parallel=true reduce-type=bf16},mp-precision-report{data-parallel-processes=2})' -o /dev/null | FileCheck %s --check-prefix=DP
// Without the option there is no communication section.
// RUN: mp-opt %mp_src_root/docs/examples/mlp_train_step.mlir --mp-precision-report -o /dev/null | FileCheck %s --check-prefix=NONE

// MLP2:      communication per step, ring all-reduce of the gradients over 2 processes (bytes each sends: 2(N-1)/N x gradient bytes):
// MLP2-NEXT:   gradient elements: 203530
// MLP2-NEXT:   reduce-type=f32              814120 bytes
// MLP2-NEXT:   reduce-type=bf16             407060 bytes
// MLP2-NEXT:   reduce-type=f16              407060 bytes
// MLP2-NEXT:   shard.all_reduce in this function: 0 bytes reduced

// MLP8:      over 8 processes
// MLP8-NEXT:   gradient elements: 203530
// MLP8-NEXT:   reduce-type=f32             1424710 bytes
// MLP8-NEXT:   reduce-type=bf16             712355 bytes

// BLOCK:      over 8 processes
// BLOCK-NEXT:   gradient elements: 115520
// BLOCK-NEXT:   reduce-type=f32              808640 bytes
// BLOCK-NEXT:   reduce-type=bf16             404320 bytes

// JSON7B:      "communication": {
// JSON7B-NEXT:   "gradient_elements": 6738415616,
// JSON7B-NEXT:   "processes": 8,
// JSON7B-NEXT:   "ring_allreduce_bytes_per_process": {
// JSON7B-NEXT:     "bf16": 23584454656,
// JSON7B-NEXT:     "f16": 23584454656,
// JSON7B-NEXT:     "f32": 47168909312
// JSON7B-NEXT:   },
// JSON7B-NEXT:   "shard_all_reduce_bytes": 0
// JSON7B-NEXT: },

// T7B64:       gradient elements: 6738415616
// T7B64-NEXT:  reduce-type=f32         53065022976 bytes
// T7B64-NEXT:  reduce-type=bf16        26532511488 bytes

// 203530 bf16 gradient elements (407060 bytes) + i32 flag (4) + f32 loss (4).
// DP:       gradient elements: 203530
// DP:       shard.all_reduce in this function: 407068 bytes reduced

// NONE-NOT: communication
