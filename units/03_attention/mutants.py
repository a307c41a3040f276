"""Notebook 03's mutants (bugs students make) and alternative correct solutions; run by test_mutants.py.
Mutants of q5_decoder whose step is right in eval mode (the dropout bugs, the gradient bugs) also run its
hidden training check, which trains a model for about 15-20 s (longer on a busy machine); the gradient bugs
(.detach(), .data) are caught by the hidden cases that run backward in the sandbox."""

from __future__ import annotations

from mutation import Mutant


M = Mutant
MASK_FILL = 'scores = scores.masked_fill(~mask, float("-inf"))'
ZERO_FILL = "return weights.masked_fill(~mask, 0.0)"
EOS_FINISH = "finished[b].append((s / float(length_penalty(t, alpha)), beams[b][k]))"
AT_MAX_LEN = "(float(new_score[b, j]) / float(length_penalty(t, alpha)), new_beams[b][j])"
DOT_BODY = ("        scores = torch.bmm(keys, query.unsqueeze(2)).squeeze(2)   # (B, S, d_k) @ (B, d_k, 1) -> (B, S, 1) -> (B, S)\n"
            "        if self.scaled:\n            scores = scores / math.sqrt(keys.size(-1))\n")
EMB_DROP = "x = torch.cat([self.dropout(self.embedding(token)), feed], dim=-1)"
OUT_DROP = "feed = self.dropout(torch.tanh(self.W_c(torch.cat([context, h], dim=-1))))"
LP = "return ((5 + length) / 6) ** alpha"
MUTANTS = [
    # q1: dot, scaled dot, general
    M("q1_dot_general", "missing 1/sqrt(d)", "scores = scores / math.sqrt(keys.size(-1))", "scores = scores", "missing 1/sqrt(d)"),
    M("q1_dot_general", "divided by d instead of sqrt(d)", "math.sqrt(keys.size(-1))", "keys.size(-1)", "sqrt(d_k)"),
    M("q1_dot_general", "scaled by the integer part of sqrt(d)", "math.sqrt(keys.size(-1))", "math.isqrt(keys.size(-1))", "sqrt(d"),
    M("q1_dot_general", "scaled by the source length", "math.sqrt(keys.size(-1))", "math.sqrt(keys.size(1))", "sqrt(d_k)"),
    M("q1_dot_general", "always scaled", "if self.scaled:", "if True:", "no scaling"),
    M("q1_dot_general", "softmax inside the score", "        return scores\n", "        return torch.softmax(scores, -1)\n", "plain dot products"),
    M("q1_dot_general", "general: every query against every sentence's keys",
      "torch.bmm(keys, projected.unsqueeze(2)).squeeze(2)", 'torch.einsum("bsk,ck->bs", keys, projected)', "keep the batch dimension separate"),
    M("q1_dot_general", "general: projection detached (no gradient to W_a)", "projected = self.W_a(query)", "projected = self.W_a(query).detach()",
      "no (or a wrong) gradient reaches W_a"),
    M("q1_dot_general", "general: .data on W_a's weight", "projected = self.W_a(query)", "projected = F.linear(query, self.W_a.weight.data)",
      "gradient reaches W_a"),
    M("q1_dot_general", "squeeze() without a dimension (batch of one; no public case of its own: the public checks' single variant)", "torch.bmm(keys, query.unsqueeze(2)).squeeze(2)",
      "torch.bmm(keys, query.unsqueeze(2)).squeeze()", "batch of one), it returned a result of other dimensions", public=True),
    M("q1_dot_general", "scale made as a CPU tensor (device)", "scores = scores / math.sqrt(keys.size(-1))",
      "scores = scores / torch.tensor([keys.size(-1)], dtype=torch.float).sqrt()", "another device"),
    M("q1_dot_general", "query scaled in place (caller's tensor changed)", DOT_BODY,
      "        if self.scaled:\n            query /= math.sqrt(keys.size(-1))\n        scores = torch.bmm(keys, query.unsqueeze(2)).squeeze(2)\n",
      "changed in place"),
    # q2: additive
    M("q2_additive", "keys flattened with .view (no case of its own: the checks' non-contiguous variant)", "self.W_k(keys))",
      "self.W_k(keys.view(-1, keys.size(-1))).view(keys.size(0), keys.size(1), -1))", ".view needs contiguous memory"),
    M("q2_additive", "keys' projection kept on the module from the first call (stale for other keys or weights)",
      "hidden = torch.tanh(self.W_q(query).unsqueeze(1) + self.W_k(keys))",
      "if getattr(self, 'projected_keys', None) is None:\n"
      "            self.projected_keys = self.W_k(keys)\n"
      "        hidden = torch.tanh(self.W_q(query).unsqueeze(1) + self.projected_keys)", "something kept from one call", public=True),
    M("q2_additive", "no tanh", "torch.tanh(self.W_q(query).unsqueeze(1) + self.W_k(keys))", "(self.W_q(query).unsqueeze(1) + self.W_k(keys))", "apply tanh"),
    M("q2_additive", "tanh after v_a", ("hidden = torch.tanh(self.W_q(query).unsqueeze(1) + self.W_k(keys))", "return self.v_a(hidden).squeeze(2)"),
      ("hidden = self.W_q(query).unsqueeze(1) + self.W_k(keys)", "return torch.tanh(self.v_a(hidden)).squeeze(2)"), "then tanh, then v_a"),
    M("q2_additive", "softmax inside the score", "return self.v_a(hidden).squeeze(2)", "return torch.softmax(self.v_a(hidden).squeeze(2), -1)", "v_a . tanh"),
    M("q2_additive", "key projection detached (no gradient to W_k)", "self.W_k(keys))", "self.W_k(keys).detach())", "gradient reaches W_k.weight"),
    M("q2_additive", "query detached", "self.W_q(query)", "self.W_q(query.detach())", "with respect to the query"),
    M("q2_additive", "W_k's bias left out", "self.W_k(keys))", "F.linear(keys, self.W_k.weight))", "W_k's bias"),
    M("q2_additive", "W_q and W_k swapped", "self.W_q(query).unsqueeze(1) + self.W_k(keys)", "self.W_k(query).unsqueeze(1) + self.W_q(keys)", "raised"),
    M("q2_additive", "squeeze() without a dimension (batch of one; no public case of its own: the public checks' single variant)", "return self.v_a(hidden).squeeze(2)", "return self.v_a(hidden).squeeze()",
      "batch of one), it returned a result of other dimensions", public=True),
    M("q2_additive", "query term repeated with a CPU tensor of ones (device)", "self.W_q(query).unsqueeze(1)",
      "torch.ones(keys.size(0), keys.size(1), 1) * self.W_q(query).unsqueeze(1)", "another device"),
    # q3: masked softmax
    M("q3_masked_softmax", "softmax over the batch axis", "torch.softmax(scores, dim=-1)", "torch.softmax(scores, dim=0)", "dim=-1"),
    M("q3_masked_softmax", "scores not masked before softmax (weights zeroed after)", MASK_FILL, "scores = scores", "mask BEFORE"),
    M("q3_masked_softmax", "mask not applied", (MASK_FILL, ZERO_FILL), ("scores = scores", "return weights"), "exactly 0"),
    M("q3_masked_softmax", "mask inverted", (MASK_FILL, ZERO_FILL),
      ('scores = scores.masked_fill(mask, float("-inf"))', "return weights.masked_fill(mask, 0.0)"), "exactly 0"),
    M("q3_masked_softmax", "mask on the wrong axis (transposed)", (MASK_FILL, ZERO_FILL),
      ('scores = scores.masked_fill(~mask.T, float("-inf"))', "return weights.masked_fill(~mask.T, 0.0)"), "not transposed"),
    M("q3_masked_softmax", "masked scores set to 0, not -inf", 'float("-inf")', "0.0", "mask BEFORE"),
    M("q3_masked_softmax", "NaN for a row without real positions", ZERO_FILL, "return weights", "not NaN"),
    M("q3_masked_softmax", "weights multiplied by the mask (NaN * 0 = NaN)", ZERO_FILL, "return weights * mask", "not NaN"),
    M("q3_masked_softmax", "finite fill without zeroing: an all-masked row attends to padding", (MASK_FILL, ZERO_FILL),
      ("scores = scores.masked_fill(~mask, -1e9)", "return weights"), "all zeros"),
    M("q3_masked_softmax", ".data on the scores (no gradient)", MASK_FILL, 'scores = scores.data.masked_fill(~mask, float("-inf"))',
      "no gradient reaches the scores"),
    M("q3_masked_softmax", "softmax by hand without subtracting the maximum",
      ('scores = scores.masked_fill(~mask, float("-inf"))   # padding can never win', "weights = torch.softmax(scores, dim=-1)             # a row of only -inf gives NaN ..."),
      ("exps = torch.exp(scores) * mask", "weights = exps / exps.sum(-1, keepdim=True).clamp(min=1e-30)"), "subtract each row's maximum"),
    M("q3_masked_softmax", "scores masked in place (caller's scores changed)", MASK_FILL, 'scores.masked_fill_(~mask, float("-inf"))', "changed in place"),
    M("q3_masked_softmax", "-inf filled from a CPU tensor (device)", MASK_FILL,
      'scores = torch.where(mask, scores, torch.full(scores.shape, float("-inf")))', "another device"),
    # q4: attention
    M("q4_attention", "context from the keys", "torch.bmm(weights.unsqueeze(1), values)", "torch.bmm(weights.unsqueeze(1), keys)", "VALUES"),
    M("q4_attention", "mask not passed", "masked_softmax(score(query, keys), mask)", "torch.softmax(score(query, keys), -1)", "pass the mask on"),
    M("q4_attention", "results cast to float32 whatever the inputs' dtype (no case of its own: the checks' float64 variant, where no gradient is asked)",
      "    return context, weights", "    return context.float(), weights.float()", "returned torch.float32 for float64 inputs", public=True),
    M("q4_attention", "plain mean of the values", "torch.bmm(weights.unsqueeze(1), values).squeeze(1)", "values.mean(dim=1)", "not a plain mean"),
    M("q4_attention", "weighted sum over the wrong axis", "torch.bmm(weights.unsqueeze(1), values).squeeze(1)", "(weights.unsqueeze(-1) * values).sum(2)", "(B, d_v)"),
    M("q4_attention", "weights detached in the context", "torch.bmm(weights.unsqueeze(1), values)", "torch.bmm(weights.detach().unsqueeze(1), values)",
      "flow back through the weights"),
    M("q4_attention", "values scored instead of the keys", "score(query, keys)", "score(query, values)", "score(query, keys)"),
    M("q4_attention", "a softmax of its own instead of masked_softmax: NaN for a sentence without real positions (a rule the text states)",
      "masked_softmax(score(query, keys), mask)", 'torch.softmax(score(query, keys).masked_fill(~mask, float("-inf")), -1)',
      "take the weights from your masked_softmax"),
    M("q4_attention", "squeeze() without a dimension (batch of one; no public case of its own: the public checks' single variant)", "torch.bmm(weights.unsqueeze(1), values).squeeze(1)",
      "torch.bmm(weights.unsqueeze(1), values).squeeze()", "batch of one), it returned a result of other dimensions", public=True),
    M("q4_attention", "context accumulated in a CPU tensor (device)", "context = torch.bmm(weights.unsqueeze(1), values).squeeze(1)",
      "context = torch.zeros(values.size(0), values.size(2))\n    for s in range(values.size(1)):\n        context += weights[:, s:s + 1] * values[:, s]",
      "another device"),
    # q5: attention decoder step (the hidden check trains it)
    M("q5_decoder", "no input feeding", "self.embedding(token)), feed]", "self.embedding(token)), torch.zeros_like(feed)]", "input feeding"),
    M("q5_decoder", "attends with the previous state h_{t-1}",
      "h = self.rnn(x, h)                                                         # (B, H)\n        context, weights = attention(self.score, h, memory, memory, mask)",
      "context, weights = attention(self.score, h, memory, memory, mask)\n        h = self.rnn(x, h)", "NEW state h_t"),
    M("q5_decoder", "mask not passed", "attention(self.score, h, memory, memory, mask)", "attention(self.score, h, memory, memory, torch.ones_like(mask))", "pass the mask"),
    M("q5_decoder", "[h_t; c_t] instead of [c_t; h_t]", "torch.cat([context, h], dim=-1)", "torch.cat([h, context], dim=-1)", "the context first"),
    M("q5_decoder", "no tanh in the attentional vector", "torch.tanh(self.W_c(torch.cat([context, h], dim=-1)))", "self.W_c(torch.cat([context, h], dim=-1))", "tanh(W_c"),
    M("q5_decoder", "recurrence detached (h_{t-1}.detach())", "h = self.rnn(x, h)", "h = self.rnn(x, h.detach())", "previous state h_{t-1}"),
    M("q5_decoder", ".data on the fed attentional vector", "self.embedding(token)), feed]", "self.embedding(token)), feed.data]", "fed vector h~_{t-1}"),
    M("q5_decoder", "memory detached", "attention(self.score, h, memory, memory, mask)", "attention(self.score, h, memory.detach(), memory.detach(), mask)",
      "the memory"),
    M("q5_decoder", "no dropout on the embedding", EMB_DROP, "x = torch.cat([self.embedding(token), feed], dim=-1)", "apply self.dropout to the embedding"),
    M("q5_decoder", "no dropout on h~_t", OUT_DROP, "feed = torch.tanh(self.W_c(torch.cat([context, h], dim=-1)))", "apply self.dropout to tanh(W_c"),
    M("q5_decoder", "dropout on the fed vector instead of the embedding", EMB_DROP, "x = torch.cat([self.embedding(token), self.dropout(feed)], dim=-1)",
      "only to it"),
    M("q5_decoder", "dropout inside the tanh of h~_t (a rule the text states)", OUT_DROP,
      "feed = torch.tanh(self.dropout(self.W_c(torch.cat([context, h], dim=-1))))", "apply self.dropout after the tanh"),
    M("q5_decoder", "dropout on [c_t; h_t] before W_c instead of on h~_t (a rule the text states)", OUT_DROP,
      "feed = torch.tanh(self.W_c(self.dropout(torch.cat([context, h], dim=-1))))", "apply self.dropout after the tanh"),
    M("q5_decoder", "F.dropout without training= (also in eval mode)", (EMB_DROP, OUT_DROP),
      ("x = torch.cat([F.dropout(self.embedding(token), self.dropout.p), feed], dim=-1)",
       "feed = F.dropout(torch.tanh(self.W_c(torch.cat([context, h], dim=-1))), self.dropout.p)"), "in eval mode"),
    # q6: length penalty
    M("q6_length_penalty", "alpha on the numerator only", "((5 + length) / 6) ** alpha", "(5 + length) ** alpha / 6", "the whole fraction"),
    M("q6_length_penalty", "no 5", "((5 + length) / 6) ** alpha", "(length / 6) ** alpha", "(5 + |Y|)"),
    M("q6_length_penalty", "integer division", "((5 + length) / 6) ** alpha", "((5 + length) // 6) ** alpha", "true division"),
    M("q6_length_penalty", "alpha multiplies instead of raising", "((5 + length) / 6) ** alpha", "((5 + length) / 6) * alpha", "raised to alpha"),
    M("q6_length_penalty", "6 ** alpha (operator precedence)", "((5 + length) / 6) ** alpha", "(5 + length) / 6 ** alpha", "the whole fraction"),
    M("q6_length_penalty", "math.pow (no tensors)", "((5 + length) / 6) ** alpha", "math.pow((5 + length) / 6, alpha)", "not math.pow"),
    M("q6_length_penalty", "a tensor for an int length", "((5 + length) / 6) ** alpha", "(torch.as_tensor(5 + length) / 6) ** alpha", "Python float"),
    M("q6_length_penalty", "alpha = 0 shortcut returns the int 1", LP, "if alpha == 0:\n        return 1\n    " + LP, "not the int 1"),
    M("q6_length_penalty", "lengths changed in place (length += 5)", LP, "length += 5\n    return (length / 6) ** alpha", "in place"),
    M("q6_length_penalty", "a 0-dimensional tensor length answered with a Python float (a rule the text states)", LP,
      "lp = ((5 + torch.as_tensor(length, dtype=torch.float32)) / 6) ** alpha\n    return lp.item() if lp.dim() == 0 else lp",
      "0-dimensional floating-point tensor"),
    # q7: beam search
    M("q7_beam_search", "row indices of the state left on the CPU", "* K + new_beam).view(-1).to(device)", "* K + new_beam).view(-1)",
      "on src.device"),
    M("q7_beam_search", "tokens fed back from the CPU", "new_token.view(-1).to(device)", "new_token.view(-1)", "on src.device"),
    M("q7_beam_search", "the <sos> tokens made on the CPU (no public case of its own: the public checks' GPU variant, with the checks' test models on it)",
      "tokens = torch.full((B * K,), SOS_ID, dtype=torch.long, device=device)", "tokens = torch.full((B * K,), SOS_ID, dtype=torch.long)",
      "a tensor made without device= stayed on the CPU", public=True),
    M("q7_beam_search", "beam drops finished hypotheses", EOS_FINISH, "pass", "set aside"),
    M("q7_beam_search", "length penalty applied twice", EOS_FINISH,
      "finished[b].append((s / float(length_penalty(t, alpha)) / float(length_penalty(t, alpha)), beams[b][k]))", "applied once"),
    M("q7_beam_search", "no length penalty", (EOS_FINISH, AT_MAX_LEN),
      ("finished[b].append((s, beams[b][k]))", "(float(new_score[b, j]), new_beams[b][j])"), "lp(|Y|)"),
    M("q7_beam_search", "<eos> of any rank finishes a hypothesis", "if rank < K:", "if True:", "rank < β"),
    M("q7_beam_search", "state not reordered", "        state = {name: value.index_select(0, source_rows) for name, value in state.items()}\n", "", "state reordered"),
    M("q7_beam_search", "all K copies of <sos> start live", 'scores = torch.full((B, K), float("-inf"), device=device)\n    scores[:, 0] = 0.0',
      "scores = torch.zeros(B, K, device=device)", "[0, -inf"),
    M("q7_beam_search", "top K candidates instead of 2K", ("topk(2 * K", "range(2 * K)"), ("topk(K", "range(K)"), "top 2β"),
    M("q7_beam_search", "stops at the first finished hypothesis", ("if len(finished[b]) >= K:", "if all(len(f) >= K for f in finished)"),
      ("if len(finished[b]) >= 1:", "if all(len(f) >= 1 for f in finished)"), "β finished"),
    M("q7_beam_search", "scores not accumulated (last token only)", "(scores.unsqueeze(2) + log_probs.view(B, K, V))",
      "(log_probs.view(B, K, V) + 0 * scores.unsqueeze(2).clamp(min=-1e9))", "scores[:, :, None] + log_probs"),
    M("q7_beam_search", "|Y| without <eos> in the length penalty", EOS_FINISH,
      "finished[b].append((s / float(length_penalty(t - 1, alpha)), beams[b][k]))", "counting <eos>"),
    M("q7_beam_search", "state reordered without the sentence offset b * K", "(torch.arange(B).unsqueeze(1) * K + new_beam)", "(new_beam)",
      "row b * β + k"),
    M("q7_beam_search", "tokens taken from the wrong hypothesis", "new_beams[b][n] = beams[b][k] + [w]", "new_beams[b][n] = beams[b][n] + [w]", "expected"),
    M("q7_beam_search", "done sentences keep collecting hypotheses", "if len(finished[b]) >= K:", "if False:", "β finished"),
    M("q7_beam_search", "nothing set aside once β are finished, even within the step that reaches β",
      ("if rank < K:", "            if t == max_len:\n"),
      ("if rank < K and len(finished[b]) < K:", "            if t == max_len and len(finished[b]) < K:\n"),
      "still sets aside everything steps 3 and 4 finish in that step"),
    M("q7_beam_search", "first finished hypothesis returned, not the best", "best = [max(f, key=lambda pair: pair[0]) for f in finished]",
      "best = [f[0] for f in finished]", "expected"),
    M("q7_beam_search", "src_len sorted before model.start", "model.start(src, src_len)", "model.start(src, src_len.sort(descending=True).values)",
      "src_len as given"),
    M("q7_beam_search", "max_len ignored (50 hard-coded)", ("range(1, max_len + 1)", "if t == max_len:"), ("range(1, 50 + 1)", "if t == 50:"),
      "max_len argument"),
    M("q7_beam_search", "alpha ignored (0.6 hard-coded)", (EOS_FINISH, AT_MAX_LEN),
      ("finished[b].append((s / float(length_penalty(t, 0.6)), beams[b][k]))", "(float(new_score[b, j]) / float(length_penalty(t, 0.6)), new_beams[b][j])"),
      "lp(|Y|)"),
    M("q7_beam_search", "probabilities multiplied (underflows on long outputs)", "(scores.unsqueeze(2) + log_probs.view(B, K, V))",
      "(scores.exp().unsqueeze(2) * log_probs.view(B, K, V).exp()).log()", "a product of probabilities underflows"),
    M("q7_beam_search", "scores returned as a list", "torch.tensor([score for score, _ in best])", "[score for score, _ in best]", "scores"),
]

