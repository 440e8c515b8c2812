// RUN: mp-opt %s --allow-unregistered-dialect --mp-autocast=policy-file=%S/Inputs/autocast-policy.json | FileCheck %s --check-prefix=FILE
// Options override the file: compute-type, and an op moved to another list.
// RUN: mp-opt %s --allow-unregistered-dialect --mp-autocast="policy-file=%S/Inputs/autocast-policy.json compute-type=f16 promote=mp.add" | FileCheck %s --check-prefix=OVERRIDE
// "defaults": false starts from empty lists (here with level tensor-cores-only).
// RUN: mp-opt %s --allow-unregistered-dialect --mp-autocast=policy-file=%S/Inputs/autocast-policy-no-defaults.json | FileCheck %s --check-prefix=NODEFAULTS
// The example policy shipped in docs/examples.
// RUN: mp-opt %s --allow-unregistered-dialect --mp-autocast=policy-file=%mp_src_root/docs/examples/policy.json | FileCheck %s --check-prefix=EXAMPLE
// RUN: mp-opt %s --allow-unregistered-dialect --mp-autocast=policy-file=%S/Inputs/autocast-policy.json -o %t
// RUN: mp-opt %t --allow-unregistered-dialect --mp-autocast=policy-file=%S/Inputs/autocast-policy.json | diff %t -

