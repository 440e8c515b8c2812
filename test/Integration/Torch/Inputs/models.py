"""The models of the PyTorch conformance suite (torch_models.py) and of
tools/bench/torch_models.py: torchvision's resnet18, mobilenet_v2,
mobilenet_v3_small and a small VisionTransformer, a GPT-2-style causal
decoder written with torch.nn, and torch.nn.TransformerEncoderLayer, each with
its batch, loss, optimizer and scheduler.

`MODELS[name](dropout)` returns a Spec; `dropout=False` sets every dropout
probability to 0 (for the exact comparisons).
"""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F
import torchvision


class GPT(nn.Module):
    """A GPT-2-style decoder: token and position embeddings, pre-LayerNorm
    blocks with causal self-attention (a `tril` mask buffer, `masked_fill`)
    and a GELU (tanh) MLP, the LM head tied to the token embedding."""

    def __init__(self, vocab=64, d=64, heads=4, seq=32, layers=2, dropout=0.1):
        super().__init__()
        self.heads = heads
        self.wte = nn.Embedding(vocab, d)
        self.wpe = nn.Embedding(seq, d)
        self.drop = nn.Dropout(dropout)
        self.blocks = nn.ModuleList([Block(d, heads, dropout) for _ in range(layers)])
        self.ln_f = nn.LayerNorm(d)
        self.head = nn.Linear(d, vocab, bias=False)
        self.head.weight = self.wte.weight
        self.register_buffer("mask", torch.tril(torch.ones(seq, seq)).view(1, 1, seq, seq))

    def forward(self, idx):
        _, t = idx.size()
        x = self.drop(self.wte(idx) + self.wpe(torch.arange(0, t, dtype=torch.long)))
        for block in self.blocks:
            x = block(x, self.mask[:, :, :t, :t])
        return self.head(self.ln_f(x))