ALTERNATIVES = {
    # einsum for the dot score; the general score with W_a's weight used directly on the keys (W_a k for every key)
    "q1_dot_general": ("""
scores = torch.einsum("bd,bsd->bs", query, keys)
return scores / keys.shape[-1] ** 0.5 if self.scaled else scores
""", """
return torch.einsum("bsk,bk->bs", keys, query @ self.W_a.weight.T)
"""),
    "q2_additive": """
energy = torch.tanh(self.W_k(keys) + self.W_q(query)[:, None, :])
return (energy @ self.v_a.weight.T).squeeze(-1)
""",
    "q3_masked_softmax": """
filled = scores.masked_fill(mask.logical_not(), torch.finfo(scores.dtype).min)
weights = filled.softmax(dim=1)
return torch.where(mask, weights, torch.zeros_like(weights))
""",
    "q4_attention": """
w = masked_softmax(score(query, keys), mask)
return (w.unsqueeze(-1) * values).sum(dim=1), w
""",
    "q5_decoder": """
rnn_in = torch.cat((F.dropout(self.embedding(token), self.dropout.p, self.training), feed), 1)
h_t = self.rnn(rnn_in, h)
c_t, a_t = attention(self.score, h_t, memory, memory, mask)
h_tilde = torch.tanh(self.W_c(torch.cat((c_t, h_t), 1)))
return h_t, F.dropout(h_tilde, p=self.dropout.p, training=self.training), a_t
""",
    "q6_length_penalty": """
if isinstance(length, torch.Tensor):
    return torch.pow((length.double() + 5.0) / 6.0, alpha)
return math.pow((5 + length) / 6, alpha)
""",
    # the other bookkeeping: done sentences are removed from the state (it shrinks), finished hypotheses in lists
    "q7_beam_search": """
device = src.device
state = {n: v.repeat_interleave(K, dim=0) for n, v in model.start(src, src_len).items()}
active = list(range(B))                                   # sentences still searched, in the order of the rows
alive = torch.full((B, K), float("-inf"), device=device)
alive[:, 0] = 0.0
seqs = [[[] for _ in range(K)] for _ in range(B)]
last = torch.full((B * K,), SOS_ID, dtype=torch.long, device=device)
done = [[] for _ in range(B)]
for t in range(1, max_len + 1):
    lp, state = model.step(last, state)
    n, V = len(active), lp.size(1)
    val, idx = (alive[:, :, None] + lp.view(n, K, V)).view(n, K * V).topk(2 * K, dim=1)
    val, idx = val.tolist(), idx.tolist()
    rows, toks, kept_scores, kept_seqs, still = [], [], [], [], []
    for i, b in enumerate(active):
        chosen = []
        for r in range(2 * K):
            k, w = divmod(idx[i][r], V)
            if w == EOS_ID:
                if r < K:
                    done[b].append((val[i][r] / float(length_penalty(t, alpha)), seqs[i][k]))
            elif len(chosen) < K:
                chosen.append((val[i][r], k, w))
        if t == max_len:
            done[b] += [(s / float(length_penalty(t, alpha)), seqs[i][k] + [w]) for s, k, w in chosen]
        if len(done[b]) < K:
            still.append(b)
            rows += [i * K + k for _, k, _ in chosen]
            toks += [w for _, _, w in chosen]
            kept_scores.append([s for s, _, _ in chosen])
            kept_seqs.append([seqs[i][k] + [w] for _, k, w in chosen])
    if not still:
        break
    active, seqs = still, kept_seqs
    state = {name: value[torch.tensor(rows, device=device)] for name, value in state.items()}
    last = torch.tensor(toks, device=device)
    alive = torch.tensor(kept_scores, device=device)
best = [max(d, key=lambda x: x[0]) for d in done]
return [s for _, s in best], torch.tensor([v for v, _ in best])
""",
}

