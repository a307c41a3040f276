"""Hidden checks of notebook 07_bert_cola: each case is a function of ``nb``, the submitted notebook as the
grader sees it (``grader.checks.Notebook``: its names as data or handles into the sandbox, ``nb.sandbox``,
``nb.standin(name)`` for a definition of ``standins.py`` executed where the notebook runs, and the static
``nb.uses``/``nb.rule``). The master's hidden test cells call them; they run on the trusted side only."""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F

from seqcourse.testing import float64_problem as _float64_problem

_V = 400
# the course's pool and SentenceClassifier, for the checks of later questions where question 1 or 2 failed
# (grader/checks.py, StandIns); the classifier calls the notebook's pool, as the master's does
_REF_POOL = """
def pool(h, mask, how="cls"):
    if how == "cls":
        return h[:, 0]
    if how == "mean":
        m = mask.unsqueeze(-1).to(h.dtype)
        return (h * m).sum(dim=1) / m.sum(dim=1)
    raise ValueError(f"how must be 'cls' or 'mean', got {how!r}")
"""
_REF_SENTENCE_CLASSIFIER = """
class SentenceClassifier(nn.Module):
    def __init__(self, encoder, n_classes=2, how="cls", dropout=0.1):
        super().__init__()
        self.encoder, self.how = encoder, how
        d = encoder.d_model
        self.head = nn.Sequential(nn.Dropout(dropout), nn.Linear(d, d), nn.Tanh(), nn.Dropout(dropout), nn.Linear(d, n_classes))

    def forward(self, ids):
        return self.head(pool(self.encoder(ids), ids != PAD_ID, self.how))
"""
# a correct mask_tokens (BERT's 80/10/10), swapped in so that a check of the loss does not depend on question 4
_REF_MASK_TOKENS = """
def mask_tokens(ids, vocab_size, generator, mask_prob=0.15):
    chosen = (torch.rand(ids.shape, generator=generator, device=ids.device) < mask_prob) & (ids >= N_SPECIAL)
    labels = torch.where(chosen, ids, torch.full_like(ids, IGNORE))
    action = torch.rand(ids.shape, generator=generator, device=ids.device)
    random_ids = torch.randint(N_SPECIAL, vocab_size, ids.shape, generator=generator, device=ids.device)
    inputs = torch.where(chosen & (action < 0.8), torch.full_like(ids, MASK_ID), ids)
    inputs = torch.where(chosen & (action >= 0.8) & (action < 0.9), random_ids, inputs)
    return inputs, labels
"""


def _mcc(p, t):
    tp, tn = float(((p == 1) & (t == 1)).sum()), float(((p == 0) & (t == 0)).sum())
    fp, fn = float(((p == 1) & (t == 0)).sum()), float(((p == 0) & (t == 1)).sum())
    return (tp * tn - fp * fn) / math.sqrt((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn))


def q1_pool_1(nb):
    _ = torch.manual_seed(1)
    _h = torch.randn(4, 7, 5)
    _lengths = torch.tensor([7, 1, 3, 5])
    _mask = torch.arange(7)[None, :] < _lengths[:, None]
    _want = torch.stack([_h[_b, :_n].mean(0) for _b, _n in enumerate(_lengths.tolist())])
    _got = nb.pool(_h, _mask, "mean")
    assert tuple(_got.shape) == (4, 5), f"'mean' pooling of (B, T, d) = (4, 7, 5) must be (4, 5), got {tuple(_got.shape)}"
    assert torch.allclose(_got, _want, atol=1e-5), "'mean' pooling differs from the mean of each sentence's real tokens ([CLS] included; lengths 7, 1, 3, 5): sum h * mask over the positions and divide each row by its own number of real tokens (not by T, not by the batch's total)"
    _h2 = torch.cat([_h, torch.full((4, 5, 5), 1e4)], dim=1)                    # more padding, with large values there
    _mask2 = torch.cat([_mask, torch.zeros(4, 5, dtype=torch.bool)], dim=1)
    assert torch.allclose(nb.pool(_h2, _mask2, "mean"), _want, atol=1e-4), "'mean' pooling changes with the amount of padding: the outputs at padding positions must not count at all (multiply by the mask, or select, before summing)"


def q1_pool_2(nb):
    _ = torch.manual_seed(2)
    _h = torch.randn(3, 6, 4)
    _mask = torch.tensor([[1, 1, 1, 1, 0, 0], [1, 1, 0, 0, 0, 0], [1, 1, 1, 1, 1, 1]], dtype=torch.bool)
    _got = nb.pool(_h, _mask, "cls")
    assert tuple(_got.shape) == (3, 4) and torch.equal(_got, _h[:, 0]), "'cls' pooling must return h[:, 0], the output at [CLS] (position 0), for every sentence (not the last real token, not a mean)"
    assert not torch.allclose(nb.pool(_h, _mask, "mean"), _got), "'mean' pooling returns the [CLS] output: the argument how must choose the pooling"


def q1_pool_3(nb):
    _ = torch.manual_seed(3)
    for _shape, _n in (((1, 5, 6), 3), ((1, 1, 6), 1), ((2, 1, 3), 1)):
        _h = torch.randn(*_shape)
        _mask = torch.arange(_shape[1])[None, :].expand(_shape[0], -1) < _n
        for _how in ("cls", "mean"):
            _got = nb.pool(_h, _mask, _how)
            assert tuple(_got.shape) == (_shape[0], _shape[2]), f"pool of h {_shape} with how={_how!r} must be (B, d) = {(_shape[0], _shape[2])}, got {tuple(_got.shape)} (squeeze() without a dim removes axes of size 1)"
        assert torch.allclose(nb.pool(_h, _mask, "mean"), _h[:, :_n].mean(1), atol=1e-5), f"'mean' pooling of h {_shape} with {_n} real tokens per sentence differs from their mean"
    _h = torch.randn(2, 4, 3, dtype=torch.float64)
    _got = nb.pool(_h, torch.tensor([[True, True, False, False], [True] * 4]), "mean")
    assert _got.dtype == torch.float64, f"'mean' pooling of float64 outputs must stay float64, got {_got.dtype}: convert the mask to h.dtype"


