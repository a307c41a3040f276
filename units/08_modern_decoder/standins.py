"""Stand-ins and references of notebook 08_modern_decoder's checks that run where the submitted notebook runs
(in the sandbox, inside the notebook's namespace: they may call the notebook's own functions by name).
Each top-level definition is sent on its own by ``nb.standin(name)`` or ``standin(name)``."""

import torch
import torch.nn.functional as F
from seqcourse.testing import grads as _grads
from seqcourse.testing import on_device as _on_device
from seqcourse.testing import side_effects as _side_effects


def _mha_with(state, d, h):
    # notebook 06's multi-head attention with the weights W_q ... W_o of state and zero biases
    from seqcourse.gpt import MultiHeadAttention
    mha = MultiHeadAttention(d, h)
    mha.load_state_dict({**state, **{f"W_{n}.bias": torch.zeros(d) for n in "qkvo"}})
    return mha


def _step_output(attn, x, keys, values):
    # the output of attention over x after the cached keys and values
    return attn(x, (keys, values))[0]


def _with_cache(attn, x, keys, values):
    return attn(x, (keys, values))


def _tiny_gpt2(seed, d, n_layers, vocab, n_positions, prefix=""):
    # GPT-2's weights under Hugging Face's names, random (gains and biases too), with the buffers a checkpoint holds
    g = torch.Generator().manual_seed(seed)
    def r(*shape):
        return torch.randn(*shape, generator=g) * 0.3
    wte = r(vocab, d)
    sd = {prefix + "wte.weight": wte, prefix + "wpe.weight": r(n_positions, d)}
    for i in range(n_layers):
        p = f"{prefix}h.{i}."
        sd.update({p + "ln_1.weight": 1 + r(d), p + "ln_1.bias": r(d),
                   p + "attn.bias": torch.ones(n_positions, n_positions, dtype=torch.bool).tril()[None, None],
                   p + "attn.masked_bias": torch.tensor(-1e4),
                   p + "attn.c_attn.weight": r(d, 3 * d), p + "attn.c_attn.bias": r(3 * d),
                   p + "attn.c_proj.weight": r(d, d), p + "attn.c_proj.bias": r(d),
                   p + "ln_2.weight": 1 + r(d), p + "ln_2.bias": r(d),
                   p + "mlp.c_fc.weight": r(d, 4 * d), p + "mlp.c_fc.bias": r(4 * d),
                   p + "mlp.c_proj.weight": r(4 * d, d), p + "mlp.c_proj.bias": r(d)})
    sd.update({prefix + "ln_f.weight": 1 + r(d), prefix + "ln_f.bias": r(d), "lm_head.weight": wte})
    return sd


def _gpt2_logits(hf, ids, n_heads):
    # GPT-2's own forward pass, read from its weights under Hugging Face's names (Conv1D: x @ weight + bias)
    sd = {k.removeprefix("transformer."): v for k, v in hf.items()}
    B, T = ids.shape
    d = sd["wte.weight"].size(1)
    def ln(z, n):
        return F.layer_norm(z, (d,), sd[n + ".weight"], sd[n + ".bias"], eps=1e-5)
    def conv(z, n):
        return z @ sd[n + ".weight"] + sd[n + ".bias"]
    x = sd["wte.weight"][ids] + sd["wpe.weight"][:T]
    i = 0
    while f"h.{i}.ln_1.weight" in sd:
        p = f"h.{i}."
        q, k, v = conv(ln(x, p + "ln_1"), p + "attn.c_attn").split(d, dim=-1)
        q, k, v = (z.view(B, T, n_heads, d // n_heads).transpose(1, 2) for z in (q, k, v))
        a = F.scaled_dot_product_attention(q, k, v, is_causal=True).transpose(1, 2).reshape(B, T, d)
        x = x + conv(a, p + "attn.c_proj")
        x = x + conv(F.gelu(conv(ln(x, p + "ln_2"), p + "mlp.c_fc"), approximate="tanh"), p + "mlp.c_proj")
        i += 1
    return ln(x, "ln_f") @ sd["wte.weight"].T


def _gpt2_untouched(prefix):
    # what gpt2_state_dict changes in the caller's dictionary of a tiny GPT-2 (names, tensors, values)
    hf = _tiny_gpt2(7, 8, 2, 11, 6, prefix)
    names, tensors, values = list(hf), dict(hf), {k: v.clone() for k, v in hf.items()}
    gpt2_state_dict(hf)  # noqa: F821 (the notebook's)
    found = []
    if list(hf) != names:
        found.append("names were removed, added or reordered")
    if any(hf.get(k) is not t for k, t in tensors.items()):
        found.append("a tensor was replaced")
    if any(k in hf and (hf[k].shape != v.shape or not torch.equal(hf[k], v)) for k, v in values.items()):
        found.append("a tensor was changed in place")
    return found
