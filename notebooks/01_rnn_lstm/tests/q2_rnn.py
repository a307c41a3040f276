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
                                               ">>> assert torch.allclose(_out[:, -1], _hT), 'h_T must equal the last step of outputs'\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