// A bad policy file or option is one error naming the file or option and
// what is wrong, and nothing is applied (the IR after the failure has no
// cast).
// RUN: not mp-opt %s --allow-unregistered-dialect --mp-autocast=policy-file=%S/Inputs/does-not-exist.json -mlir-print-ir-after-failure 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: error: mp-autocast: policy file '{{.*}}does-not-exist.json': cannot read it: No such file or directory
// MISSING-NOT: error
// MISSING: IR Dump After MPAutocast Failed
// MISSING-NOT: mp.cast
// RUN: not mp-opt %s --allow-unregistered-dialect --mp-autocast=policy-file=%S/Inputs/autocast-policy-malformed.json 2>&1 | FileCheck %s --check-prefix=MALFORMED
// MALFORMED: error: mp-autocast: policy file '{{.*}}autocast-policy-malformed.json': malformed JSON: [3:9, byte=36]: Expected , or ] after array element
// RUN: not mp-opt %s --allow-unregistered-dialect --mp-autocast=policy-file=%S/Inputs/autocast-policy-not-object.json 2>&1 | FileCheck %s --check-prefix=NOTOBJECT
// NOTOBJECT: error: mp-autocast: policy file '{{.*}}autocast-policy-not-object.json': the policy must be a JSON object
// RUN: not mp-opt %s --allow-unregistered-dialect --mp-autocast=policy-file=%S/Inputs/autocast-policy-unknown-key.json 2>&1 | FileCheck %s --check-prefix=UNKNOWNKEY
// UNKNOWNKEY: error: mp-autocast: policy file '{{.*}}autocast-policy-unknown-key.json': unknown key 'fast' (expected compute-type, level, defaults, or an op category: allow, deny, promote, clear)
// RUN: not mp-opt %s --allow-unregistered-dialect --mp-autocast=policy-file=%S/Inputs/autocast-policy-compute-type.json 2>&1 | FileCheck %s --check-prefix=COMPUTETYPE
// COMPUTETYPE: error: mp-autocast: policy file '{{.*}}autocast-policy-compute-type.json': 'compute-type' must be "f16" or "bf16"
// RUN: not mp-opt %s --allow-unregistered-dialect --mp-autocast=policy-file=%S/Inputs/autocast-policy-level.json 2>&1 | FileCheck %s --check-prefix=LEVEL
// LEVEL: error: mp-autocast: policy file '{{.*}}autocast-policy-level.json': 'level' must be "default" or "tensor-cores-only"
// RUN: not mp-opt %s --allow-unregistered-dialect --mp-autocast=policy-file=%S/Inputs/autocast-policy-defaults.json 2>&1 | FileCheck %s --check-prefix=DEFAULTS
// DEFAULTS: error: mp-autocast: policy file '{{.*}}autocast-policy-defaults.json': 'defaults' must be true or false
// RUN: not mp-opt %s --allow-unregistered-dialect --mp-autocast=policy-file=%S/Inputs/autocast-policy-not-array.json 2>&1 | FileCheck %s --check-prefix=NOTARRAY
// NOTARRAY: error: mp-autocast: policy file '{{.*}}autocast-policy-not-array.json': 'deny': must be an array of op names
// RUN: not mp-opt %s --allow-unregistered-dialect --mp-autocast=policy-file=%S/Inputs/autocast-policy-not-string.json 2>&1 | FileCheck %s --check-prefix=NOTSTRING
// NOTSTRING: error: mp-autocast: policy file '{{.*}}autocast-policy-not-string.json': 'deny': element 1 must be a string (an op name)
// RUN: not mp-opt %s --allow-unregistered-dialect --mp-autocast=policy-file=%S/Inputs/autocast-policy-not-op-name.json 2>&1 | FileCheck %s --check-prefix=NOTOPNAME
// NOTOPNAME: error: mp-autocast: policy file '{{.*}}autocast-policy-not-op-name.json': 'clear': 'relu' is not an op name of the form 'dialect.op'
// RUN: not mp-opt %s --allow-unregistered-dialect --mp-autocast=policy-file=%S/Inputs/autocast-policy-exempt.json 2>&1 | FileCheck %s --check-prefix=EXEMPT
// EXEMPT: error: mp-autocast: policy file '{{.*}}autocast-policy-exempt.json': 'allow': 'mp.grad' cannot be listed: autocast never changes the training and precision ops
// RUN: not mp-opt %s --allow-unregistered-dialect --mp-autocast=policy-file=%S/Inputs/autocast-policy-no-such-op.json 2>&1 | FileCheck %s --check-prefix=NOSUCHOP
// NOSUCHOP: error: mp-autocast: policy file '{{.*}}autocast-policy-no-such-op.json': 'allow': the mp dialect has no op 'mp.matmull'
// RUN: not mp-opt %s --allow-unregistered-dialect --mp-autocast=policy-file=%S/Inputs/autocast-policy-two-lists.json 2>&1 | FileCheck %s --check-prefix=TWOLISTS
// TWOLISTS: error: mp-autocast: policy file '{{.*}}autocast-policy-two-lists.json': 'clear': 'mp.relu' is also in 'allow'
// RUN: not mp-opt %s --allow-unregistered-dialect --mp-autocast=compute-type=fp8 2>&1 | FileCheck %s --check-prefix=OPTCOMPUTETYPE
// OPTCOMPUTETYPE: error: mp-autocast: option 'compute-type': unknown compute type 'fp8' (expected f16 or bf16)
// RUN: not mp-opt %s --allow-unregistered-dialect --mp-autocast=level=fast 2>&1 | FileCheck %s --check-prefix=OPTLEVEL
// OPTLEVEL: error: mp-autocast: option 'level': unknown level 'fast' (expected default or tensor-cores-only)
// RUN: not mp-opt %s --allow-unregistered-dialect --mp-autocast=allow=matmul 2>&1 | FileCheck %s --check-prefix=OPTNAME
// OPTNAME: error: mp-autocast: option 'allow': 'matmul' is not an op name of the form 'dialect.op'
// RUN: not mp-opt %s --allow-unregistered-dialect --mp-autocast=deny=mp.cast 2>&1 | FileCheck %s --check-prefix=OPTEXEMPT
// OPTEXEMPT: error: mp-autocast: option 'deny': 'mp.cast' cannot be listed: autocast never changes the training and precision ops
// RUN: not mp-opt %s --allow-unregistered-dialect --mp-autocast="allow=mp.relu clear=mp.relu" 2>&1 | FileCheck %s --check-prefix=OPTTWOLISTS
// OPTTWOLISTS: error: mp-autocast: option 'clear': 'mp.relu' is also in 'allow'

