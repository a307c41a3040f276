OK_FORMAT = True

test = {   'name': 'q2_decoder',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': '>>> _ = torch.manual_seed(0)\n'
                                               '>>> _dec = Decoder(vocab_size=9, emb_size=4, hidden_size=6, num_layers=2)\n'
                                               '>>> _state = (torch.zeros(2, 3, 6), torch.zeros(2, 3, 6))\n'
                                               '>>> _res = _dec(torch.tensor([2, 5, 7]), _state)\n'
                                               ">>> assert isinstance(_res, tuple) and len(_res) == 2, 'forward must return (logits, (h, c)): did you fill in the TODO?'\n"
                                               '>>> _logits, (_h, _c) = _res\n'
                                               ">>> assert tuple(_logits.shape) == (3, 9), f'logits must be (B, V) = (3, 9), got {tuple(_logits.shape)}: one step, so squeeze the time axis (dim 1)'\n"
                                               ">>> assert tuple(_h.shape) == (2, 3, 6), 'the new state must have the shape of the old one, (L, B, H)'\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
