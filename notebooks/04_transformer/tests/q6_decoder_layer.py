OK_FORMAT = True

test = {   'name': 'q6_decoder_layer',
    'points': 3,
    'suites': [   {   'cases': [   {   'code': '>>> _ = torch.manual_seed(0)\n'
                                               '>>> _layer = DecoderLayer(8, 2, 32)\n'
                                               '>>> _y = _layer(torch.randn(2, 4, 8), torch.randn(2, 3, 8), torch.ones(4, 4, dtype=torch.bool).tril(), torch.ones(2, 1, 1, 3, dtype=torch.bool))\n'
                                               ">>> assert isinstance(_y, torch.Tensor) and tuple(_y.shape) == (2, 4, 8), 'DecoderLayer must return (B, T, d_model): did you fill in the TODO?'\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
