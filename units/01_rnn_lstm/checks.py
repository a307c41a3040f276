"""Hidden checks of notebook 01_rnn_lstm: each case is a function of ``nb``, the submitted notebook as the
grader sees it (``grader.checks.Notebook``: its names as data or handles into the sandbox, ``nb.sandbox``,
``nb.standin(name)`` for a definition of ``standins.py`` executed where the notebook runs, and the static
``nb.uses``/``nb.rule``). The master's hidden test cells call them; they run on the trusted side only."""

from __future__ import annotations

import math

import torch

# what a question's answer may change of what it is given (seqcourse/contract.py): a backward() through the layer leaves
# gradients on its weights; the text asks only that x and the layer's requires_grad and mode stay as they were
MAY_CHANGE = {"q5_early_grad": ("early_gradient_norm.layer.grad",)}


_REF_RNN_CELL = ("class RNNCell(torch.nn.RNNCell):\n"   # a correct cell with the notebook's interface, so that only your RNN is checked here
                 "    def __init__(self, input_size, hidden_size):\n"
                 "        super().__init__(input_size, hidden_size)\n"
                 "    def forward(self, x, h):\n"
                 "        return super().forward(x, h)\n")
# other recurrences with the notebook's cells' interface and parameters (names and shapes): an RNN or LSTM that runs
# self.cell follows them; one that writes the cell's formula out again in its own forward does not
_OTHER_RNN_CELL = ("class RNNCell(torch.nn.Module):\n"
                   "    def __init__(self, input_size, hidden_size):\n"
                   "        super().__init__()\n"
                   "        self.input_size, self.hidden_size = input_size, hidden_size\n"
                   "        self.weight_ih = torch.nn.Parameter(torch.zeros(hidden_size, input_size))\n"
                   "        self.weight_hh = torch.nn.Parameter(torch.zeros(hidden_size, hidden_size))\n"
                   "        self.bias_ih = torch.nn.Parameter(torch.zeros(hidden_size))\n"
                   "        self.bias_hh = torch.nn.Parameter(torch.zeros(hidden_size))\n"
                   "    def forward(self, x, h):\n"
                   "        return 0.5 * h + torch.sin(x @ self.weight_ih.T + self.bias_ih) * torch.sigmoid(h @ self.weight_hh.T + self.bias_hh)\n")
_OTHER_LSTM_CELL = ("class LSTMCell(torch.nn.Module):\n"
                    "    def __init__(self, input_size, hidden_size):\n"
                    "        super().__init__()\n"
                    "        self.input_size, self.hidden_size = input_size, hidden_size\n"
                    "        self.weight_ih = torch.nn.Parameter(torch.zeros(4 * hidden_size, input_size))\n"
                    "        self.weight_hh = torch.nn.Parameter(torch.zeros(4 * hidden_size, hidden_size))\n"
                    "        self.bias_ih = torch.nn.Parameter(torch.zeros(4 * hidden_size))\n"
                    "        self.bias_hh = torch.nn.Parameter(torch.zeros(4 * hidden_size))\n"
                    "    def forward(self, x, state):\n"
                    "        h, c = state\n"
                    "        a, b, _, d = (x @ self.weight_ih.T + self.bias_ih + h @ self.weight_hh.T + self.bias_hh).chunk(4, dim=1)\n"
                    "        c = 0.5 * c + torch.sin(a) * torch.sigmoid(b)\n"
                    "        return torch.cos(d) * c, c\n")


def _other_cell(source: str, w: dict):
    """Here, on the trusted side: the cell that ``source`` (the swap above) defines, holding the weights ``w``."""
    ns = {"torch": torch}
    exec(source, ns)  # noqa: S102 - the checks' own source
    cell = next(v for k, v in ns.items() if k.endswith("Cell"))(w["weight_ih"].size(1), w["weight_hh"].size(1))
    cell.load_state_dict(w)
    return cell.requires_grad_(False)


_H = 4
_REF_LSTM_CELL = ("class LSTMCell(torch.nn.LSTMCell):\n"   # a correct cell with the notebook's interface, so that only your LSTM is checked here
                  "    def __init__(self, input_size, hidden_size):\n"
                  "        super().__init__(input_size, hidden_size)\n"
                  "    def forward(self, x, state):\n"
                  "        return super().forward(x, state)\n")
_REF_LSTM = """
class LSTM(torch.nn.Module):
    def __init__(self, input_size, hidden_size):
        super().__init__()
        self.input_size, self.hidden_size = input_size, hidden_size
        self.cell = torch.nn.LSTMCell(input_size, hidden_size)
    def forward(self, x, state=None):
        if state is None:
            zeros = x.new_zeros(x.shape[0], self.hidden_size)
            state = (zeros, zeros)
        outputs = []
        for t in range(x.shape[1]):
            state = self.cell(x[:, t], state)
            outputs.append(state[0])
        return torch.stack(outputs, dim=1), state
"""


def _copy(mine, ref):
    # the weights of a one-layer torch.nn.RNN/LSTM into the notebook's layer (its cell)
    return mine.load_state_dict({"cell." + n: getattr(ref, n + "_l0").detach() for n in ("weight_ih", "weight_hh", "bias_ih", "bias_hh")}, strict=False)


def _reference_grad(ref, x, step):
    x = x.detach().clone().requires_grad_(True)
    (grad,) = torch.autograd.grad(ref(x)[0][:, -1].sum(), x)
    return grad[:, step].norm().item()


def q1_rnn_cell_1(nb):
    _ = torch.manual_seed(1)
    for _B, _I, _H in [(4, 5, 7), (1, 3, 3), (6, 8, 2)]:
        _cell = nb.RNNCell(_I, _H)
        _ref = torch.nn.RNNCell(_I, _H)
        _ = _cell.load_state_dict(_ref.state_dict(), strict=False)
        _x, _h0 = torch.randn(_B, _I), torch.randn(_B, _H)
        with torch.no_grad():
            _want = _ref(_x, _h0)
        _got = _cell(_x, _h0)
        assert isinstance(_got, torch.Tensor) and tuple(_got.shape) == (_B, _H), f"(B, I, H) = {(_B, _I, _H)}: expected a tensor of shape (B, H) = {(_B, _H)}, got {tuple(_got.shape) if isinstance(_got, torch.Tensor) else type(_got).__name__}" + (": a batch of one keeps its batch axis (no squeeze())" if _B == 1 else "")
        assert torch.allclose(_got, _want, atol=1e-5), f"(B, I, H) = {(_B, _I, _H)}: differs from torch.nn.RNNCell with the same weights. Check tanh (not sigmoid or ReLU), both biases, and that weights are transposed (x @ weight_ih.T)"


