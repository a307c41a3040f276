OK_FORMAT = True

test = {   'name': 'q6_length_penalty',
    'points': 1,
    'suites': [   {   'cases': [   {   'code': '>>> _lp = length_penalty(1, 0.6)\n'
                                               ">>> assert _lp is not None, 'length_penalty must return a value: did you fill in the TODO?'\n"
                                               ">>> assert abs(float(_lp) - 1.0) < 1e-06, f'lp(|Y| = 1) must be ((5 + 1) / 6) ** alpha = 1, got {float(_lp):.4f}'\n"
                                               '>>> _lp = length_penalty(torch.tensor([[1, 7], [19, 3]]), 0.5)\n'
                                               ">>> assert isinstance(_lp, torch.Tensor) and tuple(_lp.shape) == (2, 2), 'a tensor of lengths must give a tensor of penalties of the same shape'\n"
                                               ">>> assert torch.allclose(_lp.double(), torch.tensor([[1.0, 2 ** 0.5], [2.0, (8 / 6) ** 0.5]], dtype=torch.float64), atol=1e-06), f'lp([[1, 7], [19, "
                                               "3]], alpha=0.5) gave {_lp.tolist()}: ((5 + |Y|) / 6) ** alpha, elementwise'\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
