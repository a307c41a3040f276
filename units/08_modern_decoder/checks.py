"""Hidden checks of notebook 08_modern_decoder: each case is a function of ``nb``, the submitted notebook as the
grader sees it (``grader.checks.Notebook``: its names as data or handles into the sandbox, ``nb.sandbox``,
``nb.standin(name)`` for a definition of ``standins.py`` executed where the notebook runs, ``nb.here(name)`` for
one made here, and ``nb.rule``). The master's hidden test cells call them; they run on the trusted side only."""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from seqcourse.testing import float64_problem as _float64_problem

# a correct rope in another style (complex numbers, as Meta's LLaMA code), swapped in where question 5 is checked
_REF_ROPE = '''
def rope(x, offset=0, base=10000.0):
    d = x.size(-1)
    theta = 1.0 / base ** (torch.arange(0, d, 2, dtype=torch.float32, device=x.device) / d)
    angle = torch.arange(offset, offset + x.size(-2), dtype=torch.float32, device=x.device)[:, None] * theta
    z = torch.view_as_complex(x.float().reshape(*x.shape[:-1], d // 2, 2).contiguous())
    return torch.view_as_real(z * torch.polar(torch.ones_like(angle), angle)).flatten(-2).to(x.dtype)
'''


def _rms(x, w, eps):
    # RMSNorm in float64
    x = x.double()
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * w.double()


