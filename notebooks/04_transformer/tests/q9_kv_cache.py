OK_FORMAT = True

test = {   'name': 'q9_kv_cache',
    'points': 3,
    'suites': [   {   'cases': [   {   'code': '>>> _ = torch.manual_seed(0)\n'
                                               '>>> _attn = MultiHeadAttention(8, 2)\n'
                                               '>>> _res = cached_self_attention(_attn, torch.randn(3, 1, 8), torch.randn(3, 2, 4, 4), torch.randn(3, 2, 4, 4))\n'
                                               ">>> assert isinstance(_res, tuple) and len(_res) == 3, 'cached_self_attention must return (output, keys, values): did you fill in the TODO?'\n"
                                               ">>> assert tuple(_res[0].shape) == (3, 1, 8), f'output must be (N, 1, d_model) = (3, 1, 8), got {tuple(_res[0].shape)}'\n"
                                               ">>> assert tuple(_res[1].shape) == (3, 2, 5, 4) and tuple(_res[2].shape) == (3, 2, 5, 4), 'the returned keys and values must be (N, h, t+1, d_k) = (3, "
                                               "2, 5, 4): append the new position along dim 2'\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