def q1_rnn_cell_2(nb):
    nb.rule("RNNCell", "RNNCell", "RNN", "rnn_tanh_cell", "rnn_tanh", "loop", says="the question asks for the recurrence itself, for the whole batch at once (matrix products, additions and torch.tanh): no loops, not PyTorch's recurrent layers")
    _ = torch.manual_seed(18)
    _cell, _ref = nb.RNNCell(5, 4), torch.nn.RNNCell(5, 4)
    _ = _cell.load_state_dict(_ref.state_dict(), strict=False)
    _x, _h0 = torch.randn(2, 5), torch.randn(2, 4)
    with torch.no_grad():
        _want = _ref(_x, _h0)
    assert torch.allclose(_cell(_x, _h0), _want, atol=1e-5), "your cell differs from torch.nn.RNNCell with the same weights (see the other checks)"


def q1_rnn_cell_3(nb):
    _ = torch.manual_seed(2)
    _cell = nb.RNNCell(4, 6)
    _bih, _bhh = torch.randn(6), torch.randn(6)
    _ = _cell.load_state_dict({"weight_ih": torch.zeros(6, 4), "weight_hh": torch.zeros(6, 6), "bias_ih": _bih, "bias_hh": _bhh}, strict=False)
    _out = _cell(torch.randn(2, 4), torch.randn(2, 6))
    assert torch.allclose(_out, torch.tanh(_bih + _bhh).expand(2, 6), atol=1e-6), "with both weight matrices zero the output must be tanh(bias_ih + bias_hh): a bias is missing, or tanh is not applied to the whole sum"
    _whh = torch.randn(6, 6)
    _ = _cell.load_state_dict({"weight_ih": torch.zeros(6, 4), "weight_hh": _whh, "bias_ih": torch.zeros(6), "bias_hh": torch.zeros(6)}, strict=False)
    _hp = torch.randn(2, 6)
    _out = _cell(torch.zeros(2, 4), _hp)
    assert torch.allclose(_out, torch.tanh(_hp @ _whh.T), atol=1e-5), "with zero input and zero biases the output must be tanh(h @ weight_hh.T): the previous hidden state is ignored or multiplied by the wrong matrix"


def q1_rnn_cell_4(nb):
    _grads = nb.standin("_grads")

    _ = torch.manual_seed(11)
    for _B, _I, _H in [(3, 4, 5), (1, 2, 3)]:
        _ref = torch.nn.RNNCell(_I, _H)
        _cell = nb.RNNCell(_I, _H)
        _ = _cell.load_state_dict(_ref.state_dict(), strict=False)
        _x, _h0, _w = torch.randn(_B, _I), torch.randn(_B, _H), torch.randn(_B, _H)
        _res = _grads(_cell, (_x, _h0), [_w], _cell)
        assert _res is not None, "the output carries no gradient at all: something cuts the graph (.detach(), .data, torch.no_grad() or .item() in forward)"
        _pg, _ag = _res
        _xr, _hr = _x.clone().requires_grad_(True), _h0.clone().requires_grad_(True)
        (_ref(_xr, _hr) * _w).sum().backward()
        for _n, _p in _ref.named_parameters():
            assert _pg.get(_n) is not None, f"no gradient reached {_n}: something cuts the graph (.data, .detach(), torch.no_grad() or .item() in forward)"
            assert torch.allclose(_pg[_n], _p.grad, atol=1e-5), f"the gradient of {_n} differs from torch.nn.RNNCell's with the same weights: use the parameters themselves (not .data or a detached copy) in forward"
        assert _ag[0] is not None and torch.allclose(_ag[0], _xr.grad, atol=1e-5), "the gradient with respect to the input x differs from torch.nn.RNNCell's: do not detach x"
        assert _ag[1] is not None and torch.allclose(_ag[1], _hr.grad, atol=1e-5), "the gradient with respect to the previous hidden state h differs from torch.nn.RNNCell's: do not detach h (the gradient must flow back through time)"


def q1_rnn_cell_5(nb):
    _ = torch.manual_seed(17)
    _cell, _ref = nb.RNNCell(4, 5), torch.nn.RNNCell(4, 5)
    _ = _cell.load_state_dict(_ref.state_dict(), strict=False)
    _x, _h0 = 100 * torch.randn(3, 4), torch.randn(3, 5)
    with torch.no_grad():
        _want = _ref(_x, _h0)
    _got = _cell(_x, _h0)
    assert not bool(torch.isnan(_got).any()), "with large inputs (|x| ~ 100) your cell returns nan: an exp overflows (tanh written out with torch.exp?); use torch.tanh"
    assert torch.allclose(_got, _want, atol=1e-5), "with large inputs (|x| ~ 100) your cell differs from torch.nn.RNNCell: the output must saturate at -1 and 1 (use torch.tanh)"


def q1_rnn_cell_6(nb):
    _device_problem = nb.standin("_device_problem")

    _ = torch.manual_seed(23)
    _cell, _ref = nb.RNNCell(6, 4), torch.nn.RNNCell(6, 4)
    _ = _cell.load_state_dict(_ref.state_dict(), strict=False)
    _x, _h0 = torch.randn(4, 6), torch.randn(4, 4)
    with torch.no_grad():
        _want = _ref(_x, _h0)
    assert torch.allclose(_cell(_x, _h0), _want, atol=1e-5), "on the CPU your cell differs from torch.nn.RNNCell with the same weights (this check of devices needs the right values first): check tanh, both biases, and that weights are transposed (x @ weight_ih.T, h @ weight_hh.T)"
    _p = _device_problem(_cell, (_x, _h0), _cell)
    assert _p is None, f"with its parameters and inputs on another device than the CPU, your cell fails ({_p}): forward must not create tensors on the default device (write x.new_ones(...) or torch.ones(..., device=x.device))"


