OK_FORMAT = True

test = {   'name': 'q1_dot_general',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': '>>> _ = torch.manual_seed(0)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _q, _k = (torch.randn(3, 4), torch.randn(3, 5, 4))  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _s = DotScore()(_q, _k)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert isinstance(_s, torch.Tensor), 'DotScore.forward must return a tensor: did you fill in the TODO?'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               ">>> assert tuple(_s.shape) == (3, 5), f'scores must be (B, S) = (3, 5), got {tuple(_s.shape)}: one score per source position, for each sentence'  # "
                                               'doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert torch.allclose(_s[1, 2], _q[1] @ _k[1, 2], atol=1e-05), 'DotScore: scores[b, s] must be the dot product of query[b] and keys[b, s]'  # "
                                               'doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _g = GeneralScore(4, 6)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _W = torch.tensor([[0.5, -1.0, 0.0, 2.0], [1.0, 0.0, 0.0, 0.0], [0.0, 0.3, -0.7, 0.0], [0.2, 0.2, 0.2, 0.2], [-1.5, 0.0, 1.0, 0.5], [0.0, 0.0, '
                                               '0.0, 1.0]])  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> _ = _g.load_state_dict({'W_a.weight': _W}, strict=False)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> _kg = torch.randn(3, 5, 6)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _s = _g(_q, _kg)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> assert isinstance(_s, torch.Tensor) and tuple(_s.shape) == (3, 5), f"GeneralScore must return a tensor (B, S) = (3, 5), got {getattr(_s, '
                                               '\'shape\', type(_s).__name__)}"  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> assert torch.allclose(_s, torch.einsum(\'bq,kq,bsk->bs\', _q, _W, _kg), atol=1e-05), "GeneralScore: scores[b, s] must be query[b]^T W_a keys[b, s] '
                                               '= self.W_a(query[b]) . keys[b, s] (each sentence\'s query with its own keys: keep the batch dimension separate)"  # doctest: '
                                               '+REPORT_ONLY_FIRST_FAILURE\n',
                                       'hidden': False,
                                       'locked': False},
                                   {   'code': '>>> from seqcourse.testing import define  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> _grads = define('_grads', 'from seqcourse.testing import grads as _grads')  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> _q1 = torch.tensor([[1.0, 2.0, 0.0, -1.0]])  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _k1 = torch.tensor([[[1.0, 0.0, 1.0, 0.0], [0.5, 0.5, 0.5, 0.5], [-1.0, 1.0, 0.0, 2.0]]])  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _s = DotScore(scaled=True)(_q1.clone(), _k1.clone())  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> assert isinstance(_s, torch.Tensor) and tuple(_s.shape) == (1, 3), f"a batch of one sentence (B = 1, S = 3) must give scores of shape (1, 3), got '
                                               '{getattr(_s, \'shape\', type(_s).__name__)}: squeeze only the dimension you added (squeeze(2)), never squeeze() without a dimension"  # doctest: '
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert torch.allclose(_s, torch.tensor([[0.5, 0.5, -0.5]]), atol=1e-05), f'DotScore(scaled=True) gave {_s.tolist()}, expected [[0.5, 0.5, -0.5]]: "
                                               "the dot products [1, 1, -1] divided by sqrt(d_k) = sqrt(4) = 2 (not by d_k, not by the source length S = 3)'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> _g = GeneralScore(4, 2)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _W = torch.tensor([[1.0, 0.0, -1.0, 0.5], [0.0, 2.0, 0.0, 0.0]])  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> _ = _g.load_state_dict({'W_a.weight': _W}, strict=False)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> _kg = torch.tensor([[[1.0, -1.0], [0.0, 2.0], [0.5, 0.5]]])  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _s = _g(_q1, _kg)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> assert isinstance(_s, torch.Tensor) and tuple(_s.shape) == (1, 3), f"GeneralScore with a batch of one sentence must give scores (1, 3), got '
                                               '{getattr(_s, \'shape\', type(_s).__name__)}: squeeze only the dimension you added"  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert torch.allclose(_s, torch.tensor([[-3.5, 8.0, 2.25]]), atol=1e-05), f'GeneralScore gave {_s.tolist()}, expected [[-3.5, 8.0, 2.25]]: "
                                               "self.W_a(query) = [0.5, 4.0], then its dot product with every key'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> _res = _grads(_g, (_q1, _kg), [torch.tensor([[1.0, 2.0, -1.0]])], _g)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> assert _res is not None, "GeneralScore\'s scores carry no gradient: compute them with differentiable tensor operations (no .detach(), .data, '
                                               '.item() or numpy)"  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert isinstance(_res[0].get('W_a.weight'), torch.Tensor) and torch.allclose(_res[0]['W_a.weight'], torch.tensor([[0.5, 1.0, 0.0, -0.5], [2.5, "
                                               '5.0, 0.0, -2.5]]), atol=1e-05), "no (or a wrong) gradient reaches W_a: W_a could never be trained. Don\'t detach self.W_a(query) or use .data"  # '
                                               'doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert isinstance(_res[1][0], torch.Tensor) and torch.allclose(_res[1][0], torch.tensor([[0.5, 5.0, -0.5, 0.25]]), atol=1e-05), 'GeneralScore: the "
                                               "gradient with respect to the query is wrong or missing (no .detach(), .data or numpy in forward)'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> assert isinstance(_res[1][1], torch.Tensor) and torch.allclose(_res[1][1], torch.tensor([[[0.5, 4.0], [1.0, 8.0], [-0.5, -4.0]]]), atol=1e-05), '
                                               "'GeneralScore: the gradient with respect to the keys is wrong or missing (no .detach(), .data or numpy in forward)'  # doctest: "
                                               '+REPORT_ONLY_FIRST_FAILURE\n',
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
