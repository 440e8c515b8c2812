# mixedprec.report: the precision report as a dict, with options, a policy,
# and its errors.
# RUN: %python %s %mp_src_root/docs/examples/mlp_train_step.mlir | FileCheck %s

import sys

import mixedprec

step = open(sys.argv[1]).read()
report = mixedprec.report(step)
function = report["functions"][0]
print(function["name"], function["num_casts"], function["bytes"]["totals"]["parameters"],
      function["bytes"]["optimizer_state"])
# CHECK: train_step 0 814120 {'f32': 1628240, 'i64': 8}
print(sorted({(op["name"], op["category"]) for op in function["ops"]
              if op["name"].startswith("mp.") and op["name"] != "mp.adam"}))
# CHECK-NEXT: [('mp.cross_entropy', 'deny'), ('mp.grad', 'exempt'), ('mp.linear', 'allow'), ('mp.relu', 'clear')]

# The report of the compiled step: the casts and the f16 copies.
compiled = mixedprec.compile(step, compute_type="f16")
function = mixedprec.report(compiled)["functions"][0]
print(function["num_casts"] > 0, function["bytes"]["parameter_copies"])
# CHECK-NEXT: True {'f16': {{[0-9]+}}}

# Options of mp-precision-report.
function = mixedprec.report(step, deny=["mp.linear"], clear=["mp.cross_entropy"])["functions"][0]
print(sorted({op["category"] for op in function["ops"] if op["name"] in ("mp.linear", "mp.cross_entropy")}))
# CHECK-NEXT: ['clear', 'deny']

for kwargs in [dict(no_such_option="x"), dict(deny=["mp.linear"], allow=["mp.linear"]),
               dict(text="func.func @f() {")]:
    try:
        mixedprec.report(kwargs.pop("text", step), **kwargs)
        print("no error")
    except mixedprec.CompileError as error:
        print(error.status, "|", error.message, "|", error.diagnostics.strip().splitlines()[0])
# CHECK-NEXT: invalid pipeline | invalid pass pipeline mp-precision-report{no-such-option=x} | <Pass-Options-Parser>: no such option no-such-option
# CHECK-NEXT: pass failure | the pass pipeline mp-precision-report{deny=mp.linear allow=mp.linear} failed | <module>:0:0: error: mp-precision-report: option 'deny': 'mp.linear' is also in 'allow'
# CHECK-NEXT: parse error | cannot parse '<module>' | <module>:1:15: error: expected operation name in quotes