def q2_rnn_1(nb):
    nb.rule("RNN", "RNN", "rnn_tanh", "rnn_relu", says="the question asks for your own loop over time with self.cell, not PyTorch's torch.nn.RNN")

    _ = torch.manual_seed(3)
    with nb.sandbox.swap("RNNCell", _REF_RNN_CELL):
        for _B, _T, _I, _H in [(3, 5, 4, 6), (1, 1, 2, 3), (5, 2, 3, 4), (2, 9, 3, 5)]:
            _rnn, _ref = nb.RNN(_I, _H), torch.nn.RNN(_I, _H, batch_first=True)
            _ = _copy(_rnn, _ref)
            _x = torch.randn(_B, _T, _I)
            with torch.no_grad():
                _rout, _rh = _ref(_x)
            _out, _hT = _rnn(_x)
            _one = ": a batch of one keeps its batch axis (no squeeze())" if _B == 1 else ""
            assert tuple(_out.shape) == (_B, _T, _H), f"(B, T, I, H) = {(_B, _T, _I, _H)}: outputs must be (B, T, H), got {tuple(_out.shape)}" + _one
            assert tuple(_hT.shape) == (_B, _H), f"(B, T, I, H) = {(_B, _T, _I, _H)}: h_T must be (B, H), got {tuple(_hT.shape)}" + _one
            assert torch.allclose(_out, _rout, atol=1e-5), f"(B, T, I, H) = {(_B, _T, _I, _H)}, h0 = None: outputs differ from torch.nn.RNN. Is the hidden state carried from step to step (h = cell(x[:, t], h)), starting from zeros, and is time read along dim 1?"
            assert torch.allclose(_hT, _rh[0], atol=1e-5), f"(B, T, I, H) = {(_B, _T, _I, _H)}: h_T differs from torch.nn.RNN: return the state after the last step"


def q2_rnn_2(nb):

    _ = torch.manual_seed(4)
    with nb.sandbox.swap("RNNCell", _REF_RNN_CELL):
        _rnn, _ref = nb.RNN(3, 4), torch.nn.RNN(3, 4, batch_first=True)
        _ = _copy(_rnn, _ref)
        _x, _h0 = torch.randn(2, 6, 3), torch.randn(2, 4)
        with torch.no_grad():
            _rout, _rh = _ref(_x, _h0.unsqueeze(0))
        _out, _hT = _rnn(_x, _h0)
        assert torch.allclose(_out, _rout, atol=1e-5), "with a given h0 the outputs differ from torch.nn.RNN: start the recurrence from h0, not from zeros"
        assert torch.allclose(_hT, _rh[0], atol=1e-5), "with a given h0, h_T differs from torch.nn.RNN"


def q2_rnn_3(nb):
    _ = torch.manual_seed(5)
    with nb.sandbox.swap("RNNCell", _REF_RNN_CELL):
        _rnn = nb.RNN(3, 4)
        _x = torch.randn(2, 7, 3)
        _x2 = _x.clone()
        _x2[:, 4:] = torch.randn(2, 3, 3)
        _a, _ = _rnn(_x)
        _b, _ = _rnn(_x2)
        assert torch.allclose(_a[:, :4], _b[:, :4]), "changing inputs at steps >= 4 changed outputs at steps < 4: information flows from the future (is time read along dim 1?)"
        assert not torch.allclose(_a[:, 4:], _b[:, 4:]), "changing inputs at steps >= 4 did not change the outputs there: the input at each step is ignored"
        _ref = torch.nn.RNN(3, 4, batch_first=True)
        _ = _copy(_rnn, _ref)
        with torch.no_grad():
            _ra, _ = _ref(_x)
        assert torch.allclose(_rnn(_x)[0], _ra, atol=1e-5), "the outputs depend on the inputs only up to each step, as they should, but differ from torch.nn.RNN with the same weights: carry h from step to step through self.cell, starting from zeros"
    with nb.sandbox.swap("RNNCell", _OTHER_RNN_CELL):
        _rnn = nb.RNN(3, 4)
        _w = {"weight_ih": torch.randn(4, 3), "weight_hh": torch.randn(4, 4), "bias_ih": torch.randn(4), "bias_hh": torch.randn(4)}
        _ = _rnn.load_state_dict({"cell." + _n: _v for _n, _v in _w.items()}, strict=False)
        _x, _h = torch.randn(2, 5, 3), torch.randn(2, 4)
        _out, _hT = _rnn(_x, _h)
    _want, _cell = [], _other_cell(_OTHER_RNN_CELL, _w)
    for _t in range(5):
        _h = _cell(_x[:, _t], _h)
        _want.append(_h)
    assert torch.allclose(_out, torch.stack(_want, 1), atol=1e-5) and torch.allclose(_hT, _h, atol=1e-5), "with another cell in place of RNNCell, your RNN's results differ from running that cell at every step: the question says to run self.cell over the sequence (h = self.cell(x[:, t], h)), not to write the cell's formula out again in RNN.forward"


def q2_rnn_4(nb):
    _grads = nb.standin("_grads")

    _ = torch.manual_seed(12)
    with nb.sandbox.swap("RNNCell", _REF_RNN_CELL):
        _rnn, _ref = nb.RNN(3, 4), torch.nn.RNN(3, 4, batch_first=True)
        _ = _copy(_rnn, _ref)
        _x, _h0 = torch.randn(2, 6, 3), torch.randn(2, 4)
        _wo, _wh = torch.randn(2, 6, 4), torch.randn(2, 4)
        _res = _grads(_rnn, (_x, _h0), [_wo, _wh], _rnn)
    assert _res is not None, "the outputs carry no gradient at all: something cuts the graph (.detach(), .data, torch.no_grad() or .item())"
    _pg, _ag = _res
    _xr, _hr = _x.clone().requires_grad_(True), _h0.clone().requires_grad_(True)
    _rout, _rh = _ref(_xr, _hr.unsqueeze(0))
    ((_rout * _wo).sum() + (_rh[0] * _wh).sum()).backward()
    for _n in ("weight_ih", "weight_hh", "bias_ih", "bias_hh"):
        _g = _pg.get("cell." + _n)
        assert _g is not None, f"no gradient reached cell.{_n}: something cuts the graph (.data, .detach(), torch.no_grad() or .item())"
        assert torch.allclose(_g, getattr(_ref, _n + "_l0").grad, atol=1e-5), f"the gradient of cell.{_n} differs from torch.nn.RNN's with the same weights: the gradient must flow back through every step (do not detach the hidden state between steps)"
    assert _ag[0] is not None and torch.allclose(_ag[0], _xr.grad, atol=1e-5), "the gradient with respect to x differs from torch.nn.RNN's: the gradient must flow back through every step (do not detach the hidden state between steps)"
    assert _ag[1] is not None and torch.allclose(_ag[1], _hr.grad, atol=1e-5), "the gradient with respect to h0 differs from torch.nn.RNN's: start from h0 itself and do not detach the hidden state between steps"