def _rope(x, offset=0, base=10000.0):
    # RoPE in float64: the pairs (2i, 2i+1) as complex numbers times exp(i m theta_i)
    d, T = x.size(-1), x.size(-2)
    theta = base ** (-torch.arange(0, d, 2, dtype=torch.float64) / d)
    angle = torch.arange(offset, offset + T, dtype=torch.float64)[:, None] * theta
    z = torch.view_as_complex(x.double().reshape(*x.shape[:-1], d // 2, 2).contiguous())
    return torch.view_as_real(z * torch.polar(torch.ones_like(angle), angle)).flatten(-2)


def _gqa(s, x, h, h_kv, cache=None, base=10000.0):
    # grouped-query attention from the weights s: (output, (keys, values)), in float64
    B, T, d = x.shape
    dk, g = d // h, h // h_kv
    t = 0 if cache is None else cache[0].size(2)
    x = x.double()
    q = (x @ s["W_q.weight"].double().T).view(B, T, h, dk).transpose(1, 2)
    k = (x @ s["W_k.weight"].double().T).view(B, T, h_kv, dk).transpose(1, 2)
    v = (x @ s["W_v.weight"].double().T).view(B, T, h_kv, dk).transpose(1, 2)
    if base is not None:
        q, k = _rope(q, t, base), _rope(k, t, base)
    if cache is not None:
        k, v = torch.cat([cache[0].double(), k], 2), torch.cat([cache[1].double(), v], 2)
    scores = q @ k.repeat_interleave(g, 1).transpose(-2, -1) / math.sqrt(dk)
    scores = scores.masked_fill(~torch.ones(T, t + T, dtype=torch.bool).tril(t), float("-inf"))
    out = (scores.softmax(-1) @ v.repeat_interleave(g, 1)).transpose(1, 2).reshape(B, T, d)
    return out @ s["W_o.weight"].double().T, (k, v)


def _gqa_state(d, h, h_kv, seed):
    g = torch.Generator().manual_seed(seed)
    dk = d // h
    return {"W_q.weight": torch.randn(d, d, generator=g) / d ** 0.5, "W_k.weight": torch.randn(h_kv * dk, d, generator=g) / d ** 0.5,
            "W_v.weight": torch.randn(h_kv * dk, d, generator=g) / d ** 0.5, "W_o.weight": torch.randn(d, d, generator=g) / d ** 0.5}


_GQA_HINT = ("query head j uses key/value head j // (n_h / n_kv) (repeat_interleave along the head axis, not repeat), "
             "queries AND keys rotated with rope at offset t (values never), scores / sqrt(d_k), W_o on the merged heads")


def _width(d, d_ff, m):
    return max(m, (2 * d * d_ff + d_ff + d) // (3 * d) // m * m)


def _swiglu(s, x):
    return (F.silu(x.double() @ s["W.weight"].double().T) * (x.double() @ s["V.weight"].double().T)) @ s["W2.weight"].double().T


def _swiglu_state(d, h, seed):
    g = torch.Generator().manual_seed(seed)
    return {"W.weight": torch.randn(h, d, generator=g), "V.weight": torch.randn(h, d, generator=g),
            "W2.weight": torch.randn(d, h, generator=g) / h ** 0.5}


# ---------------------------------------------------------------- q1: RMSNorm

def q1_rmsnorm_1(nb):
    nb.rule("RMSNorm", "RMSNorm", "rms_norm", "LayerNorm", "layer_norm",
            says="the question asks for RMSNorm from tensor operations, not torch.nn.RMSNorm or F.rms_norm")
    _ = torch.manual_seed(1)
    for _shape, _eps in (((2, 3, 8), 1e-6), ((1, 1, 8), 0.5), ((5, 16), 1e-5), ((2, 2, 2, 6), 1e-6), ((8,), 1e-6)):
        _d = _shape[-1]
        _w = torch.randn(_d)
        _norm = nb.RMSNorm(_d, eps=_eps)
        _ = _norm.load_state_dict({"weight": _w})
        _x = torch.randn(*_shape) * 3 + 1
        _got = _norm(_x)
        assert tuple(_got.shape) == _shape, f"an input of shape {_shape} must give the same shape, got {tuple(_got.shape)}"
        assert torch.allclose(_got.double(), _rms(_x, _w, _eps), atol=1e-5, rtol=1e-4), f"input {_shape}, eps = {_eps}: the output differs from torch.nn.RMSNorm: x / sqrt(mean of x**2 over the LAST axis + eps) (eps inside the root, self.eps not a constant, no centring), times self.weight"


def q1_rmsnorm_2(nb):
    _ = torch.manual_seed(2)
    _w = torch.rand(16) + 0.5
    for _dtype, _scale, _tol in ((torch.float16, 400.0, 2e-3), (torch.bfloat16, 3.0, 2e-2), (torch.float16, 1e-3, 2e-3)):
        _norm = nb.RMSNorm(16)
        _ = _norm.load_state_dict({"weight": _w})
        _ = _norm.to(_dtype)
        _x = (torch.randn(3, 16) * _scale).to(_dtype)
        _got = _norm(_x)
        assert _got.dtype == _dtype, f"a {_dtype} input must give a {_dtype} output, got {_got.dtype}: compute in float32, then .to(x.dtype)"
        _want = _rms(_x.float(), _w.to(_dtype).float(), 1e-6)
        assert torch.isfinite(_got).all() and torch.allclose(_got.double(), _want, rtol=_tol, atol=_tol), f"a {_dtype} input of magnitude {_scale:g} gives wrong values (inf, nan or 0 where the squares overflow or vanish): compute the normalisation in float32 (x.float()), whatever x's dtype"
    _norm = nb.RMSNorm(16)                                                   # a float32 gain, as a model left in float32 has
    _ = _norm.load_state_dict({"weight": _w})
    _x = torch.randn(3, 16).to(torch.float16)
    _got = _norm(_x)
    assert _got.dtype == torch.float16, f"a float16 input with a float32 gain must give a float16 output ('the result has x's dtype whatever the gain's'), got {_got.dtype}: apply the gain in float32 and cast the product back, or, multiplying after the cast, cast the gain to x's dtype too"
    assert torch.allclose(_got.double(), _rms(_x.float(), _w, 1e-6), rtol=2e-3, atol=2e-3), "a float16 input with a float32 gain gives wrong values"


def q1_rmsnorm_3(nb):
    _grads = nb.standin("_grads")
    _side_effects = nb.standin("_side_effects")
    _ = torch.manual_seed(3)
    _norm = nb.RMSNorm(6)
    _w = torch.randn(6)
    _ = _norm.load_state_dict({"weight": _w})
    _zero = _norm(torch.zeros(2, 6))
    assert torch.isfinite(_zero).all() and torch.equal(_zero, torch.zeros(2, 6)), "an all-zero vector must give zeros, not nan: eps inside the square root keeps the division finite"
    _x = torch.randn(2, 4, 6)
    _found = _side_effects(_norm, (_x,), _norm)
    assert not _found, f"RMSNorm must not change its input or its parameters: {_found[0]}"
    _g = torch.randn(2, 4, 6)
    _res = _grads(_norm, (_x,), [_g], _norm)
    assert _res is not None, "the output carries no gradient: do not detach it or compute it under torch.no_grad()"
    _xr, _wr = _x.double().requires_grad_(), _w.double().requires_grad_()
    (_rms(_xr, _wr, 1e-6) * _g.double()).sum().backward()
    assert _res[0]["weight"] is not None and torch.allclose(_res[0]["weight"].double(), _wr.grad, atol=1e-4), "the gain self.weight gets a wrong gradient: multiply by self.weight itself (not a detached copy)"
    assert torch.allclose(_res[1][0].double(), _xr.grad, atol=1e-4), "the gradient with respect to x is wrong: the root mean square must be part of the graph (no .detach(), no .item())"


def q1_rmsnorm_4(nb):
    _on_device = nb.standin("_on_device")
    _ = torch.manual_seed(4)
    _norm = nb.RMSNorm(8, eps=0.1)
    _w = torch.randn(8)
    _ = _norm.load_state_dict({"weight": _w})
    _x = torch.randn(2, 3, 8)
    _problem, _got = _on_device(_norm, (_x,), _norm)
    assert _problem is None, f"with the layer and its input on a GPU, RMSNorm fails or answers on the CPU ({_problem}): make every new tensor on x's device"
    assert torch.allclose(_got.double(), _rms(_x, _w, 0.1), atol=1e-5), "on a GPU, RMSNorm gives wrong values"


# ---------------------------------------------------------------- q2: RoPE

_ROPE_HINT = ("each pair of NEIGHBOURING dimensions (2i, 2i+1) turns by m * theta_i with theta_i = base ** (-2i / d_k), "
              "m = offset ... offset + T - 1; x'_2i = x_2i cos - x_2i+1 sin, x'_2i+1 = x_2i sin + x_2i+1 cos")


def q2_rope_1(nb):
    _ = torch.manual_seed(1)
    for _shape, _offset, _base in (((2, 3, 7, 8), 0, 10000.0), ((1, 1, 1, 2), 0, 10000.0), ((2, 2, 5, 64), 5, 500.0),
                                   ((1, 2, 4, 16), 1000, 10000.0), ((3, 1, 6, 4), 2, 10.0)):
        _x = torch.randn(*_shape)
        _got = nb.rope(_x, _offset, _base)
        assert tuple(_got.shape) == _shape and _got.dtype == torch.float32, f"x of shape {_shape} (float32) must give the same shape and dtype, got {tuple(_got.shape)} {_got.dtype}"
        assert torch.allclose(_got.double(), _rope(_x, _offset, _base), atol=2e-3 if _offset >= 1000 else 1e-5), f"x {_shape}, offset {_offset}, base {_base:g}: the rotation differs from RoPE's: {_ROPE_HINT} (use the offset and base arguments)"


def q2_rope_2(nb):
    _ = torch.manual_seed(2)
    _q, _k = torch.randn(3, 2, 6, 32), torch.randn(3, 2, 6, 32)
    _s = {}
    for _offset in (0, 17, 250):
        _rq, _rk = nb.rope(_q, _offset), nb.rope(_k, _offset)
        assert torch.allclose(_rq.norm(dim=-1), _q.norm(dim=-1), atol=1e-4), "the rotation must keep every vector's length: rotate each pair by an angle (cos and sin of the same angle, not one for each member)"
        _s[_offset] = _rq @ _rk.transpose(-2, -1)
    assert torch.allclose(_s[0], _s[17], atol=1e-3) and torch.allclose(_s[0], _s[250], atol=1e-3), "shifting queries and keys together by the same offset changed their scores: RoPE scores must depend only on n - m (both members of a pair turned by the same angle m * theta_i, the same theta_i for queries and keys)"


def q2_rope_3(nb):
    _ = torch.manual_seed(3)
    _x = torch.randn(2, 2, 9, 8)
    _whole = nb.rope(_x)
    assert torch.allclose(_whole.double(), _rope(_x), atol=1e-5), f"with the default offset 0 and base 10000 the rotation is wrong: {_ROPE_HINT}"
    for _t in (1, 4, 8):
        _part = nb.rope(_x[:, :, _t:], _t)
        assert torch.allclose(_part, _whole[:, :, _t:], atol=1e-5), f"rotating positions {_t}-8 on their own with offset {_t} (as a step with a key/value cache does) must equal those positions of one rotation over 0-8: positions are offset, offset + 1, ..."


def q2_rope_4(nb):
    _ = torch.manual_seed(4)
    for _dtype, _tol in ((torch.float16, 5e-3), (torch.bfloat16, 4e-2)):
        _x = torch.randn(1, 2, 6, 16).to(_dtype)
        _got = nb.rope(_x, 300)
        assert _got.dtype == _dtype, f"a {_dtype} input must give a {_dtype} output, got {_got.dtype}: compute in float32, then .to(x.dtype)"
        assert torch.allclose(_got.double(), _rope(_x.float(), 300), atol=_tol, rtol=_tol), f"a {_dtype} input at positions 300-305 gives wrong values: compute the angles (positions times theta), cosines and sines in float32 whatever x's dtype (float16 resolves numbers near 300 only to 0.25)"


def q2_rope_5(nb):
    _on_device = nb.standin("_on_device")
    _ = torch.manual_seed(5)
    _x = torch.randn(2, 3, 4, 8)
    _problem, _got = _on_device(nb.rope, (_x, 7))
    assert _problem is None, f"with x on a GPU, rope fails or answers on the CPU ({_problem}): make positions and angles on x's device (torch.arange(..., device=x.device))"
    assert torch.allclose(_got.double(), _rope(_x, 7), atol=1e-5), "on a GPU, rope gives wrong values"


def q2_rope_6(nb):
    _grads = nb.standin("_grads")
    _side_effects = nb.standin("_side_effects")
    _ = torch.manual_seed(6)
    _x, _g = torch.randn(2, 2, 5, 8), torch.randn(2, 2, 5, 8)
    _found = _side_effects(nb.rope, (_x, 3))
    assert not _found, f"rope must not change its input: {_found[0]} (x is the caller's queries or keys: build new tensors, no in-place writes into x)"
    _res = _grads(nb.rope, (_x, 3), [_g])
    assert _res is not None, "rope's output carries no gradient: no .detach(), no torch.no_grad()"
    _xr = _x.double().requires_grad_()
    (_rope(_xr, 3) * _g.double()).sum().backward()
    assert torch.allclose(_res[1][0].double(), _xr.grad, atol=1e-5), "the gradient through rope is wrong: the rotation must be computed from x by differentiable operations"


# ---------------------------------------------------------------- q3: SwiGLU

def q3_swiglu_1(nb):
    for _shape, _h, _seed in (((2, 5, 8), 12, 1), ((1, 1, 4), 6, 2), ((3, 4), 10, 3)):
        _d = _shape[-1]
        _s = _swiglu_state(_d, _h, _seed)
        _ff = nb.SwiGLU(_d, _h)
        _ = _ff.load_state_dict(_s)
        _x = torch.randn(*_shape, generator=torch.Generator().manual_seed(_seed))
        _got = _ff(_x)
        assert tuple(_got.shape) == _shape, f"an input {_shape} must give {_shape}, got {tuple(_got.shape)}"
        assert torch.allclose(_got.double(), _swiglu(_s, _x), atol=1e-4, rtol=1e-4), f"input {_shape}: the output differs from (Swish(x W) * x V) W2: Swish = F.silu (z * sigmoid(z)) on x W only, the product elementwise with x V, then W2; no other activation"


def q3_swiglu_2(nb):
    _s = _swiglu_state(6, 8, 4)
    _ff = nb.SwiGLU(6, 8)
    _ = _ff.load_state_dict(_s)
    _x = torch.randn(4, 6, generator=torch.Generator().manual_seed(4)) * 60
    _got = _ff(_x)
    assert torch.isfinite(_got).all() and torch.allclose(_got.double(), _swiglu(_s, _x), rtol=1e-4, atol=1e-2), "with large inputs (pre-activations of several hundred) the output is inf or nan or wrong: exp by hand overflows; use F.silu or z * torch.sigmoid(z)"


def q3_swiglu_3(nb):
    _grads = nb.standin("_grads")
    _s = _swiglu_state(5, 7, 5)
    _ff = nb.SwiGLU(5, 7)
    _ = _ff.load_state_dict(_s)
    _x, _g = torch.randn(2, 3, 5), torch.randn(2, 3, 5)
    _res = _grads(_ff, (_x,), [_g], _ff)
    assert _res is not None, "the output carries no gradient: no .detach(), no torch.no_grad()"
    _p = {k: v.double().requires_grad_() for k, v in _s.items()}
    _xr = _x.double().requires_grad_()
    (_swiglu(_p, _xr) * _g.double()).sum().backward()
    for _n, _v in _p.items():
        assert _res[0][_n] is not None and torch.allclose(_res[0][_n].double(), _v.grad, atol=1e-4, rtol=1e-4), f"{_n} gets a wrong gradient (or none): the gate Swish(x W) and the linear part x V must both stay in the graph"
    assert torch.allclose(_res[1][0].double(), _xr.grad, atol=1e-4, rtol=1e-4), "the gradient with respect to x is wrong"


def q3_swiglu_4(nb):
    _on_device = nb.standin("_on_device")
    _s = _swiglu_state(4, 6, 6)
    _ff = nb.SwiGLU(4, 6)
    _ = _ff.load_state_dict(_s)
    _x = torch.randn(2, 4, generator=torch.Generator().manual_seed(6))
    _problem, _got = _on_device(_ff, (_x,), _ff)
    assert _problem is None, f"with the layer and its input on a GPU, SwiGLU fails or answers on the CPU ({_problem})"
    assert torch.allclose(_got.double(), _swiglu(_s, _x), atol=1e-4), "on a GPU, SwiGLU gives wrong values"


# ---------------------------------------------------------------- q4: SwiGLU's width

def q4_width_1(nb):
    for _d in (64, 96, 512, 4096):
        for _d_ff in (256, 384, 1000, 11008):
            for _m in (1, 8, 64, 256):
                _got = nb.swiglu_width(_d, _d_ff, _m)
                assert _got == _width(_d, _d_ff, _m), f"d = {_d}, d_ff = {_d_ff}, multiple_of = {_m}: expected {_width(_d, _d_ff, _m)}, got {_got}: the largest multiple of multiple_of with 3 d h <= 2 d d_ff + d_ff + d (both biases counted; round DOWN to the multiple)"


def q4_width_2(nb):
    for _d, _d_ff, _want in ((32, 128, 87), (96, 480, 322), (272, 1088, 727), (32, 32, 22)):
        _got = nb.swiglu_width(_d, _d_ff, 1)
        assert _got == _want, f"d = {_d}, d_ff = {_d_ff}, multiple_of = 1: 3 * {_d} * {_want} equals 06's parameter count exactly, so h = {_want} ('no more than' includes equality), got {_got}"
    assert nb.swiglu_width(128, 512) == 336, "the default multiple_of is 8 (d = 128, d_ff = 512 gives 336)"


def q4_width_3(nb):
    for _args, _want in (((4, 4, 64), 64), ((8, 8, 256), 256), ((2, 1, 1), 1)):
        _got = nb.swiglu_width(*_args)
        assert isinstance(_got, int) and _got == _want, f"swiglu_width{_args}: not even one multiple of {_args[2]} fits, so the answer is multiple_of = {_want}, as a Python int; got {_got!r}"
    _got = nb.swiglu_width(8192, 28672, 256)
    assert type(_got) is int and _got == _width(8192, 28672, 256), f"swiglu_width(8192, 28672, 256) must be the Python int {_width(8192, 28672, 256)}, got {_got!r} (no float, no tensor)"


# ---------------------------------------------------------------- q5: grouped-query attention

def q5_gqa_1(nb):
    nb.rule("GroupedQueryAttention", "MultiheadAttention", "TransformerEncoderLayer", "TransformerDecoderLayer",
            says="the question asks for the attention itself, not torch.nn.MultiheadAttention")
    _ = torch.manual_seed(1)
    with nb.sandbox.swap("rope", _REF_ROPE):   # a correct rope: this checks your attention, not question 2
        for _d, _h, _h_kv, _B, _T in ((24, 4, 4, 2, 5), (24, 4, 2, 2, 6), (24, 4, 1, 1, 4), (24, 6, 3, 3, 7), (32, 8, 2, 1, 1)):
            _s = _gqa_state(_d, _h, _h_kv, _h * 10 + _h_kv)
            _attn = nb.GroupedQueryAttention(_d, _h, _h_kv)
            _ = _attn.load_state_dict(_s)
            _x = torch.randn(_B, _T, _d)
            _out, _kv = _attn(_x)
            _want, _ = _gqa(_s, _x, _h, _h_kv)
            assert tuple(_out.shape) == (_B, _T, _d), f"(B, T) = {(_B, _T)}: the output must be (B, T, d_model), got {tuple(_out.shape)}"
            assert torch.allclose(_out.double(), _want, atol=1e-4), f"n_h = {_h}, n_kv = {_h_kv}, (B, T) = {(_B, _T)}: the output differs from grouped-query attention: {_GQA_HINT}; causal mask (tril)"
        _s = _gqa_state(16, 4, 2, 7)
        _attn = nb.GroupedQueryAttention(16, 4, 2)
        _ = _attn.load_state_dict(_s)
        _x = torch.randn(2, 6, 16) * 60                     # scores in the thousands: a softmax by hand overflows
        _problem = _float64_problem(_attn(_x)[0], _gqa(_s, _x, 4, 2)[0], rtol=1e-3, atol=1e-2)
        assert _problem is None, f"with large scores (inputs ~ 60, scores in the thousands) {_problem}: exp of a large score overflows to inf; use a softmax that subtracts the row's maximum (torch's softmax, scaled_dot_product_attention)"


def q5_gqa_2(nb):
    _ = torch.manual_seed(2)
    with nb.sandbox.swap("rope", _REF_ROPE):
        _s = _gqa_state(16, 4, 2, 2)
        _attn = nb.GroupedQueryAttention(16, 4, 2)
        _ = _attn.load_state_dict(_s)
        _x = torch.randn(2, 7, 16)
        _want, (_wk, _wv) = _gqa(_s, _x, 4, 2)
        for _chunks in ((1, 1, 1, 1, 1, 1, 1), (3, 2, 2), (4, 1, 2)):
            _cache, _outs, _start = None, [], 0
            for _n in _chunks:
                _o, _cache = _attn(_x[:, _start:_start + _n], _cache)
                _outs.append(_o)
                _start += _n
            assert torch.allclose(torch.cat(_outs, 1).double(), _want, atol=1e-4), f"feeding 7 positions in chunks of {_chunks} with the cache must give the outputs of one pass: rotate new positions at offset t (the cache's length, cache[0].size(2)), and let new query i see the t cached keys and the new ones up to t + i (mask ones(T, t + T).tril(t), not is_causal=True, which aligns the diagonal to the top left)"
            assert tuple(_cache[0].shape) == (2, 2, 7, 4) and tuple(_cache[1].shape) == (2, 2, 7, 4), f"the cache must hold (keys, values), each (B, n_kv, t + T, d_k) = (2, 2, 7, 4): the n_kv heads, not copies repeated to n_h; got {tuple(_cache[0].shape)}"
            assert torch.allclose(_cache[0].double(), _wk, atol=1e-4) and torch.allclose(_cache[1].double(), _wv, atol=1e-4), "the cache must hold the keys ROTATED (rope at their own positions) and the values, in position order (new ones after the cached ones)"


def q5_gqa_3(nb):
    _ = torch.manual_seed(3)
    with nb.sandbox.swap("rope", _REF_ROPE):
        _s = _gqa_state(12, 3, 1, 3)
        _attn = nb.GroupedQueryAttention(12, 3, 1)
        _ = _attn.load_state_dict(_s)
        _x = torch.randn(2, 6, 12)
        _x2 = _x.clone()
        _x2[:, 4:] = torch.randn(2, 2, 12)
        _y, _y2 = _attn(_x)[0], _attn(_x2)[0]
        assert torch.allclose(_y[:, :4], _y2[:, :4], atol=1e-5), "changing positions 4 and 5 changed the outputs at earlier positions: information flows from the future; the mask must be causal (True = may attend on and below the diagonal)"
        assert not torch.allclose(_y[:, 4:], _y2[:, 4:], atol=1e-4), "changing positions 4 and 5 did not change their own outputs: a position must attend to itself"
        _one = _attn(torch.randn(1, 1, 12))
        assert tuple(_one[0].shape) == (1, 1, 12) and tuple(_one[1][0].shape) == (1, 1, 1, 4), "with B = T = 1 the output must be (1, 1, d_model) and the keys (1, n_kv, 1, d_k): no squeeze()"


def q5_gqa_4(nb):
    _ = torch.manual_seed(4)
    with nb.sandbox.swap("rope", _REF_ROPE):
        _x = torch.randn(2, 5, 16)
        for _base in (None, 500.0):
            _s = _gqa_state(16, 4, 2, 40)
            _attn = nb.GroupedQueryAttention(16, 4, 2, base=_base)
            _ = _attn.load_state_dict(_s)
            _want, _ = _gqa(_s, _x, 4, 2, base=_base)
            assert torch.allclose(_attn(_x)[0].double(), _want, atol=1e-4), ("with base=None the layer must not rotate at all (if self.base is not None: ...)" if _base is None else "with base=500 the rotation must use the layer's own base: rope(q, t, self.base), not the default 10000")


def q5_gqa_5(nb):
    _on_device = nb.standin("_on_device")
    _step_output = nb.standin("_step_output")
    _ = torch.manual_seed(5)
    with nb.sandbox.swap("rope", _REF_ROPE):
        _s = _gqa_state(16, 4, 2, 5)
        _attn = nb.GroupedQueryAttention(16, 4, 2)
        _ = _attn.load_state_dict(_s)
        _x = torch.randn(2, 6, 16)
        _want, _ = _gqa(_s, _x, 4, 2)
        _, _cache = _gqa(_s, _x[:, :4], 4, 2)
        _problem, _got = _on_device(_step_output, (_attn, _x[:, 4:], _cache[0].float(), _cache[1].float()), _attn)
        assert _problem is None, f"with the layer, its input and a cache on a GPU, the layer fails or answers on the CPU ({_problem}): make the mask on x's device"
        assert torch.allclose(_got.double(), _want[:, 4:], atol=1e-4), "on a GPU, a step with a cache gives wrong values"


def q5_gqa_6(nb):
    _grads = nb.standin("_grads")
    _side_effects = nb.standin("_side_effects")
    _with_cache = nb.standin("_with_cache")
    _step_output = nb.standin("_step_output")
    _ = torch.manual_seed(6)
    with nb.sandbox.swap("rope", _REF_ROPE):
        _s = _gqa_state(8, 4, 2, 6)
        _attn = nb.GroupedQueryAttention(8, 4, 2)
        _ = _attn.load_state_dict(_s)
        _x = torch.randn(2, 3, 8)
        _, _cache = _gqa(_s, torch.randn(2, 2, 8), 4, 2)
        _cache = (_cache[0].float(), _cache[1].float())
        _found = _side_effects(_with_cache, (_attn, _x, *_cache), _attn)
        assert not _found, f"the layer must not change its input, the caller's cache or its own weights: {_found[0]} (torch.cat makes new tensors; no in-place writes into the cache)"
        _g = torch.randn(2, 3, 8)
        _res = _grads(_step_output, (_attn, _x, *_cache), [_g], _attn)
        assert _res is not None, "the output carries no gradient: no .detach(), no torch.no_grad()"
        _p = {k: v.double().requires_grad_() for k, v in _s.items()}
        _xr = _x.double().requires_grad_()
        (_gqa(_p, _xr, 4, 2, _cache)[0] * _g.double()).sum().backward()
        for _n, _v in _p.items():
            assert _res[0][_n] is not None and torch.allclose(_res[0][_n].double(), _v.grad, atol=1e-4), f"{_n} gets a wrong gradient (or none): 'the output must stay in the graph of every projection' (detach the returned cache if you like, not the keys and values the output is computed from)"
        assert torch.allclose(_res[1][0].double(), _xr.grad, atol=1e-4), "the gradient with respect to x is wrong"


# ---------------------------------------------------------------- q6: cache bytes

def _bytes(L, h_kv, d_k, dtype):
    return 2 * L * h_kv * d_k * torch.empty(0, dtype=dtype).element_size()


def q6_kv_bytes_1(nb):
    for _args in ((1, 1, 1, torch.float32), (12, 12, 64, torch.float16), (32, 8, 128, torch.bfloat16), (2, 3, 5, torch.float64),
                  (4, 2, 16, torch.int8), (6, 1, 32, torch.float32)):
        _got = nb.kv_bytes_per_token(*_args)
        assert _got == _bytes(*_args), f"L = {_args[0]}, n_kv = {_args[1]}, d_k = {_args[2]}, {_args[3]}: expected {_bytes(*_args)} bytes, got {_got}: 2 (a key and a value) * L * n_kv * d_k numbers of the dtype's size in BYTES (element_size)"
    for _args in ((3, 2, 8, torch.complex64), (2, 1, 4, torch.bool)):
        try:
            _got = nb.kv_bytes_per_token(*_args)
        except Exception as _e:
            _got = f"an error ({type(_e).__name__})"
        assert _got == _bytes(*_args), f"L = {_args[0]}, n_kv = {_args[1]}, d_k = {_args[2]}, {_args[3]}: expected {_bytes(*_args)} bytes, got {_got}: 'for any torch dtype', complex and bool included: its element size in bytes (element_size() or dtype.itemsize), not bits from torch.finfo or torch.iinfo"


def q6_kv_bytes_2(nb):
    _ = torch.manual_seed(2)
    for _dtype in (torch.float32, torch.bfloat16):
        _s = _gqa_state(24, 6, 2, 2)
        _cache = [tuple(t.to(_dtype) for t in _gqa(_s, torch.randn(3, 10, 24), 6, 2)[1]) for _ in range(5)]
        _measured = sum(t.nbytes for kv in _cache for t in kv) // (3 * 10)
        _got = nb.kv_bytes_per_token(5, 2, 4, _dtype)
        assert _got == _measured, f"a real {_dtype} cache of 5 layers with 2 key/value heads of width 4 holds {_measured} bytes per token and sequence, the function says {_got}"


def q6_kv_bytes_3(nb):
    _got = nb.kv_bytes_per_token(80, 8, 128, torch.bfloat16)
    assert type(_got) is int and _got == 327680, f"80 layers, 8 key/value heads of width 128 in bfloat16: the Python int 327680, got {_got!r} (no float from a division, no tensor)"
    assert nb.kv_bytes_per_token(3, 2, 32) == 1536, "the default dtype is float32 (4 bytes)"


# ---------------------------------------------------------------- q7: GPT-2's weights

_GPT2_HINT = ("Conv1D weights are (in, out), nn.Linear's (out, in): transpose; c_attn's weight is [W_q | W_k | W_v] along its "
              "SECOND axis and its bias likewise; ln_1 -> norm1, ln_2 -> norm2, attn.c_proj -> W_o, mlp.c_fc -> ff.linear1, "
              "mlp.c_proj -> ff.linear2")


def _gpt2_check(nb, seed, d, L, h, prefix):
    _hf = nb.here("_tiny_gpt2")(seed, d, L, 17, 12, prefix)
    _where = f"with {L} blocks and names {'with' if prefix else 'without'} the prefix transformer."
    try:
        _sd = nb.gpt2_state_dict(_hf)
    except Exception as _e:
        raise AssertionError(f"{_where}, gpt2_state_dict fails ({type(_e).__name__}: {str(_e)[:200]}): names may come with or without the prefix (str.removeprefix), and the number of blocks must be inferred from the names") from None
    _m = nb.GPT(17, d_model=d, n_heads=h, n_layers=L, d_ff=4 * d, max_len=12, dropout=0.0, gelu="tanh")
    _ = _m.eval()
    _want = {k: tuple(v.shape) for k, v in _m.state_dict().items()}
    assert isinstance(_sd, dict) and sorted(_sd) == sorted(_want), f"{_where}, the names must be exactly those of GPT(...).state_dict(): missing {sorted(set(_want) - set(_sd))[:3]}, not ours {sorted(set(_sd) - set(_want))[:3]} (infer the number of blocks from the names; skip attn.bias, attn.masked_bias and lm_head.weight)"
    _wrong = [k for k in _want if tuple(_sd[k].shape) != _want[k]]
    assert not _wrong, f"{_where}, {_wrong[0]} has shape {tuple(_sd[_wrong[0]].shape)}, our GPT's is {_want[_wrong[0]]}: {_GPT2_HINT}"
    _ = _m.load_state_dict(_sd)
    _ids = torch.randint(0, 17, (2, 9), generator=torch.Generator().manual_seed(seed))
    _got = _m(_ids)
    assert torch.allclose(_got, nb.here("_gpt2_logits")(_hf, _ids, h), atol=1e-4), f"{_where}: our GPT with the mapped weights computes other logits than GPT-2: {_GPT2_HINT}"


def q7_gpt2_1(nb):
    _gpt2_check(nb, 1, 8, 2, 2, "transformer.")
    _gpt2_check(nb, 2, 12, 3, 3, "transformer.")


def q7_gpt2_2(nb):
    _gpt2_check(nb, 3, 12, 2, 4, "")


def q7_gpt2_3(nb):
    _gpt2_check(nb, 6, 8, 2, 2, "transformer.")
    _untouched = nb.standin("_gpt2_untouched")
    for _prefix in ("transformer.", ""):
        _found = _untouched(_prefix)
        assert not _found, f"gpt2_state_dict changed the caller's dictionary: {_found} (read from it, build a new dict; no pop, del or in-place transpose)"


def q7_gpt2_4(nb):
    _gpt2_check(nb, 4, 8, 1, 2, "transformer.")
    _gpt2_check(nb, 5, 8, 5, 4, "")
    _gpt2_check(nb, 7, 8, 12, 2, "transformer.")      # GPT-2 small's 12 blocks: two-digit indices


# ---------------------------------------------------------------- q8: a Llama-family checkpoint

# correct RMSNorm, SwiGLU and grouped-query attention in other styles, swapped in with _REF_ROPE where question 8 is
# checked: this checks the conversion, not questions 1-5
_REF_RMSNORM = '''
class RMSNorm(nn.Module):
    def __init__(self, d_model, eps=1e-6):
        super().__init__()
        self.eps, self.weight = eps, nn.Parameter(torch.ones(d_model))

    def forward(self, x):
        z = x.float()
        return (z / z.square().mean(-1, keepdim=True).add(self.eps).sqrt() * self.weight.float()).to(x.dtype)
'''
_REF_SWIGLU = '''
class SwiGLU(nn.Module):
    def __init__(self, d_model, d_hidden):
        super().__init__()
        self.W, self.V = nn.Linear(d_model, d_hidden, bias=False), nn.Linear(d_model, d_hidden, bias=False)
        self.W2 = nn.Linear(d_hidden, d_model, bias=False)

    def forward(self, x):
        return self.W2(F.silu(self.W(x)) * self.V(x))
'''
_REF_GQA = '''
class GroupedQueryAttention(nn.Module):
    def __init__(self, d_model, n_heads, n_kv_heads, base=10000.0):
        super().__init__()
        self.h, self.h_kv, self.d_k, self.base = n_heads, n_kv_heads, d_model // n_heads, base
        self.W_q = nn.Linear(d_model, d_model, bias=False)
        self.W_k = nn.Linear(d_model, n_kv_heads * self.d_k, bias=False)
        self.W_v = nn.Linear(d_model, n_kv_heads * self.d_k, bias=False)
        self.W_o = nn.Linear(d_model, d_model, bias=False)

    def forward(self, x, cache=None):
        B, T, D = x.shape
        t = 0 if cache is None else cache[0].size(2)
        q = self.W_q(x).view(B, T, self.h, self.d_k).transpose(1, 2)
        k = self.W_k(x).view(B, T, self.h_kv, self.d_k).transpose(1, 2)
        v = self.W_v(x).view(B, T, self.h_kv, self.d_k).transpose(1, 2)
        if self.base is not None:
            q, k = rope(q, t, self.base), rope(k, t, self.base)
        if cache is not None:
            k, v = torch.cat([cache[0], k], 2), torch.cat([cache[1], v], 2)
        g = self.h // self.h_kv
        mask = torch.ones(T, t + T, dtype=torch.bool, device=x.device).tril(t)
        out = F.scaled_dot_product_attention(q, k.repeat_interleave(g, 1), v.repeat_interleave(g, 1), attn_mask=mask)
        return self.W_o(out.transpose(1, 2).reshape(B, T, D)), (k, v)
'''

_LLAMA_HINT = ("within each head, Hugging Face's rows j and j + d_k/2 (rotate_half) must become rows 2j and 2j + 1: reorder "
               "q_proj's rows within each of the n_h heads and k_proj's within each of the n_kv key/value heads")
_NAMES_HINT = ("input_layernorm -> norm1, post_attention_layernorm -> norm2, mlp.gate_proj -> ff.W, mlp.up_proj -> ff.V, "
               "mlp.down_proj -> ff.W2, v_proj and o_proj as they are (only q_proj's and k_proj's rows move); eps = rms_norm_eps")


def _llama_config(config):
    # (n_h, n_kv, RoPE base, RMSNorm epsilon, tied) of a Llama configuration, LlamaConfig's defaults where a key is missing
    n_h = config["num_attention_heads"]
    rope = config.get("rope_parameters") or {}
    return (n_h, config.get("num_key_value_heads") or n_h, config.get("rope_theta", rope.get("rope_theta", 10000.0)),
            config.get("rms_norm_eps", 1e-6), config.get("tie_word_embeddings", False))


def _llama_logits(hf, config, ids):
    # Hugging Face's LlamaForCausalLM in float64, from its weights: RoPE on the two halves of each head (rotate_half)
    sd = {k.removeprefix("model."): v.double() for k, v in hf.items()}
    n_h, n_kv, base, eps, tied = _llama_config(config)
    d = config["hidden_size"]
    d_k, (B, T) = d // n_h, ids.shape
    angle = torch.arange(T, dtype=torch.float64)[:, None] * base ** (-torch.arange(0, d_k, 2, dtype=torch.float64) / d_k)
    cos, sin = torch.cat([angle, angle], -1).cos(), torch.cat([angle, angle], -1).sin()

    def rotate(z):
        return z * cos + torch.cat([-z[..., d_k // 2:], z[..., : d_k // 2]], -1) * sin

    def rms(z, w):
        return z * torch.rsqrt(z.pow(2).mean(-1, keepdim=True) + eps) * w

    def heads(z, n):
        return z.view(B, T, n, d_k).transpose(1, 2)
    x = sd["embed_tokens.weight"][ids]
    for i in range(config["num_hidden_layers"]):
        p = f"layers.{i}."
        h = rms(x, sd[p + "input_layernorm.weight"])
        q = rotate(heads(h @ sd[p + "self_attn.q_proj.weight"].T, n_h))
        k = rotate(heads(h @ sd[p + "self_attn.k_proj.weight"].T, n_kv)).repeat_interleave(n_h // n_kv, 1)
        v = heads(h @ sd[p + "self_attn.v_proj.weight"].T, n_kv).repeat_interleave(n_h // n_kv, 1)
        scores = (q @ k.transpose(-2, -1) / math.sqrt(d_k)).masked_fill(~torch.ones(T, T, dtype=torch.bool).tril(), float("-inf"))
        x = x + (scores.softmax(-1) @ v).transpose(1, 2).reshape(B, T, d) @ sd[p + "self_attn.o_proj.weight"].T
        h = rms(x, sd[p + "post_attention_layernorm.weight"])
        x = x + (F.silu(h @ sd[p + "mlp.gate_proj.weight"].T) * (h @ sd[p + "mlp.up_proj.weight"].T)) @ sd[p + "mlp.down_proj.weight"].T
    return rms(x, sd["norm.weight"]) @ sd["embed_tokens.weight" if tied else "lm_head.weight"].T


def _llama_check(nb, seed, config, where, prefix="model.", lm_head=None, buffers=False, dtype=torch.float32, emb_scale=1.0):
    # llama_decoder on a random checkpoint of this configuration, against Hugging Face's computation; returns the model
    n_h, n_kv, _, _, tied = _llama_config(config)
    d, L, V = config["hidden_size"], config["num_hidden_layers"], config["vocab_size"]
    _hf = nb.here("_tiny_llama")(seed, d, L, n_h, n_kv, config["intermediate_size"], V, prefix,
                                 (not tied) if lm_head is None else lm_head, buffers, dtype, emb_scale)
    _ids = torch.randint(0, V, (2, 9), generator=torch.Generator().manual_seed(seed))
    with (nb.sandbox.swap("rope", _REF_ROPE), nb.sandbox.swap("RMSNorm", _REF_RMSNORM), nb.sandbox.swap("SwiGLU", _REF_SWIGLU),
          nb.sandbox.swap("GroupedQueryAttention", _REF_GQA)):
        try:
            _m = nb.llama_decoder(_hf, config)
            _got = _m(_ids)
        except Exception as _e:
            raise AssertionError(f"{where}: llama_decoder fails ({type(_e).__name__}: {str(_e)[:300]}): build "
                                 "ModernDecoder at the configuration's sizes (tied=tie_word_embeddings) and load exactly its "
                                 "names; names come with or without the prefix model.; skip buffers such as "
                                 "rotary_emb.inv_freq") from None
    _want = _llama_logits(_hf, config, _ids)
    assert isinstance(_got, torch.Tensor) and tuple(_got.shape) == (2, 9, V), f"{where}: the model must give logits (B, T, vocab_size) = (2, 9, {V})"
    assert _got.dtype == torch.float32, f"{where}: the model must compute in float32 whatever the checkpoint's dtype, got {_got.dtype} (load_state_dict converts; no .to(dtype))"
    assert torch.allclose(_got[:, 0].double(), _want[:, 0], atol=1e-3, rtol=1e-4), f"{where}: at position 0 (no rotation) the logits differ from Hugging Face's: {_NAMES_HINT}; the output layer is the embedding only if tie_word_embeddings"
    assert torch.allclose(_got.double(), _want, atol=1e-3, rtol=1e-4), f"{where}: position 0 is right but later positions differ from Hugging Face's: {_LLAMA_HINT}; base = rope_theta (or rope_parameters['rope_theta'])"
    return _m


def _llama(d, L, n_h, n_kv, d_hidden=24, vocab=13, **more):
    return {"vocab_size": vocab, "hidden_size": d, "intermediate_size": d_hidden, "num_hidden_layers": L,
            "num_attention_heads": n_h, "num_key_value_heads": n_kv, **more}


def q8_llama_1(nb):
    _llama_check(nb, 1, _llama(32, 2, 4, 2, rms_norm_eps=0.02, rope_theta=300.0, tie_word_embeddings=True),
                 "4 query and 2 key/value heads, tied, names with model.")
    _llama_check(nb, 2, _llama(48, 3, 6, 3, 40, rms_norm_eps=1e-5, rope_parameters={"rope_theta": 2000.0, "rope_type": "default"},
                               tie_word_embeddings=False), "6 query and 3 key/value heads, untied, names without model.", prefix="")
    _llama_check(nb, 3, _llama(64, 2, 4, 1, rms_norm_eps=0.01, rope_theta=10000.0, tie_word_embeddings=True),
                 "one key/value head (d_k = 16), tied, a state_dict() that lists lm_head.weight", lm_head="tied")


def q8_llama_2(nb):
    _m = _llama_check(nb, 4, _llama(16, 12, 2, 1, 20, rms_norm_eps=1e-5, rope_theta=100000.0, tie_word_embeddings=True),
                      "as a published file: 12 blocks, bfloat16, rotary_emb.inv_freq buffers", buffers=True, dtype=torch.bfloat16)
    assert _m.training is False, "llama_decoder must return the model in eval mode (model.eval())"


def q8_llama_3(nb):
    _llama_check(nb, 5, {"vocab_size": 13, "hidden_size": 24, "intermediate_size": 32, "num_hidden_layers": 2,
                         "num_attention_heads": 3, "hidden_act": "silu", "max_position_embeddings": 64},
                 "a configuration without num_key_value_heads, rope_theta, rms_norm_eps and tie_word_embeddings (LlamaConfig's "
                 "defaults: n_kv = n_h, base 10000, eps 1e-6, untied)", prefix="", emb_scale=1e-3)
    _llama_check(nb, 7, _llama(24, 2, 3, None, 32, rms_norm_eps=1e-5, rope_theta=1000.0, tie_word_embeddings=True),
                 "a configuration with num_key_value_heads: null ('so does num_key_value_heads: null': LlamaConfig reads None as "
                 "n_h, here 3)")


def q8_llama_4(nb):
    _llama_check(nb, 6, _llama(16, 2, 2, 1, 20, rms_norm_eps=1e-5, rope_parameters={"rope_theta": 500.0, "rope_type": "default"},
                               tie_word_embeddings=False), "2 query heads and 1 key/value head, untied", prefix="")
    _llama_check(nb, 8, _llama(16, 2, 2, 2, 20, rms_norm_eps=1e-5, rope_theta=1000.0, tie_word_embeddings=False),
                 "untied, names with model. but lm_head.weight ('every name with model. but the output layer's')")
    _untouched = nb.standin("_llama_untouched")
    for _prefix, _tied in (("model.", True), ("", False)):
        _found = _untouched(_prefix, _tied)
        assert not _found, f"llama_decoder changed the caller's dictionaries: {_found} (read from them; build new tensors and a new dict; no pop, del or in-place writes)"
