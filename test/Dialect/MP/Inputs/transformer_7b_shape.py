"""Prints the train step of a 7B-parameter decoder (LLaMA-7B's shapes: 32
layers, model width 4096, MLP width 11008, vocabulary 32000, untied
embedding and LM head, RMSNorm; 6,738,415,616 parameters) in the mp dialect,
for mp-precision-report's communication figures (docs/DataParallel.md). Only
the parameter shapes matter there: the attention is reduced to its four
projections (no softmax over heads) and the MLP to gate · up → down, on one
sequence of 16 tokens, with SGD.

usage: transformer_7b_shape.py [LAYERS]
"""
import sys

layers = int(sys.argv[1]) if len(sys.argv) > 1 else 32
d, f, vocab, t = 4096, 11008, 32000, 16

params = [("emb", (vocab, d))]
for l in range(layers):
    params += [("g1_%d" % l, (d,)), ("wq_%d" % l, (d, d)), ("wk_%d" % l, (d, d)),
               ("wv_%d" % l, (d, d)), ("wo_%d" % l, (d, d)), ("g2_%d" % l, (d,)),
               ("wg_%d" % l, (f, d)), ("wu_%d" % l, (f, d)), ("wd_%d" % l, (d, f))]
params += [("gf", (d,)), ("head", (vocab, d))]


def ty(shape):
    return "tensor<%sxf32>" % "x".join(str(s) for s in shape)


act, wide = ty((t, d)), ty((t, f))
lines = ["func.func @train_step("]
lines += ["    %%%s: %s {mp.param}," % (n, ty(s)) for n, s in params]
lines += ["    %ids: tensor<16xi64>, %labels: tensor<16xi64>)",
          "    -> (tensor<f32> {mp.loss}, " + ", ".join(
              "%s {mp.updates = %d : i64}" % (ty(s), i)
              for i, (n, s) in enumerate(params)) + ") {"]
lines.append("  %%h = mp.embedding %%emb[%%ids] : %s, tensor<16xi64>" % ty((vocab, d)))
h = "%h"


def linear(out, x, w, xin, wshape, result):
    lines.append("  %%%s = mp.linear %s, %%%s acc(f32) : (%s, %s) -> %s"
                 % (out, x, w, xin, ty(wshape), result))
    return "%" + out


for l in range(layers):
    lines.append("  %%n1_%d = mp.rms_norm %s weight %%g1_%d axis 1 eps 1.0e-06"
                 " : (%s, tensor<%dxf32>) -> %s" % (l, h, l, act, d, act))
    q = linear("q_%d" % l, "%%n1_%d" % l, "wq_%d" % l, act, (d, d), act)
    k = linear("k_%d" % l, "%%n1_%d" % l, "wk_%d" % l, act, (d, d), act)
    v = linear("v_%d" % l, "%%n1_%d" % l, "wv_%d" % l, act, (d, d), act)
    lines.append("  %%qk_%d = mp.mul %s, %s : %s, %s" % (l, q, k, act, act))
    lines.append("  %%qkv_%d = mp.add %%qk_%d, %s : %s, %s" % (l, l, v, act, act))
    o = linear("o_%d" % l, "%%qkv_%d" % l, "wo_%d" % l, act, (d, d), act)
    lines.append("  %%r1_%d = mp.add %s, %s : %s, %s" % (l, h, o, act, act))
    lines.append("  %%n2_%d = mp.rms_norm %%r1_%d weight %%g2_%d axis 1 eps 1.0e-06"
                 " : (%s, tensor<%dxf32>) -> %s" % (l, l, l, act, d, act))
    g = linear("gate_%d" % l, "%%n2_%d" % l, "wg_%d" % l, act, (f, d), wide)
    u = linear("up_%d" % l, "%%n2_%d" % l, "wu_%d" % l, act, (f, d), wide)
    lines.append("  %%sg_%d = mp.sigmoid %s : %s" % (l, g, wide))
    lines.append("  %%m_%d = mp.mul %%sg_%d, %s : %s, %s" % (l, l, u, wide, wide))
    dn = linear("down_%d" % l, "%%m_%d" % l, "wd_%d" % l, wide, (d, f), act)
    lines.append("  %%h_%d = mp.add %%r1_%d, %s : %s, %s" % (l, l, dn, act, act))
    h = "%%h_%d" % l
lines.append("  %%nf = mp.rms_norm %s weight %%gf axis 1 eps 1.0e-06"
             " : (%s, tensor<%dxf32>) -> %s" % (h, act, d, act))
logits = linear("logits", "%nf", "head", act, (vocab, d), ty((t, vocab)))
lines.append("  %%loss = mp.cross_entropy %s, %%labels : %s, tensor<16xi64>"
             % (logits, ty((t, vocab))))
lines.append("  %s = mp.grad %%loss wrt %s : tensor<f32>, %s" % (
    ", ".join("%%d_%s" % n for n, s in params),
    ", ".join("%%%s" % n for n, s in params),
    ", ".join(ty(s) for n, s in params)))
for n, s in params:
    lines.append("  %%new_%s = mp.sgd %%%s, %%d_%s {lr = 1.0e-04 : f64} : %s"
                 % (n, n, n, ty(s)))
lines.append("  return %%loss, %s : tensor<f32>, %s" % (
    ", ".join("%%new_%s" % n for n, s in params),
    ", ".join(ty(s) for n, s in params)))
lines.append("}")
print("\n".join(lines))
