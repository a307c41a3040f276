OK_FORMAT = True

test = {   'name': 'q1_rmsnorm',
    'points': 1.5,
    'suites': [   {   'cases': [   {   'code': '>>> _norm = RMSNorm(4, eps=1e-06)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _x = torch.tensor([[3.0, -1.0, 1.0, -3.0], [0.5, 0.5, 0.5, 0.5]])  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _y = _norm(_x)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> assert isinstance(_y, torch.Tensor) and tuple(_y.shape) == (2, 4), "RMSNorm must return a tensor of the input\'s shape (2, 4): did you fill in the '
                                               'TODO?"  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert torch.allclose(_y, _x / torch.tensor([[5 ** 0.5], [0.5]]), atol=1e-05), 'the first row has mean square (9 + 1 + 1 + 9) / 4 = 5, so it must "
                                               "become x / sqrt(5); the second becomes all ones: divide by the root of the MEAN of the squares (not their sum, no centring)'  # doctest: "
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> _ = _norm.load_state_dict({'weight': torch.tensor([1.0, 2.0, -1.0, 0.5])})  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> _ref = nn.RMSNorm(4, eps=1e-06)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> _ = _ref.load_state_dict({'weight': torch.tensor([1.0, 2.0, -1.0, 0.5])})  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> _x = torch.randn(3, 5, 4)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert torch.allclose(_norm(_x), _ref(_x), atol=1e-05), 'with a gain, RMSNorm differs from torch.nn.RMSNorm: multiply the normalised x by "
                                               "self.weight'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> _big = RMSNorm(4).half()  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _y16 = _big(torch.tensor([[300.0, -300.0, 300.0, -300.0]], dtype=torch.float16))  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> assert _y16.dtype == torch.float16 and torch.allclose(_y16.float(), torch.tensor([[1.0, -1.0, 1.0, -1.0]]), atol=0.001), "a float16 input of 300s '
                                               'must give +-1 in float16: 300 squared overflows float16 (inf), so compute in float32 (x.float()) and return x\'s dtype"  # doctest: '
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _norm = RMSNorm(4, eps=0.5)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _y = _norm(torch.tensor([[1.0, -1.0, 1.0, -1.0]]))  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert torch.allclose(_y, torch.tensor([[1.0, -1.0, 1.0, -1.0]]) / 1.5 ** 0.5, atol=1e-05), 'with eps = 0.5 the row 1, -1, 1, -1 (mean square 1) "
                                               "must become x / sqrt(1 + 0.5): eps inside the square root, and self.eps, not a constant'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> from seqcourse.testing import define, standin  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> _grads = define('_grads', '\\nfrom seqcourse.testing import grads as _grads\\n')  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               ">>> _side_effects = define('_side_effects', '\\nfrom seqcourse.testing import side_effects as _side_effects\\n')  # doctest: "
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _x = torch.randn(2, 3, 4)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _found = _side_effects(_norm, (_x,), _norm)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert not _found, f'RMSNorm must not change its input: {_found[0]} (x.float() is x itself when x is float32: no in-place operations on it)'  # "
                                               'doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _res = _grads(_norm, (_x,), [torch.ones(2, 3, 4)], _norm)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _ref = nn.RMSNorm(4, eps=0.5)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _xr = _x.clone().requires_grad_()  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _ref(_xr).sum().backward()  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> assert _res is not None and _res[0][\'weight\'] is not None and torch.allclose(_res[0][\'weight\'], _ref.weight.grad, atol=1e-05), "the gain gets '
                                               'no gradient or another one than torch.nn.RMSNorm\'s: multiply by self.weight itself, not a detached copy"  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> assert torch.allclose(_res[1][0], _xr.grad, atol=1e-05), "the gradient with respect to x differs from torch.nn.RMSNorm\'s: the root mean square '
                                               'must be part of the graph (no .detach(), no .item())"  # doctest: +REPORT_ONLY_FIRST_FAILURE\n',
                                       'hidden': False,
                                       'locked': False},
                                   {   'code': '>>> from seqcourse.testing import define, standin  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> _on_device = define('_on_device', '\\nfrom seqcourse.testing import on_device as _on_device\\n')  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> _norm = RMSNorm(4)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _problem, _got = _on_device(_norm, (torch.tensor([[3.0, -1.0, 1.0, -3.0]]),), _norm)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> assert _problem is None, f"with the layer and its input on a GPU, RMSNorm fails or answers on the CPU ({_problem}): make every new tensor on x\'s '
                                               'device"  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert torch.allclose(_got, torch.tensor([[3.0, -1.0, 1.0, -3.0]]) / 5 ** 0.5, atol=1e-05), 'on a GPU, RMSNorm gives wrong values (the row 3, -1, "
                                               "1, -3 has mean square 5: it must become x / sqrt(5))'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n",
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
