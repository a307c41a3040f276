OK_FORMAT = True

test = {   'name': 'q5_schedule',
    'points': 1,
    'suites': [   {   'cases': [   {   'code': '>>> _v = [warmup_cosine(_s, 4, 12) for _s in (0, 3, 4, 8, 12)]  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert all((isinstance(_x, float) for _x in _v)), 'warmup_cosine must return a Python float (float(...), not a tensor)'  # doctest: "
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert abs(_v[0] - 0.25) < 1e-09 and abs(_v[1] - 1.0) < 1e-09, f'warm-up: step 0 of 4 gives 1/4 and step 3 gives 1, got {_v[0]:.4f} and "
                                               "{_v[1]:.4f}: (step + 1) / warmup'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               ">>> assert abs(_v[2] - 1.0) < 1e-09, f'the decay starts at the peak: step = warmup gives 1, got {_v[2]:.4f}'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               ">>> assert abs(_v[3] - 0.55) < 1e-09, f'halfway through the decay (step 8 of 4 ... 12) the multiplier is 0.1 + 0.9 * 0.5 = 0.55, got {_v[3]:.4f}: r + "
                                               "(1 - r) * (1 + cos(pi p)) / 2'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               ">>> assert abs(_v[4] - 0.1) < 1e-09, f'at step = total the multiplier is min_ratio = 0.1, got {_v[4]:.4f}'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               ">>> assert abs(warmup_cosine(30, 4, 12) - 0.1) < 1e-09, f'after step = total the multiplier stays at min_ratio, got {warmup_cosine(30, 4, 12):.4f} at "
                                               "step 30 of 12: clip p at 1'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               ">>> assert abs(warmup_cosine(12, 4, 12, min_ratio=0.0)) < 1e-09, f'with min_ratio = 0 the multiplier at step = total is 0, got {warmup_cosine(12, 4, "
                                               "12, min_ratio=0.0):.4f}: use the min_ratio argument'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
