OK_FORMAT = True

test = {   'name': 'q5_decoder',
    'points': 3,
    'suites': [   {   'cases': [   {   'code': '>>> _ = torch.manual_seed(0)\n'
                                               '>>> _dec = AttentionDecoder(vocab_size=9, emb_size=4, hidden_size=6, memory_size=6, score=DotScore())\n'
                                               '>>> _res = _dec(torch.tensor([2, 5, 7]), torch.zeros(3, 6), torch.zeros(3, 4), torch.randn(3, 5, 6), torch.ones(3, 5, dtype=torch.bool))\n'
                                               ">>> assert isinstance(_res, tuple) and len(_res) == 3, 'forward must return (h, feed, weights): did you fill in the TODO?'\n"
                                               ">>> assert tuple(_res[0].shape) == (3, 6), f'h_t must be (B, H) = (3, 6), got {tuple(_res[0].shape)}'\n"
                                               ">>> assert tuple(_res[1].shape) == (3, 4), f'the attentional vector h~_t must be (B, E) = (3, 4), got {tuple(_res[1].shape)}: W_c maps [c_t; h_t] to "
                                               "E'\n"
                                               ">>> assert tuple(_res[2].shape) == (3, 5), f'the weights must be (B, S) = (3, 5), got {tuple(_res[2].shape)}'\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
