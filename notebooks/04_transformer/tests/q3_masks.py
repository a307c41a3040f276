OK_FORMAT = True

test = {   'name': 'q3_masks',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': '>>> _pm = padding_mask(torch.tensor([[5, 6, 7], [8, 9, PAD_ID]]))\n'
                                               ">>> assert isinstance(_pm, torch.Tensor) and _pm.dtype == torch.bool, 'padding_mask must return a bool tensor: did you fill in the TODO?'\n"
                                               ">>> assert tuple(_pm.shape) == (2, 1, 1, 3), f'padding_mask must be (B, 1, 1, S) = (2, 1, 1, 3) to broadcast over heads and queries, got "
                                               "{tuple(_pm.shape)}'\n"
                                               '>>> _cm = causal_mask(4)\n'
                                               ">>> assert isinstance(_cm, torch.Tensor) and _cm.dtype == torch.bool and (tuple(_cm.shape) == (4, 4)), 'causal_mask(4) must be a (4, 4) bool tensor'\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
