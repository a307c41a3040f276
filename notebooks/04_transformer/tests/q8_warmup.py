OK_FORMAT = True

test = {   'name': 'q8_warmup',
    'points': 1,
    'suites': [   {   'cases': [   {   'code': '>>> _lr = noam_lr(100, 256, 100)\n'
                                               ">>> assert isinstance(_lr, float), 'noam_lr must return a float: did you fill in the TODO?'\n"
                                               ">>> assert abs(_lr - 256 ** (-0.5) * 100 ** (-0.5)) < 1e-09, f'at step = warmup the rate must be d_model^-0.5 * warmup^-0.5, got {_lr}'\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