def q2_rnn_5(nb):
    _device_problem = nb.standin("_device_problem")

    _ = torch.manual_seed(24)
    with nb.sandbox.swap("RNNCell", _REF_RNN_CELL):
        _rnn, _ref = nb.RNN(3, 4), torch.nn.RNN(3, 4, batch_first=True)
        _ = _rnn.load_state_dict({"cell." + _n: getattr(_ref, _n + "_l0").detach() for _n in ("weight_ih", "weight_hh", "bias_ih", "bias_hh")}, strict=False)
        _x = torch.randn(2, 5, 3)
        with torch.no_grad():
            _rout, _rh = _ref(_x)
        _out, _hT = _rnn(_x)
        assert torch.allclose(_out, _rout, atol=1e-5) and torch.allclose(_hT, _rh[0], atol=1e-5), "on the CPU (outputs, h_T) differ from torch.nn.RNN with the same weights (this check of devices needs the right values first): carry the hidden state from step to step, starting from zeros, with time along dim 1"
        _p = _device_problem(_rnn, (_x,), _rnn)
    assert _p is None, f"with the layer and x on another device than the CPU and h0 = None, your RNN fails ({_p}): create the zero initial state on x's device (x.new_zeros(B, H) or torch.zeros(B, H, device=x.device))"


def q3_lstm_cell_1(nb):
    nb.rule("LSTMCell", "LSTMCell", "LSTM", "lstm_cell", "lstm", says="the question asks for the gates from the cell's own parameters, not PyTorch's torch.nn.LSTMCell (not even as a base class) or torch.nn.LSTM")
    _ = torch.manual_seed(1)
    for _B, _I, _H in [(4, 5, 7), (1, 3, 3), (6, 8, 2), (3, 2, 9)]:
        _cell = nb.LSTMCell(_I, _H)
        _ref = torch.nn.LSTMCell(_I, _H)
        _ = _cell.load_state_dict(_ref.state_dict(), strict=False)
        _x, _h0, _c0 = torch.randn(_B, _I), torch.randn(_B, _H), torch.randn(_B, _H)
        with torch.no_grad():
            _rh, _rc = _ref(_x, (_h0, _c0))
        _h, _c = _cell(_x, (_h0, _c0))
        _one = ": a batch of one keeps its batch axis (no squeeze())" if _B == 1 else ""
        assert tuple(_h.shape) == (_B, _H) and tuple(_c.shape) == (_B, _H), f"(B, I, H) = {(_B, _I, _H)}: h' and c' must be (B, H), got {tuple(_h.shape)} and {tuple(_c.shape)}" + _one
        assert torch.allclose(_c, _rc, atol=1e-5), f"(B, I, H) = {(_B, _I, _H)}: c' differs from torch.nn.LSTMCell with the same weights. Check the gate order (i, f, g, o), sigmoid for i, f, o and tanh for g, both biases, and c' = f * c + i * g"
        assert torch.allclose(_h, _rh, atol=1e-5), f"(B, I, H) = {(_B, _I, _H)}: c' is right but h' differs from torch.nn.LSTMCell: h' = o * tanh(c'), with the new cell state"


def q3_lstm_cell_2(nb):
    _ = torch.manual_seed(2)
    _cell = nb.LSTMCell(3, _H)
    _bih = torch.zeros(4 * _H)
    _bih[:_H] = -30.0        # input gate closed
    _bih[_H:2 * _H] = 30.0   # forget gate open
    _ = _cell.load_state_dict({"weight_ih": torch.empty(4 * _H, 3).uniform_(-0.5, 0.5), "weight_hh": torch.empty(4 * _H, _H).uniform_(-0.5, 0.5), "bias_ih": _bih, "bias_hh": torch.zeros(4 * _H)}, strict=False)
    _c0 = torch.randn(2, _H)
    _, _c = _cell(0.1 * torch.randn(2, 3), (0.1 * torch.randn(2, _H), _c0))
    assert torch.allclose(_c, _c0, atol=1e-4), "with the forget gate open (f = 1) and the input gate closed (i = 0) the cell state must pass through unchanged: check f * c (not (1 - f) * c), that i multiplies g, and that the forget gate is the second block with its bias"
    _gb = torch.randn(_H)
    _bih = torch.zeros(4 * _H)
    _bih[:_H] = 30.0                   # input gate open
    _bih[_H:2 * _H] = -30.0            # forget gate closed
    _bih[2 * _H:3 * _H] = _gb          # candidate: tanh(_gb)
    _bih[3 * _H:] = 30.0               # output gate open
    _ = _cell.load_state_dict({"weight_ih": torch.zeros(4 * _H, 3), "weight_hh": torch.zeros(4 * _H, _H), "bias_ih": _bih, "bias_hh": torch.zeros(4 * _H)}, strict=False)
    _h, _c = _cell(torch.randn(2, 3), (torch.randn(2, _H), torch.randn(2, _H)))
    assert torch.allclose(_c, torch.tanh(_gb).expand(2, _H), atol=1e-4), "with the forget gate closed (f = 0) and the input gate open (i = 1) the new cell state must be the candidate g = tanh(third block): check c' = f * c + i * g, the gate order (i, f, g, o) and tanh for g"
    assert torch.allclose(_h, torch.tanh(torch.tanh(_gb)).expand(2, _H), atol=1e-4), "with the output gate open (o = 1), h' must be tanh(c') of the new cell state: h' = o * tanh(c')"


def q3_lstm_cell_3(nb):
    _grads = nb.standin("_grads")

    _ = torch.manual_seed(13)
    for _B, _I, _H in [(3, 4, 5), (2, 3, 2)]:
        _ref = torch.nn.LSTMCell(_I, _H)
        _cell = nb.LSTMCell(_I, _H)
        _ = _cell.load_state_dict(_ref.state_dict(), strict=False)
        _x, _h0, _c0 = torch.randn(_B, _I), torch.randn(_B, _H), torch.randn(_B, _H)
        _wh, _wc = torch.randn(_B, _H), torch.randn(_B, _H)
        _res = _grads(_cell, (_x, (_h0, _c0)), [_wh, _wc], _cell)
        assert _res is not None, "(h', c') carry no gradient at all: something cuts the graph (.detach(), .data, torch.no_grad() or .item() in forward)"
        _pg, _ag = _res
        _xr, _hr, _cr = (_t.clone().requires_grad_(True) for _t in (_x, _h0, _c0))
        _rh, _rc = _ref(_xr, (_hr, _cr))
        ((_rh * _wh).sum() + (_rc * _wc).sum()).backward()
        for _n, _p in _ref.named_parameters():
            assert _pg.get(_n) is not None, f"no gradient reached {_n}: something cuts the graph (.data, .detach(), torch.no_grad() or .item() in forward)"
            assert torch.allclose(_pg[_n], _p.grad, atol=1e-5), f"the gradient of {_n} differs from torch.nn.LSTMCell's with the same weights: use the parameters themselves (not .data or a detached copy) in forward"
        for _name, _g, _r in (("x", _ag[0], _xr), ("h", _ag[1], _hr), ("c", _ag[2], _cr)):
            assert _g is not None and torch.allclose(_g, _r.grad, atol=1e-5), f"the gradient with respect to {_name} differs from torch.nn.LSTMCell's: do not detach {_name} (the gradient must flow back through the cell state and the hidden state)"


