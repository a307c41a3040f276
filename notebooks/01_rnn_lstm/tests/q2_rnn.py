OK_FORMAT = True

test = {   'name': 'q2_rnn',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': '>>> _ = torch.manual_seed(0)\n'
                                               '>>> _rnn = RNN(4, 6)\n'
                                               '>>> _res = _rnn(torch.randn(3, 5, 4))\n'
                                               ">>> assert isinstance(_res, tuple) and len(_res) == 2, 'forward must return a pair (outputs, h_T)'\n"
                                               '>>> _out, _hT = _res\n'
                                               ">>> assert tuple(_out.shape) == (3, 5, 6), f'outputs must be (B, T, H) = (3, 5, 6), got {tuple(_out.shape)}: stack the states along dim=1 (time), not "
                                               "dim=0'\n"
                                               ">>> assert tuple(_hT.shape) == (3, 6), f'h_T must be (B, H) = (3, 6), got {tuple(_hT.shape)}'\n"
                                               ">>> assert torch.allclose(_out[:, -1], _hT), 'h_T must equal the last step of outputs'\n"
                                               '>>> _ = torch.manual_seed(0)\n'
                                               '>>> _ref = torch.nn.RNN(2, 3, batch_first=True)\n'
                                               '>>> _rnn = RNN(2, 3)\n'
                                               ">>> _ = _rnn.load_state_dict({'cell.' + _n: getattr(_ref, _n + '_l0').detach() for _n in ('weight_ih', 'weight_hh', 'bias_ih', 'bias_hh')}, "
                                               'strict=False)\n'
                                               '>>> _x = torch.tensor([[[1.0, -1.0], [0.5, 0.0], [0.0, 2.0]], [[-0.5, 0.5], [1.0, 1.0], [0.0, -1.0]]])\n'
                                               '>>> with torch.no_grad():\n'
                                               '...     _rout, _rh = _ref(_x)\n'
                                               '>>> _out, _hT = _rnn(_x)\n'
                                               ">>> assert torch.allclose(_out, _rout, atol=1e-05), 'on a small fixed example (B = 2, T = 3, I = 2, H = 3) the outputs differ from torch.nn.RNN with "
                                               "the same weights: carry the hidden state from step to step (h = self.cell(x[:, t], h)), starting from zeros, with time along dim 1'\n"
                                               ">>> assert torch.allclose(_hT, _rh[0], atol=1e-05), 'on a small fixed example h_T differs from torch.nn.RNN: return the state after the last step'\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
