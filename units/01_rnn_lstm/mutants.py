"""Notebook 01's mutants (bugs students make) and alternative correct solutions; run by test_mutants.py."""

from __future__ import annotations

from mutation import Mutant


M = Mutant
MUTANTS = [
    # q1: RNNCell
    M("q1_rnn_cell", "sigmoid instead of tanh", "return torch.tanh(", "return torch.sigmoid(", "tanh"),
    M("q1_rnn_cell", "ReLU instead of tanh", "return torch.tanh(", "return torch.relu(", "tanh"),
    M("q1_rnn_cell", "pre-activation returned", "return torch.tanh(x @ self.weight_ih.T + self.bias_ih + h @ self.weight_hh.T + self.bias_hh)",
      "return x @ self.weight_ih.T + self.bias_ih + h @ self.weight_hh.T + self.bias_hh", "(-1, 1)"),
    M("q1_rnn_cell", "bias_hh missing", " + self.bias_hh)", ")", "bias"),
    M("q1_rnn_cell", "bias_ih missing", " + self.bias_ih + h", " + h", "bias"),
    M("q1_rnn_cell", "previous state ignored", "+ h @ self.weight_hh.T ", "", "previous hidden state"),
    M("q1_rnn_cell", "W_hh not transposed", "h @ self.weight_hh.T", "h @ self.weight_hh", "wrong matrix"),
    M("q1_rnn_cell", "W_ih not transposed", "x @ self.weight_ih.T", "x @ self.weight_ih", "shapes cannot be multiplied"),
    M("q1_rnn_cell", "weight_ih used through .data", "x @ self.weight_ih.T", "x @ self.weight_ih.data.T", "no gradient reached weight_ih"),
    M("q1_rnn_cell", "previous state detached", "h @ self.weight_hh.T", "h.detach() @ self.weight_hh.T", "do not detach h"),
    M("q1_rnn_cell", "PyTorch's own cell (the question forbids it)", "return torch.tanh(x @ self.weight_ih.T + self.bias_ih + h @ self.weight_hh.T + self.bias_hh)",
      "return torch.rnn_tanh_cell(x, h, self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)", "not PyTorch's recurrent layers", rule=True),
    M("q1_rnn_cell", "subclasses torch.nn.RNNCell and calls its forward (right values; the question forbids it)",
      ("class RNNCell(nn.Module):", "super().__init__()",
       "return torch.tanh(x @ self.weight_ih.T + self.bias_ih + h @ self.weight_hh.T + self.bias_hh)"),
      ("class RNNCell(nn.RNNCell):", "super().__init__(input_size, hidden_size)", "return super().forward(x, h)"),
      "breaks a rule the question states", rule=True),
    M("q1_rnn_cell", "a loop over the batch (the question asks for none)",
      "return torch.tanh(x @ self.weight_ih.T + self.bias_ih + h @ self.weight_hh.T + self.bias_hh)",
      "return torch.stack([torch.tanh(self.weight_ih @ x[b] + self.bias_ih + self.weight_hh @ h[b] + self.bias_hh) for b in range(x.shape[0])])",
      "RNNCell uses ['loop']", rule=True),
    M("q1_rnn_cell", "bias folded in with a column of ones made on the CPU",
      "return torch.tanh(x @ self.weight_ih.T + self.bias_ih + h @ self.weight_hh.T + self.bias_hh)",
      "x1 = torch.cat([x, torch.ones(x.shape[0], 1)], dim=1)\n        return torch.tanh(x1 @ torch.cat([self.weight_ih, self.bias_ih[:, None]], dim=1).T + h @ self.weight_hh.T + self.bias_hh)",
      "device"),
    M("q1_rnn_cell", "tanh written out with exp (overflows)",
      "return torch.tanh(x @ self.weight_ih.T + self.bias_ih + h @ self.weight_hh.T + self.bias_hh)",
      "z = x @ self.weight_ih.T + self.bias_ih + h @ self.weight_hh.T + self.bias_hh\n        return (torch.exp(2 * z) - 1) / (torch.exp(2 * z) + 1)", "exp overflows"),
    M("q1_rnn_cell", "output squeezed (a batch of one loses its axis)", "+ self.bias_hh)", "+ self.bias_hh).squeeze()", "no squeeze()"),
    M("q1_rnn_cell", "bias_hh used through .data", " + self.bias_hh)", " + self.bias_hh.data)", "no gradient reached bias_hh"),
    # q2: RNN unrolled
    M("q2_rnn", "PyTorch's torch.rnn_tanh with the cell's weights (right values; the question forbids it)",
      "outputs = []\n        for t in range(T):\n            h = self.cell(x[:, t], h)",
      "out, h_n = torch.rnn_tanh(x, h[None], [self.cell.weight_ih, self.cell.weight_hh, self.cell.bias_ih, self.cell.bias_hh],"
      " True, 1, 0.0, self.training, False, True)\n        return out, h_n[0]\n        outputs = []\n        for t in range(T):\n            h = self.cell(x[:, t], h)",
      "breaks a rule the question states", rule=True),
    M("q2_rnn", "initial state made in float32 whatever the input (no case of its own: the checks' float64 variant)",
      "h = x.new_zeros(B, self.hidden_size) if h0 is None else h0",
      "h = torch.zeros(B, self.hidden_size, device=x.device) if h0 is None else h0", "float64"),
    M("q2_rnn", "hidden state not carried", "h = self.cell(x[:, t], h)",
      "h = self.cell(x[:, t], x.new_zeros(B, self.hidden_size) if h0 is None else h0)", "carried"),
    M("q2_rnn", "batch and time axes swapped", "B, T, _ = x.shape\n        h = x.new_zeros(B, self.hidden_size) if h0 is None else h0\n        outputs = []\n        for t in range(T):\n            h = self.cell(x[:, t], h)",
      "T, B, _ = x.shape\n        h = x.new_zeros(B, self.hidden_size) if h0 is None else h0\n        outputs = []\n        for t in range(T):\n            h = self.cell(x[t], h)", ""),
    M("q2_rnn", "stacked along dim 0", "torch.stack(outputs, dim=1)", "torch.stack(outputs, dim=0)", "dim=1"),
    M("q2_rnn", "h0 ignored", "h = x.new_zeros(B, self.hidden_size) if h0 is None else h0", "h = x.new_zeros(B, self.hidden_size)", "h0"),
    M("q2_rnn", "first state returned as h_T", "return torch.stack(outputs, dim=1), h", "return torch.stack(outputs, dim=1), outputs[0]", "h_T"),
    M("q2_rnn", "first input fed at every step", "self.cell(x[:, t], h)", "self.cell(x[:, 0], h)", "ignored"),
    M("q2_rnn", "hidden state detached between steps", "h = self.cell(x[:, t], h)", "h = self.cell(x[:, t], h.detach())",
      "do not detach the hidden state between steps"),
    M("q2_rnn", "default state made on the CPU", "h = x.new_zeros(B, self.hidden_size) if h0 is None else h0",
      "h = torch.zeros(B, self.hidden_size) if h0 is None else h0", "on x's device"),
    M("q2_rnn", "h_T squeezed (a batch of one loses its axis)", "return torch.stack(outputs, dim=1), h ", "return torch.stack(outputs, dim=1), h.squeeze() ", "no squeeze()"),
    M("q2_rnn", "the cell's formula written out in the loop instead of running self.cell (a rule the text states)", "h = self.cell(x[:, t], h)",
      "h = torch.tanh(x[:, t] @ self.cell.weight_ih.T + self.cell.bias_ih + h @ self.cell.weight_hh.T + self.cell.bias_hh)",
      "run self.cell over the sequence"),
    M("q2_rnn", "steps read under torch.no_grad()", "h = self.cell(x[:, t], h)",
      "with torch.no_grad():\n                x_t = x[:, t]\n            h = self.cell(x_t, h)", "gradient"),
    # q3: LSTMCell
    M("q3_lstm_cell", "subclasses torch.nn.LSTMCell and calls its forward (right values; the question forbids it)",
      ("class LSTMCell(nn.Module):", "super().__init__()", "gates = x @ self.weight_ih.T + self.bias_ih + h @ self.weight_hh.T + self.bias_hh  # (B, 4H)"),
      ("class LSTMCell(nn.LSTMCell):", "super().__init__(input_size, hidden_size)", "return super().forward(x, (h, c))"),
      "breaks a rule the question states", rule=True),
    M("q3_lstm_cell", "PyTorch's torch.lstm_cell (right values; the question forbids it)",
      "gates = x @ self.weight_ih.T + self.bias_ih + h @ self.weight_hh.T + self.bias_hh  # (B, 4H)",
      "return torch.lstm_cell(x, (h, c), self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)",
      "breaks a rule the question states", rule=True),
    M("q3_lstm_cell", "forget gate with the wrong sign", "torch.sigmoid(f) * c", "(1 - torch.sigmoid(f)) * c", "(1 - f)"),
    M("q3_lstm_cell", "forget gate missing", "torch.sigmoid(f) * c", "c", "c' = f * c"),
    M("q3_lstm_cell", "forget gate without its bias", "torch.sigmoid(f) * c",
      "torch.sigmoid(f - (self.bias_ih + self.bias_hh)[self.hidden_size:2 * self.hidden_size]) * c", "bias"),
    M("q3_lstm_cell", "bias_hh missing", " + self.bias_hh  # (B, 4H)", "  # (B, 4H)", "bias"),
    M("q3_lstm_cell", "tanh and sigmoid swapped", "torch.sigmoid(i) * torch.tanh(g)", "torch.tanh(i) * torch.sigmoid(g)", "sigmoid for i, f, o and tanh for g"),
    M("q3_lstm_cell", "gate order i, f, o, g", "i, f, g, o = gates.chunk", "i, f, o, g = gates.chunk", "gate order"),
    M("q3_lstm_cell", "no tanh on the cell state", "torch.sigmoid(o) * torch.tanh(c_next)", "torch.sigmoid(o) * c_next", "h' = o * tanh(c')"),
    M("q3_lstm_cell", "h from the old cell state", "torch.tanh(c_next)", "torch.tanh(c)", "new cell state"),
    M("q3_lstm_cell", "output gate pre-activation", "torch.sigmoid(o) * torch.tanh(c_next)", "o * torch.tanh(c_next)", "h' = o * tanh(c')"),
    M("q3_lstm_cell", "chunked along the batch axis", "gates.chunk(4, dim=1)", "gates.chunk(4, dim=0)", ""),
    M("q3_lstm_cell", "returns (c, h)", "return h_next, c_next", "return c_next, h_next", "differs"),
    M("q3_lstm_cell", "cell state detached", "torch.sigmoid(f) * c", "torch.sigmoid(f) * c.detach()", "do not detach c"),
    M("q3_lstm_cell", "weight_hh used through .data", "h @ self.weight_hh.T", "h @ self.weight_hh.data.T", "no gradient reached weight_hh"),
    M("q3_lstm_cell", "bias folded in with a column of ones made on the CPU",
      "gates = x @ self.weight_ih.T + self.bias_ih + h @ self.weight_hh.T + self.bias_hh",
      "gates = torch.cat([x, torch.ones(x.shape[0], 1)], dim=1) @ torch.cat([self.weight_ih, self.bias_ih[:, None]], dim=1).T + h @ self.weight_hh.T + self.bias_hh",
      "device"),
    M("q3_lstm_cell", "candidate's tanh written out with exp (overflows)", "torch.sigmoid(i) * torch.tanh(g)",
      "torch.sigmoid(i) * (torch.exp(2 * g) - 1) / (torch.exp(2 * g) + 1)", "exp overflows"),
    M("q3_lstm_cell", "input detached", "gates = x @ self.weight_ih.T", "gates = x.detach() @ self.weight_ih.T", "do not detach x"),
    # q4: LSTM unrolled
    M("q4_lstm", "PyTorch's torch.lstm with the cell's weights (right values; the question forbids it)",
      "outputs = []\n        for t in range(T):\n            state = self.cell(x[:, t], state)",
      "out, h_n, c_n = torch.lstm(x, (state[0][None], state[1][None]), [self.cell.weight_ih, self.cell.weight_hh, self.cell.bias_ih,"
      " self.cell.bias_hh], True, 1, 0.0, self.training, False, True)\n        return out, (h_n[0], c_n[0])\n        outputs = []\n        for t in range(T):\n            state = self.cell(x[:, t], state)",
      "breaks a rule the question states", rule=True),
    M("q4_lstm", "cell state not carried", "state = self.cell(x[:, t], state)",
      "state = self.cell(x[:, t], (state[0], torch.zeros_like(state[1])))", "carried"),
    M("q4_lstm", "hidden state not carried", "state = self.cell(x[:, t], state)",
      "state = self.cell(x[:, t], (torch.zeros_like(state[0]), state[1]))", "carried"),
    M("q4_lstm", "output preallocated on the CPU", ("outputs = []", "outputs.append(state[0])", "return torch.stack(outputs, dim=1), state "),
      ("outputs = torch.empty(B, T, self.hidden_size)", "outputs[:, t] = state[0]", "return outputs, state "), "made without device="),
    M("q4_lstm", "outputs hold c", "outputs.append(state[0])", "outputs.append(state[1])", "outputs hold h, not c"),
    M("q4_lstm", "final state reversed", "return torch.stack(outputs, dim=1), state ", "return torch.stack(outputs, dim=1), state[::-1] ", "h_T"),
    M("q4_lstm", "given state ignored", "if state is None:", "if True:", "given"),
    M("q4_lstm", "batch and time axes swapped", "self.cell(x[:, t], state)", "self.cell(x[t], state)", ""),
    M("q4_lstm", "stacked along dim 0", "torch.stack(outputs, dim=1)", "torch.stack(outputs, dim=0)", "dim=1"),
    M("q4_lstm", "state detached between steps", "state = self.cell(x[:, t], state)",
      "state = self.cell(x[:, t], tuple(s.detach() for s in state))", "do not detach the state between steps"),
    M("q4_lstm", "cell state detached between steps", "state = self.cell(x[:, t], state)",
      "state = self.cell(x[:, t], (state[0], state[1].detach()))", "do not detach the state between steps"),
    M("q4_lstm", "default state made on the CPU", "state = (x.new_zeros(B, self.hidden_size), x.new_zeros(B, self.hidden_size))",
      "state = (torch.zeros(B, self.hidden_size), torch.zeros(B, self.hidden_size))", "on x's device"),
    M("q4_lstm", "outputs squeezed (a batch of one loses its axis)", "return torch.stack(outputs, dim=1), state ",
      "return torch.stack(outputs, dim=1).squeeze(), state ", "no squeeze()"),
    M("q4_lstm", "the cell's gates written out in the loop instead of running self.cell (a rule the text states)", "state = self.cell(x[:, t], state)  #",
      "h, c = state\n            i, f, g, o = (x[:, t] @ self.cell.weight_ih.T + self.cell.bias_ih + h @ self.cell.weight_hh.T + self.cell.bias_hh).chunk(4, dim=1)\n"
      "            c = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)\n            state = (torch.sigmoid(o) * torch.tanh(c), c)  #",
      "unroll self.cell"),
    M("q4_lstm", "given c0 ignored", "if state is None:\n            state = (x.new_zeros(B, self.hidden_size), x.new_zeros(B, self.hidden_size))",
      "state = (x.new_zeros(B, self.hidden_size) if state is None else state[0], x.new_zeros(B, self.hidden_size))", "(h0, c0)"),
    # q5: gradient to the first input
    M("q5_early_grad", "gradient at the last input", "x.grad[:, 0]", "x.grad[:, -1]", "FIRST"),
    M("q5_early_grad", "backward from all outputs", "outputs[:, -1].sum()", "outputs.sum()", "h_T summed"),
    M("q5_early_grad", "first hidden state instead of the last", "outputs[:, -1].sum()", "outputs[:, 0].sum()", "h_T summed"),
    M("q5_early_grad", "norm over all steps", "x.grad[:, 0].norm()", "x.grad.norm()", "FIRST"),
    M("q5_early_grad", "caller's tensor used in place", "x = x.detach().clone().requires_grad_(True)", "x.requires_grad_(True)", "caller's x"),
    M("q5_early_grad", "tensor returned, not float", ".norm().item()", ".norm()", "Python float"),
    M("q5_early_grad", "numpy scalar returned", ".norm().item()", ".norm().numpy()", "Python float"),
    M("q5_early_grad", "caller's layer frozen", "outputs, _ = layer(x)", "layer.requires_grad_(False)\n    outputs, _ = layer(x)", "requires_grad"),
    M("q5_early_grad", "caller's layer switched to eval mode", "outputs, _ = layer(x)", "layer.eval()\n    outputs, _ = layer(x)", "training mode"),
    # q6: language model
    M("q6_lm", "softmax on the logits", "return self.out(outputs), state", "return torch.softmax(self.out(outputs), -1), state", "probabilities"),
    M("q6_lm", "last step only", "return self.out(outputs), state", "return self.out(outputs[:, -1]), state", "every step"),
    M("q6_lm", "state not passed on", "self.lstm(self.embedding(tokens), state)", "self.lstm(self.embedding(tokens))", "pass `state`"),
    M("q6_lm", "input state returned", "outputs, state = self.lstm", "outputs, _ = self.lstm", ""),
    M("q6_lm", "embedding skipped", "self.lstm(self.embedding(tokens), state)", "self.lstm(torch.nn.functional.one_hot(tokens, self.embedding.num_embeddings)[..., :self.embedding.embedding_dim].float(), state)", "embedding"),
    M("q6_lm", "embeddings detached", "self.lstm(self.embedding(tokens), state)", "self.lstm(self.embedding(tokens).detach(), state)",
      "no gradient reached embedding.weight"),
    M("q6_lm", "output layer used through .data", "return self.out(outputs), state",
      "return F.linear(outputs, self.out.weight.data, self.out.bias.data), state", "no gradient reached out.weight"),
    M("q6_lm", "default state made on the CPU", "self.lstm(self.embedding(tokens), state)",
      "self.lstm(self.embedding(tokens), state if state is not None else (torch.zeros(tokens.shape[0], self.lstm.hidden_size),) * 2)", "device"),
    M("q6_lm", "hidden states squeezed (a batch of one loses its axis)", "return self.out(outputs), state", "return self.out(outputs.squeeze()), state", "no squeeze()"),
    M("q6_lm", "embedding under torch.no_grad()", "outputs, state = self.lstm(self.embedding(tokens), state)",
      "with torch.no_grad():\n            emb = self.embedding(tokens)\n        outputs, state = self.lstm(emb, state)", "no gradient reached embedding.weight"),
    # q7: language-model loss
    M("q7_lm_loss", "targets not shifted", "inputs, targets = ids[:, :-1], ids[:, 1:]", "inputs, targets = ids, ids", "ids[:, :-1]"),
    M("q7_lm_loss", "shifted the wrong way", "inputs, targets = ids[:, :-1], ids[:, 1:]", "inputs, targets = ids[:, 1:], ids[:, :-1]", "shifted the other way"),
    M("q7_lm_loss", "padding counted in the loss", ", ignore_index=pad_id)", ")", "ignore <pad>"),
    M("q7_lm_loss", "targets chosen by the lengths with a mask made on the CPU (no case of its own: the checks' GPU variant)",
      "loss = F.cross_entropy(logits.reshape(-1, logits.size(-1)), targets.reshape(-1), ignore_index=pad_id)",
      "keep = torch.arange(targets.size(1))[None, :] < (batch[1] - 1)[:, None]\n"
      "    loss = F.cross_entropy(logits[keep], targets[keep])", "a tensor made without device= stayed on the CPU"),
    M("q7_lm_loss", "padding counted in n_tokens", "int((targets != pad_id).sum())", "targets.numel()", "not <pad>"),
    M("q7_lm_loss", "mean of per-sentence means",
      "loss = F.cross_entropy(logits.reshape(-1, logits.size(-1)), targets.reshape(-1), ignore_index=pad_id)",
      "loss = (F.cross_entropy(logits.transpose(1, 2), targets, ignore_index=pad_id, reduction='none').sum(1) / (targets != pad_id).sum(1)).mean()", "expected"),
    M("q7_lm_loss", "logits flattened time-major", "logits.reshape(-1, logits.size(-1))", "logits.transpose(0, 1).reshape(-1, logits.size(-1))", "expected"),
    M("q7_lm_loss", "loss detached with item()", "return loss, int(", "return loss.item(), int(", "0-dim tensor"),
    M("q7_lm_loss", "ignore_index fixed at 0", "ignore_index=pad_id)", "ignore_index=0)", "pad_id argument"),
    M("q7_lm_loss", "pad_id argument ignored (global PAD_ID)", ("ignore_index=pad_id)", "(targets != pad_id)"), ("ignore_index=PAD_ID)", "(targets != PAD_ID)"), "pad_id argument"),
    M("q7_lm_loss", "n_tokens from lengths, <sos> counted", "int((targets != pad_id).sum())", "int(batch[1].sum())", "lengths[b] - 1 targets"),
    M("q7_lm_loss", "n_tokens a 0-dim tensor", "int((targets != pad_id).sum())", "(targets != pad_id).sum()", "Python int"),
    M("q7_lm_loss", "log of softmax (underflows)",
      "loss = F.cross_entropy(logits.reshape(-1, logits.size(-1)), targets.reshape(-1), ignore_index=pad_id)",
      "keep = targets != pad_id\n    nll = -torch.log(torch.softmax(logits, -1)).gather(-1, targets.unsqueeze(-1)).squeeze(-1)\n    loss = nll[keep].mean()",
      "log(softmax"),
    M("q7_lm_loss", "sum instead of mean", "ignore_index=pad_id)", "ignore_index=pad_id, reduction='sum')", "not a sum"),
    # the call contract (seqcourse/contract.py): no check of this notebook was written for these; the harness finds them
    M("q7_lm_loss", "padding marked -100 through a view of the caller's batch",
      ("    loss = F.cross_entropy(logits.reshape(-1, logits.size(-1)), targets.reshape(-1), ignore_index=pad_id)\n"
       "    return loss, int((targets != pad_id).sum())"),
      ("    n_tokens = int((targets != pad_id).sum())\n    targets[targets == pad_id] = -100   # cross_entropy's default ignore_index\n"
       "    loss = F.cross_entropy(logits.reshape(-1, logits.size(-1)), targets.reshape(-1))\n    return loss, n_tokens"),
      "changed the caller's batch"),
    M("q7_lm_loss", "model switched to evaluation mode inside the loss (copied from evaluation code)", "    logits, _ = model(inputs)",
      "    model.eval()\n    logits, _ = model(inputs)", "changed the caller's model: its mode"),
    M("q7_lm_loss", "the caller's gradients cleared inside the loss (zero_grad before the forward)", "    logits, _ = model(inputs)",
      "    model.zero_grad()   # clean gradients first\n    logits, _ = model(inputs)", "changed the caller's model: its gradients"),
    M("q7_lm_loss", "the caller's gradients zeroed in place inside the loss, as torch < 2.0's zero_grad() did (no case of its own: the checks' frozen variant)",
      "    logits, _ = model(inputs)", "    model.zero_grad(set_to_none=False)   # clean gradients first\n    logits, _ = model(inputs)",
      "changed the gradients its parameters already held"),
    M("q6_lm", "global generator reseeded in forward (for reproducibility)", "        outputs, state = self.lstm(",
      "        torch.manual_seed(0)\n        outputs, state = self.lstm(", "reseeded torch's global random generator"),
]

