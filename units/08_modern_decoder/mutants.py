"""Notebook 08's mutants (bugs students make) and alternative correct solutions; run by test_mutants.py."""

from __future__ import annotations

from mutation import Mutant


M = Mutant
RMS = "torch.rsqrt(x32.pow(2).mean(dim=-1, keepdim=True) + self.eps)"
PAIRS = "x1, x2 = x.float()[..., 0::2], x.float()[..., 1::2]"
STACK = "rotated = torch.stack((x1 * cos - x2 * sin, x1 * sin + x2 * cos), dim=-1)"
BACK = "return rotated.flatten(-2).to(x.dtype)"
SWI = "return self.W2(F.silu(self.W(x)) * self.V(x))"
ROUND = "budget // (3 * d_model) // multiple_of * multiple_of"
ROT = "q, k = rope(q, t, self.base), rope(k, t, self.base)"
CAT = "k, v = torch.cat([cache[0], k], dim=2), torch.cat([cache[1], v], dim=2)"
ATT = "out, _ = scaled_dot_product_attention(q, k.repeat_interleave(g, dim=1), v.repeat_interleave(g, dim=1), mask)"
SIZE = "torch.empty(0, dtype=dtype).element_size()"
QKV = 'out[dst + f"attn.{name}.weight"], out[dst + f"attn.{name}.bias"] = w.T, b'
MLP = 'out[dst + ours + ".weight"], out[dst + ours + ".bias"] = sd[src + theirs + ".weight"].T, sd[src + theirs + ".bias"]'
LAYER_Q = 'ours[dst + "attn.W_q.weight"] = pairs(sd[src + "self_attn.q_proj.weight"], n_h)'
LAYER_K = 'ours[dst + "attn.W_k.weight"] = pairs(sd[src + "self_attn.k_proj.weight"], n_kv)'
BASE = 'base = config.get("rope_theta", (config.get("rope_parameters") or {}).get("rope_theta", 10000.0))'
TIED = 'tied, n_layers = config.get("tie_word_embeddings", False), config["num_hidden_layers"]'
HEAD = 'if not tied:\n        ours["lm_head.weight"] = sd["lm_head.weight"]'
MUTANTS = [
    # q1: RMSNorm
    M("q1_rmsnorm", "computed in x's dtype (float16 overflows)", "x32 = x.float()", "x32 = x", "compute in float32"),
    M("q1_rmsnorm", "returned in float32", "return (normed * self.weight.float()).to(x.dtype)", "return normed * self.weight.float()", "return x's dtype"),
    M("q1_rmsnorm", "eps outside the root", RMS, "1 / (torch.sqrt(x32.pow(2).mean(dim=-1, keepdim=True)) + self.eps)", "eps inside the root"),
    M("q1_rmsnorm", "sum of squares instead of their mean", ".mean(dim=-1, keepdim=True)", ".sum(dim=-1, keepdim=True)", "MEAN"),
    M("q1_rmsnorm", "centred first (LayerNorm's habit)", "x32 = x.float()", "x32 = x.float() - x.float().mean(dim=-1, keepdim=True)", "no centring"),
    M("q1_rmsnorm", "standard deviation instead of the root mean square", RMS, "1 / torch.sqrt(x32.var(dim=-1, keepdim=True, unbiased=False) + self.eps)", "no centring"),
    M("q1_rmsnorm", "no gain", "normed * self.weight.float()", "normed", "self.weight"),
    M("q1_rmsnorm", "mean over the first axis", "mean(dim=-1", "mean(dim=0", "LAST axis"),
    M("q1_rmsnorm", "eps hard-coded", "+ self.eps)", "+ 1e-6)", "self.eps not a constant"),
    M("q1_rmsnorm", "gain detached", "self.weight.float()", "self.weight.detach().float()", "not a detached copy"),
    M("q1_rmsnorm", "root mean square detached", RMS, RMS + ".detach()", "part of the graph"),
    M("q1_rmsnorm", "normalised in place (x.float() is x itself for float32)", "normed = x32 * " + RMS, "normed = x32.mul_(" + RMS + ")",
      "must not change its input"),
    M("q1_rmsnorm", "torch.nn.RMSNorm (a rule of the question)", "x32 = x.float()",
      "return nn.RMSNorm(x.size(-1), eps=self.eps).to(x.device)(x.float()).mul(self.weight.float()).to(x.dtype)\n        x32 = x.float()",
      "not torch.nn.RMSNorm", rule=True),
    M("q1_rmsnorm", "positions flattened into rows with .view (no case of its own: the checks' non-contiguous variant)",
      ("x32 = x.float()", "return (normed * self.weight.float()).to(x.dtype)"),
      ("x32 = x.float().view(-1, x.size(-1))", "return (normed * self.weight.float()).to(x.dtype).view(x.shape)"),
      ".view needs contiguous memory"),
    M("q1_rmsnorm", "gain applied after the cast back, in the gain's dtype (Hugging Face's LlamaRMSNorm) (a rule the text states)",
      "return (normed * self.weight.float()).to(x.dtype)", "return normed.to(x.dtype) * self.weight", "whatever the gain's"),
    # q2: RoPE
    M("q2_rope", "pairs (i, i + d/2), the 'rotate half' layout", (PAIRS, STACK, BACK),
      ("x1, x2 = x.float()[..., : d_k // 2], x.float()[..., d_k // 2:]",
       "rotated = torch.cat((x1 * cos - x2 * sin, x1 * sin + x2 * cos), dim=-1)", "return rotated.to(x.dtype)"), "NEIGHBOURING"),
    M("q2_rope", "theta_i = base ** (-i / d_k)", "torch.arange(0, d_k, 2, device=x.device, dtype=torch.float32) / d_k",
      "torch.arange(0, d_k // 2, device=x.device, dtype=torch.float32) / d_k", "theta_i = base ** (-2i / d_k)"),
    M("q2_rope", "theta_i = base ** (+2i / d_k)", "theta = base ** (-torch", "theta = base ** (torch", "theta_i = base ** (-2i / d_k)"),
    M("q2_rope", "offset ignored", "torch.arange(offset, offset + T,", "torch.arange(0, T,", "positions are offset"),
    M("q2_rope", "positions from 1", "torch.arange(offset, offset + T,", "torch.arange(offset + 1, offset + T + 1,", "angle 0"),
    M("q2_rope", "rotation the other way", "x1 * cos - x2 * sin, x1 * sin + x2 * cos", "x1 * cos + x2 * sin, x2 * cos - x1 * sin", "x0 cos - x1 sin"),
    M("q2_rope", "cos and sin swapped", "cos, sin = angle.cos(), angle.sin()", "sin, cos = angle.cos(), angle.sin()", "x_2i cos - x_2i+1 sin"),
    M("q2_rope", "members of a pair written back in the wrong order", STACK,
      "rotated = torch.stack((x1 * sin + x2 * cos, x1 * cos - x2 * sin), dim=-1)", "x0 cos - x1 sin"),
    M("q2_rope", "angles in x's dtype", ("dtype=torch.float32) / d_k", "offset + T, device=x.device, dtype=torch.float32)"),
      ("dtype=x.dtype) / d_k", "offset + T, device=x.device, dtype=x.dtype)"), "float32 whatever x's dtype"),
    M("q2_rope", "returned in float32", BACK, "return rotated.flatten(-2)", "then .to(x.dtype)"),
    M("q2_rope", "base hard-coded", "theta = base **", "theta = 10000.0 **", "offset and base arguments"),
    M("q2_rope", "positions made on the CPU", "m = torch.arange(offset, offset + T, device=x.device, dtype=torch.float32)",
      "m = torch.arange(offset, offset + T, dtype=torch.float32)", "on x's device"),
    M("q2_rope", "written into x in place", (STACK, BACK),
      ("x[..., 0::2], x[..., 1::2] = (x1 * cos - x2 * sin).to(x.dtype), (x1 * sin + x2 * cos).to(x.dtype)", "return x"),
      "must not change its input"),
    M("q2_rope", "output detached", BACK, BACK + ".detach()", "carries no gradient"),
    # q3: SwiGLU
    M("q3_swiglu", "gate on V instead of W", SWI, "return self.W2(self.W(x) * F.silu(self.V(x)))", "on x W only"),
    M("q3_swiglu", "sigmoid instead of Swish (GLU)", "F.silu(", "torch.sigmoid(", "F.silu"),
    M("q3_swiglu", "GELU instead of Swish (GEGLU)", "F.silu(", "F.gelu(", "no other activation"),
    M("q3_swiglu", "ReLU instead of Swish (ReGLU)", "F.silu(", "F.relu(", "no other activation"),
    M("q3_swiglu", "sum instead of product", SWI, "return self.W2(F.silu(self.W(x)) + self.V(x))", "elementwise"),
    M("q3_swiglu", "Swish after the product", SWI, "return self.W2(F.silu(self.W(x) * self.V(x)))", "on x W only"),
    M("q3_swiglu", "no output projection", SWI, "return F.silu(self.W(x)) * self.V(x)", "(..., d_model)"),
    M("q3_swiglu", "Swish with exp by hand", SWI,
      "return self.W2(self.W(x) * torch.exp(self.W(x)) / (1 + torch.exp(self.W(x))) * self.V(x))", "exp by hand overflows"),
    M("q3_swiglu", "gate detached", "F.silu(self.W(x))", "F.silu(self.W(x)).detach()", "must both stay in the graph"),
    M("q3_swiglu", "positions flattened into rows with .view (no case of its own: the checks' non-contiguous variant)",
      "return self.W2(F.silu(self.W(x)) * self.V(x))",
      "rows = x.view(-1, x.size(-1))\n        return self.W2(F.silu(self.W(rows)) * self.V(rows)).view(*x.shape[:-1], -1)",
      ".view needs contiguous memory"),
    # q4: SwiGLU's width
    M("q4_width", "biases not counted", "budget = 2 * d_model * d_ff + d_ff + d_model", "budget = 2 * d_model * d_ff", "343"),
    M("q4_width", "rounded to the nearest multiple", ROUND, "round(budget / (3 * d_model) / multiple_of) * multiple_of", "round DOWN"),
    M("q4_width", "rounded up", ROUND, "-(-budget // (3 * d_model) // multiple_of) * multiple_of", "round DOWN"),
    M("q4_width", "strictly fewer parameters", ROUND, "(budget - 1) // (3 * d_model) // multiple_of * multiple_of", "includes equality"),
    M("q4_width", "a float", ROUND, "budget / (3 * d_model) // multiple_of * multiple_of", "Python int"),
    M("q4_width", "no lower bound", "return max(multiple_of, " + ROUND + ")", "return " + ROUND, "return multiple_of"),
    M("q4_width", "LLaMA's 2/3 of d_ff instead of the count", "budget // (3 * d_model)", "2 * d_ff // 3", "343"),
    # q5: grouped-query attention
    M("q5_gqa", "heads grouped with repeat (head j uses key/value head j % n_kv)", "k.repeat_interleave(g, dim=1), v.repeat_interleave(g, dim=1)",
      "k.repeat(1, g, 1, 1), v.repeat(1, g, 1, 1)", "repeat_interleave"),
    M("q5_gqa", "is_causal=True with a cache", ATT,
      "out = F.scaled_dot_product_attention(q, k.repeat_interleave(g, dim=1), v.repeat_interleave(g, dim=1), is_causal=True)", "offset t"),
    M("q5_gqa", "mask not shifted by the cache", ".tril(t)", ".tril()", "offset t"),
    M("q5_gqa", "no mask", "v.repeat_interleave(g, dim=1), mask)", "v.repeat_interleave(g, dim=1))", "causal mask"),
    M("q5_gqa", "rotation at offset 0 with a cache", ROT, "q, k = rope(q, 0, self.base), rope(k, 0, self.base)", "offset t"),
    M("q5_gqa", "queries rotated, keys not", ROT, "q = rope(q, t, self.base)", "queries AND keys"),
    M("q5_gqa", "values rotated too", ROT, "q, k, v = rope(q, t, self.base), rope(k, t, self.base), rope(v, t, self.base)", "values never"),
    M("q5_gqa", "the layer's base ignored", ROT, "q, k = rope(q, t), rope(k, t)", "the layer's own base"),
    M("q5_gqa", "cache holds the repeated heads", "(k, v)\n", "(k.repeat_interleave(g, dim=1), v.repeat_interleave(g, dim=1))\n", "not copies repeated"),
    M("q5_gqa", "new keys before the cached ones", CAT, "k, v = torch.cat([k, cache[0]], dim=2), torch.cat([v, cache[1]], dim=2)", "outputs of one pass"),
    M("q5_gqa", "mask made on the CPU", "dtype=torch.bool, device=x.device).tril(t)", "dtype=torch.bool).tril(t)", "on x's device"),
    M("q5_gqa", "heads merged without transposing back", "out.transpose(1, 2).reshape(B, T, self.h * self.d_k)",
      "out.reshape(B, T, self.h * self.d_k)", "W_o on the merged heads"),
    M("q5_gqa", "heads split without transposing", "self.W_q(x).view(B, T, self.h, self.d_k).transpose(1, 2)",
      "self.W_q(x).view(B, self.h, T, self.d_k)", "heads (B, n_h, T, d_k)"),
    M("q5_gqa", "torch.nn.MultiheadAttention (a rule of the question)", "g = self.h // self.h_kv",
      "g = self.h // self.h_kv\n        check = nn.MultiheadAttention(self.h * self.d_k, self.h, bias=False, batch_first=True)",
      "not torch.nn.MultiheadAttention", rule=True),
    # q6: cache bytes
    M("q6_kv_bytes", "keys only (no factor 2)", "return 2 * n_layers", "return n_layers", "1,536 bytes"),
    M("q6_kv_bytes", "one layer", "2 * n_layers * n_kv_heads", "2 * n_kv_heads", "1,536 bytes"),
    M("q6_kv_bytes", "bits instead of bytes", SIZE, "(torch.finfo(dtype).bits if dtype.is_floating_point else torch.iinfo(dtype).bits)", "1,536 bytes"),
    M("q6_kv_bytes", "bits of torch.finfo or torch.iinfo over 8, which complex and bool dtypes do not give (a rule the text states)", SIZE,
      "((torch.finfo(dtype).bits if dtype.is_floating_point else torch.iinfo(dtype).bits) // 8)", "for any torch dtype"),
    M("q6_kv_bytes", "4 bytes hard-coded", SIZE, "4", "element size"),
    M("q6_kv_bytes", "bytes as a float", SIZE, "torch.finfo(dtype).bits / 8", "Python int"),
    M("q6_kv_bytes", "a tensor", "return 2 * n_layers * n_kv_heads * d_k * " + SIZE,
      "return torch.tensor(2 * n_layers * n_kv_heads * d_k * " + SIZE + ")", "Python int"),
    M("q5_gqa", "a softmax by hand (exp overflows on large scores)", ATT,
      "kk, vv = k.repeat_interleave(g, dim=1), v.repeat_interleave(g, dim=1)\n"
      "        w = ((q @ kk.transpose(-2, -1)) / math.sqrt(self.d_k)).masked_fill(~mask, float('-inf')).exp()\n"
      "        out = (w / w.sum(-1, keepdim=True)) @ vv", "exp of a large score overflows"),
    # q7: GPT-2's weights
    M("q7_gpt2", "attention weights not transposed", QKV, QKV.replace("w.T, b", "w, b"), "transpose"),
    M("q7_gpt2", "c_attn split along its first axis", ".chunk(3, dim=1)", ".chunk(3, dim=0)", "SECOND axis"),
    M("q7_gpt2", "MLP weights not transposed", MLP, MLP.replace('".weight"].T', '".weight"]'), "transpose"),
    M("q7_gpt2", "queries and keys swapped", 'zip(("W_q", "W_k", "W_v", "W_o")', 'zip(("W_k", "W_q", "W_v", "W_o")', "[W_q | W_k | W_v]"),
    M("q7_gpt2", "ln_1 and ln_2 swapped", '(("ln_1", "norm1"), ("ln_2", "norm2"))', '(("ln_1", "norm2"), ("ln_2", "norm1"))', "ln_1 -> norm1"),
    M("q7_gpt2", "one block too few", "n_layers = 1 + max(", "n_layers = max(", "infer the number of blocks"),
    M("q7_gpt2", "blocks counted from one digit of the names", 'int(name.split(".")[1])', "int(name[2])", "with 12 blocks"),
    M("q7_gpt2", "the prefix always cut", 'name.removeprefix("transformer.")', 'name[len("transformer."):]', "with or without"),
    M("q7_gpt2", "the output layer kept", "    return out", '    return {**out, **{"lm_head.weight": w for name, w in sd.items() if name == "lm_head.weight"}}',
      "skip attn.bias"),
    M("q7_gpt2", "attention's c_proj mapped to the MLP", '(("mlp.c_fc", "ff.linear1"), ("mlp.c_proj", "ff.linear2"))',
      '(("mlp.c_fc", "ff.linear1"), ("attn.c_proj", "ff.linear2"))', "attn.c_proj -> W_o"),
    M("q7_gpt2", "c_attn's bias not split", 'sd[src + "attn.c_attn.bias"].chunk(3)', '(sd[src + "attn.c_attn.bias"],) * 3', "its bias likewise"),
    M("q7_gpt2", "the prefix popped from the caller's dict", 'sd = {name.removeprefix("transformer."): w for name, w in hf.items()}',
      'sd = hf\n    for name in [n for n in hf if n.startswith("transformer.")]:\n        sd[name.removeprefix("transformer.")] = sd.pop(name)',
      "changed the caller's dictionary"),
    M("q7_gpt2", "MLP weights transposed in place", MLP, MLP.replace('".weight"].T', '".weight"].t_()'), "changed the caller's dictionary"),
    # q8: a Llama-family checkpoint
    M("q8_llama", "rows not reordered (Hugging Face's rotate-half layout kept)", (LAYER_Q, LAYER_K),
      (LAYER_Q.replace('pairs(sd[src + "self_attn.q_proj.weight"], n_h)', 'sd[src + "self_attn.q_proj.weight"]'),
       LAYER_K.replace('pairs(sd[src + "self_attn.k_proj.weight"], n_kv)', 'sd[src + "self_attn.k_proj.weight"]')), "rows 2j and 2j + 1", public=True),
    M("q8_llama", "rows reordered the other way (as the conversion script does, from Meta's layout)",
      "w.reshape(heads, 2, d_k // 2, -1)", "w.reshape(heads, d_k // 2, 2, -1)", "rows 2j and 2j + 1", public=True),
    M("q8_llama", "keys reordered as n_h heads", LAYER_K, LAYER_K.replace("n_kv)", "n_h)"), "size mismatch", public=True),
    M("q8_llama", "whole matrix reordered, not within heads", "w.reshape(heads, 2, d_k // 2, -1).transpose(1, 2).reshape(heads * d_k, -1)",
      "w.reshape(2, heads * d_k // 2, -1).transpose(0, 1).reshape(heads * d_k, -1)", "within each head", public=True),
    M("q8_llama", "gate and up swapped", '("mlp.gate_proj", "ff.W"),\n                             ("mlp.up_proj", "ff.V")',
      '("mlp.gate_proj", "ff.V"),\n                             ("mlp.up_proj", "ff.W")', "mlp.gate_proj -> ff.W", public=True),
    M("q8_llama", "the two norms swapped", '("input_layernorm", "norm1"),\n                             ("post_attention_layernorm", "norm2")',
      '("input_layernorm", "norm2"),\n                             ("post_attention_layernorm", "norm1")', "input_layernorm -> norm1", public=True),
    M("q8_llama", "values reordered too", (LAYER_K, '("self_attn.v_proj", "attn.W_v"), '),
      (LAYER_K + '\n        ours[dst + "attn.W_v.weight"] = pairs(sd[src + "self_attn.v_proj.weight"], n_kv)', ""), "v_proj and o_proj as they are", public=True),
    M("q8_llama", "epsilon left at its default", 'eps=config.get("rms_norm_eps", 1e-6), ', "", "rms_norm_eps", public=True),
    M("q8_llama", "base left at its default", "rope_base=base, ", "", "rope_theta", public=True),
    M("q8_llama", "rope_parameters not read (configurations of transformers 5)", BASE, 'base = config.get("rope_theta", 10000.0)',
      "rope_parameters", public=True),
    M("q8_llama", "output layer always tied", TIED, TIED.replace('config.get("tie_word_embeddings", False)', "True"), "tied=False", public=True),
    M("q8_llama", "lm_head.weight kept whenever present", HEAD, 'if "lm_head.weight" in sd:\n        ours["lm_head.weight"] = sd["lm_head.weight"]',
      "Unexpected key(s) in state_dict: \"lm_head.weight\"", public=True),
    M("q8_llama", "the prefix always cut", 'name.removeprefix("model.")', 'name[len("model."):]', "KeyError: 'embed_tokens.weight'", public=True),
    M("q8_llama", "blocks counted from one digit of the names", "for i in range(n_layers):",
      'for i in range(1 + max(int(name[len("layers.")]) for name in sd if name.startswith("layers."))):', 'Missing key(s) in state_dict: "blocks.10.', public=True),
    M("q8_llama", "the prefix model. looked up on lm_head.weight too (a rule the text states)", HEAD,
      'if not tied:\n        pre = "model." if "model.embed_tokens.weight" in hf else ""\n        ours["lm_head.weight"] = hf[pre + "lm_head.weight"]',
      "every name with model. but the output layer's"),
    M("q8_llama", "not in eval mode", "return model.eval()", "return model", "eval mode", public=True),
    M("q8_llama", "the prefix moved in the caller's dictionary", 'sd = {name.removeprefix("model."): w for name, w in hf.items()}',
      'sd = hf\n    for name in [n for n in hf if n.startswith("model.")]:\n        sd[name.removeprefix("model.")] = sd.pop(name)',
      "changed the caller's"),
    M("q8_llama", "num_key_value_heads required", 'config.get("num_key_value_heads") or n_h', 'config["num_key_value_heads"]',
      "without num_key_value_heads"),
    M("q8_llama", "num_key_value_heads: null not read as n_h", 'config.get("num_key_value_heads") or n_h',
      'config.get("num_key_value_heads", n_h)', "num_key_value_heads: null"),
    M("q5_gqa", "keys and values detached before attending (no gradient to W_k, W_v)", ROT,
      ROT + "\n        k, v = k.detach(), v.detach()", "the output must stay in the graph of every projection"),
    M("q8_llama", "default epsilon 1e-5", 'config.get("rms_norm_eps", 1e-6)', 'config.get("rms_norm_eps", 1e-5)', "eps 1e-6"),
    M("q8_llama", "tied by default", TIED, TIED.replace('("tie_word_embeddings", False)', '("tie_word_embeddings", True)'), "untied"),
    M("q8_llama", "kept in the checkpoint's dtype", "return model.eval()", 'return model.to(sd["embed_tokens.weight"].dtype).eval()', "float32"),
]
ALTERNATIVES = {
    "q1_rmsnorm": """
xf = x.to(torch.float32)
rms = xf.square().mean(-1, keepdim=True).add(self.eps).sqrt()
return (xf / rms * self.weight).type_as(x)
""",
    "q2_rope": """
d = x.size(-1)
pos = torch.arange(x.size(-2), device=x.device).float() + offset
inv = 1.0 / (base ** (torch.arange(0, d, 2, device=x.device).float() / d))
ang = torch.outer(pos, inv).repeat_interleave(2, dim=-1)
xf = x.float()
swapped = torch.stack((-xf[..., 1::2], xf[..., 0::2]), dim=-1).flatten(-2)
return (xf * ang.cos() + swapped * ang.sin()).to(x.dtype)
""",
    "q3_swiglu": """
h = self.W(x)
return self.W2(h * torch.sigmoid(h) * self.V(x))
""",
    "q4_width": """
h = multiple_of
while 3 * d_model * (h + multiple_of) <= 2 * d_model * d_ff + d_ff + d_model:
    h += multiple_of
return h
""",
    "q5_gqa": """
B, T, D = x.shape
past = cache[0].shape[2] if cache is not None else 0
q = self.W_q(x).reshape(B, T, self.h, self.d_k).permute(0, 2, 1, 3)
k = self.W_k(x).reshape(B, T, self.h_kv, self.d_k).permute(0, 2, 1, 3)
v = self.W_v(x).reshape(B, T, self.h_kv, self.d_k).permute(0, 2, 1, 3)
if self.base is not None:
    q = rope(q, offset=past, base=self.base)
    k = rope(k, offset=past, base=self.base)
if cache is not None:
    k = torch.cat((cache[0], k), 2)
    v = torch.cat((cache[1], v), 2)
g = self.h // self.h_kv
kk = k[:, :, None].expand(B, self.h_kv, g, past + T, self.d_k).reshape(B, self.h, past + T, self.d_k)
vv = v[:, :, None].expand(B, self.h_kv, g, past + T, self.d_k).reshape(B, self.h, past + T, self.d_k)
allowed = torch.arange(past + T, device=x.device)[None, :] <= torch.arange(past, past + T, device=x.device)[:, None]
o = F.scaled_dot_product_attention(q, kk, vv, attn_mask=allowed)
return self.W_o(o.permute(0, 2, 1, 3).reshape(B, T, D)), (k, v)
""",
    "q6_kv_bytes": """
return int(2 * n_layers * n_kv_heads * d_k * dtype.itemsize)
""",
    "q7_gpt2": """
top = {"wte.weight": "tok_emb.weight", "wpe.weight": "pos_emb.weight", "ln_f.weight": "norm.weight", "ln_f.bias": "norm.bias"}
rename = {"ln_1": "norm1", "ln_2": "norm2", "attn.c_proj": "attn.W_o", "mlp.c_fc": "ff.linear1", "mlp.c_proj": "ff.linear2"}
out = {}
for name, w in hf.items():
    key = name[len("transformer."):] if name.startswith("transformer.") else name
    if key in top:
        out[top[key]] = w
        continue
    parts = key.split(".")
    if parts[0] != "h" or parts[-1] not in ("weight", "bias") or (parts[2] == "attn" and len(parts) == 4):
        continue
    block, module, kind = f"blocks.{parts[1]}.", ".".join(parts[2:-1]), parts[-1]
    if module == "attn.c_attn":
        for letter, part in zip("qkv", w.split(w.size(-1) // 3, dim=-1)):
            out[f"{block}attn.W_{letter}.{kind}"] = part.t() if kind == "weight" else part
    else:
        out[f"{block}{rename[module]}.{kind}"] = w.t() if kind == "weight" and module not in ("ln_1", "ln_2") else w
return out
""",
    "q8_llama": """
import re
heads, width = config["num_attention_heads"], config["hidden_size"]
kv_heads = config.get("num_key_value_heads", heads) or heads
rope = config.get("rope_parameters") or {}
theta = config["rope_theta"] if "rope_theta" in config else rope.get("rope_theta", 10000.0)
tie = bool(config.get("tie_word_embeddings", False))
dk = width // heads
order = torch.arange(dk).view(2, dk // 2).t().reshape(-1)      # 0, dk/2, 1, dk/2 + 1, ...
rename = {"input_layernorm": "norm1", "post_attention_layernorm": "norm2", "self_attn.q_proj": "attn.W_q",
          "self_attn.k_proj": "attn.W_k", "self_attn.v_proj": "attn.W_v", "self_attn.o_proj": "attn.W_o",
          "mlp.gate_proj": "ff.W", "mlp.up_proj": "ff.V", "mlp.down_proj": "ff.W2"}
new = {}
for name, w in hf.items():
    key = name[6:] if name.startswith("model.") else name
    hit = re.fullmatch(r"layers\\.(\\d+)\\.(.+)\\.weight", key)
    if key == "embed_tokens.weight":
        new["tok_emb.weight"] = w
    elif key == "norm.weight":
        new["norm.weight"] = w
    elif key == "lm_head.weight":
        if not tie:
            new["lm_head.weight"] = w
    elif hit and hit.group(2) in rename:
        part = hit.group(2)
        if part in ("self_attn.q_proj", "self_attn.k_proj"):
            w = w.view(-1, dk, width)[:, order].reshape(-1, width)
        new[f"blocks.{hit.group(1)}.{rename[part]}.weight"] = w
model = ModernDecoder(config["vocab_size"], width, heads, kv_heads, config["num_hidden_layers"], config["intermediate_size"],
                      rope_base=theta, eps=config.get("rms_norm_eps", 1e-6), tied=tie)
model.eval()
with torch.no_grad():
    for name, p in model.named_parameters():
        p.copy_(new[name])
return model
""",
}

