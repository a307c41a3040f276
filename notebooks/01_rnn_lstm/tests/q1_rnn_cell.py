OK_FORMAT = True

test = {   'name': 'q1_rnn_cell',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': '>>> _ = torch.manual_seed(0)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _cell, _ref = (RNNCell(5, 7), torch.nn.RNNCell(5, 7))  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _ = _cell.load_state_dict(_ref.state_dict(), strict=False)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _x, _h0 = (torch.randn(3, 5), torch.randn(3, 7))  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _h = _cell(_x, _h0)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert isinstance(_h, torch.Tensor), 'forward must return a tensor: did you fill in the TODO?'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               ">>> assert tuple(_h.shape) == (3, 7), f'expected shape (B, H) = (3, 7), got {tuple(_h.shape)}: multiply x by weight_ih.T (I -> H), h by weight_hh.T'  "
                                               '# doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert _h.dtype == torch.float32, f'expected float32, got {_h.dtype}'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               ">>> assert bool((_h.abs() < 1).all()), 'hidden states must lie in (-1, 1): apply torch.tanh to the sum'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> with torch.no_grad():\n'
                                               '...     _want = _ref(_x, _h0)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert torch.allclose(_h, _want, atol=1e-05), '(B, I, H) = (3, 5, 7): the shape is right but the values differ from torch.nn.RNNCell with the same "
                                               "weights: check tanh (not sigmoid or ReLU), both biases, and that weights are transposed (x @ weight_ih.T, h @ weight_hh.T)'  # doctest: "
                                               '+REPORT_ONLY_FIRST_FAILURE\n',
                                       'hidden': False,
                                       'locked': False},
                                   {   'code': '>>> _ = torch.manual_seed(0)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _ref = torch.nn.RNNCell(3, 2)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _cell = RNNCell(3, 2)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _ = _cell.load_state_dict(_ref.state_dict(), strict=False)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _x = torch.tensor([[1.0, 0.5, -1.0], [0.0, -0.5, 2.0]])  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _h0 = torch.tensor([[0.2, -0.4], [0.5, 0.1]])  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> with torch.no_grad():\n'
                                               '...     _want = _ref(_x, _h0)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _got = _cell(_x, _h0)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert torch.allclose(_got, _want, atol=1e-05), 'on a small fixed example (B = 2, I = 3, H = 2) your cell differs from torch.nn.RNNCell with the "
                                               "same weights: check tanh, both biases, and that weights are transposed (x @ weight_ih.T, h @ weight_hh.T)'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n",
                                       'hidden': False,
                                       'locked': False},
                                   {   'code': '>>> from seqcourse.testing import define  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> _grads = define('_grads', 'from seqcourse.testing import grads as _grads')  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> _ = torch.manual_seed(0)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _ref = torch.nn.RNNCell(3, 2)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _cell = RNNCell(3, 2)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _ = _cell.load_state_dict(_ref.state_dict(), strict=False)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _x = torch.tensor([[1.0, 0.5, -1.0], [0.0, -0.5, 2.0]])  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _h0 = torch.tensor([[0.2, -0.4], [0.5, 0.1]])  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _xr, _hr = (_x.clone().requires_grad_(True), _h0.clone().requires_grad_(True))  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _want = _ref(_xr, _hr)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _want.sum().backward()  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> assert torch.allclose(_cell(_x, _h0), _want.detach(), atol=1e-05), "your cell\'s values differ from torch.nn.RNNCell\'s (see the check above): fix '
                                               'them first"  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _res = _grads(_cell, (_x, _h0), [torch.ones(2, 2)], _cell)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert _res is not None, 'the output carries no gradient at all: something cuts the graph (.detach(), .data, torch.no_grad() or .item() in "
                                               "forward)'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> _pg, _ag = _res  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _bad = [_n for _n, _p in _ref.named_parameters() if _pg.get(_n) is None or not torch.allclose(_pg[_n], _p.grad, atol=1e-05)]  # doctest: '
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> _bad += [_n for _n, _g, _r in (('x', _ag[0], _xr), ('h', _ag[1], _hr)) if _g is None or not torch.allclose(_g, _r.grad, atol=1e-05)]  # doctest: "
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> assert not _bad, f"on the small fixed example the gradients with respect to {_bad} are missing or differ from torch.nn.RNNCell\'s: use the '
                                               'parameters and inputs themselves in forward (no .data, .detach(), torch.no_grad() or .item())"  # doctest: +REPORT_ONLY_FIRST_FAILURE\n',
                                       'hidden': False,
                                       'locked': False},
                                   {   'code': '>>> from seqcourse.testing import define  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> _device_problem = define('_device_problem', 'from seqcourse.testing import device_problem as _device_problem')  # doctest: "
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _ = torch.manual_seed(0)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _cell, _ref = (RNNCell(3, 4), torch.nn.RNNCell(3, 4))  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _ = _cell.load_state_dict(_ref.state_dict(), strict=False)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _x, _h0 = (torch.randn(2, 3), torch.randn(2, 4))  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> with torch.no_grad():\n'
                                               '...     _want = _ref(_x, _h0)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert torch.allclose(_cell(_x, _h0), _want, atol=1e-05), 'on the CPU your cell differs from torch.nn.RNNCell with the same weights (this check of "
                                               "devices needs the right values first): check tanh, both biases, and that weights are transposed (x @ weight_ih.T, h @ weight_hh.T)'  # doctest: "
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _p = _device_problem(_cell, (_x, _h0), _cell)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert _p is None, f'with its parameters and inputs on another device than the CPU, your cell fails ({_p}): forward must not create tensors on the "
                                               "default device (write x.new_ones(...) or torch.ones(..., device=x.device))'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
