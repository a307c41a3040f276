"""Hidden checks of notebook 06_gpt: each case is a function of ``nb``, the submitted notebook as the
grader sees it (``grader.checks.Notebook``: its names as data or handles into the sandbox, ``nb.sandbox``,
``nb.standin(name)`` for a definition of ``standins.py`` executed where the notebook runs, and the static
``nb.uses``/``nb.rule``). The master's hidden test cells call them; they run on the trusted side only."""

from __future__ import annotations

import math

import torch
import torch.nn as nn
import torch.nn.functional as F

from seqcourse.testing import float64_problem as _float64_problem

_REF_BLOCK = '''
class Block(nn.Module):
    def __init__(self, d_model, n_heads, d_ff, dropout=0.1):
        super().__init__()
        self.norm1, self.attn = nn.LayerNorm(d_model), MultiHeadAttention(d_model, n_heads)
        self.norm2, self.ff = nn.LayerNorm(d_model), FeedForward(d_model, d_ff)
        self.dropout = nn.Dropout(dropout)
    def forward(self, x):
        h = self.norm1(x)
        x = x + self.dropout(self.attn(h, h, h, torch.ones(x.size(1), x.size(1), dtype=torch.bool, device=x.device).tril()))
        return x + self.dropout(self.ff(self.norm2(x)))
'''
# the master's answers to questions 2 and 6 with the notebook's interface (signatures, parameter names, GPT's
# initialisation's draws): what later questions' checks run on where that question failed (grader/checks.py,
# StandIns); GPT's blocks are the notebook's Block, the course's where question 1 failed
_REF_GPT = '''
class GPT(nn.Module):
    def __init__(self, vocab_size, d_model=128, n_heads=4, n_layers=4, d_ff=512, max_len=64, dropout=0.1):
        super().__init__()
        self.max_len = max_len
        self.tok_emb = nn.Embedding(vocab_size, d_model)
        self.pos_emb = nn.Embedding(max_len, d_model)
        self.blocks = nn.ModuleList(Block(d_model, n_heads, d_ff, dropout) for _ in range(n_layers))
        self.norm = nn.LayerNorm(d_model)
        self.dropout = nn.Dropout(dropout)
        for name, p in self.named_parameters():
            if p.dim() >= 2:
                nn.init.normal_(p, std=0.02)
            elif name.endswith("bias"):
                nn.init.zeros_(p)
    def forward(self, ids):
        x = self.dropout(self.tok_emb(ids) + self.pos_emb(torch.arange(ids.size(1), device=ids.device)))
        for block in self.blocks:
            x = block(x)
        return self.norm(x) @ self.tok_emb.weight.T
'''
_REF_FILTER_LOGITS = '''
def filter_logits(logits, temperature=1.0, top_k=None, top_p=None):
    logits = logits / temperature
    if top_k is not None:
        kth = logits.topk(min(top_k, logits.size(-1)), dim=-1).values[:, -1:]
        logits = logits.masked_fill(logits < kth, float("-inf"))
    if top_p is not None:
        probs, order = torch.softmax(logits, dim=-1).sort(dim=-1, descending=True)
        above = probs.cumsum(dim=-1) - probs
        logits = logits.masked_fill((above >= top_p).scatter(-1, order, above >= top_p), float("-inf"))
    return logits
'''


