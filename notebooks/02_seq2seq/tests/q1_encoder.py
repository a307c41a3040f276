OK_FORMAT = True

test = {   'name': 'q1_encoder',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': '>>> _ = torch.manual_seed(0)\n'
                                               '>>> _enc = Encoder(vocab_size=10, emb_size=4, hidden_size=6, num_layers=2)\n'
                                               '>>> _src = torch.tensor([[2, 5, 6, 3, 0], [2, 7, 3, 0, 0], [2, 4, 8, 9, 3]])\n'
                                               '>>> _res = _enc(_src, torch.tensor([4, 3, 5]))\n'
                                               ">>> assert isinstance(_res, tuple) and len(_res) == 2, 'forward must return (outputs, (h, c)): did you fill in the TODO?'\n"
                                               '>>> _out, (_h, _c) = _res\n'
                                               ">>> assert tuple(_out.shape) == (3, 5, 6), f'outputs must be (B, S, H) = (3, 5, 6), got {tuple(_out.shape)}: batch_first, and unpack with "
                                               "total_length=src.size(1)'\n"
                                               '>>> assert tuple(_h.shape) == (2, 3, 6) and tuple(_c.shape) == (2, 3, 6), f"h and c must be (L, B, H) = (2, 3, 6), got {tuple(_h.shape)}: return the '
                                               'LSTM\'s whole final state"\n',
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
