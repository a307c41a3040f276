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
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
