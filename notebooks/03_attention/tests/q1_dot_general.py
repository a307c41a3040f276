OK_FORMAT = True

test = {   'name': 'q1_dot_general',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': '>>> _ = torch.manual_seed(0)\n'
                                               '>>> _q, _k = (torch.randn(3, 4), torch.randn(3, 5, 4))\n'
                                               '>>> _s = DotScore()(_q, _k)\n'
                                               ">>> assert isinstance(_s, torch.Tensor), 'DotScore.forward must return a tensor: did you fill in the TODO?'\n"
                                               ">>> assert tuple(_s.shape) == (3, 5), f'scores must be (B, S) = (3, 5), got {tuple(_s.shape)}: one score per source position, for each sentence'\n"
                                               ">>> assert torch.allclose(_s[1, 2], _q[1] @ _k[1, 2], atol=1e-05), 'DotScore: scores[b, s] must be the dot product of query[b] and keys[b, s]'\n"
                                               '>>> _g = GeneralScore(4, 6)\n'
                                               '>>> _s = _g(_q, torch.randn(3, 5, 6))\n'
                                               ">>> assert tuple(_s.shape) == (3, 5), f'GeneralScore must return (B, S) = (3, 5), got {tuple(_s.shape)}'\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
