"""Notebook 06's mutants (bugs students make) and alternative correct solutions; run by test_mutants.py."""

from __future__ import annotations

from mutation import Mutant


M = Mutant
MASK = "causal_mask(x.size(1), x.device)"
ATTN = "x = x + self.dropout(self.attn(h, h, h, causal_mask(x.size(1), x.device)))"
FF = "return x + self.dropout(self.ff(self.norm2(x)))"
EMB = "self.dropout(self.tok_emb(ids) + self.pos_emb(positions))"
DRAW = (  # the solution's inverse-transform draw, replaced whole by torch.multinomial variants
    '    cdf = probs.cumsum(dim=-1)                                                          # (B, C) F_i, nondecreasing\n'
    '    u = torch.rand(probs.size(0), 1, generator=generator, device=probs.device) * cdf[:, -1:]   # (B, 1) in [0, F_C)\n'
    '    return torch.searchsorted(cdf, u, right=True)[:, 0]                                # first i with F_i > u; (B,)\n'
)
MUTANTS = [
    # q1: the decoder block
    M("q1_block", "no causal mask", MASK, "None", "information flows from the future"),
    M("q1_block", "PyTorch's encoder layer with a causal mask (a rule of the question)", "return x + self.dropout(self.ff(self.norm2(x)))",
      "return nn.TransformerEncoderLayer(x.size(-1), 2, 4 * x.size(-1), dropout=0.0, batch_first=True, norm_first=True).to(x.device)(x, src_mask=~causal_mask(x.size(1), x.device))",
      "not torch.nn.TransformerEncoderLayer", rule=True),
    M("q1_block", "causal mask transposed (upper triangle)", MASK, "causal_mask(x.size(1), x.device).T", "information flows from the future"),
    M("q1_block", "causal mask inverted", MASK, "~causal_mask(x.size(1), x.device)", "True = may attend"),
    M("q1_block", "diagonal hidden (tril(-1))", MASK, "causal_mask(x.size(1), x.device).tril(-1)", "tril"),
    M("q1_block", "mask built on the CPU", MASK, "causal_mask(x.size(1))", "causal_mask(T, x.device)"),
    M("q1_block", "post-LN instead of pre-LN", ("h = self.norm1(x)", ATTN, FF),
      ("h = x", "x = self.norm1(x + self.dropout(self.attn(h, h, h, causal_mask(x.size(1), x.device))))",
       "return self.norm2(x + self.dropout(self.ff(x)))"), "pre-LN"),
    M("q1_block", "no residual around attention", ATTN, "x = self.dropout(self.attn(h, h, h, causal_mask(x.size(1), x.device)))", "both residual connections"),
    M("q1_block", "norm1 reused before the feed-forward", "self.ff(self.norm2(x))", "self.ff(self.norm1(x))", "norm2 before the feed-forward"),
    M("q1_block", "no dropout on the attention sublayer", ATTN, "x = x + self.attn(h, h, h, causal_mask(x.size(1), x.device))", "is a dropout missing"),
    M("q1_block", "dropout always on (F.dropout without training)", FF, "return x + F.dropout(self.ff(self.norm2(x)), self.dropout.p)", "eval mode"),
    M("q1_block", "dropout on the residual sum", FF, "return self.dropout(x + self.ff(self.norm2(x)))", "not to the sum"),
    M("q1_block", "attention output detached", "self.attn(h, h, h, causal_mask(x.size(1), x.device))",
      "self.attn(h, h, h, causal_mask(x.size(1), x.device)).detach()", "no .detach()"),
    # q2: the GPT forward pass
    M("q2_gpt", "no position embedding", EMB, "self.dropout(self.tok_emb(ids))", "pos_emb"),
    M("q2_gpt", "positions from 1", "torch.arange(ids.size(1), device=ids.device)", "torch.arange(1, ids.size(1) + 1, device=ids.device)", "pos_emb(0 ... T-1)"),
    M("q2_gpt", "no final LayerNorm", "return self.norm(x) @ self.tok_emb.weight.T", "return x @ self.tok_emb.weight.T", "then norm"),
    M("q2_gpt", "softmax on the logits", "return self.norm(x) @ self.tok_emb.weight.T", "return (self.norm(x) @ self.tok_emb.weight.T).softmax(-1)", "no softmax"),
    M("q2_gpt", "tied weight detached", "self.tok_emb.weight.T", "self.tok_emb.weight.detach().T", "not tok_emb.weight.detach()"),
    M("q2_gpt", "no embedding dropout", EMB, "self.tok_emb(ids) + self.pos_emb(positions)", "embedding dropout missing"),
    M("q2_gpt", "only the last block", "for block in self.blocks:\n            x = block(x)", "x = self.blocks[-1](x)", "every block"),
    M("q2_gpt", "embeddings scaled by sqrt(d) (notebook 04's habit)", "self.tok_emb(ids) + self.pos_emb(positions)",
      "self.tok_emb(ids) * self.tok_emb.embedding_dim ** 0.5 + self.pos_emb(positions)", "tok_emb(ids) + pos_emb"),
    # q3: next-token NLL
    M("q3_nll", "NLLs written into a tensor made on the CPU", "    return nll.view(targets.shape)",
      "    out = torch.zeros(targets.shape)\n    out[:] = nll.view(targets.shape)\n    return out", "on ids' device"),
    M("q3_nll", "targets not shifted", "targets = ids[:, 1:]", "targets = ids[:, :-1]", "position t predicts token t+1"),
    M("q3_nll", "the model reads all of ids, its last position dropped (a rule the text states)", "logits = model(ids[:, :-1])",
      "logits = model(ids)[:, :-1]", "model(ids[:, :-1])"),
    M("q3_nll", "pad id hard-coded to 0", "ignore_index=pad_id", "ignore_index=0", "use the pad_id argument"),
    M("q3_nll", "padding targets counted", "ignore_index=pad_id, ", "", "0.0 where"),
    M("q3_nll", "summed per sentence", "return nll.view(targets.shape)", "return nll.view(targets.shape).sum(1)", "(B, T-1)"),
    M("q3_nll", "detached", "return nll.view(targets.shape)", "return nll.view(targets.shape).detach()", "autograd graph"),
    M("q3_nll", "squeezed (batch of 1)", "return nll.view(targets.shape)", "return nll.view(targets.shape).squeeze()", "no squeeze()"),
    M("q3_nll", "softmax applied twice", "F.cross_entropy(logits.reshape(-1, logits.size(-1))",
      "F.cross_entropy(logits.softmax(-1).reshape(-1, logits.size(-1))", "-log_softmax of the target"),
    M("q3_nll", "the log of a softmax (inf for a confident model)", "F.cross_entropy(logits.reshape(-1, logits.size(-1))",
      "F.nll_loss(logits.softmax(-1).log().reshape(-1, logits.size(-1))", "the log of a softmax is -inf"),
    M("q3_nll", "train() inside the loss (the check gives training mode: no change to see)", "logits = model(ids[:, :-1])",
      "model.train()\n    logits = model(ids[:, :-1])", "called train() on the caller's model"),
    M("q3_nll", "evaluation mode for the NLL, then train() whatever the mode it came in (no case of its own: the checks' eval variant)",
      "    logits = model(ids[:, :-1])", "    training = model.training\n    model.eval()   # a clean NLL: no dropout\n    logits = model(ids[:, :-1])\n    model.train()",
      "handed its module back in training mode"),
    # q4: weight decay
    M("q4_decay", "every matrix decayed (embeddings too)", "(decay if id(p) in linear else no_decay)", "(decay if p.dim() >= 2 else no_decay)", "module type"),
    M("q4_decay", "every 'weight' decayed (LayerNorm too)", "id(p) in linear", 'name.endswith("weight") and "emb" not in name', "LayerNorm"),
    M("q4_decay", "GPT's names hard-coded", "id(p) in linear", '("attn" in name or "ff" in name) and name.endswith("weight")', "by type"),
    M("q4_decay", "lists swapped", "return decay, no_decay", "return no_decay, decay", "must be decayed"),
    M("q4_decay", "everything decayed", "(decay if id(p) in linear else no_decay)", "decay", "must not be decayed"),
    M("q4_decay", "order lost", "return decay, no_decay", "return sorted(decay), sorted(no_decay)", "named_parameters() order"),
    M("q4_decay", "names made as module name + '.weight' (a bare nn.Linear: '.weight') (a rule the text states)",
      ("linear = {id(m.weight) for m in model.modules() if isinstance(m, nn.Linear)}", "id(p) in linear"),
      ('linear = {prefix + ".weight" for prefix, m in model.named_modules() if isinstance(m, nn.Linear)}', "name in linear"),
      "its own module name is ''"),
    M("q4_decay", "frozen parameters skipped (a rule the text states)", "    for name, p in model.named_parameters():\n",
      "    for name, p in model.named_parameters():\n        if not p.requires_grad:\n            continue\n", "frozen ones too"),
    # q5: warm-up and cosine
    M("q5_schedule", "warm-up off by one", "return (step + 1) / warmup", "return step / warmup", "(step + 1) / warmup"),
    M("q5_schedule", "progress not clipped at 1", "min(1.0, (step - warmup) / (total - warmup))", "(step - warmup) / (total - warmup)", "clip p at 1"),
    M("q5_schedule", "cosine over the whole run from step 0", "(step - warmup) / (total - warmup)", "step / total", "starts at the peak"),
    M("q5_schedule", "min_ratio ignored", "return min_ratio + (1 - min_ratio) *", "return 0.1 + 0.9 *", "use the min_ratio argument"),
    M("q5_schedule", "decays to 0", "return min_ratio + (1 - min_ratio) * 0.5", "return 0.5", "r + (1 - r)"),
    M("q5_schedule", "returns a tensor", "math.cos(math.pi * progress)", "torch.cos(torch.tensor(math.pi * progress))", "Python float"),
    M("q5_schedule", "warm-up includes step = warmup", "if step < warmup:", "if step <= warmup:", "starts at the peak"),
    # q6: filtering
    M("q6_filter", "top-p's removal mask scattered into a tensor made on the CPU (no public case of its own: the public checks' GPU variant, on calls with top_p)",
      "        remove = (above >= top_p).scatter(-1, order, above >= top_p)     # back to vocabulary order",
      "        remove = torch.zeros(logits.shape, dtype=torch.bool).scatter(-1, order, above >= top_p)",
      "a tensor made without device= stayed on the CPU", public=True),
    M("q6_filter", "Hugging Face's top-p warper (a rule of the question)", "probs, order = torch.softmax(logits, dim=-1).sort(dim=-1, descending=True)",
      "from transformers import TopPLogitsWarper\n        logits = TopPLogitsWarper(top_p)(None, logits)\n"
      "        probs, order = torch.softmax(logits, dim=-1).sort(dim=-1, descending=True)", "not Hugging Face's logits warpers", rule=True),
    M("q6_filter", "top-k mask made on the CPU", 'logits = logits.masked_fill(logits < kth, float("-inf"))',
      'logits = logits.masked_fill(~torch.zeros(logits.shape, dtype=torch.bool).scatter(-1, logits.topk(top_k, dim=-1).indices, True), float("-inf"))',
      "on the logits' device"),
    M("q6_filter", "probabilities by hand with exp (overflows for large logits)", "torch.softmax(logits, dim=-1).sort(",
      "(logits.exp() / logits.exp().sum(-1, keepdim=True)).sort(", "torch.softmax"),
    M("q6_filter", "temperature multiplied", "logits = logits / temperature", "logits = logits * temperature", "not times"),
    M("q6_filter", "crossing token excluded", "above = probs.cumsum(dim=-1) - probs", "above = probs.cumsum(dim=-1)", "crosses"),
    M("q6_filter", "top-p mask left in sorted order", "remove = (above >= top_p).scatter(-1, order, above >= top_p)", "remove = above >= top_p", "scatter the mask back"),
    M("q6_filter", "temperature applied last", ("logits = logits / temperature\n    if top_k", "return logits"),
      ("if top_k", "return logits / temperature"), "AFTER the temperature"),
    M("q6_filter", "top-k keeps k - 1", "logits < kth", "logits <= kth", "k, not k - 1"),
    M("q6_filter", "top-k over the whole batch", "logits.topk(min(top_k, logits.size(-1)), dim=-1).values[:, -1:]", "logits.flatten().topk(top_k).values[-1]", "not over the whole batch"),
    M("q6_filter", "top_k above the vocabulary size raises (topk of k > C)", "logits.topk(min(top_k, logits.size(-1)), dim=-1)",
      "logits.topk(top_k, dim=-1)", "keeps every token"),
    M("q6_filter", "top-k removes what is not above the (k+1)-th largest (ties at the k-th all dropped)",
      'kth = logits.topk(min(top_k, logits.size(-1)), dim=-1).values[:, -1:]   # (B, 1) the k-th largest (ties kept)\n        logits = logits.masked_fill(logits < kth, float("-inf"))',
      'if top_k < logits.size(-1):\n            after = logits.topk(top_k + 1, dim=-1).values[:, -1:]   # the (k+1)-th largest\n'
      '            logits = logits.masked_fill(logits <= after, float("-inf"))', "never fewer than k"),
    M("q6_filter", "top-p counts tokens of equal probability as ranked above (a tie at the crossing point all dropped)",
      "remove = (above >= top_p).scatter(-1, order, above >= top_p)     # back to vocabulary order",
      "p = torch.softmax(logits, dim=-1)\n        at_least = (p[:, None, :] >= p[:, :, None]).float()   # [b, i, j]: p_j >= p_i\n"
      "        remove = (at_least * p[:, None, :]).sum(-1) - p >= top_p", "as long as the kept set reaches p"),
    M("q6_filter", "caller's logits changed in place", "logits = logits / temperature", "logits = logits.div_(temperature)", "in place"),
    M("q6_filter", "top-p on the logits, not the probabilities", "torch.softmax(logits, dim=-1).sort(", "logits.sort(", "top_p = 0.7"),
    M("q6_filter", "top-p on the distribution before top-k",
      ("logits = logits / temperature\n    if top_k is not None:", "probs, order = torch.softmax(logits, dim=-1)"),
      ("logits = logits / temperature\n    scaled = logits\n    if top_k is not None:", "probs, order = torch.softmax(scaled, dim=-1)"), "left by top-k"),
    M("q6_filter", "top-k kept by scattering into a -inf tensor made without dtype= (no case of its own: the checks' float64 variant)",
      ("kth = logits.topk(min(top_k, logits.size(-1)), dim=-1).values[:, -1:]", 'logits = logits.masked_fill(logits < kth, float("-inf"))'),
      ("top = logits.topk(min(top_k, logits.size(-1)), dim=-1)",
       'logits = torch.full(logits.shape, float("-inf"), device=logits.device).scatter(-1, top.indices, top.values)'),
      "a tensor made in float32 whatever the input"),
    # q7: sampling
    M("q7_sample", "uniforms drawn on the CPU and moved to the logits (the generator is the GPU's there)",
      "u = torch.rand(probs.size(0), 1, generator=generator, device=probs.device)", "u = torch.rand(probs.size(0), 1, generator=generator).to(probs)",
      "device type for generator", public=True),
    M("q7_sample", "global random state instead of the generator", "generator=generator, ", "", "generator="),
    M("q7_sample", "uniform draws on the CPU", "generator=generator, device=probs.device)", "generator=generator)", "device=logits.device"),
    M("q7_sample", "probabilities by hand with exp (overflows for large logits)",
      "probs = torch.softmax(filter_logits(logits, temperature, top_k, top_p), dim=-1)",
      "probs = filter_logits(logits, temperature, top_k, top_p).exp()\n    probs = probs / probs.sum(-1, keepdim=True)", "torch.softmax"),
    M("q7_sample", "draws from a copy of the generator", "generator=generator, device=probs.device)",
      "generator=torch.Generator(probs.device).manual_seed(generator.initial_seed()), device=probs.device)", "not from a copy", public=True),
    M("q7_sample", "argmax instead of a draw", "torch.searchsorted(cdf, u, right=True)[:, 0]", "probs.argmax(-1)", "is it random at all"),
    M("q7_sample", "top_p not passed on", "filter_logits(logits, temperature, top_k, top_p)", "filter_logits(logits, temperature, top_k)", "passing every argument on"),
    M("q7_sample", "temperature ignored", "filter_logits(logits, temperature, top_k, top_p)", "filter_logits(logits, 1.0, top_k, top_p)", "expected about"),
    M("q7_sample", "squeezed (batch of 1)", "[:, 0]", ".squeeze()", "not squeeze()"),
    M("q7_sample", "one uniform for the whole batch", "torch.rand(probs.size(0), 1,", "torch.rand(1, 1,", "same token for every row"),
    M("q7_sample", "softmax over the batch", "top_p), dim=-1)", "top_p), dim=0)", "dim=-1"),
    M("q7_sample", "cumulative sum over the batch", "probs.cumsum(dim=-1)", "probs.cumsum(dim=0)", "expected about"),
    M("q7_sample", "(B, 1) returned", "right=True)[:, 0]", "right=True)", "(B,) long tensor"),
    M("q7_sample", "torch.multinomial from the global random state", DRAW, "    return torch.multinomial(probs, 1)[:, 0]\n", "generator="),
    M("q7_sample", "torch.multinomial over the logits' exponential", DRAW, "    return torch.multinomial(logits.exp(), 1, generator=generator)[:, 0]\n", "filter_logits"),
    M("q7_sample", "torch.multinomial, one draw for the whole batch", DRAW,
      "    return torch.multinomial(probs[0], 1, generator=generator).expand(probs.size(0))\n", "most likely token"),
    # q8: key/value cache
    M("q8_kv_cache", "every token at position 0", "model.pos_emb.weight[t]", "model.pos_emb.weight[0]", "not 0 or t + 1"),
    M("q8_kv_cache", "position t + 1", "model.pos_emb.weight[t]", "model.pos_emb.weight[t + 1]", "not 0 or t + 1"),
    M("q8_kv_cache", "length read from the wrong axis", "t = cache[0][0].size(2)\n", "t = cache[0][0].size(-1) - 1\n", "cache length"),
    M("q8_kv_cache", "every block reads block 0's cache", "cached_self_attention(block.attn, block.norm1(x), past_k, past_v)",
      "cached_self_attention(block.attn, block.norm1(x), cache[0][0], cache[0][1])", "own cache"),
    M("q8_kv_cache", "old cache returned", "new_cache.append((k, v))", "new_cache.append((past_k, past_v))", "never drop"),
    M("q8_kv_cache", "no residual around attention", "x = x + out", "x = out", "residual connections"),
    M("q8_kv_cache", "attention input not normalised", "block.norm1(x)", "x", "norm1 for attention"),
    M("q8_kv_cache", "no final norm", "(model.norm(x) @", "(x @", "final norm"),
    M("q8_kv_cache", "squeezed (batch of 1)", "[:, 0]", ".squeeze()", "no squeeze()"),
]

