"""BLEU, reported two ways.

BLEU (Papineni et al., 2002) is the geometric mean of the clipped n-gram precisions p_1 ... p_4 of the
whole test set (each n-gram of the output counts at most as often as it occurs in the reference) times a
brevity penalty exp(min(0, 1 - r/c)) for output (c tokens) shorter than the references (r tokens), x 100.

- ``tokenized_bleu``: corpus BLEU-4 over lowercased tokens (sacreBLEU with ``tokenize='none'``),
  what ``torchtext.data.metrics.bleu_score`` computed in the widely used Multi30k notebooks, so
  that our numbers compare with theirs.
- ``bleu``: sacreBLEU with its signature, which says exactly what was computed. Papers report it on
  cased, detokenised output (default settings); the course's models write lowercased tokens, so the
  notebooks call it with ``lowercase=True`` (signature ``case:lc``) on tokens joined by spaces: a
  sacreBLEU number, but not one to compare with papers' cased scores.
Neither downloads anything.
"""

from __future__ import annotations

from typing import Sequence


def bleu(hypotheses: Sequence[str], references: Sequence[str], lowercase: bool = False,
         force: bool = False) -> tuple[float, str]:
    """sacreBLEU (13a tokenisation; cased unless ``lowercase``) of sentences. Returns ``(score, signature)``.
    ``force=True`` silences sacreBLEU's warning for output that looks tokenised already."""
    from sacrebleu.metrics import BLEU

    metric = BLEU(lowercase=lowercase, force=force)
    score = metric.corpus_score(list(hypotheses), [list(references)])
    return score.score, str(metric.get_signature())


def tokenized_bleu(hypotheses: Sequence[Sequence[str]], references: Sequence[Sequence[str]]) -> float:
    """Classic corpus BLEU-4 of token lists, lowercased, one reference per sentence."""
    from sacrebleu.metrics import BLEU

    def join(sents):
        return [" ".join(t.lower() for t in s) for s in sents]

    return BLEU(tokenize="none", force=True).corpus_score(join(hypotheses), [join(references)]).score


def exact_match(hypotheses: Sequence[Sequence[str]], references: Sequence[str]) -> float:
    """Share of hypotheses (token lists) equal to their space-separated reference."""
    return sum(list(h) == r.split() for h, r in zip(hypotheses, references)) / len(references)


def bleu_by_length(hypotheses, references, src_tokens, edges=(0, 10, 13, 16, 20, 100)):
    """Tokenised BLEU of sentence groups by source length (``lo < len <= hi`` for consecutive edges).
    Returns ``(labels, scores, counts)``; an empty group scores 0."""
    labels, scores, counts = [], [], []
    for lo, hi in zip(edges, edges[1:]):
        idx = [i for i, s in enumerate(src_tokens) if lo < len(s) <= hi]
        labels.append(f"{lo + 1}-{hi}" if hi < edges[-1] else f">{lo}")
        scores.append(tokenized_bleu([hypotheses[i] for i in idx], [references[i] for i in idx]) if idx else 0.0)
        counts.append(len(idx))
    return labels, scores, counts


def _bleu_statistics(hypotheses, references):
    """Per sentence (N, 10): clipped n-gram matches for n = 1..4, n-gram counts of the output for n = 1..4,
    output length, reference length (lowercased tokens, as ``tokenized_bleu``)."""
    from collections import Counter

    import torch

    rows = []
    for hyp, ref in zip(hypotheses, references):
        hyp, ref = [t.lower() for t in hyp], [t.lower() for t in ref]
        row = []
        for n in range(1, 5):
            h = Counter(tuple(hyp[i:i + n]) for i in range(len(hyp) - n + 1))
            r = Counter(tuple(ref[i:i + n]) for i in range(len(ref) - n + 1))
            row.append(sum(min(c, r[g]) for g, c in h.items()))
        rows.append(row + [max(len(hyp) - n + 1, 0) for n in range(1, 5)] + [len(hyp), len(ref)])
    return torch.tensor(rows, dtype=torch.float64)


def _bleu_of_sums(sums):
    """Corpus BLEU-4 (x 100) from summed statistics (..., 10); 0 where a precision is 0."""
    import torch

    matches, totals, c, r = sums[..., :4], sums[..., 4:8], sums[..., 8], sums[..., 9]
    log_p = torch.log(matches.clamp(min=1e-300) / totals.clamp(min=1)).mean(-1)
    score = 100 * torch.exp(log_p + torch.clamp(1 - r / c.clamp(min=1), max=0))
    return torch.where((matches > 0).all(-1), score, torch.zeros_like(score))


def paired_bootstrap(hypotheses_a: Sequence[Sequence[str]], hypotheses_b: Sequence[Sequence[str]],
                     references: Sequence[Sequence[str]], n_resamples: int = 1000, seed: int = 0) -> dict:
    """Paired bootstrap over sentences (Koehn, 2004) for ``tokenized_bleu``: draw the test sentences with
    replacement ``n_resamples`` times, score both systems on each draw. Returns the two scores on the
    whole set ("a", "b"), their difference a - b ("difference") and its 95 % interval ("low", "high":
    the 2.5th and 97.5th percentiles over the draws), and the share of draws where a is not above b
    ("share a <= b")."""
    import torch

    if not (len(hypotheses_a) == len(hypotheses_b) == len(references)) or not references:
        raise ValueError(f"paired_bootstrap needs as many outputs of each system as references, and at least one: "
                         f"got {len(hypotheses_a)}, {len(hypotheses_b)} and {len(references)}")
    stats_a, stats_b = _bleu_statistics(hypotheses_a, references), _bleu_statistics(hypotheses_b, references)
    generator = torch.Generator().manual_seed(seed)
    draws = torch.randint(len(references), (n_resamples, len(references)), generator=generator)
    a, b = _bleu_of_sums(stats_a[draws].sum(1)), _bleu_of_sums(stats_b[draws].sum(1))
    low, high = torch.quantile(a - b, torch.tensor([0.025, 0.975], dtype=torch.float64)).tolist()
    whole_a, whole_b = _bleu_of_sums(stats_a.sum(0)).item(), _bleu_of_sums(stats_b.sum(0)).item()
    return {"a": whole_a, "b": whole_b, "difference": whole_a - whole_b, "low": low, "high": high,
            "share a <= b": (a <= b).double().mean().item()}
