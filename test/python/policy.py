# mixedprec.Policy: building lists, the policy file format of
# docs/examples/policy.json, validation, and its effect through compile and
# report.
# RUN: %python %s %mp_src_root/docs/examples %t | FileCheck %s

import json
import os
import sys

import mixedprec

examples, scratch = sys.argv[1], sys.argv[2]
os.makedirs(scratch, exist_ok=True)

# The example policy file, rebuilt from Python, gives the same JSON object.
policy = mixedprec.Policy(compute_type="bf16", level="default")
policy.allow("linalg.matmul", "linalg.batch_matmul", "linalg.conv_2d_nchw_fchw")
policy.deny("mp.gelu", "mp.gelu_grad", "mp.sigmoid")
example = json.load(open(os.path.join(examples, "policy.json")))
print("same as docs/examples/policy.json:", policy.to_dict() == example)
# CHECK: same as docs/examples/policy.json: True
print("load:", mixedprec.Policy.load(os.path.join(examples, "policy.json")) == policy)
# CHECK-NEXT: load: True

# An op is in one list: adding it elsewhere moves it.
policy.clear("mp.gelu").promote("mp.add")
print(policy.category_of("mp.gelu"), policy.ops("deny"), policy.ops("promote"))
# CHECK-NEXT: clear ['mp.gelu_grad', 'mp.sigmoid'] ['mp.add']
path = policy.write(os.path.join(scratch, "policy.json"))
print(open(path).read().replace("\n", " "))
# CHECK-NEXT: { "compute-type": "bf16", "level": "default", "defaults": true, "allow": [ "linalg.matmul", "linalg.batch_matmul", "linalg.conv_2d_nchw_fchw" ], "deny": [ "mp.gelu_grad", "mp.sigmoid" ], "promote": [ "mp.add" ], "clear": [ "mp.gelu" ] }
print(mixedprec.Policy(defaults=False, deny=["mp.relu"]).to_dict())
# CHECK-NEXT: {'defaults': False, 'allow': [], 'deny': ['mp.relu'], 'promote': [], 'clear': []}

# The file is what mp-autocast reads: a policy that allows nothing leaves the
# step in f32, a deny of mp.relu casts around it.
step = open(os.path.join(examples, "mlp_train_step.mlir")).read()
out = mixedprec.compile(step, pipeline="mp-autocast",
                        policy=mixedprec.Policy(compute_type="f16", defaults=False))
print("nothing allowed:", out.count("mp.cast"))
# CHECK-NEXT: nothing allowed: 0
report = mixedprec.report(step, policy=mixedprec.Policy(compute_type="bf16", deny=["mp.relu"],
                                                        clear=["mp.linear"]))
print({op["name"]: op["category"] for op in report["functions"][0]["ops"]
       if op["name"] in ("mp.relu", "mp.linear")})
# CHECK-NEXT: {'mp.linear': 'clear', 'mp.relu': 'deny'}

# Python-side validation.
for make in [lambda: mixedprec.Policy(compute_type="f64"),
             lambda: mixedprec.Policy(level="fast"),
             lambda: mixedprec.Policy(defaults="yes"),
             lambda: mixedprec.Policy(allow=["matmul"]),
             lambda: mixedprec.Policy().add("fp32", "mp.exp"),
             lambda: mixedprec.Policy.from_dict({"fast": True})]:
    try:
        make()
        print("no error")
    except ValueError as error:
        print("ValueError:", error)
# CHECK-NEXT: ValueError: compute type must be one of f16, bf16, got 'f64'
# CHECK-NEXT: ValueError: level must be one of default, tensor-cores-only, got 'fast'
# CHECK-NEXT: ValueError: defaults must be True or False, got 'yes'
# CHECK-NEXT: ValueError: 'matmul' is not an op name of the form 'dialect.op'
# CHECK-NEXT: ValueError: unknown op category 'fp32' (expected one of allow, deny, promote, clear)
# CHECK-NEXT: ValueError: unknown policy keys: fast

# What only the pass knows (an exempt op) comes back as a CompileError.
try:
    mixedprec.compile(step, policy=mixedprec.Policy(compute_type="f16", allow=["mp.grad"]))
except mixedprec.CompileError as error:
    print(error.status, "|", error.diagnostics.strip())
# CHECK-NEXT: pass failure | <module>:0:0: error: mp-autocast: policy file '{{.*}}': 'allow': 'mp.grad' cannot be listed: autocast never changes the training and precision ops
