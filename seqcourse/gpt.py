"""Notebook 06's GPT, its loss, optimiser recipe and sampling, as notebook 06's solutions wrote them, and 06's
data (Multi30k English in 01's tokens, cut into byte-level BPE subwords): what notebook 08 builds on."""

from __future__ import annotations

import math
from types import SimpleNamespace

import torch
import torch.nn as nn
import torch.nn.functional as F

from .data import load_multi30k
from .text import BucketBatches, Vocab, tokenizer

PAD_ID, UNK_ID, SOS_ID, EOS_ID = range(4)  # the ids of Vocab's specials, and of the BPE tokenizer's below
ANSWERS = "06_gpt"  # notebook 06's exercises: students get this module from notebook 07 on


def scaled_dot_product_attention(q, k, v, mask=None):
    """Self-attention over T positions: q, k (..., T, d_k), v (..., T, d_v); mask bool broadcastable to (..., T, T),
    True = may attend. Returns (output (..., T, d_v), weights (..., T, T)): rows are queries, columns keys.
    (With the key/value cache, section 9: one query (..., 1, d_k) against the t + 1 keys and values so far.)"""
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    return weights @ v, weights


class MultiHeadAttention(nn.Module):
    """n_h heads of width d_k = d_model / n_h; W_q, W_k, W_v, W_o: (d_model -> d_model), with biases (notebook 04)."""

    def __init__(self, d_model: int, n_heads: int):
        super().__init__()
        assert d_model % n_heads == 0, "d_model must be a multiple of n_heads"
        self.h, self.d_k = n_heads, d_model // n_heads
        self.W_q, self.W_k = nn.Linear(d_model, d_model), nn.Linear(d_model, d_model)
        self.W_v, self.W_o = nn.Linear(d_model, d_model), nn.Linear(d_model, d_model)
        self.weights = None    # (B, n_h, T, T) after each forward; (N, n_h, 1, t + 1) after a cached step

    def split_heads(self, x):
        """(B, T, d_model) -> (B, n_h, T, d_k)."""
        B, T, _ = x.shape
        return x.view(B, T, self.h, self.d_k).transpose(1, 2)

    def merge_heads(self, x):
        """(B, n_h, T, d_k) -> (B, T, d_model)."""
        B, _, T, _ = x.shape
        return x.transpose(1, 2).reshape(B, T, self.h * self.d_k)

    def forward(self, query, key, value, mask=None):
        """query, key, value (B, T, d_model), in a GPT always the same sequence (self-attention); mask broadcastable
        to (B, n_h, T, T)."""
        q, k, v = self.split_heads(self.W_q(query)), self.split_heads(self.W_k(key)), self.split_heads(self.W_v(value))
        out, weights = scaled_dot_product_attention(q, k, v, mask)   # (B, n_h, T, d_k), (B, n_h, T, T)
        self.weights = weights.detach()     # kept for the figures only (a copy.deepcopy of the model stays possible)
        return self.W_o(self.merge_heads(out))


class FeedForward(nn.Module):
    """Position-wise: linear1 (d_model -> d_ff), GELU, linear2 (d_ff -> d_model). gelu: "none" (exact, notebook 06)
    or "tanh" (the approximation GPT-2 was trained with)."""

    def __init__(self, d_model: int, d_ff: int, gelu: str = "none"):
        super().__init__()
        self.linear1, self.linear2 = nn.Linear(d_model, d_ff), nn.Linear(d_ff, d_model)
        self.gelu = gelu

    def forward(self, x):
        return self.linear2(F.gelu(self.linear1(x), approximate=self.gelu))


def causal_mask(size: int, device=None) -> torch.Tensor:
    """(size, size) bool, True on and below the diagonal: position t may attend to positions <= t."""
    return torch.ones(size, size, dtype=torch.bool, device=device).tril()


class Block(nn.Module):
    """A pre-LN decoder block without cross-attention: causal self-attention, then feed-forward."""

    def __init__(self, d_model: int, n_heads: int, d_ff: int, dropout: float = 0.1, gelu: str = "none"):
        super().__init__()
        self.norm1, self.attn = nn.LayerNorm(d_model), MultiHeadAttention(d_model, n_heads)
        self.norm2, self.ff = nn.LayerNorm(d_model), FeedForward(d_model, d_ff, gelu)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """x (B, T, d_model) -> (B, T, d_model); position t depends on positions <= t only."""
        h = self.norm1(x)
        x = x + self.dropout(self.attn(h, h, h, causal_mask(x.size(1), x.device)))
        return x + self.dropout(self.ff(self.norm2(x)))


