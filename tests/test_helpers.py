"""Tokenisers, vocabulary, batching, the training loop, metrics and plots."""

from __future__ import annotations

import math
import random

import matplotlib
import pytest
import torch

matplotlib.use("Agg")

from seqcourse import (BucketBatches, Vocab, average_checkpoints, best_weights, bleu, bleu_by_length, evaluate, exact_match, fit, greedy_search, pad_batch,
                       paired_bootstrap,
                       epoch_weights, perplexity, plot_attention, plot_history, tokenized_bleu, tokenizer, translate,
                       translation_data)


def test_blank_spacy_tokenisers_split_punctuation_and_lowercase():
    assert tokenizer("en")("Two young, White males aren't outside.") == \
        ["two", "young", ",", "white", "males", "are", "n't", "outside", "."]
    assert tokenizer("de", lower=False)("Zwei Männer, z.B. im Park.") == ["Zwei", "Männer", ",", "z.B.", "im", "Park", "."]


def test_vocab_specials_min_freq_unknowns_and_round_trip():
    v = Vocab.build([["a", "b", "a"], ["c", "a", "b"]], min_freq=2)
    assert v.itos == ["<pad>", "<unk>", "<sos>", "<eos>", "a", "b"]
    assert (v.pad_id, v.unk_id, v.sos_id, v.eos_id) == (0, 1, 2, 3)
    ids = v.encode(["b", "zzz", "a"])
    assert ids == [2, 5, 1, 4, 3]
    assert v.decode(ids + [0, 0]) == ["b", "<unk>", "a"]
    assert v.decode(torch.tensor([2, 4, 3, 5])) == ["a"], "decode stops at <eos>"
    assert v.encode(["a"], sos_eos=False) == [4]
    with pytest.raises(ValueError):
        Vocab(["a", "<pad>"])


def test_pad_batch_shapes_and_lengths():
    ids, lengths = pad_batch([[5, 6, 7], [8]], pad_id=0)
    assert ids.tolist() == [[5, 6, 7], [8, 0, 0]] and lengths.tolist() == [3, 1]
    assert ids.dtype == torch.long and lengths.device.type == "cpu"


def test_bucket_batches_cover_every_example_with_less_padding():
    rng = random.Random(0)
    examples = [[1] * rng.randint(1, 40) for _ in range(2000)]
    batches = BucketBatches(examples, batch_size=32, seed=1)
    seen, padded = 0, 0
    for ids, lengths in batches:
        seen += len(lengths)
        padded += ids.numel()
    assert seen == 2000 and len(batches) == 63
    random_padded = sum(32 * max(map(len, examples[i:i + 32])) for i in range(0, 2000, 32))
    assert padded < 0.6 * random_padded
    pairs = BucketBatches([(e, e + [2]) for e in examples[:100]], batch_size=10, shuffle=False)
    (src, src_len), (tgt, tgt_len) = next(iter(pairs))
    assert (tgt_len == src_len + 1).all() and src.shape[0] == 10


class _Bigram(torch.nn.Module):
    def __init__(self, v):
        super().__init__()
        self.emb = torch.nn.Embedding(v, v)

    def forward(self, x):
        return self.emb(x)


def _loss(model, batch):
    ids, _ = batch
    logits = model(ids[:, :-1])
    targets = ids[:, 1:]
    loss = torch.nn.functional.cross_entropy(logits.reshape(-1, logits.size(-1)), targets.reshape(-1), ignore_index=0)
    return loss, int((targets != 0).sum())


def test_fit_learns_a_deterministic_sequence_and_reports_history():
    torch.manual_seed(0)
    data = [[1, 2, 3, 4, 5, 6]] * 64
    model = _Bigram(7)
    batches = BucketBatches(data, batch_size=16)
    before = evaluate(model, _loss, batches)
    history = fit(model, _loss, batches, torch.optim.Adam(model.parameters(), lr=0.1), epochs=20,
                  val_batches=batches, progress=False)
    assert len(history["train_loss"]) == 20 and len(history["step_loss"]) == 80
    assert history["val_loss"][-1] < 0.05 < before
    assert perplexity(history["val_loss"][-1]) == pytest.approx(math.exp(history["val_loss"][-1]))
    assert all(t > 0 for t in history["tokens_per_s"])


