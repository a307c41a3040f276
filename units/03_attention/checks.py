"""Hidden checks of notebook 03_attention: each case is a function of ``nb``, the submitted notebook as the
grader sees it (``grader.checks.Notebook``: its names as data or handles into the sandbox, ``nb.sandbox``,
``nb.standin(name)`` for a definition of ``standins.py`` executed where the notebook runs, and the static
``nb.uses``/``nb.rule``). The master's hidden test cells call them; they run on the trusted side only."""

from __future__ import annotations


import torch
import torch.nn as nn

from seqcourse.testing import float64_problem as _float64_problem


_REF_MASKED_SOFTMAX = """
def masked_softmax(scores, mask):
    return torch.softmax(scores.masked_fill(~mask, -1e9), -1) * mask.any(-1, keepdim=True)
"""
_REF_ATTENTION = """
def attention(score, query, keys, values, mask):
    w = torch.softmax(score(query, keys).masked_fill(~mask, -1e9), -1)
    return torch.einsum("bs,bsd->bd", w, values), w
"""
_REF_LENGTH_PENALTY = "def length_penalty(length, alpha):\n    return ((5 + length) / 6) ** alpha\n"  # GNMT's lp(|Y|)
_HINT = ("Check: running scores start at [0, -inf, ...]; top 2β candidates of scores[:, :, None] + log_probs; an <eos> candidate of rank < β is finished and set aside "
        "(not dropped, not kept in the beam); the state reordered to follow each hypothesis's beam (row b * β + k); model.start gets src and src_len as given; "
        "a sentence stops after β finished; the winner has the best score / lp(|Y|) with |Y| counting <eos>, the length penalty applied once")


def _close(got, want, atol=1e-5):
    return isinstance(got, torch.Tensor) and tuple(got.shape) == tuple(want.shape) and torch.allclose(got.double(), want.double(), atol=atol)


def _ref_masked_softmax(scores, mask):
    return torch.softmax(scores.masked_fill(~mask, -1e9), -1) * mask.any(-1, keepdim=True)


def _decoder(nb, V, E, H, M, dropout=0.0, score=None):
    """A decoder of yours with the weights of reference layers _emb, _gru, _Wc (returned too)."""
    emb, gru, Wc = nn.Embedding(V, E, padding_idx=nb.PAD_ID), nn.GRUCell(2 * E, H), nn.Linear(M + H, E, bias=False)
    dec = nb.AttentionDecoder(vocab_size=V, emb_size=E, hidden_size=H, memory_size=M, score=score if score is not None else nb.standin("_Dot")(), dropout=dropout)
    _ = dec.load_state_dict({"embedding.weight": emb.weight.detach(), "out.weight": emb.weight.detach(), "W_c.weight": Wc.weight.detach(),
                             **{"rnn." + n: p.detach() for n, p in gru.named_parameters()}}, strict=False)
    return dec, emb, gru, Wc


def _step(emb, gru, Wc, tok, h, feed, mem, mask, drop_embedding=False):
    """The reference step (no dropout; drop_embedding: the embedding zeroed, as dropout p=1 does)."""
    e = emb(tok) * (0.0 if drop_embedding else 1.0)
    h_new = gru(torch.cat([e, feed], -1), h)
    w = torch.softmax(torch.einsum("bd,bsd->bs", h_new, mem).masked_fill(~mask, -1e9), -1)
    return h_new, torch.tanh(Wc(torch.cat([torch.einsum("bs,bsd->bd", w, mem), h_new], -1))), w




def _ref_lp(length, alpha):
    return ((5 + length) / 6) ** alpha


def _ref_beam(nb, model, src, src_len, K, max_len, alpha):
    """Straightforward beam search, one sentence and one hypothesis at a time."""
    start = model.start(src, src_len)
    result = []
    for b in range(src.size(0)):
        beams = [([], 0.0, {k: v[b:b + 1] for k, v in start.items()}, nb.SOS_ID)]
        finished = []
        for t in range(1, max_len + 1):
            cands = []
            for k, (toks, score, st, last) in enumerate(beams):
                lp, st2 = model.step(torch.tensor([last]), st)
                cands += [(score + float(lp[0, w]), k, w, st2) for w in range(lp.size(-1))]
            cands.sort(key=lambda c: -c[0])
            new = []
            for rank, (s, k, w, st2) in enumerate(cands[:2 * K]):
                if w == nb.EOS_ID:
                    if rank < K:
                        finished.append((s / _ref_lp(t, alpha), beams[k][0]))
                    continue
                new.append((beams[k][0] + [w], s, st2, w))
                if len(new) == K:
                    break
            if t == max_len:
                finished += [(s / _ref_lp(t, alpha), toks) for toks, s, _, _ in new]
            beams = new
            if len(finished) >= K:
                break
        result.append(max(finished, key=lambda f: f[0]))
    return [toks for _, toks in result], torch.tensor([s for s, _ in result], dtype=torch.float64)


def _parity(nb, configs):
    # your beam search against the reference on toy models (seed, (lengths, C, beam_size, max_len, alpha, eos_bias))
    _LocalToy = nb.here("_MarkovToy")       # here: the reference side
    _MarkovToy = nb.standin("_MarkovToy")   # where your code runs: the model your beam search calls
    for _seed, (_lengths, _V, _K, _max, _alpha, _bias) in configs:
        _src, _len = nb.here("_batch")(_lengths)
        _B = len(_lengths)
        _want_h, _want_s = _ref_beam(nb, _LocalToy(_B, _V, seed=_seed, eos_bias=_bias), _src, _len, _K, _max, _alpha)
        _got_h, _got_s = nb.beam_search(_MarkovToy(_B, _V, seed=_seed, eos_bias=_bias), _src, _len, beam_size=_K, max_len=_max, alpha=_alpha)
        _case = f"(B={_B}, C={_V}, beam_size={_K}, max_len={_max}, alpha={_alpha})"
        assert _got_h == _want_h, f"{_case}: got {_got_h}, expected {_want_h}. {_HINT}"
        assert isinstance(_got_s, torch.Tensor) and tuple(_got_s.shape) == tuple(_want_s.shape) and torch.allclose(_got_s.double(), _want_s, atol=1e-4), f"{_case}: the returned scores {_got_s.tolist() if isinstance(_got_s, torch.Tensor) else _got_s} differ from the expected {_want_s.tolist()}: return log p / lp(|Y|), the length penalty applied once"