def q1_pool_4(nb):
    _grads = nb.standin("_grads")
    _ = torch.manual_seed(4)
    _h = torch.randn(2, 5, 3)
    _mask = torch.tensor([[True, True, True, False, False], [True, True, True, True, True]])
    _w = torch.randn(2, 3)
    assert torch.allclose(nb.pool(_h, _mask, "mean"), torch.stack([_h[0, :3].mean(0), _h[1].mean(0)]), atol=1e-5), "'mean' pooling has wrong values (this check of gradients needs the right values first)"
    _got = _grads(nb.pool, (_h, _mask, "mean"), [_w])
    assert _got is not None and _got[1] and _got[1][0] is not None, "no gradient reaches h through 'mean' pooling: keep the computation in the autograd graph (no .detach(), .data, .item(), torch.no_grad())"
    _want = torch.zeros(2, 5, 3)
    _want[0, :3] = _w[0] / 3
    _want[1] = _w[1] / 5
    assert torch.allclose(_got[1][0], _want, atol=1e-5), "the gradient of 'mean' pooling with respect to h must be 1/n_b at the n_b real tokens of sentence b and 0 at padding"


def q1_pool_5(nb):
    _side_effects = nb.standin("_side_effects")
    _device_problem = nb.standin("_device_problem")
    _ = torch.manual_seed(5)
    _h = torch.randn(3, 4, 2)
    _mask = torch.tensor([[True, True, False, False], [True, True, True, False], [True] * 4])
    assert torch.allclose(nb.pool(_h, _mask, "mean"), torch.stack([_h[0, :2].mean(0), _h[1, :3].mean(0), _h[2].mean(0)]), atol=1e-5), "'mean' pooling has wrong values (this check of side effects and devices needs the right values first)"
    _found = _side_effects(nb.pool, (_h, _mask, "mean"), None, True)
    assert not _found, f"pool has side effects: {'; '.join(_found)}. It must not change h or the mask in place (no h *= ..., masked_fill_ on an argument)"
    _problem = _device_problem(nb.pool, (_h, _mask, "mean"))
    assert _problem is None, f"with h and the mask on another device than the CPU, 'mean' pooling fails or answers on the CPU ({_problem}): a tensor created without device= (torch.tensor(lengths), torch.ones(...)) stays on the CPU; derive everything from h and mask"


def q1_pool_6(nb):
    _h = torch.randn(2, 3, 4)
    _mask = torch.ones(2, 3, dtype=torch.bool)
    assert torch.equal(nb.pool(_h, _mask, "cls"), _h[:, 0]), "'cls' pooling has wrong values (this check needs the right values first)"
    for _how in ("max", "CLS", "first"):
        try:
            _res = nb.pool(_h, _mask, _how)
        except ValueError:
            continue
        except Exception as _e:
            raise AssertionError(f"pool(h, mask, {_how!r}) raised {type(_e).__name__}: an unknown how must raise a ValueError that names it")
        raise AssertionError(f"pool(h, mask, {_how!r}) returned a value: an unknown how must raise a ValueError (a silent default hides typos)")


def q2_classifier_1(nb):
    _ = torch.manual_seed(1)
    _ids = torch.tensor([[nb.CLS_ID, 9, 12, 7, 15, 8], [nb.CLS_ID, 11, nb.PAD_ID, nb.PAD_ID, nb.PAD_ID, nb.PAD_ID], [nb.CLS_ID, 6, 6, 13, nb.PAD_ID, nb.PAD_ID]])
    _lens = [6, 2, 4]
    with nb.sandbox.swap("pool", _REF_POOL):
        for _how in ("cls", "mean"):
            _model = nb.SentenceClassifier(nb.Encoder(16, d_model=12, n_heads=3, n_layers=2, d_ff=24, max_len=12), 4, _how).eval()
            _logits = _model(_ids)
            assert tuple(_logits.shape) == (3, 4), f"logits must be (B, n_classes) = (3, 4), got {tuple(_logits.shape)}"
            _h = _model.encoder(_ids)
            _pooled = _h[:, 0] if _how == "cls" else torch.stack([_h[_b, :_n].mean(0) for _b, _n in enumerate(_lens)])
            _want = _model.head(_pooled)
            assert not torch.allclose(_logits, torch.softmax(_want, -1), atol=1e-4), "the classifier returns probabilities: return the head's logits (F.cross_entropy applies the softmax itself)"
            assert torch.allclose(_logits, _want, atol=1e-5), f"with how={_how!r} the logits must be head(pool(encoder(ids), ids != PAD_ID, how)): pool the ENCODER's outputs (not the embeddings) with self.how, over the real tokens"


def q2_classifier_2(nb):
    _ = torch.manual_seed(2)
    _ids = torch.tensor([[nb.CLS_ID, 9, 12, 7], [nb.CLS_ID, 11, 10, nb.PAD_ID], [nb.CLS_ID, 8, nb.PAD_ID, nb.PAD_ID]])
    for _how in ("cls", "mean"):
        _model = nb.SentenceClassifier(nb.Encoder(16, d_model=8, n_heads=2, n_layers=2, d_ff=16, max_len=16), 2, _how).eval()
        _logits = _model(_ids)
        for _extra in (1, 6):
            _more = torch.cat([_ids, torch.full((3, _extra), nb.PAD_ID)], dim=1)
            assert torch.allclose(_model(_more), _logits, atol=1e-5), f"with how={_how!r} and {_extra} more <pad> columns the logits change: the padding mask for the pooling is ids != PAD_ID (True at real tokens), and padding must not count"
        _alone = torch.cat([_model(_ids[_b:_b + 1, :_n]) for _b, _n in enumerate((4, 3, 2))])
        assert torch.allclose(_alone, _logits, atol=1e-5), f"with how={_how!r} a sentence gets other logits alone (unpadded) than in a padded batch: pool over its own real tokens only"
        _h = _model.encoder(_ids)
        _pooled = _h[:, 0] if _how == "cls" else torch.stack([_h[_b, :_n].mean(0) for _b, _n in enumerate((4, 3, 2))])
        assert torch.allclose(_logits, _model.head(_pooled), atol=1e-5), f"with how={_how!r} the logits are not head(pool(encoder(ids), ids != PAD_ID, how)): they must come from the ENCODER's outputs through the whole head, pooled with self.how, without a softmax"


