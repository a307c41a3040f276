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
                                               '>>> _W = torch.tensor([[0.5, -1.0, 0.0, 2.0], [1.0, 0.0, 0.0, 0.0], [0.0, 0.3, -0.7, 0.0], [0.2, 0.2, 0.2, 0.2], [-1.5, 0.0, 1.0, 0.5], [0.0, 0.0, '
                                               '0.0, 1.0]])\n'
                                               ">>> _ = _g.load_state_dict({'W_a.weight': _W}, strict=False)\n"
                                               '>>> _kg = torch.randn(3, 5, 6)\n'
                                               '>>> _s = _g(_q, _kg)\n'
                                               '>>> assert isinstance(_s, torch.Tensor) and tuple(_s.shape) == (3, 5), f"GeneralScore must return a tensor (B, S) = (3, 5), got {getattr(_s, '
                                               '\'shape\', type(_s).__name__)}"\n'
                                               '>>> assert torch.allclose(_s, torch.einsum(\'bq,kq,bsk->bs\', _q, _W, _kg), atol=1e-05), "GeneralScore: scores[b, s] must be query[b]^T W_a keys[b, s] '
                                               '= self.W_a(query[b]) . keys[b, s] (each sentence\'s query with its own keys: keep the batch dimension separate)"\n',
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