def q1_dot_general_1(nb):
    _ = torch.manual_seed(1)
    _q, _k = torch.randn(4, 16), torch.randn(4, 7, 16)
    _want = torch.einsum("bd,bsd->bs", _q, _k)
    _got = nb.DotScore()(_q, _k)
    assert isinstance(_got, torch.Tensor) and tuple(_got.shape) == (4, 7), f"DotScore must return a tensor (B, S) = (4, 7), got {getattr(_got, 'shape', type(_got).__name__)}"
    assert torch.allclose(_got, _want, atol=1e-4), "DotScore(scaled=False) must return the plain dot products, no scaling"
    _got = nb.DotScore(scaled=True)(_q, _k)
    assert not torch.allclose(_got, _want, atol=1e-4), "DotScore(scaled=True) returned unscaled scores: divide by sqrt(d_k) (missing 1/sqrt(d))"
    assert torch.allclose(_got, _want / 4.0, atol=1e-4), "DotScore(scaled=True): divide the dot products by sqrt(d_k) = sqrt(keys.size(-1)) (here 4), not by d_k or by S"
    _k9 = torch.randn(4, 9, 16)
    assert torch.allclose(nb.DotScore(scaled=True)(_q, _k9), torch.einsum("bd,bsd->bs", _q, _k9) / 4.0, atol=1e-4), "scaling must use the vector size d_k, not the source length S"
    for _B, _S in ((1, 5), (3, 1), (1, 1)):
        _qs, _ks = torch.randn(_B, 9), torch.randn(_B, _S, 9)
        _got = nb.DotScore(scaled=True)(_qs, _ks)
        assert isinstance(_got, torch.Tensor) and tuple(_got.shape) == (_B, _S), f"B = {_B}, S = {_S}: the scores must be ({_B}, {_S}), got {getattr(_got, 'shape', type(_got).__name__)}: squeeze only the dimension you added (squeeze(2)), never squeeze() without a dimension"
        assert torch.allclose(_got, torch.einsum("bd,bsd->bs", _qs, _ks) / 3.0, atol=1e-4), f"B = {_B}, S = {_S}: wrong scaled dot scores (d_k = 9, so divide by 3)"
    _q10, _k10 = torch.randn(2, 10), torch.randn(2, 3, 10)
    assert torch.allclose(nb.DotScore(scaled=True)(_q10, _k10), torch.einsum("bd,bsd->bs", _q10, _k10) / 10 ** 0.5, atol=1e-4), "with d_k = 10 the scores must be divided by sqrt(10) = 3.162: use math.sqrt(d_k) (not its integer part, not d_k)"


def q1_dot_general_2(nb):
    _ = torch.manual_seed(2)
    _g = nb.GeneralScore(5, 3)
    _W = torch.randn(3, 5)                # (d_k, d_q): nn.Linear stores W_a^T
    _ = _g.load_state_dict({"W_a.weight": _W}, strict=False)
    _q, _k = torch.randn(4, 5), torch.randn(4, 6, 3)
    _got = _g(_q, _k)
    _q2 = _q.clone()
    _q2[0] += 1.0
    _got2 = _g(_q2, _k)
    assert isinstance(_got, torch.Tensor) and tuple(_got.shape) == (4, 6), "GeneralScore must return a tensor (B, S)"
    assert torch.allclose(_got2[1:], _got[1:], atol=1e-6), "changing sentence 0's query changed other sentences' scores: keep the batch dimension separate (torch.bmm, not a matrix product across the batch)"
    _want = torch.einsum("bq,kq,bsk->bs", _q, _W, _k)
    assert torch.allclose(_got, _want, atol=1e-5), "GeneralScore: scores[b, s] must be query[b]^T W_a keys[b, s] = self.W_a(query[b]) . keys[b, s]: apply self.W_a to the query, then take the dot product with every key"
    for _B, _S in ((1, 4), (2, 1), (1, 1)):
        _qs, _ks = torch.randn(_B, 5), torch.randn(_B, _S, 3)
        _got = _g(_qs, _ks)
        assert isinstance(_got, torch.Tensor) and tuple(_got.shape) == (_B, _S), f"B = {_B}, S = {_S}: the scores must be ({_B}, {_S}), got {getattr(_got, 'shape', type(_got).__name__)}: squeeze only the dimension you added, never squeeze() without a dimension"
        assert torch.allclose(_got, torch.einsum("bq,kq,bsk->bs", _qs, _W, _ks), atol=1e-5), f"B = {_B}, S = {_S}: wrong general scores"


def q1_dot_general_3(nb):
    _grads = nb.standin("_grads")
    _ = torch.manual_seed(11)
    _q, _k, _c = torch.randn(4, 16), torch.randn(4, 7, 16), torch.randn(4, 7)
    _res = _grads(nb.DotScore(scaled=True), (_q, _k), [_c])
    assert _res is not None, "DotScore(scaled=True): the scores carry no gradient (no .detach(), .data, .item() or numpy)"
    _qr, _kr = _q.clone().requires_grad_(True), _k.clone().requires_grad_(True)
    (torch.einsum("bd,bsd->bs", _qr, _kr) / 4.0 * _c).sum().backward()
    assert _close(_res[1][0], _qr.grad) and _close(_res[1][1], _kr.grad), "DotScore(scaled=True): the gradient with respect to the query or the keys is wrong or missing: compute the scores with differentiable tensor operations (no .detach(), .data, .item() or numpy)"
    _g = nb.GeneralScore(16, 6)
    _lin = nn.Linear(16, 6, bias=False)
    _ = _g.load_state_dict({"W_a.weight": _lin.weight.detach()}, strict=False)
    _k6 = torch.randn(4, 7, 6)
    _res = _grads(_g, (_q, _k6), [_c], _g)
    assert _res is not None, "GeneralScore: the scores carry no gradient (no .detach(), .data, .item() or numpy)"
    _qr, _kr = _q.clone().requires_grad_(True), _k6.clone().requires_grad_(True)
    (torch.einsum("bk,bsk->bs", _lin(_qr), _kr) * _c).sum().backward()
    assert _close(_res[0].get("W_a.weight"), _lin.weight.grad), "GeneralScore: no (or a wrong) gradient reaches W_a: W_a could never be trained. Don't detach self.W_a(query) or use .data"
    assert _close(_res[1][0], _qr.grad) and _close(_res[1][1], _kr.grad), "GeneralScore: the gradient with respect to the query or the keys is wrong or missing (no .detach(), .data or numpy in forward)"


def q1_dot_general_4(nb):
    _device_problem = nb.standin("_device_problem")
    _ = torch.manual_seed(21)
    _q, _k = torch.randn(2, 4), torch.randn(2, 3, 4)
    _got = nb.DotScore(scaled=True)(_q, _k)
    assert isinstance(_got, torch.Tensor) and torch.allclose(_got, torch.einsum("bd,bsd->bs", _q, _k) / 2.0, atol=1e-5), "the scaled dot scores are wrong (see the other checks of this question), so their device could not be checked"
    _p = _device_problem(nb.DotScore(scaled=True), (_q, _k))
    assert _p is None, f"DotScore(scaled=True) with query and keys on another device than the CPU: {_p}. Create no tensor without device= (e.g. torch.tensor([d_k]) for the scale): use math.sqrt(d_k), a plain number"
    _g = nb.GeneralScore(4, 4)
    _W = torch.randn(4, 4)
    _ = _g.load_state_dict({"W_a.weight": _W}, strict=False)
    _got = _g(_q, _k)
    assert isinstance(_got, torch.Tensor) and torch.allclose(_got, torch.einsum("bq,kq,bsk->bs", _q, _W, _k), atol=1e-5), "the general scores are wrong (see the other checks of this question), so their device could not be checked"
    _gm = nb.GeneralScore(4, 4)
    _p = _device_problem(_gm, (_q, _k), _gm)
    assert _p is None, f"GeneralScore with the module, query and keys on another device than the CPU: {_p}. Create no tensor without device= (torch.zeros(B, S) makes it on the CPU; use query.new_zeros(...) or device=keys.device)"


def q1_dot_general_5(nb):
    _side_effects = nb.standin("_side_effects")
    _ = torch.manual_seed(22)
    _q, _k = torch.randn(2, 4), torch.randn(2, 3, 4)
    _got = nb.DotScore(scaled=True)(_q, _k)
    assert isinstance(_got, torch.Tensor) and torch.allclose(_got, torch.einsum("bd,bsd->bs", _q, _k) / 2.0, atol=1e-5), "the scaled dot scores are wrong (see the other checks of this question), so the side effects could not be checked"
    _found = _side_effects(nb.DotScore(scaled=True), (_q, _k))
    assert not _found, f"DotScore(scaled=True): {'; '.join(_found)}. forward must not change the caller's query or keys: make new tensors (query / math.sqrt(d_k)), no in-place /= or div_"
    _gm = nb.GeneralScore(4, 4)
    _found = _side_effects(_gm, (_q, _k), _gm)
    assert not _found, f"GeneralScore: {'; '.join(_found)}. forward must not change its arguments or its weights"


