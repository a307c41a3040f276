"""Stand-ins and references of notebook 02_seq2seq's hidden checks that run where the submitted notebook runs
(in the sandbox, inside the notebook's namespace: they may call the notebook's own functions by name).
Each top-level definition is sent on its own by ``nb.standin(name)``; nothing here is given to students."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F
from seqcourse.testing import device_problem as _device_problem
from seqcourse.testing import side_effects as _side_effects


# runs forward and backward where your code lives, returns the gradients
def _encoder_grads(enc, src, src_len, w_out, w_h, w_c):
    enc.zero_grad(set_to_none=True)
    out, (h, c) = enc(src, src_len)
    loss = (out * w_out).sum() + (h * w_h).sum() + (c * w_c).sum()
    if not loss.requires_grad:
        return None
    loss.backward()
    return {k: p.grad for k, p in enc.named_parameters()}


# runs steps and backward where your code lives, returns the gradients
def _decoder_grads(dec, tokens, h0, c0, w, w_h):
    dec.zero_grad(set_to_none=True)
    h0, c0 = h0.clone().requires_grad_(), c0.clone().requires_grad_()
    state, loss = (h0, c0), 0.0
    for t in range(tokens.size(1)):
        logits, state = dec(tokens[:, t], state)
        loss = loss + (logits * w[:, t]).sum()
    loss = loss + (state[0] * w_h).sum()
    if not loss.requires_grad:
        return None
    loss.backward()
    grads = {k: p.grad for k, p in dec.named_parameters()}
    grads.update(h0=h0.grad, c0=c0.grad)
    return grads


# runs forward and backward where your code lives, returns the gradients
def _seq2seq_grads(model, enc, dec, src, src_len, tgt, w):
    model.zero_grad(set_to_none=True)
    loss = (model(src, src_len, tgt, 1.0) * w).sum()
    if not loss.requires_grad:
        return None
    loss.backward()
    return {**{"encoder." + k: p.grad for k, p in enc.named_parameters()}, **{"decoder." + k: p.grad for k, p in dec.named_parameters()}}


# greedy decoding with the stand-in in training mode; the result, and what changed
def _run_greedy(model, src, src_len, max_len):
    out = []
    found = _side_effects(lambda *a: out.append(greedy_decode(*a)), (model, src, src_len, max_len), model)
    return out[0] if out else None, found


# trains your model where your code lives
def _train_numbers():
    import seqcourse
    seqcourse.seed_everything(0)
    task, sv, tv, pairs = seqcourse.translation_data(seqcourse.number_words_task(n_train=8000, n_val=10, n_test=300, seed=1), "src", "tgt")
    model = Seq2Seq(Encoder(len(sv), 32, 128), Decoder(len(tv), 32, 128))
    seqcourse.fit(model, seq2seq_loss, seqcourse.BucketBatches(pairs["train"], 64, seed=0), torch.optim.Adam(model.parameters(), lr=3e-3), epochs=8, progress=False)
    return model, sv, tv
