OK_FORMAT = True

test = {   'name': 'q3_mcc',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': '>>> _pred = torch.tensor([1, 1, 0, 0, 1, 0, 1, 1])  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _target = torch.tensor([1, 0, 0, 0, 1, 1, 1, 1])  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _m = matthews_corrcoef(_pred, _target)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert isinstance(_m, float), f'matthews_corrcoef must return a Python float (float(...)), got {type(_m).__name__}: did you fill in the TODO?'  # "
                                               'doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert abs(_m - 7 / 15) < 1e-06, f'TP = 4, TN = 2, FP = 1, FN = 1: MCC = (4*2 - 1*1) / sqrt(5*5*3*3) = 7/15 = 0.4667, got {_m}'  # doctest: "
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert abs(matthews_corrcoef(_target, _target) - 1.0) < 1e-06, 'predictions equal to the labels must give MCC 1'  # doctest: "
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert abs(matthews_corrcoef(1 - _target, _target) + 1.0) < 1e-06, 'predictions that are all wrong must give MCC -1 (keep the sign of TP*TN - "
                                               "FP*FN)'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> try:\n'
                                               '...     _m = matthews_corrcoef(torch.ones(8, dtype=torch.long), _target)\n'
                                               '... except Exception as _e:\n'
                                               "...     _m = f'{type(_e).__name__}'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               ">>> assert _m == 0.0, f'when every prediction is 1 the denominator is 0 and MCC is defined as 0.0, got {_m}'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