def q2_additive_1(nb):
    _ = torch.manual_seed(3)
    _add = nb.AdditiveScore(5, 6, 7)
    _Wq, _Wk, _bk, _va = torch.randn(7, 5) * 0.5, torch.randn(7, 6) * 0.5, torch.randn(7) * 0.5, torch.randn(1, 7)
    _ = _add.load_state_dict({"W_q.weight": _Wq, "W_k.weight": _Wk, "W_k.bias": _bk, "v_a.weight": _va}, strict=False)
    def _ref(q, k):
        return (torch.tanh((q @ _Wq.T).unsqueeze(1) + k @ _Wk.T + _bk) @ _va[0])
    _q, _k = torch.randn(4, 5) * 2, torch.randn(4, 9, 6) * 2
    _got = _add(_q, _k)
    _want = torch.stack([torch.stack([_va[0] @ torch.tanh(_Wq @ _q[b] + _Wk @ _k[b, s] + _bk) for s in range(9)]) for b in range(4)])
    _no_tanh = ((_q @ _Wq.T).unsqueeze(1) + _k @ _Wk.T + _bk) @ _va[0]
    assert isinstance(_got, torch.Tensor) and tuple(_got.shape) == (4, 9), "AdditiveScore must return a tensor (B, S)"
    assert not torch.allclose(_got, _no_tanh, atol=1e-4), "the scores are linear in the query and key: apply tanh to W_q q + W_k k before v_a"
    assert torch.allclose(_got, _want, atol=1e-5), "scores[b, s] must be v_a . tanh(W_q query[b] + W_k keys[b, s]): add the two projections, then tanh, then v_a (each sentence's query with its own keys)"
    for _B, _S in ((1, 4), (3, 1), (1, 1)):
        _qs, _ks = torch.randn(_B, 5), torch.randn(_B, _S, 6)
        _got = _add(_qs, _ks)
        assert isinstance(_got, torch.Tensor) and tuple(_got.shape) == (_B, _S), f"B = {_B}, S = {_S}: the scores must be ({_B}, {_S}), got {getattr(_got, 'shape', type(_got).__name__)}: squeeze only v_a's output dimension (squeeze(2)), never squeeze() without a dimension"
        assert torch.allclose(_got, _ref(_qs, _ks), atol=1e-5), f"B = {_B}, S = {_S}: wrong additive scores"


def q2_additive_2(nb):
    _grads = nb.standin("_grads")
    _ = torch.manual_seed(12)
    _add = nb.AdditiveScore(5, 6, 7)
    _Wq, _Wk, _va = nn.Linear(5, 7, bias=False), nn.Linear(6, 7), nn.Linear(7, 1, bias=False)
    _ = _add.load_state_dict({"W_q.weight": _Wq.weight.detach(), "W_k.weight": _Wk.weight.detach(), "W_k.bias": _Wk.bias.detach(), "v_a.weight": _va.weight.detach()}, strict=False)
    _q, _k, _c = torch.randn(3, 5), torch.randn(3, 8, 6), torch.randn(3, 8)
    _res = _grads(_add, (_q, _k), [_c], _add)
    assert _res is not None, "the scores carry no gradient: compute them with differentiable tensor operations (no .detach(), .data or numpy)"
    _qr, _kr = _q.clone().requires_grad_(True), _k.clone().requires_grad_(True)
    (_va(torch.tanh(_Wq(_qr).unsqueeze(1) + _Wk(_kr))).squeeze(2) * _c).sum().backward()
    for _name, _p in [("W_q.weight", _Wq.weight), ("W_k.weight", _Wk.weight), ("W_k.bias", _Wk.bias), ("v_a.weight", _va.weight)]:
        assert _close(_res[0].get(_name), _p.grad), f"no (or a wrong) gradient reaches {_name}: that layer could never be trained. Don't detach a projection or use .data in forward"
    assert _close(_res[1][0], _qr.grad) and _close(_res[1][1], _kr.grad), "the gradient with respect to the query or the keys is wrong or missing: compute the scores with differentiable tensor operations (no .detach(), .data or numpy)"


def q2_additive_3(nb):
    _device_problem = nb.standin("_device_problem")
    _ = torch.manual_seed(23)
    _add = nb.AdditiveScore(3, 4, 5)
    _Wq, _Wk, _bk, _va = torch.randn(5, 3), torch.randn(5, 4), torch.randn(5), torch.randn(1, 5)
    _ = _add.load_state_dict({"W_q.weight": _Wq, "W_k.weight": _Wk, "W_k.bias": _bk, "v_a.weight": _va}, strict=False)
    _q, _k = torch.randn(2, 3), torch.randn(2, 6, 4)
    _got = _add(_q, _k)
    assert isinstance(_got, torch.Tensor) and torch.allclose(_got, torch.tanh((_q @ _Wq.T).unsqueeze(1) + _k @ _Wk.T + _bk) @ _va[0], atol=1e-5), "the additive scores are wrong (see the other checks of this question), so their device could not be checked"
    _am = nb.AdditiveScore(3, 4, 5)
    _p = _device_problem(_am, (_q, _k), _am)
    assert _p is None, f"AdditiveScore with the module, query and keys on another device than the CPU: {_p}. Create no tensor without device= (torch.ones/torch.zeros(...) make it on the CPU): broadcast W_q(query).unsqueeze(1) instead"


def q3_masked_softmax_1(nb):
    _ = torch.manual_seed(4)
    _scores = torch.randn(4, 4) * 3
    _mask = torch.tensor([[True, True, True, False], [True, True, False, False], [True, False, False, False], [True, True, True, True]])
    _w = nb.masked_softmax(_scores, _mask)
    assert isinstance(_w, torch.Tensor) and tuple(_w.shape) == (4, 4), "masked_softmax must return a tensor of the scores' shape (B, S)"
    assert torch.allclose(_w.sum(-1), torch.ones(4), atol=1e-5), f"rows must sum to 1 (got {[round(x, 3) for x in _w.sum(-1).tolist()]}): take the softmax over the source positions, dim=-1 (not over the batch), and mask BEFORE the softmax, not by zeroing weights after it"
    assert bool((_w[~_mask] == 0).all()), "masked positions must get exactly 0 weight: use the mask as given (True = real position, same (B, S) layout as the scores; not transposed, not inverted)"
    for _b in range(4):
        _n = int(_mask[_b].sum())
        assert torch.allclose(_w[_b, :_n], torch.softmax(_scores[_b, :_n], -1), atol=1e-5), f"row {_b}: the weights of real positions must be the softmax of their scores alone (fill masked scores with -inf, or a very negative number, before the softmax)"
    _s6 = torch.randn(2, 6)
    _m6 = torch.tensor([[True, False, True, True, False, True], [False, True, True, False, False, False]])
    _w6 = nb.masked_softmax(_s6, _m6)
    assert isinstance(_w6, torch.Tensor) and tuple(_w6.shape) == (2, 6) and bool((_w6[~_m6] == 0).all()), "masked positions anywhere in a row (not only at its end) must get weight 0"
    assert all(torch.allclose(_w6[b][_m6[b]], torch.softmax(_s6[b][_m6[b]], -1), atol=1e-5) for b in range(2)), "the weights of the real positions must be the softmax of their scores alone, wherever the masked positions are"
    for _B, _S in ((1, 5), (3, 1)):
        _sb, _mb = torch.randn(_B, _S), torch.ones(_B, _S, dtype=torch.bool)
        _wb = nb.masked_softmax(_sb, _mb)
        assert isinstance(_wb, torch.Tensor) and tuple(_wb.shape) == (_B, _S) and torch.allclose(_wb, torch.softmax(_sb, -1), atol=1e-5), f"B = {_B}, S = {_S} without padding: the weights must be softmax(scores, dim=-1), shape ({_B}, {_S})"