// Inputs/autocast-policy.json: bf16; softmax and an unregistered attention
// op allowed, relu denied, add clear (f16 from a pinned matmul stays f16).
// The unpinned matmul only feeds relu (f32): it returns its f32 accumulator.
// A pinned matmul keeps exactly its pinned type.
// FILE-LABEL: func.func @policy
// FILE-SAME: (%[[X:.*]]: tensor<8x4xf32>, %[[W:.*]]: tensor<4x4xf32>)
// FILE-NEXT: %[[XB:.*]] = mp.cast %[[X]] : tensor<8x4xf32> to tensor<8x4xbf16>
// FILE-NEXT: %[[WB:.*]] = mp.cast %[[W]] : tensor<4x4xf32> to tensor<4x4xbf16>
// FILE-NEXT: %[[XH:.*]] = mp.cast %[[X]] : tensor<8x4xf32> to tensor<8x4xf16>
// FILE-NEXT: %[[WH:.*]] = mp.cast %[[W]] : tensor<4x4xf32> to tensor<4x4xf16>
// FILE-NEXT: %[[Y:.*]] = mp.matmul %[[XB]], %[[WB]] acc(f32) : tensor<8x4xbf16>, tensor<4x4xbf16> -> tensor<8x4xf32>
// FILE-NEXT: %[[R:.*]] = mp.relu %[[Y]] : tensor<8x4xf32>
// FILE-NEXT: %[[RB:.*]] = mp.cast %[[R]] : tensor<8x4xf32> to tensor<8x4xbf16>
// FILE-NEXT: %[[P:.*]] = mp.softmax %[[RB]] dim 1 : tensor<8x4xbf16>
// FILE-NEXT: %[[P32:.*]] = mp.cast %[[P]] : tensor<8x4xbf16> to tensor<8x4xf32>
// FILE-NEXT: %[[A:.*]] = "mydialect.attention"(%[[RB]], %[[RB]]) : (tensor<8x4xbf16>, tensor<8x4xbf16>) -> tensor<8x8xbf16>
// FILE-NEXT: %[[A32:.*]] = mp.cast %[[A]] : tensor<8x8xbf16> to tensor<8x8xf32>
// FILE-NEXT: %[[H:.*]] = mp.matmul %[[XH]], %[[WH]] acc(f32) {mp.precision = "f16"} : tensor<8x4xf16>, tensor<4x4xf16> -> tensor<8x4xf16>
// FILE-NEXT: %[[S:.*]] = mp.add %[[H]], %[[H]] : tensor<8x4xf16>, tensor<8x4xf16>
// FILE-NEXT: %[[S32:.*]] = mp.cast %[[S]] : tensor<8x4xf16> to tensor<8x4xf32>
// FILE-NEXT: return %[[P32]], %[[A32]], %[[S32]]

// OVERRIDE-LABEL: func.func @policy
// OVERRIDE: %[[Y:.*]] = mp.matmul %{{.*}}, %{{.*}} acc(f32) : tensor<8x4xf16>, tensor<4x4xf16> -> tensor<8x4xf32>
// OVERRIDE: mp.relu %{{.*}} : tensor<8x4xf32>
// OVERRIDE: mp.softmax %{{.*}} dim 1 : tensor<8x4xf16>
// OVERRIDE: "mydialect.attention"(%{{.*}}) : (tensor<8x4xf16>, tensor<8x4xf16>) -> tensor<8x8xf16>
// OVERRIDE: mp.add %{{.*}} : tensor<8x4xf16>, tensor<8x4xf16>
// OVERRIDE-NOT: bf16

// Only matmul (allow) and add (promote) are listed: relu, softmax and the
// unregistered op keep their types; with tensor-cores-only the promote op
// keeps its f32.
// NODEFAULTS-LABEL: func.func @policy
// NODEFAULTS-SAME: (%[[X:.*]]: tensor<8x4xf32>, %[[W:.*]]: tensor<4x4xf32>)
// NODEFAULTS-NEXT: %[[XH:.*]] = mp.cast %[[X]] : tensor<8x4xf32> to tensor<8x4xf16>
// NODEFAULTS-NEXT: %[[WH:.*]] = mp.cast %[[W]] : tensor<4x4xf32> to tensor<4x4xf16>
// NODEFAULTS-NEXT: %[[Y:.*]] = mp.matmul %[[XH]], %[[WH]] acc(f32) : tensor<8x4xf16>, tensor<4x4xf16> -> tensor<8x4xf32>
// NODEFAULTS-NEXT: %[[R:.*]] = mp.relu %[[Y]] : tensor<8x4xf32>
// NODEFAULTS-NEXT: %[[P:.*]] = mp.softmax %[[R]] dim 1 : tensor<8x4xf32>
// NODEFAULTS-NEXT: %[[A:.*]] = "mydialect.attention"(%[[R]], %[[R]]) : (tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<8x8xf32>
// NODEFAULTS-NEXT: %[[H:.*]] = mp.matmul %[[XH]], %[[WH]] acc(f32) {mp.precision = "f16"} : tensor<8x4xf16>, tensor<4x4xf16> -> tensor<8x4xf16>
// NODEFAULTS-NEXT: %[[H32:.*]] = mp.cast %[[H]] : tensor<8x4xf16> to tensor<8x4xf32>
// NODEFAULTS-NEXT: %[[S:.*]] = mp.add %[[H32]], %[[H32]] : tensor<8x4xf32>, tensor<8x4xf32>
// NODEFAULTS-NEXT: return %[[P]], %[[A]], %[[S]]