def q3_lstm_cell_4(nb):
    _ = torch.manual_seed(19)
    _cell, _ref = nb.LSTMCell(4, 5), torch.nn.LSTMCell(4, 5)
    _ = _cell.load_state_dict(_ref.state_dict(), strict=False)
    _x, _h0, _c0 = 100 * torch.randn(3, 4), torch.randn(3, 5), torch.randn(3, 5)
    with torch.no_grad():
        _rh, _rc = _ref(_x, (_h0, _c0))
    _h, _c = _cell(_x, (_h0, _c0))
    assert not bool(torch.isnan(_h).any() or torch.isnan(_c).any()), "with large inputs (|x| ~ 100) your cell returns nan: an exp overflows (sigmoid or tanh written out with torch.exp?); use torch.sigmoid and torch.tanh"
    assert torch.allclose(_c, _rc, atol=1e-5) and torch.allclose(_h, _rh, atol=1e-5), "with large inputs (|x| ~ 100) your cell differs from torch.nn.LSTMCell: the gates must saturate at 0 and 1 (use torch.sigmoid and torch.tanh)"


def q3_lstm_cell_5(nb):
    _device_problem = nb.standin("_device_problem")

    _ = torch.manual_seed(25)
    _cell, _ref = nb.LSTMCell(3, 4), torch.nn.LSTMCell(3, 4)
    _ = _cell.load_state_dict(_ref.state_dict(), strict=False)
    _x, _h0, _c0 = torch.randn(2, 3), torch.randn(2, 4), torch.randn(2, 4)
    with torch.no_grad():
        _rh, _rc = _ref(_x, (_h0, _c0))
    _h, _c = _cell(_x, (_h0, _c0))
    assert torch.allclose(_h, _rh, atol=1e-5) and torch.allclose(_c, _rc, atol=1e-5), "on the CPU your cell's (h', c') differ from torch.nn.LSTMCell with the same weights (this check of devices needs the right values first): check the gate order (i, f, g, o), sigmoid for i, f, o and tanh for g, both biases, c' = f * c + i * g and h' = o * tanh(c')"
    _p = _device_problem(_cell, (_x, (_h0, _c0)), _cell)
    assert _p is None, f"with its parameters and inputs on another device than the CPU, your cell fails ({_p}): forward must not create tensors on the default device (write x.new_ones(...) or torch.ones(..., device=x.device))"


def q4_lstm_1(nb):
    nb.rule("LSTM", "LSTM", "lstm", says="the question asks for your own loop over time with self.cell, not PyTorch's torch.nn.LSTM")

    _ = torch.manual_seed(3)
    with nb.sandbox.swap("LSTMCell", _REF_LSTM_CELL):
        for _B, _T, _I, _H in [(3, 5, 4, 6), (1, 1, 2, 3), (5, 2, 3, 4), (2, 12, 3, 5)]:
            _lstm, _ref = nb.LSTM(_I, _H), torch.nn.LSTM(_I, _H, batch_first=True)
            _ = _copy(_lstm, _ref)
            _x = torch.randn(_B, _T, _I)
            with torch.no_grad():
                _rout, (_rh, _rc) = _ref(_x)
            _out, (_hT, _cT) = _lstm(_x)
            _one = ": a batch of one keeps its batch axis (no squeeze())" if _B == 1 else ""
            assert tuple(_out.shape) == (_B, _T, _H), f"(B, T, I, H) = {(_B, _T, _I, _H)}: outputs must be (B, T, H), got {tuple(_out.shape)}" + _one
            assert tuple(_hT.shape) == (_B, _H) and tuple(_cT.shape) == (_B, _H), f"(B, T, I, H) = {(_B, _T, _I, _H)}: h_T and c_T must be (B, H), got {tuple(_hT.shape)} and {tuple(_cT.shape)}" + _one
            assert torch.allclose(_out, _rout, atol=1e-5), f"(B, T, I, H) = {(_B, _T, _I, _H)}: outputs differ from torch.nn.LSTM. Are both h and c carried from step to step, starting from zeros, with time along dim 1, and do outputs hold h (not c)?"
            assert torch.allclose(_hT, _rh[0], atol=1e-5) and torch.allclose(_cT, _rc[0], atol=1e-5), f"(B, T, I, H) = {(_B, _T, _I, _H)}: (h_T, c_T) differ from torch.nn.LSTM: return the state after the last step, h first"


def q4_lstm_2(nb):

    _ = torch.manual_seed(4)
    with nb.sandbox.swap("LSTMCell", _REF_LSTM_CELL):
        _lstm, _ref = nb.LSTM(3, 4), torch.nn.LSTM(3, 4, batch_first=True)
        _ = _copy(_lstm, _ref)
        _x, _h0, _c0 = torch.randn(2, 6, 3), torch.randn(2, 4), torch.randn(2, 4)
        with torch.no_grad():
            _rout, (_rh, _rc) = _ref(_x, (_h0.unsqueeze(0), _c0.unsqueeze(0)))
        _out, (_hT, _cT) = _lstm(_x, (_h0, _c0))
        assert torch.allclose(_out, _rout, atol=1e-5) and torch.allclose(_hT, _rh[0], atol=1e-5) and torch.allclose(_cT, _rc[0], atol=1e-5), "with a given (h0, c0) the result differs from torch.nn.LSTM: start from the given state (both h0 and c0), not from zeros"
    with nb.sandbox.swap("LSTMCell", _OTHER_LSTM_CELL):
        _lstm = nb.LSTM(3, 4)
        _w = {"weight_ih": torch.randn(16, 3), "weight_hh": torch.randn(16, 4), "bias_ih": torch.randn(16), "bias_hh": torch.randn(16)}
        _ = _lstm.load_state_dict({"cell." + _n: _v for _n, _v in _w.items()}, strict=False)
        _x, _state = torch.randn(2, 5, 3), (torch.randn(2, 4), torch.randn(2, 4))
        _out, (_hT, _cT) = _lstm(_x, _state)
    _want, _cell = [], _other_cell(_OTHER_LSTM_CELL, _w)
    for _t in range(5):
        _state = _cell(_x[:, _t], _state)
        _want.append(_state[0])
    assert torch.allclose(_out, torch.stack(_want, 1), atol=1e-5) and torch.allclose(_hT, _state[0], atol=1e-5) and torch.allclose(_cT, _state[1], atol=1e-5), "with another cell in place of LSTMCell, your LSTM's results differ from running that cell at every step: the question says to unroll self.cell (state = self.cell(x[:, t], state)), not to write the cell's gates out again in LSTM.forward"


