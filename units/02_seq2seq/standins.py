"""Stand-ins and references of notebook 02_seq2seq's hidden checks that run where the submitted notebook runs
(in the sandbox, inside the notebook's namespace: they may call the notebook's own functions by name).
Each top-level definition is sent on its own by ``nb.standin(name)``; nothing here is given to students."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F
from seqcourse.testing import device_problem as _device_problem
from seqcourse.testing import on_device as _on_device
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


# trains your model where your code lives, on number words -> digits for these numbers: the pairs and vocabularies
# seqcourse.translation_data gives, made without the datasets library (its import alone holds about 70 MB)
def _train_numbers(numbers):
    import seqcourse
    seqcourse.seed_everything(0)
    src, tgt = [seqcourse.number_to_words(n).split() for n in numbers], [list(str(n)) for n in numbers]
    sv, tv = seqcourse.Vocab.build(src), seqcourse.Vocab.build(tgt)
    pairs = [(sv.encode(s), tv.encode(t)) for s, t in zip(src, tgt)]
    model = Seq2Seq(Encoder(len(sv), 32, 128), Decoder(len(tv), 32, 128))
    seqcourse.fit(model, seq2seq_loss, seqcourse.BucketBatches(pairs, 64, seed=0), torch.optim.Adam(model.parameters(), lr=3e-3), epochs=8, progress=False)
    return model, sv, tv


# the layers of the notebook's Encoder and Decoder, and a model around them: the stand-ins below derive from these
class _EncoderLike(nn.Module):
    def __init__(self, vocab_size, emb_size, hidden_size, num_layers=1, dropout=0.0):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, emb_size, padding_idx=PAD_ID)
        self.dropout = nn.Dropout(dropout)
        self.rnn = nn.LSTM(emb_size, hidden_size, num_layers, batch_first=True, dropout=dropout if num_layers > 1 else 0.0)


class _DecoderLike(nn.Module):
    def __init__(self, vocab_size, emb_size, hidden_size, num_layers=1, dropout=0.0):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, emb_size, padding_idx=PAD_ID)
        self.dropout = nn.Dropout(dropout)
        self.rnn = nn.LSTM(emb_size, hidden_size, num_layers, batch_first=True, dropout=dropout if num_layers > 1 else 0.0)
        self.out = nn.Linear(hidden_size, vocab_size)


class _ModelLike(nn.Module):
    def __init__(self, encoder, decoder):
        super().__init__()
        self.encoder, self.decoder = encoder, decoder
    def forward(self, src, src_len, tgt, teacher_forcing=1.0):   # the notebook's own Seq2Seq.forward
        return Seq2Seq.forward(self, src, src_len, tgt, teacher_forcing)


class _StubEncoder(_EncoderLike):
    # final state (h, c), each (1, B, 1): h = 100, c = 0; counts its calls
    def __init__(self):
        super().__init__(12, 2, 1)
        self.calls = 0
    def forward(self, src, src_len):
        self.calls += 1
        B = src.size(0)
        h = torch.full((1, B, 1), 100.0, device=src.device)
        return torch.zeros(B, src.size(1), 1, device=src.device), (h, torch.zeros_like(h))


class _StubDecoder(_DecoderLike):
    # predicts (token + 1) mod 9; records what it is fed; counts its steps in h
    def __init__(self):
        super().__init__(9, 2, 1)
        self.fed, self.states = [], []
    def forward(self, token, state):
        self.fed.append(token.clone())
        self.states.append(state[0].clone())
        logits = 5.0 * F.one_hot((token + 1) % 9, 9).float()
        return logits, (state[0] + 1, state[1])


class _ZeroStateEncoder(_EncoderLike):
    # final state (h, c) = zeros, each (1, B, 1)
    def __init__(self):
        super().__init__(12, 2, 1)
    def forward(self, src, src_len):
        B = src.size(0)
        h = torch.zeros(1, B, 1, device=src.device)
        return torch.zeros(B, src.size(1), 1, device=src.device), (h, torch.zeros_like(h))


class _Mod8Decoder(_DecoderLike):
    # predicts (token + 1) mod 8, so its own predictions are never the true token 8; records its inputs
    def __init__(self):
        super().__init__(9, 2, 1)
        self.fed = []
    def forward(self, token, state):
        self.fed.append(token.clone())
        return 5.0 * F.one_hot((token + 1) % 8, 9).float(), state


def _run_seeded(model, src, src_len, tgt, teacher_forcing):
    import random
    random.seed(0)
    return model(src, src_len, tgt, teacher_forcing=teacher_forcing)


class _RefEncoder(_EncoderLike):   # a reference encoder, so that a check does not depend on question 1
    follows_inputs = True   # every tensor it makes follows its weights' device and dtype: the checks' variants may use it
    def forward(self, src, src_len):
        packed = nn.utils.rnn.pack_padded_sequence(self.dropout(self.embedding(src)), src_len.cpu(), batch_first=True, enforce_sorted=False)
        out, state = self.rnn(packed)
        return nn.utils.rnn.pad_packed_sequence(out, batch_first=True, total_length=src.size(1))[0], state


class _RefDecoder(_DecoderLike):   # a reference decoder, so that a check does not depend on question 2
    follows_inputs = True   # every tensor it makes follows its weights' device and dtype: the checks' variants may use it
    def forward(self, token, state):
        out, state = self.rnn(self.dropout(self.embedding(token)).unsqueeze(1), state)
        return self.out(out.squeeze(1)), state


class _MetaEncoder(_EncoderLike):
    # runs on any device, the meta device included (no packing: every sentence has its full length here)
    def forward(self, src, src_len):
        return self.rnn(self.dropout(self.embedding(src)))


class _MetaDecoder(_DecoderLike):
    # the logits also depend on the token itself, so a token made on another device than the model's is caught; counts its steps
    def __init__(self, *args):
        super().__init__(*args)
        self.steps = 0
    def forward(self, token, state):
        self.steps += 1
        out, state = self.rnn(self.dropout(self.embedding(token)).unsqueeze(1), state)
        logits = self.out(out.squeeze(1))
        return logits + 0.0 * token.unsqueeze(1).to(logits.dtype), state


class _ZeroEncoder(_EncoderLike):
    # final state zeros, each (L, B, H) (not used by these checks)
    def forward(self, src, src_len):
        h = torch.zeros(self.rnn.num_layers, src.size(0), self.rnn.hidden_size, device=src.device)
        return torch.zeros(src.size(0), src.size(1), self.rnn.hidden_size, device=src.device), (h, torch.zeros_like(h))


class _StateDecoder(_DecoderLike):
    # logits from the state alone (not used by these checks)
    def forward(self, token, state):
        return self.out(state[0][-1]), state


class _FixedLogits(_ModelLike):
    # a Seq2Seq whose forward returns the given logits (B, T-1, C), whatever the input; records teacher_forcing
    def __init__(self, logits):
        super().__init__(_ZeroEncoder(12, 2, 1), _StateDecoder(logits.size(-1), 2, 1))
        self.logits = nn.Parameter(logits.clone())
        self.seen_teacher_forcing = None
    def forward(self, src, src_len, tgt, teacher_forcing=1.0):
        self.seen_teacher_forcing = teacher_forcing
        return self.logits


def _loss_grad(model, batch):
    model.zero_grad(set_to_none=True)
    loss, n = seq2seq_loss(model, batch)
    if not (isinstance(loss, torch.Tensor) and loss.requires_grad):
        return None
    loss.backward()
    return model.logits.grad


class _CountEncoder(_EncoderLike):
    # final state (h, c), each (1, B, 1): h = each sentence's source length, the number of steps before its <eos>
    def __init__(self):
        super().__init__(20, 2, 1)
    def forward(self, src, src_len):
        B = src.size(0)
        h = src_len.to(device=src.device, dtype=torch.float).view(1, B, 1)
        return torch.zeros(B, src.size(1), 1, device=src.device), (h, torch.zeros_like(h))


class _CountDecoder(_DecoderLike):
    # emits 4, 5, 6, ... and <eos> (3) once its countdown h reaches 0; records its inputs
    def __init__(self):
        super().__init__(20, 2, 1)
        self.fed = []
    def forward(self, token, state):
        self.fed.append(token.clone())
        h, c = state
        nxt = torch.where(h[0, :, 0] <= 0, torch.full_like(token, EOS_ID), torch.clamp(token + 1, min=4))
        return 10.0 * F.one_hot(nxt, 20).float(), (h - 1, c)


class _CountStub(_ModelLike):
    def __init__(self):
        super().__init__(_CountEncoder(), _CountDecoder())


class _LengthEncoder(_EncoderLike):
    # final state (h, c), each (1, B, 1): h = each sentence's number of source ids (<sos>, <eos> included); records its batch sizes
    def __init__(self):
        super().__init__(8, 2, 1)
        self.batches = []
    def forward(self, src, src_len):
        B = src.size(0)
        self.batches.append(B)
        h = src_len.to(device=src.device, dtype=torch.float).view(1, B, 1)
        return torch.zeros(B, src.size(1), 1, device=src.device), (h, torch.zeros_like(h))


class _LengthDecoder(_DecoderLike):
    # writes id 4 while its countdown h is positive, then <eos>
    def __init__(self):
        super().__init__(6, 2, 1)
    def forward(self, token, state):
        h, c = state
        nxt = torch.where(h[0, :, 0] <= 0, torch.full_like(token, EOS_ID), torch.full_like(token, 4))
        return 10.0 * F.one_hot(nxt, 6).float(), (h - 1, c)


class _LengthStub(_ModelLike):
    # a stand-in model that writes one "1" (id 4) per source id
    def __init__(self):
        super().__init__(_LengthEncoder(), _LengthDecoder())


def _dash_split(sentence):
    # a tokenizer other than str.split: words joined by dashes
    return sentence.split("-")


class _DeviceEncoder(_LengthEncoder):
    # embeds src first, as a real encoder does: src on another device than the model's fails there
    def forward(self, src, src_len):
        self.embedding(src)
        return super().forward(src, src_len)


class _DeviceDecoder(_LengthDecoder):
    # takes the token wherever greedy_decode made it (question 5 checks that)
    def forward(self, token, state):
        return super().forward(token.to(state[0].device), state)


# translate with the _LengthStub model on a GPU (or the course's fake one): (what fails or None, the translations)
def _translate_on_device(sentences, src_vocab, tgt_vocab):
    model = _ModelLike(_DeviceEncoder(), _DeviceDecoder())
    return _on_device(lambda: translate(model, sentences, src_vocab, tgt_vocab, max_len=6), (), model, tensors=False)


# greedy_decode with the model and the batch on a GPU (or the course's fake one): (what fails or None, the result)
def _greedy_on_device(model, src, src_len, max_len):
    return _on_device(lambda s, n: greedy_decode(model, s, n, max_len), (src, src_len), model)
