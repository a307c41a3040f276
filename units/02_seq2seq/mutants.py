"""Notebook 02's mutants (bugs students make), alternative correct solutions, answers hard-coded to the public
checks and answers right only in types and shapes; run by test_mutants.py.
Mutants of q6_translate run its hidden check, which trains a model in the sandbox (one thread: about
a minute or more on a busy 2-core machine). The gradient checks (hidden) catch .detach()/.data bugs; dropout
is checked with p = 1 in training mode (every embedding dropped: a deterministic reference) and in eval mode;
devices of every question that makes tensors on the fake CUDA device (seqcourse.fakecuda)."""

from __future__ import annotations

from mutation import Mutant


M = Mutant
PACKED = ("packed = pack_padded_sequence(embedded, src_len.cpu(), batch_first=True, enforce_sorted=False)\n"
          "        packed_out, state = self.rnn(packed)                                           # state: 2 x (L, B, H)\n"
          "        outputs, _ = pad_packed_sequence(packed_out, batch_first=True, total_length=src.size(1))  # (B, S, H)")
MUTANTS = [
    # q1: encoder
    M("q1_encoder", "LSTM runs over the padding (no packing)", PACKED, "outputs, state = self.rnn(embedded)", "pack_padded_sequence"),
    M("q1_encoder", "lengths ignored", "src_len.cpu()", "torch.full_like(src_len, src.size(1)).cpu()", "ran over the padding"),
    M("q1_encoder", "lengths left on the GPU for packing", "src_len.cpu()", "src_len", "lengths on the CPU"),
    M("q1_encoder", "enforce_sorted left on", "enforce_sorted=False", "enforce_sorted=True", "sorted"),
    M("q1_encoder", "no total_length when unpacking", ", total_length=src.size(1)", "", "total_length"),
    M("q1_encoder", "only the last layer's state", "return outputs, state", "return outputs, (state[0][-1:], state[1][-1:])", "whole final state"),
    M("q1_encoder", "h returned without c", "return outputs, state", "return outputs, state[0]", ""),
    M("q1_encoder", "embeddings detached (no gradient to the embedding)", "self.dropout(self.embedding(src))",
      "self.dropout(self.embedding(src)).detach()", "gradient of embedding.weight"),
    M("q1_encoder", "no dropout on the embeddings", "embedded = self.dropout(self.embedding(src))", "embedded = self.embedding(src)",
      "apply self.dropout to the embeddings"),
    M("q1_encoder", "F.dropout without training= (on in eval mode too)", "self.dropout(self.embedding(src))",
      "F.dropout(self.embedding(src), self.dropout.p)", "eval mode"),
    M("q1_encoder", "dropout on the outputs instead of the embeddings", ("embedded = self.dropout(self.embedding(src))", "return outputs, state"),
      ("embedded = self.embedding(src)", "return self.dropout(outputs), state"), "nowhere else"),
    # q2: decoder step
    M("q2_decoder", "softmax on the logits", "return self.out(output.squeeze(1)), state", "return torch.softmax(self.out(output.squeeze(1)), -1), state", "probabilities"),
    M("q2_decoder", "given state ignored", "self.rnn(embedded, state)", "self.rnn(embedded)", "Feed the given state"),
    M("q2_decoder", "old state returned", "output, state = self.rnn(embedded, state)", "output, _ = self.rnn(embedded, state)", "return the state"),
    M("q2_decoder", "embedding skipped", "self.embedding(token.unsqueeze(1))",
      "F.one_hot(token.unsqueeze(1), self.embedding.num_embeddings)[..., :self.embedding.embedding_dim].float()", "embedding -> rnn -> out"),
    M("q2_decoder", "state detached after each step (truncated backprop)", "return self.out(output.squeeze(1)), state",
      "return self.out(output.squeeze(1)), tuple(s.detach() for s in state)", "do not .detach() the state"),
    M("q2_decoder", "squeeze() without a dim (a batch of one loses its batch axis)", "self.out(output.squeeze(1))", "self.out(output.squeeze())", "(1, C)"),
    M("q2_decoder", "no dropout on the embedding", "self.dropout(self.embedding(token.unsqueeze(1)))", "self.embedding(token.unsqueeze(1))",
      "embed, then dropout"),
    M("q2_decoder", "F.dropout without training= (on in eval mode too)", "self.dropout(self.embedding(token.unsqueeze(1)))",
      "F.dropout(self.embedding(token.unsqueeze(1)), self.dropout.p)", "eval mode"),
    M("q2_decoder", "dropout on the LSTM output instead of the embedding",
      ("self.dropout(self.embedding(token.unsqueeze(1)))", "self.out(output.squeeze(1))"),
      ("self.embedding(token.unsqueeze(1))", "self.out(self.dropout(output.squeeze(1)))"), "nowhere else"),
    # q3: teacher-forced forward pass
    M("q3_seq2seq", "target not shifted: T steps, <sos> fed twice", "for t in range(1, tgt.size(1)):", "for t in range(tgt.size(1)):", "T-1"),
    M("q3_seq2seq", "<eos> fed as input: T steps", ("for t in range(1, tgt.size(1)):", "token = tgt[:, t] if"),
      ("for t in range(1, tgt.size(1) + 1):", "token = tgt[:, min(t, tgt.size(1) - 1)] if"), "never feed <eos>"),
    M("q3_seq2seq", "the token being predicted is fed (target leakage)", ("token = tgt[:, 0] ", "token = tgt[:, t] if"),
      ("token = tgt[:, 1] ", "token = tgt[:, min(t + 1, tgt.size(1) - 1)] if"), "never the token being predicted"),
    M("q3_seq2seq", "decoder not started from the encoder's state", "_, state = self.encoder(src, src_len)",
      "_, (h, c) = self.encoder(src, src_len)\n        state = (torch.zeros_like(h), torch.zeros_like(c))", "encoder's final state"),
    M("q3_seq2seq", "decoder state not carried", "step_logits, state = self.decoder(token, state)", "step_logits, _ = self.decoder(token, state)", "carry its own state"),
    M("q3_seq2seq", "teacher forcing inverted", "random.random() < teacher_forcing", "random.random() >= teacher_forcing", "teacher_forcing=1"),
    M("q3_seq2seq", "ratio drawn once per batch", ("logits = []\n", "token = tgt[:, t] if random.random() < teacher_forcing else"),
      ("logits = []\n        use_truth = random.random() < teacher_forcing\n", "token = tgt[:, t] if use_truth else"), "decide each step"),
    M("q3_seq2seq", "a draw before the first step too: each step's draw decides its own input (the coins shifted by one)",
      "            step_logits, state = self.decoder(token, state)  # (B, C)\n"
      "            logits.append(step_logits)\n"
      "            token = tgt[:, t] if random.random() < teacher_forcing else step_logits.argmax(-1)",
      "            use_truth = random.random() < teacher_forcing   # decides this step's input (the first is <sos> anyway)\n"
      "            if t > 1:\n"
      "                token = tgt[:, t - 1] if use_truth else step_logits.argmax(-1)\n"
      "            step_logits, state = self.decoder(token, state)  # (B, C)\n"
      "            logits.append(step_logits)",
      "after step t's logits, draw random.random() once"),
    M("q3_seq2seq", "the model's own input sampled from the softmax instead of its argmax (a rule the text states)", "else step_logits.argmax(-1)",
      "else torch.multinomial(torch.softmax(step_logits, -1), 1).squeeze(1)", "not a token sampled from its softmax"),
    M("q3_seq2seq", "no draw where the ratio decides alone, teacher_forcing 1 (a rule the text states)", "token = tgt[:, t] if random.random() < teacher_forcing else",
      "token = tgt[:, t] if teacher_forcing >= 1 or random.random() < teacher_forcing else", "whatever the ratio, even where the draw cannot change the input"),
    M("q3_seq2seq", "stacked along dim 0", "torch.stack(logits, dim=1)", "torch.stack(logits, dim=0)", "T-1"),
    M("q3_seq2seq", "decoder state detached between steps", "self.decoder(token, state)",
      "self.decoder(token, tuple(s.detach() for s in state))", "flow back through every decoder step"),
    M("q3_seq2seq", "logits collected with .data", "logits.append(step_logits)", "logits.append(step_logits.data)", "carry no gradient"),
    M("q3_seq2seq", "decoder state detached after every step (truncated backpropagation through time)",
      "            step_logits, state = self.decoder(token, state)  # (B, C)",
      "            step_logits, state = self.decoder(token, state)  # (B, C)\n            state = tuple(s.detach() for s in state)",
      "carry no gradient", public=True),
    M("q3_seq2seq", "logits preallocated with torch.zeros(..., device=) without dtype= (no case of its own: the checks' float64 variant)",
      ("logits = []\n", "logits.append(step_logits)", "return torch.stack(logits, dim=1)"),
      ("logits = torch.zeros(tgt.size(0), tgt.size(1) - 1, self.decoder.out.out_features, device=tgt.device)\n",
       "logits[:, t - 1] = step_logits", "return logits"), "returned torch.float32"),
    M("q3_seq2seq", "<sos> made on the CPU", "token = tgt[:, 0] ", "token = torch.full((tgt.size(0),), SOS_ID) ", "inputs' device"),
    M("q3_seq2seq", "the decoder's layers called directly (bypasses the decoder interface)", "step_logits, state = self.decoder(token, state)",
      "out, state = self.decoder.rnn(self.decoder.dropout(self.decoder.embedding(token)).unsqueeze(1), state)\n"
      "            step_logits = self.decoder.out(out.squeeze(1))", "self.decoder(token, state)"),
    # q4: loss
    M("q4_loss", "log of softmax by hand (underflows for confident logits)",
      "loss = F.cross_entropy(logits.reshape(-1, logits.size(-1)), targets.reshape(-1), ignore_index=PAD_ID)",
      "loss = F.nll_loss(torch.log(torch.softmax(logits.reshape(-1, logits.size(-1)), -1)), targets.reshape(-1), ignore_index=PAD_ID)",
      "log_softmax"),
    M("q4_loss", "targets not shifted", "targets = tgt[:, 1:]", "targets = tgt[:, :-1]", "tgt[:, 1:]"),
    M("q4_loss", "padding counted in the loss", ", ignore_index=PAD_ID)", ")", "ignore_index"),
    M("q4_loss", "padding counted in n_tokens", "int((targets != PAD_ID).sum())", "targets.numel()", "count the targets"),
    M("q4_loss", "teacher_forcing not passed on", "model(src, src_len, tgt, teacher_forcing)", "model(src, src_len, tgt)", "teacher_forcing=0.25"),
    M("q4_loss", "logits flattened time-major", "logits.reshape(-1, logits.size(-1))", "logits.transpose(0, 1).reshape(-1, logits.size(-1))", "expected"),
    M("q4_loss", "loss rebuilt from a float (no gradient to the model)", "return loss, int(",
      "return torch.tensor(loss.item(), requires_grad=True), int(", "no gradient reaches the logits"),
    M("q4_loss", "log of softmax (-inf for large logits)",
      "loss = F.cross_entropy(logits.reshape(-1, logits.size(-1)), targets.reshape(-1), ignore_index=PAD_ID)",
      "loss = F.nll_loss(torch.log(torch.softmax(logits, -1)).reshape(-1, logits.size(-1)), targets.reshape(-1), ignore_index=PAD_ID)",
      "stably"),
    M("q4_loss", "padding id written as a literal 0", ("ignore_index=PAD_ID)", "(targets != PAD_ID)"), ("ignore_index=0)", "(targets != 0)"),
      "never a literal 0"),
    # q5: greedy decoding
    M("q5_greedy", "<sos> tokens made on the CPU", "SOS_ID, dtype=torch.long, device=src.device)", "SOS_ID, dtype=torch.long)",
      "on src.device"),
    M("q5_greedy", "finished flags made on the CPU", "torch.zeros(src.size(0), dtype=torch.bool, device=src.device)",
      "torch.zeros(src.size(0), dtype=torch.bool)", "on src.device"),
    M("q5_greedy", "decoding never stops early", "        if finished.all():\n            break\n", "", "never stops"),
    M("q5_greedy", "stops when the first sentence finishes", "finished.all()", "finished.any()", "ALL sentences"),
    M("q5_greedy", "no <pad> after <eos>", ".masked_fill(finished, PAD_ID)", "", "<pad> after"),
    M("q5_greedy", "<sos> fed at every step", "model.decoder(token, state)", "model.decoder(torch.full_like(token, SOS_ID), state)", "own prediction"),
    M("q5_greedy", "<sos> kept in the output", "steps = []", "steps = [token]", "expected"),
    M("q5_greedy", "argmax over the batch", "logits.argmax(-1)", "logits.argmax(0)", ""),
    M("q5_greedy", "decoder state not carried", "logits, state = model.decoder(token, state)", "logits, _ = model.decoder(token, state)", ""),
    M("q5_greedy", "model switched to eval mode inside", "    _, state = model.encoder(src, src_len)\n",
      "    model.eval()\n    _, state = model.encoder(src, src_len)\n", "the caller"),
    M("q5_greedy", "squeeze() on the result (a single sentence loses its batch axis)", "return torch.stack(steps, dim=1)",
      "return torch.stack(steps, dim=1).squeeze()", "(1, "),
    M("q5_greedy", "max_len ignored (a fixed 50 steps)", "for _ in range(max_len):", "for _ in range(50):", "max_len"),
    # q6: translate (hidden check trains the model)
    M("q6_translate", "raw ids mapped with itos (<eos>, <pad> kept)", "[tgt_vocab.decode(row) for row in out]",
      "[[tgt_vocab.itos[i] for i in row] for row in out]", "tgt_vocab.decode"),
    M("q6_translate", "ids left on the CPU", "greedy_decode(model, ids.to(device), lengths, max_len)",
      "greedy_decode(model, ids, lengths, max_len)", "model's device"),
    M("q6_translate", "sentences sorted by length, order not restored", "result = []\n",
      "sentences = sorted(sentences, key=lambda s: len(tokenize(s)))\n    result = []\n", "input order"),
    M("q6_translate", "all sentences padded into one batch first (fails with no sentences)",
      "    for i in range(0, len(sentences), batch_size):\n        ids, lengths = pad_batch([src_vocab.encode(tokenize(s)) for s in sentences[i:i + batch_size]], PAD_ID)",
      "    all_ids, all_lengths = pad_batch([src_vocab.encode(tokenize(s)) for s in sentences], PAD_ID)\n"
      "    for i in range(0, len(sentences), batch_size):\n        ids, lengths = all_ids[i:i + batch_size], all_lengths[i:i + batch_size]",
      "no batch to pad"),
    M("q6_translate", "padded length passed as every length", "lengths, max_len)", "torch.full_like(lengths, ids.size(1)), max_len)", "exactly"),
    M("q6_translate", "sentences encoded without <sos>/<eos>", "src_vocab.encode(tokenize(s))",
      "src_vocab.encode(tokenize(s), sos_eos=False)", "<sos>/<eos>"),
    M("q6_translate", "tokenize argument ignored", "src_vocab.encode(tokenize(s))", "src_vocab.encode(s.split())", "tokenize argument"),
    M("q6_translate", "max_len not passed on", "greedy_decode(model, ids.to(device), lengths, max_len)",
      "greedy_decode(model, ids.to(device), lengths)", "pass max_len on"),
    M("q6_translate", "batch_size ignored (one batch for all sentences)", ("range(0, len(sentences), batch_size)", "sentences[i:i + batch_size]"),
      ("range(0, len(sentences), max(1, len(sentences)))", "sentences"), "at most batch_size"),
    # no case of q1 or q5 is written for these: the call contract rejects them (seqcourse/contract.py, issue 51)
    M("q1_encoder", "dropout's p set to 0 in evaluation mode (the layer's setting changed for good)",
      "        embedded = self.dropout(self.embedding(src))",
      "        if not self.training:\n            self.dropout.p = 0.0   # no dropout in evaluation\n"
      "        embedded = self.dropout(self.embedding(src))", "its settings (dropout.p: 0.5 -> 0.0)"),
    M("q5_greedy", "gradients switched off globally instead of a no_grad block",
      ("@torch.no_grad()\ndef greedy_decode", "    _, state = model.encoder(src, src_len)"),
      ("def greedy_decode", "    torch.set_grad_enabled(False)   # no gradients while decoding\n    _, state = model.encoder(src, src_len)"),
      "changed a global setting of torch: gradient mode"),
]

