"""Greedy decoding and batch translation through the course's decoding interface (notebooks 03 and later):
``model.start(src, src_len) -> state`` (a dict of tensors, batch first) and
``model.step(tokens, state) -> (log_probs (N, V), state)``."""

from __future__ import annotations

import torch

from .text import Vocab, pad_batch

PAD_ID, _, SOS_ID, EOS_ID = range(4)  # the ids of Vocab's specials
ANSWERS = "02_seq2seq"  # greedy search and translation are notebook 02's exercises: students get this module from 03 on


@torch.no_grad()
def greedy_search(model, src: torch.Tensor, src_len: torch.Tensor | None, max_len: int = 50):
    """src (B, S) -> (hyps, scores): B lists of token ids (the argmax at every step, without <eos>) and
    their log-probabilities log p(Y|x) (B,), <eos> included."""
    state = model.start(src, src_len)
    tokens = torch.full((src.size(0),), SOS_ID, dtype=torch.long, device=src.device)
    finished = torch.zeros(src.size(0), dtype=torch.bool, device=src.device)
    scores = torch.zeros(src.size(0), device=src.device)
    steps = []
    for _ in range(max_len):
        log_probs, state = model.step(tokens, state)             # (B, V)
        best, tokens = log_probs.max(dim=-1)                     # (B,), (B,)
        scores += best.masked_fill(finished, 0.0)
        steps.append(tokens.masked_fill(finished, PAD_ID))
        finished |= tokens == EOS_ID
        if finished.all():
            break
    out = torch.stack(steps, dim=1).tolist()                     # (B, steps)
    return [row[:row.index(EOS_ID)] if EOS_ID in row else row for row in out], scores.cpu()


@torch.no_grad()
def translate(model, sentences: list[str], src_vocab: Vocab, tgt_vocab: Vocab, tokenize=str.split,
              search=greedy_search, batch_size: int = 128, **search_args) -> list[list[str]]:
    """Translations of ``sentences`` (token lists, same order) with ``search`` (greedy by default);
    ``search_args`` go to ``search`` (e.g. ``beam_size``)."""
    model.eval()
    device = next(model.parameters()).device
    result = []
    for i in range(0, len(sentences), batch_size):
        ids, lengths = pad_batch([src_vocab.encode(tokenize(s)) for s in sentences[i:i + batch_size]], PAD_ID)
        hyps, _ = search(model, ids.to(device), lengths, **search_args)
        result += [tgt_vocab.decode(row) for row in hyps]
    return result
