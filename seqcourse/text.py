"""Tokenisation (spaCy blank pipelines: rules only, nothing to download), vocabularies and
length-bucketed batching."""

from __future__ import annotations

import random
from collections import Counter
from functools import lru_cache
from typing import Iterable, Sequence

import torch

PAD, UNK, SOS, EOS = "<pad>", "<unk>", "<sos>", "<eos>"
SPECIALS = (PAD, UNK, SOS, EOS)


@lru_cache(maxsize=None)
def _blank(lang: str):
    import spacy

    return spacy.blank(lang)


def tokenizer(lang: str, lower: bool = True):
    """A function str -> list[str] using spaCy's rule-based tokeniser for ``lang`` ("de", "en").

    Uses ``spacy.blank(lang)``: tokenisation rules ship with spaCy itself, so there is no model
    download. Lowercases by default, like the published Multi30k notebooks.
    """
    nlp = _blank(lang)

    def tokenize(text: str) -> list[str]:
        return [t.text.lower() if lower else t.text for t in nlp.tokenizer(text)]

    return tokenize


class Vocab:
    """Token <-> id mapping. Ids 0-3 are ``<pad>``, ``<unk>``, ``<sos>``, ``<eos>``; the other
    tokens follow by decreasing frequency (ties alphabetically, so a vocabulary is reproducible).
    """

    def __init__(self, itos: Sequence[str]):
        if tuple(itos[:len(SPECIALS)]) != SPECIALS:
            raise ValueError(f"the first tokens must be {SPECIALS}")
        self.itos = list(itos)
        self.stoi = {tok: i for i, tok in enumerate(self.itos)}
        if len(self.stoi) != len(self.itos):
            raise ValueError("duplicate tokens in vocabulary")
        self.pad_id, self.unk_id, self.sos_id, self.eos_id = range(len(SPECIALS))

    @classmethod
    def build(cls, token_lists: Iterable[Sequence[str]], min_freq: int = 1, max_size: int | None = None):
        """Vocabulary of the tokens seen at least ``min_freq`` times (at most ``max_size`` of them)."""
        counts = Counter(tok for toks in token_lists for tok in toks)
        kept = sorted((t for t, c in counts.items() if c >= min_freq and t not in SPECIALS),
                      key=lambda t: (-counts[t], t))
        return cls(list(SPECIALS) + kept[:max_size])

    def __len__(self) -> int:
        return len(self.itos)

    def encode(self, tokens: Sequence[str], sos_eos: bool = True) -> list[int]:
        """Token ids; unknown tokens map to ``<unk>``; wrapped in ``<sos>`` ... ``<eos>`` by default."""
        ids = [self.stoi.get(t, self.unk_id) for t in tokens]
        return [self.sos_id] + ids + [self.eos_id] if sos_eos else ids

    def decode(self, ids: Iterable[int]) -> list[str]:
        """Tokens for ``ids`` (list or 1-D tensor): stops at the first ``<eos>``, drops
        ``<sos>`` and ``<pad>``."""
        out = []
        for i in (ids.tolist() if isinstance(ids, torch.Tensor) else ids):
            if i == self.eos_id:
                break
            if i not in (self.sos_id, self.pad_id):
                out.append(self.itos[i])
        return out


def translation_data(dataset, src: str, tgt: str, tokenize_src=str.split, tokenize_tgt=str.split, min_freq: int = 1):
    """Prepare a parallel ``datasets.DatasetDict`` with text columns ``src`` and ``tgt`` for training.

    Adds token columns ``<src>_tokens`` and ``<tgt>_tokens``, builds both vocabularies on the train split
    (words seen at least ``min_freq`` times) and encodes every split as (source ids, target ids) pairs,
    each wrapped in ``<sos>`` ... ``<eos>``.
    Returns ``(dataset, src_vocab, tgt_vocab, {split: pairs})``.
    """
    dataset = dataset.map(lambda ex: {f"{src}_tokens": tokenize_src(ex[src]), f"{tgt}_tokens": tokenize_tgt(ex[tgt])})
    src_vocab = Vocab.build(dataset["train"][f"{src}_tokens"], min_freq=min_freq)
    tgt_vocab = Vocab.build(dataset["train"][f"{tgt}_tokens"], min_freq=min_freq)
    pairs = {split: [(src_vocab.encode(s), tgt_vocab.encode(t))
                     for s, t in zip(dataset[split][f"{src}_tokens"], dataset[split][f"{tgt}_tokens"])]
             for split in dataset}
    return dataset, src_vocab, tgt_vocab, pairs


def pad_batch(seqs: Sequence[Sequence[int]], pad_id: int = 0):
    """Pad id lists to one length. Returns ``(ids, lengths)``: ids (B, T_max) long, lengths (B,)
    long on the CPU (``pack_padded_sequence`` wants CPU lengths)."""
    lengths = [len(s) for s in seqs]
    longest = max(lengths)
    ids = torch.tensor([list(s) + [pad_id] * (longest - len(s)) for s in seqs], dtype=torch.long)
    return ids, torch.tensor(lengths, dtype=torch.long)


class BucketBatches:
    """Batches of examples of similar length, for far less padding than random batches.

    ``examples``: a sequence of id lists (one field) or of tuples of id lists (e.g. source,
    target); ``key`` gives the length used for bucketing (default: length of the first field).
    Each epoch shuffles the examples, sorts them by length inside pools of ``pool`` batches,
    cuts batches and shuffles the batch order. Iterating yields, per field, ``(ids, lengths)``
    from ``pad_batch``; a single field gives a single pair.
    """

    def __init__(self, examples, batch_size: int, pad_id: int = 0, shuffle: bool = True,
                 pool: int = 50, seed: int = 0, key=None):
        self.examples = list(examples)
        self.batch_size, self.pad_id, self.shuffle, self.pool = batch_size, pad_id, shuffle, pool
        self.single = not isinstance(self.examples[0], tuple)
        self.key = key or (len if self.single else (lambda ex: len(ex[0])))
        self.rng = random.Random(seed)

    def __len__(self) -> int:
        return -(-len(self.examples) // self.batch_size)

    def state_dict(self) -> dict:
        """The shuffling state (``fit`` saves it in checkpoints, so a resumed run sees the same batches)."""
        return {"rng": self.rng.getstate()}

    def load_state_dict(self, state: dict) -> None:
        self.rng.setstate(state["rng"])

    def _order(self) -> list[list[int]]:
        idx = list(range(len(self.examples)))
        if not self.shuffle:
            idx.sort(key=lambda i: self.key(self.examples[i]))
            return [idx[i:i + self.batch_size] for i in range(0, len(idx), self.batch_size)]
        self.rng.shuffle(idx)
        span = self.batch_size * self.pool
        batches = []
        for start in range(0, len(idx), span):
            chunk = sorted(idx[start:start + span], key=lambda i: self.key(self.examples[i]))
            batches += [chunk[i:i + self.batch_size] for i in range(0, len(chunk), self.batch_size)]
        self.rng.shuffle(batches)
        return batches

    def __iter__(self):
        for batch in self._order():
            rows = [self.examples[i] for i in batch]
            if self.single:
                yield pad_batch(rows, self.pad_id)
            else:
                yield tuple(pad_batch(field, self.pad_id) for field in zip(*rows))