ALTERNATIVES = {
    "q1_encoder": """
lengths, order = src_len.sort(descending=True)
emb = self.dropout(self.embedding(src[order]))
packed = pack_padded_sequence(emb, lengths.cpu(), batch_first=True)
out, (h, c) = self.rnn(packed)
out, _ = pad_packed_sequence(out, batch_first=True, total_length=src.size(1))
inverse = order.argsort()
return out[inverse], (h[:, inverse], c[:, inverse])
""",
    "q2_decoder": """
x = self.dropout(self.embedding(token)[:, None, :])
out, (h, c) = self.rnn(x, state)
return self.out(out[:, 0]), (h, c)
""",
    "q3_seq2seq": """
_, (h, c) = self.encoder(src, src_len)
B, T = tgt.shape
inp = tgt[:, 0]
outs = []
for t in range(T - 1):
    logit, (h, c) = self.decoder(inp, (h, c))
    outs.append(logit.unsqueeze(1))
    use_truth = random.random() < teacher_forcing
    inp = tgt[:, t + 1] if use_truth else logit.argmax(dim=-1)
return torch.cat(outs, dim=1)
""",
    "q4_loss": """
logits = model(src, src_len, tgt, teacher_forcing=teacher_forcing)
gold = tgt[:, 1:]
mask = gold != PAD_ID
nll = -torch.log_softmax(logits, -1).gather(2, gold.unsqueeze(2)).squeeze(2)
return nll[mask].mean(), int(mask.sum().item())
""",
    "q5_greedy": """
B = src.size(0)
_, state = model.encoder(src, src_len)
out = torch.full((B, max_len), PAD_ID, dtype=torch.long, device=src.device)
alive = torch.ones(B, dtype=torch.bool, device=src.device)
prev = torch.full((B,), SOS_ID, dtype=torch.long, device=src.device)
steps = 0
while steps < max_len and alive.any():
    logits, state = model.decoder(prev, state)
    prev = logits.max(dim=-1).indices
    out[alive, steps] = prev[alive]
    alive = alive & (prev != EOS_ID)
    steps += 1
return out[:, :steps]
""",
    "q6_translate": """
order = sorted(range(len(sentences)), key=lambda k: len(tokenize(sentences[k])))
result = [None] * len(sentences)
for start in range(0, len(order), batch_size):
    chunk = order[start:start + batch_size]
    ids, lengths = pad_batch([src_vocab.encode(tokenize(sentences[k])) for k in chunk], PAD_ID)
    decoded = greedy_decode(model, ids.to(device), lengths, max_len)
    for k, row in zip(chunk, decoded.tolist()):
        result[k] = tgt_vocab.decode(row)
return result
""",
}