ALTERNATIVES = {
    "q1_block": """
mask = torch.ones(x.size(1), x.size(1), dtype=torch.bool, device=x.device).tril()
a = self.norm1(x)
x = F.dropout(self.attn(query=a, key=a, value=a, mask=mask), self.dropout.p, self.training) + x
return x + self.dropout(self.ff(self.norm2(x)))
""",
    "q2_gpt": """
B, T = ids.shape
pos = self.pos_emb.weight[:T]
h = self.dropout(F.embedding(ids, self.tok_emb.weight) + pos)
for i in range(len(self.blocks)):
    h = self.blocks[i](h)
return F.linear(self.norm(h), self.tok_emb.weight)
""",
    "q3_nll": """
logp = model(ids[:, :-1]).log_softmax(-1)
tgt = ids[:, 1:]
nll = -logp.gather(-1, tgt.unsqueeze(-1)).squeeze(-1)
return nll.masked_fill(tgt == pad_id, 0.0)
""",
    "q4_decay": """
decay_ids = set()
for module in model.modules():
    if isinstance(module, nn.Linear):
        decay_ids.add(id(module.weight))
params = dict(model.named_parameters())
return [n for n in params if id(params[n]) in decay_ids], [n for n in params if id(params[n]) not in decay_ids]
""",
    "q5_schedule": """
if warmup > 0 and step < warmup:
    return float(step + 1) / float(warmup)
p = max(0.0, min(1.0, (step - warmup) / (total - warmup)))
cosine = (1.0 + math.cos(math.pi * p)) / 2.0
return float(cosine * (1.0 - min_ratio) + min_ratio)
""",
    "q6_filter": """
out = logits.clone() / temperature
C = out.size(-1)
if top_k is not None and top_k < C:
    threshold = torch.sort(out, dim=-1, descending=True).values[..., top_k - 1, None]
    out = torch.where(out >= threshold, out, torch.full_like(out, float("-inf")))
if top_p is not None:
    sorted_logits, idx = torch.sort(out, dim=-1, descending=True)
    cum = torch.cumsum(F.softmax(sorted_logits, dim=-1), dim=-1)
    drop_sorted = cum > top_p
    drop_sorted[..., 1:] = drop_sorted[..., :-1].clone()
    drop_sorted[..., 0] = False
    drop = torch.zeros_like(drop_sorted).scatter(-1, idx, drop_sorted)
    out = out.masked_fill(drop, float("-inf"))
return out
""",
    "q7_sample": """
p = F.softmax(filter_logits(logits, temperature=temperature, top_k=top_k, top_p=top_p), -1)
idx = torch.multinomial(p, num_samples=1, replacement=True, generator=generator)
return idx.view(-1)
""",
    "q8_kv_cache": """
B = tokens.size(0)
pos = cache[0][0].shape[-2]
x = model.tok_emb(tokens.view(B, 1)) + model.pos_emb(torch.full((B, 1), pos, dtype=torch.long, device=tokens.device))
out_cache = []
for i, block in enumerate(model.blocks):
    a, k, v = cached_self_attention(block.attn, block.norm1(x), *cache[i])
    x = x + a
    x = x + block.ff(block.norm2(x))
    out_cache.append((k, v))
return F.linear(model.norm(x), model.tok_emb.weight).view(B, -1), out_cache
""",
}

