"""Notebook 08's class challenge: its limits, the course's tokenizer size and held-out split, and :func:`save`, which
writes the file a student submits. The course's grader (grader/challenge.py) reads that file without running anything in
it, builds the notebook's own model class from the configuration saved with it, and measures per-word perplexity
on held-out English text that no notebook trains or evaluates on."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import torch

FORMAT = "seqcourse-challenge-1"  # the format tag saved in every file
MAX_PARAMETERS = 1_500_000        # numbers in the saved file (every tensor once); 08's ModernDecoder: 1,047,424
MAX_TRAINING_TOKENS = 10_000_000  # target tokens of all optimiser steps together (~23 epochs of Multi30k's train)
VOCAB_SIZE = 4000                 # the course's BPE (notebook 06's, learned on Multi30k's English training captions)
HELD_OUT = "test_2018"            # seqcourse.data.SPLITS: a Multi30k split no notebook uses


def tokenizer_id(bpe) -> str:
    """A short fingerprint of a tokenizers.Tokenizer (its whole JSON): the grader compares it with its own."""
    return hashlib.sha256(bpe.to_str().encode()).hexdigest()[:16]


def stored_tensors(model: torch.nn.Module) -> tuple[dict[str, torch.Tensor], dict[str, str]]:
    """(tensors to store, aliases): the state dict with every tensor once (a tied weight is one tensor under two
    names: the second name is an alias of the first), on the CPU."""
    tensors, aliases, seen = {}, {}, {}
    for name, t in model.state_dict().items():
        key = (t.device, t.untyped_storage().data_ptr(), t.storage_offset(), tuple(t.shape), t.stride(), t.dtype)
        if key in seen:
            aliases[name] = seen[key]
        else:
            seen[key] = name
            tensors[name] = t.detach().to("cpu").contiguous().clone()
    return tensors, aliases


def count_parameters(model: torch.nn.Module) -> int:
    """The numbers the grader counts: every tensor of the state dict once (parameters, and buffers if any)."""
    return sum(t.numel() for t in stored_tensors(model)[0].values())


def save(model: torch.nn.Module, path="challenge.safetensors", *, config: dict, tokens_seen: int, tokenizer,
         model_class: str = "ModernDecoder") -> Path:
    """Write ``model``'s weights as a safetensors file with what the grader needs in its metadata: ``model_class``
    (a class of your notebook) and ``config`` (its constructor's keyword arguments: ``model_class(**config)`` must
    build a model of the same shapes), ``tokens_seen`` (the target tokens of all your optimiser steps together) and
    the tokenizer's fingerprint. Prints what it saved and whether it is within the challenge's limits."""
    from safetensors.torch import save_file

    json.dumps(config, allow_nan=False)  # a ValueError or TypeError here: the configuration must be plain JSON
    problem = ""  # what the grader would find wrong: said now
    if type(model).__name__ != model_class:
        problem = f"model_class is {model_class!r} but the model is a {type(model).__name__}: the grader builds model_class(**config)"
    else:
        try:
            with torch.random.fork_rng(devices=[]):  # building a copy leaves the notebook's random stream as it was
                built = {k: tuple(v.shape) for k, v in type(model)(**config).state_dict().items()}
            have = {k: tuple(v.shape) for k, v in model.state_dict().items()}
            wrong = sorted(k for k in set(built) | set(have) if built.get(k) != have.get(k))
            if wrong:
                problem = (f"{model_class}(**config) does not build this model ({', '.join(wrong[:3])} differ): give the "
                           "configuration it was built with")
        except Exception as e:  # noqa: BLE001 - reported, as the grader would find it
            problem = f"{model_class}(**config) fails: {type(e).__name__}: {e}"
    tensors, aliases = stored_tensors(model)
    meta = {"format": FORMAT, "model_class": model_class, "config": json.dumps(config), "aliases": json.dumps(aliases),
            "tokens_seen": str(int(tokens_seen)), "tokenizer": tokenizer_id(tokenizer)}
    path = Path(path)
    save_file(tensors, str(path), metadata=meta)
    n = sum(t.numel() for t in tensors.values())
    within = n <= MAX_PARAMETERS and tokens_seen <= MAX_TRAINING_TOKENS
    print(f"saved {path} ({path.stat().st_size / 2**20:.1f} MB): {n:,} parameters (limit {MAX_PARAMETERS:,}), "
          f"{int(tokens_seen):,} training tokens (limit {MAX_TRAINING_TOKENS:,})" +
          ("" if within else ": OVER A LIMIT, the grader will not rank it") +
          (f"\nTHE GRADER WILL NOT RANK IT: {problem}" if problem else ""))
    return path