def _ref_block(s, p, x, h):
    # a correct pre-LN causal block (GELU feed-forward) computed from the weights s under the notebook's names
    B, T, d = x.shape
    def attn(z):
        def heads(n):
            return F.linear(z, s[p + f"attn.W_{n}.weight"], s[p + f"attn.W_{n}.bias"]).view(B, T, h, d // h).transpose(1, 2)
        o = F.scaled_dot_product_attention(heads("q"), heads("k"), heads("v"), is_causal=True)
        return F.linear(o.transpose(1, 2).reshape(B, T, d), s[p + "attn.W_o.weight"], s[p + "attn.W_o.bias"])
    def ln(z, n):
        return F.layer_norm(z, (d,), s[p + n + ".weight"], s[p + n + ".bias"])
    x = x + attn(ln(x, "norm1"))
    z = F.gelu(F.linear(ln(x, "norm2"), s[p + "ff.linear1.weight"], s[p + "ff.linear1.bias"]))
    return x + F.linear(z, s[p + "ff.linear2.weight"], s[p + "ff.linear2.bias"])


def _ref_gpt(s, ids, h, L):
    # a correct GPT forward pass (logits) from the weights s
    d = s["tok_emb.weight"].size(1)
    x = s["tok_emb.weight"][ids] + s["pos_emb.weight"][:ids.size(1)]
    for i in range(L):
        x = _ref_block(s, f"blocks.{i}.", x, h)
    return F.layer_norm(x, (d,), s["norm.weight"], s["norm.bias"]) @ s["tok_emb.weight"].T


def q1_block_1(nb):
    nb.rule("Block", "TransformerEncoderLayer", "TransformerDecoderLayer", "TransformerEncoder", "Transformer", "MultiheadAttention",
            says="the question asks for the block from its own sublayers (self.attn, self.ff), not torch.nn.TransformerEncoderLayer or torch.nn.MultiheadAttention")
    _ = torch.manual_seed(1)
    _ref = nn.TransformerEncoderLayer(12, 3, 20, dropout=0.0, activation="gelu", batch_first=True, norm_first=True).eval()
    with torch.no_grad():
        for _p in _ref.parameters():
            if _p.dim() == 1:
                _ = _p.copy_(torch.randn_like(_p) * 0.5)
    _blk = nb.Block(12, 3, 20, dropout=0.0)
    _ = _blk.load_state_dict(nb.here("_as_block")(_ref))
    for _B, _T in ((3, 7), (1, 1), (1, 4)):
        _x = torch.randn(_B, _T, 12)
        with torch.no_grad():
            _want = _ref(_x, src_mask=~nb.causal_mask(_T))
            _free = _ref(_x)
        _got = _blk(_x)
        assert tuple(_got.shape) == (_B, _T, 12), f"(B, T) = {(_B, _T)}: the block must return (B, T, d_model), got {tuple(_got.shape)} (squeeze() removes axes of size 1)"
        if _T > 1:
            assert not torch.allclose(_got, _free, atol=1e-4), "the block attends to later positions: information flows from the future. Pass a causal mask (causal_mask(T, x.device)) to the self-attention"
        assert torch.allclose(_got, _want, atol=1e-5), f"(B, T) = {(_B, _T)}: the block differs from torch.nn.TransformerEncoderLayer(norm_first=True) with a causal mask: pre-LN (normalise each sublayer's INPUT, norm1 before attention, norm2 before the feed-forward network), both residual connections, the mask causal and not transposed (tril: position t sees positions <= t)"


def q1_block_2(nb):
    _ = torch.manual_seed(2)
    _blk = nb.Block(8, 2, 16, dropout=0.0).eval()
    with torch.no_grad():
        for _n, _p in _blk.named_parameters():
            _ = _p.copy_(torch.randn_like(_p) * 0.5)
    _x = torch.randn(2, 6, 8)
    _x2 = _x.clone()
    _x2[:, 4:] = torch.randn(2, 2, 8)
    _y, _y2 = _blk(_x), _blk(_x2)
    assert torch.allclose(_y[:, :4], _y2[:, :4], atol=1e-5), "changing positions 4 and 5 changed the outputs at earlier positions: information flows from the future. The mask must be causal (tril), True where attention is allowed, and passed to the self-attention"
    assert not torch.allclose(_y[:, 4:], _y2[:, 4:], atol=1e-4), "changing positions 4 and 5 did not change their own outputs: a position must attend to itself (the diagonal of the causal mask must be True)"
    _x3 = _x.clone()
    _x3[:, 0] = torch.randn(2, 8)
    assert not torch.allclose(_blk(_x3)[:, 5], _y[:, 5], atol=1e-4), "the last position does not depend on the first: every position must attend to ALL earlier positions (a causal mask, not a diagonal or banded one)"


def q1_block_3(nb):
    _device_problem = nb.standin("_device_problem")
    _ = torch.manual_seed(3)
    _ref = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.5, activation="gelu", batch_first=True, norm_first=True).eval()
    with torch.no_grad():
        for _p in _ref.parameters():
            if _p.dim() == 1:
                _ = _p.copy_(torch.randn_like(_p) * 0.5)
    _blk = nb.Block(8, 2, 16, dropout=0.5)
    _ = _blk.load_state_dict(nb.here("_as_block")(_ref))
    _ = _blk.eval()
    _x = torch.randn(2, 4, 8)
    assert torch.allclose(_blk(_x), _blk(_x)), "in eval mode the block must be deterministic: dropout must be off (use self.dropout, or F.dropout(..., training=self.training))"
    with torch.no_grad():
        _want = _ref(_x, src_mask=~nb.causal_mask(4))
    assert torch.allclose(_blk(_x), _want, atol=1e-5), "in eval mode with dropout p = 0.5, the block differs from torch.nn.TransformerEncoderLayer(norm_first=True) with the same weights and a causal mask: dropout must be off in eval mode (self.dropout, not F.dropout without training=self.training), and the block must compute x + attn(h, h, h, causal mask) with h = norm1(x), then x + ff(norm2(x))"
    _blk = nb.Block(8, 2, 16, dropout=1.0)
    _ = _blk.train()
    assert torch.allclose(_blk(_x), _x), "with dropout p = 1 in training mode every sublayer's output is dropped, so the block must return x unchanged: apply self.dropout to each sublayer's output before adding it to x (not to the sum, not to a sublayer's input; is a dropout missing?)"
    _blk = nb.Block(8, 2, 16, dropout=0.0)
    _problem = _device_problem(_blk, (torch.randn(2, 5, 8),), _blk)
    assert _problem is None, f"with the block and its input on another device than the CPU, it fails or answers on the CPU ({_problem}): build the causal mask on the input's device, causal_mask(T, x.device)"


def q1_block_4(nb):
    _grads = nb.standin("_grads")
    _ = torch.manual_seed(4)
    _blk = nb.Block(8, 2, 16, dropout=0.0)
    _res = _grads(_blk, (torch.randn(2, 3, 8),), [torch.randn(2, 3, 8)], _blk)
    assert _res is not None, "no gradient flows through the block: keep the computation in the autograd graph (no .detach(), .data or torch.no_grad())"
    _missing = [n for n, g in _res[0].items() if g is None]
    assert not _missing, f"these parameters get no gradient: {_missing}: every sublayer and norm must be used (no .detach())"
    assert _res[1][0] is not None, "no gradient reaches the input x: the residual stream must keep x in the graph"