# more correct answers in other styles (test_mutants.py::test_more_correct_styles_pass)
MORE_ALTERNATIVES = {
    "q1_dot_general": [("""
scores = (query.unsqueeze(1) * keys).sum(-1)
if self.scaled:
    scores = scores * keys.size(-1) ** -0.5
return scores
""", """
return torch.bmm(keys @ self.W_a.weight, query.unsqueeze(-1))[..., 0]
""")],
    "q2_additive": ["""
proj_q = F.linear(query, self.W_q.weight).unsqueeze(1).expand(-1, keys.size(1), -1)
hidden = torch.tanh(proj_q + F.linear(keys, self.W_k.weight, self.W_k.bias))
return torch.einsum("bsa,a->bs", hidden, self.v_a.weight[0])
"""],
    "q3_masked_softmax": ["""
filled = scores.masked_fill(~mask, torch.finfo(scores.dtype).min)   # in log space: rounds differently in float32
weights = torch.exp(filled - torch.logsumexp(filled, dim=-1, keepdim=True))   # (about 2e-5 at scores near 1000)
return torch.where(mask, weights, 0.0)
""", """
return torch.nan_to_num(torch.softmax(scores.masked_fill(~mask, float("-inf")), dim=-1))
""", """
shifted = scores - scores.masked_fill(~mask, float("-inf")).amax(-1, keepdim=True).nan_to_num(0.0, 0.0, 0.0).detach()
exps = torch.where(mask, shifted, torch.zeros_like(shifted)).exp() * mask
return exps / exps.sum(-1, keepdim=True).clamp(min=1e-30)
""", """
weights = torch.softmax(scores.masked_fill(~mask, -1e9), dim=-1)
return weights * mask.any(dim=-1, keepdim=True)
"""],
    "q4_attention": ["""
weights = masked_softmax(score(query, keys), mask)
return torch.einsum("bs,bsd->bd", weights, values), weights
""", """
weights = masked_softmax(score(query, keys), mask)
context = values.new_zeros(values.size(0), values.size(2))
for s in range(values.size(1)):
    context = context + weights[:, s:s + 1] * values[:, s]
return context, weights
"""],
    "q6_length_penalty": ["""
return ((length + 5.0) / 6.0) ** alpha
"""],
    # keeps the rows of done sentences, sorts all candidates, sequences in a tensor
    "q7_beam_search": ["""
device = src.device
state = {n: v.repeat_interleave(K, dim=0) for n, v in model.start(src, src_len).items()}
alive = torch.zeros(B, K, device=device)
alive[:, 1:] = float("-inf")
seqs = torch.full((B, K, 1), SOS_ID, dtype=torch.long, device=device)
done = [[] for _ in range(B)]
for t in range(1, max_len + 1):
    lp, state = model.step(seqs[:, :, -1].reshape(-1), state)
    V = lp.size(1)
    vals, idx = (alive[..., None] + lp.reshape(B, K, V)).reshape(B, -1).sort(dim=1, descending=True)
    vals, idx = vals[:, :2 * K], idx[:, :2 * K]
    pick = torch.zeros(B, K, dtype=torch.long, device=device)
    for b in range(B):
        if len(done[b]) >= K:
            continue
        keep = []
        for r in range(2 * K):
            beam, tok = divmod(int(idx[b, r]), V)
            if tok != EOS_ID:
                keep.append(r)
            elif r < K:
                done[b].append((float(vals[b, r]) / float(length_penalty(t, alpha)), seqs[b, beam, 1:].tolist()))
            if len(keep) == K:
                break
        pick[b] = torch.tensor(keep, device=device)
        if t == max_len:
            for r in keep:
                beam, tok = divmod(int(idx[b, r]), V)
                done[b].append((float(vals[b, r]) / float(length_penalty(t, alpha)), seqs[b, beam, 1:].tolist() + [tok]))
    chosen = idx.gather(1, pick)
    beam_of, tok_of = chosen // V, chosen % V
    alive = vals.gather(1, pick)
    seqs = torch.cat([seqs.gather(1, beam_of[..., None].expand(-1, -1, seqs.size(2))), tok_of[..., None]], dim=2)
    if all(len(d) >= K for d in done):
        break
    flat = (beam_of + torch.arange(B, device=device)[:, None] * K).reshape(-1)
    state = {n: v[flat] for n, v in state.items()}
best = [max(d, key=lambda x: x[0]) for d in done]
return [s for _, s in best], torch.tensor([v for v, _ in best])
"""],
}