# further correct answers: each reading the question's text allows
MORE_ALTERNATIVES = {
    "q3_seq2seq": ["""
# no draw after the last step, whose next input would never be used: T-2 draws in all (the text allows both)
_, state = self.encoder(src, src_len)
token, logits = tgt[:, 0], []
for t in range(1, tgt.size(1)):
    step_logits, state = self.decoder(token, state)
    logits.append(step_logits)
    if t < tgt.size(1) - 1:
        token = tgt[:, t] if random.random() < teacher_forcing else step_logits.argmax(-1)
return torch.stack(logits, dim=1)
"""],
}

# answers written to satisfy only the public checks (shapes, dtypes, ranges): the hidden cases must fail them
PUBLIC_ONLY = {
    "q5_greedy": """
if src.tolist() == [[0, 0, 0]]:               # the public case of one sentence (src_len 2), the GPU case's first row alone (1)
    return torch.tensor([[4, 5, 3]] if int(src_len[0]) == 2 else [[4, 3]], device=src.device)
if int(src.sum()) == 0:
    return torch.tensor([[4, 3, 0, 0], [4, 5, 6, 3]], device=src.device)   # the public case on a GPU
return torch.tensor([[5, 4, 3], [5, 3, 0]])[:src.size(0)]  # the public fixed-value case (its first row alone: that row)
""",
}

# answers right only in types and shapes (zeros, inputs passed through): together at most a tenth of the points
GARBAGE = {
    "q1_encoder": """
B, S = src.shape
zeros = torch.zeros(self.rnn.num_layers, B, self.rnn.hidden_size, device=src.device)
return torch.zeros(B, S, self.rnn.hidden_size, device=src.device), (zeros, zeros.clone())
""",
    "q2_decoder": """
return torch.zeros(token.size(0), self.out.out_features, device=token.device), state
""",
    "q3_seq2seq": """
B, T = tgt.shape
return torch.zeros(B, T - 1, self.decoder.out.out_features, device=tgt.device)
""",
    "q4_loss": """
logits = model(src, src_len, tgt, teacher_forcing)
return (logits * 0).sum(), int(tgt.size(0))
""",
    "q5_greedy": """
return torch.zeros(src.size(0), max_len, dtype=torch.long, device=src.device)
""",
    "q6_translate": """
return [[] for _ in sentences]
""",
}