def q3_masked_softmax_2(nb):
    _grads = nb.standin("_grads")
    _scores = torch.tensor([[0.3, -1.2, 2.0], [1.0, 2.0, 3.0], [0.5, -0.5, 1.5]])
    _mask = torch.tensor([[False, False, False], [True, False, True], [True, True, True]])
    _c = torch.tensor([[1.0, 2.0, 3.0], [1.0, 2.0, 3.0], [-1.0, 0.5, 2.0]])
    _w = nb.masked_softmax(_scores, _mask)
    assert isinstance(_w, torch.Tensor) and tuple(_w.shape) == (3, 3), "masked_softmax must return a tensor of the scores' shape"
    assert not torch.isnan(_w).any(), f"a row with every position masked gave {_w[0].tolist()}: it must be all zeros, not NaN (softmax of only -inf is 0/0)"
    assert bool((_w[0] == 0).all()), f"a row with every position masked must be all zeros, got {_w[0].tolist()}"
    _res = _grads(nb.masked_softmax, (_scores, _mask), [_c])
    _g = None if _res is None else _res[1][0]
    assert _g is not None, "no gradient reaches the scores: the weights must be computed from the scores with differentiable operations (no .detach(), .data or numpy), or attention could never be trained"
    assert not torch.isnan(_g).any(), "the gradient through an all-masked row is NaN: NaN gradients poison every parameter. Replace the NaN weights with masked_fill/where, not by multiplying with the mask"
    _sr = _scores.clone().requires_grad_(True)
    (torch.softmax(_sr.masked_fill(~_mask, -1e9), -1) * _mask.any(-1, keepdim=True) * _c).sum().backward()
    assert _close(_g, _sr.grad), f"the gradient with respect to the scores is {_g.tolist()}, expected {[[round(x, 4) for x in r] for r in _sr.grad.tolist()]}: masked positions (and all-masked rows) get gradient 0, real positions the softmax's gradient. No .detach() or .data"


def q3_masked_softmax_3(nb):
    _scores = torch.tensor([[1000.0, 990.0, 5000.0, 995.0], [-1000.0, -1010.0, -1003.0, 80.0], [30000.0, 30001.0, -30000.0, 29999.0], [-2e4, 50.0, 60.0, -3e4]])
    _mask = torch.tensor([[True, True, False, True], [True, True, True, False], [True, True, False, True], [True, False, False, True]])
    _w = nb.masked_softmax(_scores, _mask)
    assert isinstance(_w, torch.Tensor) and tuple(_w.shape) == (4, 4), "masked_softmax must return a tensor of the scores' shape"
    assert torch.isfinite(_w).all(), f"scores of size 1000 to 30000 gave {_w.tolist()}: exp overflows (or underflows to 0/0); subtract each row's maximum before exp, as torch.softmax does"
    assert bool((_w[~_mask] == 0).all()), "a masked score must get weight 0 whatever its size (mask before the softmax)"
    for _b in range(4):
        _want = torch.softmax(_scores[_b][_mask[_b]].double(), -1)
        # float32 resolves a score of size |s| to about |s| * 1.2e-7: a softmax computed in log space (exp(s - logsumexp(s)))
        # is that far off in relative terms (3.6e-3 at 30,000) and is right; overflow and a masked score that matters are not
        _rtol = max(1e-4, 2 * torch.finfo(torch.float32).eps * float(_scores[_b][_mask[_b]].abs().max()))
        assert torch.allclose(_w[_b][_mask[_b]].double(), _want, rtol=_rtol, atol=1e-6), f"row {_b} (scores {_scores[_b].tolist()}, mask {_mask[_b].tolist()}) gave {_w[_b].tolist()}: the real positions' weights must be the softmax of their scores alone, also for scores of large magnitude (no exp without subtracting the maximum; a masked score must not matter)"


def q3_masked_softmax_4(nb):
    _device_problem = nb.standin("_device_problem")
    _scores = torch.tensor([[0.5, 1.5, -1.0], [2.0, 0.0, 1.0]])
    _mask = torch.tensor([[True, True, False], [False, False, False]])
    _w = nb.masked_softmax(_scores, _mask)
    assert isinstance(_w, torch.Tensor) and torch.allclose(_w, torch.tensor([[0.26894142, 0.73105858, 0.0], [0.0, 0.0, 0.0]]), atol=1e-5), "the weights are wrong (see the other checks of this question), so their device could not be checked"
    _p = _device_problem(nb.masked_softmax, (_scores, _mask))
    assert _p is None, f"masked_softmax with scores and mask on another device than the CPU: {_p}. Create no tensor without device= (torch.full/torch.zeros/torch.ones(...) make it on the CPU): use masked_fill with a number, torch.zeros_like, or device=scores.device"


def q3_masked_softmax_5(nb):
    _side_effects = nb.standin("_side_effects")
    _scores = torch.tensor([[0.5, 1.5, -1.0], [2.0, 0.0, 1.0]])
    _mask = torch.tensor([[True, True, False], [False, True, True]])
    _w = nb.masked_softmax(_scores, _mask)
    assert isinstance(_w, torch.Tensor) and torch.allclose(_w, torch.tensor([[0.26894142, 0.73105858, 0.0], [0.0, 0.26894142, 0.73105858]]), atol=1e-5), "the weights are wrong (see the other checks of this question), so the side effects could not be checked"
    _found = _side_effects(nb.masked_softmax, (_scores, _mask))
    assert not _found, f"masked_softmax: {'; '.join(_found)}. It must not change the caller's scores or mask: use scores.masked_fill(...) (a new tensor), not scores.masked_fill_(...) or scores[~mask] = ..."


