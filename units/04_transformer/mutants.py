"""Notebook 04's mutants (bugs students make) and alternative correct solutions; run by test_mutants.py.
An alternative given as a tuple fills the solution's blocks in order (q2 and q5 have several)."""

from __future__ import annotations

from mutation import Mutant


M = Mutant
SCALE = "q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))"
FILL = 'scores = scores.masked_fill(~mask, float("-inf"))'
ENC_ATTN = "x = x + self.dropout(self.self_attn(h, h, h, src_mask))"
ENC_FF = "return x + self.dropout(self.ff(self.norm2(x)))"
DEC_SELF = "x = x + self.dropout(self.self_attn(h, h, h, tgt_mask))"
DEC_CROSS = "x = x + self.dropout(self.cross_attn(h, memory, memory, src_mask))"
NOAM = "factor * d_model ** -0.5 * min(step ** -0.5, step * warmup ** -1.5)"
MUTANTS = [
    # q1: scaled dot-product attention
    M("q1_sdpa", "output from F.scaled_dot_product_attention (a rule of the question)", "return weights @ v, weights",
      "return F.scaled_dot_product_attention(q, k, v, attn_mask=mask), weights", "not F.scaled_dot_product_attention", rule=True),
    M("q1_sdpa", "scaled by the integer part of sqrt(d_k)", SCALE, "q @ k.transpose(-2, -1) / math.isqrt(q.size(-1))", "sqrt(d"),
    M("q1_sdpa", "missing 1/sqrt(d_k)", SCALE, "q @ k.transpose(-2, -1)", "missing 1/sqrt(d_k)"),
    M("q1_sdpa", "divided by d_k instead of sqrt(d_k)", "math.sqrt(q.size(-1))", "q.size(-1)", "sqrt(d_k)"),
    M("q1_sdpa", "scaled by the value width d_v", "math.sqrt(q.size(-1))", "math.sqrt(v.size(-1))", "not d_v"),
    M("q1_sdpa", "softmax over the queries", "torch.softmax(scores, dim=-1)", "torch.softmax(scores, dim=-2)", "dim=-1"),
    M("q1_sdpa", "keys transposed on the wrong axes", "k.transpose(-2, -1)", "k.transpose(1, 2)", ""),  # crashes on (B, h, T, d_k)
    M("q1_sdpa", "mask inverted", FILL, 'scores = scores.masked_fill(mask, float("-inf"))', "not inverted"),
    M("q1_sdpa", "mask applied after the softmax", (FILL, "return weights @ v, weights"),
      ("scores = scores", "weights = weights.masked_fill(~mask, 0.0)\n    return weights @ v, weights"), "do not zero weights after it"),
    M("q1_sdpa", "masked scores set to 0, not -inf", 'float("-inf")', "0.0", "exactly 0"),
    M("q1_sdpa", "masked scores filled with a finite -1e4 (a rule the text states)", FILL, "scores = scores.masked_fill(~mask, -1e4)",
      "a finite fill such as -1e4"),
    M("q1_sdpa", "attention weights detached from the graph", "torch.softmax(scores, dim=-1)", "torch.softmax(scores, dim=-1).detach()", "autograd graph"),
    M("q1_sdpa", "softmax by hand without subtracting the maximum", "weights = torch.softmax(scores, dim=-1)",
      "weights = scores.exp() / scores.exp().sum(dim=-1, keepdim=True)", "torch.softmax"),
    M("q1_sdpa", "-inf filler created on the CPU", FILL, 'scores = torch.where(mask, scores, torch.full(scores.shape, float("-inf")))', "device"),
    M("q1_sdpa", "leading dimensions flattened with .view for torch.bmm (no case of its own: the checks' non-contiguous variant)", SCALE,
      "torch.bmm(q.view(-1, q.size(-2), q.size(-1)), k.view(-1, k.size(-2), k.size(-1)).transpose(1, 2))\n"
      "    scores = scores.view(*q.shape[:-1], k.size(-2)) / math.sqrt(q.size(-1))", ".view needs contiguous memory"),
    M("q1_sdpa", "q scaled in place (the caller's tensor changes)", SCALE, "q.div_(math.sqrt(q.size(-1))) @ k.transpose(-2, -1)", "in place"),
    # q2: multi-head attention
    M("q2_mha", "heads split along the wrong axis", "x.view(B, L, self.h, self.d_k).transpose(1, 2)", "x.view(B, self.h, L, self.d_k)", "wrong axis"),
    M("q2_mha", "heads merged without transposing back", "x.transpose(1, 2).reshape(B, L, self.h * self.d_k)", "x.reshape(B, L, self.h * self.d_k)", "transpose(1, 2) back"),
    M("q2_mha", "no output projection W_o", "return self.W_o(self.merge_heads(out))", "return self.merge_heads(out)", "then W_o"),
    M("q2_mha", "keys projected with W_q", "k = self.split_heads(self.W_k(key))", "k = self.split_heads(self.W_q(key))", "keys from W_k(key)"),
    M("q2_mha", "values taken from the keys", "v = self.split_heads(self.W_v(value))", "v = self.split_heads(self.W_v(key))", "values from W_v(value)"),
    M("q2_mha", "mask not passed on", "scaled_dot_product_attention(q, k, v, mask)", "scaled_dot_product_attention(q, k, v)", "pass the mask on"),
    M("q2_mha", "weights not stored", "out, self.weights = scaled_dot_product_attention(q, k, v, mask)",
      "out, _ = scaled_dot_product_attention(q, k, v, mask)", "self.weights"),
    M("q2_mha", "split_heads detaches the heads", "x.view(B, L, self.h, self.d_k).transpose(1, 2)",
      "x.view(B, L, self.h, self.d_k).transpose(1, 2).detach()", "autograd graph"),
    M("q2_mha", "default mask created on the CPU", "scaled_dot_product_attention(q, k, v, mask)",
      "scaled_dot_product_attention(q, k, v, mask if mask is not None else torch.ones(q.size(2), k.size(2), dtype=torch.bool))", "device"),
    M("q2_mha", "keys and values from the query (self-attention only)", ("self.W_k(key)", "self.W_v(value)"), ("self.W_k(query)", "self.W_v(query)"), "keys come from W_k(key)"),
    M("q2_mha", "merge_heads squeezes axes of size 1", "x.transpose(1, 2).reshape(B, L, self.h * self.d_k)", "x.transpose(1, 2).reshape(B, L, self.h * self.d_k).squeeze()", "squeeze()"),
    M("q2_mha", "the memory's keys and values projected once, kept on the module for later calls of its length (no case of its own: the checks' fresh variant)",
      "        k = self.split_heads(self.W_k(key))                             # (B, n_h, S, d_k)\n"
      "        v = self.split_heads(self.W_v(value))                           # (B, n_h, S, d_k)",
      "        if getattr(self, \"memory\", None) is None or self.memory[0].size(2) != key.size(1):   # the same at every decoder step\n"
      "            self.memory = (self.split_heads(self.W_k(key)), self.split_heads(self.W_v(value)))\n"
      "        k, v = self.memory", "something kept from one call", public=True),
    # q3: masks
    M("q3_masks", "pad mask on queries instead of keys", "(tokens != PAD_ID)[:, None, None, :]", "(tokens != PAD_ID)[:, None, :, None]", "pad mask on queries"),
    M("q3_masks", "pad mask inverted", "(tokens != PAD_ID)[:, None, None, :]", "(tokens == PAD_ID)[:, None, None, :]", "not inverted"),
    M("q3_masks", "causal mask transposed (upper triangle)", ".tril()", ".triu()", "transposed mask"),
    M("q3_masks", "causal mask off by one: the diagonal hidden", ".tril()", ".tril(-1)", "off by one"),
    M("q3_masks", "causal mask off by one: sees the next word", ".tril()", ".tril(1)", "the future"),
    M("q3_masks", "no causal mask at all", ".tril()", "", "the future"),
    M("q3_masks", "causal mask ignores its device argument", "torch.ones(size, size, dtype=torch.bool, device=device).tril()",
      "torch.ones(size, size, dtype=torch.bool).tril()", "device"),
    M("q3_masks", "causal mask from arange without device", "torch.ones(size, size, dtype=torch.bool, device=device).tril()",
      "torch.arange(size)[:, None] >= torch.arange(size)[None, :]", "device"),
    M("q3_masks", "padding mask squeezed (batch of 1)", "return (tokens != PAD_ID)[:, None, None, :]",
      "m = (tokens != PAD_ID).squeeze()\n    return m.view(m.size(0), 1, 1, -1)", "squeeze()"),
    M("q3_masks", "padding mask built on the CPU", "return (tokens != PAD_ID)[:, None, None, :]",
      "mask = torch.zeros(tokens.shape, dtype=torch.bool)\n    mask[tokens != PAD_ID] = True\n    return mask[:, None, None, :]", "device"),
    # q4: sinusoidal positions
    M("q4_positions", "a loop over the columns (the question asks for none)",
      ("pe = torch.zeros(max_len, d_model)\n    pe[:, 0::2] = torch.sin(angle)\n    pe[:, 1::2] = torch.cos(angle)",),
      ("pe = torch.zeros(max_len, d_model)\n    for j in range(0, d_model, 2):\n        pe[:, j] = torch.sin(angle[:, j // 2])\n        pe[:, j + 1] = torch.cos(angle[:, j // 2])",),
      "without a loop", rule=True),
    M("q4_positions", "sin and cos swapped", ("pe[:, 0::2] = torch.sin(angle)", "pe[:, 1::2] = torch.cos(angle)"),
      ("pe[:, 0::2] = torch.cos(angle)", "pe[:, 1::2] = torch.sin(angle)"), "sin and cos swapped"),
    M("q4_positions", "exponent i / d_model instead of 2i / d_model", "angle = pos / 10000 ** (two_i / d_model)",
      "angle = pos / 10000 ** (two_i / 2 / d_model)", "wrong exponent"),
    M("q4_positions", "exponent 2i without / d_model", "angle = pos / 10000 ** (two_i / d_model)", "angle = pos / 10000 ** two_i", "wrong exponent"),
    M("q4_positions", "sines then cosines, not interleaved", ("pe[:, 0::2] = torch.sin(angle)", "pe[:, 1::2] = torch.cos(angle)"),
      ("pe[:, :d_model // 2] = torch.sin(angle)", "pe[:, d_model // 2:] = torch.cos(angle)"), "sin and cos swapped"),
    M("q4_positions", "positions from 1", "torch.arange(max_len, dtype=torch.float32)", "torch.arange(1, max_len + 1, dtype=torch.float32)", "sin(0) = 0"),
    M("q4_positions", "10000 ** 2i overflows float32", "angle = pos / 10000 ** (two_i / d_model)", "angle = pos / (10000 ** two_i) ** (1 / d_model)", "overflows"),
    M("q4_positions", "computed in float64", ("torch.arange(max_len, dtype=torch.float32)", "torch.arange(0, d_model, 2, dtype=torch.float32)", "pe = torch.zeros(max_len, d_model)"),
      ("torch.arange(max_len, dtype=torch.float64)", "torch.arange(0, d_model, 2, dtype=torch.float64)", "pe = torch.zeros(max_len, d_model, dtype=torch.float64)"), "float32"),
    M("q4_positions", "a fixed table of 5000 positions", ("torch.arange(max_len, dtype=torch.float32)", "pe = torch.zeros(max_len, d_model)"),
      ("torch.arange(5000, dtype=torch.float32)", "pe = torch.zeros(5000, d_model)"), "max_len"),
    # q5: feed-forward and encoder layer
    M("q2_mha", "PyTorch's multi-head attention (a rule of the question)", "out, self.weights = scaled_dot_product_attention(q, k, v, mask)",
      "out, self.weights = nn.MultiheadAttention(self.h * self.d_k, self.h, batch_first=True).to(query.device)(query, key, value, average_attn_weights=False)\n"
      "        return out", "not torch.nn.MultiheadAttention", rule=True),
    M("q5_encoder_layer", "PyTorch's encoder layer (a rule of the question)", ENC_FF,
      "return nn.TransformerEncoderLayer(x.size(-1), 2, 4 * x.size(-1), dropout=0.0, batch_first=True, norm_first=True).to(x.device)(x)",
      "not torch.nn.TransformerEncoderLayer", rule=True),
    M("q5_encoder_layer", "no ReLU in the feed-forward network", "self.linear2(F.relu(self.linear1(x)))", "self.linear2(self.linear1(x))", "ReLU in between"),
    M("q5_encoder_layer", "no residual around self-attention", ENC_ATTN, "x = self.dropout(self.self_attn(h, h, h, src_mask))", "both residual connections"),
    M("q5_encoder_layer", "no residual around the feed-forward network", ENC_FF, "return self.dropout(self.ff(self.norm2(x)))", "both residual connections"),
    M("q5_encoder_layer", "post-LN instead of pre-LN", ("h = self.norm1(x)", ENC_ATTN, ENC_FF),
      ("h = x", "x = self.norm1(x + self.dropout(self.self_attn(h, h, h, src_mask)))", "return self.norm2(x + self.dropout(self.ff(x)))"), "pre-LN"),
    M("q5_encoder_layer", "no layer norm before the feed-forward network", ENC_FF, "return x + self.dropout(self.ff(x))", "both norms"),
    M("q5_encoder_layer", "norm1 used for both sublayers", ENC_FF, "return x + self.dropout(self.ff(self.norm1(x)))", "norm2 for the FFN"),
    M("q5_encoder_layer", "padding mask not passed", ENC_ATTN, "x = x + self.dropout(self.self_attn(h, h, h, None))", "mask is passed"),
    M("q5_encoder_layer", "FFN hidden activations detached", "F.relu(self.linear1(x))", "F.relu(self.linear1(x)).detach()", "autograd graph"),
    M("q5_encoder_layer", "no dropout on the attention sublayer", ENC_ATTN, "x = x + self.self_attn(h, h, h, src_mask)", "is a dropout missing"),
    M("q5_encoder_layer", "dropout always on (F.dropout without training)", ENC_FF, "return x + F.dropout(self.ff(self.norm2(x)), self.dropout.p)", "eval mode"),
    M("q5_encoder_layer", "dropout on the residual sum", ENC_ATTN, "x = self.dropout(x + self.self_attn(h, h, h, src_mask))", "not to the sum"),
    M("q5_encoder_layer", "dropout on the sublayer's input", ENC_FF, "return x + self.ff(self.dropout(self.norm2(x)))", "not to the sublayer's input"),
    M("q5_encoder_layer", "dropout on the self-attention's input as well as its output (a rule the text states)", ENC_ATTN,
      "h = self.dropout(h)\n        " + ENC_ATTN, "not also on its input"),
    # q6: decoder layer
    M("q6_decoder_layer", "PyTorch's decoder layer (a rule of the question)", "return x + self.dropout(self.ff(self.norm3(x)))",
      "return nn.TransformerDecoderLayer(x.size(-1), 2, 4 * x.size(-1), dropout=0.0, batch_first=True, norm_first=True).to(x.device)(x, memory)",
      "not torch.nn.TransformerDecoderLayer", rule=True),
    M("q6_decoder_layer", "dropout on the encoder memory", DEC_CROSS,
      "x = x + self.dropout(self.cross_attn(h, self.dropout(memory), self.dropout(memory), src_mask))", "never on the memory"),
    M("q6_decoder_layer", "no causal mask in self-attention", DEC_SELF, "x = x + self.dropout(self.self_attn(h, h, h, None))", "information flows from the future"),
    M("q6_decoder_layer", "padding mask not passed to cross-attention", DEC_CROSS,
      "x = x + self.dropout(self.cross_attn(h, memory, memory, None))", "pass src_mask"),
    M("q6_decoder_layer", "cross-attention queries from the memory", DEC_CROSS,
      "x = x + self.dropout(self.cross_attn(memory, h, h, None))", ""),  # crashes: (B, S, d) + (B, T, d)
    M("q6_decoder_layer", "cross-attention to the decoder itself", DEC_CROSS,
      "x = x + self.dropout(self.cross_attn(h, h, h, tgt_mask))", "keys and values from the memory"),
    M("q6_decoder_layer", "no residual around cross-attention", DEC_CROSS,
      "x = self.dropout(self.cross_attn(h, memory, memory, src_mask))", "residual connection"),
    M("q6_decoder_layer", "norm1 reused for cross-attention", "h = self.norm2(x)", "h = self.norm1(x)", "h = norm2(x)"),
    M("q6_decoder_layer", "cross-attention before self-attention",
      ("h = self.norm1(x)\n        " + DEC_SELF + "\n        h = self.norm2(x)\n        " + DEC_CROSS,),
      ("h = self.norm2(x)\n        " + DEC_CROSS + "\n        h = self.norm1(x)\n        " + DEC_SELF,), "in this order"),
    M("q6_decoder_layer", "memory detached in the cross-attention", DEC_CROSS,
      "x = x + self.dropout(self.cross_attn(h, memory.detach(), memory.detach(), src_mask))", "autograd graph"),
    M("q6_decoder_layer", "own causal mask instead of tgt_mask", DEC_SELF, "x = x + self.dropout(self.self_attn(h, h, h, causal_mask(x.size(1))))", "pass the tgt_mask you are given"),
    M("q6_decoder_layer", "causal mask built on the CPU when tgt_mask is None", DEC_SELF,
      "x = x + self.dropout(self.self_attn(h, h, h, tgt_mask if tgt_mask is not None else torch.ones(x.size(1), x.size(1), dtype=torch.bool).tril()))", "tgt_mask=None"),
    M("q6_decoder_layer", "no dropout on the cross-attention", DEC_CROSS, "x = x + self.cross_attn(h, memory, memory, src_mask)", "missing"),
    M("q6_decoder_layer", "dropout always on (F.dropout without training)", "return x + self.dropout(self.ff(self.norm3(x)))",
      "return x + F.dropout(self.ff(self.norm3(x)), self.dropout.p)", "eval mode"),
    M("q6_decoder_layer", "dropout on the residual sum", DEC_SELF, "x = self.dropout(x + self.self_attn(h, h, h, tgt_mask))", "not to the sum"),
    M("q6_decoder_layer", "dropout on the cross-attention's queries as well as its output (a rule the text states)", DEC_CROSS,
      "x = x + self.dropout(self.cross_attn(self.dropout(h), memory, memory, src_mask))", "not also on its input"),
    M("q6_decoder_layer", "dropout on the feed-forward's input as well as its output (a rule the text states)",
      "return x + self.dropout(self.ff(self.norm3(x)))", "return x + self.dropout(self.ff(self.dropout(self.norm3(x))))", "not also on its input"),
    # q7: label smoothing
    M("q7_label_smoothing", "padding positions averaged in", "return loss[real].mean()", "return loss.mean()", "padding positions count"),
    M("q7_label_smoothing", "eps spread over the C - 1 wrong words", "uniform = -log_probs.mean(dim=-1)",
      "uniform = (-log_probs.sum(dim=-1) - nll) / (log_probs.size(-1) - 1)", "C - 1 wrong words"),
    M("q7_label_smoothing", "summed instead of averaged", "return loss[real].mean()", "return loss[real].sum()", "averaged (not summed)"),
    M("q7_label_smoothing", "smoothing term from probabilities", "uniform = -log_probs.mean(dim=-1)", "uniform = -log_probs.exp().mean(dim=-1)", "from log_softmax"),
    M("q7_label_smoothing", "no (1 - eps) on the reference word", "loss = (1 - eps) * nll + eps * uniform", "loss = nll + eps * uniform", "(1 - eps)"),
    M("q7_label_smoothing", "smoothing by the sum over the vocabulary", "uniform = -log_probs.mean(dim=-1)", "uniform = -log_probs.sum(dim=-1)", "mean over the vocabulary"),
    M("q7_label_smoothing", "smoothing term through .data", "uniform = -log_probs.mean(dim=-1)", "uniform = -log_probs.data.mean(dim=-1)", "autograd graph"),
    M("q7_label_smoothing", "F.cross_entropy's label_smoothing instead of the formula", "return loss[real].mean()",
      "return F.cross_entropy(logits, target, label_smoothing=eps, ignore_index=ignore_index)", "not F.cross_entropy's label_smoothing", rule=True),
    M("q7_label_smoothing", "smoothed target distribution made with torch.full without device= (no case of its own: the checks' GPU variant)",
      ("nll = -log_probs.gather(1, target.unsqueeze(1)).squeeze(1)", "uniform = -log_probs.mean(dim=-1)", "loss = (1 - eps) * nll + eps * uniform"),
      ("smooth = torch.full(log_probs.shape, eps / log_probs.size(-1))",
       "smooth.scatter_(1, target.unsqueeze(1), 1 - eps + eps / log_probs.size(-1))", "loss = -(smooth * log_probs).sum(-1)"),
      "a tensor made without device= stayed on the CPU"),
    M("q7_label_smoothing", "log-probabilities computed in float32 whatever the logits' dtype (no case of its own: the checks' float64 variant)",
      "F.log_softmax(logits, dim=-1)", "F.log_softmax(logits.float(), dim=-1)", "returned torch.float32"),
    M("q7_label_smoothing", "PAD_ID instead of the ignore_index argument", "real = target != ignore_index", "real = target != PAD_ID", "not PAD_ID"),
    M("q7_label_smoothing", "log of softmax (underflows)", "log_probs = F.log_softmax(logits, dim=-1)", "log_probs = torch.log(torch.softmax(logits, dim=-1))", "log_softmax"),
    M("q7_label_smoothing", "logits shifted in place", "log_probs = F.log_softmax(logits, dim=-1)",
      "logits -= logits.max(dim=-1, keepdim=True).values\n    log_probs = F.log_softmax(logits, dim=-1)", "in place"),
    M("q7_label_smoothing", "returns a Python float", "return loss[real].mean()", "return loss[real].mean().item()", "scalar tensor"),
    # q8: warm-up schedule
    M("q8_warmup", "step 0 not handled", "step = max(step, 1)", "step = step", "division by zero"),
    M("q8_warmup", "max instead of min", "min(step ** -0.5, step * warmup ** -1.5)", "max(step ** -0.5, step * warmup ** -1.5)", "min(step^-0.5"),
    M("q8_warmup", "step ** -1.5 in the warm-up term", "step * warmup ** -1.5", "step ** -1.5", "linear rise"),
    M("q8_warmup", "no d_model ** -0.5", NOAM, "factor * min(step ** -0.5, step * warmup ** -1.5)", "d_model^-0.5"),
    M("q8_warmup", "factor ignored", NOAM, "d_model ** -0.5 * min(step ** -0.5, step * warmup ** -1.5)", "factor * d_model"),
    M("q8_warmup", "returns a tensor", NOAM, "torch.tensor(" + NOAM + ")", "float"),
    M("q8_warmup", "step 0 gives a rate of 0", "step = max(step, 1)", "if step == 0:\n        return 0.0", "step 0"),
    M("q8_warmup", "warmup argument ignored (the paper's 4000)", "step * warmup ** -1.5", "step * 4000 ** -1.5", "warmup"),
    # q9: key/value cache
    M("q9_kv_cache", "cache drops the first position", ("torch.cat([past_k,", "torch.cat([past_v,"),
      ("torch.cat([past_k[:, :, 1:],", "torch.cat([past_v[:, :, 1:],"), "cache that drops the first position"),
    M("q9_kv_cache", "returns the old cache", "return attn.W_o(attn.merge_heads(out)), k, v",
      "return attn.W_o(attn.merge_heads(out)), past_k, past_v", "hold"),
    M("q9_kv_cache", "new position attends only to itself", "scaled_dot_product_attention(q, k, v)",
      "scaled_dot_product_attention(q, k[:, :, -1:], v[:, :, -1:])", "attend to every cached key"),
    M("q9_kv_cache", "the new position not attended (past only)", "scaled_dot_product_attention(q, k, v)",
      "scaled_dot_product_attention(q, past_k, past_v)", "and to its own"),
    M("q9_kv_cache", "values from W_k", "v = torch.cat([past_v, attn.split_heads(attn.W_v(x))], dim=2)",
      "v = torch.cat([past_v, attn.split_heads(attn.W_k(x))], dim=2)", "W_v(x)"),
    M("q9_kv_cache", "no output projection", "return attn.W_o(attn.merge_heads(out)), k, v", "return attn.merge_heads(out), k, v", "W_o"),
    M("q9_kv_cache", "batch of 1 squeezed", "q = attn.split_heads(attn.W_q(x))", "q = attn.split_heads(attn.W_q(x.squeeze()).unsqueeze(1))", "squeeze()"),
    M("q9_kv_cache", "mask created on the CPU", "scaled_dot_product_attention(q, k, v)",
      "scaled_dot_product_attention(q, k, v, torch.ones(1, k.size(2), dtype=torch.bool))", "device"),
    M("q9_kv_cache", "weights not stored", "out, attn.weights = scaled_dot_product_attention(q, k, v)", "out, _ = scaled_dot_product_attention(q, k, v)", "attn.weights"),
    M("q9_kv_cache", "new key put first", "k = torch.cat([past_k, attn.split_heads(attn.W_k(x))], dim=2)",
      "k = torch.cat([attn.split_heads(attn.W_k(x)), past_k], dim=2)", "oldest first"),
]

