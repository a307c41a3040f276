OK_FORMAT = True

test = {   'name': 'q4_attention',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': '>>> _ = torch.manual_seed(0)\n'
                                               '>>> _res = attention(DotScore(), torch.randn(2, 4), torch.randn(2, 3, 4), torch.randn(2, 3, 6), torch.ones(2, 3, dtype=torch.bool))\n'
                                               ">>> assert isinstance(_res, tuple) and len(_res) == 2, 'attention must return (context, weights): did you fill in the TODO?'\n"
                                               ">>> assert tuple(_res[0].shape) == (2, 6), f'context must be (B, D_v) = (2, 6), got {tuple(_res[0].shape)}: a weighted sum of the values over the "
                                               "source positions'\n"
                                               ">>> assert tuple(_res[1].shape) == (2, 3), f'weights must be (B, S) = (2, 3), got {tuple(_res[1].shape)}'\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
