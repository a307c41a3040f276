"""Stand-ins and references of notebook 06_gpt's hidden checks that run where the submitted notebook runs
(in the sandbox, inside the notebook's namespace: they may call the notebook's own functions by name).
Each top-level definition is sent on its own by ``nb.standin(name)``; nothing here is given to students."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F
from seqcourse.testing import device_problem as _device_problem
from seqcourse.testing import on_device as _on_device
from seqcourse.testing import grads as _grads
from seqcourse.testing import side_effects as _side_effects


def _fwd(m, ids):
    return m(ids)[0, 0, 7]


class _Bigram(torch.nn.Module):
    # a stand-in language model: the logits of the next token are a learned row per current token
    def __init__(self, vocab_size):
        super().__init__()
        self.table = torch.nn.Embedding(vocab_size, vocab_size)
    def forward(self, ids):
        return self.table(ids)


def _seq():
    return nn.Sequential(nn.Embedding(5, 4), nn.Linear(4, 6), nn.LayerNorm(6), nn.Linear(6, 3, bias=False))


def _draw(fn, logits, seed, **kw):
    # calls fn(logits, generator, **kw) with a fresh generator seeded with seed; also says whether the global
    # random state stayed as it was
    before = torch.get_rng_state()
    out = fn(logits, torch.Generator().manual_seed(seed), **kw)
    return out, bool(torch.equal(before, torch.get_rng_state()))


def _sample_on_device(logits, seed, **kw):
    # sample_next with the logits on a GPU and a generator there; on the course's fake GPU a CPU generator stands for
    # it, drawing (as CUDA's) only for tensors made on the GPU
    if torch.cuda.is_available():
        generator = torch.Generator("cuda").manual_seed(seed)
    else:
        from seqcourse.fakecuda import cuda_generator
        generator = cuda_generator(torch.Generator().manual_seed(seed))
    return _on_device(lambda x: sample_next(x, generator, **kw), (logits,))


def _draw_twice(fn, logits, seed, **kw):
    # two calls of fn(logits, generator, **kw) with one generator; also whether the first call advanced it
    generator = torch.Generator().manual_seed(seed)
    before = generator.get_state()
    first = fn(logits, generator, **kw)
    advanced = not torch.equal(before, generator.get_state())
    return first, fn(logits, generator, **kw), advanced


def _affine(scales, shifts):
    # stand-in blocks (this check does not depend on question 1): block i computes x * scales[i] + shifts[i]
    class _Affine(nn.Module):
        def __init__(self, a, b):
            super().__init__()
            self.a, self.b = a, nn.Parameter(b)
        def forward(self, x):
            return x * self.a + self.b
    return nn.ModuleList(_Affine(a, b) for a, b in zip(scales, shifts))


def _as_block(ref):
    W, b = ref.self_attn.in_proj_weight.detach().chunk(3), ref.self_attn.in_proj_bias.detach().chunk(3)
    s = {f"attn.W_{n}.weight": W[i] for i, n in enumerate("qkv")}
    s.update({f"attn.W_{n}.bias": b[i] for i, n in enumerate("qkv")})
    s["attn.W_o.weight"], s["attn.W_o.bias"] = ref.self_attn.out_proj.weight.detach(), ref.self_attn.out_proj.bias.detach()
    for n, p in ref.named_parameters():
        if n.startswith(("linear", "norm")):
            s[("ff." if n.startswith("linear") else "") + n] = p.detach()
    return s


def _rand_state(C, d, L, d_ff, max_len, scale=0.3):
    # random weights (biases and norms included) under the notebook's names
    s = {"tok_emb.weight": torch.randn(C, d) * scale * 3, "pos_emb.weight": torch.randn(max_len, d) * scale * 3,
         "norm.weight": 1 + torch.randn(d) * scale, "norm.bias": torch.randn(d) * scale}
    for i in range(L):
        p = f"blocks.{i}."
        for n in "qkvo":
            s[p + f"attn.W_{n}.weight"], s[p + f"attn.W_{n}.bias"] = torch.randn(d, d) * scale, torch.randn(d) * scale
        for n in ("norm1", "norm2"):
            s[p + n + ".weight"], s[p + n + ".bias"] = 1 + torch.randn(d) * scale, torch.randn(d) * scale
        s[p + "ff.linear1.weight"], s[p + "ff.linear1.bias"] = torch.randn(d_ff, d) * scale, torch.randn(d_ff) * scale
        s[p + "ff.linear2.weight"], s[p + "ff.linear2.bias"] = torch.randn(d, d_ff) * scale, torch.randn(d) * scale
    return s