def test_fit_with_gradient_fn_takes_the_same_steps_as_with_loss_fn():
    """``gradient_fn`` computes the gradients itself (notebook 05 accumulates micro-batches with it): one
    that does what fit does by default must give the same weights and history."""
    def by_hand(model, batch):
        loss, n = _loss(model, batch)
        loss.backward()
        return loss, n

    data = [[1, 2, 3, 4, 5, 6], [1, 3, 5, 2, 4, 6]] * 16
    runs = []
    for kw in ({}, {"gradient_fn": by_hand}):
        torch.manual_seed(0)
        model = _Bigram(7)
        history = fit(model, _loss, BucketBatches(data, batch_size=8, seed=0), torch.optim.Adam(model.parameters(), lr=0.1),
                      epochs=2, val_batches=BucketBatches(data, batch_size=8, shuffle=False), progress=False, **kw)
        runs.append((model.emb.weight.detach().clone(), history["step_loss"], history["val_loss"]))
    assert torch.allclose(runs[0][0], runs[1][0])
    assert runs[0][1] == pytest.approx(runs[1][1]) and runs[0][2] == pytest.approx(runs[1][2])


class _Dropped(torch.nn.Module):
    """A bigram model with dropout (so a resumed run must restore the random state too)."""

    def __init__(self, vocab_size: int):
        super().__init__()
        self.table, self.drop = torch.nn.Embedding(vocab_size, vocab_size), torch.nn.Dropout(0.3)

    def forward(self, tokens):
        return self.drop(self.table(tokens))


_INTERRUPT = {"at": None, "steps": 0}  # read by _counted_loss: the runs below differ in nothing else


def _counted_loss(m, batch):
    _INTERRUPT["steps"] += 1
    if _INTERRUPT["steps"] == _INTERRUPT["at"]:
        raise KeyboardInterrupt("disconnected")
    return _loss(m, batch)


def _setup(size=9, weight_decay=0.0):
    torch.manual_seed(0)
    model = _Dropped(size)
    optimizer = torch.optim.Adam(model.parameters(), lr=0.05, weight_decay=weight_decay)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, 3, 0.5)
    data = [[random.Random(i).randrange(1, size) for _ in range(random.Random(-i).randrange(3, 9))] for i in range(80)]
    return model, optimizer, scheduler, BucketBatches(data, 16, seed=1), BucketBatches(data[:32], 16, shuffle=False)


def _fit(tmp_path, epochs, setup, fail_at_step=None, loss=_counted_loss):
    """Train ``setup`` (model, optimiser, scheduler, batches); returns the history and the steps it ran."""
    model, optimizer, scheduler, train, val = setup
    _INTERRUPT.update(at=fail_at_step, steps=0)
    history = fit(model, loss, train, optimizer, epochs=epochs, scheduler=scheduler, val_batches=val,
                  progress=False, checkpoint=tmp_path / "run.pt", keep_last=2)
    return history, _INTERRUPT["steps"]


def _run(tmp_path, epochs, fail_at_step=None):
    setup = _setup()
    history, _ = _fit(tmp_path, epochs, setup, fail_at_step)
    return setup[0], history


