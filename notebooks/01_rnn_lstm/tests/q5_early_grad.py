OK_FORMAT = True

test = {   'name': 'q5_early_grad',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': '>>> _ = torch.manual_seed(0)\n'
                                               '>>> _g = early_gradient_norm(RNN(3, 5), torch.randn(2, 4, 3))\n'
                                               ">>> assert isinstance(_g, float), f'return a Python float (use .item()), got {type(_g).__name__}'\n"
                                               ">>> assert _g > 0, 'the gradient norm of a 4-step RNN should be positive'\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