def q4_attention_1(nb):
    _FixedScore = nb.standin("_FixedScore")
    with nb.sandbox.swap("masked_softmax", _REF_MASKED_SOFTMAX):   # your attention is checked with a correct masked softmax
        _ = torch.manual_seed(5)
        _scores = torch.randn(3, 4)
        _q, _k, _v = torch.randn(3, 2), torch.randn(3, 4, 2), torch.randn(3, 4, 5)
        _mask = torch.tensor([[True, True, True, True], [True, True, False, False], [True, True, True, False]])
        _fs = _FixedScore(_scores)
        _res = nb.attention(_fs, _q, _k, _v, _mask)
        assert isinstance(_res, tuple) and len(_res) == 2, "attention must return (context, weights)"
        _ctx, _w = _res
        _calls = _fs.calls
        assert len(_calls) == 1 and torch.equal(_calls[0][0], _q) and torch.equal(_calls[0][1], _k), "score the query against the keys exactly once: score(query, keys)"
        _want_w = _ref_masked_softmax(_scores, _mask)
        assert _close(_w, _want_w), "the weights must be masked_softmax(score(query, keys), mask): pass the mask on (padding must get zero weight)"
        assert isinstance(_ctx, torch.Tensor) and tuple(_ctx.shape) == (3, 5), f"the context must be (B, d_v) = (3, 5), got {getattr(_ctx, 'shape', None)}: the weighted sum of the VALUES over the source positions"
        assert _close(_ctx, torch.einsum("bs,bsd->bd", _want_w, _v)), "the context must be the weighted sum of the VALUES over the source positions: sum_s weights[b, s] * values[b, s] (not the keys, not a plain mean)"
        for _B, _S, _D in ((1, 4, 3), (2, 1, 3), (1, 1, 1)):
            _s1 = torch.randn(_B, _S)
            _v1 = torch.randn(_B, _S, _D)
            _m1 = torch.ones(_B, _S, dtype=torch.bool)
            _res = nb.attention(_FixedScore(_s1), torch.randn(_B, 2), torch.randn(_B, _S, 2), _v1, _m1)
            _w1 = _ref_masked_softmax(_s1, _m1)
            assert isinstance(_res, tuple) and len(_res) == 2 and _close(_res[1], _w1), f"B = {_B}, S = {_S}: the weights must be ({_B}, {_S})"
            assert _close(_res[0], torch.einsum("bs,bsd->bd", _w1, _v1)), f"B = {_B}, S = {_S}, d_v = {_D}: the context must be ({_B}, {_D}), got {getattr(_res[0], 'shape', None)}: squeeze only the dimension you added (squeeze(1)), never squeeze() without a dimension"
        # a sentence without real positions: the question says to take the weights from masked_softmax, whose rows then are zeros
        _s0, _v0 = torch.randn(2, 3), torch.randn(2, 3, 4)
        _m0 = torch.tensor([[True, True, False], [False, False, False]])
        _res = nb.attention(_FixedScore(_s0), torch.randn(2, 2), torch.randn(2, 3, 2), _v0, _m0)
        _w0 = _ref_masked_softmax(_s0, _m0)
        assert isinstance(_res, tuple) and len(_res) == 2 and _close(_res[1], _w0) and _close(_res[0], torch.einsum("bs,bsd->bd", _w0, _v0)), "a sentence whose mask is all False must get all-zero weights and a zero context, not NaN: take the weights from your masked_softmax (not a softmax of your own)"


def q4_attention_2(nb):
    _grads = nb.standin("_grads")
    _Dot = nb.standin("_Dot")
    with nb.sandbox.swap("masked_softmax", _REF_MASKED_SOFTMAX):
        _ = torch.manual_seed(13)
        _q, _k, _v = torch.randn(3, 4), torch.randn(3, 5, 4), torch.randn(3, 5, 6)
        _mask = torch.tensor([[True] * 5, [True] * 3 + [False] * 2, [True] + [False] * 4])
        _c_ctx, _c_w = torch.randn(3, 6), torch.randn(3, 5)
        _out = nb.attention(_Dot(), _q, _k, _v, _mask)
        _res = _grads(nb.attention, (_Dot(), _q, _k, _v, _mask), [_c_ctx, _c_w])
        _qr, _kr, _vr = (t.clone().requires_grad_(True) for t in (_q, _k, _v))
        _wr = _ref_masked_softmax(torch.einsum("bd,bsd->bs", _qr, _kr), _mask)
        ((torch.einsum("bs,bsd->bd", _wr, _vr) * _c_ctx).sum() + (_wr * _c_w).sum()).backward()
        assert isinstance(_out, tuple) and len(_out) == 2 and _close(_out[0], torch.einsum("bs,bsd->bd", _wr, _vr).detach()), "attention must return (context, weights), the context the weighted sum of the values"
        assert _res is not None, "the context and weights carry no gradient: use differentiable operations (torch.bmm; no .detach(), .data or numpy)"
        assert _close(_res[1][2], _vr.grad), "the gradient with respect to the values is wrong or missing: context = sum_s weights[b, s] * values[b, s] with differentiable operations (torch.bmm; no .detach() or .data)"
        assert _close(_res[1][0], _qr.grad) and _close(_res[1][1], _kr.grad), "the gradient does not flow back through the weights into the query and the keys: don't detach the weights (or use .data) when you form the context, or the score could never be trained"


def q4_attention_3(nb):
    _device_problem = nb.standin("_device_problem")
    _Dot = nb.standin("_Dot")
    with nb.sandbox.swap("masked_softmax", _REF_MASKED_SOFTMAX):
        _ = torch.manual_seed(24)
        _q, _k, _v = torch.randn(2, 3), torch.randn(2, 4, 3), torch.randn(2, 4, 5)
        _mask = torch.tensor([[True, True, True, False], [True, True, True, True]])
        _res = nb.attention(_Dot(), _q, _k, _v, _mask)
        _w = _ref_masked_softmax(torch.einsum("bd,bsd->bs", _q, _k), _mask)
        assert isinstance(_res, tuple) and len(_res) == 2 and _close(_res[0], torch.einsum("bs,bsd->bd", _w, _v)) and _close(_res[1], _w), "attention's context or weights are wrong (see the other checks of this question), so their device could not be checked"
        _p = _device_problem(nb.attention, (_Dot(), _q, _k, _v, _mask))
        assert _p is None, f"attention with query, keys, values and mask on another device than the CPU: {_p}. Create no tensor without device= (torch.zeros(B, d_v) makes it on the CPU): use torch.bmm, or values.new_zeros(...)"


def q5_decoder_1(nb):
    _RecordingDot = nb.standin("_RecordingDot")
    with nb.sandbox.swap("attention", _REF_ATTENTION):        # your decoder is checked with a correct attention function
        _ = torch.manual_seed(6)
        _dec, _emb, _gru, _Wc = _decoder(nb, 11, 5, 8, 8, score=_RecordingDot())
        _ = _dec.eval()
        _tok, _h, _feed = torch.tensor([2, 7, 4]), torch.randn(3, 8), torch.randn(3, 5)
        _mem = torch.randn(3, 6, 8) * 2
        _mask = torch.tensor([[True] * 6, [True] * 4 + [False] * 2, [True] * 2 + [False] * 4])
        _mem[~_mask] = 0.0
        _res = _dec(_tok, _h, _feed, _mem, _mask)
        assert isinstance(_res, tuple) and len(_res) == 3, "forward must return (h, feed, weights)"
        _h_new, _feed_new, _w = _res
        _queries = _dec.score.queries
        with torch.no_grad():
            _want_h, _want_feed, _want_w = _step(_emb, _gru, _Wc, _tok, _h, _feed, _mem, _mask)
        assert torch.allclose(_h_new, _want_h, atol=1e-5), "h_t must be self.rnn([e(y_{t-1}); h~_{t-1}], h_{t-1}): concatenate the embedding and the fed attentional vector (input feeding), in that order, and pass the previous state"
        assert len(_queries) == 1 and torch.allclose(_queries[0], _want_h, atol=1e-5), "the attention query must be the NEW state h_t (Luong), not h_{t-1}: run the GRU step first, then attend"
        assert bool((_w[~_mask] == 0).all()), "padded source positions got attention weight: pass the mask to attention"
        assert torch.allclose(_w, _want_w, atol=1e-5), "the weights must be attention(self.score, h_t, memory, memory, mask)'s weights"
        assert torch.allclose(_feed_new, _want_feed, atol=1e-5), "h~_t must be tanh(W_c [c_t; h_t]): the context first, then h_t, through self.W_c, then tanh"
        _dec1, _emb1, _gru1, _Wc1 = _decoder(nb, 11, 5, 8, 8)
        _ = _dec1.eval()
        _one = (torch.tensor([3]), torch.randn(1, 8), torch.randn(1, 5), torch.randn(1, 1, 8), torch.ones(1, 1, dtype=torch.bool))
        _res = _dec1(*_one)
        with torch.no_grad():
            _want = _step(_emb1, _gru1, _Wc1, *_one)
        assert isinstance(_res, tuple) and len(_res) == 3 and all(isinstance(_r, torch.Tensor) and tuple(_r.shape) == tuple(_x.shape) and torch.allclose(_r, _x, atol=1e-5) for _r, _x in zip(_res, _want)), "one sentence with one source position (B = 1, S = 1) must give h_t (1, H), h~_t (1, E) and weights (1, 1): never squeeze() without a dimension"


