OK_FORMAT = True

test = {   'name': 'q2_additive',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': '>>> _ = torch.manual_seed(0)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _add = AdditiveScore(4, 6, 8)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _s = _add(torch.randn(3, 4), torch.randn(3, 5, 6))  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert isinstance(_s, torch.Tensor), 'forward must return a tensor: did you fill in the TODO?'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> assert tuple(_s.shape) == (3, 5), f"scores must be (B, S) = (3, 5), got {tuple(_s.shape)}: broadcast W_q(query).unsqueeze(1) over the S keys and '
                                               'squeeze v_a\'s output"  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _Wq, _Wk, _bk, _va = (torch.randn(8, 4) * 0.5, torch.randn(8, 6) * 0.5, torch.randn(8) * 0.5, torch.randn(1, 8))  # doctest: '
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> _ = _add.load_state_dict({'W_q.weight': _Wq, 'W_k.weight': _Wk, 'W_k.bias': _bk, 'v_a.weight': _va}, strict=False)  # doctest: "
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _q, _k = (torch.randn(3, 4), torch.randn(3, 5, 6))  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _want = (torch.tanh((_q @ _Wq.T).unsqueeze(1) + _k @ _Wk.T + _bk) @ _va.T).squeeze(2)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert torch.allclose(_add(_q, _k), _want, atol=1e-05), 'with fixed weights the scores differ from v_a . tanh(W_q query[b] + W_k keys[b, s]): add "
                                               "the two projections, apply tanh, then v_a (no softmax)'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n",
                                       'hidden': False,
                                       'locked': False},
                                   {   'code': '>>> from seqcourse.testing import define  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> _grads = define('_grads', 'from seqcourse.testing import grads as _grads')  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> _add = AdditiveScore(2, 3, 2)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> _P = {'W_q.weight': torch.tensor([[1.0, -1.0], [0.5, 0.0]]), 'W_k.weight': torch.tensor([[0.0, 1.0, 1.0], [-1.0, 0.0, 0.5]]), 'W_k.bias': "
                                               "torch.tensor([0.1, -0.2]), 'v_a.weight': torch.tensor([[2.0, -1.0]])}  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> _ = _add.load_state_dict(_P, strict=False)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _s = _add(torch.tensor([[0.5, -0.5]]), torch.tensor([[[1.0, 0.0, -1.0]]]))  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> assert isinstance(_s, torch.Tensor) and tuple(_s.shape) == (1, 1), f"one sentence with one source position must give scores (1, 1), got '
                                               '{getattr(_s, \'shape\', type(_s).__name__)}: squeeze only v_a\'s output dimension (squeeze(2)), never squeeze() without a dimension"  # doctest: '
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> assert abs(float(_s.detach()[0, 0]) - 1.0950289) < 1e-05, f"got {float(_s.detach()[0, 0]):.5f}, expected 1.09503 = v_a . tanh(W_q q + W_k k + b_k) '
                                               '= 2 tanh(0.1) - tanh(-1.45): add the two projections (with W_k\'s bias), apply tanh, then v_a"  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _q = torch.tensor([[1.0, 2.0], [0.0, -1.0]])  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _k = torch.tensor([[[1.0, 0.0, 0.0], [0.0, 1.0, -1.0]], [[0.5, 0.5, 0.5], [2.0, -1.0, 0.0]]])  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _res = _grads(_add, (_q, _k), [torch.tensor([[1.0, -1.0], [0.5, 2.0]])], _add)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert _res is not None, 'the scores carry no gradient: compute them with differentiable tensor operations (no .detach(), .data or numpy)'  # "
                                               'doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> _want = {'W_q.weight': [[0.0, -4.0184882], [0.3263034, 1.1594581]], 'W_k.weight': [[8.9234766, -4.9049884, 1.0029462], [-1.0319413, 0.8513934, "
                                               "-1.1665433]], 'W_k.bias': [4.0184882, -0.1805479], 'v_a.weight': [[0.684562, -2.5694282]]}  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> for _name, _w in _want.items():\n'
                                               '...     assert isinstance(_res[0].get(_name), torch.Tensor) and torch.allclose(_res[0][_name], torch.tensor(_w), atol=1e-05), f"no (or a wrong) '
                                               'gradient reaches {_name}: that layer could never be trained. Don\'t detach a projection or use .data in forward"  # doctest: '
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> assert isinstance(_res[1][0], torch.Tensor) and torch.allclose(_res[1][0], torch.tensor([[0.1631517, 0.0], [3.7650626, -4.0184882]]), atol=1e-05), '
                                               "'the gradient with respect to the query is wrong or missing (no .detach(), .data or numpy in forward)'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> assert isinstance(_res[1][1], torch.Tensor) and torch.allclose(_res[1][1], torch.tensor([[[0.6347396, 0.9738347, 0.6564649], [-0.961043, '
                                               "-0.9738347, -0.4933132]], [[0.4110006, 0.058223, -0.1472773], [0.0958507, 3.9602652, 3.9123398]]]), atol=1e-05), 'the gradient with respect to the "
                                               "keys is wrong or missing (no .detach(), .data or numpy in forward)'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