def test_fit_resumes_after_an_interruption_exactly_and_keeps_best_and_last_weights(tmp_path):
    straight, history = _run(tmp_path / "a", epochs=5)
    with pytest.raises(KeyboardInterrupt):
        _run(tmp_path / "b", epochs=5, fail_at_step=18)  # 7 loss calls per epoch: dies in epoch 3
    resumed, resumed_history = _run(tmp_path / "b", epochs=5)
    assert _INTERRUPT["steps"] == 21, "the resumed run must train only epochs 3-5 (5 steps and 2 validation batches each)"
    assert torch.equal(resumed.table.weight, straight.table.weight)
    timing = ("seconds", "tokens_per_s")
    assert {k: v for k, v in resumed_history.items() if k not in timing} == {k: v for k, v in history.items() if k not in timing}
    assert len(resumed_history["seconds"]) == 5
    best = min(range(5), key=lambda e: history["val_loss"][e])
    kept = torch.load(best_weights(tmp_path / "a" / "run.pt"), weights_only=True)
    assert sorted(p.name for p in (tmp_path / "a").iterdir()) == ["run.best.pt", "run.epoch4.pt", "run.epoch5.pt", "run.pt"]
    assert kept["table.weight"].shape == (9, 9) and (best == 4) == torch.equal(kept["table.weight"], straight.table.weight)
    mean = average_checkpoints(straight, [epoch_weights(tmp_path / "a" / "run.pt", e) for e in (4, 5)])
    assert torch.equal(mean["table.weight"], straight.table.weight) is False
    last = torch.load(epoch_weights(tmp_path / "a" / "run.pt", 5), weights_only=True)["table.weight"]
    prev = torch.load(epoch_weights(tmp_path / "a" / "run.pt", 4), weights_only=True)["table.weight"]
    assert torch.allclose(mean["table.weight"], (last + prev) / 2, rtol=0, atol=1e-6)
    assert torch.equal(straight.table.weight, last), "the model passed in keeps its own weights"
    with pytest.raises(ValueError):
        average_checkpoints(straight, [])


def test_bleu_two_ways():
    refs = ["A man rides a red bike down the street.", "Two dogs play in the snow."]
    score, signature = bleu(refs, refs)
    assert score == pytest.approx(100.0) and "tok:13a" in signature and "case:mixed" in signature
    hyp = [["a", "man", "rides", "a", "bike", "down", "the", "street", "."], ["two", "dogs", "play", "in", "snow", "."]]
    ref = [["A", "man", "rides", "a", "red", "bike", "down", "the", "street", "."],
           ["Two", "dogs", "play", "in", "the", "snow", "."]]
    got = tokenized_bleu(hyp, ref)
    assert 0 < got < 100
    assert tokenized_bleu(ref, ref) == pytest.approx(100.0)
    assert tokenized_bleu([["x"]], [["y", "z"]]) == 0.0
    lowered, signature = bleu([" ".join(h) for h in ref], refs, lowercase=True, force=True)
    assert lowered == pytest.approx(100.0) and "case:lc" in signature  # says what it is


def test_paired_bootstrap_scores_as_tokenized_bleu_and_brackets_the_difference():
    """The whole-set scores are tokenized_bleu's; the interval holds the difference, is reproducible, and a
    system compared with itself differs by exactly 0 in every draw."""
    rng = random.Random(0)
    words = "a man dog is in the red park running two women ball".split()
    refs = [[rng.choice(words) for _ in range(rng.randint(4, 15))] for _ in range(200)]
    good = [[t if rng.random() < 0.85 else rng.choice(words) for t in r] for r in refs]
    bad = [[t if rng.random() < 0.6 else rng.choice(words) for t in r][:-1] for r in refs]
    got = paired_bootstrap(good, bad, refs, n_resamples=300)
    assert got["a"] == pytest.approx(tokenized_bleu(good, refs)) and got["b"] == pytest.approx(tokenized_bleu(bad, refs))
    assert 0 < got["low"] < got["difference"] < got["high"] and got["share a <= b"] == 0.0
    assert paired_bootstrap(good, bad, refs, n_resamples=300) == got
    same = paired_bootstrap(good, good, refs, n_resamples=50)
    assert same["low"] == same["high"] == 0.0 and same["share a <= b"] == 1.0
    with pytest.raises(ValueError, match="as many outputs"):
        paired_bootstrap(good, bad[:-1], refs)


