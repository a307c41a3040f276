"""Hidden checks of notebook 04_transformer: each case is a function of ``nb``, the submitted notebook as the
grader sees it (``grader.checks.Notebook``: its names as data or handles into the sandbox, ``nb.sandbox``,
``nb.standin(name)`` for a definition of ``standins.py`` executed where the notebook runs, and the static
``nb.uses``/``nb.rule``). The master's hidden test cells call them; they run on the trusted side only."""

from __future__ import annotations

import math

import torch
import torch.nn as nn
import torch.nn.functional as F
from seqcourse.testing import as_notebook_state as _as_notebook

_REF_SDPA = '''
def scaled_dot_product_attention(q, k, v, mask=None):
    import torch
    scores = q @ k.transpose(-2, -1) / q.size(-1) ** 0.5
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    return weights @ v, weights
'''
# the master's answers to questions 2 and 5 with the notebook's interface (parameter names, split_heads, merge_heads,
# the last weights in self.weights), attention computed as question 1's: what later questions' checks run on where
# that question failed (grader/checks.py, StandIns); no check here uses them
_REF_MHA = '''
class MultiHeadAttention(nn.Module):
    def __init__(self, d_model, n_heads):
        super().__init__()
        assert d_model % n_heads == 0, "d_model must be a multiple of n_heads"
        self.h, self.d_k = n_heads, d_model // n_heads
        self.W_q = nn.Linear(d_model, d_model)
        self.W_k = nn.Linear(d_model, d_model)
        self.W_v = nn.Linear(d_model, d_model)
        self.W_o = nn.Linear(d_model, d_model)
        self.weights = None
    def split_heads(self, x):
        B, L, _ = x.shape
        return x.view(B, L, self.h, self.d_k).transpose(1, 2)
    def merge_heads(self, x):
        B, _, L, _ = x.shape
        return x.transpose(1, 2).reshape(B, L, self.h * self.d_k)
    def forward(self, query, key, value, mask=None):
        q, k, v = self.split_heads(self.W_q(query)), self.split_heads(self.W_k(key)), self.split_heads(self.W_v(value))
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
        if mask is not None:
            scores = scores.masked_fill(~mask, float("-inf"))
        self.weights = torch.softmax(scores, dim=-1)
        return self.W_o(self.merge_heads(self.weights @ v))
'''
_REF_FF = '''
class FeedForward(nn.Module):
    def __init__(self, d_model, d_ff):
        super().__init__()
        self.linear1 = nn.Linear(d_model, d_ff)
        self.linear2 = nn.Linear(d_ff, d_model)
    def forward(self, x):
        return self.linear2(F.relu(self.linear1(x)))
'''


def _mha_state(ref):
    # torch.nn.MultiheadAttention's parameters under the notebook's names
    W, b = ref.in_proj_weight.detach().chunk(3), ref.in_proj_bias.detach().chunk(3)
    return {"W_q.weight": W[0], "W_k.weight": W[1], "W_v.weight": W[2], "W_q.bias": b[0], "W_k.bias": b[1], "W_v.bias": b[2],
            "W_o.weight": ref.out_proj.weight.detach(), "W_o.bias": ref.out_proj.bias.detach()}


def _attend(x, mask):
    w = torch.softmax((x @ x.transpose(-2, -1) / math.sqrt(8)).masked_fill(~mask, float("-inf")), -1)
    return w @ x


def _enc_ref(d, h, d_ff, seed):
    # a torch pre-LN encoder layer with distinct random biases and norms
    _ = torch.manual_seed(seed)
    ref = nn.TransformerEncoderLayer(d, h, d_ff, dropout=0.0, batch_first=True, norm_first=True).eval()
    with torch.no_grad():
        for p in ref.parameters():
            if p.dim() == 1:
                _ = p.copy_(torch.randn_like(p))     # distinct norms: using norm1 twice would not go unnoticed
    return ref


def _enc_layer(nb, ref, d, h, d_ff, dropout=0.0):
    # your EncoderLayer with a correct attention (this checks your layer, not question 2) and ref's weights
    layer = nb.EncoderLayer(d, h, d_ff, dropout=dropout)
    layer.self_attn = nb.standin("_RefMHA")(d, h)
    _ = layer.load_state_dict(_as_notebook(ref, [("self_attn", "self_attn")]), strict=False)
    return layer


def _dec_ref(d, h, d_ff, seed):
    # a torch pre-LN decoder layer with distinct random biases and norms
    _ = torch.manual_seed(seed)
    ref = nn.TransformerDecoderLayer(d, h, d_ff, dropout=0.0, batch_first=True, norm_first=True).eval()
    with torch.no_grad():
        for p in ref.parameters():
            if p.dim() == 1:
                _ = p.copy_(torch.randn_like(p))     # distinct norms: reusing one would not go unnoticed
    return ref


def _dec_layer(nb, ref, d, h, d_ff, dropout=0.0):
    # your DecoderLayer with correct sublayers (this checks your layer, not questions 2 and 5) and ref's weights
    layer = nb.DecoderLayer(d, h, d_ff, dropout=dropout)
    layer.self_attn, layer.cross_attn, layer.ff = nb.standin("_RefMHA")(d, h), nb.standin("_RefMHA")(d, h), nb.standin("_RefFF")(d, d_ff)
    _ = layer.load_state_dict(_as_notebook(ref, [("self_attn", "self_attn"), ("cross_attn", "multihead_attn")]), strict=False)
    return layer


