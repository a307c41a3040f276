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
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