def test_bleu_is_the_clipped_precision_formula_the_text_defines():
    """BLEU-4 = BP * exp(mean log p_n), clipped counts, BP = exp(min(0, 1 - r/c)) (one sentence, by hand)."""
    hyp, ref = "the the cat sat on the mat".split(), "the cat sat on a mat today".split()
    def grams(s, n):
        return [tuple(s[i:i + n]) for i in range(len(s) - n + 1)]
    p = [sum(min(grams(hyp, n).count(g), grams(ref, n).count(g)) for g in set(grams(hyp, n))) / len(grams(hyp, n))
         for n in range(1, 5)]
    want = 100 * math.exp(min(0.0, 1 - len(ref) / len(hyp))) * math.exp(sum(math.log(x) for x in p) / 4)
    assert tokenized_bleu([hyp], [ref]) == pytest.approx(want)


def test_plots_return_figures():
    fig = plot_attention(torch.softmax(torch.randn(4, 3, 5), -1), list("abcde"), list("xyz"), title="t")
    assert len([a for a in fig.axes if a.has_data()]) == 4
    fig = plot_attention(torch.softmax(torch.randn(3, 5), -1), list("abcde"), list("xyz"))
    assert len(fig.axes) == 1
    fig = plot_attention(torch.softmax(torch.randn(6, 3, 5), -1), list("abcde"), list("xyz"), cols=3,
                         labels=[f"layer {l}, head {h}" for l in (1, 2) for h in range(3)])
    assert [a.get_title() for a in fig.axes][3:] == ["layer 2, head 0", "layer 2, head 1", "layer 2, head 2"]
    ax = plot_history({"step_loss": [3.0, 2.0, 1.0, 0.5], "val_loss": [2.5, 1.0]})
    assert len(ax.lines) == 2


def test_translation_data_tokenises_builds_vocabularies_on_train_and_encodes_every_split():
    from datasets import Dataset, DatasetDict

    data = DatasetDict({"train": Dataset.from_dict({"de": ["ein hund", "ein ball"], "en": ["a dog", "a ball"]}),
                        "test": Dataset.from_dict({"de": ["eine katze"], "en": ["a cat"]})})
    data, src_vocab, tgt_vocab, pairs = translation_data(data, "de", "en", min_freq=2)
    assert src_vocab.itos[4:] == ["ein"] and tgt_vocab.itos[4:] == ["a"]
    assert data["test"][0]["de_tokens"] == ["eine", "katze"]
    assert pairs["train"] == [([2, 4, 1, 3], [2, 4, 1, 3])] * 2 and pairs["test"] == [([2, 1, 1, 3], [2, 4, 1, 3])]


def test_bleu_by_length_groups_sentences_by_source_length():
    refs = [["a", "dog", "runs", "on", "the", "grass"], ["two", "men", "sit", "on", "a", "bench", "outside", "today"]]
    hyps = [refs[0], ["two", "women", "stand", "near", "the", "bench", "outside", "today"]]
    labels, scores, counts = bleu_by_length(hyps, refs, [["x"] * 3, ["x"] * 12], edges=(0, 5, 10, 20))
    assert labels == ["1-5", "6-10", ">10"] and counts == [1, 0, 1]
    assert scores[0] == pytest.approx(100.0) and scores[1] == 0.0 and 0 < scores[2] < 100


def test_exact_match_compares_token_lists_with_space_separated_references():
    assert exact_match([["3", "1", "2"], ["4", "0"], []], ["3 1 2", "4 0 0", ""]) == pytest.approx(2 / 3)