def q4_lstm_3(nb):
    _grads = nb.standin("_grads")

    _ = torch.manual_seed(14)
    with nb.sandbox.swap("LSTMCell", _REF_LSTM_CELL):
        _lstm, _ref = nb.LSTM(3, 4), torch.nn.LSTM(3, 4, batch_first=True)
        _ = _copy(_lstm, _ref)
        _x, _h0, _c0 = torch.randn(2, 6, 3), torch.randn(2, 4), torch.randn(2, 4)
        _wo, _wh, _wc = torch.randn(2, 6, 4), torch.randn(2, 4), torch.randn(2, 4)
        _res = _grads(_lstm, (_x, (_h0, _c0)), [_wo, _wh, _wc], _lstm)
    assert _res is not None, "the outputs carry no gradient at all: something cuts the graph (.detach(), .data, torch.no_grad() or .item())"
    _pg, _ag = _res
    _xr, _hr, _cr = (_t.clone().requires_grad_(True) for _t in (_x, _h0, _c0))
    _rout, (_rh, _rc) = _ref(_xr, (_hr.unsqueeze(0), _cr.unsqueeze(0)))
    ((_rout * _wo).sum() + (_rh[0] * _wh).sum() + (_rc[0] * _wc).sum()).backward()
    for _n in ("weight_ih", "weight_hh", "bias_ih", "bias_hh"):
        _g = _pg.get("cell." + _n)
        assert _g is not None, f"no gradient reached cell.{_n}: something cuts the graph (.data, .detach(), torch.no_grad() or .item())"
        assert torch.allclose(_g, getattr(_ref, _n + "_l0").grad, atol=1e-5), f"the gradient of cell.{_n} differs from torch.nn.LSTM's with the same weights: the gradient must flow back through every step (do not detach the state between steps)"
    for _name, _g, _r in (("x", _ag[0], _xr), ("h0", _ag[1], _hr), ("c0", _ag[2], _cr)):
        assert _g is not None and torch.allclose(_g, _r.grad, atol=1e-5), f"the gradient with respect to {_name} differs from torch.nn.LSTM's: the gradient must flow back through every step (do not detach the state between steps)"


def q4_lstm_4(nb):
    _device_problem = nb.standin("_device_problem")

    _ = torch.manual_seed(26)
    with nb.sandbox.swap("LSTMCell", _REF_LSTM_CELL):
        _lstm, _ref = nb.LSTM(3, 4), torch.nn.LSTM(3, 4, batch_first=True)
        _ = _lstm.load_state_dict({"cell." + _n: getattr(_ref, _n + "_l0").detach() for _n in ("weight_ih", "weight_hh", "bias_ih", "bias_hh")}, strict=False)
        _x = torch.randn(2, 5, 3)
        with torch.no_grad():
            _rout, (_rh, _rc) = _ref(_x)
        _out, (_hT, _cT) = _lstm(_x)
        assert torch.allclose(_out, _rout, atol=1e-5) and torch.allclose(_hT, _rh[0], atol=1e-5) and torch.allclose(_cT, _rc[0], atol=1e-5), "on the CPU (outputs, (h_T, c_T)) differ from torch.nn.LSTM with the same weights (this check of devices needs the right values first): carry both h and c from step to step, starting from zeros, with time along dim 1; outputs hold h"
        _p = _device_problem(_lstm, (_x,), _lstm)
    assert _p is None, f"with the layer and x on another device than the CPU and state = None, your LSTM fails ({_p}): create the zero initial states on x's device (x.new_zeros(B, H) or torch.zeros(B, H, device=x.device))"


def q5_early_grad_1(nb):
    _StandIn = nb.standin("_StandIn")

    _ = torch.manual_seed(6)
    for _kind in ("rnn", "lstm"):
        _ref = (torch.nn.LSTM if _kind == "lstm" else torch.nn.RNN)(3, 5, batch_first=True)
        _layer = _StandIn(_kind, 3, 5)
        _ = _layer.load_state_dict({"net." + _k: _v for _k, _v in _ref.state_dict().items()}, strict=False)
        for _B, _T in ((4, 1), (1, 3), (4, 8)):
            _x = torch.randn(_B, _T, 3)
            _got = nb.early_gradient_norm(_layer, _x)
            assert type(_got) is float, f"return a Python float (use .item() or float(...)), got {_got!r}"
            _want = _reference_grad(_ref, _x, 0)
            assert abs(_got - _want) <= 1e-5 * max(1.0, _want), f"{_kind.upper()}, B = {_B}, T = {_T}: got {_got:.6g}, expected {_want:.6g}. The gradient must be of h_T summed (outputs[:, -1].sum(), not all outputs) with respect to the FIRST step x[:, 0], as a norm over batch and features"


def q5_early_grad_2(nb):
    _StandIn = nb.standin("_StandIn")
    _twice = nb.standin("_twice")
    _ = torch.manual_seed(7)
    _ref = torch.nn.LSTM(3, 5, batch_first=True)
    _layer = _StandIn("lstm", 3, 5)
    _ = _layer.load_state_dict({"net." + _k: _v for _k, _v in _ref.state_dict().items()}, strict=False)
    _x = torch.randn(2, 5, 3, requires_grad=True)
    _a, _b, _xgrad = _twice(nb.early_gradient_norm, _layer, _x)
    assert _xgrad is None, "the caller's x received a gradient: work on x.detach().clone().requires_grad_(True)"
    assert abs(_a - _b) < 1e-6, f"two calls with the same input gave {_a} and {_b}: gradients accumulate between calls (use a fresh copy of x each time)"
    _xr = _x.detach().clone().requires_grad_(True)
    _want = torch.autograd.grad(_ref(_xr)[0][:, -1].sum(), _xr)[0][:, 0].norm().item()
    assert abs(_a - _want) <= 1e-5 * max(1.0, _want), f"got {_a:.6g}, expected {_want:.6g}: the norm of the gradient of h_T (summed) with respect to x[:, 0]"