class GPT(nn.Module):
    """Token + learned position embeddings, L pre-LN blocks, a final LayerNorm, output tied to tok_emb (notebook 06;
    gelu="tanh" and LayerNorm's eps 1e-5 make it GPT-2's architecture)."""

    def __init__(self, vocab_size: int, d_model: int = 128, n_heads: int = 4, n_layers: int = 4, d_ff: int = 512,
                 max_len: int = 64, dropout: float = 0.1, gelu: str = "none"):
        super().__init__()
        self.max_len = max_len
        self.tok_emb = nn.Embedding(vocab_size, d_model)
        self.pos_emb = nn.Embedding(max_len, d_model)
        self.blocks = nn.ModuleList(Block(d_model, n_heads, d_ff, dropout, gelu) for _ in range(n_layers))
        self.norm = nn.LayerNorm(d_model)
        self.dropout = nn.Dropout(dropout)
        for name, p in self.named_parameters():      # GPT-2's initialisation: small normal weights, zero biases
            if p.dim() >= 2:
                nn.init.normal_(p, std=0.02)
            elif name.endswith("bias"):
                nn.init.zeros_(p)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        """ids (B, T) long, T <= max_len -> logits (B, T, C): row t scores the token that follows ids[:, t]."""
        positions = torch.arange(ids.size(1), device=ids.device)                  # (T,)
        x = self.dropout(self.tok_emb(ids) + self.pos_emb(positions))              # (B, T, d)
        for block in self.blocks:
            x = block(x)
        return self.norm(x) @ self.tok_emb.weight.T                                # (B, T, d) @ (d, C) -> (B, T, C)


def next_token_nll(model: nn.Module, ids: torch.Tensor, pad_id: int = PAD_ID) -> torch.Tensor:
    """ids (B, T) long, rows <sos> y_1 ... y_n <eos> then pad_id. Returns (B, T-1) float: entry [b, t] is
    -log p(ids[b, t+1] | ids[b, :t+1]) under model (logits (B, T-1, C) from model(ids[:, :-1])), 0.0 where
    ids[b, t+1] is padding. Differentiable."""
    logits = model(ids[:, :-1])                                                    # (B, T-1, C)
    targets = ids[:, 1:]                                                           # (B, T-1)
    nll = F.cross_entropy(logits.reshape(-1, logits.size(-1)), targets.reshape(-1),
                          ignore_index=pad_id, reduction="none")                     # 0 where ignored
    return nll.view(targets.shape)


def decay_split(model: nn.Module) -> tuple[list[str], list[str]]:
    """Returns (decay, no_decay): parameter names (as in model.named_parameters()); decay holds the weights of
    nn.Linear modules, no_decay everything else (biases, LayerNorm, embeddings)."""
    linear = {id(m.weight) for m in model.modules() if isinstance(m, nn.Linear)}
    decay, no_decay = [], []
    for name, p in model.named_parameters():
        (decay if id(p) in linear else no_decay).append(name)
    return decay, no_decay


def warmup_cosine(step: int, warmup: int, total: int, min_ratio: float = 0.1) -> float:
    """The learning-rate multiplier at optimiser step `step` (0, 1, ...): a linear warm-up over `warmup` steps to 1,
    then a cosine decay to min_ratio at step `total`, constant afterwards. warmup may be 0; total > warmup."""
    if step < warmup:
        return (step + 1) / warmup
    progress = min(1.0, (step - warmup) / (total - warmup))
    return min_ratio + (1 - min_ratio) * 0.5 * (1 + math.cos(math.pi * progress))


def filter_logits(logits: torch.Tensor, temperature: float = 1.0, top_k: int | None = None,
                  top_p: float | None = None) -> torch.Tensor:
    """logits (B, C) -> (B, C): logits / temperature (temperature > 0), then -inf for every token that top-k
    (the top_k highest of each row; None: no limit) or then top-p (per row, the smallest set of most likely
    tokens whose probability, softmax of what is left, reaches top_p, the crossing token included; None: no
    limit) removes. Kept entries equal logits / temperature."""
    logits = logits / temperature
    if top_k is not None:
        kth = logits.topk(top_k, dim=-1).values[:, -1:]                  # (B, 1) the k-th largest
        logits = logits.masked_fill(logits < kth, float("-inf"))
    if top_p is not None:
        probs, order = torch.softmax(logits, dim=-1).sort(dim=-1, descending=True)
        above = probs.cumsum(dim=-1) - probs                             # mass of the tokens ranked higher
        remove = (above >= top_p).scatter(-1, order, above >= top_p)     # back to vocabulary order
        logits = logits.masked_fill(remove, float("-inf"))
    return logits