MORE_ALTERNATIVES = {
    "q5_gqa": ["""
# the cache returned detached (a reading the text allows: the checks compare its values only)
B, T, _ = x.shape
t = 0 if cache is None else cache[0].size(2)
q = self.W_q(x).view(B, T, self.h, self.d_k).transpose(1, 2)
k = self.W_k(x).view(B, T, self.h_kv, self.d_k).transpose(1, 2)
v = self.W_v(x).view(B, T, self.h_kv, self.d_k).transpose(1, 2)
if self.base is not None:
    q, k = rope(q, t, self.base), rope(k, t, self.base)
if cache is not None:
    k, v = torch.cat([cache[0], k], dim=2), torch.cat([cache[1], v], dim=2)
g = self.h // self.h_kv
mask = torch.ones(T, t + T, dtype=torch.bool, device=x.device).tril(t)
out = F.scaled_dot_product_attention(q, k.repeat_interleave(g, dim=1), v.repeat_interleave(g, dim=1), attn_mask=mask)
return self.W_o(out.transpose(1, 2).reshape(B, T, self.h * self.d_k)), (k.detach(), v.detach())
"""],
    "q1_rmsnorm": ["""
def norm(z):
    return z * torch.rsqrt(z.pow(2).mean(-1, keepdim=True) + self.eps)
return norm(x.float()).type_as(x) * self.weight.type_as(x)
"""],
    "q2_rope": ["""
# Meta's complex-number style, written by a student: view_as_complex after .reshape (no .contiguous() needed)
T, d_k = x.shape[-2:]
theta = 1.0 / (base ** (torch.arange(0, d_k, 2, device=x.device).float() / d_k))
m = torch.arange(offset, offset + T, device=x.device).float()
rot = torch.polar(torch.ones(T, d_k // 2, device=x.device), torch.outer(m, theta))
xc = torch.view_as_complex(x.float().reshape(*x.shape[:-1], d_k // 2, 2))
return torch.view_as_real(xc * rot).flatten(-2).type_as(x)
""", """
d = x.size(-1)
theta = 1.0 / base ** (torch.arange(0, d, 2, dtype=torch.float32, device=x.device) / d)
angle = torch.arange(offset, offset + x.size(-2), dtype=torch.float32, device=x.device)[:, None] * theta
z = torch.view_as_complex(x.float().reshape(*x.shape[:-1], d // 2, 2).contiguous())
return torch.view_as_real(z * torch.polar(torch.ones_like(angle), angle)).flatten(-2).to(x.dtype)
""", """
d = x.size(-1)
theta = base ** (-torch.arange(0, d, 2, device=x.device, dtype=torch.float32) / d)
angle = torch.arange(offset, offset + x.size(-2), device=x.device, dtype=torch.float32)[:, None] * theta
cos, sin = angle.cos().to(x.dtype), angle.sin().to(x.dtype)     # the rotation in x's dtype, as Hugging Face's Llama
a, b = x[..., 0::2], x[..., 1::2]
return torch.stack((a * cos - b * sin, a * sin + b * cos), dim=-1).flatten(-2)
"""],
    "q8_llama": ["""
cfg = dict(config)
n_heads = cfg["num_attention_heads"]
n_kv = cfg.get("num_key_value_heads") or n_heads
base = (cfg.get("rope_parameters") or {}).get("rope_theta", cfg.get("rope_theta", 10000.0))
d = cfg["hidden_size"]
half = d // n_heads // 2

def interleave(w, n):
    w = w.float().view(n, 2, half, d)
    return torch.stack((w[:, 0], w[:, 1]), dim=2).reshape(n * 2 * half, d)

get = lambda key: hf[key] if key in hf else hf["model." + key]
state = {"tok_emb.weight": get("embed_tokens.weight"), "norm.weight": get("norm.weight")}
tied = cfg.get("tie_word_embeddings", False)
if not tied:
    state["lm_head.weight"] = hf["lm_head.weight"]
for layer in range(cfg["num_hidden_layers"]):
    at = lambda part: get(f"layers.{layer}.{part}.weight")
    state.update({f"blocks.{layer}.norm1.weight": at("input_layernorm"), f"blocks.{layer}.norm2.weight": at("post_attention_layernorm"),
                  f"blocks.{layer}.attn.W_q.weight": interleave(at("self_attn.q_proj"), n_heads),
                  f"blocks.{layer}.attn.W_k.weight": interleave(at("self_attn.k_proj"), n_kv),
                  f"blocks.{layer}.attn.W_v.weight": at("self_attn.v_proj"), f"blocks.{layer}.attn.W_o.weight": at("self_attn.o_proj"),
                  f"blocks.{layer}.ff.W.weight": at("mlp.gate_proj"), f"blocks.{layer}.ff.V.weight": at("mlp.up_proj"),
                  f"blocks.{layer}.ff.W2.weight": at("mlp.down_proj")})
model = ModernDecoder(cfg["vocab_size"], d, n_heads, n_kv, cfg["num_hidden_layers"], cfg["intermediate_size"],
                      rope_base=base, eps=cfg.get("rms_norm_eps", 1e-6), tied=tied)
model.load_state_dict(state, strict=True)
return model.eval()
"""],
}

