OK_FORMAT = True

test = {   'name': 'q4_lstm',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': '>>> _ = torch.manual_seed(0)\n'
                                               '>>> _lstm = LSTM(4, 6)\n'
                                               '>>> _res = _lstm(torch.randn(3, 5, 4))\n'
                                               ">>> assert isinstance(_res, tuple) and len(_res) == 2, 'forward must return (outputs, (h_T, c_T))'\n"
                                               '>>> _out, (_hT, _cT) = _res\n'
                                               ">>> assert tuple(_out.shape) == (3, 5, 6), f'outputs must be (B, T, H) = (3, 5, 6), got {tuple(_out.shape)}: stack along dim=1'\n"
                                               ">>> assert tuple(_hT.shape) == (3, 6) and tuple(_cT.shape) == (3, 6), 'h_T and c_T must be (B, H)'\n"
                                               ">>> assert torch.allclose(_out[:, -1], _hT), 'h_T must equal the last step of outputs (outputs hold h, not c)'\n",
                                       'hidden': False,
                                       'locked': False},
                                   {   'code': '>>> _ = torch.manual_seed(0)\n'
                                               '>>> _ref = torch.nn.LSTM(2, 3, batch_first=True)\n'
                                               '>>> _lstm = LSTM(2, 3)\n'
                                               ">>> _ = _lstm.load_state_dict({'cell.' + _n: getattr(_ref, _n + '_l0').detach() for _n in ('weight_ih', 'weight_hh', 'bias_ih', 'bias_hh')}, "
                                               'strict=False)\n'
                                               '>>> _x = torch.tensor([[[1.0, -1.0], [0.5, 0.0], [0.0, 2.0]], [[-0.5, 0.5], [1.0, 1.0], [0.0, -1.0]]])\n'
                                               '>>> with torch.no_grad():\n'
                                               '...     _rout, (_rh, _rc) = _ref(_x)\n'
                                               '>>> _out, (_hT, _cT) = _lstm(_x)\n'
                                               ">>> assert torch.allclose(_out, _rout, atol=1e-05), 'on a small fixed example (B = 2, T = 3, I = 2, H = 3) the outputs differ from torch.nn.LSTM with "
                                               "the same weights: carry both h and c from step to step, starting from zeros, with time along dim 1; outputs hold h'\n"
                                               ">>> assert torch.allclose(_hT, _rh[0], atol=1e-05) and torch.allclose(_cT, _rc[0], atol=1e-05), 'on a small fixed example (h_T, c_T) differ from "
                                               "torch.nn.LSTM: return the state after the last step, h first'\n",
                                       'hidden': False,
                                       'locked': False},
                                   {   'code': '>>> from seqcourse.testing import define\n'
                                               ">>> _grads = define('_grads', 'from seqcourse.testing import grads as _grads')\n"
                                               '>>> _ = torch.manual_seed(0)\n'
                                               '>>> _ref = torch.nn.LSTM(2, 3, batch_first=True)\n'
                                               '>>> _lstm = LSTM(2, 3)\n'
                                               ">>> _ = _lstm.load_state_dict({'cell.' + _n: getattr(_ref, _n + '_l0').detach() for _n in ('weight_ih', 'weight_hh', 'bias_ih', 'bias_hh')}, "
                                               'strict=False)\n'
                                               '>>> _x = torch.tensor([[[1.0, -1.0], [0.5, 0.0], [0.0, 2.0]], [[-0.5, 0.5], [1.0, 1.0], [0.0, -1.0]]])\n'
                                               '>>> _h0, _c0 = (torch.tensor([[0.5, -0.5, 1.0], [0.0, 0.2, -0.3]]), torch.tensor([[1.0, 0.0, -1.0], [2.0, -0.5, 0.5]]))\n'
                                               '>>> _xr, _hr, _cr = (_t.clone().requires_grad_(True) for _t in (_x, _h0, _c0))\n'
                                               '>>> _rout, (_rh, _rc) = _ref(_xr, (_hr.unsqueeze(0), _cr.unsqueeze(0)))\n'
                                               '>>> (_rout.sum() + _rh.sum() + _rc.sum()).backward()\n'
                                               '>>> _out, (_hT, _cT) = _lstm(_x, (_h0, _c0))\n'
                                               '>>> assert torch.allclose(_out, _rout.detach(), atol=1e-05) and torch.allclose(_hT, _rh[0].detach(), atol=1e-05) and torch.allclose(_cT, '
                                               '_rc[0].detach(), atol=1e-05), "on the small fixed example with a given (h0, c0) the result differs from torch.nn.LSTM\'s: start from the given state '
                                               '(both h0 and c0)"\n'
                                               '>>> _res = _grads(_lstm, (_x, (_h0, _c0)), [torch.ones(2, 3, 3), torch.ones(2, 3), torch.ones(2, 3)], _lstm)\n'
                                               ">>> assert _res is not None, 'the outputs carry no gradient at all: something cuts the graph (.detach(), .data, torch.no_grad() or .item())'\n"
                                               '>>> _pg, _ag = _res\n'
                                               ">>> _bad = ['cell.' + _n for _n in ('weight_ih', 'weight_hh', 'bias_ih', 'bias_hh') if _pg.get('cell.' + _n) is None or not torch.allclose(_pg['cell.' "
                                               "+ _n], getattr(_ref, _n + '_l0').grad, atol=1e-05)]\n"
                                               ">>> _bad += [_n for _n, _g, _r in (('x', _ag[0], _xr), ('h0', _ag[1], _hr), ('c0', _ag[2], _cr)) if _g is None or not torch.allclose(_g, _r.grad, "
                                               'atol=1e-05)]\n'
                                               '>>> assert not _bad, f"on the small fixed example the gradients with respect to {_bad} are missing or differ from torch.nn.LSTM\'s: the gradient must '
                                               'flow back through every step (do not detach the state between steps, no torch.no_grad())"\n',
                                       'hidden': False,
                                       'locked': False},
                                   {   'code': '>>> from seqcourse.testing import define\n'
                                               ">>> _device_problem = define('_device_problem', 'from seqcourse.testing import device_problem as _device_problem')\n"
                                               '>>> _lstm = LSTM(3, 4)\n'
                                               '>>> _p = _device_problem(_lstm, (torch.randn(2, 5, 3),), _lstm)\n'
                                               '>>> assert _p is None, f"with the layer and x on another device than the CPU and state = None, your LSTM fails ({_p}): create the zero initial states '
                                               'on x\'s device (x.new_zeros(B, H) or torch.zeros(B, H, device=x.device))"\n',
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
