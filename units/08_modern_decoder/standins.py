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


def _snapshot(d):
    # the names, tensors and values of a dictionary of tensors, to tell later what a call changed in it
    return list(d), dict(d), {k: v.clone() if isinstance(v, torch.Tensor) else v for k, v in d.items()}


def _changes(d, snapshot):
    # what was changed in the dictionary d since its snapshot: names, tensors, values
    names, tensors, values = snapshot
    found = []
    if list(d) != names:
        found.append("names were removed, added or reordered")
    if any(d.get(k) is not t for k, t in tensors.items()):
        found.append("a value was replaced")
    if any(k in d and isinstance(v, torch.Tensor) and (d[k].shape != v.shape or not torch.equal(d[k], v)) for k, v in values.items()):
        found.append("a tensor was changed in place")
    return found


def _gpt2_untouched(prefix):
    # what gpt2_state_dict changes in the caller's dictionary of a tiny GPT-2 (names, tensors, values)
    hf = _tiny_gpt2(7, 8, 2, 11, 6, prefix)
    before = _snapshot(hf)
    gpt2_state_dict(hf)  # noqa: F821 (the notebook's)
    return _changes(hf, before)


def _llama_untouched(prefix, tied):
    # what llama_decoder changes in the caller's checkpoint or configuration
    config = {"vocab_size": 11, "hidden_size": 16, "intermediate_size": 20, "num_hidden_layers": 2, "num_attention_heads": 2,
              "num_key_value_heads": 1, "rms_norm_eps": 1e-5, "rope_parameters": {"rope_theta": 500.0, "rope_type": "default"},
              "tie_word_embeddings": tied}
    hf = _tiny_llama(8, 16, 2, 2, 1, 20, 11, prefix, "tied" if tied else True, True)
    before, config_before = _snapshot(hf), str(config)
    llama_decoder(hf, config)  # noqa: F821 (the notebook's)
    return [f"the checkpoint: {c}" for c in _changes(hf, before)] + (["the configuration"] if str(config) != config_before else [])


def _tiny_llama(seed, d, n_layers, n_heads, n_kv_heads, d_hidden, vocab, prefix="model.", lm_head=False, buffers=False,
                dtype=torch.float32, emb_scale=1.0):
    # a Llama-family checkpoint under Hugging Face's names, random (gains too); lm_head: an output layer of its own
    # (an untied model's) or "tied" (the token embedding itself, as a tied model's state_dict() holds it); buffers:
    # the rotary inverse frequencies that older checkpoints hold in every layer; emb_scale: token embeddings that small
    # (RMSNorm's epsilon then matters)
    g = torch.Generator().manual_seed(seed)
    def r(*shape, scale=1.0):
        return (torch.randn(*shape, generator=g) * scale / shape[-1] ** 0.5).to(dtype)
    d_k = d // n_heads
    emb = r(vocab, d, scale=d ** 0.5 * emb_scale)
    sd = {prefix + "embed_tokens.weight": emb}
    for i in range(n_layers):
        p = f"{prefix}layers.{i}."
        sd.update({p + "self_attn.q_proj.weight": r(n_heads * d_k, d, scale=2.0), p + "self_attn.k_proj.weight": r(n_kv_heads * d_k, d, scale=2.0),
                   p + "self_attn.v_proj.weight": r(n_kv_heads * d_k, d), p + "self_attn.o_proj.weight": r(d, d),
                   p + "mlp.gate_proj.weight": r(d_hidden, d), p + "mlp.up_proj.weight": r(d_hidden, d),
                   p + "mlp.down_proj.weight": r(d, d_hidden),
                   p + "input_layernorm.weight": (1 + 0.2 * torch.randn(d, generator=g)).to(dtype),
                   p + "post_attention_layernorm.weight": (1 + 0.2 * torch.randn(d, generator=g)).to(dtype)})
        if buffers:
            sd[p + "self_attn.rotary_emb.inv_freq"] = 1.0 / 10000 ** (torch.arange(0, d_k, 2).float() / d_k)
    sd[prefix + "norm.weight"] = (1 + 0.2 * torch.randn(d, generator=g)).to(dtype)
    if lm_head == "tied":
        sd["lm_head.weight"] = emb
    elif lm_head:
        sd["lm_head.weight"] = r(vocab, d, scale=2.0)
    return sd
