// Every op of the dialect has an autocast category or is exempt: on ops.mlir,
// which uses all of them, the report finds no unknown op.
// RUN: mp-opt %S/ops.mlir -split-input-file --mp-precision-report -o /dev/null | FileCheck %s --implicit-check-not="unknown ops: {{[^n]}}" --implicit-check-not="{{ unknown [^o]}}"
// CHECK: unknown ops: none