def q5_decoder_2(nb):
    with nb.sandbox.swap("attention", _REF_ATTENTION):        # your decoder is checked with a correct attention function
        _ = torch.manual_seed(16)
        _dec, _emb, _gru, _Wc = _decoder(nb, 10, 5, 6, 6, dropout=1.0)          # a new module is in training mode
        _args = (torch.tensor([4, 9, 2, 5]), torch.randn(4, 6), torch.randn(4, 5), torch.randn(4, 3, 6), torch.tensor([[True] * 3, [True] * 2 + [False], [True] * 3, [True] + [False] * 2]))
        _res = _dec(*_args)
        assert isinstance(_res, tuple) and len(_res) == 3, "forward must return (h, feed, weights)"
        with torch.no_grad():
            _want_h, _, _want_w = _step(_emb, _gru, _Wc, *_args, drop_embedding=True)
        assert isinstance(_res[1], torch.Tensor) and torch.equal(_res[1], torch.zeros(4, 5)), "with dropout p = 1 in training mode h~_t must be all zeros: apply self.dropout to tanh(W_c [c_t; h_t]) (the returned, fed and projected vector)"
        assert torch.allclose(_res[0], _want_h, atol=1e-5), "with dropout p = 1 in training mode h_t must be GRU([0; h~_{t-1}], h_{t-1}): apply self.dropout to the embedding, and only to it (not to the fed vector h~_{t-1}, not to h_t)"
        assert torch.allclose(_res[2], _want_w, atol=1e-5), "with dropout p = 1 in training mode the attention weights must still be those of the new state h_t (no dropout on the query, the memory or the weights)"
        _dec2, _emb2, _gru2, _Wc2 = _decoder(nb, 10, 5, 6, 6, dropout=0.5)
        _ = _dec2.eval()
        _res = _dec2(*_args)
        with torch.no_grad():
            _want = _step(_emb2, _gru2, _Wc2, *_args)
        assert isinstance(_res, tuple) and len(_res) == 3 and all(torch.allclose(_r, _x, atol=1e-5) for _r, _x in zip(_res, _want)), "in eval mode (dropout p = 0.5) the step must be exactly the step without dropout: use the module self.dropout, or F.dropout(x, p, training=self.training); F.dropout(x, p) drops also in eval mode"
        # where dropout sits on h~_t: after the tanh (step 4). The embedding is zero, so its dropout changes nothing and every
        # kept entry of h~_t is tanh(W_c [c_t; h_t]) / (1 - p) whatever the random draws; tanh(dropout(...)) is not
        _dec3, _emb3, _gru3, _Wc3 = _decoder(nb, 10, 5, 6, 6, dropout=0.5)          # training mode
        _ = _dec3.load_state_dict({"embedding.weight": torch.zeros(10, 5), "out.weight": torch.zeros(10, 5)}, strict=False)
        _res = _dec3(*_args)
        with torch.no_grad():
            _want_h, _want_feed, _want_w = _step(_emb3, _gru3, _Wc3, *_args, drop_embedding=True)
        assert isinstance(_res, tuple) and len(_res) == 3 and torch.allclose(_res[0], _want_h, atol=1e-5) and torch.allclose(_res[2], _want_w, atol=1e-5), "with dropout p = 0.5 in training mode and a zero embedding, h_t and the weights must be those of the step without dropout: dropout acts on the embedding and on h~_t only"
        _kept = _res[1] != 0
        assert torch.allclose(torch.where(_kept, _res[1], 2 * _want_feed), 2 * _want_feed, atol=1e-5), "with dropout p = 0.5 in training mode every entry of h~_t must be 0 or tanh(W_c [c_t; h_t]) / (1 - p): apply self.dropout after the tanh, to h~_t (not inside it: tanh(dropout(...)), W_c(dropout([c_t; h_t])))"


def q5_decoder_3(nb):
    _grads = nb.standin("_grads")
    with nb.sandbox.swap("attention", _REF_ATTENTION):
        _ = torch.manual_seed(14)
        _dec, _emb, _gru, _Wc = _decoder(nb, 11, 5, 8, 8)
        _tok, _h, _feed = torch.tensor([2, 7, 4]), torch.randn(3, 8), torch.randn(3, 5)
        _mem, _mask = torch.randn(3, 6, 8), torch.tensor([[True] * 6, [True] * 4 + [False] * 2, [True] * 2 + [False] * 4])
        _ch, _cf, _cw = torch.randn(3, 8), torch.randn(3, 5), torch.randn(3, 6)
        _out = _dec(_tok, _h, _feed, _mem, _mask)
        _res = _grads(_dec, (_tok, _h, _feed, _mem, _mask), [_ch, _cf, _cw], _dec)
        _hr, _fr, _mr = (t.clone().requires_grad_(True) for t in (_h, _feed, _mem))
        _hn, _fn, _wn = _step(_emb, _gru, _Wc, _tok, _hr, _fr, _mr, _mask)
        ((_hn * _ch).sum() + (_fn * _cf).sum() + (_wn * _cw).sum()).backward()
        assert isinstance(_out, tuple) and len(_out) == 3 and _close(_out[0], _hn.detach()) and _close(_out[1], _fn.detach()), "forward must return (h_t, h~_t, weights), computed as in the other checks of this question"
        assert _res is not None, "the outputs carry no gradient: keep every step of forward differentiable (no .detach(), .data or numpy)"
        _params, _ins = _res
        assert _close(_ins[0], _hr.grad), "the gradient with respect to the previous state h_{t-1} is wrong or missing: don't detach h (or use .data) in the recurrence, or training cannot learn across time steps"
        assert _close(_ins[1], _fr.grad), "the gradient with respect to the fed vector h~_{t-1} is wrong or missing: input feeding must stay differentiable (no .detach() or .data)"
        assert _close(_ins[2], _mr.grad), "the gradient with respect to the memory (the encoder's outputs) is wrong or missing: don't detach the memory or the context, or the encoder could never be trained"
        for _name, _p in [("embedding.weight", _emb.weight), ("W_c.weight", _Wc.weight), *(("rnn." + _n, _p) for _n, _p in _gru.named_parameters())]:
            assert _close(_params.get(_name), _p.grad), f"no (or a wrong) gradient reaches {_name}: keep every step of forward differentiable (no .detach(), .data or numpy)"


def q5_decoder_4(nb):
    _train_numbers = nb.standin("_train_numbers")
    with nb.sandbox.swap("attention", _REF_ATTENTION):        # your decoder is trained with a correct attention function
        _ = torch.manual_seed(6)
        _dec, _emb, _gru, _Wc = _decoder(nb, 11, 5, 8, 8)
        _ = _dec.eval()
        _args = (torch.tensor([2, 7, 4]), torch.randn(3, 8), torch.randn(3, 5), torch.randn(3, 6, 8), torch.tensor([[True] * 6, [True] * 4 + [False] * 2, [True] * 2 + [False] * 4]))
        _res = _dec(*_args)
        with torch.no_grad():
            _want = _step(_emb, _gru, _Wc, *_args)
        assert isinstance(_res, tuple) and len(_res) == 3 and all(isinstance(_r, torch.Tensor) and torch.allclose(_r, _x, atol=1e-5) for _r, _x in zip(_res, _want)), "one step of the decoder is wrong (see the other checks of this question), so it was not trained"
        # the step is right: now train a small model with it on number words (in the sandbox) and score its translations here
        _task = nb.seqcourse.number_words_task(n_train=6000, n_val=10, n_test=300, seed=1)["test"]
        _src, _tgt = list(_task["src"]), list(_task["tgt"])
        _t0 = nb.time.perf_counter()
        _hyp = _train_numbers(_src)
        assert isinstance(_hyp, list) and len(_hyp) == len(_tgt) and all(isinstance(h, list) for h in _hyp), "translating with the trained model did not give one token list per sentence"
        _exact = sum(list(h) == t.split() for h, t in zip(_hyp, _tgt)) / len(_tgt)
        assert _exact >= 0.97, f"after training a model with your decoder on number words for {nb.time.perf_counter() - _t0:.0f} s, only {_exact:.0%} of test numbers are translated exactly (a correct decoder: 99-100 %). Check that gradients flow through every step (input feeding, the recurrence, the memory)"