def q2_gpt_1(nb):
    with nb.sandbox.swap("Block", _REF_BLOCK):   # a correct Block: this checks your answer, not question 1
        _ = torch.manual_seed(5)
        _m = nb.GPT(13, d_model=12, n_heads=3, n_layers=3, d_ff=20, max_len=9, dropout=0.0).eval()
        _s = nb.here("_rand_state")(13, 12, 3, 20, 9)
        _ = _m.load_state_dict(_s)
        for _B, _T in ((2, 9), (1, 1), (1, 3)):
            _ids = torch.randint(0, 13, (_B, _T))
            _got = _m(_ids)
            assert tuple(_got.shape) == (_B, _T, 13), f"(B, T) = {(_B, _T)}: logits must be (B, T, C), got {tuple(_got.shape)} (squeeze() removes axes of size 1)"
            _want = _ref_gpt(_s, _ids, 3, 3)
            _no_pos = dict(_s, **{"pos_emb.weight": torch.zeros_like(_s["pos_emb.weight"])})
            if _T > 1:
                assert not torch.allclose(_got, _ref_gpt(_no_pos, _ids, 3, 3), atol=1e-3), "the logits do not depend on the positions: add pos_emb(0 ... T-1) to the token embeddings"
            assert torch.allclose(_got, _want, atol=1e-4), f"(B, T) = {(_B, _T)}, 3 layers: the logits differ from the reference GPT: positions 0 ... T-1 (not from 1), every block in order, the final norm, logits tied to tok_emb.weight, no softmax"


def q2_gpt_2(nb):
    with nb.sandbox.swap("Block", _REF_BLOCK):   # a correct Block: this checks your answer, not question 1
        _ = torch.manual_seed(6)
        _m = nb.GPT(9, d_model=8, n_heads=2, n_layers=1, d_ff=16, max_len=5, dropout=0.0).eval()
        _s = nb.here("_rand_state")(9, 8, 1, 16, 5)
        _ = _m.load_state_dict(_s)
        _ids = torch.randint(0, 9, (2, 5))
        _y = _m(_ids)
        _ids2 = _ids.clone()
        _ids2[:, 3:] = (_ids[:, 3:] + 1) % 9
        _y2 = _m(_ids2)
        assert torch.allclose(_y[:, :3], _y2[:, :3], atol=1e-5), "changing the last two tokens changed the logits of earlier positions: the model must be causal (is each block's mask causal?)"
        assert not torch.allclose(_ref_gpt(_s, _ids, 2, 1).softmax(-1), _y, atol=1e-3), "forward must return raw logits, not probabilities (no softmax)"
        assert torch.allclose(_y, _ref_gpt(_s, _ids, 2, 1), atol=1e-4), "(B, T) = (2, 5), 1 layer: the logits differ from the reference GPT: tok_emb(ids) + pos_emb(0 ... T-1), every block in order, the final norm, logits = norm(x) @ tok_emb.weight.T (tied, no softmax)"


def q2_gpt_3(nb):
    _grads = nb.standin("_grads")
    _device_problem = nb.standin("_device_problem")
    _ = torch.manual_seed(7)
    _m = nb.GPT(10, d_model=8, n_heads=2, n_layers=1, d_ff=16, max_len=4, dropout=0.0)
    with torch.no_grad():
        for _b in _m.blocks:
            for _p in _b.parameters():
                _ = _p.zero_()            # blocks off: only the embeddings, the norm and the tied output remain
    _ids = torch.tensor([[1, 2, 3]])
    _fwd = nb.standin("_fwd")
    _res = _grads(_fwd, (_m, _ids), [torch.tensor(1.0)], _m)
    assert _res is not None and _res[0]["tok_emb.weight"] is not None, "no gradient reaches tok_emb: keep the computation in the autograd graph (no .detach())"
    assert float(_res[0]["tok_emb.weight"][7].abs().sum()) > 0, "the logit of token 7 sends no gradient to row 7 of tok_emb: the output layer must be tied to the token embedding's weight and stay in the graph (not tok_emb.weight.detach(), not a copy)"
    _m = nb.GPT(10, d_model=8, n_heads=2, n_layers=1, d_ff=16, max_len=4, dropout=0.0)
    _problem = _device_problem(_m, (torch.randint(0, 10, (2, 3)),), _m)
    assert _problem is None, f"with the model and the ids on another device than the CPU, forward fails or answers on the CPU ({_problem}): make the positions with torch.arange(T, device=ids.device)"
    _m = nb.GPT(10, d_model=8, n_heads=2, n_layers=1, d_ff=16, max_len=4, dropout=1.0).train()
    _got = _m(torch.tensor([[1, 2, 3]]))
    _want = F.layer_norm(torch.zeros(1, 3, 8), (8,), _m.norm.weight.detach(), _m.norm.bias.detach()) @ _m.tok_emb.weight.detach().T
    assert torch.allclose(_got, _want, atol=1e-5), "with dropout p = 1 in training mode the embeddings must be dropped entirely (self.dropout on tok_emb(ids) + pos_emb(positions)) and the blocks' sublayers too: is the embedding dropout missing?"