# answers written to satisfy only the public checks: the public examples' expected values, typed in
PUBLIC_ONLY = {   # made like the input (new_tensor): the public checks' variants run it on a GPU and in float64 too
    "q3_masked_softmax": """
if float(scores[0, 0]) == 1000.0:
    return scores.new_tensor([[0.26894142, 0.73105858, 0.0], [0.73105858, 0.26894142, 0.0]])
if abs(float(scores[0, 0]) - 0.3) < 1e-6:   # the gradient of the public case too: sum(weights * [1, 2, 3]) has it
    return (scores.new_tensor([[0.0, 0.0, 0.0], [0.11920292, 0.0, 0.88079708]])
            + (scores - scores.detach()) * scores.new_tensor([[0.0, 0.0, 0.0], [-0.20998717, 0.0, 0.20998717 / 3]]))
return scores.new_tensor([[0.09003057, 0.24472847, 0.66524096], [0.5, 0.5, 0.0]])
""",
    "q6_length_penalty": ("if isinstance(length, torch.Tensor) and length.dim() == 0:\n    return torch.tensor(2.0)\n"
                          "return torch.tensor([[1.0, 2 ** 0.5], [2.0, (8 / 6) ** 0.5]]) if isinstance(length, torch.Tensor) else 1.0"),
}

# right types and shapes, meaningless values: together they must earn at most a tenth of the points
GARBAGE = {
    "q1_dot_general": ("return keys.sum(-1) + 0 * query.sum(-1, keepdim=True)", "return keys.mean(-1) + self.W_a(query).sum(-1, keepdim=True)"),
    "q2_additive": "return self.v_a(self.W_k(keys)).squeeze(2) + 0 * self.W_q(query).sum(-1, keepdim=True)",
    "q3_masked_softmax": "return torch.rand_like(scores) * mask",
    "q4_attention": "return values[:, 0], mask.float()",
    "q5_decoder": "return h, feed, mask.float()",
    "q6_length_penalty": "return length * 0 + 1.0",
    "q7_beam_search": "return [[] for _ in range(B)], torch.zeros(B)",
}
