OK_FORMAT = True

test = {   'name': 'q2_mha',
    'points': 3,
    'suites': [   {   'cases': [   {   'code': '>>> _ = torch.manual_seed(0)\n'
                                               '>>> _mha = MultiHeadAttention(12, 3)\n'
                                               '>>> _x = torch.randn(2, 5, 12)\n'
                                               ">>> assert tuple(_mha.split_heads(_x).shape) == (2, 3, 5, 4), f'split_heads must give (B, h, L, d_k) = (2, 3, 5, 4), got "
                                               "{tuple(_mha.split_heads(_x).shape)}'\n"
                                               ">>> assert tuple(_mha.merge_heads(torch.randn(2, 3, 5, 4)).shape) == (2, 5, 12), 'merge_heads must give (B, L, d_model) = (2, 5, 12)'\n"
                                               ">>> assert torch.equal(_mha.merge_heads(_mha.split_heads(_x)), _x), 'merge_heads(split_heads(x)) must give x back'\n"
                                               '>>> _out = _mha(_x, torch.randn(2, 7, 12), torch.randn(2, 7, 12))\n'
                                               ">>> assert tuple(_out.shape) == (2, 5, 12), f'forward must return (B, T, d_model) = (2, 5, 12), got {tuple(_out.shape)}'\n"
                                               ">>> assert _mha.weights is not None and tuple(_mha.weights.shape) == (2, 3, 5, 7), 'store the attention weights (B, h, T, S) in self.weights'\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
