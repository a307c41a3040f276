OK_FORMAT = True

test = {   'name': 'q9_kv_cache',
    'points': 3,
    'suites': [   {   'cases': [   {   'code': '>>> _ = torch.manual_seed(0)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _attn = MultiHeadAttention(8, 2)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _res = cached_self_attention(_attn, torch.randn(3, 1, 8), torch.randn(3, 2, 4, 4), torch.randn(3, 2, 4, 4))  # doctest: '
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert isinstance(_res, tuple) and len(_res) == 3, 'cached_self_attention must return (output, keys, values): did you fill in the TODO?'  # "
                                               'doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert tuple(_res[0].shape) == (3, 1, 8), f'output must be (N, 1, d_model) = (3, 1, 8), got {tuple(_res[0].shape)}'  # doctest: "
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert tuple(_res[1].shape) == (3, 2, 5, 4) and tuple(_res[2].shape) == (3, 2, 5, 4), 'the returned keys and values must be (N, n_h, t+1, d_k) = "
                                               "(3, 2, 5, 4): append the new position along dim 2'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               ">>> _state = {f'W_{_n}.{_p}': torch.randn(8, 8) * 0.5 if _p == 'weight' else torch.randn(8) * 0.5 for _n in 'qkvo' for _p in ('weight', 'bias')}  # "
                                               'doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _attn = MultiHeadAttention(8, 2)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _ = _attn.load_state_dict(_state)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _torch = nn.MultiheadAttention(8, 2, batch_first=True)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> with torch.no_grad():\n'
                                               "...     _ = _torch.in_proj_weight.copy_(torch.cat([_state[f'W_{_n}.weight'] for _n in 'qkv']))\n"
                                               "...     _ = _torch.in_proj_bias.copy_(torch.cat([_state[f'W_{_n}.bias'] for _n in 'qkv']))\n"
                                               "...     _ = _torch.out_proj.weight.copy_(_state['W_o.weight'])\n"
                                               "...     _ = _torch.out_proj.bias.copy_(_state['W_o.bias'])  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> _x = torch.randn(2, 3, 8)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> with torch.no_grad():\n'
                                               '...     _want = _torch(_x, _x, _x, attn_mask=torch.ones(3, 3, dtype=torch.bool).triu(1), need_weights=False)[0]\n'
                                               '...     _want_k, _want_v = (_attn.split_heads(_attn.W_k(_x)), _attn.split_heads(_attn.W_v(_x)))  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _out, _k, _v = cached_self_attention(_attn, _x[:, 2:], _want_k[:, :, :2], _want_v[:, :, :2])  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert torch.allclose(_k, _want_k, atol=1e-05) and torch.allclose(_v, _want_v, atol=1e-05), 'on a small example (2 cached positions, 1 new), the "
                                               "returned keys and values must be the cached ones followed by split_heads(W_k(x)) and split_heads(W_v(x)) of the new position'  # doctest: "
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert torch.allclose(_out, _want[:, 2:], atol=1e-05), 'on a small example (2 cached positions, 1 new), the output differs from causal "
                                               "self-attention over the whole sequence at its last position: the new query attends to every cached key and to its own, then merge_heads and W_o'  # "
                                               'doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> assert _attn.weights is not None and tuple(_attn.weights.shape) == (2, 2, 1, 3), "store the step\'s attention weights (N, n_h, 1, t+1) = (2, 2, 1, '
                                               '3) in attn.weights"  # doctest: +REPORT_ONLY_FIRST_FAILURE\n',
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
