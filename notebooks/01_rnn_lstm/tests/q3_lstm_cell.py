OK_FORMAT = True

test = {   'name': 'q3_lstm_cell',
    'points': 3,
    'suites': [   {   'cases': [   {   'code': '>>> _ = torch.manual_seed(0)\n'
                                               '>>> _cell = LSTMCell(5, 7)\n'
                                               '>>> _res = _cell(torch.randn(3, 5), (torch.randn(3, 7), torch.randn(3, 7)))\n'
                                               '>>> assert isinstance(_res, tuple) and len(_res) == 2, "forward must return a pair (h\', c\'): did you fill in the TODO?"\n'
                                               '>>> _h, _c = _res\n'
                                               '>>> assert tuple(_h.shape) == (3, 7) and tuple(_c.shape) == (3, 7), f"h\' and c\' must both be (B, H) = (3, 7), got {tuple(_h.shape)} and '
                                               '{tuple(_c.shape)}: chunk the (B, 4H) gates along dim=1"\n'
                                               '>>> assert bool((_h.abs() < 1).all()), "h\' must lie in (-1, 1): h\' = o * tanh(c\'), with o a sigmoid"\n',
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