GARBAGE = {
    "q1_rmsnorm": "return torch.zeros_like(x)",
    "q2_rope": "return torch.zeros_like(x)",
    "q3_swiglu": "return torch.zeros_like(x)",
    "q4_width": "return multiple_of",
    "q5_gqa": ("B, T, _ = x.shape\nt = 0 if cache is None else cache[0].size(2)\n"
               "z = torch.zeros(B, self.h_kv, t + T, self.d_k, device=x.device)\nreturn torch.zeros_like(x), (z, z.clone())"),
    "q6_kv_bytes": "return 0",
    "q7_gpt2": "return {}",
    "q8_llama": ("return ModernDecoder(config['vocab_size'], config['hidden_size'], config['num_attention_heads'], "
                 "config.get('num_key_value_heads') or config['num_attention_heads'], config['num_hidden_layers'], "
                 "config['intermediate_size'], tied=config.get('tie_word_embeddings', False)).eval()"),
}

# answers written to satisfy only the public checks: the values the public cases look at, typed in
PUBLIC_ONLY = {
    "q4_width": "return {(128, 512, 8): 336, (128, 512, 1): 343}.get((d_model, d_ff, multiple_of), multiple_of)",
    "q6_kv_bytes": "return {(3, 2, 32): 1536}.get((n_layers, n_kv_heads, d_k), 0) // (2 if dtype == torch.bfloat16 else 1)",
}