ALTERNATIVES = {
    "q1_rnn_cell": """
return torch.tanh(F.linear(x, self.weight_ih, self.bias_ih) + F.linear(h, self.weight_hh, self.bias_hh))
""",
    "q2_rnn": """
h = torch.zeros(x.size(0), self.hidden_size, dtype=x.dtype, device=x.device) if h0 is None else h0
states = []
for x_t in x.unbind(dim=1):
    h = self.cell(x_t, h)
    states.append(h.unsqueeze(1))
return torch.cat(states, dim=1), states[-1].squeeze(1)
""",
    "q3_lstm_cell": """
H = self.hidden_size
w = torch.cat([self.weight_ih, self.weight_hh], dim=1)        # (4H, I + H)
z = torch.addmm(self.bias_ih + self.bias_hh, torch.cat([x, h], dim=1), w.t())
input_gate, forget_gate, output_gate = (torch.sigmoid(z[:, k * H:(k + 1) * H]) for k in (0, 1, 3))
candidate = torch.tanh(z[:, 2 * H:3 * H])
new_c = torch.addcmul(forget_gate * c, input_gate, candidate)
return output_gate * new_c.tanh(), new_c
""",
    "q4_lstm": """
B, T = x.shape[:2]
h, c = state if state is not None else (torch.zeros(B, self.hidden_size, device=x.device, dtype=x.dtype), torch.zeros(B, self.hidden_size, device=x.device, dtype=x.dtype))
out = torch.empty(B, T, self.hidden_size, device=x.device, dtype=x.dtype)
for t in range(T):
    h, c = self.cell(x[:, t, :], (h, c))
    out[:, t] = h
return out, (h, c)
""",
    "q5_early_grad": """
x_copy = x.detach().requires_grad_()
h_last = layer(x_copy)[0][:, -1, :]
(g,) = torch.autograd.grad(h_last.sum(), [x_copy])
return float(torch.linalg.vector_norm(g[:, 0, :]))
""",
    "q6_lm": """
emb = self.embedding(tokens)
hs, (h, c) = self.lstm(emb, state)
return F.linear(hs, self.out.weight, self.out.bias), (h, c)
""",
    "q7_lm_loss": """
# padding found from the lengths (<sos> and <eos> included: lengths[b] - 1 targets), not from pad_id
lengths = batch[1]
logits, _ = model(ids[:, :-1])
target = ids[:, 1:]
logp = torch.log_softmax(logits, dim=-1).gather(-1, target.unsqueeze(-1)).squeeze(-1)  # (B, T-1)
keep = torch.arange(target.shape[1], device=ids.device)[None, :] < (lengths.to(ids.device) - 1)[:, None]
return -(logp * keep).sum() / keep.sum(), keep.sum().item()
""",
}

