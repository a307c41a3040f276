"""Stand-ins and references of notebook 03_attention's hidden checks that run where the submitted notebook runs
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


# the course's DotScore (question 1): what later questions' checks use where question 1 failed
class DotScore(nn.Module):
    def __init__(self, scaled=False):
        super().__init__()
        self.scaled = scaled
    def forward(self, query, keys):
        scores = torch.einsum("bd,bsd->bs", query, keys)
        return scores / math.sqrt(keys.size(-1)) if self.scaled else scores


class _Dot(nn.Module):
    def forward(self, query, keys):
        return torch.einsum("bd,bsd->bs", query, keys)


class _ShortIsBest(nn.Module):
    """<eos> is likely at the first step and unlikely afterwards: a search that drops finished hypotheses
    never returns the empty translation, which is the best one here."""
    def __init__(self):
        super().__init__()
        self.anchor = nn.Parameter(torch.zeros(1))
    def start(self, src, src_len):
        return {"t": torch.zeros(src.size(0), dtype=torch.long)}
    def step(self, tokens, state):
        logits = torch.zeros(tokens.size(0), 8)
        logits[:, EOS_ID] = torch.where(state["t"] == 0, 2.5, -30.0)
        logits[:, 4] = 2.0
        return torch.log_softmax(logits, -1), {"t": state["t"] + 1}


class _Designed(nn.Module):
    """Next-token logits depend on the last token only: rows[last][next] (default -5)."""
    follows_inputs = True   # its table is a buffer, its state made like it: the checks' variants may move it
    def __init__(self, rows):
        super().__init__()
        self.anchor = nn.Parameter(torch.zeros(1))
        self.register_buffer("table", torch.full((8, 8), -5.0))
        for last, nexts in rows.items():
            for tok, logit in nexts.items():
                self.table[last, tok] = logit
    def start(self, src, src_len):
        return {"dummy": self.table.new_zeros(src.size(0))}
    def step(self, tokens, state):
        return torch.log_softmax(self.table[tokens], -1), state


class _MarkovToy(nn.Module):
    """A stand-in for a translation model: the log-probabilities of the next token depend on the sentence
    (its first source token), on its length and on a running hash of the tokens fed so far (so a search that
    mixes up hypotheses, or does not pass src and src_len on, is caught). A module with a parameter, as a model has;
    its table a buffer, so that it moves with the model to a GPU or to float64 (the checks' variants)."""
    follows_inputs = True
    def __init__(self, batch, vocab, seed, eos_bias=0.0):
        super().__init__()
        self.anchor = nn.Parameter(torch.zeros(1))
        g = torch.Generator().manual_seed(seed)
        logits = torch.randn(batch, 13, vocab, generator=g, dtype=torch.float64) * 2
        logits[:, :, EOS_ID] += eos_bias
        logits[:, :, [PAD_ID, SOS_ID]] = -50.0      # never produced
        self.register_buffer("table", torch.log_softmax(logits, -1).float())   # float32, as the real model's step
    def start(self, src, src_len):
        return {"sentence": src[:, 0].clone(), "hash": torch.as_tensor(src_len).to(src.device) % 13}
    def step(self, tokens, state):
        h = (state["hash"] * 5 + tokens + 1) % 13
        return self.table[state["sentence"], h], {"sentence": state["sentence"], "hash": h}


# beam_search with _MarkovToy and the batch on a GPU (or the course's fake one): (what fails or None, the result)
def _beam_on_device(src, src_len, seed):
    model = _MarkovToy(src.size(0), 9, seed)
    return _on_device(lambda s, n: beam_search(model, s, n, beam_size=3, max_len=6, alpha=0.6), (src, src_len),
                      model, tensors=False)


def _batch(lengths):
    """src (B, max length) whose first token tells the sentence apart, and the lengths (B,)."""
    src = torch.full((len(lengths), max(lengths)), 5, dtype=torch.long)
    src[:, 0] = torch.arange(len(lengths))
    return src, torch.tensor(lengths)


class _FixedScore(nn.Module):
    """Returns given scores; records what it was called with."""
    def __init__(self, scores):
        super().__init__()
        self.scores, self.calls = scores, []
    def forward(self, query, keys):
        self.calls.append((query, keys))
        return self.scores.clone()


class _RecordingDot(nn.Module):
    def __init__(self):
        super().__init__()
        self.queries = []
    def forward(self, query, keys):
        self.queries.append(query.detach().clone())
        return torch.einsum("bd,bsd->bs", query, keys)


def _train_numbers(sentences):
    """Train a small model with the decoder on number words; its greedy translations of sentences."""
    seqcourse.seed_everything(0)
    task, sv, tv, pairs = seqcourse.translation_data(seqcourse.number_words_task(n_train=6000, n_val=10, n_test=300, seed=1), "src", "tgt")
    model = Seq2SeqAttention(Encoder(len(sv), 32, 64, 128), AttentionDecoder(len(tv), 32, 128, 128, _Dot()))
    seqcourse.fit(model, attention_loss, seqcourse.BucketBatches(pairs["train"], 64, seed=0), torch.optim.Adam(model.parameters(), lr=3e-3), epochs=6, progress=False)
    return seqcourse.translate(model, list(sentences), sv, tv)
