OK_FORMAT = True

test = {   'name': 'q6_length_penalty',
    'points': 1,
    'suites': [   {   'cases': [   {   'code': '>>> _lp = length_penalty(1, 0.6)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert _lp is not None, 'length_penalty must return a value: did you fill in the TODO?'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               ">>> assert isinstance(_lp, float), f'for an int length, length_penalty must return a Python float, got {type(_lp).__name__}: compute with plain "
                                               "numbers ((5 + length) / 6) ** alpha, no torch.tensor'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               ">>> assert abs(_lp - 1.0) < 1e-06, f'lp(|Y| = 1) must be ((5 + 1) / 6) ** alpha = 1, got {_lp:.4f}'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> def _call(*args):\n'
                                               '...     try:\n'
                                               "...         return (length_penalty(*args), '')\n"
                                               '...     except (TypeError, ValueError, RuntimeError) as e:\n'
                                               '...         return (None, type(e).__name__)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _lp, _error = _call(torch.tensor([[1, 7], [19, 3]]), 0.5)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert not _error, f'a tensor of lengths made length_penalty raise {_error}: use operators that work on tensors elementwise (+, /, **), not "
                                               "math.pow or float()'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> assert isinstance(_lp, torch.Tensor) and tuple(_lp.shape) == (2, 2) and _lp.is_floating_point(), f"a tensor of lengths must give a floating-point '
                                               'tensor of penalties of the same shape, got {getattr(_lp, \'shape\', type(_lp).__name__)}"  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert torch.allclose(_lp.double(), torch.tensor([[1.0, 2 ** 0.5], [2.0, (8 / 6) ** 0.5]], dtype=torch.float64), atol=1e-06), f'lp([[1, 7], [19, "
                                               "3]], alpha=0.5) gave {_lp.tolist()}: ((5 + |Y|) / 6) ** alpha, elementwise, the whole fraction raised to alpha'  # doctest: "
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _lp0, _error = _call(torch.tensor(7), 0.5)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert not _error and isinstance(_lp0, torch.Tensor) and (_lp0.dim() == 0) and _lp0.is_floating_point(), f'a 0-dimensional tensor length, "
                                               "torch.tensor(7), must give a 0-dimensional floating-point tensor, got {_lp0!r}: a Python float only for an int'  # doctest: "
                                               '+REPORT_ONLY_FIRST_FAILURE\n',
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