def q2_classifier_3(nb):
    _grads = nb.standin("_grads")
    _forward_ref = nb.standin("_forward_ref")
    _ = torch.manual_seed(3)
    _model = nb.SentenceClassifier(nb.Encoder(16, d_model=8, n_heads=2, n_layers=1, d_ff=16, max_len=16), 2, "mean").eval()
    _ids = torch.tensor([[nb.CLS_ID, 9, 12, nb.PAD_ID], [nb.CLS_ID, 11, 10, 7]])
    _w = torch.randn(2, 2)
    _got = _grads(_model, (_ids,), [_w], _model)
    assert _got is not None, "no gradient flows from the logits: keep the computation in the autograd graph (no .detach(), .data, torch.no_grad())"
    _missing = [_n for _n, _g in _got[0].items() if _g is None and not _n.startswith("encoder.positions")]
    assert not _missing, f"no gradient reaches {_missing[:3]}: the logits must come from the encoder's outputs through the head (nothing detached)"
    _want = _grads(_forward_ref, (_model, _ids), [_w], _model)[0]
    _wrong = [_n for _n, _g in _want.items() if _g is not None and (_got[0][_n] is None or not torch.allclose(_got[0][_n], _g, atol=1e-5))]
    assert not _wrong, f"with how='mean' the gradients of {_wrong[:3]} differ from those of head(mean of the encoder's outputs over the real tokens): the logits must be head(pool(encoder(ids), ids != PAD_ID, self.how)), the whole head, nothing scaled or detached"


def q2_classifier_4(nb):
    _side_effects = nb.standin("_side_effects")
    _ = torch.manual_seed(4)
    _model = nb.SentenceClassifier(nb.Encoder(16, d_model=8, n_heads=2, n_layers=1, d_ff=16, max_len=16), 3, "cls").eval()
    for _ids in (torch.tensor([[nb.CLS_ID, 9, 12]]), torch.tensor([[nb.CLS_ID]])):
        _logits = _model(_ids)
        assert tuple(_logits.shape) == (1, 3), f"a batch of one sentence {tuple(_ids.shape)} must give logits (1, 3), got {tuple(_logits.shape)} (squeeze() without a dim removes axes of size 1)"
        assert torch.allclose(_logits, _model.head(_model.encoder(_ids)[:, 0]), atol=1e-5), "with how='cls' the logits must be head(encoder(ids)[:, 0])"
    _found = _side_effects(_model, (torch.tensor([[nb.CLS_ID, 9, 12, nb.PAD_ID]]),), _model)
    _found += _side_effects(_model.train(), (torch.tensor([[nb.CLS_ID, 9, 12, nb.PAD_ID]]),), _model)
    assert not _found, f"the forward pass has side effects: {'; '.join(_found)}. It must not change ids in place, switch train()/eval() or freeze parameters"
    _drop = nb.SentenceClassifier(nb.Encoder(16, d_model=8, n_heads=2, n_layers=1, d_ff=16, max_len=16), 3, "mean", dropout=1.0)   # training mode
    _got = _drop(torch.tensor([[nb.CLS_ID, 9, 12, nb.PAD_ID], [nb.CLS_ID, 7, 8, 9]]))
    assert torch.allclose(_got, _drop.state_dict()["head.4.bias"].expand(2, 3), atol=1e-6), "with the head's dropout p = 1 in training mode the logits must be the last Linear's bias alone: run the whole head, self.head(...), on the pooled vector, its two dropouts included (dropout, Linear, tanh, dropout, Linear)"


def q2_classifier_5(nb):
    _on_device = nb.standin("_on_device")
    _forward_ref = nb.standin("_forward_ref")
    _ = torch.manual_seed(5)
    _model = nb.SentenceClassifier(nb.Encoder(20, d_model=8, n_heads=2, n_layers=1, d_ff=16, max_len=16), 3, "mean").eval()
    _ids = torch.tensor([[nb.CLS_ID, 7, 8, 9, nb.PAD_ID], [nb.CLS_ID, 10, nb.PAD_ID, nb.PAD_ID, nb.PAD_ID]])
    _want = _forward_ref(_model, _ids).detach()
    _problem, _got = _on_device(_model, (_ids,), _model)
    assert _problem is None, f"with the model and ids on a GPU, forward fails ({_problem}): make the padding mask from ids itself (ids != PAD_ID), on ids' device, not with torch.arange(T) or a list"
    assert isinstance(_got, torch.Tensor) and _got.shape == _want.shape and torch.allclose(_got, _want, atol=1e-5), "on a GPU the logits differ from head(mean of the encoder's outputs over the real tokens)"


