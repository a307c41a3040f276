OK_FORMAT = True

test = {   'name': 'q5_encoder_layer',
    'points': 3,
    'suites': [   {   'cases': [   {   'code': '>>> _ = torch.manual_seed(0)\n'
                                               '>>> _ff = FeedForward(8, 32)\n'
                                               '>>> _y = _ff(torch.randn(2, 3, 8))\n'
                                               ">>> assert isinstance(_y, torch.Tensor) and tuple(_y.shape) == (2, 3, 8), 'FeedForward must map (B, L, d_model) to (B, L, d_model): did you fill in "
                                               "the TODO?'\n"
                                               '>>> _layer = EncoderLayer(8, 2, 32)\n'
                                               '>>> _y = _layer(torch.randn(2, 3, 8), torch.ones(2, 1, 1, 3, dtype=torch.bool))\n'
                                               ">>> assert isinstance(_y, torch.Tensor) and tuple(_y.shape) == (2, 3, 8), 'EncoderLayer must return (B, S, d_model)'\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