class _CountingModel(torch.nn.Module):
    """Decoding-interface stand-in: sentence b emits tokens 4, 5, ... and <eos> after as many tokens as its
    source has (so every sentence stops at a different step)."""

    def __init__(self):
        super().__init__()
        self.dummy = torch.nn.Parameter(torch.zeros(1))

    def start(self, src, src_len):
        return {"t": torch.zeros(src.size(0), dtype=torch.long), "len": (src > 3).sum(1)}

    def step(self, tokens, state):
        logits = torch.full((tokens.size(0), 9), -9.0)
        nxt = torch.where(state["t"] < state["len"], 4 + state["t"], torch.full_like(state["t"], 3))
        logits[torch.arange(tokens.size(0)), nxt] = 0.0
        return torch.log_softmax(logits, -1), {**state, "t": state["t"] + 1}


def test_greedy_search_stops_each_sentence_at_its_eos_and_translate_keeps_the_order():
    src = torch.tensor([[2, 7, 7, 3], [2, 7, 3, 0], [2, 3, 0, 0]])
    hyps, scores = greedy_search(_CountingModel(), src, None, max_len=10)
    assert hyps == [[4, 5], [4], []]
    assert scores.shape == (3,) and bool((scores < 0).all())
    assert greedy_search(_CountingModel(), src, None, max_len=1)[0] == [[4], [4], []]
    vocab = Vocab(["<pad>", "<unk>", "<sos>", "<eos>", "a", "b", "c", "x", "y"])
    out = translate(_CountingModel(), ["x x", "x", ""] * 2, vocab, vocab, batch_size=4)
    assert out == [["a", "b"], ["a"], []] * 2


def test_device_problem_flags_cpu_tensors_a_gpu_would_reject_and_accepts_what_a_gpu_runs():
    import torch.nn as nn
    import torch.nn.functional as F
    from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

    from seqcourse.testing import device_problem

    class Positions(nn.Module):
        def __init__(self, device_aware: bool):
            super().__init__()
            self.emb, self.device_aware = nn.Embedding(10, 4), device_aware

        def forward(self, x):                                   # x (B, T, 4)
            pos = torch.arange(x.size(1), device=x.device if self.device_aware else None)
            return x + self.emb(pos)

    x, lengths = torch.randn(2, 3, 4), torch.tensor([3, 2])
    good, bad = Positions(True), Positions(False)
    assert device_problem(good, (x,), good) is None
    assert "cpu" in device_problem(bad, (x,), bad)                                   # positions made without device=
    assert "cpu" in device_problem(lambda x: x.masked_fill(torch.ones(3, 4, dtype=torch.bool).triu(1), 0.0), (x,))
    assert "cpu" in device_problem(lambda x: torch.cat([x, torch.zeros(2, 3, 4)], 1), (x,))
    assert "cpu" in device_problem(lambda x: F.cross_entropy(x.flatten(0, 1), torch.zeros(6, dtype=torch.long)), (x,))
    # what runs on a GPU: CPU indices, moves, 0-dimensional scalars, sizes of another tensor, packing with CPU lengths
    assert device_problem(lambda x: x[:, torch.tensor([0, 2])], (x,)) is None
    assert device_problem(lambda x: x * torch.tensor(2.0) + torch.ones(4).to(x.device), (x,)) is None
    assert device_problem(lambda x: torch.zeros(2, 3, 4).to(x) + x.new_zeros(1).expand_as(x), (x,)) is None
    rnn = nn.GRU(4, 5, batch_first=True)
    assert device_problem(lambda x, n: pad_packed_sequence(rnn(pack_padded_sequence(x, n.cpu(), batch_first=True))[0],
                                                           batch_first=True)[0], (x, lengths), rnn) is None


def test_fit_resumes_a_run_interrupted_in_the_same_kernel_with_the_same_objects(tmp_path):
    setup = _setup()
    with pytest.raises(KeyboardInterrupt):
        _fit(tmp_path, 5, setup, fail_at_step=18)  # the model, optimiser, schedule and batches have moved on
    _, steps = _fit(tmp_path, 5, setup)
    assert steps == 21, "not resumed after epoch 2 (5 training steps and 2 validation batches per epoch)"