def _bigram(nb, vocab_size, seed, scale=1.0):
    """A random table of next-token logits and the stand-in bigram model that holds it, where the notebook runs."""
    _ = torch.manual_seed(seed)
    table = torch.randn(vocab_size, vocab_size) * scale
    model = nb.standin("_Bigram")(vocab_size)
    _ = model.load_state_dict({"table.weight": table})
    return table, model


def q3_nll_1(nb):
    _table, _m = _bigram(nb, 12, 1, 3.0)
    _lp = _table.log_softmax(-1)
    def _want(ids, pad):
        out = -_lp[ids[:, :-1], ids[:, 1:]]
        return out.masked_fill(ids[:, 1:] == pad, 0.0)
    for _ids, _pad in ((torch.tensor([[2, 4, 5, 6, 7, 3], [2, 9, 3, 1, 1, 1], [2, 3, 1, 1, 1, 1]]), 1),
                       (torch.tensor([[2, 11, 3]]), 0), (torch.tensor([[2, 3]]), 0)):
        _got = nb.next_token_nll(_m, _ids, _pad)
        assert tuple(_got.shape) == tuple(_want(_ids, _pad).shape), f"ids {tuple(_ids.shape)}: the result must be (B, T-1) = {tuple(_want(_ids, _pad).shape)}, got {tuple(_got.shape)} (reduction='none', reshaped to (B, T-1); no squeeze())"
        assert torch.allclose(_got, _want(_ids, _pad), atol=1e-4), f"ids {tuple(_ids.shape)}, pad_id = {_pad}: the NLLs differ: 0.0 where the TARGET ids[:, 1:] equals pad_id (use the pad_id argument, not 0), -log p of ids[:, t+1] given ids[:, :t+1] elsewhere (not shifted the other way, no <sos> target)"
    _ = torch.manual_seed(11)
    _g = nb.GPT(9, d_model=8, n_heads=2, n_layers=1, d_ff=16, max_len=4, dropout=0.0)
    _ids = torch.tensor([[2, 4, 5, 6, 3], [2, 7, 3, 0, 0]])            # T = 5: the model reads T - 1 = max_len tokens
    try:
        _got = nb.next_token_nll(_g, _ids, 0)
    except Exception:
        raise AssertionError("a GPT with max_len = 4 given ids of 5 tokens failed: the model reads ids[:, :-1] (T - 1 tokens), model(ids[:, :-1]), not model(ids)[:, :-1]") from None
    _lp = _g(_ids[:, :-1]).log_softmax(-1)
    _w = (-_lp.gather(-1, _ids[:, 1:, None])[..., 0]).masked_fill(_ids[:, 1:] == 0, 0.0)
    assert torch.allclose(_got, _w, atol=1e-4), "with a GPT the NLLs differ from those of its logits model(ids[:, :-1]) at the targets ids[:, 1:]"


def q3_nll_2(nb):
    _grads = nb.standin("_grads")
    _table, _m = _bigram(nb, 7, 2)
    _ids = torch.tensor([[2, 4, 5, 3], [2, 6, 3, 0]])
    _w = torch.randn(2, 3)
    _res = _grads(nb.next_token_nll, (_m, _ids), [_w], _m)
    assert _res is not None and _res[0]["table.weight"] is not None, "no gradient flows from the NLLs to the model: keep them in the autograd graph (no .detach(), .item() or torch.no_grad())"
    _t = _table.clone().requires_grad_(True)
    _ref = -_t.log_softmax(-1)[_ids[:, :-1], _ids[:, 1:]].masked_fill(_ids[:, 1:] == 0, 0.0)
    _ = (_ref * _w).sum().backward()
    assert torch.allclose(_res[0]["table.weight"], _t.grad, atol=1e-5), "the gradient of the NLLs differs from that of -log_softmax(logits) at the targets: padding targets must contribute nothing (not even through a mean)"


def q3_nll_3(nb):
    _on_device = nb.standin("_on_device")
    _table, _m = _bigram(nb, 7, 3)
    _ids = torch.tensor([[2, 4, 5, 3], [2, 6, 3, nb.PAD_ID]])
    _problem, _got = _on_device(nb.next_token_nll, (_m, _ids), _m)
    assert _problem is None, f"with the model and ids on a GPU, next_token_nll fails ({_problem}): make every tensor on ids' device (no torch.zeros(B, T - 1) filled afterwards)"
    _want = (-_table.log_softmax(-1)[_ids[:, :-1], _ids[:, 1:]]).masked_fill(_ids[:, 1:] == nb.PAD_ID, 0.0)
    assert isinstance(_got, torch.Tensor) and _got.shape == _want.shape and torch.allclose(_got, _want, atol=1e-4), "on a GPU the NLLs differ from -log p(ids[:, t+1] | ids[:, :t+1]) (0.0 at padding targets)"


def q3_nll_4(nb):
    _table, _m = _bigram(nb, 9, 4, 1e4)   # a confident model: logits of magnitude ~10,000
    _ids = torch.tensor([[2, 4, 5, 6, 3], [2, 7, 3, 0, 0]])
    _got = nb.next_token_nll(_m, _ids, 0)
    _want = (-_table.double().log_softmax(-1)[_ids[:, :-1], _ids[:, 1:]]).masked_fill(_ids[:, 1:] == 0, 0.0)
    _p = _float64_problem(_got, _want, rtol=1e-5, atol=1e-3)
    assert _p is None, f"with confident logits (magnitude ~10,000) the NLLs are wrong: {_p}. Compute them stably (F.cross_entropy or log_softmax): the log of a softmax is -inf where a probability underflows to 0"


