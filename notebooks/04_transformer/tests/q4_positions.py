OK_FORMAT = True

test = {   'name': 'q4_positions',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': '>>> _pe = sinusoidal_encoding(10, 8)\n'
                                               ">>> assert isinstance(_pe, torch.Tensor), 'sinusoidal_encoding must return a tensor: did you fill in the TODO?'\n"
                                               ">>> assert tuple(_pe.shape) == (10, 8), f'expected (max_len, d_model) = (10, 8), got {tuple(_pe.shape)}'\n"
                                               ">>> assert torch.allclose(_pe[0], torch.tensor([0.0, 1.0] * 4)), f'position 0 must be sin(0) = 0 in even columns and cos(0) = 1 in odd columns, got "
                                               "{_pe[0].tolist()}'\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