def _fixed_loss(m, batch):  # the same loss as _counted_loss, with a "bug" fixed: another line of code
    _INTERRUPT["steps"] += 1
    loss, n = _loss(m, batch)
    return loss * 1.0, n


@pytest.mark.parametrize("change, setup, loss", [
    ("model", lambda: _setup(size=7), _counted_loss),          # a smoke run's smaller model, then the full one
    ("optimiser", lambda: _setup(weight_decay=0.1), _counted_loss),
    ("code of the model, the loss", _setup, _fixed_loss),      # a bug fixed in the loss, the same shapes
])
def test_fit_starts_over_and_says_why_when_the_checkpoint_was_made_from_something_else(tmp_path, capsys, change, setup, loss):
    first, _ = _fit(tmp_path, 3, _setup())
    capsys.readouterr()
    history, steps = _fit(tmp_path, 3, setup(), loss=loss)
    said = capsys.readouterr().out
    assert f"not resuming from {tmp_path / 'run.pt'}: it was made with another {change}" in said, said
    assert steps == 21 and len(history["train_loss"]) == 3, "fit resumed a checkpoint made from something else"
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "run-old.best.pt", "run-old.epoch2.pt", "run-old.epoch3.pt", "run-old.pt",
        "run.best.pt", "run.epoch2.pt", "run.epoch3.pt", "run.pt"], "the old files must be kept aside, not mixed in"
    assert torch.load(tmp_path / "run-old.pt", weights_only=False)["history"]["train_loss"] == first["train_loss"]
    _, steps = _fit(tmp_path, 4, setup(), loss=loss)
    assert steps == 7, "the new run must resume itself (asking for one more epoch)"


NOTEBOOK_CELLS = """
import torch
SCALE = 2.0

def helper(x):
    return x * SCALE

class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(2, 2)

    def forward(self, x):
        return helper(self.lin(x))
"""


def _fingerprint_of(source: str) -> str:
    from seqcourse.train import code_fingerprint

    namespace = {"__name__": "__main__"}  # as in a notebook's kernel
    exec(source, namespace)
    return code_fingerprint(namespace["Model"]())


@pytest.mark.parametrize("edit, same", [
    (("return x * SCALE", "return x * SCALE  # a comment"), True),
    (("SCALE = 2.0", "SCALE = 2.5"), False),                         # a constant the code reads
    (("return x * SCALE", "return x / SCALE"), False),               # a helper the model calls by name
    (("return helper(self.lin(x))", "return helper(x)"), False),     # the model's own code
])
def test_code_fingerprint_follows_the_code_a_model_runs_and_ignores_comments(edit, same):
    assert (_fingerprint_of(NOTEBOOK_CELLS) == _fingerprint_of(NOTEBOOK_CELLS.replace(*edit))) == same
    assert _fingerprint_of(NOTEBOOK_CELLS) == _fingerprint_of(NOTEBOOK_CELLS), "the same cells run again in a new kernel"


def test_beam_diagnosis_names_the_right_sentences_and_the_step_a_pattern_points_at():
    from seqcourse.testing import beam_diagnosis

    want, greedy = [[6, 6], [5, 4, 7], [4, 6]], [[6, 7, 6], [5, 5, 4], [4, 6]]
    assert beam_diagnosis(want, want, greedy) == "" and beam_diagnosis(None, want, greedy) == ""
    assert beam_diagnosis([[6, 6], [5], [4, 5]], want, greedy).startswith(
        "sentence 1 is right, sentences 2 and 3 are wrong: only the first sentence right points at step 5, the state reordered")
    assert "greedy search's hypotheses" in beam_diagnosis(greedy, want, greedy)
    assert beam_diagnosis([[1], [2], [3]], want, greedy) == "every sentence is wrong. "