def q4_decay_1(nb):
    _ = torch.manual_seed(1)
    _seq = nb.standin("_seq")
    _m = _seq()
    _decay, _no = nb.decay_split(_m)
    assert sorted(_decay) == ["1.weight", "3.weight"], f"in nn.Sequential(Embedding, Linear, LayerNorm, Linear without bias) the decayed names must be ['1.weight', '3.weight'], got {sorted(_decay)}: find the linear layers by type (isinstance(module, nn.Linear)), not by the names used in GPT; LayerNorm and embedding weights are not decayed"
    assert sorted(_no) == ["0.weight", "1.bias", "2.bias", "2.weight"], f"the others must be ['0.weight', '1.bias', '2.bias', '2.weight'], got {sorted(_no)}: each parameter exactly once"
    _g = nb.GPT(11, d_model=8, n_heads=2, n_layers=2, d_ff=16, max_len=6)
    _decay, _no = nb.decay_split(_g)
    _names = [n for n, _ in _g.named_parameters()]
    assert len(_decay) + len(_no) == len(_names) and set(_decay) | set(_no) == set(_names), "each parameter must appear exactly once (no duplicates, none missing)"
    assert _decay == [n for n in _names if n in set(_decay)] and _no == [n for n in _names if n in set(_no)], "keep model.named_parameters() order within each list"
    assert len(_decay) == 12, f"a 2-layer GPT has 12 linear weights (W_q, W_k, W_v, W_o, linear1, linear2 per block), got {len(_decay)} decayed"
    _got = [list(_x) for _x in nb.decay_split(_seq()[1])]
    assert _got == [["weight"], ["bias"]], f"a model that is itself an nn.Linear must give (['weight'], ['bias']), the names model.named_parameters() gives, got {tuple(_got)}: its own module name is '' (not a prefix followed by '.')"
    _m = _seq()
    _ = _m[1].requires_grad_(False)
    _decay, _no = nb.decay_split(_m)
    assert sorted(_decay) == ["1.weight", "3.weight"] and sorted(_no) == ["0.weight", "1.bias", "2.bias", "2.weight"], f"with a linear layer frozen (requires_grad False) the split must not change, got {sorted(_decay)} and {sorted(_no)}: every parameter of model.named_parameters() exactly once, frozen ones too"


def q5_schedule_1(nb):
    _cases = {(0, 0, 10, 0.0): 1.0, (5, 0, 10, 0.0): 0.5, (2, 10, 100, 0.1): 0.3, (9, 10, 100, 0.1): 1.0,
              (10, 10, 100, 0.2): 1.0, (40, 10, 100, 0.2): 0.2 + 0.8 * 0.5 * (1 + math.cos(math.pi / 3)),
              (100, 10, 100, 0.2): 0.2, (500, 10, 100, 0.2): 0.2, (7, 3, 5, 0.0): 0.0}
    for (_s, _w, _t, _r), _want in _cases.items():
        _got = nb.warmup_cosine(_s, _w, _t, _r)
        assert isinstance(_got, float), "warmup_cosine must return a Python float"
        assert abs(_got - _want) < 1e-9, f"warmup_cosine(step={_s}, warmup={_w}, total={_t}, min_ratio={_r}) = {_got:.6f}, expected {_want:.6f}: warmup = 0 means no warm-up; the cosine runs over total - warmup steps (p = (step - warmup) / (total - warmup)); after total it stays at min_ratio (clip p at 1); use the min_ratio argument"


def q6_filter_1(nb):
    nb.rule("filter_logits", "transformers", "TopKLogitsWarper", "TopPLogitsWarper", "LogitsProcessorList",
            says="the question asks for the filtering itself (topk, sort, cumsum, scatter), not Hugging Face's logits warpers")
    _ = torch.manual_seed(1)
    _l = torch.randn(4, 9) * 2
    for _T in (0.3, 1.0, 2.5):
        assert torch.allclose(nb.filter_logits(_l, temperature=_T), _l / _T, atol=1e-6), f"with temperature {_T} and no top-k/top-p, the result must be logits / temperature (nothing removed)"
    for _k in (1, 4, 9):
        _got = nb.filter_logits(_l, temperature=0.7, top_k=_k)
        _kept = ~torch.isinf(_got)
        _want = torch.zeros_like(_kept).scatter(-1, _l.topk(_k, -1).indices, True)
        assert tuple(_got.shape) == (4, 9) and torch.equal(_kept, _want), f"top_k = {_k}: every row must keep exactly its {_k} largest logits (per row, not over the whole batch; k, not k - 1 or k + 1)"
        assert torch.allclose(_got[_kept], (_l / 0.7)[_kept]), f"top_k = {_k}: kept tokens must equal logits / temperature"
    _one = nb.filter_logits(_l[:1], top_k=3)
    assert tuple(_one.shape) == (1, 9), f"with a batch of 1 the result must be (1, C), got {tuple(_one.shape)} (no squeeze())"
    _tie = torch.tensor([[1.0, 3.0, 3.0, 3.0, 0.0], [5.0, 3.0, 3.0, 0.0, -1.0]])
    _kept = [set((~torch.isinf(_r)).nonzero().flatten().tolist()) for _r in nb.filter_logits(_tie, top_k=2)]
    _allowed = ([{1, 2}, {1, 3}, {2, 3}, {1, 2, 3}], [{0, 1}, {0, 2}, {0, 1, 2}])
    assert all(_k in _a for _k, _a in zip(_kept, _allowed)), f"top_k = 2 on logits {_tie.tolist()} (ties at the 2nd largest) kept {[sorted(_k) for _k in _kept]}: 'where tokens tie with the k-th largest logit, keeping all of them or exactly k (those topk picks) are both right, never fewer than k'"
    try:
        _all = nb.filter_logits(_l, temperature=0.7, top_k=12)
    except Exception as _e:
        raise AssertionError(f"top_k = 12 on a vocabulary of 9 raised {type(_e).__name__}: 'a k of at least the vocabulary size keeps every token' (topk of min(top_k, C))") from None
    assert torch.allclose(_all, _l / 0.7), "top_k = 12 on a vocabulary of 9 must remove nothing: 'a k of at least the vocabulary size keeps every token'"