def q5_early_grad_3(nb):
    _StandIn = nb.standin("_StandIn")
    _side_effects = nb.standin("_side_effects")
    _ = torch.manual_seed(20)
    _ref = torch.nn.RNN(3, 4, batch_first=True)
    _layer = _StandIn("rnn", 3, 4)
    _ = _layer.load_state_dict({"net." + _k: _v for _k, _v in _ref.state_dict().items()}, strict=False)
    _x = torch.randn(3, 6, 3)
    _found = _side_effects(nb.early_gradient_norm, (_layer, _x), _layer)
    assert not _found, f"early_gradient_norm changed what the caller gave it: {'; '.join(_found)}. Leave the caller's layer as it was (no requires_grad_(False), no train()/eval()) and x untouched"
    _got = nb.early_gradient_norm(_layer, _x)
    _xr = _x.clone().requires_grad_(True)
    _want = torch.autograd.grad(_ref(_xr)[0][:, -1].sum(), _xr)[0][:, 0].norm().item()
    assert abs(float(_got) - _want) <= 1e-5 * max(1.0, _want), f"got {float(_got):.6g}, expected {_want:.6g}: the norm of the gradient of h_T (summed) with respect to x[:, 0]"


def q6_lm_1(nb):
    _ = torch.manual_seed(8)
    with nb.sandbox.swap("LSTM", _REF_LSTM):
        for _B, _T in ((4, 6), (1, 3)):
            _emb, _rl, _lin = torch.nn.Embedding(13, 5, padding_idx=0), torch.nn.LSTM(5, 7, batch_first=True), torch.nn.Linear(7, 13)
            _sd = {"embedding.weight": _emb.weight.detach(), "out.weight": _lin.weight.detach(), "out.bias": _lin.bias.detach()}
            _sd.update({"lstm.cell." + _n: getattr(_rl, _n + "_l0").detach() for _n in ("weight_ih", "weight_hh", "bias_ih", "bias_hh")})
            _lm = nb.LSTMLanguageModel(vocab_size=13, emb_size=5, hidden_size=7)
            _ = _lm.load_state_dict(_sd, strict=False)
            _tok = torch.randint(1, 13, (_B, _T))
            with torch.no_grad():
                _ro, (_rh, _rc) = _rl(_emb(_tok))
                _want = _lin(_ro)
            _logits, (_h, _c) = _lm(_tok)
            assert tuple(_logits.shape) == (_B, _T, 13), f"(B, T) = {(_B, _T)}: logits must be (B, T, C), got {tuple(_logits.shape)}" + (": a batch of one keeps its batch axis (no squeeze())" if _B == 1 else "")
            assert not (torch.allclose(_logits.sum(-1), torch.ones(_B, _T), atol=1e-3) or torch.allclose(_logits.exp().sum(-1), torch.ones(_B, _T), atol=1e-3)), "the logits look like probabilities or log-probabilities (each row sums to 1): return raw scores, without softmax"
            assert torch.allclose(_logits, _want, atol=1e-5), "logits differ from embedding -> torch.nn.LSTM -> self.out with the same weights: use self.embedding, your self.lstm and self.out, in that order, on every step"
            assert torch.allclose(_h, _rh[0], atol=1e-5) and torch.allclose(_c, _rc[0], atol=1e-5), "the returned state differs from the LSTM's final (h_T, c_T): return the state your self.lstm returns"


def q6_lm_2(nb):
    _ = torch.manual_seed(9)
    with nb.sandbox.swap("LSTM", _REF_LSTM):
        _lm = nb.LSTMLanguageModel(vocab_size=13, emb_size=5, hidden_size=7)
        _tok = torch.randint(1, 13, (2, 8))
        _full, _ = _lm(_tok)
        _first, _state = _lm(_tok[:, :5])
        _rest, _ = _lm(_tok[:, 5:], _state)
        _fresh, _ = _lm(_tok[:, 5:])
    assert torch.allclose(_full[:, 5:], _rest, atol=1e-5), "running the first 5 tokens, then the rest from the returned state, must equal one run over all 8: pass `state` to the LSTM and return its final state"
    assert not torch.allclose(_rest, _fresh, atol=1e-4), "the logits do not depend on the state you are given: pass `state` to the LSTM, and compute the logits from its outputs"


def q6_lm_3(nb):
    _grads = nb.standin("_grads")
    _ = torch.manual_seed(15)
    _emb, _rl, _lin = torch.nn.Embedding(11, 4, padding_idx=0), torch.nn.LSTM(4, 5, batch_first=True), torch.nn.Linear(5, 11)
    _sd = {"embedding.weight": _emb.weight.detach(), "out.weight": _lin.weight.detach(), "out.bias": _lin.bias.detach()}
    _sd.update({"lstm.cell." + _n: getattr(_rl, _n + "_l0").detach() for _n in ("weight_ih", "weight_hh", "bias_ih", "bias_hh")})
    _tok = torch.tensor([[1, 4, 2, 6, 9], [3, 3, 5, 10, 0]])
    _w = torch.randn(2, 5, 11)
    with nb.sandbox.swap("LSTM", _REF_LSTM):
        _lm = nb.LSTMLanguageModel(vocab_size=11, emb_size=4, hidden_size=5)
        _ = _lm.load_state_dict(_sd, strict=False)
        _res = _grads(_lm, (_tok,), [_w], _lm)
    assert _res is not None, "the logits carry no gradient at all: something cuts the graph (.detach(), .data, torch.no_grad() or .item() in forward)"
    _pg, _ = _res
    (_lin(_rl(_emb(_tok))[0]) * _w).sum().backward()
    _want = {"embedding.weight": _emb.weight.grad, "out.weight": _lin.weight.grad, "out.bias": _lin.bias.grad}
    _want.update({"lstm.cell." + _n: getattr(_rl, _n + "_l0").grad for _n in ("weight_ih", "weight_hh", "bias_ih", "bias_hh")})
    for _n, _r in _want.items():
        assert _pg.get(_n) is not None, f"no gradient reached {_n}: something cuts the graph (.detach(), .data, torch.no_grad() or .item() in forward)"
        assert torch.allclose(_pg[_n], _r, atol=1e-5), f"the gradient of {_n} differs from embedding -> torch.nn.LSTM -> Linear with the same weights: do not detach the embeddings or the LSTM's outputs"