// docs/examples/policy.json: bf16 and the default lists (plus gelu and
// sigmoid denied); mydialect.attention is in no list there, so it keeps f32.
// relu (clear) only feeds f32 users (softmax, the unknown op): it runs in
// f32 on the matmul's f32 accumulator, with no cast.
// EXAMPLE-LABEL: func.func @policy
// EXAMPLE-SAME: (%[[X:.*]]: tensor<8x4xf32>, %[[W:.*]]: tensor<4x4xf32>)
// EXAMPLE-NEXT: %[[XB:.*]] = mp.cast %[[X]] : tensor<8x4xf32> to tensor<8x4xbf16>
// EXAMPLE-NEXT: %[[WB:.*]] = mp.cast %[[W]] : tensor<4x4xf32> to tensor<4x4xbf16>
// EXAMPLE-NEXT: %[[XH:.*]] = mp.cast %[[X]] : tensor<8x4xf32> to tensor<8x4xf16>
// EXAMPLE-NEXT: %[[WH:.*]] = mp.cast %[[W]] : tensor<4x4xf32> to tensor<4x4xf16>
// EXAMPLE-NEXT: %[[Y:.*]] = mp.matmul %[[XB]], %[[WB]] acc(f32) : tensor<8x4xbf16>, tensor<4x4xbf16> -> tensor<8x4xf32>
// EXAMPLE-NEXT: %[[R:.*]] = mp.relu %[[Y]] : tensor<8x4xf32>
// EXAMPLE-NEXT: %[[P:.*]] = mp.softmax %[[R]] dim 1 : tensor<8x4xf32>
// EXAMPLE-NEXT: %[[A:.*]] = "mydialect.attention"(%[[R]], %[[R]]) : (tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<8x8xf32>
// EXAMPLE-NEXT: %[[H:.*]] = mp.matmul %[[XH]], %[[WH]] acc(f32) {mp.precision = "f16"} : tensor<8x4xf16>, tensor<4x4xf16> -> tensor<8x4xf16>
// EXAMPLE-NEXT: %[[S:.*]] = mp.add %[[H]], %[[H]] : tensor<8x4xf16>, tensor<8x4xf16>
// EXAMPLE-NEXT: %[[S32:.*]] = mp.cast %[[S]] : tensor<8x4xf16> to tensor<8x4xf32>
// EXAMPLE-NEXT: return %[[P]], %[[A]], %[[S32]]
func.func @policy(%x: tensor<8x4xf32>, %w: tensor<4x4xf32>) -> (tensor<8x4xf32>, tensor<8x8xf32>, tensor<8x4xf32>) {
  %y = mp.matmul %x, %w acc(f32) : tensor<8x4xf32>, tensor<4x4xf32> -> tensor<8x4xf32>
  %r = mp.relu %y : tensor<8x4xf32>
  %p = mp.softmax %r dim 1 : tensor<8x4xf32>
  %a = "mydialect.attention"(%r, %r) : (tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<8x8xf32>
  %h = mp.matmul %x, %w acc(f32) {mp.precision = "f16"} : tensor<8x4xf32>, tensor<4x4xf32> -> tensor<8x4xf32>
  %s = mp.add %h, %h : tensor<8x4xf32>, tensor<8x4xf32>
  return %p, %a, %s : tensor<8x4xf32>, tensor<8x8xf32>, tensor<8x4xf32>
}