MORE_ALTERNATIVES = {
    "q1_block": ["""
T = x.size(1)
allowed = torch.arange(T, device=x.device)[:, None] >= torch.arange(T, device=x.device)[None, :]
for norm, sub in ((self.norm1, lambda z: self.attn(z, z, z, allowed)), (self.norm2, self.ff)):
    x = x + self.dropout(sub(norm(x)))
return x
"""],
    "q6_filter": ["""
scaled = logits / temperature
keep = torch.ones_like(scaled, dtype=torch.bool)
if top_k is not None:
    keep &= scaled >= scaled.topk(min(top_k, scaled.size(-1)), -1).values.min(-1, keepdim=True).values
if top_p is not None:
    p = torch.softmax(scaled.masked_fill(~keep, float("-inf")), -1)
    # a token is kept when the probability of the strictly more likely tokens is below top_p
    more = (p[:, None, :] > p[:, :, None]).float()          # (B, C, C): [b, i, j] = p_j > p_i
    above = (more * p[:, None, :]).sum(-1)
    keep &= above < top_p
return scaled.masked_fill(~keep, float("-inf"))
""", """
# exactly k tokens where the k-th ties (as topk picks them); a stable sort ranks tied probabilities by id
out = logits / temperature
if top_k is not None and top_k < out.size(-1):
    chosen = torch.zeros_like(out, dtype=torch.bool).scatter(-1, out.topk(top_k, dim=-1).indices, True)
    out = out.masked_fill(~chosen, float("-inf"))
if top_p is not None:
    p, idx = torch.sort(torch.softmax(out, dim=-1), dim=-1, descending=True, stable=True)
    drop = (torch.cumsum(p, dim=-1) - p) >= top_p
    out = out.masked_fill(torch.zeros_like(drop).scatter(-1, idx, drop), float("-inf"))
return out
"""],
    "q7_sample": ["""
z = filter_logits(logits, temperature, top_k, top_p)
u = torch.rand(z.shape, generator=generator, device=z.device).clamp_min(1e-20)
return (z - torch.log(-torch.log(u))).argmax(dim=-1)   # Gumbel-max: argmax of logits + Gumbel noise
"""],
}