ALTERNATIVES = {
    "q1_sdpa": """
scores = torch.einsum("...td,...sd->...ts", q, k) * q.shape[-1] ** -0.5
if mask is not None:
    scores = torch.where(mask, scores, torch.finfo(scores.dtype).min)
weights = F.softmax(scores, dim=-1)
return torch.einsum("...ts,...sd->...td", weights, v), weights
""",
    "q2_mha": ("""
return x.unflatten(-1, (self.h, self.d_k)).permute(0, 2, 1, 3)
""", """
return x.permute(0, 2, 1, 3).flatten(2)
""", """
# one fused projection: the three weight matrices side by side, one F.linear
W = torch.cat([self.W_q.weight, self.W_k.weight, self.W_v.weight])
b = torch.cat([self.W_q.bias, self.W_k.bias, self.W_v.bias])
d = W.size(1)
if query is key and key is value:
    q, k, v = F.linear(query, W, b).chunk(3, dim=-1)
else:
    q, k, v = (F.linear(t, W[i * d:(i + 1) * d], b[i * d:(i + 1) * d]) for i, t in enumerate((query, key, value)))
context, self.weights = scaled_dot_product_attention(self.split_heads(q), self.split_heads(k), self.split_heads(v), mask=mask)
return self.W_o(self.merge_heads(context))
"""),
    "q3_masks": ("""
return tokens.ne(PAD_ID).view(tokens.size(0), 1, 1, tokens.size(1))
""", """
i = torch.arange(size, device=device)
return i[:, None] >= i[None, :]
"""),
    "q4_positions": """
pos = torch.arange(max_len, dtype=torch.float32)[:, None]
freq = torch.exp(torch.arange(0, d_model, 2, dtype=torch.float32) * (-math.log(10000.0) / d_model))
angles = pos * freq
return torch.stack([angles.sin(), angles.cos()], dim=-1).reshape(max_len, d_model)
""",
    "q5_encoder_layer": ("""
hidden = torch.relu(self.linear1(x))
return self.linear2(hidden)
""", """
a = self.norm1(x)
x = F.dropout(self.self_attn(query=a, key=a, value=a, mask=src_mask), self.dropout.p, self.training) + x
f = self.ff(self.norm2(x))
return F.dropout(f, p=self.dropout.p, training=self.training) + x
"""),
    "q6_decoder_layer": """
for norm, sublayer in ((self.norm1, lambda h: self.self_attn(h, h, h, tgt_mask)),
                       (self.norm2, lambda h: self.cross_attn(h, memory, memory, src_mask)),
                       (self.norm3, self.ff)):
    x = x + self.dropout(sublayer(norm(x)))
return x
""",
    "q7_label_smoothing": """
V = logits.size(-1)
keep = target.ne(ignore_index)
lp = logits[keep].log_softmax(-1)
q = torch.full_like(lp, eps / V)
q.scatter_add_(1, target[keep].unsqueeze(1), torch.full((int(keep.sum()), 1), 1.0 - eps, device=lp.device, dtype=lp.dtype))
return -(q * lp).sum(-1).mean()
""",
    "q8_warmup": """
s = step if step > 0 else 1
rate = s / warmup ** 1.5 if s < warmup else 1 / math.sqrt(s)
return factor * rate / math.sqrt(d_model)
""",
    "q9_kv_cache": """
# one fused projection of the new position: queries, keys and values in one F.linear
W = torch.cat([attn.W_q.weight, attn.W_k.weight, attn.W_v.weight])
b = torch.cat([attn.W_q.bias, attn.W_k.bias, attn.W_v.bias])
q, new_k, new_v = (attn.split_heads(t) for t in F.linear(x, W, b).split(x.size(-1), dim=-1))
k, v = torch.cat((past_k, new_k), 2), torch.cat((past_v, new_v), 2)
out, w = scaled_dot_product_attention(q, k, v, None)
attn.weights = w
return attn.W_o(attn.merge_heads(out)), k, v
""",
}

