OK_FORMAT = True

test = {   'name': 'q8_warmup',
    'points': 1,
    'suites': [   {   'cases': [   {   'code': '>>> _lr = noam_lr(100, 256, 100)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert isinstance(_lr, float), 'noam_lr must return a float: did you fill in the TODO?'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               ">>> assert abs(_lr - 256 ** (-0.5) * 100 ** (-0.5)) < 1e-09, f'at step = warmup the rate must be d_model^-0.5 * warmup^-0.5, got {_lr}'  # doctest: "
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert noam_lr(0, 256, 100) == noam_lr(1, 256, 100) > 0, 'step 0 must be treated as step 1 (LambdaLR starts at 0)'  # doctest: "
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _lr = noam_lr(25, 256, 100, factor=2.0)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert abs(_lr - 2.0 * 256 ** (-0.5) * 25 * 100 ** (-1.5)) < 1e-12, f'during the warm-up (step 25 of 100, factor 2) the rate must be factor * "
                                               "d_model^-0.5 * step * warmup^-1.5, got {_lr}'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
