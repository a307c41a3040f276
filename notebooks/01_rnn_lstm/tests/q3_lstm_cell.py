OK_FORMAT = True

test = {   'name': 'q3_lstm_cell',
    'points': 3,
    'suites': [   {   'cases': [   {   'code': '>>> _ = torch.manual_seed(0)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _cell, _ref = (LSTMCell(5, 7), torch.nn.LSTMCell(5, 7))  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _ = _cell.load_state_dict(_ref.state_dict(), strict=False)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _x, _h0, _c0 = (torch.randn(3, 5), torch.randn(3, 7), torch.randn(3, 7))  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _res = _cell(_x, (_h0, _c0))  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> assert isinstance(_res, tuple) and len(_res) == 2, "forward must return a pair (h\', c\'): did you fill in the TODO?"  # doctest: '
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _h, _c = _res  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> assert tuple(_h.shape) == (3, 7) and tuple(_c.shape) == (3, 7), f"h\' and c\' must both be (B, H) = (3, 7), got {tuple(_h.shape)} and '
                                               '{tuple(_c.shape)}: chunk the (B, 4H) gates along dim=1"  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> assert bool((_h.abs() < 1).all()), "h\' must lie in (-1, 1): h\' = o * tanh(c\'), with o a sigmoid"  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> with torch.no_grad():\n'
                                               '...     _rh, _rc = _ref(_x, (_h0, _c0))  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> assert torch.allclose(_c, _rc, atol=1e-05), "(B, I, H) = (3, 5, 7): the shapes are right but c\' differs from torch.nn.LSTMCell with the same '
                                               'weights: check the gate order (i, f, g, o), sigmoid for i, f, o and tanh for g, both biases, and c\' = f * c + i * g"  # doctest: '
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> assert torch.allclose(_h, _rh, atol=1e-05), "(B, I, H) = (3, 5, 7): c\' is right but h\' differs from torch.nn.LSTMCell with the same weights: h\' '
                                               '= o * tanh(c\'), with the new cell state"  # doctest: +REPORT_ONLY_FIRST_FAILURE\n',
                                       'hidden': False,
                                       'locked': False},
                                   {   'code': '>>> _ = torch.manual_seed(0)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _ref = torch.nn.LSTMCell(3, 2)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _cell = LSTMCell(3, 2)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _ = _cell.load_state_dict(_ref.state_dict(), strict=False)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _x = torch.tensor([[1.0, 0.5, -1.0], [0.0, -0.5, 2.0]])  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _h0, _c0 = (torch.tensor([[0.2, -0.4], [0.5, 0.1]]), torch.tensor([[1.0, -2.0], [0.0, 0.5]]))  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> with torch.no_grad():\n'
                                               '...     _rh, _rc = _ref(_x, (_h0, _c0))  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _h, _c = _cell(_x, (_h0, _c0))  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> assert torch.allclose(_c, _rc, atol=1e-05), "on a small fixed example (B = 2, I = 3, H = 2) c\' differs from torch.nn.LSTMCell with the same '
                                               'weights: check the gate order (i, f, g, o), sigmoid for i, f, o and tanh for g, both biases, and c\' = f * c + i * g"  # doctest: '
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> assert torch.allclose(_h, _rh, atol=1e-05), "on a small fixed example c\' is right but h\' differs from torch.nn.LSTMCell: h\' = o * tanh(c\'), '
                                               'with the new cell state"  # doctest: +REPORT_ONLY_FIRST_FAILURE\n',
                                       'hidden': False,
                                       'locked': False},
                                   {   'code': '>>> from seqcourse.testing import define  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> _grads = define('_grads', 'from seqcourse.testing import grads as _grads')  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> _ = torch.manual_seed(0)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _ref = torch.nn.LSTMCell(3, 2)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _cell = LSTMCell(3, 2)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _ = _cell.load_state_dict(_ref.state_dict(), strict=False)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _x = torch.tensor([[1.0, 0.5, -1.0], [0.0, -0.5, 2.0]])  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _h0, _c0 = (torch.tensor([[0.2, -0.4], [0.5, 0.1]]), torch.tensor([[1.0, -2.0], [0.0, 0.5]]))  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _xr, _hr, _cr = (_t.clone().requires_grad_(True) for _t in (_x, _h0, _c0))  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _rh, _rc = _ref(_xr, (_hr, _cr))  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> (_rh.sum() + _rc.sum()).backward()  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _h, _c = _cell(_x, (_h0, _c0))  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> assert torch.allclose(_h, _rh.detach(), atol=1e-05) and torch.allclose(_c, _rc.detach(), atol=1e-05), "your cell\'s values differ from '
                                               'torch.nn.LSTMCell\'s (see the check above): fix them first"  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _res = _grads(_cell, (_x, (_h0, _c0)), [torch.ones(2, 2), torch.ones(2, 2)], _cell)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> assert _res is not None, "(h\', c\') carry no gradient at all: something cuts the graph (.detach(), .data, torch.no_grad() or .item() in '
                                               'forward)"  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _pg, _ag = _res  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _bad = [_n for _n, _p in _ref.named_parameters() if _pg.get(_n) is None or not torch.allclose(_pg[_n], _p.grad, atol=1e-05)]  # doctest: '
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> _bad += [_n for _n, _g, _r in (('x', _ag[0], _xr), ('h', _ag[1], _hr), ('c', _ag[2], _cr)) if _g is None or not torch.allclose(_g, _r.grad, "
                                               'atol=1e-05)]  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> assert not _bad, f"on the small fixed example the gradients with respect to {_bad} are missing or differ from torch.nn.LSTMCell\'s: use the '
                                               'parameters and inputs themselves in forward (no .data, .detach(), torch.no_grad() or .item())"  # doctest: +REPORT_ONLY_FIRST_FAILURE\n',
                                       'hidden': False,
                                       'locked': False},
                                   {   'code': '>>> from seqcourse.testing import define  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> _device_problem = define('_device_problem', 'from seqcourse.testing import device_problem as _device_problem')  # doctest: "
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _ = torch.manual_seed(0)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _cell, _ref = (LSTMCell(3, 4), torch.nn.LSTMCell(3, 4))  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _ = _cell.load_state_dict(_ref.state_dict(), strict=False)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _x, _h0, _c0 = (torch.randn(2, 3), torch.randn(2, 4), torch.randn(2, 4))  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> with torch.no_grad():\n'
                                               '...     _rh, _rc = _ref(_x, (_h0, _c0))  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _h, _c = _cell(_x, (_h0, _c0))  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> assert torch.allclose(_h, _rh, atol=1e-05) and torch.allclose(_c, _rc, atol=1e-05), "on the CPU your cell\'s (h\', c\') differ from '
                                               'torch.nn.LSTMCell with the same weights (this check of devices needs the right values first): check the gate order (i, f, g, o), sigmoid for i, f, o '
                                               'and tanh for g, both biases, c\' = f * c + i * g and h\' = o * tanh(c\')"  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _p = _device_problem(_cell, (_x, (_h0, _c0)), _cell)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert _p is None, f'with its parameters and inputs on another device than the CPU, your cell fails ({_p}): forward must not create tensors on the "
                                               "default device (write x.new_ones(...) or torch.ones(..., device=x.device))'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
