"""Notebook 03's mutants (bugs students make) and alternative correct solutions; run by test_mutants.py.
Mutants of q5_decoder also run its hidden check, which trains a model for about 15-20 s (longer on a busy
machine); the gradient bugs (.detach(), .data) are caught by the hidden cases that run backward in the sandbox."""

from __future__ import annotations

from mutation import Mutant


M = Mutant
MASK_FILL = 'scores = scores.masked_fill(~mask, float("-inf"))'
ZERO_FILL = "return weights.masked_fill(~mask, 0.0)"
EOS_FINISH = "finished[b].append((s / float(length_penalty(t, alpha)), beams[b][k]))"
AT_MAX_LEN = "(float(new_score[b, j]) / float(length_penalty(t, alpha)), new_beams[b][j])"
MUTANTS = [
    # q1: dot, scaled dot, general
    M("q1_dot_general", "missing 1/sqrt(d)", "scores = scores / math.sqrt(keys.size(-1))", "scores = scores", "missing 1/sqrt(d)"),
    M("q1_dot_general", "divided by d instead of sqrt(d)", "math.sqrt(keys.size(-1))", "keys.size(-1)", "sqrt(D_k)"),
    M("q1_dot_general", "scaled by the source length", "math.sqrt(keys.size(-1))", "math.sqrt(keys.size(1))", "sqrt(D_k)"),
    M("q1_dot_general", "always scaled", "if self.scaled:", "if True:", "no scaling"),
    M("q1_dot_general", "softmax inside the score", "        return scores\n", "        return torch.softmax(scores, -1)\n", "plain dot products"),
    M("q1_dot_general", "general: every query against every sentence's keys",
      "torch.bmm(keys, projected.unsqueeze(2)).squeeze(2)", 'torch.einsum("bsk,ck->bs", keys, projected)', "keep the batch dimension separate"),
    M("q1_dot_general", "general: projection detached (no gradient to W_a)", "projected = self.W_a(query)", "projected = self.W_a(query).detach()",
      "no (or a wrong) gradient reaches W_a"),
    # q2: additive
    M("q2_additive", "no tanh", "torch.tanh(self.W_q(query).unsqueeze(1) + self.W_k(keys))", "(self.W_q(query).unsqueeze(1) + self.W_k(keys))", "apply tanh"),
    M("q2_additive", "tanh after v_a", ("hidden = torch.tanh(self.W_q(query).unsqueeze(1) + self.W_k(keys))", "return self.v_a(hidden).squeeze(2)"),
      ("hidden = self.W_q(query).unsqueeze(1) + self.W_k(keys)", "return torch.tanh(self.v_a(hidden)).squeeze(2)"), "then tanh, then v_a"),
    M("q2_additive", "softmax inside the score", "return self.v_a(hidden).squeeze(2)", "return torch.softmax(self.v_a(hidden).squeeze(2), -1)", "v_a . tanh"),
    M("q2_additive", "key projection detached (no gradient to W_k)", "self.W_k(keys))", "self.W_k(keys).detach())", "gradient reaches W_k.weight"),
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
    # q4: attention
    M("q4_attention", "context from the keys", "torch.bmm(weights.unsqueeze(1), values)", "torch.bmm(weights.unsqueeze(1), keys)", "VALUES"),
    M("q4_attention", "mask not passed", "masked_softmax(score(query, keys), mask)", "torch.softmax(score(query, keys), -1)", "pass the mask on"),
    M("q4_attention", "plain mean of the values", "torch.bmm(weights.unsqueeze(1), values).squeeze(1)", "values.mean(dim=1)", "not a plain mean"),
    M("q4_attention", "weighted sum over the wrong axis", "torch.bmm(weights.unsqueeze(1), values).squeeze(1)", "(weights.unsqueeze(-1) * values).sum(2)", "(B, D_v)"),
    M("q4_attention", "weights detached in the context", "torch.bmm(weights.unsqueeze(1), values)", "torch.bmm(weights.detach().unsqueeze(1), values)",
      "flow back through the weights"),
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
    # q6: length penalty
    M("q6_length_penalty", "alpha on the numerator only", "((5 + length) / 6) ** alpha", "(5 + length) ** alpha / 6", "the whole fraction"),
    M("q6_length_penalty", "no 5", "((5 + length) / 6) ** alpha", "(length / 6) ** alpha", "(5 + |Y|)"),
    M("q6_length_penalty", "integer division", "((5 + length) / 6) ** alpha", "((5 + length) // 6) ** alpha", "true division"),
    M("q6_length_penalty", "alpha multiplies instead of raising", "((5 + length) / 6) ** alpha", "((5 + length) / 6) * alpha", "raised to alpha"),
    # q7: beam search
    M("q7_beam_search", "beam drops finished hypotheses", EOS_FINISH, "pass", "set aside"),
    M("q7_beam_search", "length penalty applied twice", EOS_FINISH,
      "finished[b].append((s / float(length_penalty(t, alpha)) / float(length_penalty(t, alpha)), beams[b][k]))", "applied once"),
    M("q7_beam_search", "no length penalty", (EOS_FINISH, AT_MAX_LEN),
      ("finished[b].append((s, beams[b][k]))", "(float(new_score[b, j]), new_beams[b][j])"), "lp(|Y|)"),
    M("q7_beam_search", "<eos> of any rank finishes a hypothesis", "if rank < K:", "if True:", "rank < K"),
    M("q7_beam_search", "state not reordered", "        state = {name: value.index_select(0, source_rows) for name, value in state.items()}\n", "", "state reordered"),
    M("q7_beam_search", "all K copies of <sos> start live", 'scores = torch.full((B, K), float("-inf"), device=device)\n    scores[:, 0] = 0.0',
      "scores = torch.zeros(B, K, device=device)", "[0, -inf"),
    M("q7_beam_search", "top K candidates instead of 2K", ("topk(2 * K", "range(2 * K)"), ("topk(K", "range(K)"), "top 2K"),
    M("q7_beam_search", "stops at the first finished hypothesis", ("if len(finished[b]) >= K:", "if all(len(f) >= K for f in finished)"),
      ("if len(finished[b]) >= 1:", "if all(len(f) >= 1 for f in finished)"), "K finished"),
    M("q7_beam_search", "scores not accumulated (last token only)", "(scores.unsqueeze(2) + log_probs.view(B, K, V))",
      "(log_probs.view(B, K, V) + 0 * scores.unsqueeze(2).clamp(min=-1e9))", "scores[:, :, None] + log_probs"),
]