# answers right only in types and shapes: together they must earn at most a tenth of the points
GARBAGE = {
    "q1_sdpa": "w = torch.softmax(torch.zeros(*q.shape[:-1], k.size(-2)), dim=-1)\nreturn w @ v, w",
    "q2_mha": ("return x.reshape(x.size(0), self.h, x.size(1), self.d_k)",
               "return x.reshape(x.size(0), x.size(2), self.h * self.d_k)",
               "self.weights = torch.full((query.size(0), self.h, query.size(1), key.size(1)), 1.0 / key.size(1))\nreturn self.W_o(query)"),
    "q3_masks": ("return torch.ones(tokens.size(0), 1, 1, tokens.size(1), dtype=torch.bool, device=tokens.device)",
                 "return torch.ones(size, size, dtype=torch.bool, device=device)"),
    "q4_positions": "return torch.zeros(max_len, d_model)",
    "q5_encoder_layer": ("return torch.zeros_like(x)", "return x"),
    "q6_decoder_layer": "return x",
    "q7_label_smoothing": "return (logits * 0).sum()",
    "q8_warmup": "return 0.001",
    "q9_kv_cache": "z = torch.zeros(x.size(0), attn.h, 1, attn.d_k)\nreturn x, torch.cat([past_k, z], 2), torch.cat([past_v, z], 2)",
}

# answers written to satisfy only the public checks: the values the public cases look at, typed in
PUBLIC_ONLY = {
    "q4_positions": ("pe = torch.zeros(max_len, d_model)\npe[:, 1::2] = 1.0\n"
                     "pe[1, :8] = torch.tensor([0.841471, 0.540302, 0.0998334, 0.995004, 0.00999983, 0.99995, 0.001, 0.9999995])\nreturn pe"),
    "q8_warmup": ("if step == 25:\n    return 2.0 * 256 ** -0.5 * 25 * 100 ** -1.5\n"
                  "return 256 ** -0.5 * 100 ** -0.5"),
}