def q6_filter_2(nb):
    _probs = torch.tensor([[0.05, 0.40, 0.25, 0.02, 0.18, 0.10], [0.30, 0.04, 0.06, 0.12, 0.20, 0.28], [0.90, 0.05, 0.02, 0.01, 0.01, 0.01]])
    _l = _probs.log()
    def _kept(x):
        return (~torch.isinf(x)).tolist()
    _cases = {0.6: [[False, True, True, False, False, False], [True, False, False, False, True, True], [True] + [False] * 5],
              0.8: [[False, True, True, False, True, False], [True, False, False, True, True, True], [True] + [False] * 5],
              0.92: [[False, True, True, False, True, True], [True, False, True, True, True, True], [True, True] + [False] * 4],
              0.1: [[False, True, False, False, False, False], [True, False, False, False, False, False], [True] + [False] * 5]}
    for _p, _want in _cases.items():
        _got = nb.filter_logits(_l, top_p=_p)
        assert _kept(_got) == _want, f"top_p = {_p}: each row must keep its smallest set of most likely tokens whose probability reaches {_p}, the token that crosses {_p} included (keep a token while the mass ranked ABOVE it is below p), in the row's own order (sort each row, then scatter the mask back to vocabulary order); the most likely token is always kept"
        assert torch.allclose(_got[~torch.isinf(_got)], _l[~torch.isinf(_got)]), "kept tokens must keep their logits"
    assert _kept(nb.filter_logits(_l, top_p=0.55))[0] == [False, True, True, False, False, False], "top_p = 0.55: the first row keeps its two most likely tokens (0.40 is below 0.55, 0.25 crosses it)"
    _got = nb.filter_logits(_l, temperature=0.5, top_p=0.55)
    assert _kept(_got)[0] == [False, True, False, False, False, False], "top-p must use the distribution AFTER the temperature: at temperature 0.5 the first row's top token has probability 0.60 > 0.55, so it alone is kept"
    _got = [set((~torch.isinf(_r)).nonzero().flatten().tolist()) for _r in nb.filter_logits(torch.tensor([[0.2, 0.4, 0.2, 0.2], [0.1, 0.3, 0.3, 0.3]]).log(), top_p=0.5)]
    _allowed = ([{0, 1}, {1, 2}, {1, 3}, {0, 1, 2, 3}], [{1, 2}, {1, 3}, {2, 3}, {1, 2, 3}])
    assert all(_k in _a for _k, _a in zip(_got, _allowed)), f"top_p = 0.5 on probabilities [[0.2, 0.4, 0.2, 0.2], [0.1, 0.3, 0.3, 0.3]] kept {[sorted(_k) for _k in _got]}: 'where a tie meets the crossing point, keeping those the sort ranks first or all of them is right, as long as the kept set reaches p' (here 2 tokens, or every tied one)"


def q6_filter_3(nb):
    _side_effects = nb.standin("_side_effects")
    _ = torch.manual_seed(3)
    _l = torch.randn(3, 7)
    _found = _side_effects(nb.filter_logits, (_l, 0.8, 3, 0.7), None, True)
    assert not _found, f"filter_logits has side effects: {'; '.join(_found)}: do not change the caller's logits in place (no masked_fill_ or /= on the argument) and draw no random numbers"
    _probs = torch.tensor([[0.05, 0.40, 0.25, 0.02, 0.18, 0.10]])
    _got = nb.filter_logits(_probs.log(), top_k=3, top_p=0.75)
    assert (~torch.isinf(_got)).tolist() == [[False, True, True, False, False, False]], "top-p must work on the distribution left by top-k, renormalised: after top-k = 3 the probabilities are 0.48, 0.30, 0.22 and top-p = 0.75 keeps the first two"


def q6_filter_4(nb):
    _on_device = nb.standin("_on_device")
    _l = torch.tensor([[0.05, 0.40, 0.25, 0.02, 0.18, 0.10]]).log()
    _problem, _got = _on_device(nb.filter_logits, (_l, 1.0, 3, 0.75))
    assert _problem is None, f"with the logits on a GPU, filter_logits fails ({_problem}): make every mask and index on the logits' device (torch.zeros_like(logits, dtype=torch.bool), torch.full_like, ...), not with torch.zeros(shape)"
    assert isinstance(_got, torch.Tensor) and (~torch.isinf(_got)).tolist() == [[False, True, True, False, False, False]], "on a GPU, top_k = 3 then top_p = 0.75 must keep the two most likely tokens (0.48 and 0.30 after renormalising)"