def q6_length_penalty_1(nb):
    _len = torch.tensor([1, 2, 7, 19, 40])
    for _alpha in (0.0, 0.6, 1.0, 1.7):
        _want = ((5.0 + _len.double()) / 6.0) ** _alpha
        _got = nb.length_penalty(_len, _alpha)
        assert isinstance(_got, torch.Tensor) and tuple(_got.shape) == (5,) and _got.is_floating_point(), f"alpha={_alpha}: a tensor of 5 integer lengths must give a floating-point tensor of 5 penalties, got {getattr(_got, 'shape', type(_got).__name__)}"
        assert torch.allclose(_got.double(), _want, atol=1e-5), f"alpha={_alpha}: got {[round(x, 4) for x in _got.double().tolist()]} for lengths {_len.tolist()}, expected {[round(x, 4) for x in _want.tolist()]}: lp = ((5 + |Y|) / 6) ** alpha, the whole fraction raised to alpha, dividing by 6 (true division, also for integer tensors)"
    _lenf = torch.tensor([[[3.0], [11.0]], [[1.0], [25.0]]])
    _got = nb.length_penalty(_lenf, 0.8)
    assert isinstance(_got, torch.Tensor) and tuple(_got.shape) == (2, 2, 1) and _got.is_floating_point() and torch.allclose(_got.double(), ((5.0 + _lenf.double()) / 6.0) ** 0.8, atol=1e-5), "a float tensor of lengths of shape (2, 2, 1) must give the penalties elementwise, of the same shape"
    _got = nb.length_penalty(torch.tensor(7), 0.6)
    assert isinstance(_got, torch.Tensor) and _got.dim() == 0 and _got.is_floating_point() and abs(float(_got) - 2.0 ** 0.6) < 1e-5, f"a 0-dimensional tensor length, torch.tensor(7), must give a 0-dimensional floating-point tensor ((12 / 6) ** 0.6 = {2.0 ** 0.6:.5f}), got {_got!r}: a tensor of any shape gives a tensor of its shape (a Python float only for an int)"


def q6_length_penalty_2(nb):
    for _n, _alpha in ((13, 0.6), (1, 0.0), (30, 0.0), (4, 1.7), (50, 1.0)):
        _got = nb.length_penalty(_n, _alpha)
        _want = ((5 + _n) / 6) ** _alpha
        assert isinstance(_got, float), f"length_penalty({_n}, {_alpha}) returned a {type(_got).__name__}: for an int length it must return a Python float (also for alpha = 0: 1.0, not the int 1; and not a tensor)"
        assert abs(_got - _want) < 1e-6 * max(1.0, _want), f"length_penalty({_n}, {_alpha}) = {_got}, expected ((5 + {_n}) / 6) ** {_alpha} = {_want:.6f}"


def q6_length_penalty_3(nb):
    _side_effects = nb.standin("_side_effects")
    _len = torch.tensor([2, 9, 4])
    _got = nb.length_penalty(_len, 0.6)
    assert isinstance(_got, torch.Tensor) and torch.allclose(_got.double(), ((5.0 + torch.tensor([2.0, 9.0, 4.0], dtype=torch.float64)) / 6.0) ** 0.6, atol=1e-5), "the penalties are wrong (see the other checks of this question), so the side effects could not be checked"
    _found = _side_effects(nb.length_penalty, (torch.tensor([2, 9, 4]), 0.6))
    assert not _found, f"length_penalty: {'; '.join(_found)}: don't change the caller's lengths (length += 5 changes a tensor in place); compute a new value (5 + length)"


def q7_beam_search_1(nb):
    _ShortIsBest = nb.standin("_ShortIsBest")
    with nb.sandbox.swap("length_penalty", _REF_LENGTH_PENALTY):   # your beam search is checked with a correct length penalty
        _h, _s = nb.beam_search(_ShortIsBest(), torch.zeros(2, 3, dtype=torch.long), torch.tensor([3, 3]), beam_size=3, max_len=6, alpha=0.6)
        assert _h == [[], []], f"got {_h}: the hypothesis that ended with <eos> at step 1 is the best one and must be returned. Finished hypotheses are set aside, not dropped"
        _want = float(torch.log_softmax(torch.tensor([0.0, 0.0, 0.0, 2.5, 2.0, 0.0, 0.0, 0.0], dtype=torch.float64), -1)[nb.EOS_ID])
        assert isinstance(_s, torch.Tensor) and tuple(_s.shape) == (2,) and torch.allclose(_s.double(), torch.tensor([_want, _want], dtype=torch.float64), atol=1e-4), f"the score of the empty translation must be log p(<eos>) / lp(1) = {_want:.4f}, got {_s.tolist() if isinstance(_s, torch.Tensor) else _s}"


def q7_beam_search_2(nb):
    _Designed = nb.standin("_Designed")
    with nb.sandbox.swap("length_penalty", _REF_LENGTH_PENALTY):   # your beam search is checked with a correct length penalty
        _one = torch.zeros(1, 3, dtype=torch.long), torch.tensor([3])
        _h, _ = nb.beam_search(_Designed({nb.SOS_ID: {nb.EOS_ID: 2.0, 4: 1.9, 5: 1.8}, 4: {6: 5.0}, 6: {6: 5.0}, 5: {nb.EOS_ID: 10.0}}), *_one, beam_size=2, max_len=5, alpha=2.0)
        assert _h == [[5]], f"got {_h}, expected [[5]]: at step 1 the top candidates are <eos>, 4, 5; <eos> is finished and the beam is refilled to β = 2 with 4 and 5 from the top 2β candidates. Then 5 -> <eos> finishes and wins with the length penalty lp(|Y|)"
        _h, _ = nb.beam_search(_Designed({nb.SOS_ID: {4: 2.0, 5: 1.0}, 4: {nb.EOS_ID: 3.0, 6: 2.9}, 5: {nb.EOS_ID: 3.0, 7: 2.9}, 6: {nb.EOS_ID: 10.0}, 7: {nb.EOS_ID: 10.0}}), *_one, beam_size=2, max_len=5, alpha=2.0)
        assert _h == [[4, 6]], f"got {_h}, expected [[4, 6]]: at step 2 the candidates are 4 <eos>, 4 6, 5 <eos>, 5 7 (best first). Only an <eos> of rank < β = 2 finishes; '5 <eos>' (rank 2) is dropped, so the sentence is not done yet and '4 6 <eos>' wins at step 3"
        _h, _ = nb.beam_search(_Designed({nb.SOS_ID: {4: 3.0, nb.EOS_ID: 2.0, 5: 1.0}, 4: {6: 3.0, nb.EOS_ID: 2.5}, 5: {nb.EOS_ID: 3.0}, 6: {nb.EOS_ID: 3.0}}), *_one, beam_size=2, max_len=2, alpha=0.0)
        assert _h == [[4, 6]], f"got {_h}, expected [[4, 6]]: with β = 2 and max_len = 2, '<eos>' finishes at step 1; at step 2 (the last) '4 <eos>' (rank 1) is the second finished hypothesis, and step 4 still finishes the new beam, whose '4 6' scores best. Step 6 says: the step that brings a sentence to β finished hypotheses \"still sets aside everything steps 3 and 4 finish in that step\""


