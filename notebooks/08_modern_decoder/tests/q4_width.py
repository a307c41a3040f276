OK_FORMAT = True

test = {   'name': 'q4_width',
    'points': 1,
    'suites': [   {   'cases': [   {   'code': '>>> _w = swiglu_width(128, 512)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert isinstance(_w, int), f'swiglu_width must return a Python int, got {type(_w).__name__}: did you fill in the TODO?'  # doctest: "
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> assert _w == 336, f"d = 128, d_ff = 512: 06\'s network has 2 * 128 * 512 + 512 + 128 = 131,712 parameters, and 3 * 128 * h <= 131,712 for h up to '
                                               '343, so the largest multiple of 8 is 336; got {_w}"  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> assert swiglu_width(128, 512, multiple_of=1) == 343, f"with multiple_of = 1 the answer is 343 (3 * 128 * 343 = 131,712 exactly: \'no more than\' '
                                               'includes equality), got {swiglu_width(128, 512, multiple_of=1)}"  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert swiglu_width(4, 4, multiple_of=64) == 64, 'when not even one multiple fits, return multiple_of'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