def sample_next(logits: torch.Tensor, generator: torch.Generator, temperature: float = 1.0,
                top_k: int | None = None, top_p: float | None = None) -> torch.Tensor:
    """logits (B, C) -> (B,) long: one token per row, drawn from softmax(filter_logits(...)) with generator."""
    probs = torch.softmax(filter_logits(logits, temperature, top_k, top_p), dim=-1)   # (B, C), renormalised
    cdf = probs.cumsum(dim=-1)                                                          # (B, C) F_i, nondecreasing
    u = torch.rand(probs.size(0), 1, generator=generator, device=probs.device) * cdf[:, -1:]   # (B, 1) in [0, F_C)
    return torch.searchsorted(cdf, u, right=True)[:, 0]                                # first i with F_i > u; (B,)



def lm_loss(model, batch):
    """seqcourse.fit's loss: the mean NLL per real target token, and their number."""
    ids, _ = batch
    nll = next_token_nll(model, ids, PAD_ID)
    n = int((ids[:, 1:] != PAD_ID).sum())
    return nll.sum() / n, n


@torch.no_grad()
def total_nll(model, sequences, batch_size: int = 256) -> float:
    """Sum over sentences of -log p(sentence), every target (incl. <eos>) counted once, in nats."""
    model.eval()
    device = next(model.parameters()).device
    total = 0.0
    for ids, _ in BucketBatches(sequences, batch_size, shuffle=False):
        total += float(next_token_nll(model, ids.to(device), PAD_ID).sum())
    return total


def multi30k_subwords(limit: int | None = None, vocab_size: int = 4000) -> SimpleNamespace:
    """Notebook 06's data: Multi30k English in 01's tokens (spaCy's rules, lowercased, words seen fewer than twice in
    training -> <unk>), cut by a byte-level BPE of vocab_size subwords learned on the training sentences.
    Returns words (split -> sentences as lists of 01's tokens), n_words (split -> words incl. <eos>), bpe (the
    tokenizers.Tokenizer), ids (split -> <sos> ... <eos> BPE ids per sentence), n_tokens (split -> BPE targets),
    encode (01's tokens -> ids), decode (ids -> text) and V (the BPE vocabulary size)."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    multi30k = load_multi30k(limit=limit)
    tokenize_en = tokenizer("en")
    words = {split: [tokenize_en(s) for s in multi30k[split]["en"]] for split in multi30k}
    vocab = Vocab.build(words["train"], min_freq=2)
    words = {split: [[w if w in vocab.stoi else "<unk>" for w in s] for s in ws] for split, ws in words.items()}
    bpe = Tokenizer(models.BPE())
    bpe.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=True)
    bpe.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=["<pad>", "<unk>", "<sos>", "<eos>"],
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False)
    bpe.train_from_iterator([" ".join(w for w in s if w != "<unk>") for s in words["train"]], trainer)
    assert [bpe.token_to_id(t) for t in ("<pad>", "<unk>", "<sos>", "<eos>")] == [PAD_ID, UNK_ID, SOS_ID, EOS_ID]

    def encode(sentence_words: list[str]) -> list[int]:
        return [SOS_ID] + bpe.encode(sentence_words, is_pretokenized=True).ids + [EOS_ID]

    def decode(ids) -> str:
        ids = ids.tolist() if isinstance(ids, torch.Tensor) else list(ids)
        ids = ids[:ids.index(EOS_ID)] if EOS_ID in ids else ids
        text = bpe.decode([i for i in ids if i not in (SOS_ID, PAD_ID)], skip_special_tokens=False)
        return " ".join(text.replace("<unk>", " <unk> ").split())

    ids = {split: [encode(s) for s in ws] for split, ws in words.items()}
    return SimpleNamespace(words=words, n_words={split: sum(len(s) + 1 for s in ws) for split, ws in words.items()},
                           bpe=bpe, ids=ids, n_tokens={split: sum(len(s) - 1 for s in x) for split, x in ids.items()},
                           encode=encode, decode=decode, V=bpe.get_vocab_size())
