"""Stand-ins and references of notebook 04_transformer's hidden checks that run where the submitted notebook runs
(in the sandbox, inside the notebook's namespace: they may call the notebook's own functions by name).
Each top-level definition is sent on its own by ``nb.standin(name)``; nothing here is given to students."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F
from seqcourse.testing import grads as _grads
from seqcourse.testing import device_problem as _device_problem
from seqcourse.testing import side_effects as _side_effects


def _mask_on(size):
    # causal_mask(size, device) for another device than the CPU (meta): the device it answers on, or the error
    import torch
    found = []
    for call in (lambda: causal_mask(size, torch.device("meta")), lambda: causal_mask(size, device=torch.device("meta"))):
        try:
            m = call()
            found.append(f"{m.device.type}, {m.dtype}, {tuple(m.shape)}")
        except Exception as e:
            found.append(f"{type(e).__name__}: {str(e)[:150]}")
    return found


class _RefMHA(nn.Module):
    # a correct multi-head attention with the notebook's names (checks do not depend on q2): W_q, W_k, W_v, W_o,
    # h, d_k, split_heads, merge_heads, forward, and the last weights in self.weights
    def __init__(self, d, h):
        super().__init__()
        self.h, self.d_k = h, d // h
        self.W_q, self.W_k, self.W_v, self.W_o = (nn.Linear(d, d) for _ in range(4))
        self.weights = None
    def split_heads(self, x):
        return x.view(x.size(0), x.size(1), self.h, self.d_k).transpose(1, 2)
    def merge_heads(self, x):
        return x.transpose(1, 2).reshape(x.size(0), x.size(2), self.h * self.d_k)
    def forward(self, query, key, value, mask=None):
        q, k, v = self.split_heads(self.W_q(query)), self.split_heads(self.W_k(key)), self.split_heads(self.W_v(value))
        scores = q @ k.transpose(-2, -1) / self.d_k ** 0.5
        if mask is not None:
            scores = scores.masked_fill(~mask, float("-inf"))
        self.weights = torch.softmax(scores, dim=-1)
        return self.W_o(self.merge_heads(self.weights @ v))


class _RefFF(nn.Module):
    # a correct feed-forward network with the notebook's parameter names (checks do not depend on q5)
    def __init__(self, d, d_ff):
        super().__init__()
        self.linear1, self.linear2 = nn.Linear(d, d_ff), nn.Linear(d_ff, d)
    def forward(self, x):
        return self.linear2(F.relu(self.linear1(x)))


def _device_of(make, *args):
    return make(*args).device.type   # where a tensor is created


# the shapes of the tensors that dropout is applied to while module(*args) runs in training mode
def _dropout_shapes(module, args):
    from torch.overrides import TorchFunctionMode
    shapes = []

    class _Record(TorchFunctionMode):
        def __torch_function__(self, func, types, fargs=(), kwargs=None):
            if func in (F.dropout, torch.dropout) and fargs and isinstance(fargs[0], torch.Tensor):
                shapes.append(tuple(fargs[0].shape))
            return func(*fargs, **(kwargs or {}))
    module.train()
    with _Record():
        module(*args)
    return shapes
