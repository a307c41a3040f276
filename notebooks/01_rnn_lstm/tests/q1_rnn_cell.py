OK_FORMAT = True

test = {   'name': 'q1_rnn_cell',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': '>>> _ = torch.manual_seed(0)\n'
                                               '>>> _cell = RNNCell(5, 7)\n'
                                               '>>> _h = _cell(torch.randn(3, 5), torch.randn(3, 7))\n'
                                               ">>> assert isinstance(_h, torch.Tensor), 'forward must return a tensor: did you fill in the TODO?'\n"
                                               ">>> assert tuple(_h.shape) == (3, 7), f'expected shape (B, H) = (3, 7), got {tuple(_h.shape)}: multiply x by weight_ih.T (I -> H), h by weight_hh.T'\n"
                                               ">>> assert _h.dtype == torch.float32, f'expected float32, got {_h.dtype}'\n"
                                               ">>> assert bool((_h.abs() < 1).all()), 'hidden states must lie in (-1, 1): apply torch.tanh to the sum'\n",
                                       'hidden': False,
                                       'locked': False},
                                   {   'code': '>>> _ = torch.manual_seed(0)\n'
                                               '>>> _ref = torch.nn.RNNCell(3, 2)\n'
                                               '>>> _cell = RNNCell(3, 2)\n'
                                               '>>> _ = _cell.load_state_dict(_ref.state_dict(), strict=False)\n'
                                               '>>> _x = torch.tensor([[1.0, 0.5, -1.0], [0.0, -0.5, 2.0]])\n'
                                               '>>> _h0 = torch.tensor([[0.2, -0.4], [0.5, 0.1]])\n'
                                               '>>> with torch.no_grad():\n'
                                               '...     _want = _ref(_x, _h0)\n'
                                               '>>> _got = _cell(_x, _h0)\n'
                                               ">>> assert torch.allclose(_got, _want, atol=1e-05), 'on a small fixed example (B = 2, I = 3, H = 2) your cell differs from torch.nn.RNNCell with the "
                                               "same weights: check tanh, both biases, and that weights are transposed (x @ weight_ih.T, h @ weight_hh.T)'\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