# answers written to satisfy only the public checks (shapes, dtypes, ranges, and the public fixed example's answer
# memorised): the hidden cases must fail them
PUBLIC_ONLY = {
    # right only on the public examples' sizes ((I, H) = (3, 2), (3, 4): values, gradients and device are checked there;
    # (5, 7): types, shapes and values; whatever the batch, so that their first rows alone agree), zeros otherwise
    "q1_rnn_cell": """
if (x.shape[1], h.shape[1]) in ((3, 2), (3, 4), (5, 7)):
    return torch.tanh(x @ self.weight_ih.T + self.bias_ih + h @ self.weight_hh.T + self.bias_hh)
return torch.zeros(x.shape[0], self.hidden_size)
""",
    # the public fixed examples' values (the RNN stand-in's, the linear recurrence's), whatever the layer and input
    "q5_early_grad": "return {(2, 4, 2): 0.014015870168805122, (3, 4, 2): 0.125 * 39 ** 0.5}.get(tuple(x.shape), 1.0)",
}

# answers right only in types and shapes (zeros, constants, inputs passed through): together they must earn
# at most a tenth of the notebook's autograded points
GARBAGE = {   # per question an answer right only in types and shapes: zeros, and a constant that looks like an activation's
    "q1_rnn_cell": ["return torch.zeros_like(h)", "return torch.tanh(torch.ones_like(h))"],
    "q2_rnn": ["""
B, T, _ = x.shape
return x.new_zeros(B, T, self.hidden_size), x.new_zeros(B, self.hidden_size)
""", """
B, T, _ = x.shape
return torch.tanh(x.new_ones(B, T, self.hidden_size)), torch.tanh(x.new_ones(B, self.hidden_size))
"""],
    "q3_lstm_cell": ["return torch.zeros_like(h), c", "return torch.tanh(torch.ones_like(h)), torch.ones_like(c)"],
    "q4_lstm": ["""
B, T, _ = x.shape
zeros = x.new_zeros(B, self.hidden_size)
return x.new_zeros(B, T, self.hidden_size), (zeros, zeros)
""", """
B, T, _ = x.shape
ones = torch.tanh(x.new_ones(B, self.hidden_size))
return torch.tanh(x.new_ones(B, T, self.hidden_size)), (ones, ones)
"""],
    "q5_early_grad": "return 1.0",
    "q6_lm": """
emb = self.embedding(tokens)
zeros = emb.new_zeros(tokens.shape[0], self.lstm.hidden_size)
return self.out(emb.new_zeros(*tokens.shape, self.lstm.hidden_size)), (zeros, zeros)
""",
    "q7_lm_loss": """
logits, _ = model(ids)
return logits.sum() * 0.0, int(ids.numel())
""",
}
