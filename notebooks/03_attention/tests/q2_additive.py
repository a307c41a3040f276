OK_FORMAT = True

test = {   'name': 'q2_additive',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': '>>> _ = torch.manual_seed(0)\n'
                                               '>>> _add = AdditiveScore(4, 6, 8)\n'
                                               '>>> _s = _add(torch.randn(3, 4), torch.randn(3, 5, 6))\n'
                                               ">>> assert isinstance(_s, torch.Tensor), 'forward must return a tensor: did you fill in the TODO?'\n"
                                               '>>> assert tuple(_s.shape) == (3, 5), f"scores must be (B, S) = (3, 5), got {tuple(_s.shape)}: broadcast W_q(query).unsqueeze(1) over the S keys and '
                                               'squeeze v_a\'s output"\n'
                                               '>>> _Wq, _Wk, _bk, _va = (torch.randn(8, 4) * 0.5, torch.randn(8, 6) * 0.5, torch.randn(8) * 0.5, torch.randn(1, 8))\n'
                                               ">>> _ = _add.load_state_dict({'W_q.weight': _Wq, 'W_k.weight': _Wk, 'W_k.bias': _bk, 'v_a.weight': _va}, strict=False)\n"
                                               '>>> _q, _k = (torch.randn(3, 4), torch.randn(3, 5, 6))\n'
                                               '>>> _want = (torch.tanh((_q @ _Wq.T).unsqueeze(1) + _k @ _Wk.T + _bk) @ _va.T).squeeze(2)\n'
                                               ">>> assert torch.allclose(_add(_q, _k), _want, atol=1e-05), 'with fixed weights the scores differ from v_a . tanh(W_q query[b] + W_k keys[b, s]): add "
                                               "the two projections, apply tanh, then v_a (no softmax)'\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
