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
