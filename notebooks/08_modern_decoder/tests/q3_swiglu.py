OK_FORMAT = True

test = {   'name': 'q3_swiglu',
    'points': 1.5,
    'suites': [   {   'cases': [   {   'code': '>>> _ff = SwiGLU(2, 3)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> _ = _ff.load_state_dict({'W.weight': torch.tensor([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]), 'V.weight': torch.tensor([[2.0, 0.0], [0.0, -1.0], [0.5, "
                                               "0.5]]), 'W2.weight': torch.tensor([[1.0, 1.0, 1.0], [0.0, 1.0, -2.0]])})  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> _x = torch.tensor([[1.0, -2.0]])  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _y = _ff(_x)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert isinstance(_y, torch.Tensor) and tuple(_y.shape) == (1, 2), 'SwiGLU must return (..., d_model) = (1, 2): did you fill in the TODO?'  # "
                                               'doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _swish = lambda z: z * torch.sigmoid(torch.tensor(z))  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _h = torch.stack([_swish(1.0) * 2.0, _swish(-2.0) * 2.0, _swish(-1.0) * -0.5])  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert torch.allclose(_y[0], torch.stack([_h.sum(), _h[1] - 2 * _h[2]]), atol=1e-05), 'on a small example with known weights the output differs: "
                                               "Swish (F.silu) of x W, times x V elementwise (the gate is Swish(xW), the linear part xV), then W2'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> _x3 = torch.randn(2, 3, 2)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert torch.allclose(_ff(_x3)[1, 2], _ff(_x3[1, 2]), atol=1e-06), 'an input (B, T, d_model) must give (B, T, d_model), every position computed on "
                                               "its own'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               ">>> assert torch.isfinite(_ff(torch.tensor([[60.0, -60.0], [-300.0, 300.0]]))).all(), 'with large inputs the output is inf or nan: exp by hand "
                                               "overflows; use F.silu or z * torch.sigmoid(z)'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> from seqcourse.testing import define, standin  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> _grads = define('_grads', '\\nfrom seqcourse.testing import grads as _grads\\n')  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> _res = _grads(_ff, (_x3,), [torch.ones(2, 3, 2)], _ff)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert _res is not None and all((_res[0][_n] is not None for _n in ('W.weight', 'V.weight', 'W2.weight'))), 'W, V and W2 must all get gradients: "
                                               "the gate Swish(x W) and the linear part x V must both stay in the graph'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
