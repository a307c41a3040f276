OK_FORMAT = True

test = {   'name': 'q2_rnn',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': '>>> _ = torch.manual_seed(0)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _rnn, _ref = (RNN(4, 6), torch.nn.RNN(4, 6, batch_first=True))  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> _ = _rnn.load_state_dict({'cell.' + _n: getattr(_ref, _n + '_l0').detach() for _n in ('weight_ih', 'weight_hh', 'bias_ih', 'bias_hh')}, "
                                               'strict=False)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _x = torch.randn(3, 5, 4)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _res = _rnn(_x)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert isinstance(_res, tuple) and len(_res) == 2, 'forward must return a pair (outputs, h_T)'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> _out, _hT = _res  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert tuple(_out.shape) == (3, 5, 6), f'outputs must be (B, T, H) = (3, 5, 6), got {tuple(_out.shape)}: stack the states along dim=1 (time), not "
                                               "dim=0'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               ">>> assert tuple(_hT.shape) == (3, 6), f'h_T must be (B, H) = (3, 6), got {tuple(_hT.shape)}'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               ">>> assert torch.allclose(_out[:, -1], _hT), 'h_T must equal the last step of outputs'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> with torch.no_grad():\n'
                                               '...     _rout, _rh = _ref(_x)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert torch.allclose(_out, _rout, atol=1e-05) and torch.allclose(_hT, _rh[0], atol=1e-05), '(B, T, I, H) = (3, 5, 4, 6): the shapes are right but "
                                               '(outputs, h_T) differ from torch.nn.RNN with the same weights: carry the hidden state from step to step (h = self.cell(x[:, t], h)), starting from '
                                               "zeros, with time along dim 1 (and your RNNCell must be right: question 1)'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n",
                                       'hidden': False,
                                       'locked': False},
                                   {   'code': '>>> _ = torch.manual_seed(0)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _ref = torch.nn.RNN(2, 3, batch_first=True)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _rnn = RNN(2, 3)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> _ = _rnn.load_state_dict({'cell.' + _n: getattr(_ref, _n + '_l0').detach() for _n in ('weight_ih', 'weight_hh', 'bias_ih', 'bias_hh')}, "
                                               'strict=False)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _x = torch.tensor([[[1.0, -1.0], [0.5, 0.0], [0.0, 2.0]], [[-0.5, 0.5], [1.0, 1.0], [0.0, -1.0]]])  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> with torch.no_grad():\n'
                                               '...     _rout, _rh = _ref(_x)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _out, _hT = _rnn(_x)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert torch.allclose(_out, _rout, atol=1e-05), 'on a small fixed example (B = 2, T = 3, I = 2, H = 3) the outputs differ from torch.nn.RNN with "
                                               "the same weights: carry the hidden state from step to step (h = self.cell(x[:, t], h)), starting from zeros, with time along dim 1'  # doctest: "
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert torch.allclose(_hT, _rh[0], atol=1e-05), 'on a small fixed example h_T differs from torch.nn.RNN: return the state after the last step'  # "
                                               'doctest: +REPORT_ONLY_FIRST_FAILURE\n',
                                       'hidden': False,
                                       'locked': False},
                                   {   'code': '>>> from seqcourse.testing import define  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> _grads = define('_grads', 'from seqcourse.testing import grads as _grads')  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> _ = torch.manual_seed(0)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _ref = torch.nn.RNN(2, 3, batch_first=True)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _rnn = RNN(2, 3)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> _ = _rnn.load_state_dict({'cell.' + _n: getattr(_ref, _n + '_l0').detach() for _n in ('weight_ih', 'weight_hh', 'bias_ih', 'bias_hh')}, "
                                               'strict=False)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _x = torch.tensor([[[1.0, -1.0], [0.5, 0.0], [0.0, 2.0]], [[-0.5, 0.5], [1.0, 1.0], [0.0, -1.0]]])  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _h0 = torch.tensor([[0.5, -0.5, 1.0], [0.0, 0.2, -0.3]])  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _xr, _hr = (_x.clone().requires_grad_(True), _h0.clone().requires_grad_(True))  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _rout, _rh = _ref(_xr, _hr.unsqueeze(0))  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> (_rout.sum() + _rh.sum()).backward()  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _out, _hT = _rnn(_x, _h0)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> assert torch.allclose(_out, _rout.detach(), atol=1e-05) and torch.allclose(_hT, _rh[0].detach(), atol=1e-05), "on the small fixed example with a '
                                               'given h0, (outputs, h_T) differ from torch.nn.RNN\'s: start the recurrence from h0 when it is given"  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _res = _grads(_rnn, (_x, _h0), [torch.ones(2, 3, 3), torch.ones(2, 3)], _rnn)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert _res is not None, 'the outputs carry no gradient at all: something cuts the graph (.detach(), .data, torch.no_grad() or .item())'  # "
                                               'doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _pg, _ag = _res  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> _bad = ['cell.' + _n for _n in ('weight_ih', 'weight_hh', 'bias_ih', 'bias_hh') if _pg.get('cell.' + _n) is None or not torch.allclose(_pg['cell.' "
                                               "+ _n], getattr(_ref, _n + '_l0').grad, atol=1e-05)]  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               ">>> _bad += [_n for _n, _g, _r in (('x', _ag[0], _xr), ('h0', _ag[1], _hr)) if _g is None or not torch.allclose(_g, _r.grad, atol=1e-05)]  # doctest: "
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> assert not _bad, f"on the small fixed example the gradients with respect to {_bad} are missing or differ from torch.nn.RNN\'s: the gradient must '
                                               'flow back through every step (do not detach the hidden state, no torch.no_grad())"  # doctest: +REPORT_ONLY_FIRST_FAILURE\n',
                                       'hidden': False,
                                       'locked': False},
                                   {   'code': '>>> from seqcourse.testing import define  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> _device_problem = define('_device_problem', 'from seqcourse.testing import device_problem as _device_problem')  # doctest: "
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _ = torch.manual_seed(0)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _rnn, _ref = (RNN(3, 4), torch.nn.RNN(3, 4, batch_first=True))  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> _ = _rnn.load_state_dict({'cell.' + _n: getattr(_ref, _n + '_l0').detach() for _n in ('weight_ih', 'weight_hh', 'bias_ih', 'bias_hh')}, "
                                               'strict=False)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _x = torch.randn(2, 5, 3)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> with torch.no_grad():\n'
                                               '...     _rout, _rh = _ref(_x)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _out, _hT = _rnn(_x)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert torch.allclose(_out, _rout, atol=1e-05) and torch.allclose(_hT, _rh[0], atol=1e-05), 'on the CPU (outputs, h_T) differ from torch.nn.RNN "
                                               'with the same weights (this check of devices needs the right values first): carry the hidden state from step to step, starting from zeros, with time '
                                               "along dim 1 (and your RNNCell must be right: question 1)'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> _p = _device_problem(_rnn, (_x,), _rnn)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> assert _p is None, f"with the layer and x on another device than the CPU and h0 = None, your RNN fails ({_p}): create the zero initial state on '
                                               'x\'s device (x.new_zeros(B, H) or torch.zeros(B, H, device=x.device))"  # doctest: +REPORT_ONLY_FIRST_FAILURE\n',
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