ALTERNATIVES = {
    "q1_dot_general": """
scores = torch.einsum("bd,bsd->bs", query, keys)
return scores / keys.shape[-1] ** 0.5 if self.scaled else scores
""",
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
rnn_in = torch.cat((self.dropout(self.embedding(token)), feed), 1)
h_t = self.rnn(rnn_in, h)
c_t, a_t = attention(self.score, h_t, memory, memory, mask)
h_tilde = torch.tanh(self.W_c(torch.cat((c_t, h_t), 1)))
return h_t, self.dropout(h_tilde), a_t
""",
    "q6_length_penalty": """
return torch.pow((torch.as_tensor(length, dtype=torch.float64) + 5.0) / 6.0, alpha)
""",
    "q7_beam_search": """
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
        pick[b] = torch.tensor(keep)
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
""",
}

# answers written to satisfy only the public checks: the public examples' expected values, typed in
PUBLIC_ONLY = {
    "q3_masked_softmax": "return torch.tensor([[0.09003057, 0.24472847, 0.66524096], [0.5, 0.5, 0.0]])",
    "q6_length_penalty": "return torch.tensor([[1.0, 2 ** 0.5], [2.0, (8 / 6) ** 0.5]]) if isinstance(length, torch.Tensor) else 1.0",
}