def q6_lm_4(nb):
    _device_problem = nb.standin("_device_problem")
    _ = torch.manual_seed(27)
    _emb, _rl, _lin = torch.nn.Embedding(13, 5, padding_idx=0), torch.nn.LSTM(5, 7, batch_first=True), torch.nn.Linear(7, 13)
    _sd = {"embedding.weight": _emb.weight.detach(), "out.weight": _lin.weight.detach(), "out.bias": _lin.bias.detach()}
    _sd.update({"lstm.cell." + _n: getattr(_rl, _n + "_l0").detach() for _n in ("weight_ih", "weight_hh", "bias_ih", "bias_hh")})
    _tok = torch.randint(1, 13, (2, 4))
    with nb.sandbox.swap("LSTM", _REF_LSTM):
        _lm = nb.LSTMLanguageModel(vocab_size=13, emb_size=5, hidden_size=7)
        _ = _lm.load_state_dict(_sd, strict=False)
        with torch.no_grad():
            _ro, (_rh, _rc) = _rl(_emb(_tok))
            _want = _lin(_ro)
        _logits, (_h, _c) = _lm(_tok)
        assert torch.allclose(_logits, _want, atol=1e-5) and torch.allclose(_h, _rh[0], atol=1e-5) and torch.allclose(_c, _rc[0], atol=1e-5), "on the CPU (logits, (h_T, c_T)) differ from embedding -> torch.nn.LSTM -> self.out with the same weights (this check of devices needs the right values first): use self.embedding, your self.lstm and self.out, in that order, on every step, return raw logits and the state your self.lstm returns"
        _p = _device_problem(_lm, (_tok,), _lm)
    assert _p is None, f"with the model and the tokens on another device than the CPU and state = None, your model fails ({_p}): create no tensor on the default device in forward (pass state = None on to your LSTM, which makes its zeros on x's device)"


def q7_lm_loss_1(nb):
    _Bigram = nb.standin("_Bigram")
    _ = torch.manual_seed(0)
    _m = _Bigram(9)
    _ids = torch.tensor([[2, 5, 6, 7, 3], [2, 8, 3, 0, 0], [2, 4, 4, 3, 0]])
    _, _n = nb.lm_loss(_m, (_ids, torch.tensor([5, 3, 4])))
    assert type(_n) is int, f"n_tokens must be a Python int (int(...) or .item()), got {_n!r}"
    assert _n == 9, f"n_tokens is {_n}, expected 9 (4 + 2 + 3 targets): count the target positions ids[:, 1:] that are not <pad> (a row of lengths[b] tokens has lengths[b] - 1 targets)"


def q7_lm_loss_2(nb):
    _Bigram = nb.standin("_Bigram")
    _ = torch.manual_seed(10)
    _table = torch.randn(12, 12)
    _m = _Bigram(12)
    _ = _m.load_state_dict({"table.weight": _table}, strict=False)
    for _ids in (torch.tensor([[2, 5, 6, 7, 3], [2, 8, 3, 0, 0]]),
                 torch.tensor([[2, 4, 9, 10, 11, 6, 3], [2, 5, 3, 0, 0, 0, 0], [2, 7, 8, 3, 0, 0, 0]]),
                 torch.tensor([[2, 9, 5, 3]])):
        _got, _ = nb.lm_loss(_m, (_ids, (_ids != 0).sum(1)))
        _got = _got.detach() if isinstance(_got, torch.Tensor) else _got
        _want = nb.here("_reference_lm_loss")(_table, _ids)
        assert abs(float(_got) - float(_want)) < 1e-5, f"(B, T) = {tuple(_ids.shape)}: loss {float(_got):.5f}, expected {float(_want):.5f}: feed ids[:, :-1] and predict ids[:, 1:] (not the same positions, not shifted the other way), average over all real target tokens of the batch (not per sentence, not a sum), and ignore <pad> targets"


def q7_lm_loss_3(nb):
    _Bigram = nb.standin("_Bigram")
    _ = torch.manual_seed(21)
    _table = torch.randn(10, 10)
    _m = _Bigram(10)
    _ = _m.load_state_dict({"table.weight": _table}, strict=False)
    _ids = torch.tensor([[2, 0, 5, 7, 3], [2, 8, 3, 1, 1], [2, 0, 0, 3, 1]])   # here <pad> is 1, and 0 is a word
    _res = nb.lm_loss(_m, (_ids, (_ids != 1).sum(1)), pad_id=1)
    _got, _n = _res
    _got = _got.detach() if isinstance(_got, torch.Tensor) else _got
    _want = nb.here("_reference_lm_loss")(_table, _ids, pad_id=1)
    assert abs(float(_got) - float(_want)) < 1e-5, f"with pad_id=1 the loss is {float(_got):.5f}, expected {float(_want):.5f}: ignore the targets equal to the pad_id argument (ignore_index=pad_id), not a fixed 0 or PAD_ID"
    assert _n == 9, f"with pad_id=1, n_tokens is {_n}, expected 9: count the targets that differ from the pad_id argument, not from a fixed 0 or PAD_ID"


def q7_lm_loss_4(nb):
    _grads = nb.standin("_grads")
    _Bigram = nb.standin("_Bigram")
    _ = torch.manual_seed(16)
    _table = torch.randn(10, 10)
    _m = _Bigram(10)
    _ = _m.load_state_dict({"table.weight": _table}, strict=False)
    _ids = torch.tensor([[2, 4, 9, 5, 3], [2, 5, 3, 0, 0], [2, 7, 8, 6, 3]])
    _res = _grads(nb.lm_loss, (_m, (_ids, (_ids != 0).sum(1))), [torch.tensor(1.0)], _m)
    assert _res is not None, "the loss carries no gradient: compute it from the model's logits without .detach(), .item() or torch.no_grad()"
    _pg, _ = _res
    _tr = _table.clone().requires_grad_(True)
    nb.here("_reference_lm_loss")(_tr, _ids).backward()
    assert _pg.get("table.weight") is not None, "no gradient reached the model's parameters: the loss must be computed from the model's logits without .detach(), .item() or torch.no_grad()"
    assert torch.allclose(_pg["table.weight"], _tr.grad.float(), atol=1e-5), "the gradient of the loss differs from the reference mean cross-entropy over non-pad targets: average over real target tokens only (ignore_index), and keep the loss connected to the logits"


def q7_lm_loss_5(nb):
    _Bigram = nb.standin("_Bigram")
    _ = torch.manual_seed(22)
    _table = 200 * torch.randn(9, 9)   # large logits: a confident model
    _m = _Bigram(9)
    _ = _m.load_state_dict({"table.weight": _table}, strict=False)
    _ids = torch.tensor([[2, 5, 6, 7, 3], [2, 8, 3, 0, 0]])
    _got, _ = nb.lm_loss(_m, (_ids, (_ids != 0).sum(1)))
    _got = _got.detach() if isinstance(_got, torch.Tensor) else _got
    _want = float(nb.here("_reference_lm_loss")(_table, _ids))
    assert math.isfinite(float(_got)), f"with large logits (|logit| ~ 200) the loss is {float(_got)}: log(softmax(...)) underflows to log(0); use F.cross_entropy or torch.log_softmax, which are computed stably"
    assert abs(float(_got) - _want) <= 1e-4 * abs(_want) + 1e-4, f"with large logits (|logit| ~ 200) the loss is {float(_got):.6g}, expected {_want:.6g}: use F.cross_entropy or torch.log_softmax (stable), not log(softmax(...))"
