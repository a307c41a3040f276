"""Stand-ins and references of notebook 01_rnn_lstm's hidden checks that run where the submitted notebook runs
(in the sandbox, inside the notebook's namespace: they may call the notebook's own functions by name).
Each top-level definition is sent on its own by ``nb.standin(name)``; nothing here is given to students."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F
from seqcourse.testing import grads as _grads
from seqcourse.testing import device_problem as _device_problem
from seqcourse.testing import side_effects as _side_effects


class _StandIn(torch.nn.Module):
    def __init__(self, kind, input_size, hidden_size):
        super().__init__()
        self.kind = kind
        self.net = (torch.nn.LSTM if kind == 'lstm' else torch.nn.RNN)(input_size, hidden_size, batch_first=True)
    def forward(self, x):
        out, state = self.net(x)
        if self.kind == 'lstm':
            return out, (state[0][0], state[1][0])
        return out, state[0]


# the course's RNN (question 2), on torch.nn.RNNCell: what later questions' checks use where the notebook's RNN failed
class RNN(torch.nn.Module):
    def __init__(self, input_size, hidden_size):
        super().__init__()
        self.hidden_size = hidden_size
        self.cell = torch.nn.RNNCell(input_size, hidden_size)
    def forward(self, x, h0=None):
        h = x.new_zeros(x.shape[0], self.hidden_size) if h0 is None else h0
        outputs = []
        for t in range(x.shape[1]):
            h = self.cell(x[:, t], h)
            outputs.append(h)
        return torch.stack(outputs, dim=1), h


def _twice(fn, layer, x):
    a = fn(layer, x)
    b = fn(layer, x)
    return a, b, x.grad


class _Bigram(torch.nn.Module):
    follows_inputs = True   # every tensor it makes follows its weights' device and dtype: the checks' variants may use it
    def __init__(self, vocab_size):
        super().__init__()
        self.table = torch.nn.Embedding(vocab_size, vocab_size)
    def forward(self, tokens, state=None):
        if state is None:   # the documented interface: (logits, (h_T, c_T)), each state (B, H)
            h = self.table.weight.new_zeros(tokens.size(0), 1)
            state = (h, h)
        return self.table(tokens), state


class _Decay(torch.nn.Module):
    # a linear recurrence h_t = 0.5 h_(t-1) + x_t W^T, h_0 = 0: (outputs (B, T, H), h_T), like your RNN
    def __init__(self, input_size, hidden_size):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.zeros(hidden_size, input_size))
    def forward(self, x):
        t = torch.arange(x.shape[1], device=x.device, dtype=x.dtype)
        decay = torch.tril(0.5 ** (t[:, None] - t[None, :]))   # decay[t, s] = 0.5 ** (t - s) for s <= t, else 0
        outputs = torch.einsum("ts,bsh->bth", decay, x @ self.weight.T)
        return outputs, outputs[:, -1]


def _reference_lm_loss(table, ids, pad_id=0):
    logp = torch.log_softmax(table.double(), -1)
    total, count = 0.0, 0
    for b in range(ids.shape[0]):
        for t in range(ids.shape[1] - 1):
            target = int(ids[b, t + 1])
            if target != pad_id:
                total = total - logp[int(ids[b, t]), target]
                count += 1
    return total / count
