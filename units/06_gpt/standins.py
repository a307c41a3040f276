"""Stand-ins and references of notebook 06_gpt's hidden checks that run where the submitted notebook runs
(in the sandbox, inside the notebook's namespace: they may call the notebook's own functions by name).
Each top-level definition is sent on its own by ``nb.standin(name)``; nothing here is given to students."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F
from seqcourse.testing import device_problem as _device_problem
from seqcourse.testing import grads as _grads
from seqcourse.testing import side_effects as _side_effects


def _fwd(m, ids):
    return m(ids)[0, 0, 7]


class _Bigram(torch.nn.Module):
    def __init__(self, vocab_size):
        super().__init__()
        self.table = torch.nn.Embedding(vocab_size, vocab_size)
    def forward(self, ids):
        return self.table(ids)


def _seq():
    return nn.Sequential(nn.Embedding(5, 4), nn.Linear(4, 6), nn.LayerNorm(6), nn.Linear(6, 3, bias=False))


def _draw(fn, logits, seed, **kw):
    before = torch.get_rng_state()
    out = fn(logits, torch.Generator().manual_seed(seed), **kw)
    return out, bool(torch.equal(before, torch.get_rng_state()))
