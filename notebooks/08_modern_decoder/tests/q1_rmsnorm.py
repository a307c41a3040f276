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
                                               '+REPORT_ONLY_FIRST_FAILURE\n',
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