class Block(nn.Module):
    def __init__(self, d, heads, dropout):
        super().__init__()
        self.heads = heads
        self.ln_1 = nn.LayerNorm(d)
        self.c_attn = nn.Linear(d, 3 * d)
        self.c_proj = nn.Linear(d, d)
        self.ln_2 = nn.LayerNorm(d)
        self.c_fc = nn.Linear(d, 4 * d)
        self.c_out = nn.Linear(4 * d, d)
        self.attn_drop = nn.Dropout(dropout)
        self.resid_drop = nn.Dropout(dropout)

    def forward(self, x, mask):
        b, t, c = x.size()
        q, k, v = self.c_attn(self.ln_1(x)).split(c, dim=2)
        q = q.view(b, t, self.heads, c // self.heads).transpose(1, 2)
        k = k.view(b, t, self.heads, c // self.heads).transpose(1, 2)
        v = v.view(b, t, self.heads, c // self.heads).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        att = att.masked_fill(mask == 0, float("-inf"))
        att = self.attn_drop(F.softmax(att, dim=-1))
        y = (att @ v).transpose(1, 2).contiguous().view(b, t, c)
        x = x + self.resid_drop(self.c_proj(y))
        return x + self.resid_drop(self.c_out(F.gelu(self.c_fc(self.ln_2(x)), approximate="tanh")))


class Spec:
    """A model with its data and training setup: `make_batch(generator)`
    gives (inputs, target); `optimizer(model)`, `scheduler(optimizer)`."""

    def __init__(self, model, make_batch, loss, optimizer, scheduler=None,
                 reference_loss=None):
        self.model = model
        self.make_batch = make_batch
        self.loss = loss
        self.optimizer = optimizer
        self.scheduler = scheduler
        #: The loss as PyTorch computes it on the model's output (a language
        #: model's [B, T, V] flattened; mixedprec.torch flattens by itself).
        self.reference_loss = reference_loss or loss


def torch_step(spec, module, optimizer, x, y, bf16=False, scheduler=None):
    """One PyTorch train step of `module` on (x, y), under
    torch.autocast("cpu", dtype=torch.bfloat16) when `bf16`; returns the
    loss."""
    optimizer.zero_grad()
    if bf16:
        with torch.autocast("cpu", dtype=torch.bfloat16):
            loss = spec.reference_loss(module(x).float(), y)
    else:
        loss = spec.reference_loss(module(x), y)
    loss.backward()
    optimizer.step()
    if scheduler:
        scheduler.step()
    return loss


def _images(batch=8, channels=3, size=32, classes=10):
    def make(generator):
        return (torch.randn(batch, channels, size, size, generator=generator),
                torch.randint(0, classes, (batch,), generator=generator))
    return make


def _no_dropout(model):
    for module in model.modules():
        if isinstance(module, nn.Dropout):
            module.p = 0.0
    return model


def _sgd_cosine():
    return (lambda m: torch.optim.SGD(m.parameters(), lr=0.005, momentum=0.9, weight_decay=5e-4),
            lambda o: torch.optim.lr_scheduler.CosineAnnealingLR(o, T_max=50))


def _vision(make_model):
    def spec(dropout=True):
        model = make_model()
        if not dropout:
            _no_dropout(model)
        optimizer, scheduler = _sgd_cosine()
        return Spec(model, _images(), nn.CrossEntropyLoss(), optimizer, scheduler)
    return spec


def _mobilenet_v3_small_last_stage(dropout=True):
    """torchvision mobilenet_v3_small from its second-to-last stage on
    (features 9-12: hardswish, squeeze-excitation with hardsigmoid,
    depthwise 5×5 stride 2 on 4×4 maps, batch norm over 2×2 maps), its pool
    and classifier, on the 8×48×4×4 activations that stage sees for
    3×32×32 images: what the whole model exercises, at a fraction of its
    compile time."""
    full = torchvision.models.mobilenet_v3_small(num_classes=10)
    model = nn.Sequential(full.features[9:], full.avgpool, nn.Flatten(1), full.classifier)
    if not dropout:
        _no_dropout(model)
    optimizer, scheduler = _sgd_cosine()
    return Spec(model, _images(channels=48, size=4), nn.CrossEntropyLoss(), optimizer, scheduler)


def _gpt(dropout=True):
    model = GPT(dropout=0.1 if dropout else 0.0)

    def make(generator):
        ids = torch.randint(0, 64, (4, 33), generator=generator)
        return ids[:, :-1], ids[:, 1:]

    def scheduler(optimizer):
        warmup = torch.optim.lr_scheduler.LinearLR(optimizer, start_factor=0.1, total_iters=5)
        cosine = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=45)
        return torch.optim.lr_scheduler.SequentialLR(optimizer, [warmup, cosine], milestones=[5])
    return Spec(model, make, nn.CrossEntropyLoss(),
                lambda m: torch.optim.AdamW(m.parameters(), lr=3e-3, weight_decay=0.1),
                scheduler,
                reference_loss=lambda out, y: F.cross_entropy(out.flatten(0, 1), y.flatten()))


class EncoderClassifier(nn.Module):
    """torch.nn.TransformerEncoderLayer over a sequence, mean-pooled into a
    linear classifier."""

    def __init__(self, dropout=0.1):
        super().__init__()
        self.layer = nn.TransformerEncoderLayer(64, 4, 128, dropout=dropout, batch_first=True)
        self.head = nn.Linear(64, 10)

    def forward(self, x):
        return self.head(self.layer(x).mean(1))


def _encoder(dropout=True):
    def make(generator):
        return (torch.randn(4, 16, 64, generator=generator),
                torch.randint(0, 10, (4,), generator=generator))
    return Spec(EncoderClassifier(0.1 if dropout else 0.0), make, nn.CrossEntropyLoss(),
                lambda m: torch.optim.Adam(m.parameters(), lr=1e-3))


MODELS = {
    "resnet18": _vision(lambda: torchvision.models.resnet18(num_classes=10)),
    "mobilenet_v2": _vision(lambda: torchvision.models.mobilenet_v2(num_classes=10)),
    "mobilenet_v3_small": _vision(lambda: torchvision.models.mobilenet_v3_small(num_classes=10)),
    "mobilenet_v3_small_last_stage": _mobilenet_v3_small_last_stage,
    "vit": _vision(lambda: torchvision.models.VisionTransformer(
        image_size=32, patch_size=8, num_layers=2, num_heads=4, hidden_dim=64, mlp_dim=128,
        num_classes=10)),
    "gpt": _gpt,
    "transformer_encoder_layer": _encoder,
}