def q7_beam_search_3(nb):
    _LocalToy = nb.here("_MarkovToy")   # here: the reference side (greedy search is computed with it)
    _MarkovToy = nb.standin("_MarkovToy")     # where your code runs: the model your beam search calls
    _Designed = nb.standin("_Designed")
    with nb.sandbox.swap("length_penalty", _REF_LENGTH_PENALTY):   # your beam search is checked with a correct length penalty
        _one = torch.zeros(1, 3, dtype=torch.long), torch.tensor([3])
        _h, _ = nb.beam_search(_Designed({nb.SOS_ID: {4: 2.0, nb.EOS_ID: 1.9}, 4: {6: 5.0}, 6: {6: 5.0}}), *_one, beam_size=1, max_len=5, alpha=0.6)
        assert _h == [[4, 6, 6, 6, 6]], f"beam_size=1 gave {_h}, greedy gives [[4, 6, 6, 6, 6]] (<eos> second best at step 1): with β = 1 beam search must equal greedy search"
        _src, _len = nb.here("_batch")([2, 5, 3, 4, 2, 6])
        _g, _ = nb.seqcourse.greedy_search(_LocalToy(6, 9, seed=3, eos_bias=0.8), _src, _len, max_len=7)
        _b, _ = nb.beam_search(_MarkovToy(6, 9, seed=3, eos_bias=0.8), _src, _len, beam_size=1, max_len=7, alpha=1.0)
        assert _b == _g, f"beam_size=1 gave {_b}, greedy gave {_g}: with β = 1 only an <eos> of rank 0 may finish a hypothesis, and the beam continues with the best other token"


def q7_beam_search_4(nb):
    with nb.sandbox.swap("length_penalty", _REF_LENGTH_PENALTY):   # your beam search is checked with a correct length penalty
        _parity(nb, [(10, ([3, 5, 2, 4], 9, 3, 7, 0.6, 0.5)), (11, ([4, 2, 6], 12, 5, 8, 1.0, 0.5))])


def q7_beam_search_5(nb):
    with nb.sandbox.swap("length_penalty", _REF_LENGTH_PENALTY):   # your beam search is checked with a correct length penalty
        _parity(nb, [(12, ([2, 7, 3, 5, 4], 8, 2, 6, 0.0, 0.0)), (13, ([6, 3], 10, 4, 9, 2.0, 1.0))])


def q7_beam_search_6(nb):
    _Designed = nb.standin("_Designed")
    with nb.sandbox.swap("length_penalty", _REF_LENGTH_PENALTY):   # your beam search is checked with a correct length penalty
        _h, _s = nb.beam_search(_Designed({nb.SOS_ID: {4: 3.0, nb.EOS_ID: -30.0}, 4: {4: 3.0, nb.EOS_ID: -30.0}}), torch.zeros(1, 3, dtype=torch.long), torch.tensor([3]), beam_size=2, max_len=4, alpha=0.6)
        assert _h == [[4, 4, 4, 4]], f"with a model that (almost) never ends a sentence and max_len=4, got {_h}, expected [[4, 4, 4, 4]]: use the max_len argument (at t = max_len the hypotheses of the beam are finished)"
        _parity(nb, [(14, ([5, 2, 4], 9, 3, 6, 1.5, 0.0))])


def q7_beam_search_7(nb):
    _LocalToy = nb.here("_MarkovToy")   # here: the reference side (greedy search is computed with it)
    _MarkovToy = nb.standin("_MarkovToy")     # where your code runs: the model your beam search calls
    with nb.sandbox.swap("length_penalty", _REF_LENGTH_PENALTY):   # your beam search is checked with a correct length penalty
        _src, _len = nb.here("_batch")([4])
        _want_h, _want_s = _ref_beam(nb, _LocalToy(1, 9, seed=15, eos_bias=-0.5), _src, _len, 3, 6, 0.6)
        _res = nb.beam_search(_MarkovToy(1, 9, seed=15, eos_bias=-0.5), _src, _len, beam_size=3, max_len=6, alpha=0.6)
        assert isinstance(_res, tuple) and len(_res) == 2, "beam_search must return (hyps, scores)"
        _h, _s = _res
        assert isinstance(_h, list) and len(_h) == 1 and all(isinstance(x, list) and all(type(w) is int for w in x) for x in _h), f"hyps must be a list of B lists of Python ints (use .tolist(), not lists of tensors), got {_h}"
        assert isinstance(_s, torch.Tensor) and tuple(_s.shape) == (1,) and _s.is_floating_point(), f"with one sentence the scores must be a floating-point tensor of shape (1,), got {getattr(_s, 'shape', type(_s).__name__)}"
        assert _h == _want_h and torch.allclose(_s.double(), _want_s, atol=1e-4), f"one sentence (B = 1): got {_h} with scores {_s.tolist()}, expected {_want_h} with {_want_s.tolist()}"


def q7_beam_search_8(nb):
    _beam_on_device = nb.standin("_beam_on_device")
    _src, _len = nb.here("_batch")([4, 2, 5])
    _want_h, _ = _ref_beam(nb, nb.here("_MarkovToy")(3, 9, seed=16), _src, _len, 3, 6, 0.6)
    with nb.sandbox.swap("length_penalty", _REF_LENGTH_PENALTY):   # your beam search is checked with a correct length penalty
        _problem, _res = _beam_on_device(_src, _len, 16)
    assert _problem is None, f"with the model and the batch on a GPU, beam_search fails ({_problem}): the tokens, scores and row indices it feeds back to the model (model.step, index_select of the state) must be on src.device (.to(device))"
    assert isinstance(_res, tuple) and len(_res) == 2 and _res[0] == _want_h, f"on a GPU beam search found {_res[0] if isinstance(_res, tuple) else _res}, expected {_want_h}. " + _HINT


def q7_beam_search_9(nb):
    # 200-token outputs: log p(Y|x) about -165, so p(Y|x) underflows to 0 in float32 (smallest float32 about 1e-45)
    _LocalToy = nb.here("_MarkovToy")   # here: the reference side
    _MarkovToy = nb.standin("_MarkovToy")     # where your code runs: the model your beam search calls
    _src, _len = nb.here("_batch")([3, 5])
    _want_h, _want_s = _ref_beam(nb, _LocalToy(2, 40, seed=17, eos_bias=-6.0), _src, _len, 3, 200, 0.6)
    with nb.sandbox.swap("length_penalty", _REF_LENGTH_PENALTY):   # your beam search is checked with a correct length penalty
        _h, _s = nb.beam_search(_MarkovToy(2, 40, seed=17, eos_bias=-6.0), _src, _len, beam_size=3, max_len=200, alpha=0.6)
    _p = _float64_problem(_s, _want_s, rtol=1e-4, atol=1e-3) if _h == _want_h else f"other hypotheses than expected (first tokens {[h[:5] for h in _h]}, expected {[h[:5] for h in _want_h]})"
    assert _p is None, f"with 200-token outputs (log p(Y|x) about -165) beam search goes wrong: {_p}. Add log-probabilities (scores + log_probs): a product of probabilities underflows to 0 after about a hundred tokens and every candidate ties"