def q3_mcc_1(nb):
    nb.rule("matthews_corrcoef", "sklearn", "torchmetrics", "matthews_corrcoef",
            says="the question asks for MCC from the four counts yourself, not sklearn's or torchmetrics' matthews_corrcoef")
    _g = torch.Generator().manual_seed(1)
    for _n, _p1, _flip in ((50, 0.7, 0.3), (527, 0.7, 0.2), (1000, 0.3, 0.45), (13, 0.5, 0.4)):
        _t = (torch.rand(_n, generator=_g) < _p1).long()
        _p = torch.where(torch.rand(_n, generator=_g) < _flip, 1 - _t, _t)
        _got = nb.matthews_corrcoef(_p, _t)
        assert abs(_got - _mcc(_p, _t)) < 1e-6, f"on {_n} random examples MCC must be {_mcc(_p, _t):.4f}, got {_got}: (TP*TN - FP*FN) / sqrt((TP+FP)(TP+FN)(TN+FP)(TN+FN)), with 1 the positive class (TP: predicted 1 and label 1; FP: predicted 1, label 0)"
    _t = torch.tensor([1, 0, 1, 1, 0, 0, 1])
    assert abs(nb.matthews_corrcoef(1 - _t, _t) + 1.0) < 1e-6, "predictions that are all wrong must give MCC -1: keep the sign of TP*TN - FP*FN (no abs)"


def q3_mcc_2(nb):
    _t = torch.tensor([1, 0, 1, 1, 0, 1, 1, 1, 0, 1])
    _p = torch.tensor([1, 0, 0, 1, 0, 1, 1, 1, 1, 1])
    assert abs(nb.matthews_corrcoef(_p, _t) - 0.5238095238) < 1e-6, "MCC has wrong values (this check of the degenerate cases needs the right values first)"
    for _name, _p, _tt in (("every prediction 1", torch.ones(10, dtype=torch.long), _t),
                           ("every prediction 0", torch.zeros(10, dtype=torch.long), _t),
                           ("every label 1", _p, torch.ones(10, dtype=torch.long)),
                           ("every label 0 and every prediction 0", torch.zeros(10, dtype=torch.long), torch.zeros(10, dtype=torch.long))):
        try:
            _got = nb.matthews_corrcoef(_p, _tt)
        except Exception as _e:
            raise AssertionError(f"with {_name} your MCC raised {type(_e).__name__}: when the denominator is 0 (only one class predicted or present) MCC is defined as 0.0")
        assert isinstance(_got, float) and _got == 0.0, f"with {_name} MCC must be 0.0 (the denominator is 0: such a predictor carries no information), got {_got}"


