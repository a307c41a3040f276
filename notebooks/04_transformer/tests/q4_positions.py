OK_FORMAT = True

test = {   'name': 'q4_positions',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': '>>> _pe = sinusoidal_encoding(10, 8)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert isinstance(_pe, torch.Tensor), 'sinusoidal_encoding must return a tensor: did you fill in the TODO?'  # doctest: "
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert tuple(_pe.shape) == (10, 8), f'expected (max_len, d_model) = (10, 8), got {tuple(_pe.shape)}'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               ">>> assert torch.allclose(_pe[0], torch.tensor([0.0, 1.0] * 4)), f'position 0 must be sin(0) = 0 in even columns and cos(0) = 1 in odd columns, got "
                                               "{_pe[0].tolist()}'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> _row1 = torch.tensor([_f(1 / 10 ** _i) for _i in range(4) for _f in (math.sin, math.cos)])  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert torch.allclose(_pe[1], _row1, atol=1e-05), f'with d_model = 8, position 1 must be [sin(1), cos(1), sin(1/10), cos(1/10), sin(1/100), "
                                               'cos(1/100), sin(1/1000), cos(1/1000)] (PE(pos, 2i) = sin(pos / 10000^(2i/d_model)), PE(pos, 2i+1) = cos(...)), got {[round(_a, 4) for _a in '
                                               "_pe[1].tolist()]}'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