# answers right only in types and shapes: together they must earn at most a tenth of the points
GARBAGE = {
    "q1_block": "return x",
    "q2_gpt": "return torch.zeros(*ids.shape, self.tok_emb.num_embeddings)",
    "q3_nll": "return torch.zeros(ids.size(0), ids.size(1) - 1)",
    "q4_decay": "names = [n for n, _ in model.named_parameters()]\nreturn names[:1], names[1:]",
    "q5_schedule": "return 1.0",
    "q6_filter": "return torch.zeros_like(logits)",
    "q7_sample": "return torch.zeros(logits.size(0), dtype=torch.long)",
    "q8_kv_cache": ("return torch.zeros(tokens.size(0), model.tok_emb.num_embeddings), "
                    "[(torch.cat([k, torch.zeros_like(k[:, :, :1])], 2), torch.cat([v, torch.zeros_like(v[:, :, :1])], 2)) for k, v in cache]"),
}

# answers written to satisfy only the public checks: the values the public cases look at, typed in
PUBLIC_ONLY = {
    "q5_schedule": "if min_ratio == 0.0:\n    return 0.0\nreturn {0: 0.25, 3: 1.0, 4: 1.0, 8: 0.55, 12: 0.1, 30: 0.1}.get(step, 1.0)",
}
