OK_FORMAT = True

test = {   'name': 'q2_additive',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': '>>> _ = torch.manual_seed(0)\n'
                                               '>>> _add = AdditiveScore(4, 6, 8)\n'
                                               '>>> _s = _add(torch.randn(3, 4), torch.randn(3, 5, 6))\n'
                                               ">>> assert isinstance(_s, torch.Tensor), 'forward must return a tensor: did you fill in the TODO?'\n"
                                               '>>> assert tuple(_s.shape) == (3, 5), f"scores must be (B, S) = (3, 5), got {tuple(_s.shape)}: broadcast W_q(query).unsqueeze(1) over the S keys and '
                                               'squeeze v_a\'s output"\n',
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
