"""Stand-ins and references of notebook 05_subwords's hidden checks that run where the submitted notebook runs
(in the sandbox, inside the notebook's namespace: they may call the notebook's own functions by name).
Each top-level definition is sent on its own by ``nb.standin(name)``; nothing here is given to students."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F
from seqcourse.testing import grads as _grads
from seqcourse.testing import device_problem as _device_problem
from seqcourse.testing import on_device as _on_device
from seqcourse.testing import side_effects as _side_effects


def _unchanged(freqs, n):
    # learn_bpe must leave its argument as it was
    import copy
    before = copy.deepcopy(freqs)
    merges = learn_bpe(freqs, n)
    return freqs == before, merges


def _codec_unchanged(sentence, merges, subwords):
    # bpe_encode and bpe_decode must leave the caller's lists as they were
    import copy
    merges_before, subwords_before = copy.deepcopy(merges), copy.deepcopy(subwords)
    encoded, decoded = bpe_encode(sentence, merges), bpe_decode(subwords)
    return merges == merges_before, subwords == subwords_before, encoded, decoded


def _three(state, src, tgt, g_src, g_tgt, g_out):
    # the three uses of one SharedEmbedding in one backward pass: the gradient every parameter gets
    import torch
    emb = SharedEmbedding(state["weight"].size(0), state["weight"].size(1))
    emb.load_state_dict(state)
    h = emb.embed(tgt)
    loss = (emb.embed(src) * g_src).sum() + (h * g_tgt).sum() + (emb.project(h) * g_out).sum()
    loss.backward()
    return {n: None if p.grad is None else p.grad.clone() for n, p in emb.named_parameters()}, sum(p.numel() for p in emb.parameters())


def _rng_check(lengths, max_tokens, seed):
    # token_batches must use a generator of its own: the global random state stays as it is
    import random
    random.seed(12345)
    before = random.getstate()
    batches = token_batches(lengths, max_tokens, seed)
    return random.getstate() == before, batches


def _types(lengths, max_tokens, seed):
    # what token_batches returns, type by type, and whether it changed its argument
    before = list(lengths)
    batches = token_batches(lengths, max_tokens, seed)
    return sorted({type(b).__name__ for b in batches}), sorted({type(i).__name__ for b in batches for i in b}), lengths == before


def _acc_run(state, micro_batches, stale=False, frozen=False):
    # a tiny model (embedding, tanh, output layer) and a masked cross-entropy; calls accumulate_gradients
    import torch
    import torch.nn.functional as F
    model = torch.nn.Sequential(torch.nn.Embedding(11, 6), torch.nn.Tanh(), torch.nn.Linear(6, 11))
    model.load_state_dict(state)
    if frozen:
        model[0].weight.requires_grad_(False)
    if stale:
        for p in model.parameters():
            if p.requires_grad:
                p.grad = torch.full_like(p, 3.0)        # left over from an earlier step
    backs, seen = [], []
    def loss_fn(m, batch):
        x, y = batch
        seen.append(len(backs))                         # backward passes done before this forward
        logits = m(x)
        loss = F.cross_entropy(logits.reshape(-1, 11), y.reshape(-1), ignore_index=0)
        loss.register_hook(lambda g: backs.append(1))
        return loss, int((y != 0).sum())
    out = accumulate_gradients(model, loss_fn, micro_batches)
    grads = {n: None if p.grad is None else p.grad.clone() for n, p in model.named_parameters()}
    return out, grads, seen


def _acc_ref(state, micro_batches):
    # the same model on one batch holding every micro-batch (padded to one length): mean loss per target token
    _m = nn.Sequential(nn.Embedding(11, 6), nn.Tanh(), nn.Linear(6, 11))
    _ = _m.load_state_dict(state)
    T = max(x.size(1) for x, _ in micro_batches)
    xs = torch.cat([F.pad(x, (0, T - x.size(1))) for x, _ in micro_batches])
    ys = torch.cat([F.pad(y, (0, T - y.size(1))) for _, y in micro_batches])
    loss = F.cross_entropy(_m(xs).reshape(-1, 11), ys.reshape(-1), ignore_index=0)
    loss.backward()
    return float(loss.detach()), int((ys != 0).sum()), {n: p.grad for n, p in _m.named_parameters()}


# what changes in the state dicts (or whether the same dict comes back) when the caller changes the average in place
def _average_aliases(states):
    before = [{k: v.clone() for k, v in s.items()} for s in states]
    avg = average_state_dicts(states)
    values = {k: v.clone() for k, v in avg.items()}
    found = ["the same dict object as the input came back"] if any(avg is s for s in states) else []
    for v in avg.values():
        if v.dtype == torch.bool:
            v.logical_not_()
        else:
            v.add_(1)
    changed = sorted({k for s, b in zip(states, before) for k in s if not torch.equal(s[k], b[k])})
    return values, found + [f"changing the average's {k} in place changed an input's {k} (they share memory)" for k in changed]