def _causal_mha(s, x, h):
    # Causal self-attention over a whole sequence with the weights s (notebook names), the way training computes it.
    B, T, d = x.shape
    def heads(n):
        return F.linear(x, s[f"W_{n}.weight"], s[f"W_{n}.bias"]).view(B, T, h, d // h).transpose(1, 2)
    q, k, v = heads("q"), heads("k"), heads("v")
    out = F.scaled_dot_product_attention(q, k, v, is_causal=True).transpose(1, 2).reshape(B, T, d)
    return F.linear(out, s["W_o.weight"], s["W_o.bias"]), k, v


def _one_step(s, x, past_k, past_v, h):
    # the reference step: the new position (N, 1, d) attends to past_k, past_v and its own key and value
    N, _, d = x.shape
    def heads(n):
        return F.linear(x, s[f"W_{n}.weight"], s[f"W_{n}.bias"]).view(N, 1, h, d // h).transpose(1, 2)
    k, v = torch.cat([past_k, heads("k")], 2), torch.cat([past_v, heads("v")], 2)
    w = torch.softmax(heads("q") @ k.transpose(-2, -1) / math.sqrt(d // h), -1)
    out = (w @ v).transpose(1, 2).reshape(N, 1, d)
    return F.linear(out, s["W_o.weight"], s["W_o.bias"]), k, v, w


def _dropped_or_scaled(added, want, p):
    # dropout(sublayer output) in training mode: each entry 0 or the output / (1 - p), whatever the random draws
    return torch.allclose(torch.where(added != 0, added, want / (1 - p)), want / (1 - p), atol=1e-4)


def _state(d, scale):
    return {f"W_{n}.{p}": torch.randn(d, d) * scale if p == "weight" else torch.randn(d) * scale for n in "qkvo" for p in ("weight", "bias")}


def q1_sdpa_1(nb):
    nb.rule("scaled_dot_product_attention", "scaled_dot_product_attention", "MultiheadAttention", "multi_head_attention_forward",
            says="the question asks for the attention itself (scores, mask, softmax, weighted sum), not F.scaled_dot_product_attention or torch.nn.MultiheadAttention")
    _ = torch.manual_seed(1)
    _q, _k, _v = torch.randn(3, 2, 5, 16) * 2, torch.randn(3, 2, 6, 16) * 2, torch.randn(3, 2, 6, 8)
    _out, _w = nb.scaled_dot_product_attention(_q, _k, _v)
    _want = F.scaled_dot_product_attention(_q, _k, _v)
    _raw = torch.softmax(_q @ _k.transpose(-2, -1), -1) @ _v
    assert not torch.allclose(_out, _raw, atol=1e-4), "the scores are not scaled: divide q k^T by sqrt(d_k) (missing 1/sqrt(d_k))"
    assert torch.allclose(_out, _want, atol=1e-5), "the output differs from torch.nn.functional.scaled_dot_product_attention: softmax(q k^T / sqrt(d_k)) v, with d_k = q.size(-1) (the key width, not d_v and not the length), softmax over the keys (dim=-1)"
    assert torch.allclose(_w @ _v, _out, atol=1e-5), "output must equal weights @ v"
    assert torch.allclose(_w, torch.softmax(_q @ _k.transpose(-2, -1) / 4.0, -1), atol=1e-5), "the weights must be softmax(q k^T / sqrt(d_k)) over the keys"


def q1_sdpa_2(nb):
    _ = torch.manual_seed(2)
    _q, _k, _v = torch.randn(2, 3, 4, 8), torch.randn(2, 3, 5, 8), torch.randn(2, 3, 5, 8)
    _mask = torch.tensor([[True, True, True, False, False], [True, True, True, True, False]])[:, None, None, :]   # (B, 1, 1, S)
    _out, _w = nb.scaled_dot_product_attention(_q, _k, _v, _mask)
    assert torch.allclose(_w.sum(-1), torch.ones(2, 3, 4), atol=1e-5), "with a mask, rows must still sum to 1: fill masked SCORES with -inf before the softmax (do not zero weights after it)"
    assert bool((_w.masked_select(~_mask.expand_as(_w)) == 0).all()), "masked keys (mask False) must get weight exactly 0: masked_fill(~mask, -inf) on the scores (mask True = may attend; not inverted)"
    assert torch.allclose(_out, F.scaled_dot_product_attention(_q, _k, _v, attn_mask=_mask), atol=1e-5), "with a mask, the output differs from torch's scaled_dot_product_attention(q, k, v, attn_mask=mask)"
    _causal = torch.ones(4, 4, dtype=torch.bool).tril()
    _q4 = torch.randn(2, 4, 8)
    _out, _w = nb.scaled_dot_product_attention(_q4, _q4, _q4, _causal)
    assert torch.allclose(_out, F.scaled_dot_product_attention(_q4, _q4, _q4, attn_mask=_causal), atol=1e-5), "a (T, S) mask must broadcast over the batch: the output differs from torch's with the same mask"


def q1_sdpa_3(nb):
    _grads = nb.standin("_grads")
    _ = torch.manual_seed(9)
    _q, _k, _v = torch.randn(2, 2, 4, 8), torch.randn(2, 2, 6, 8), torch.randn(2, 2, 6, 5)
    _mask = torch.tensor([[True] * 6, [True] * 4 + [False] * 2])[:, None, None, :]
    _g_out, _g_w = torch.randn(2, 2, 4, 5), torch.randn(2, 2, 4, 6)
    _got = _grads(nb.scaled_dot_product_attention, (_q, _k, _v, _mask), [_g_out, _g_w])
    _lq, _lk, _lv = (_t.clone().requires_grad_(True) for _t in (_q, _k, _v))
    _lw = torch.softmax((_lq @ _lk.transpose(-2, -1) / math.sqrt(8)).masked_fill(~_mask, float("-inf")), -1)
    _ = (((_lw @ _lv) * _g_out).sum() + (_lw * _g_w).sum()).backward()
    assert _got is not None and all(_g is not None for _g in _got[1]), "no gradient reaches q, k or v through your attention: keep the computation in the autograd graph (no .detach(), .data, .item() or torch.no_grad())"
    assert all(torch.allclose(_g, _r.grad, atol=1e-5) for _g, _r in zip(_got[1], (_lq, _lk, _lv))), "the gradients with respect to q, k and v differ from those of softmax(q k^T / sqrt(d_k)) v: keep the scores and weights in the autograd graph (do not detach them or use .data)"


def q1_sdpa_4(nb):
    _ = torch.manual_seed(13)
    _q, _k, _v = torch.randn(3, 6), torch.randn(5, 6), torch.randn(5, 2)
    try:
        _out, _w = nb.scaled_dot_product_attention(_q, _k, _v)
    except Exception as _e:
        raise AssertionError(f"with no leading dimension, q (T, d_k) = (3, 6), k (5, 6), v (5, 2), your code raised {_e}: the function must accept any leading dimensions, also none (use k.transpose(-2, -1), not fixed axes)")
    assert tuple(_out.shape) == (3, 2) and tuple(_w.shape) == (3, 5), f"with q (3, 6), k (5, 6), v (5, 2) the output must be (3, 2) and the weights (3, 5), got {tuple(_out.shape)} and {tuple(_w.shape)}"
    assert torch.allclose(_out, F.scaled_dot_product_attention(_q[None], _k[None], _v[None])[0], atol=1e-5), "with q (T, d_k), k (S, d_k), v (S, d_v) and T != S, d_k != d_v, the output differs from torch's scaled_dot_product_attention: scale by sqrt(d_k) = sqrt(q.size(-1))"
    _q, _k, _v = torch.randn(1, 1, 1, 12), torch.randn(1, 1, 4, 12), torch.randn(1, 1, 4, 3)
    _mask = torch.tensor([True, False, True, True])
    _out, _w = nb.scaled_dot_product_attention(_q, _k, _v, _mask)
    assert tuple(_out.shape) == (1, 1, 1, 3) and tuple(_w.shape) == (1, 1, 1, 4), f"with a batch of 1, one head and one query the output must be (1, 1, 1, 3) and the weights (1, 1, 1, 4), got {tuple(_out.shape)} and {tuple(_w.shape)} (squeeze() without a dim removes them)"
    assert torch.allclose(_out, F.scaled_dot_product_attention(_q, _k, _v, attn_mask=_mask[None]), atol=1e-5), "with a batch of 1, one query and a mask of shape (S,), the output differs from torch's scaled_dot_product_attention"
    _q, _k, _v = torch.randn(2, 2, 4, 8) * 40, torch.randn(2, 2, 5, 8) * 40, torch.randn(2, 2, 5, 3)
    _mask = torch.tensor([[True] * 5, [True, True, False, True, False]])[:, None, None, :]
    _out, _w = nb.scaled_dot_product_attention(_q, _k, _v, _mask)
    assert bool(torch.isfinite(_out).all()) and bool(torch.isfinite(_w).all()), "scores of large magnitude give inf or NaN: use torch.softmax (or subtract each row's maximum before exp), and fill masked scores with -inf (or the dtype's minimum), not a finite number added to them"
    assert torch.allclose(_out, F.scaled_dot_product_attention(_q, _k, _v, attn_mask=_mask), atol=1e-4, rtol=1e-4), "with scores of large magnitude and a mask, the output differs from torch's scaled_dot_product_attention: compute the softmax stably (torch.softmax)"
    # every allowed score near -20,000: a masked score becomes -inf (section 1), so it gets weight 0 whatever the others are
    _q = torch.full((2, 4), 100.0)
    _k = torch.tensor([[-100.0] * 4, [1.0, 0.0, 0.0, 0.0], [-100.001] * 4, [0.0] * 4])
    _mask = torch.tensor([True, False, True, False])
    _out, _w = nb.scaled_dot_product_attention(_q, _k, torch.randn(4, 3), _mask)
    assert tuple(_w.shape) == (2, 4) and bool((_w[:, ~_mask] == 0).all()) and torch.allclose(_w.sum(-1), torch.ones(2), atol=1e-5), f"with every allowed score near -20,000 the masked keys got weights {_w[:, ~_mask].tolist()}: fill masked scores with -inf (or the dtype's minimum), which gets weight exactly 0 whatever the other scores; a finite fill such as -1e4 wins over scores below it"


def q1_sdpa_5(nb):
    _device_problem = nb.standin("_device_problem")
    _side_effects = nb.standin("_side_effects")
    _ = torch.manual_seed(14)
    _q, _k, _v = torch.randn(2, 2, 3, 4), torch.randn(2, 2, 5, 4), torch.randn(2, 2, 5, 6)
    _mask = torch.tensor([[True] * 5, [True] * 3 + [False] * 2])[:, None, None, :]
    _out, _w = nb.scaled_dot_product_attention(_q, _k, _v, _mask)
    assert torch.allclose(_out, F.scaled_dot_product_attention(_q, _k, _v, attn_mask=_mask), atol=1e-5), "the output differs from torch's scaled_dot_product_attention (this check of side effects and devices needs the right values first)"
    _found = _side_effects(nb.scaled_dot_product_attention, (_q, _k, _v, _mask), None, True)
    assert not _found, f"scaled_dot_product_attention has side effects: {'; '.join(_found)}. It must not change q, k, v or the mask in place (no q /= ..., q.div_(...), masked_fill_ on an argument) and needs no random numbers"
    _problem = _device_problem(nb.scaled_dot_product_attention, (_q, _k, _v, _mask))
    assert _problem is None, f"with q, k, v and the mask on another device than the CPU, your attention fails or answers on the CPU ({_problem}): a tensor created without device= (torch.full(...), torch.tensor(...)) stays on the CPU; use masked_fill with a Python number, or torch.full_like / device=scores.device"


def q2_mha_1(nb):
    nb.rule("MultiHeadAttention", "MultiheadAttention", "multi_head_attention_forward",
            says="the question asks for the heads yourself (projections, split, your attention, merge), not torch.nn.MultiheadAttention")
    _mha = nb.MultiHeadAttention(12, 3)
    _x = torch.arange(2 * 5 * 12, dtype=torch.float32).view(2, 5, 12)
    _heads = _mha.split_heads(_x)
    assert torch.equal(_heads[1, 2, 3], _x[1, 3, 8:12]), "split_heads: head i of position t must hold features i*d_k ... (i+1)*d_k - 1 of position t: view(B, n, n_h, d_k) then transpose(1, 2), not a plain view(B, n_h, n, d_k) (heads split along the wrong axis)"
    assert torch.equal(_mha.merge_heads(_heads), _x), "merge_heads must undo split_heads: transpose(1, 2) back to (B, n, n_h, d_k) before reshaping to (B, n, d_model)"
    _x1 = torch.randn(1, 1, 12)
    _h1 = _mha.split_heads(_x1)
    assert tuple(_h1.shape) == (1, 3, 1, 4), f"with a batch of 1 and one position, split_heads must give (1, n_h, 1, d_k) = (1, 3, 1, 4), got {tuple(_h1.shape)} (squeeze() without a dim removes those axes)"
    assert torch.equal(_mha.merge_heads(_h1), _x1), "with a batch of 1 and one position, merge_heads(split_heads(x)) must give x back, (1, 1, d_model) (squeeze() without a dim removes those axes)"


def q2_mha_2(nb):
    with nb.sandbox.swap("scaled_dot_product_attention", _REF_SDPA):   # your code is checked with a correct attention
        _ = torch.manual_seed(3)
        _ref = nn.MultiheadAttention(24, 4, batch_first=True).eval()   # d_k = 6
        with torch.no_grad():
            for _p in _ref.parameters():
                if _p.dim() == 1:
                    _ = _p.copy_(torch.randn_like(_p) * 0.5)     # biases too
        _mha = nb.MultiHeadAttention(24, 4).eval()
        _ = _mha.load_state_dict(_mha_state(_ref), strict=False)
        _q, _k, _v = torch.randn(3, 5, 24), torch.randn(3, 7, 24), torch.randn(3, 7, 24)
        _real = torch.tensor([[True] * 7, [True] * 5 + [False] * 2, [True] * 2 + [False] * 5])
        _got = _mha(_q, _k, _v, _real[:, None, None, :])
        with torch.no_grad():
            _want, _want_w = _ref(_q, _k, _v, key_padding_mask=~_real, need_weights=True, average_attn_weights=False)
            _unmasked, _ = _ref(_q, _k, _v)
        assert tuple(_got.shape) == (3, 5, 24), f"with T = 5 queries and S = 7 keys, forward must return (B, T, d_model) = (3, 5, 24), got {tuple(_got.shape)}"
        assert not torch.allclose(_got, _unmasked, atol=1e-4), "the padding mask had no effect on the output: pass the mask on to the attention"
        assert torch.allclose(_got, _want, atol=1e-5), "the output differs from torch.nn.MultiheadAttention with the same weights (d_model = 24, 4 heads, T != S): queries from W_q(query), keys from W_k(key), values from W_v(value), split into heads, attention, merge, then W_o"
        assert _mha.weights is not None and torch.allclose(_mha.weights, _want_w, atol=1e-5), "self.weights must hold the attention weights of every head, (B, n_h, T, S)"


def q2_mha_3(nb):
    with nb.sandbox.swap("scaled_dot_product_attention", _REF_SDPA):   # your code is checked with a correct attention
        _ = torch.manual_seed(15)
        _ref = nn.MultiheadAttention(20, 5, batch_first=True).eval()   # d_k = 4
        with torch.no_grad():
            for _p in _ref.parameters():
                if _p.dim() == 1:
                    _ = _p.copy_(torch.randn_like(_p) * 0.5)
        _mha = nb.MultiHeadAttention(20, 5).eval()
        _ = _mha.load_state_dict(_mha_state(_ref), strict=False)
        _x = torch.randn(2, 5, 20)
        _causal = torch.ones(5, 5, dtype=torch.bool).tril()
        _got = _mha(_x, _x, _x, _causal)
        with torch.no_grad():
            _want, _ = _ref(_x, _x, _x, attn_mask=~_causal)
            _free, _ = _ref(_x, _x, _x)
        assert torch.allclose(_got, _want, atol=1e-5), "self-attention with a (T, T) causal mask differs from torch.nn.MultiheadAttention: pass the mask on to the attention"
        assert torch.allclose(_mha(_x, _x, _x), _free, atol=1e-5), "without a mask (mask=None) self-attention differs from torch.nn.MultiheadAttention"
        _real = torch.tensor([[True] * 5, [True] * 3 + [False] * 2])
        _both = _real[:, None, None, :] & _causal                       # (B, 1, T, T)
        with torch.no_grad():
            _want, _ = _ref(_x, _x, _x, attn_mask=~_causal, key_padding_mask=~_real)
        assert torch.allclose(_mha(_x, _x, _x, _both)[_real], _want[_real], atol=1e-5), "with a (B, 1, T, T) mask (padding & causal) the output differs from torch.nn.MultiheadAttention: pass the mask on as it is, it broadcasts over the heads"
        _x1, _m1 = torch.randn(1, 1, 20), torch.randn(1, 3, 20)
        with torch.no_grad():
            _want, _ = _ref(_x1, _m1, _m1)
        _got = _mha(_x1, _m1, _m1)
        assert tuple(_got.shape) == (1, 1, 20) and torch.allclose(_got, _want, atol=1e-5), "with a batch of 1 and one query (as in decoding) the output must be (1, 1, d_model) and equal torch.nn.MultiheadAttention's (squeeze() without a dim removes the batch axis)"


def q2_mha_4(nb):
    _grads = nb.standin("_grads")
    with nb.sandbox.swap("scaled_dot_product_attention", _REF_SDPA):   # your code is checked with a correct attention
        _ = torch.manual_seed(10)
        _ref = nn.MultiheadAttention(24, 4, batch_first=True)
        with torch.no_grad():
            for _p in _ref.parameters():
                if _p.dim() == 1:
                    _ = _p.copy_(torch.randn_like(_p) * 0.5)
        _mha = nb.MultiHeadAttention(24, 4)
        _ = _mha.load_state_dict(_mha_state(_ref), strict=False)
        _q, _k, _v, _g = torch.randn(3, 5, 24), torch.randn(3, 6, 24), torch.randn(3, 6, 24), torch.randn(3, 5, 24)
        _real = torch.tensor([[True] * 6, [True] * 4 + [False] * 2, [True] * 2 + [False] * 4])
        _got = _grads(_mha, (_q, _k, _v, _real[:, None, None, :]), [_g], _mha)
        _lq, _lk, _lv = (_t.clone().requires_grad_(True) for _t in (_q, _k, _v))
        _want, _ = _ref(_lq, _lk, _lv, key_padding_mask=~_real)
        _ = (_want * _g).sum().backward()
        _gW, _gb = _ref.in_proj_weight.grad.chunk(3), _ref.in_proj_bias.grad.chunk(3)
        _want_params = {"W_q.weight": _gW[0], "W_k.weight": _gW[1], "W_v.weight": _gW[2], "W_q.bias": _gb[0], "W_k.bias": _gb[1], "W_v.bias": _gb[2],
                        "W_o.weight": _ref.out_proj.weight.grad, "W_o.bias": _ref.out_proj.bias.grad}
        assert _got is not None and all(_i is not None for _i in _got[1]), "no gradient reaches the query, key or value inputs: keep the computation in the autograd graph (no .detach(), .data or torch.no_grad() in split_heads, merge_heads or forward)"
        _missing = [_n for _n in _want_params if _got[0].get(_n) is None]
        assert not _missing, f"no gradient reaches {_missing}: keep every projection in the autograd graph (no .detach(), .data or torch.no_grad())"
        assert all(torch.allclose(_i, _r.grad, atol=1e-4) for _i, _r in zip(_got[1], (_lq, _lk, _lv))), "the gradients with respect to query, key and value differ from torch.nn.MultiheadAttention's with the same weights: keep the computation in the autograd graph (no .detach() or .data)"
        _wrong = [_n for _n, _t in _want_params.items() if not torch.allclose(_got[0][_n], _t, atol=1e-4)]
        assert not _wrong, f"the gradients of {_wrong} differ from torch.nn.MultiheadAttention's with the same weights: keep the computation in the autograd graph (no .detach() or .data)"


def q2_mha_5(nb):
    _device_problem = nb.standin("_device_problem")
    _side_effects = nb.standin("_side_effects")
    with nb.sandbox.swap("scaled_dot_product_attention", _REF_SDPA):   # your code is checked with a correct attention
        _ = torch.manual_seed(16)
        _ref = nn.MultiheadAttention(12, 3, batch_first=True).eval()
        _mha = nb.MultiHeadAttention(12, 3)
        _ = _mha.load_state_dict(_mha_state(_ref), strict=False)
        _x, _mem = torch.randn(2, 4, 12), torch.randn(2, 5, 12)
        _real = torch.tensor([[True] * 5, [True] * 3 + [False] * 2])
        with torch.no_grad():
            _want, _ = _ref(_x, _mem, _mem, key_padding_mask=~_real)
        assert torch.allclose(_mha(_x, _mem, _mem, _real[:, None, None, :]), _want, atol=1e-5), "the output differs from torch.nn.MultiheadAttention with the same weights (this check of side effects and devices needs the right values first)"
        _found = _side_effects(_mha, (_x, _mem, _mem, _real[:, None, None, :]), _mha, True) + _side_effects(_mha, (_x, _x, _x, None), _mha, True)
        assert not _found, f"forward has side effects: {'; '.join(_found)}. It must not change its inputs or parameters in place, switch train()/eval(), or draw random numbers"
        _fresh = nb.MultiHeadAttention(12, 3)
        _problem = _device_problem(_fresh, (_x, _mem, _mem, _real[:, None, None, :]), _fresh)
        _fresh = nb.MultiHeadAttention(12, 3)
        _problem = _problem or _device_problem(_fresh, (_x, _x, _x, None), _fresh)
        assert _problem is None, f"with the module and its inputs on another device than the CPU, forward fails or answers on the CPU ({_problem}): create every tensor (a default mask, ...) on the inputs' device (device=query.device)"


def q3_masks_1(nb):
    _tokens = torch.tensor([[5, 6, 7, 8], [9, 10, nb.PAD_ID, nb.PAD_ID], [11, nb.PAD_ID, nb.PAD_ID, nb.PAD_ID]])
    _pm = nb.padding_mask(_tokens)
    assert tuple(_pm.shape) == (3, 1, 1, 4), f"the padding mask must hide KEYS: shape (B, 1, 1, S), got {tuple(_pm.shape)} (a (B, 1, S, 1) mask would hide padded queries instead - pad mask on queries)"
    assert torch.equal(_pm[:, 0, 0], _tokens != nb.PAD_ID), "padding_mask must be True at real tokens and False at <pad> (not inverted)"
    _cm = nb.causal_mask(5)
    assert bool(_cm[3, 3]), "position t must see itself: causal_mask[t, t] must be True (off by one: the diagonal is allowed)"
    assert not bool(_cm[2, 3]), "position 2 sees position 3 (the future): rows are queries, columns keys; allow s <= t only (lower triangle, not upper: transposed mask?)"
    assert bool(_cm[3, 0]), "position 3 must see position 0: allow every s <= t"
    assert torch.equal(_cm, torch.tensor([[s <= t for s in range(5)] for t in range(5)])), "causal_mask[t, s] must be True exactly when s <= t"
    _pm1 = nb.padding_mask(torch.tensor([[4, 5, nb.PAD_ID]]))
    assert tuple(_pm1.shape) == (1, 1, 1, 3) and _pm1.flatten().tolist() == [True, True, False], f"with a batch of 1, padding_mask must be (1, 1, 1, S) = (1, 1, 1, 3), True at the real tokens, got {tuple(_pm1.shape)} (squeeze() without a dim removes the batch axis)"
    assert tuple(nb.padding_mask(torch.tensor([[7]])).shape) == (1, 1, 1, 1), "padding_mask of a single one-token sentence must be (1, 1, 1, 1)"
    assert nb.causal_mask(1).tolist() == [[True]] and nb.causal_mask(1).dtype == torch.bool, "causal_mask(1) must be [[True]] (bool): one position sees itself"
    assert nb.causal_mask(6).dtype == torch.bool and tuple(nb.causal_mask(6).shape) == (6, 6), "causal_mask(size) must be a (size, size) bool tensor"


def q3_masks_2(nb):
    _ = torch.manual_seed(4)
    _x = torch.randn(1, 6, 8)
    _base = _attend(_x, nb.causal_mask(6))
    _x2 = _x.clone()
    _x2[0, 4:] = torch.randn(2, 8)
    _changed = _attend(_x2, nb.causal_mask(6))
    assert torch.allclose(_base[0, :4], _changed[0, :4], atol=1e-6), "changing positions 4 and 5 changed the outputs at positions 0-3: with your causal mask, information flows from the future"
    _tokens = torch.tensor([[5, 6, 7, nb.PAD_ID, nb.PAD_ID]])
    _y = torch.randn(1, 5, 8)
    _y2 = _y.clone()
    _y2[0, 3:] = 100.0
    _a = _attend(_y, nb.padding_mask(_tokens)[0])
    _b = _attend(_y2, nb.padding_mask(_tokens)[0])
    assert torch.allclose(_a[0, :3], _b[0, :3], atol=1e-5), "changing the padded positions changed the real positions' outputs: the padding mask must hide <pad> keys"


def q3_masks_3(nb):
    _device_problem = nb.standin("_device_problem")
    _mask_on = nb.standin("_mask_on")
    _tokens = torch.tensor([[5, 6, nb.PAD_ID], [7, nb.PAD_ID, nb.PAD_ID]])
    assert nb.causal_mask(3).tolist() == [[True, False, False], [True, True, False], [True, True, True]] and torch.equal(nb.padding_mask(_tokens)[:, 0, 0], _tokens != nb.PAD_ID), "the masks are wrong (this check of devices needs the right values first)"
    _found = _mask_on(4)
    assert all(_f == "meta, torch.bool, (4, 4)" for _f in _found), f"causal_mask(4, device) must create the mask on the device it is given (the model passes tgt_in.device); on another device than the CPU it gave {_found}: pass device=device to torch.ones / torch.arange / torch.tril_indices"
    _problem = _device_problem(nb.padding_mask, (_tokens,))
    assert _problem is None, f"with the tokens on another device than the CPU, padding_mask fails or answers on the CPU ({_problem}): compare the tokens themselves (tokens != PAD_ID), or create tensors with device=tokens.device"


def q4_positions_1(nb):
    _pe = nb.sinusoidal_encoding(50, 16)
    assert abs(float(_pe[1, 0]) - math.sin(1.0)) < 1e-5 and abs(float(_pe[1, 1]) - math.cos(1.0)) < 1e-5, "PE[1, 0] must be sin(1) and PE[1, 1] cos(1): sines in even columns, cosines in odd ones (sin and cos swapped?)"
    _want = torch.tensor([[math.sin(p / 10000 ** (2 * (j // 2) / 16)) if j % 2 == 0 else math.cos(p / 10000 ** (2 * (j // 2) / 16))
                           for j in range(16)] for p in range(50)])
    assert torch.allclose(_pe[:, 2], _want[:, 2], atol=1e-5), "column 2 (i = 1) must be sin(pos / 10000^(2/16)): the exponent is 2i / d_model, with 2i the even column index (wrong exponent: i / d_model or 2i instead of 2i / d_model?)"
    assert torch.allclose(_pe, _want, atol=1e-5), "PE(pos, 2i) = sin(pos / 10000^(2i/d_model)), PE(pos, 2i+1) = cos(pos / 10000^(2i/d_model)), interleaved (not all sines then all cosines), positions from 0; for high columns 10000 ** (2i) overflows float32: divide the exponent by d_model first"


def q4_positions_2(nb):
    for _L, _d in ((1, 2), (3, 6), (7, 10), (300, 24)):
        _pe = nb.sinusoidal_encoding(_L, _d)
        assert isinstance(_pe, torch.Tensor) and tuple(_pe.shape) == (_L, _d), f"sinusoidal_encoding({_L}, {_d}) must be (max_len, d_model) = ({_L}, {_d}), got {tuple(_pe.shape) if isinstance(_pe, torch.Tensor) else type(_pe).__name__}: use the max_len and d_model passed in"
        assert _pe.dtype == torch.float32, f"the encoding must be float32 (the question asks for it), got {_pe.dtype}"
        _ang = torch.arange(_L, dtype=torch.float64)[:, None] / 10000 ** (torch.arange(0, _d, 2, dtype=torch.float64) / _d)
        _want = torch.stack([_ang.sin(), _ang.cos()], dim=-1).reshape(_L, _d).float()
        assert torch.allclose(_pe, _want, atol=2e-3 if _L > 100 else 1e-5), f"sinusoidal_encoding({_L}, {_d}) has wrong values: PE(pos, 2i) = sin(pos / 10000^(2i/d_model)), PE(pos, 2i+1) = cos(...), for every d_model (also when d_model / 2 is odd) and every position up to max_len - 1; for high columns 10000 ** (2i) overflows float32: divide the exponent by d_model first"


def q4_positions_3(nb):
    _ang = torch.arange(20, dtype=torch.float64)[:, None] / 10000 ** (torch.arange(0, 12, 2, dtype=torch.float64) / 12)
    _ok = torch.allclose(nb.sinusoidal_encoding(20, 12), torch.stack([_ang.sin(), _ang.cos()], dim=-1).reshape(20, 12).float(), atol=1e-5)
    assert _ok, "sinusoidal_encoding(20, 12) has wrong values (this check of the no-loop rule needs the right values first)"
    nb.rule("sinusoidal_encoding", "loop", says="the question asks for it without a loop (one tensor expression for all positions and columns; broadcasting does the work)")


def q5_encoder_layer_1(nb):
    nb.rule("EncoderLayer", "TransformerEncoderLayer", "TransformerEncoder", "Transformer", "MultiheadAttention",
            says="the question asks for the layer from your own sublayers, not torch.nn.TransformerEncoderLayer or torch.nn.MultiheadAttention")
    _ = torch.manual_seed(5)
    _ff = nb.FeedForward(20, 40)
    _l1, _l2 = nn.Linear(20, 40), nn.Linear(40, 20)
    _ = _ff.load_state_dict({"linear1.weight": _l1.weight.detach(), "linear1.bias": _l1.bias.detach(), "linear2.weight": _l2.weight.detach(), "linear2.bias": _l2.bias.detach()})
    for _shape in ((3, 6, 20), (1, 1, 20)):
        _ff_in = torch.randn(*_shape)
        _out = _ff(_ff_in)
        assert tuple(_out.shape) == _shape, f"FeedForward must keep the shape {_shape}, got {tuple(_out.shape)} (squeeze() without a dim removes axes of size 1)"
        assert torch.allclose(_out, _l2(F.relu(_l1(_ff_in))), atol=1e-5), "FeedForward must be linear2(relu(linear1(x))): ReLU in between, no activation after linear2"


def q5_encoder_layer_2(nb):
    _ref = _enc_ref(20, 4, 40, 5)                            # d_model 20 (not a square), d_k = 5
    _post_ref = nn.TransformerEncoderLayer(20, 4, 40, dropout=0.0, batch_first=True, norm_first=False)
    _ = _post_ref.load_state_dict(_ref.state_dict())
    _layer = _enc_layer(nb, _ref, 20, 4, 40)
    _ = _layer.eval()
    _x = torch.randn(3, 6, 20)
    _real = torch.tensor([[True] * 6, [True] * 4 + [False] * 2, [True] * 3 + [False] * 3])
    _got = _layer(_x, _real[:, None, None, :])
    _want = _ref(_x, src_key_padding_mask=~_real)
    _post = _post_ref(_x, src_key_padding_mask=~_real)
    assert not torch.allclose(_got[_real], _post[_real], atol=1e-4), "this is a post-LN layer (norm after the residual sum): this notebook uses pre-LN, x + Sublayer(LayerNorm(x))"
    assert torch.allclose(_got[_real], _want[_real], atol=1e-4), "the layer differs from torch.nn.TransformerEncoderLayer(norm_first=True) with the same weights: pre-LN, x = x + dropout(self_attn(h, h, h, mask)) with h = norm1(x); then x + dropout(ff(norm2(x))). Check that both residual connections and both norms are there, norm1 for attention and norm2 for the FFN, and that the mask is passed"
    _x1 = torch.randn(1, 1, 20)
    _got = _layer(_x1, torch.ones(1, 1, 1, 1, dtype=torch.bool))
    assert tuple(_got.shape) == (1, 1, 20) and torch.allclose(_got, _ref(_x1), atol=1e-4), "with a batch of 1 and one position the layer must return (1, 1, d_model), equal to torch.nn.TransformerEncoderLayer(norm_first=True)'s (squeeze() without a dim removes axes)"


def q5_encoder_layer_3(nb):
    _grads = nb.standin("_grads")
    _ref = _enc_ref(16, 4, 40, 11)
    _layer = _enc_layer(nb, _ref, 16, 4, 40)
    _x, _g = torch.randn(3, 6, 16), torch.randn(3, 6, 16)
    _real = torch.tensor([[True] * 6, [True] * 4 + [False] * 2, [True] * 3 + [False] * 3])
    _got = _grads(_layer, (_x, _real[:, None, None, :]), [_g], _layer)
    _lx = _x.clone().requires_grad_(True)
    _ = (_ref(_lx, src_key_padding_mask=~_real) * _g).sum().backward()
    _want = _as_notebook(_ref, [("self_attn", "self_attn")], grad=True)
    assert _got is not None and _got[1][0] is not None, "no gradient reaches the layer's input x: keep the computation in the autograd graph (no .detach(), .data or torch.no_grad() in forward)"
    _missing = [_n for _n in _want if _got[0].get(_n) is None]
    assert not _missing, f"no gradient reaches {_missing}: keep every sublayer in the autograd graph (no .detach(), .data or torch.no_grad())"
    assert torch.allclose(_got[1][0], _lx.grad, atol=1e-4), "the gradient with respect to x differs from torch.nn.TransformerEncoderLayer(norm_first=True)'s with the same weights: keep both sublayers and residual connections in the autograd graph (no .detach() or .data)"
    _wrong = [_n for _n, _t in _want.items() if not torch.allclose(_got[0][_n], _t, atol=1e-4)]
    assert not _wrong, f"the gradients of {_wrong} differ from torch.nn.TransformerEncoderLayer(norm_first=True)'s with the same weights: keep every sublayer in the autograd graph (no .detach() or .data)"


def q5_encoder_layer_4(nb):
    _side_effects = nb.standin("_side_effects")
    _ref = _enc_ref(12, 3, 24, 17)
    _x = torch.randn(2, 5, 12)
    _real = torch.tensor([[True] * 5, [True] * 3 + [False] * 2])
    _layer = _enc_layer(nb, _ref, 12, 3, 24, dropout=0.3)
    _ = _layer.eval()
    assert torch.allclose(_layer(_x, _real[:, None, None, :])[_real], _ref(_x, src_key_padding_mask=~_real)[_real], atol=1e-4), "in eval mode (dropout off) the layer differs from torch.nn.TransformerEncoderLayer(norm_first=True) with the same weights: dropout must be off in eval mode (self.dropout, or F.dropout(..., training=self.training)), and the layer right"
    _found = _side_effects(_layer, (_x, _real[:, None, None, :]), _layer, True)
    assert not _found, f"in eval mode: {'; '.join(_found)}. Dropout is off in eval mode and draws no random numbers: use self.dropout (or F.dropout(..., training=self.training)); forward must not call train()/eval() or change its inputs"
    _layer = _enc_layer(nb, _ref, 12, 3, 24, dropout=1.0)
    _ = _layer.train()
    _out = _layer(_x, _real[:, None, None, :])
    assert torch.allclose(_out, _x), "with dropout p = 1 in training mode each sublayer's output is dropped entirely, so the layer must return x unchanged: apply self.dropout to each sublayer's output before adding it to x (not to the sum, not to the sublayer's input, and on both sublayers)"
    # p = 0.5, one sublayer's last linear layer zeroed: out - x is the other sublayer's output after dropout (dropout on its input
    # as well, or on the normalised x, changes the entries kept)
    with torch.no_grad():
        _h = _ref.norm1(_x)
        _adds = {"ff.linear2": _ref.self_attn(_h, _h, _h, key_padding_mask=~_real, need_weights=False)[0],
                 "self_attn.W_o": _ref.linear2(F.relu(_ref.linear1(_ref.norm2(_x))))}
    for _zero, _name in (("ff.linear2", "self-attention"), ("self_attn.W_o", "feed-forward")):
        _layer = _enc_layer(nb, _ref, 12, 3, 24, dropout=0.5)
        _ = _layer.load_state_dict({f"{_zero}.weight": torch.zeros(12, 24 if _zero == "ff.linear2" else 12), f"{_zero}.bias": torch.zeros(12)}, strict=False)
        _ = _layer.train()
        _added = _layer(_x, _real[:, None, None, :]) - _x
        assert _dropped_or_scaled(_added[_real], _adds[_zero][_real], 0.5), f"with dropout p = 0.5 in training mode each entry the {_name} sublayer adds to x must be 0 or its output / (1 - p): dropout acts on the sublayer's output only, x + dropout(sublayer(norm(x))), not also on its input"


def q5_encoder_layer_5(nb):
    _device_problem = nb.standin("_device_problem")
    _side_effects = nb.standin("_side_effects")
    _ref = _enc_ref(12, 3, 24, 18)
    _x = torch.randn(2, 5, 12)
    _real = torch.tensor([[True] * 5, [True] * 3 + [False] * 2])
    _layer = _enc_layer(nb, _ref, 12, 3, 24, dropout=0.1)
    _ = _layer.eval()
    assert torch.allclose(_layer(_x, _real[:, None, None, :])[_real], _ref(_x, src_key_padding_mask=~_real)[_real], atol=1e-4), "the layer differs from torch.nn.TransformerEncoderLayer(norm_first=True) with the same weights (this check of side effects and devices needs the right values first)"
    _ = _layer.train()
    _found = _side_effects(_layer, (_x, _real[:, None, None, :]), _layer)
    assert not _found, f"forward has side effects: {'; '.join(_found)}. It must not change its inputs or parameters in place or call train()/eval()"
    _fresh = _enc_layer(nb, _ref, 12, 3, 24, dropout=0.1)
    _problem = _device_problem(_fresh, (_x, _real[:, None, None, :]), _fresh)
    assert _problem is None, f"with the layer and its inputs on another device than the CPU, forward fails or answers on the CPU ({_problem}): create every tensor on the input's device (device=x.device)"


def q6_decoder_layer_1(nb):
    nb.rule("DecoderLayer", "TransformerDecoderLayer", "TransformerDecoder", "Transformer", "MultiheadAttention",
            says="the question asks for the layer from your own sublayers, not torch.nn.TransformerDecoderLayer or torch.nn.MultiheadAttention")
    _ref = _dec_ref(20, 4, 40, 6)                            # d_model 20 (not a square), d_k = 5
    _layer = _dec_layer(nb, _ref, 20, 4, 40)
    _ = _layer.eval()
    _x, _mem = torch.randn(3, 5, 20), torch.randn(3, 6, 20) * 2
    _real = torch.tensor([[True] * 6, [True] * 4 + [False] * 2, [True] * 2 + [False] * 4])
    _causal = torch.ones(5, 5, dtype=torch.bool).tril()
    try:
        _got = _layer(_x, _mem, _causal, _real[:, None, None, :])
    except Exception as _e:
        raise AssertionError(f"with T = 5 target and S = 6 source positions your layer raised {_e}: the cross-attention takes its queries from the decoder (h = norm2(x)) and its keys and values from the memory")
    _want = _ref(_x, _mem, tgt_mask=~_causal, memory_key_padding_mask=~_real)
    _x2 = _x.clone()
    _x2[:, 3:] = torch.randn(3, 2, 20)
    _got2 = _layer(_x2, _mem, _causal, _real[:, None, None, :])
    assert torch.allclose(_got[:, :3], _got2[:, :3], atol=1e-5), "changing target positions 3-4 changed the outputs at positions 0-2: pass the causal tgt_mask to the self-attention (information flows from the future)"
    _mem2 = _mem.clone()
    _mem2[~_real] = 50.0
    assert torch.allclose(_got, _layer(_x, _mem2, _causal, _real[:, None, None, :]), atol=1e-4), "changing padded memory positions changed the output: pass src_mask to the cross-attention"
    assert torch.allclose(_got, _want, atol=1e-4), "the layer differs from torch.nn.TransformerDecoderLayer(norm_first=True) with the same weights: (1) x + self_attn(h, h, h, tgt_mask), h = norm1(x); (2) x + cross_attn(h, memory, memory, src_mask), h = norm2(x) (queries from the decoder, keys and values from the memory); (3) x + ff(norm3(x)); each with its residual connection, in this order"


def q6_decoder_layer_2(nb):
    _ref = _dec_ref(12, 3, 24, 19)
    _layer = _dec_layer(nb, _ref, 12, 3, 24)
    _ = _layer.eval()
    _x, _mem = torch.randn(2, 4, 12), torch.randn(2, 3, 12)
    _src = torch.tensor([[True] * 3, [True] * 2 + [False]])
    _tgt = torch.tensor([[True] * 4, [True] * 2 + [False] * 2])
    _both = _tgt[:, None, None, :] & torch.ones(4, 4, dtype=torch.bool).tril()        # (B, 1, T, T): padding & causal
    _want = _ref(_x, _mem, tgt_mask=~torch.ones(4, 4, dtype=torch.bool).tril(), tgt_key_padding_mask=~_tgt, memory_key_padding_mask=~_src)
    assert torch.allclose(_layer(_x, _mem, _both, _src[:, None, None, :]), _want, atol=1e-4), "with a (B, 1, T, T) target mask (padding & causal) the layer differs from torch.nn.TransformerDecoderLayer(norm_first=True): pass the tgt_mask you are given to the self-attention (do not build your own causal mask)"
    _want = _ref(_x, _mem, memory_key_padding_mask=~_src)
    assert torch.allclose(_layer(_x, _mem, None, _src[:, None, None, :]), _want, atol=1e-4), "with tgt_mask=None (as Transformer.step calls it) the self-attention must see every position: pass tgt_mask on as it is"
    _x1, _m1 = torch.randn(1, 1, 12), torch.randn(1, 3, 12)
    _got = _layer(_x1, _m1, None, torch.ones(1, 1, 1, 3, dtype=torch.bool))
    assert tuple(_got.shape) == (1, 1, 12) and torch.allclose(_got, _ref(_x1, _m1), atol=1e-4), "with a batch of 1 and one target position (a decoding step) the layer must return (1, 1, d_model), equal to torch.nn.TransformerDecoderLayer(norm_first=True)'s (squeeze() without a dim removes axes)"


def q6_decoder_layer_3(nb):
    _grads = nb.standin("_grads")
    _ref = _dec_ref(16, 4, 40, 12)
    _layer = _dec_layer(nb, _ref, 16, 4, 40)
    _x, _mem, _g = torch.randn(3, 5, 16), torch.randn(3, 6, 16), torch.randn(3, 5, 16)
    _real = torch.tensor([[True] * 6, [True] * 4 + [False] * 2, [True] * 2 + [False] * 4])
    _causal = torch.ones(5, 5, dtype=torch.bool).tril()
    _got = _grads(_layer, (_x, _mem, _causal, _real[:, None, None, :]), [_g], _layer)
    _lx, _lmem = _x.clone().requires_grad_(True), _mem.clone().requires_grad_(True)
    _ = (_ref(_lx, _lmem, tgt_mask=~_causal, memory_key_padding_mask=~_real) * _g).sum().backward()
    _want = _as_notebook(_ref, [("self_attn", "self_attn"), ("cross_attn", "multihead_attn")], grad=True)
    assert _got is not None and _got[1][0] is not None and _got[1][1] is not None, "no gradient reaches the target states x or the memory: keep the computation in the autograd graph (no .detach(), .data or torch.no_grad() in forward); the encoder learns through the cross-attention's keys and values"
    _missing = [_n for _n in _want if _got[0].get(_n) is None]
    assert not _missing, f"no gradient reaches {_missing}: keep every sublayer in the autograd graph (no .detach(), .data or torch.no_grad())"
    assert torch.allclose(_got[1][0], _lx.grad, atol=1e-4) and torch.allclose(_got[1][1], _lmem.grad, atol=1e-4), "the gradients with respect to x and memory differ from torch.nn.TransformerDecoderLayer(norm_first=True)'s with the same weights: keep the three sublayers and their residual connections in the autograd graph (no .detach() or .data)"
    _wrong = [_n for _n, _t in _want.items() if not torch.allclose(_got[0][_n], _t, atol=1e-4)]
    assert not _wrong, f"the gradients of {_wrong} differ from torch.nn.TransformerDecoderLayer(norm_first=True)'s with the same weights: keep every sublayer in the autograd graph (no .detach() or .data)"


def q6_decoder_layer_4(nb):
    _side_effects = nb.standin("_side_effects")
    _ref = _dec_ref(12, 3, 24, 20)
    _x, _mem = torch.randn(2, 4, 12), torch.randn(2, 5, 12)
    _real = torch.tensor([[True] * 5, [True] * 3 + [False] * 2])
    _causal = torch.ones(4, 4, dtype=torch.bool).tril()
    _args = (_x, _mem, _causal, _real[:, None, None, :])
    _layer = _dec_layer(nb, _ref, 12, 3, 24, dropout=0.3)
    _ = _layer.eval()
    assert torch.allclose(_layer(*_args), _ref(_x, _mem, tgt_mask=~_causal, memory_key_padding_mask=~_real), atol=1e-4), "in eval mode (dropout off) the layer differs from torch.nn.TransformerDecoderLayer(norm_first=True) with the same weights: dropout must be off in eval mode (self.dropout, or F.dropout(..., training=self.training)), and the layer right"
    _found = _side_effects(_layer, _args, _layer, True)
    assert not _found, f"in eval mode: {'; '.join(_found)}. Dropout is off in eval mode and draws no random numbers: use self.dropout (or F.dropout(..., training=self.training)); forward must not call train()/eval() or change its inputs"
    _layer = _dec_layer(nb, _ref, 12, 3, 24, dropout=1.0)
    _ = _layer.train()
    assert torch.allclose(_layer(*_args), _x), "with dropout p = 1 in training mode each sublayer's output is dropped entirely, so the layer must return x unchanged: apply self.dropout to each of the three sublayers' outputs before adding it to x (not to the sum, not to a sublayer's input, none missing)"


def q6_decoder_layer_5(nb):
    _device_problem = nb.standin("_device_problem")
    _side_effects = nb.standin("_side_effects")
    _ref = _dec_ref(12, 3, 24, 21)
    _x, _mem = torch.randn(2, 4, 12), torch.randn(2, 5, 12)
    _real = torch.tensor([[True] * 5, [True] * 3 + [False] * 2])
    _causal = torch.ones(4, 4, dtype=torch.bool).tril()
    _args = (_x, _mem, _causal, _real[:, None, None, :])
    _layer = _dec_layer(nb, _ref, 12, 3, 24, dropout=0.1)
    _ = _layer.eval()
    assert torch.allclose(_layer(*_args), _ref(_x, _mem, tgt_mask=~_causal, memory_key_padding_mask=~_real), atol=1e-4), "the layer differs from torch.nn.TransformerDecoderLayer(norm_first=True) with the same weights (this check of side effects and devices needs the right values first)"
    _ = _layer.train()
    _found = _side_effects(_layer, _args, _layer)
    assert not _found, f"forward has side effects: {'; '.join(_found)}. It must not change its inputs or parameters in place or call train()/eval()"
    _fresh = _dec_layer(nb, _ref, 12, 3, 24, dropout=0.1)
    _problem = _device_problem(_fresh, _args, _fresh)
    _fresh = _dec_layer(nb, _ref, 12, 3, 24, dropout=0.1)
    _problem = _problem or _device_problem(_fresh, (_x, _mem, None, _real[:, None, None, :]), _fresh)
    assert _problem is None, f"with the layer and its inputs on another device than the CPU, forward fails or answers on the CPU ({_problem}): use the masks you are given, and create any tensor on the input's device (device=x.device)"


def q7_label_smoothing_1(nb):
    nb.rule("label_smoothed_cross_entropy", "cross_entropy", "label_smoothing", "CrossEntropyLoss", says="the question asks for the loss from log_softmax yourself, not F.cross_entropy's label_smoothing (the reference the check compares against)")
    _ = torch.manual_seed(7)
    _logits = torch.randn(12, 9) * 3
    _target = torch.tensor([4, 5, 6, 7, 8, 4, nb.PAD_ID, nb.PAD_ID, 5, 6, nb.PAD_ID, 7])
    for _eps in (0.1, 0.3):
        _got = nb.label_smoothed_cross_entropy(_logits, _target, _eps)
        _want = F.cross_entropy(_logits, _target, label_smoothing=_eps, ignore_index=nb.PAD_ID)
        _with_pad = F.cross_entropy(_logits, _target, label_smoothing=_eps)
        _other = F.cross_entropy(_logits, _target, reduction="none", ignore_index=nb.PAD_ID) * (1 - _eps - _eps / 8) + _eps / 8 * (-F.log_softmax(_logits, -1)).sum(-1)
        assert not torch.allclose(_got, _with_pad, atol=1e-4), "padding positions count in your loss: average over the positions where target != ignore_index only"
        assert not torch.allclose(_got, _other[_target != nb.PAD_ID].mean(), atol=1e-4), "you spread eps over the C - 1 wrong words: this course (and F.cross_entropy) spreads eps / C over all C words, the reference word included"
        assert torch.allclose(_got, _want, atol=1e-5), f"eps={_eps}: got {float(_got):.4f}, F.cross_entropy(logits, target, label_smoothing=eps, ignore_index=PAD_ID) gives {float(_want):.4f}. The loss per position is (1 - eps) * (-log p(y)) + eps * mean over the vocabulary of (-log p(w)), from log_softmax (not softmax), averaged (not summed) over the real target positions"


def q7_label_smoothing_2(nb):
    _ = torch.manual_seed(21)
    _logits = torch.randn(8, 9)
    _target = torch.tensor([3, nb.PAD_ID, 5, 3, 7, nb.PAD_ID, 8, 3])
    for _got in (nb.label_smoothed_cross_entropy(_logits, _target, 0.2, ignore_index=3), nb.label_smoothed_cross_entropy(_logits, _target, 0.2, 3)):
        _want = F.cross_entropy(_logits, _target, label_smoothing=0.2, ignore_index=3)
        assert torch.allclose(_got, _want, atol=1e-5), f"with ignore_index=3 got {float(_got):.4f}, F.cross_entropy(logits, target, label_smoothing=0.2, ignore_index=3) gives {float(_want):.4f}: skip the positions where target == ignore_index (the argument, not PAD_ID); the others, <pad> ids included, count"
    _logits1, _target1 = torch.randn(1, 9), torch.tensor([4])
    try:
        _got = nb.label_smoothed_cross_entropy(_logits1, _target1, 0.1)
    except Exception as _e:
        raise AssertionError(f"with a single position (N = 1) your code raised {_e} (squeeze() without a dim removes the batch axis too: squeeze(1))")
    _want = F.cross_entropy(_logits1, _target1, label_smoothing=0.1)
    assert isinstance(_got, torch.Tensor) and _got.dim() == 0 and torch.allclose(_got, _want, atol=1e-5), "with a single position (N = 1) the loss must be the scalar F.cross_entropy gives (squeeze() without a dim?)"
    _logits = torch.randn(6, 9) * 1000
    _target = torch.tensor([4, 5, nb.PAD_ID, 6, 7, 8])
    _got = nb.label_smoothed_cross_entropy(_logits, _target, 0.1)
    _want = F.cross_entropy(_logits, _target, label_smoothing=0.1, ignore_index=nb.PAD_ID)
    assert bool(torch.isfinite(_got)), f"with logits of large magnitude (about 1000) the loss is {float(_got)}: log(softmax(...)) underflows to log(0) = -inf; use F.log_softmax (or logits - logsumexp)"
    assert torch.allclose(_got, _want, rtol=1e-4, atol=1e-3), f"with logits of large magnitude got {float(_got):.2f}, F.cross_entropy gives {float(_want):.2f}: use F.log_softmax, numerically stable"
    assert _got.dtype == torch.float32, f"the loss of float32 logits must be float32, got {_got.dtype}"


def q7_label_smoothing_3(nb):
    _grads = nb.standin("_grads")
    _ = torch.manual_seed(22)
    _logits, _target = torch.randn(5, 9), torch.tensor([4, nb.PAD_ID, 5, 6, 4])
    _got = _grads(nb.label_smoothed_cross_entropy, (_logits, _target, 0.1), [torch.tensor(1.0)])
    _l = _logits.clone().requires_grad_(True)
    _ = F.cross_entropy(_l, _target, label_smoothing=0.1, ignore_index=nb.PAD_ID).backward()
    assert _got is not None and _got[1][0] is not None, "no gradient reaches the logits: compute the loss from log_softmax(logits), without .detach(), .data, .item() or torch.no_grad() (keep it in the autograd graph)"
    assert bool((_got[1][0][1] == 0).all()), "a padding position must not receive a gradient"
    assert torch.allclose(_got[1][0], _l.grad, atol=1e-6), "the gradient with respect to the logits differs from that of F.cross_entropy(logits, target, label_smoothing=eps, ignore_index=PAD_ID): keep both terms of the loss in the autograd graph (no .detach() or .data)"


def q7_label_smoothing_4(nb):
    _side_effects = nb.standin("_side_effects")
    _device_problem = nb.standin("_device_problem")
    _ = torch.manual_seed(23)
    _logits, _target = torch.randn(7, 6) * 4, torch.tensor([1, 2, nb.PAD_ID, 3, 4, 5, nb.PAD_ID])
    assert torch.allclose(nb.label_smoothed_cross_entropy(_logits, _target, 0.1), F.cross_entropy(_logits, _target, label_smoothing=0.1, ignore_index=nb.PAD_ID), atol=1e-5), "the loss differs from F.cross_entropy(logits, target, label_smoothing=0.1, ignore_index=PAD_ID) (this check of side effects needs the right values first)"
    _found = _side_effects(nb.label_smoothed_cross_entropy, (_logits, _target, 0.1), None, True)
    assert not _found, f"label_smoothed_cross_entropy has side effects: {'; '.join(_found)}. A loss must not change the logits or targets in place (no logits -= ..., sub_(), masked_fill_ on an argument) and draws no random numbers"
    _problem = _device_problem(nb.label_smoothed_cross_entropy, (_logits, _target, 0.1))
    assert _problem is None, f"with logits and targets on another device than the CPU the loss fails or answers on the CPU ({_problem}): create every tensor on the logits' device"


def q8_warmup_1(nb):
    _lr1 = nb.noam_lr(1, 256, 400)
    assert abs(_lr1 - 256 ** -0.5 * 400 ** -1.5) < 1e-12, f"at step 1 (warm-up 400, d_model 256) the rate must be d_model^-0.5 * 1 * warmup^-1.5, got {_lr1}"
    try:
        _lr0 = nb.noam_lr(0, 256, 400)
    except Exception:
        _lr0 = None          # e.g. 0 ** -0.5
    assert _lr0 is not None and _lr0 == _lr1, "step 0 must be treated as step 1 (LambdaLR starts at 0; 0 ** -0.5 is a division by zero, and a rate of 0 wastes the first step)"


def q8_warmup_2(nb):
    for _step in (1, 10, 399, 400, 401, 1000, 5000):
        _want = 0.5 * 256 ** -0.5 * min(_step ** -0.5, _step * 400 ** -1.5)
        assert abs(nb.noam_lr(_step, 256, 400, factor=0.5) - _want) < 1e-12, f"step {_step}: got {nb.noam_lr(_step, 256, 400, factor=0.5):.3e}, expected {_want:.3e}: factor * d_model^-0.5 * min(step^-0.5, step * warmup^-1.5) (linear rise to the peak at step = warmup, then 1/sqrt(step))"
    for _args in ((7, 64, 20, 2.0), (30, 100, 20, 0.3), (3, 512, 4000, 1.0)):
        _want = _args[3] * _args[1] ** -0.5 * min(_args[0] ** -0.5, _args[0] * _args[2] ** -1.5)
        assert abs(nb.noam_lr(*_args) - _want) < 1e-12, f"noam_lr{_args} (step, d_model, warmup, factor): got {nb.noam_lr(*_args):.3e}, expected {_want:.3e}: use every argument (factor * d_model ** -0.5 * min(step ** -0.5, step * warmup ** -1.5))"


def q8_warmup_3(nb):
    _rates = [nb.noam_lr(_s, 512, 50) for _s in range(1, 200)]
    assert abs(_rates[9] - 512 ** -0.5 * 10 * 50 ** -1.5) < 1e-12, "noam_lr(10, 512, 50) is wrong (this check of the shape of the schedule needs the right values first)"
    assert max(range(len(_rates)), key=_rates.__getitem__) + 1 == 50, "the peak must be at step = warmup: min(...) of the two terms, not max"
    _types = {type(nb.noam_lr(_s, _d, _w, _f)).__name__ for _s, _d, _w, _f in ((0, 64, 10, 1), (5, 64, 10, 2), (50, 256, 10, 1.0), (10, 16, 10, 1))}
    assert _types == {"float"}, f"noam_lr must return a Python float for every step (LambdaLR multiplies it with the base rate), got {sorted(_types)}"


def q9_kv_cache_1(nb):
    _RefMHA = nb.standin("_RefMHA")
    with nb.sandbox.swap("scaled_dot_product_attention", _REF_SDPA):   # your code is checked with a correct attention
        _ = torch.manual_seed(8)
        _s = _state(12, 0.3)                                      # d_model 12 (not a square), 3 heads, d_k = 4
        _attn = _RefMHA(12, 3)                                    # a correct MultiHeadAttention: this checks your cache, not question 2
        _ = _attn.load_state_dict(_s)
        _x = torch.randn(3, 6, 12)
        _want, _want_k, _want_v = _causal_mha(_s, _x, 3)
        _k, _v = torch.zeros(3, 3, 0, 4), torch.zeros(3, 3, 0, 4)
        _outs = []
        for _t in range(6):
            _o, _k, _v = nb.cached_self_attention(_attn, _x[:, _t:_t + 1], _k, _v)
            assert tuple(_k.shape) == (3, 3, _t + 1, 4), f"after step {_t} the cache must hold {_t + 1} positions, it holds {tuple(_k.shape)}: append the new key to ALL the past keys (a cache that drops the first position, or returns the old cache, loses words)"
            _outs.append(_o)
        assert torch.allclose(_k, _want_k, atol=1e-5) and torch.allclose(_v, _want_v, atol=1e-5), "the cached keys and values must be W_k(x), W_v(x) of positions 0 ... t split into heads, oldest first: torch.cat([past, new], dim=2)"
        assert torch.allclose(torch.cat(_outs, dim=1), _want, atol=1e-5), "step-by-step outputs differ from full causal self-attention over the sequence: the newest query must attend to every cached key and to its own (nothing dropped, nothing from the future), then merge_heads and W_o"


def q9_kv_cache_2(nb):
    _RefMHA = nb.standin("_RefMHA")
    with nb.sandbox.swap("scaled_dot_product_attention", _REF_SDPA):   # your code is checked with a correct attention
        _ = torch.manual_seed(24)
        _s = _state(16, 0.3)                                      # 4 heads, d_k = 4
        _attn = _RefMHA(16, 4)
        _ = _attn.load_state_dict(_s)
        _x, _pk, _pv = torch.randn(2, 1, 16), torch.randn(2, 4, 3, 4), torch.randn(2, 4, 3, 4)
        _o, _k, _v = nb.cached_self_attention(_attn, _x, _pk, _pv)
        _want, _want_k, _want_v, _ = _one_step(_s, _x, _pk, _pv, 4)
        assert torch.allclose(_k, _want_k, atol=1e-5) and torch.allclose(_v, _want_v, atol=1e-5), "with a given cache (3 positions), the returned keys and values must be past_k, past_v followed by the new position's split_heads(W_k(x)), split_heads(W_v(x)): use the cache you are given"
        assert torch.allclose(_o, _want, atol=1e-5), "with a given cache (3 positions), the output differs from the new query attending to the cached keys and values and to its own: use past_k and past_v as given (W_k, W_v only for the new position), then merge_heads and W_o"
        _s = _state(8, 0.5)
        _attn = _RefMHA(8, 2)
        _ = _attn.load_state_dict(_s)
        _x = torch.randn(1, 3, 8)
        _want, _, _ = _causal_mha(_s, _x, 2)
        _k, _v = torch.zeros(1, 2, 0, 4), torch.zeros(1, 2, 0, 4)
        _outs = []
        for _t in range(3):
            try:
                _o, _k, _v = nb.cached_self_attention(_attn, _x[:, _t:_t + 1], _k, _v)
            except Exception as _e:
                raise AssertionError(f"with a single sentence (N = 1) your code raised {_e} at step {_t} (squeeze() without a dim removes the batch axis too)")
            assert tuple(_o.shape) == (1, 1, 8) and tuple(_k.shape) == (1, 2, _t + 1, 4), f"with a single sentence (N = 1), step {_t} must give an output (1, 1, 8) and a cache (1, 2, {_t + 1}, 4), got {tuple(_o.shape)} and {tuple(_k.shape)} (squeeze() without a dim?)"
            _outs.append(_o)
        assert torch.allclose(torch.cat(_outs, dim=1), _want, atol=1e-5), "with a single sentence (N = 1), step-by-step outputs differ from full causal self-attention"


def q9_kv_cache_3(nb):
    _RefMHA = nb.standin("_RefMHA")
    with nb.sandbox.swap("scaled_dot_product_attention", _REF_SDPA):   # your code is checked with a correct attention
        _ = torch.manual_seed(25)
        _s = _state(12, 0.4)
        _attn = _RefMHA(12, 3)
        _ = _attn.load_state_dict(_s)
        _x, _pk, _pv = torch.randn(2, 1, 12), torch.randn(2, 3, 4, 4), torch.randn(2, 3, 4, 4)
        _o, _k, _v = nb.cached_self_attention(_attn, _x, _pk, _pv)
        _want, _, _, _want_w = _one_step(_s, _x, _pk, _pv, 3)
        assert torch.allclose(_o, _want, atol=1e-5), "the output of one step with a given cache is wrong (this check of attn.weights needs the right output first)"
        _w = _attn.weights
        assert _w is not None and tuple(_w.shape) == (2, 3, 1, 5), f"store the step's attention weights (N, n_h, 1, t+1) = (2, 3, 1, 5) in attn.weights, got {None if _w is None else tuple(_w.shape)}"
        assert torch.allclose(_w, _want_w, atol=1e-5), "attn.weights must hold the weights of this step: the new query's softmax over the t+1 keys (cached ones first), per head"


def q9_kv_cache_4(nb):
    _device_problem = nb.standin("_device_problem")
    _side_effects = nb.standin("_side_effects")
    _RefMHA = nb.standin("_RefMHA")
    with nb.sandbox.swap("scaled_dot_product_attention", _REF_SDPA):   # your code is checked with a correct attention
        _ = torch.manual_seed(26)
        _s = _state(12, 0.4)
        _attn = _RefMHA(12, 3)
        _ = _attn.load_state_dict(_s)
        _x, _pk, _pv = torch.randn(2, 1, 12), torch.randn(2, 3, 2, 4), torch.randn(2, 3, 2, 4)
        _o, _k, _v = nb.cached_self_attention(_attn, _x, _pk, _pv)
        assert torch.allclose(_o, _one_step(_s, _x, _pk, _pv, 3)[0], atol=1e-5), "the output of one step with a given cache is wrong (this check of side effects and devices needs the right output first)"
        _found = _side_effects(nb.cached_self_attention, (_attn, _x, _pk, _pv), _attn, True)
        assert not _found, f"cached_self_attention has side effects: {'; '.join(_found)}. It must leave the caller's cache (past_k, past_v), x and attn's parameters and mode unchanged (return new tensors) and draws no random numbers"
        _fresh = _RefMHA(12, 3)
        _problem = _device_problem(nb.cached_self_attention, (_fresh, _x, _pk, _pv), _fresh)
        assert _problem is None, f"with attn, x and the cache on another device than the CPU, cached_self_attention fails or answers on the CPU ({_problem}): create any tensor (a mask, ...) on x's device; no mask is needed at all"


def q6_decoder_layer_6(nb):
    _dropout_shapes = nb.standin("_dropout_shapes")
    _ref = _dec_ref(12, 3, 24, 22)
    _x, _mem = torch.randn(2, 4, 12), torch.randn(2, 5, 12)
    _real = torch.tensor([[True] * 5, [True] * 4 + [False]])
    _causal = torch.ones(4, 4, dtype=torch.bool).tril()
    _args = (_x, _mem, _causal, _real[:, None, None, :])
    _layer = _dec_layer(nb, _ref, 12, 3, 24, dropout=0.3)
    _ = _layer.eval()
    assert torch.allclose(_layer(*_args), _ref(_x, _mem, tgt_mask=~_causal, memory_key_padding_mask=~_real), atol=1e-4), "the layer differs from torch.nn.TransformerDecoderLayer(norm_first=True) with the same weights (this check of where dropout acts needs the right values first)"
    _shapes = _dropout_shapes(_layer, _args)
    assert (2, 5, 12) not in _shapes, f"in training mode dropout was applied to a tensor of the encoder memory's shape (2, 5, 12) (all shapes: {_shapes}): dropout acts on each sublayer's output before the residual sum, never on the memory the encoder passes in"
    # p = 0.5, two sublayers' last linear layers zeroed: out - x is the third's output after dropout (dropout on its input as
    # well, or on the normalised x, changes the entries kept)
    with torch.no_grad():
        _h = _ref.norm1(_x)
        _adds = {"self_attn.W_o": _ref.self_attn(_h, _h, _h, attn_mask=~_causal, need_weights=False)[0],
                 "cross_attn.W_o": _ref.multihead_attn(_ref.norm2(_x), _mem, _mem, key_padding_mask=~_real, need_weights=False)[0],
                 "ff.linear2": _ref.linear2(F.relu(_ref.linear1(_ref.norm3(_x))))}
    _names = {"self_attn.W_o": "masked self-attention", "cross_attn.W_o": "cross-attention", "ff.linear2": "feed-forward"}
    for _keep, _name in _names.items():
        _layer = _dec_layer(nb, _ref, 12, 3, 24, dropout=0.5)
        _ = _layer.load_state_dict({f"{_z}.{_p}": torch.zeros(12, 24 if _z == "ff.linear2" else 12) if _p == "weight" else torch.zeros(12)
                                    for _z in _names if _z != _keep for _p in ("weight", "bias")}, strict=False)
        _ = _layer.train()
        assert _dropped_or_scaled(_layer(*_args) - _x, _adds[_keep], 0.5), f"with dropout p = 0.5 in training mode each entry the {_name} sublayer adds to x must be 0 or its output / (1 - p): dropout acts on each sublayer's output only, x + dropout(sublayer(norm(x))), not also on its input"
