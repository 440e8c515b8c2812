#!/usr/bin/env python3
"""Casts inserted by mp-autocast versus a naive per-op policy, and its run time.

Usage: /usr/bin/python3 tools/bench/autocast_casts.py BUILD/bin/mp-opt
           [--layers 1,2,4,8,16,24,32,40,48] [--repeat 5] [--keep DIR]
           [--min-ratio FORM=R ...] [--callgrind]

For each N, generates the train step of an N-layer pre-LayerNorm transformer
(the block of docs/examples/transformer_block_train_step.mlir repeated N
times between the token embedding and the LM head; batch 2, sequence 16,
d_model 64, 4 heads, MLP 256, vocabulary 512; AdamW), and measures two forms
of it:

- joint: mp.grad expanded by mp-autodiff into explicit backward ops (the
  graph a framework hands over, with the backward matmuls that reuse the
  forward's weights and activations), then mp-autocast;
- grad:  mp-autocast directly on the mp.grad form (forward ops only).

Counted for each form:

- casts: mp.cast ops mp-autocast inserted (from mp-precision-report's
  num_casts, after minus before);
- naive: eager autocast without its cast cache, computed here from the op
  list: one cast for every float input of every allow or deny op whose type
  (as eager execution would produce it: allow -> compute type, deny -> f32,
  promote -> widest input, clear -> input type) differs from the type the op
  needs, no sharing;
- naive+: naive plus the casts eager execution also needs at promote ops and
  where an op autocast does not change (optimizer, mp.grad, return) receives
  a value in another type than it was written with;
- the pass's wall time from --mlir-timing (minimum over --repeat runs, with
  -verify-each=0: the verifier, whose check of the mp.updates result
  attributes is quadratic in the number of results, would otherwise be
  charged to the pass; the output is verified in a separate run), and per
  op of the input.

The op categories come from mp-precision-report on the input (so the naive
count uses exactly the policy mp-autocast uses). Prints one table per form
and a least-squares line time = a + b*N for each form. With
--min-ratio FORM=R (FORM joint or grad), exits with status 1 when the ratio
naive / casts of that form is below R for some N (a deterministic count, for
tests). With --callgrind, also counts the instructions the pass executes
(valgrind's callgrind: the run with --mp-autocast minus the same run
without it), a measure of the work that machine load does not disturb.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

B, S, D, H, HD, F, V = 2, 16, 64, 4, 16, 256, 512
T = B * S


def t(shape, elem="f32"):
    return "tensor<%s%s>" % ("".join("%dx" % d for d in shape), elem)


def generate(layers, dims=None, labels_2d=False, attention_scale=0.25):
    """Returns the mp.grad-form train step of an N-layer transformer.

    `dims` overrides some of the sizes B, S, D, H, F, V (a dict; the head
    dimension is D / H); with `labels_2d` the labels are [B, S] (reshaped to
    [B * S] in the step), so that every data argument has the batch B first,
    as mp-run's --data needs. `attention_scale` multiplies the attention
    scores (1 / sqrt(16), that of the default head dimension, unless told:
    a step compared with PyTorch's attention needs (D / H) ** -0.5).
    """
    sizes = dict(B=B, S=S, D=D, H=H, F=F, V=V)
    sizes.update(dims or {})
    return _generate(layers, labels_2d, attention_scale, **sizes)


def _generate(layers, labels_2d, attention_scale, B, S, D, H, F, V):
    HD, T = D // H, B * S
    params = [("tok_emb", [V, D])]
    for l in range(layers):
        params += [
            ("l%d_ln1_w" % l, [D]), ("l%d_ln1_b" % l, [D]),
            ("l%d_wq" % l, [D, D]), ("l%d_bq" % l, [D]),
            ("l%d_wk" % l, [D, D]), ("l%d_bk" % l, [D]),
            ("l%d_wv" % l, [D, D]), ("l%d_bv" % l, [D]),
            ("l%d_wo" % l, [D, D]), ("l%d_bo" % l, [D]),
            ("l%d_ln2_w" % l, [D]), ("l%d_ln2_b" % l, [D]),
            ("l%d_w1" % l, [F, D]), ("l%d_b1" % l, [F]),
            ("l%d_w2" % l, [D, F]), ("l%d_b2" % l, [D]),
        ]
    params.append(("w_head", [V, D]))
    P = len(params)

    args = ["%%%s: %s {mp.param}" % (n, t(s)) for n, s in params]
    args += ['%%m_%s: %s {mp.state = "adam.exp_avg"}' % (n, t(s))
             for n, s in params]
    args += ['%%v_%s: %s {mp.state = "adam.exp_avg_sq"}' % (n, t(s))
             for n, s in params]
    args += ['%step: tensor<i64> {mp.state = "step"}',
             "%%ids: %s" % t([B, S], "i64"),
             "%%labels: %s" % t([B, S] if labels_2d else [T], "i64")]
    results = ["tensor<f32> {mp.loss}"]
    for k in range(3):
        results += ["%s {mp.updates = %d : i64}" % (t(s), k * P + i)
                    for i, (_, s) in enumerate(params)]
    results.append("tensor<i64> {mp.updates = %d : i64}" % (3 * P))

    body = []
    emit = body.append
    x3, x4 = t([B, S, D]), t([B, S, H, HD])
    heads = t([B, H, S, HD])
    emit("%%x = mp.embedding %%tok_emb[%%ids] : %s, %s"
         % (t([V, D]), t([B, S], "i64")))
    emit("%%scale = arith.constant dense<%.9e> : tensor<f32>"
         % attention_scale)
    x = "%x"
    for l in range(layers):
        p = "%%l%d_" % l
        v = "%%l%d" % l

        def linear(out, inp, w, b, n_in, n_out):
            emit("%s = mp.linear %s, %s%s, %s%s acc(f32) : (%s, %s, %s) -> %s"
                 % (out, inp, p, w, p, b, t([B, S, n_in]), t([n_out, n_in]),
                    t([n_out]), t([B, S, n_out])))

        emit("%s_h = mp.layer_norm %s weight %sln1_w bias %sln1_b axis 2 "
             "eps 1.0e-05 : (%s, %s, %s) -> %s"
             % (v, x, p, p, x3, t([D]), t([D]), x3))
        for name in "qkv":
            linear("%s_%s" % (v, name), v + "_h", "w" + name, "b" + name, D, D)
            emit("%s_%s_split = mp.reshape %s_%s : %s to %s"
                 % (v, name, v, name, x3, x4))
            emit("%s_%s_heads = mp.transpose %s_%s_split perm [0, 2, 1, 3] : %s"
                 % (v, name, v, name, x4))
        emit("%s_scores = mp.batch_matmul %s_q_heads, %s_k_heads transpose_rhs "
             "acc(f32) : %s, %s -> %s"
             % (v, v, v, heads, heads, t([B, H, S, S])))
        emit("%s_scaled = mp.mul %s_scores, %%scale : %s, tensor<f32>"
             % (v, v, t([B, H, S, S])))
        emit("%s_probs = mp.softmax %s_scaled dim 3 : %s"
             % (v, v, t([B, H, S, S])))
        emit("%s_ctx_heads = mp.batch_matmul %s_probs, %s_v_heads acc(f32) "
             ": %s, %s -> %s" % (v, v, v, t([B, H, S, S]), heads, heads))
        emit("%s_ctx_split = mp.transpose %s_ctx_heads perm [0, 2, 1, 3] : %s"
             % (v, v, heads))
        emit("%s_ctx = mp.reshape %s_ctx_split : %s to %s" % (v, v, x4, x3))
        linear(v + "_attn", v + "_ctx", "wo", "bo", D, D)
        emit("%s_x1 = mp.add %s, %s_attn : %s, %s" % (v, x, v, x3, x3))
        emit("%s_h2 = mp.layer_norm %s_x1 weight %sln2_w bias %sln2_b axis 2 "
             "eps 1.0e-05 : (%s, %s, %s) -> %s"
             % (v, v, p, p, x3, t([D]), t([D]), x3))
        linear(v + "_up", v + "_h2", "w1", "b1", D, F)
        emit("%s_act = mp.gelu %s_up approximate tanh : %s"
             % (v, v, t([B, S, F])))
        linear(v + "_down", v + "_act", "w2", "b2", F, D)
        emit("%s_x2 = mp.add %s_x1, %s_down : %s, %s" % (v, v, v, x3, x3))
        x = v + "_x2"
    emit("%%logits3 = mp.linear %s, %%w_head acc(f32) : (%s, %s) -> %s"
         % (x, x3, t([V, D]), t([B, S, V])))
    emit("%%logits = mp.reshape %%logits3 : %s to %s" % (t([B, S, V]), t([T, V])))
    labels = "%labels"
    if labels_2d:
        emit("%%labels1 = mp.reshape %%labels : %s to %s"
             % (t([B, S], "i64"), t([T], "i64")))
        labels = "%labels1"
    emit("%%loss = mp.cross_entropy %%logits, %s : %s, %s"
         % (labels, t([T, V]), t([T], "i64")))
    emit("%s = mp.grad %%loss wrt %s : tensor<f32>, %s"
         % (", ".join("%%d_%s" % n for n, _ in params),
            ", ".join("%%%s" % n for n, _ in params),
            ", ".join(t(s) for _, s in params)))
    emit("%one = arith.constant dense<1> : tensor<i64>")
    emit("%step1 = arith.addi %step, %one : tensor<i64>")
    for n, s in params:
        decay = "1.0e-01" if len(s) == 2 else "0.0e+00"
        emit("%%%s_new, %%m_%s_new, %%v_%s_new = mp.adamw %%%s, %%d_%s, %%m_%s, "
             "%%v_%s, %%step1 {lr = 3.0e-04 : f64, beta1 = 9.0e-01 : f64, "
             "beta2 = 9.5e-01 : f64, eps = 1.0e-08 : f64, weight_decay = %s : "
             "f64} : %s, tensor<i64>" % (n, n, n, n, n, n, n, decay, t(s)))
    returned = (["%loss"] + ["%%%s_new" % n for n, _ in params]
                + ["%%m_%s_new" % n for n, _ in params]
                + ["%%v_%s_new" % n for n, _ in params] + ["%step1"])
    types = (["tensor<f32>"] + [t(s) for _, s in params] * 3 + ["tensor<i64>"])
    emit("return %s : %s" % (", ".join(returned), ", ".join(types)))
    return ("func.func @train_step(\n    %s)\n    -> (%s) {\n  %s\n}\n"
            % (",\n    ".join(args), ", ".join(results), "\n  ".join(body)))


# ----------------------------------------------------------------------------
# Reading mp-opt's generic output

ELEM = re.compile(r"tensor<(?:\d+x)*([A-Za-z0-9]+)>")
FLOATS = {"f64", "f32", "f16", "bf16", "f8E4M3FN", "f8E5M2"}
OP = re.compile(r'^\s*(?:(%[\w.$-]+)(?::(\d+))?\s*=\s*)?"([\w.]+)"\(([^)]*)\)')


def split_types(text):
    text = text.strip()
    if text.startswith("(") and text.endswith(")"):
        text = text[1:-1]
    return [x.strip() for x in text.split(",") if x.strip()]


def elem(type_text):
    m = ELEM.fullmatch(type_text.strip())
    return m.group(1) if m else type_text.strip()


def parse_generic(text):
    """Returns (argument element types, ops) of the one function in `text`;
    each op is (name, [operand names], [operand elem types], [result names],
    [result elem types])."""
    args, ops = {}, []
    in_body = False
    for line in text.splitlines():
        if line.strip().startswith("^bb0("):
            inner = line.strip()[len("^bb0("):line.strip().rfind(")")]
            for m in re.finditer(r"(%[\w]+): (tensor<[^>]*>)", inner):
                args[m.group(1)] = elem(m.group(2))
            in_body = True
            continue
        if not in_body:
            continue
        m = OP.match(line)
        if not m:
            continue
        result, count, name, operands = m.groups()
        signature = line[line.rfind(" : (") + 3:]
        ins, outs = signature.split(") -> ", 1)
        in_types = [elem(x) for x in split_types(ins + ")")]
        out_types = [elem(x) for x in split_types(outs)]
        operand_names = [x.strip() for x in operands.split(",") if x.strip()]
        if result is None:
            results = []
        elif count is None:
            results = [result]
        else:
            results = ["%s#%d" % (result, i) for i in range(int(count))]
        ops.append((name, operand_names, in_types, results, out_types))
        if name == "func.return":
            break
    return args, ops


def widest(types):
    kinds = set(types)
    if len(kinds) == 1:
        return types[0]
    if "f64" in kinds:
        return "f64"
    return "f32" if ("f32" in kinds or {"f16", "bf16"} <= kinds) else \
        sorted(kinds)[0]


def naive_casts(args, ops, categories, compute="f16"):
    """Eager autocast without a cache: returns (allow/deny casts, promote
    casts, casts back for unchanged ops)."""
    current = dict(args)
    allow_deny = promote = back = 0
    for (name, operands, in_types, results, out_types), category in zip(
            ops, categories):
        floats = [(v, ty) for v, ty in zip(operands, in_types) if ty in FLOATS]
        arriving = [current.get(v, ty) for v, ty in floats]
        out = None
        if category in ("allow", "deny") and floats:
            need = compute if category == "allow" else "f32"
            allow_deny += sum(1 for a in arriving if a != need)
            out = need
        elif category == "promote" and floats:
            out = widest(arriving)
            promote += sum(1 for a in arriving if a != out)
        elif category == "clear" and floats:
            out = widest(arriving)
        else:
            back += sum(1 for (v, ty), a in zip(floats, arriving) if a != ty)
        for r, ty in zip(results, out_types):
            current[r] = out if (out is not None and ty in FLOATS) else ty
    return allow_deny, promote, back


def run(cmd):
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit("command failed: %s\n%s" % (" ".join(cmd), proc.stderr))
    return proc


def autocast_seconds(stderr):
    for line in stderr.splitlines():
        m = re.match(r"^\s*([\d.]+)\s+\(\s*[\d.]+%\)\s+MPAutocast\s*$", line)
        if m:
            return float(m.group(1))
    sys.exit("no MPAutocast line in the --mlir-timing report:\n" + stderr)


def measure(mp_opt, path, work, repeat):
    """Returns (ops, casts inserted, naive counts, best seconds)."""
    before_json = os.path.join(work, "before.json")
    generic = run([mp_opt, path, "--mlir-print-op-generic",
                   "--mp-precision-report=output=%s table-output=" % before_json]
                  ).stdout
    before = json.load(open(before_json))["functions"][0]
    args, ops = parse_generic(generic)
    # The report lists the function's ops in the same (pre-)order.
    names = [op["name"] for op in before["ops"]]
    if names != [op[0] for op in ops]:
        sys.exit("op lists of the generic IR and the report differ")
    naive = naive_casts(args, ops, [op["category"] for op in before["ops"]])

    # The output is verified in this run; the timed runs skip verification,
    # which --mlir-timing would otherwise charge to the pass.
    after_json = os.path.join(work, "after.json")
    run([mp_opt, path, "--mp-autocast",
         "--mp-precision-report=output=%s table-output=" % after_json,
         "-o", os.devnull])
    after = json.load(open(after_json))["functions"][0]
    best = None
    for _ in range(repeat):
        proc = run([mp_opt, path, "--mlir-disable-threading", "--mlir-timing",
                    "-verify-each=0", "--mp-autocast", "-o", os.devnull])
        seconds = autocast_seconds(proc.stderr)
        best = seconds if best is None else min(best, seconds)
    return len(ops), after["num_casts"] - before["num_casts"], naive, best


def pass_instructions(mp_opt, path):
    """Instructions executed by --mp-autocast on `path` (callgrind's Ir of a
    run with the pass minus that of the same run without it)."""
    counts = []
    for extra in (["--mp-autocast"], []):
        proc = run(["valgrind", "--tool=callgrind", "--callgrind-out-file=" +
                    os.devnull, mp_opt, path, "--mlir-disable-threading",
                    "-verify-each=0", "-o", os.devnull] + extra)
        m = re.search(r"Collected : (\d+)", proc.stderr)
        if not m:
            sys.exit("no instruction count in valgrind's output:\n" +
                     proc.stderr)
        counts.append(int(m.group(1)))
    return counts[0] - counts[1]


def fit(xs, ys):
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys))
    b = sxy / sxx if sxx else 0.0
    a = my - b * mx
    ss_tot = sum((y - my) ** 2 for y in ys)
    ss_res = sum((y - a - b * x) ** 2 for x, y in zip(xs, ys))
    return a, b, (1.0 - ss_res / ss_tot) if ss_tot else 1.0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mp_opt", help="path to mp-opt")
    parser.add_argument("--layers", default="1,2,4,8,16,24,32,40,48",
                        help="comma-separated layer counts N")
    parser.add_argument("--repeat", type=int, default=5,
                        help="runs per measurement (the fastest counts)")
    parser.add_argument("--keep", help="directory to keep the generated IR in")
    parser.add_argument("--callgrind", action="store_true",
                        help="also count the pass's instructions with valgrind")
    parser.add_argument("--min-ratio", action="append", default=[],
                        metavar="FORM=R",
                        help="fail unless naive/casts >= R for every N of FORM "
                             "(joint or grad)")
    opts = parser.parse_args()
    min_ratios = {}
    for item in opts.min_ratio:
        form, _, ratio = item.partition("=")
        if form not in ("joint", "grad") or not ratio:
            parser.error("--min-ratio expects joint=R or grad=R, got %r" % item)
        min_ratios[form] = float(ratio)
    layers = [int(x) for x in opts.layers.split(",")]
    has_autodiff = "--mp-autodiff" in run([opts.mp_opt, "--help"]).stdout

    scratch = None if opts.keep else tempfile.TemporaryDirectory(
        prefix="autocast-bench-")
    work = opts.keep or scratch.name
    os.makedirs(work, exist_ok=True)
    forms = (["joint"] if has_autodiff else []) + ["grad"]
    rows = {form: [] for form in forms}
    instructions = {form: [] for form in forms}
    for n in layers:
        grad_path = os.path.join(work, "train_step_%d.mlir" % n)
        with open(grad_path, "w") as f:
            f.write(generate(n))
        paths = {"grad": grad_path}
        if has_autodiff:
            paths["joint"] = os.path.join(work, "train_step_%d_joint.mlir" % n)
            run([opts.mp_opt, grad_path, "--mp-autodiff", "-o", paths["joint"]])
        for form in forms:
            rows[form].append((n,) + measure(opts.mp_opt, paths[form], work,
                                              opts.repeat))
            if opts.callgrind:
                instructions[form].append(
                    pass_instructions(opts.mp_opt, paths[form]))
            print("  N=%d %s done" % (n, form), file=sys.stderr)

    for form in forms:
        title = {"joint": "explicit joint graph (mp-autodiff, then mp-autocast)",
                 "grad": "mp.grad form (forward ops only)"}[form]
        print("\n%s" % title)
        print("%4s %7s %7s %7s %7s %8s %7s %10s %9s" % (
            "N", "ops", "casts", "naive", "ratio", "naive+", "ratio",
            "pass ms", "us/op") + ("  Minstr  kinstr/op" if opts.callgrind
                                   else ""))
        for i, (n, ops, casts, (ad, pr, back), seconds) in enumerate(
                rows[form]):
            plus = ad + pr + back
            print("%4d %7d %7d %7d %7.2f %8d %7.2f %10.3f %9.3f" % (
                n, ops, casts, ad, ad / casts if casts else 0.0, plus,
                plus / casts if casts else 0.0, seconds * 1e3,
                seconds * 1e6 / ops), end="")
            if opts.callgrind:
                print(" %7.2f %10.2f" % (instructions[form][i] / 1e6,
                                         instructions[form][i] / 1e3 / ops),
                      end="")
            print()
        if len(rows[form]) > 1:
            a, b, r2 = fit([r[0] for r in rows[form]],
                           [r[4] * 1e3 for r in rows[form]])
            print("pass time ~ %.3f ms + %.3f ms * N  (R^2 = %.4f)" % (a, b, r2))
            if opts.callgrind:
                a, b, r2 = fit([r[0] for r in rows[form]],
                               [x / 1e6 for x in instructions[form]])
                print("instructions ~ %.3f M + %.3f M * N  (R^2 = %.6f)"
                      % (a, b, r2))
    if not has_autodiff:
        print("\n(mp-opt has no --mp-autodiff: joint form not measured)")
    if scratch:
        scratch.cleanup()
    failed = False
    for form, minimum in sorted(min_ratios.items()):
        if form not in rows:
            sys.exit("--min-ratio %s: form not measured" % form)
        for n, _, casts, (ad, _, _), _ in rows[form]:
            if casts and ad / casts < minimum:
                print("%s form, N=%d: naive/casts = %d/%d = %.3f < %g"
                      % (form, n, ad, casts, ad / casts, minimum))
                failed = True
    if min_ratios:
        print("min-ratio check: %s" % ("FAILED" if failed else "passed"))
    if failed:
        sys.exit(1)


if __name__ == "__main__":
    main()