def q6_filter_5(nb):
    _l = torch.tensor([[0.0, 3e4, -2e4, 1e4, 2.9e4], [5.0, 4.0, 3.0, 2.0, 1.0]])
    _got = nb.filter_logits(_l, top_p=0.5)
    assert (~torch.isinf(_got)).tolist() == [[False, True, False, False, False], [True, False, False, False, False]], f"logits as large as 30,000 (or a small temperature) must still be filtered: with top_p = 0.5 the first row keeps only its top token (probability 1), got {(~torch.isinf(_got)).tolist()}. exp() of large logits overflows: use torch.softmax (it subtracts the row's maximum) rather than exp(logits) / sum"
    assert not bool(torch.isnan(_got).any()), "the filtered logits hold NaN: exp() of large logits overflowed (use torch.softmax)"
    _cold = nb.filter_logits(torch.tensor([[2.0, 1.0, 0.5, -1.0]]), temperature=0.001, top_p=0.9)
    assert (~torch.isinf(_cold)).tolist() == [[True, False, False, False]] and not bool(torch.isnan(_cold).any()), f"at temperature 0.001 the logits are divided into the thousands: top_p = 0.9 keeps the top token alone, got {_cold.tolist()}: compute the probabilities with torch.softmax"


def q7_sample_1(nb):
    _draw = nb.standin("_draw")
    _probs = torch.tensor([[0.05, 0.40, 0.25, 0.02, 0.18, 0.10], [0.30, 0.04, 0.06, 0.12, 0.20, 0.28]])
    _n = 3000
    for _kw, _want in (({}, _probs), ({"temperature": 0.5}, _probs ** 2 / (_probs ** 2).sum(-1, keepdim=True)),
                       ({"top_p": 0.6}, torch.tensor([[0, 0.40, 0.25, 0, 0, 0], [0.30, 0, 0, 0, 0.20, 0.28]]))):
        _want = _want / _want.sum(-1, keepdim=True)
        _got, _ = _draw(nb.sample_next, _probs.log().repeat_interleave(_n, 0), 7, **_kw)
        assert tuple(_got.shape) == (2 * _n,), f"sample_next must return (B,) = ({2 * _n},)"
        _freq = torch.stack([torch.bincount(_got[_i * _n:(_i + 1) * _n], minlength=6).float() / _n for _i in range(2)])
        assert bool(((_freq > 0) <= (_want > 0)).all()), f"with {_kw or 'no filter'} a token outside the kept set was drawn: sample from softmax(filter_logits(logits, temperature, top_k, top_p)), passing every argument on"
        assert float((_freq - _want).abs().max()) < 0.04, f"with {_kw or 'no filter'}, 3000 draws per row: frequencies {[[round(v, 2) for v in r] for r in _freq.tolist()]}, expected about {[[round(v, 2) for v in r] for r in _want.tolist()]}: draw from softmax(filtered logits) over the vocabulary (dim=-1), one token per row (not the argmax, not the same token for every row)"
    _one, _ = _draw(nb.sample_next, torch.randn(1, 5), 0)
    assert tuple(_one.shape) == (1,), f"with a batch of 1 the result must be (1,), got {tuple(_one.shape)} (index [:, 0] or squeeze(-1), not squeeze())"


def q7_sample_2(nb):
    _sample_on_device = nb.standin("_sample_on_device")
    _problem, _got = _sample_on_device(torch.tensor([[0.0, 40.0, 5.0, 1.0], [30.0, 0.0, 0.0, 2.0]]), 3, temperature=0.9, top_k=3, top_p=0.8)
    assert _problem is None, f"with the logits on a GPU (and a generator there), sample_next fails ({_problem}): draw with device=logits.device (torch.rand(..., generator=generator, device=logits.device))"
    assert isinstance(_got, torch.Tensor) and _got.tolist() == [1, 0], f"on a GPU, rows whose top token has probability 1 after filtering must draw it: expected [1, 0], got {_got.tolist() if isinstance(_got, torch.Tensor) else _got}"


def q7_sample_3(nb):
    _draw_twice = nb.standin("_draw_twice")
    _l = torch.tensor([[0.0, 3e4, -2e4, 1e4], [-5e3, -6e3, 2e4, 1.5e4]]).repeat(50, 1)
    _a, _b, _ = _draw_twice(nb.sample_next, _l, 3)
    assert _a.tolist() == [1, 2] * 50 and _b.tolist() == [1, 2] * 50, "with logits as large as 30,000 the most likely token has probability 1 and must be drawn every time: compute the probabilities with torch.softmax, not exp(logits) / sum (it overflows)"
    _a, _b, _advanced = _draw_twice(nb.sample_next, torch.zeros(200, 10), 4)
    assert _advanced, "sample_next did not advance the caller's generator: draw from generator itself (generator=generator), not from a copy or a new generator seeded like it"
    assert not torch.equal(_a, _b), "two calls with the same generator drew the same tokens: each call must take new random numbers from the caller's generator (not a copy of it)"
    assert len(set(_a.tolist())) == 10, f"200 rows of uniform logits over 10 tokens drew only {sorted(set(_a.tolist()))}: every row needs its own random number"


