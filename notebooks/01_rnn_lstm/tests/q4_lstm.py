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
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
