# mixedprec.compile and the Session API: pipelines, options, policies, and
# every failure as a CompileError carrying the diagnostics.
# RUN: %python %s %mp_src_root/docs/examples/mlp_train_step.mlir %t | FileCheck %s

import os
import sys

import mixedprec

step = open(sys.argv[1]).read()
os.makedirs(sys.argv[2], exist_ok=True)

# The default pipeline, mp-mixed-precision-pipeline (f16: loss scaling too).
out = mixedprec.compile(step)
print("default:", "mp.grad" in out, "mp.update_loss_scale" in out,
      "tensor<64x784xf16>" in out)
# CHECK: default: False True True

# Options with underscores become the pipeline's options.
out = mixedprec.compile(step, compute_type="bf16", master_weights="stored-copy")
print("bf16 stored-copy:", "tensor<64x784xbf16>" in out, "working_copy" in out,
      "mp.update_loss_scale" in out)
# CHECK: bf16 stored-copy: True True False

# Any pipeline string, with or without builtin.module(...).
out = mixedprec.compile(step, pipeline="builtin.module(mp-autocast{compute-type=bf16})")
print("autocast only:", "mp.grad" in out, out.count("mp.cast"))
# CHECK: autocast only: True 4
out = mixedprec.compile(step, pipeline="mp-autocast", deny=["mp.linear"], compute_type="f16")
print("deny list:", out.count("mp.cast"))
# CHECK: deny list: 0

# No pipeline: parse, verify, print.
out = mixedprec.compile(step, pipeline=None)
print(out.splitlines()[1].split("(")[0].strip())
# CHECK: func.func @train_step

# A Policy object and a policy file: the pipeline takes the policy's
# compute type; the deny list keeps mp.linear in f32.
policy = mixedprec.Policy(compute_type="bf16", deny=["mp.linear"])
out = mixedprec.compile(step, policy=policy)
print("policy:", "bf16" in out, "mp.linear %arg13" in out or "acc(f32) : (tensor<64x784xf32>" in out)
# CHECK: policy: False True
path = mixedprec.Policy(compute_type="bf16").write(os.path.join(sys.argv[2], "p.json"))
out = mixedprec.compile(step, policy=path)
print("policy file:", "tensor<64x784xbf16>" in out)
# CHECK: policy file: True


def fails(**kwargs):
    text = kwargs.pop("text", step)
    try:
        mixedprec.compile(text, **kwargs)
    except mixedprec.CompileError as error:
        print("status:", error.status)
        print("message:", error.message)
        print("diagnostics:", error.diagnostics.strip().splitlines()[0])
        return error
    print("no error")


fails(text="func.func @f( {", source_name="bad.mlir")
# CHECK-LABEL: status: parse error
# CHECK-NEXT: message: cannot parse 'bad.mlir'
# CHECK-NEXT: diagnostics: bad.mlir:1:14: error: expected non-function type

fails(text="func.func @f(%a: tensor<2x4x8xf32>, %b: tensor<8x4xf32>) {\n"
      "  %0 = mp.matmul %a, %b acc(f32) : tensor<2x4x8xf32>, tensor<8x4xf32> -> tensor<4x4xf32>\n"
      "  return\n}\n", source_name="v.mlir")
# CHECK-LABEL: status: verify error
# CHECK-NEXT: message: 'v.mlir' does not verify
# CHECK-NEXT: diagnostics: v.mlir:2:8: error: 'mp.matmul' op expects lhs of rank 2, got rank 3

fails(pipeline="mp-no-such-pass")
# CHECK-LABEL: status: invalid pipeline
# CHECK-NEXT: message: invalid pass pipeline 'mp-no-such-pass'
# CHECK-NEXT: diagnostics: MLIR Textual PassPipeline Parser:1:1: error: 'mp-no-such-pass' does not refer to a registered pass or pass pipeline

fails(no_such_option=1)
# CHECK-LABEL: status: invalid pipeline
# CHECK-NEXT: message: invalid pass pipeline 'mp-mixed-precision-pipeline{no-such-option=1}'
# CHECK-NEXT: diagnostics: {{.*}}<Pass-Options-Parser>: no such option no-such-option

fails(policy="/nonexistent/policy.json", compute_type="f16")
# CHECK-LABEL: status: pass failure
# CHECK-NEXT: message: the pass pipeline 'mp-mixed-precision-pipeline{compute-type=f16 policy-file=/nonexistent/policy.json}' failed
# CHECK-NEXT: diagnostics: <module>:0:0: error: mp-autocast: policy file '/nonexistent/policy.json': cannot read it: No such file or directory

bad = os.path.join(sys.argv[2], "bad.json")
with open(bad, "w") as file:
    file.write('{"fast": true}')
error = fails(policy=bad)
# CHECK-LABEL: status: pass failure
# CHECK: diagnostics: <module>:0:0: error: mp-autocast: policy file '{{.*}}bad.json': unknown key 'fast'
print("str:", str(error).splitlines()[0])
# CHECK-NEXT: str: pass failure: the pass pipeline

# Options cannot be attached to a composite pipeline.
try:
    mixedprec.compile(step, pipeline="mp-autocast,canonicalize", compute_type="f16")
except ValueError as error:
    print("ValueError:", error)
# CHECK: ValueError: options can only be given for a single pass or pipeline name
try:
    mixedprec.compile(step, pipeline=None, compute_type="f16")
except ValueError as error:
    print("ValueError:", error)
# CHECK-NEXT: ValueError: options (compute-type=f16) need a pipeline

# The session API: one context, several modules; signatures.
with mixedprec.Session() as session:
    with session.parse(step, "mlp.mlir") as module:
        module.run("mp-autocast")
        module.run("func.func(mp-autodiff)")
        print("session:", "mp.grad" in module.text())
        names = [f.name for f in module.functions()]
    try:
        session.parse("}", "x.mlir")
    except mixedprec.CompileError as error:
        print("session error:", error.status)
print(names)
# CHECK: session: False
# CHECK-NEXT: session error: parse error
# CHECK-NEXT: ['train_step']

signature = mixedprec.signature(step)
print(signature.name, [a.index for a in signature.of_role("param")],
      [(a.index, a.spec) for a in signature.of_role("data")], signature.loss_result,
      signature.updates[1], signature.arguments[12].state_kind)
# CHECK: train_step [0, 1, 2, 3] [(13, tensor<64x784xf32>), (14, tensor<64xi64>)] 0 0 step
try:
    mixedprec.signature(step, function="nope")
except ValueError as error:
    print("ValueError:", error)
# CHECK: ValueError: no function @nope in the module