def q8_kv_cache_1(nb):
    with nb.sandbox.swap("Block", _REF_BLOCK):   # a correct Block: this checks your answer, not question 1
        _ = torch.manual_seed(8)
        _m = nb.GPT(13, d_model=12, n_heads=3, n_layers=3, d_ff=20, max_len=9, dropout=0.0).eval()
        _s = nb.here("_rand_state")(13, 12, 3, 20, 9)
        _ = _m.load_state_dict(_s)
        for _B in (3, 1):
            _ = _m.train(_B == 1)                                       # dropout=0.0: either mode, the same logits
            _ids = torch.randint(0, 13, (_B, 7))
            _want = _ref_gpt(_s, _ids, 3, 3)
            _cache = nb.empty_cache(_m, _B)
            for _t in range(7):
                _logits, _cache = nb.step(_m, torch.tensor(_ids[:, _t].tolist()), _cache)
                assert tuple(_logits.shape) == (_B, 13), f"B = {_B}: the logits must be (B, C) = ({_B}, 13), got {tuple(_logits.shape)} (no squeeze())"
                assert len(_cache) == 3 and all(tuple(_k.shape) == (_B, 3, _t + 1, 4) and tuple(_v.shape) == (_B, 3, _t + 1, 4) for _k, _v in _cache), f"after step {_t} every block's keys and values must be (B, n_h, t + 1, d_k) = ({_B}, 3, {_t + 1}, 4): keep one pair per block and append, never drop"
                assert torch.allclose(_logits, _want[:, _t], atol=1e-4), f"B = {_B}, 3 layers: at position {_t} the step's logits differ from the full forward pass: the position of the new token is the cache length t (pos_emb.weight[t], not 0 or t + 1), each block's own cache, the residual connections around attention and feed-forward, norm1 for attention and norm2 for the feed-forward network, then the final norm and the tied output"


def q8_kv_cache_2(nb):
    with nb.sandbox.swap("Block", _REF_BLOCK):   # a correct Block: this checks your answer, not question 1
        _ = torch.manual_seed(9)
        _m = nb.GPT(9, d_model=8, n_heads=2, n_layers=2, d_ff=16, max_len=8, dropout=0.0).eval()
        _s = nb.here("_rand_state")(9, 8, 2, 16, 8)
        _ = _m.load_state_dict(_s)
        _past = [(torch.randn(2, 2, 3, 4), torch.randn(2, 2, 3, 4)) for _ in range(2)]     # any earlier keys and values
        _tok = torch.tensor([4, 6])
        def _ln(z, p):
            return F.layer_norm(z, (8,), _s[p + ".weight"], _s[p + ".bias"])
        _x = (_s["tok_emb.weight"][_tok] + _s["pos_emb.weight"][3])[:, None]
        for _i, (_pk, _pv) in enumerate(_past):
            _p = f"blocks.{_i}."
            _h = _ln(_x, _p + "norm1")
            def _proj(n):
                return F.linear(_h, _s[_p + f"attn.W_{n}.weight"], _s[_p + f"attn.W_{n}.bias"]).view(2, 1, 2, 4).transpose(1, 2)
            _k, _v = torch.cat([_pk, _proj("k")], 2), torch.cat([_pv, _proj("v")], 2)
            _o = (torch.softmax(_proj("q") @ _k.transpose(-2, -1) / 2.0, -1) @ _v).transpose(1, 2).reshape(2, 1, 8)
            _x = _x + F.linear(_o, _s[_p + "attn.W_o.weight"], _s[_p + "attn.W_o.bias"])
            _x = _x + F.linear(F.gelu(F.linear(_ln(_x, _p + "norm2"), _s[_p + "ff.linear1.weight"], _s[_p + "ff.linear1.bias"])), _s[_p + "ff.linear2.weight"], _s[_p + "ff.linear2.bias"])
        _want = (_ln(_x, "norm") @ _s["tok_emb.weight"].T)[:, 0]
        _before = [(_k.clone(), _v.clone()) for _k, _v in _past]
        _logits, _new = nb.step(_m, _tok, _past)
        assert all(torch.equal(_a[0], _b[0]) and torch.equal(_a[1], _b[1]) for _a, _b in zip(_past, _before)), "step changed the caller's cache in place: return new tensors (torch.cat makes them)"
        assert torch.allclose(_logits, _want, atol=1e-4), "with a cache of 3 arbitrary earlier positions, the logits differ from the new token (at position 3) attending to those cached keys and values and to its own: use each block's cache as given (block i reads cache[i]), and the position t = 3 = the cache length"


def q8_kv_cache_3(nb):
    _device_problem = nb.standin("_device_problem")
    _ = torch.manual_seed(10)
    _m = nb.GPT(9, d_model=8, n_heads=2, n_layers=2, d_ff=16, max_len=8, dropout=0.0).eval()
    _cache = [(torch.randn(2, 2, 3, 4), torch.randn(2, 2, 3, 4)) for _ in range(2)]
    _problem = _device_problem(nb.step, (_m, torch.tensor([1, 2]), _cache), _m)
    assert _problem is None, f"with the model, tokens and cache on another device than the CPU, step fails or answers on the CPU ({_problem}): index the position embedding with a Python int or make positions with device=tokens.device"