def q3_mcc_3(nb):
    _n = 300_000
    _t = torch.zeros(_n, dtype=torch.long)
    _t[: _n // 2] = 1
    _p = _t.clone()
    _p[:30_000] = 0          # 30,000 false negatives
    _p[-60_000:] = 1         # 60,000 false positives
    _tp, _fn, _fp, _tn = 120_000.0, 30_000.0, 60_000.0, 90_000.0
    _want = (_tp * _tn - _fp * _fn) / math.sqrt((_tp + _fp) * (_tp + _fn) * (_tn + _fp) * (_tn + _fn))
    _got = nb.matthews_corrcoef(_p, _t)
    assert isinstance(_got, float) and abs(_got - _want) < 1e-6, f"with 300,000 examples MCC must be {_want:.4f}, got {_got}: the product (TP+FP)(TP+FN)(TN+FP)(TN+FN) is about 1e20 and overflows int64; compute in floating point (float(...) of each count)"
    assert -1.0 <= _got <= 1.0


def q3_mcc_4(nb):
    _side_effects = nb.standin("_side_effects")
    _p, _t = torch.tensor([1, 0, 1, 1, 0, 1]), torch.tensor([1, 0, 0, 1, 0, 1])
    assert abs(nb.matthews_corrcoef(_p, _t) - 0.7071067812) < 1e-6, "MCC has wrong values (this check of side effects needs the right values first)"
    _found = _side_effects(nb.matthews_corrcoef, (_p, _t), None, True)
    assert not _found, f"matthews_corrcoef has side effects: {'; '.join(_found)}. It must not change pred or target in place"
    assert abs(nb.matthews_corrcoef(_t, _p) - nb.matthews_corrcoef(_p, _t)) < 1e-9, "MCC is symmetric in predictions and labels"


def q4_mlm_mask_1(nb):
    nb.rule("mask_tokens", "transformers", "DataCollatorForLanguageModeling", "torch_mask_tokens",
            says="the question asks for the masking itself, not Hugging Face's DataCollatorForLanguageModeling")
    _mask_with = nb.standin("_mask_with")
    _g = torch.Generator().manual_seed(11)
    _ids = torch.randint(nb.N_SPECIAL, 500, (200, 40), generator=_g)
    _lens = torch.randint(5, 41, (200,), generator=_g)
    _ids[torch.arange(40)[None, :] >= _lens[:, None]] = nb.PAD_ID
    _ids[:, 0] = nb.CLS_ID
    _ids[::7, 3] = nb.UNK_ID                                                           # a special token inside sentences
    _inputs, _labels = _mask_with(_ids, 500, 3)
    _chosen = _labels != nb.IGNORE
    _ordinary = _ids >= nb.N_SPECIAL
    _share = float(_chosen.sum()) / float(_ordinary.sum())
    assert not bool((_chosen & ~_ordinary).any()), "a special token (<pad>, <unk>, [CLS], id < N_SPECIAL) was chosen: only ordinary tokens (id >= N_SPECIAL) may be chosen"
    assert 0.135 < _share < 0.165, f"{_share:.1%} of the ordinary tokens were chosen instead of about 15 %: choose each ordinary token with probability mask_prob (padding and specials do not count)"
    _flat = torch.randint(nb.N_SPECIAL, 500, (400, 40), generator=_g)                 # 400 sentences of 40 ordinary tokens
    _per_sentence = (_mask_with(_flat, 500, 4)[1] != nb.IGNORE).sum(1).double()
    _var = float(_per_sentence.var())
    assert 2.5 < _var < 8.0, f"the number of chosen tokens per sentence of 40 ordinary tokens varies with variance {_var:.2f} instead of about 40 * 0.15 * 0.85 = 5.1: choose each ordinary token INDEPENDENTLY with probability mask_prob, as Hugging Face's collator does (not a fixed number per sentence, as BERT's original data preparation does, and not all or none per sentence)"


def q4_mlm_mask_2(nb):
    _mask_with = nb.standin("_mask_with")
    _ids = torch.randint(nb.N_SPECIAL, _V, (300, 60), generator=torch.Generator().manual_seed(12))
    _ids[:, 0] = nb.CLS_ID
    _inputs, _labels = _mask_with(_ids, _V, 5)
    _chosen = _labels != nb.IGNORE
    _n = int(_chosen.sum())
    assert _n > 1000, f"only {_n} of 17,700 ordinary tokens were chosen (about 15 % expected): this check of the 80/10/10 rule needs the right share first"
    _got = _inputs[_chosen]
    _masked = float((_got == nb.MASK_ID).sum()) / _n
    _kept = float((_got == _ids[_chosen]).sum()) / _n
    _other = 1 - _masked - _kept
    assert 0.77 < _masked < 0.83, f"{_masked:.1%} of the chosen tokens became [MASK] instead of 80 %: MASK_ID with probability 0.8 (the 80/10/10 rule applies to the chosen tokens, with a fresh random number)"
    assert 0.075 < _other < 0.125, f"{_other:.1%} of the chosen tokens became another token instead of about 10 %: a random ordinary token with probability 0.1"
    assert 0.075 < _kept < 0.125, f"{_kept:.1%} of the chosen tokens stayed unchanged instead of about 10 %: the remaining 10 % keep their token (and still get a label)"
    _random = _got[(_got != nb.MASK_ID) & (_got != _ids[_chosen])]
    assert bool((_random >= nb.N_SPECIAL).all() and (_random < _V).all()), f"a random replacement was a special token or outside the vocabulary (ids {sorted(set(_random[(_random < nb.N_SPECIAL) | (_random >= _V)].tolist()))[:5]}): draw it uniformly from the ordinary ids N_SPECIAL ... vocab_size - 1"
    assert int(_random.min()) < nb.N_SPECIAL + 60 and int(_random.max()) >= _V - 60 and len(set(_random.tolist())) > 100, "the random replacements do not cover the ordinary ids N_SPECIAL ... vocab_size - 1 uniformly (torch.randint(N_SPECIAL, vocab_size, ...))"


def q4_mlm_mask_3(nb):
    _mask_with = nb.standin("_mask_with")
    _ids = torch.randint(nb.N_SPECIAL, 50, (64, 30), generator=torch.Generator().manual_seed(13))
    _ids[:, 0] = nb.CLS_ID
    _ids[:, -4:] = nb.PAD_ID
    _inputs, _labels = _mask_with(_ids, 50, 7)
    _chosen = _labels != nb.IGNORE
    assert 100 < int(_chosen.sum()) < 400, f"{int(_chosen.sum())} of 1,600 ordinary tokens were chosen (about 240 expected): this check of the labels needs the right share first"
    assert bool((_labels[~_chosen] == nb.IGNORE).all()), "labels must be IGNORE (-100) at every position that is not chosen (not PAD_ID, not 0: 0 is a real class for cross_entropy)"
    assert torch.equal(_labels[_chosen], _ids[_chosen]), "labels must be the ORIGINAL ids at the chosen positions (not the corrupted inputs): also where a chosen token became [MASK] or a random token"
    _kept = _chosen & (_inputs == _ids)
    assert int(_kept.sum()) > 5, "chosen tokens that stay unchanged must keep their label: the model must predict them too (labels are set for every chosen position, not only where the input changed)"
    assert torch.equal(_inputs[~_chosen], _ids[~_chosen]), "inputs must equal ids wherever nothing was chosen"


def q4_mlm_mask_4(nb):
    _mask_with = nb.standin("_mask_with")
    _mask_effects = nb.standin("_mask_effects")
    _ids = torch.randint(nb.N_SPECIAL, 80, (32, 25), generator=torch.Generator().manual_seed(14))
    _ids[:, 0] = nb.CLS_ID
    _a, _b, _c = _mask_with(_ids, 80, 21), _mask_with(_ids, 80, 21), _mask_with(_ids, 80, 22)
    assert 50 < int((_a[1] != nb.IGNORE).sum()) < 190, "about 15 % of the tokens should be chosen (this check of reproducibility needs the right share first)"
    assert torch.equal(_a[0], _b[0]) and torch.equal(_a[1], _b[1]), "two calls with generators seeded alike gave different maskings: take every random number from the generator argument (generator=generator), none from the global generator"
    assert not torch.equal(_a[1], _c[1]), "generators with different seeds gave the same masking: the choice must be random, drawn from the generator"
    _found = _mask_effects(_ids, 80, 23)
    assert not _found, f"mask_tokens has side effects: {'; '.join(_found)}. Draw every random number from the generator passed in (torch.rand(..., generator=generator)), never from the global one, and do not change ids in place (clone it, or build inputs with torch.where)"


def q4_mlm_mask_5(nb):
    _mask_with = nb.standin("_mask_with")
    _ids = torch.randint(nb.N_SPECIAL, 60, (100, 40), generator=torch.Generator().manual_seed(15))
    _half = float((_mask_with(_ids, 60, 1, 0.5)[1] != nb.IGNORE).float().mean())
    assert 0.45 < _half < 0.55, f"with mask_prob = 0.5, {_half:.1%} of the tokens were chosen: use the mask_prob argument, not a fixed 0.15"
    _none = _mask_with(_ids, 60, 1, 0.0)
    assert bool((_none[1] == nb.IGNORE).all()) and torch.equal(_none[0], _ids), "with mask_prob = 0 nothing may be chosen or changed"
    for _x in (torch.tensor([[nb.CLS_ID, 9, 10, 11]]), torch.tensor([[nb.CLS_ID]])):
        _inp, _lab = _mask_with(_x, 60, 2, 1.0)
        assert tuple(_inp.shape) == tuple(_x.shape) and tuple(_lab.shape) == tuple(_x.shape), f"a batch of one sentence {tuple(_x.shape)} must keep its shape, got {tuple(_inp.shape)} and {tuple(_lab.shape)} (squeeze() without a dim removes axes of size 1)"
        assert torch.equal(_lab[:, 1:], _x[:, 1:]) and int(_lab[0, 0]) == nb.IGNORE, "with mask_prob = 1 every ordinary token is chosen and [CLS] never"


def q4_mlm_mask_6(nb):
    _mask_on_device = nb.standin("_mask_on_device")
    _ids = torch.randint(nb.N_SPECIAL, 40, (6, 12), generator=torch.Generator().manual_seed(16))
    _problem, _res = _mask_on_device(_ids, 40, 3)
    assert _problem is None, f"with ids on a GPU (pretraining masks each batch there, with a generator on the same device), mask_tokens fails ({_problem}): draw with device=ids.device (torch.rand(ids.shape, generator=generator, device=ids.device)) and make every other tensor on ids' device"
    assert isinstance(_res, tuple) and len(_res) == 2, "mask_tokens must return (inputs, labels)"
    _inputs, _labels = _res
    _chosen = _labels != nb.IGNORE
    assert 0 < int(_chosen.sum()) < 30 and torch.equal(_labels[_chosen], _ids[_chosen]) and torch.equal(_inputs[~_chosen], _ids[~_chosen]), "on a GPU the masking is wrong: about 15 % of the tokens chosen, labels the original ids there and IGNORE elsewhere, inputs unchanged where nothing was chosen"


def q4_mlm_mask_7(nb):
    _mask_with, _mask_twice = nb.standin("_mask_with"), nb.standin("_mask_twice")
    _V = nb.N_SPECIAL + 4                                                              # four ordinary ids
    _ids = torch.randint(nb.N_SPECIAL, _V, (400, 50), generator=torch.Generator().manual_seed(17))
    _inputs, _labels = _mask_with(_ids, _V, 8, 1.0)
    _random = _inputs[(_inputs != nb.MASK_ID) & (_inputs != _ids)]
    _counts = torch.bincount(_random - nb.N_SPECIAL, minlength=4).tolist() if bool((_random >= nb.N_SPECIAL).all()) else []
    assert len(_counts) == 4 and min(_counts) > 150, f"with vocab_size = N_SPECIAL + 4 the random replacements (that differ from the original) fell on the ordinary ids {_counts} times each: each of the four must come up, vocab_size - 1 included (torch.randint(N_SPECIAL, vocab_size, ...): the upper bound is exclusive)"
    _rest = _inputs != nb.MASK_ID                                                      # every token is chosen (mask_prob 1)
    _same = float((_inputs == _ids)[_rest].double().mean())
    assert 0.57 < _same < 0.68, f"with four ordinary ids, {_same:.1%} of the chosen tokens that did not become [MASK] kept their own id instead of about 62.5 % (the 10 % unchanged and a quarter of the 10 % random): the random replacement is uniform over ALL ordinary ids N_SPECIAL ... vocab_size - 1, the original one included; do not exclude it"
    (_a, _la), (_b, _lb), _advanced = _mask_twice(_ids[:40], _V, 9)
    assert _advanced, "mask_tokens did not advance the caller's generator: draw from generator itself, not from a copy or a new generator seeded like it"
    assert not torch.equal(_la, _lb), "two calls with the same generator chose the same positions: each call must take new random numbers from the caller's generator (pretraining masks every batch afresh from one generator)"


def _dispersion(hits, trials):
    # observed over binomial variance of the counts per group (about 1 for independent draws; far above 1 when
    # the draws of a group are shared, far below when a fixed number is drawn per group)
    keep = trials > 0
    hits, trials = hits[keep].double(), trials[keep].double()
    p = float(hits.sum() / trials.sum())
    return float(((hits - p * trials) ** 2 / (trials * p * (1 - p))).mean())


def q4_mlm_mask_8(nb):
    _mask_with = nb.standin("_mask_with")
    _ids = torch.randint(nb.N_SPECIAL, 300, (2000, 40), generator=torch.Generator().manual_seed(18))
    _inputs, _labels = _mask_with(_ids, 300, 10)
    _chosen = (_labels != nb.IGNORE).long()
    _share = float(_chosen.double().mean())
    assert 0.05 < _share < 0.3, f"{_share:.1%} of the ordinary tokens were chosen instead of about 15 % (this check of independence needs a share near it first)"
    _by_position = _dispersion(_chosen.sum(0), torch.full((40,), 2000))
    assert 0.3 < _by_position < 2.5, f"the number of sentences in which a position is chosen varies {_by_position:.1f} times as much as independent draws allow: draw one random number per token (torch.rand(ids.shape)), not one per position shared by the whole batch"
    _masked = ((_inputs == nb.MASK_ID) & (_chosen == 1)).long()
    _mask_share = float(_masked.sum() / _chosen.sum())
    assert 0.6 < _mask_share < 0.95, f"{_mask_share:.1%} of the chosen tokens became [MASK] instead of about 80 % (this check of independence needs a share near it first)"
    _by_sentence = _dispersion(_masked.sum(1), _chosen.sum(1))
    _by_column = _dispersion(_masked.sum(0), _chosen.sum(0))
    assert 0.7 < _by_sentence < 1.4 and 0.3 < _by_column < 2.5, f"whether a chosen token becomes [MASK] depends on its sentence or position (the count of [MASK]s per sentence varies {_by_sentence:.1f} times, per position {_by_column:.1f} times as much as independent draws allow): draw the 80/10/10 decision once per token (torch.rand(ids.shape)), not once per sentence or per position"


def q5_mlm_loss_1(nb):
    _Recorder = nb.standin("_Recorder")
    _run_mlm = nb.standin("_run_mlm")
    _ = torch.manual_seed(1)
    with nb.sandbox.swap("mask_tokens", _REF_MASK_TOKENS):
        for _B, _T, _V, _seed in ((9, 15, 60, 3), (4, 30, 25, 4)):
            _model = _Recorder(_V)
            _ids = torch.randint(nb.N_SPECIAL, _V, (_B, _T))
            _ids[:, 0] = nb.CLS_ID
            _ids[: _B // 2, -5:] = nb.PAD_ID
            _loss, _n, _inputs, _labels = _run_mlm(_model, _ids, _V, _seed)
            _chosen = _labels != nb.IGNORE
            _logits = _model(_inputs)
            _want = F.cross_entropy(_logits[_chosen], _ids[_chosen])
            _everywhere = F.cross_entropy(_logits.reshape(-1, _V), _ids.reshape(-1))
            assert not torch.allclose(_loss, _everywhere, atol=1e-4), "the loss is computed at every position: only the chosen positions count (labels IGNORE elsewhere, ignore_index=IGNORE)"
            assert torch.allclose(_loss, _want, atol=1e-5), f"the loss must be the MEAN cross-entropy over the chosen positions (predicting the original ids there): want {float(_want):.4f}, got {float(_loss):.4f} (divide by the number of chosen positions, not by B*T; the class axis is the last one of the logits)"
            assert type(_n) is int and _n == int(_chosen.sum()), f"n_chosen must be the number of chosen positions ({int(_chosen.sum())}) as an int, got {_n!r} (not the number of real tokens)"


def q5_mlm_loss_2(nb):
    _Recorder = nb.standin("_Recorder")
    _run_mlm = nb.standin("_run_mlm")
    _ = torch.manual_seed(2)
    with nb.sandbox.swap("mask_tokens", _REF_MASK_TOKENS):
        _model = _Recorder(30)
        _ids = torch.randint(nb.N_SPECIAL, 30, (8, 20))
        _ids[:, 0] = nb.CLS_ID
        _loss, _n, _inputs, _labels = _run_mlm(_model, _ids, 30, 5)
        assert _model.seen is not None and not torch.equal(_model.seen, _ids), "the model was run on the original ids: run it on the corrupted inputs that mask_tokens returns (else the answer is in its input)"
        assert torch.equal(_model.seen, _inputs), "the model must be run on exactly the inputs of ONE call mask_tokens(ids, vocab_size, generator): call it once, with the generator passed in"
        _chosen = _labels != nb.IGNORE
        _want = F.cross_entropy(_model(_inputs)[_chosen], _ids[_chosen])
        _shown = f"{float(_loss):.4f}" if isinstance(_loss, (float, torch.Tensor)) and torch.as_tensor(_loss).numel() == 1 else repr(_loss)
        assert isinstance(_loss, torch.Tensor) and torch.allclose(_loss, _want, atol=1e-5), f"the loss must be the mean cross-entropy of the model's logits on those inputs at the chosen positions: want {float(_want):.4f}, got {_shown}"


def q5_mlm_loss_3(nb):
    _Recorder = nb.standin("_Recorder")
    _run_mlm = nb.standin("_run_mlm")
    _grads = nb.standin("_grads")
    _loss_of = nb.standin("_loss_of")
    _ = torch.manual_seed(3)
    _model = _Recorder(20)
    _ids = torch.randint(nb.N_SPECIAL, 20, (5, 16))
    _loss = _loss_of(_model, _ids, 20, 1)
    assert isinstance(_loss, torch.Tensor) and _loss.dim() == 0 and bool(torch.isfinite(_loss)) and float(_loss) > 0.5, "the loss must be the (positive, finite) cross-entropy at the chosen positions, a scalar tensor (this check of gradients needs it first)"
    _inputs, _labels = _run_mlm(_model, _ids, 20, 1)[2:]
    _chosen = _labels != nb.IGNORE
    _want = F.cross_entropy(_model(_inputs)[_chosen], _labels[_chosen])
    assert torch.allclose(_loss, _want, atol=1e-5), f"the loss must be the mean cross-entropy at the positions mask_tokens(ids, vocab_size, generator) chose, from the model's logits on its inputs: want {float(_want):.4f}, got {float(_loss):.4f}"
    _got = _grads(_loss_of, (_model, _ids, 20, 1), [torch.tensor(1.0)], _model)
    assert _got is not None and _got[0].get("out.weight") is not None, "no gradient reaches the model's parameters: keep the loss in the autograd graph (no .item(), .detach(), torch.no_grad(); return the tensor, not a float)"


def q5_mlm_loss_4(nb):
    _Recorder = nb.standin("_Recorder")
    _run_mlm = nb.standin("_run_mlm")
    _loss_effects = nb.standin("_loss_effects")
    _ = torch.manual_seed(4)
    with nb.sandbox.swap("mask_tokens", _REF_MASK_TOKENS):
        _model = _Recorder(25)
        _ids = torch.randint(nb.N_SPECIAL, 25, (1, 40))
        _ids[0, 0] = nb.CLS_ID
        _loss, _n, _inputs, _labels = _run_mlm(_model, _ids, 25, 9)
        _chosen = _labels != nb.IGNORE
        assert torch.allclose(_loss, F.cross_entropy(_model(_inputs)[_chosen], _ids[_chosen]), atol=1e-5), "with a batch of one sentence (1, 40) the loss differs from the cross-entropy at its chosen positions (squeeze() without a dim removes the batch axis)"
        _found = _loss_effects(_model, _ids, 25, 9)
        assert not _found, f"mlm_loss has side effects: {'; '.join(_found)}. It must not change ids in place, and every random number must come from the generator passed in (through mask_tokens)"


def q5_mlm_loss_5(nb):
    _Recorder = nb.standin("_Recorder")
    _run_mlm = nb.standin("_run_mlm")
    _grads = nb.standin("_grads")
    _loss_of = nb.standin("_loss_of")
    _ = torch.manual_seed(5)
    _model = _Recorder(20)
    _ids = torch.tensor([[nb.CLS_ID, nb.UNK_ID, nb.UNK_ID, nb.PAD_ID], [nb.CLS_ID, nb.UNK_ID, nb.PAD_ID, nb.PAD_ID]])   # nothing ordinary
    _loss, _n, _inputs, _labels = _run_mlm(_model, _ids, 20, 3)
    _shown = f"{float(_loss)}" if isinstance(_loss, torch.Tensor) and _loss.numel() == 1 else repr(_loss)
    assert type(_n) is int and _n == 0, f"with nothing chosen (a batch of [CLS], <unk> and <pad> only) n_chosen must be the int 0, got {_n!r}"
    assert isinstance(_loss, torch.Tensor) and _loss.dim() == 0 and bool(torch.isfinite(_loss)) and float(_loss) == 0.0, f"with nothing chosen the loss must be a zero scalar tensor (the mean of nothing is NaN, and one NaN loss turns every weight into NaN), got {_shown}: return logits.sum() * 0.0 and 0 when no label is set"
    _got = _grads(_loss_of, (_model, _ids, 20, 3), [torch.tensor(1.0)], _model)
    assert _got is not None, "with nothing chosen the zero loss must still be in the autograd graph (backward runs on every batch): logits.sum() * 0.0, not torch.tensor(0.0)"
    assert all(_g is not None for _g in _got[0].values()), "with nothing chosen backward reaches no parameter of the model: return 'a zero loss computed from the logits, so that every parameter gets a zero gradient as on any other batch' (logits.sum() * 0.0), not a new tensor such as torch.zeros((), requires_grad=True)"
    assert all(_g is None or bool(torch.isfinite(_g).all()) for _g in _got[0].values()), "with nothing chosen backward must give finite (zero) gradients, not NaN"


def q5_mlm_loss_6(nb):
    _Recorder = nb.standin("_Recorder")
    _run_mlm = nb.standin("_run_mlm")
    _ = torch.manual_seed(6)
    _W = torch.randn(30, 30) * 1e4   # a confident model: logits of magnitude ~10,000
    _model = _Recorder(30)
    _ = _model.load_state_dict({"out.weight": _W})
    _ids = torch.randint(nb.N_SPECIAL, 30, (6, 20))
    _ids[:, 0] = nb.CLS_ID
    with nb.sandbox.swap("mask_tokens", _REF_MASK_TOKENS):
        _loss, _n, _inputs, _labels = _run_mlm(_model, _ids, 30, 7)
    _chosen = _labels != nb.IGNORE
    _want = F.cross_entropy(_W.double()[_inputs][_chosen], _ids[_chosen])
    _p = _float64_problem(_loss, _want, rtol=1e-5, atol=1e-3)
    assert _p is None, f"with confident logits (magnitude ~10,000) the loss is wrong: {_p}. Compute it stably (F.cross_entropy or log_softmax): the log of a softmax is -inf where a probability underflows to 0"


def q6_from_pretrained_1(nb):
    _after_step = nb.standin("_after_step")
    _ = torch.manual_seed(1)
    _facts = _after_step(nb.MLMModel(nb.Encoder(20, d_model=8, n_heads=2, n_layers=2, d_ff=16, max_len=16)), 2, "cls")
    assert _facts["copied"], "the classifier's encoder must start with the weights of pretrained.encoder"
    assert not _facts["shared"] and not _facts["changed"], f"training the classifier changed the pretrained model ({', '.join(_facts['changed'][:3])}): its encoder must be a COPY (copy.deepcopy(pretrained.encoder), or a new Encoder(**pretrained.encoder.config) with load_state_dict), not the same module"


def q6_from_pretrained_2(nb):
    _ = torch.manual_seed(2)
    _pre = nb.MLMModel(nb.Encoder(20, d_model=8, n_heads=2, n_layers=1, d_ff=16, max_len=16))
    _clf = nb.classifier_from_pretrained(_pre, 5, "mean")
    _ids = torch.tensor([[nb.CLS_ID, 7, 8, nb.PAD_ID, nb.PAD_ID], [nb.CLS_ID, 9, 10, 11, 12]])
    _clf = _clf.eval()
    _mine, _theirs = _clf.encoder.state_dict(), _pre.encoder.state_dict()
    assert all(torch.equal(_mine[_k], _theirs[_k]) for _k in _theirs), "the classifier's encoder must start with the weights of pretrained.encoder (this check needs them first)"
    assert tuple(_clf(_ids).shape) == (2, 5), "the classifier must have n_classes outputs (5 here): pass n_classes on"
    assert _clf.how == "mean", f"the classifier must pool with the how passed in ('mean' here), got {_clf.how!r}"
    _frozen = [_n for _n, _p in _clf.named_parameters() if not _p.requires_grad]
    assert not _frozen, f"parameters {_frozen[:3]} are frozen (requires_grad False): fine-tuning trains the whole model, encoder included"


def q6_from_pretrained_3(nb):
    _side_effects = nb.standin("_side_effects")
    _ = torch.manual_seed(3)
    _pre = nb.MLMModel(nb.Encoder(20, d_model=8, n_heads=2, n_layers=1, d_ff=16, max_len=16))
    _mine, _theirs = nb.classifier_from_pretrained(_pre, 2, "cls").encoder.state_dict(), _pre.encoder.state_dict()
    assert all(torch.equal(_mine[_k], _theirs[_k]) for _k in _theirs), "the classifier's encoder must start with the weights of pretrained.encoder (this check of side effects needs them first)"
    _pre2 = nb.MLMModel(nb.Encoder(20, d_model=8, n_heads=2, n_layers=1, d_ff=16, max_len=16))   # untouched so far
    _found = _side_effects(nb.classifier_from_pretrained, (_pre2, 2, "cls"), _pre2)
    assert not _found, f"classifier_from_pretrained changes the pretrained model: {'; '.join(_found)}. Leave it as it is (no requires_grad_(False), eval() or train() on it; change only the copy)"
