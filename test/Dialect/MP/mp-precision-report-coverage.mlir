// Every op of the dialect has an autocast category or is exempt: on ops.mlir
// and ops-batch-norm.mlir, which use all of them, the report finds no unknown op.
// RUN: mp-opt %S/ops.mlir -split-input-file --mp-precision-report -o /dev/null | FileCheck %s --implicit-check-not="unknown ops: {{[^n]}}" --implicit-check-not="{{ unknown [^o]}}"
// RUN: mp-opt %S/ops-batch-norm.mlir --mp-precision-report -o /dev/null | FileCheck %s --implicit-check-not="unknown ops: {{[^n]}}" --implicit-check-not="{{ unknown [^o]}}"
// CHECK: unknown ops: none
