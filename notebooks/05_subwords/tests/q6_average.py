OK_FORMAT = True

test = {   'name': 'q6_average',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': ">>> _a = {'w': torch.tensor([1.0, 2.0]), 'b': torch.tensor([[0.5]]), 'norm.running_mean': torch.tensor([0.0]), 'steps': torch.tensor(3)}  # doctest: "
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> _b = {'w': torch.tensor([3.0, 6.0]), 'b': torch.tensor([[1.5]]), 'norm.running_mean': torch.tensor([1.0]), 'steps': torch.tensor(5)}  # doctest: "
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _avg = average_state_dicts([_a, _b])  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert isinstance(_avg, dict), 'average_state_dicts must return a dict: did you fill in the TODO?'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               ">>> assert set(_avg) == {'w', 'b', 'norm.running_mean', 'steps'}, f'the average must have every key of the state dicts (parameters AND buffers), got "
                                               "{sorted(_avg)}'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               ">>> assert torch.allclose(_avg['norm.running_mean'], torch.tensor([0.5])), 'a floating-point buffer (a running mean) must be averaged like the "
                                               "parameters'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> assert _avg[\'w\'].dtype == torch.float32, f"averaged tensors keep their dtype (float32 here), got {_avg[\'w\'].dtype}"  # doctest: '
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> assert torch.allclose(_avg[\'w\'], torch.tensor([2.0, 4.0])) and torch.allclose(_avg[\'b\'], torch.tensor([[1.0]])), f"the mean of [1, 2] and [3, '
                                               '6] must be [2, 4] (element-wise, shape kept), got {_avg[\'w\'].tolist()}"  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> assert _avg[\'steps\'].dtype == torch.int64 and int(_avg[\'steps\']) == 5, f"the integer counter \'steps\' must be taken from the LAST state dict '
                                               '(5) and stay int64, got {_avg[\'steps\']!r}"  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> for _bad, _what in (([], 'an empty list'), ([{'w': torch.zeros(1)}, {'v': torch.zeros(1)}], 'state dicts with different keys')):\n"
                                               '...     try:\n'
                                               '...         _ = average_state_dicts(_bad)\n'
                                               "...         _err = 'nothing'\n"
                                               '...     except ValueError:\n'
                                               "...         _err = 'ValueError'\n"
                                               '...     except Exception as _e:\n'
                                               '...         _err = type(_e).__name__\n'
                                               "...     assert _err == 'ValueError', f'{_what} must raise a ValueError (a clear message), got {_err}'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               ">>> _h = average_state_dicts([{'h': torch.tensor([40960.0, 32768.0], dtype=torch.float16)}, {'h': torch.tensor([32768.0, 40960.0], "
                                               'dtype=torch.float16)}])  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> assert _h[\'h\'].dtype == torch.float16 and _h[\'h\'].tolist() == [36864.0, 36864.0], f"the mean of the float16 tensors [40960, 32768] and [32768, '
                                               "40960] must be [36864, 36864] in float16, got {_h['h'].tolist()} ({_h['h'].dtype}): their sum, 73728, overflows float16 (largest 65504): the mean is "
                                               '\'computed in float32 or wider\', then returned in float16"  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _t = torch.ones(2)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> try:\n'
                                               "...     _swapped = average_state_dicts([{'a': _t, 'b': _t}, {'b': _t, 'a': _t}])\n"
                                               '... except ValueError:\n'
                                               '...     _swapped = None  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert _swapped is not None, 'state dicts with the same keys in another order must be averaged, not refused: compare the keys as sets'  # doctest: "
                                               '+REPORT_ONLY_FIRST_FAILURE\n',
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
