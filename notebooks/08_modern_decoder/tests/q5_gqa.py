OK_FORMAT = True

test = {   'name': 'q5_gqa',
    'points': 3,
    'suites': [   {   'cases': [   {   'code': '>>> from seqcourse.testing import standin  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> exec('\\nimport torch\\ndef _mha_with(state, d, h):\\n    # notebook 06\\'s multi-head attention with the weights W_q ... W_o of state and zero "
                                               'biases\\n    from seqcourse.gpt import MultiHeadAttention\\n    mha = MultiHeadAttention(d, h)\\n    mha.load_state_dict({**state, **{f"W_{n}.bias": '
                                               'torch.zeros(d) for n in "qkvo"}})\\n    return mha\\n\')  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _ = torch.manual_seed(0)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _attn = GroupedQueryAttention(8, 2, 2, base=None)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _res = _attn(torch.randn(2, 5, 8))  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert isinstance(_res, tuple) and len(_res) == 2 and (tuple(_res[0].shape) == (2, 5, 8)), 'forward must return (output (B, T, d_model), (keys, "
                                               "values)): did you fill in the TODO?'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               ">>> _s = {f'W_{_n}.weight': torch.randn(8, 8) * 0.4 for _n in 'qkvo'}  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> _ = _attn.load_state_dict(_s)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _x = torch.randn(2, 5, 8)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _mha = _mha_with(_s, 8, 2)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> assert torch.allclose(_attn(_x)[0], _mha(_x, _x, _x, torch.ones(5, 5, dtype=torch.bool).tril()), atol=1e-05), "with n_kv = n_h and no rotation '
                                               "(base=None), the layer must be notebook 06's causal multi-head attention with the same weights: heads (B, n_h, T, d_k), causal mask (tril, True = may "
                                               'attend), W_o on the merged heads"  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _attn = GroupedQueryAttention(8, 4, 2, base=None)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> _s = {'W_q.weight': torch.randn(8, 8) * 0.4, 'W_k.weight': torch.randn(4, 8) * 0.4, 'W_v.weight': torch.randn(4, 8) * 0.4, 'W_o.weight': "
                                               'torch.randn(8, 8) * 0.4}  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _ = _attn.load_state_dict(_s)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> _copies = {_n: _s[_n].view(2, 2, 8).repeat_interleave(2, dim=0).reshape(8, 8) for _n in ('W_k.weight', 'W_v.weight')}  # doctest: "
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _mha = _mha_with({**_s, **_copies}, 8, 4)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert torch.allclose(_attn(_x)[0], _mha(_x, _x, _x, torch.ones(5, 5, dtype=torch.bool).tril()), atol=1e-05), 'with 4 query heads and 2 key/value "
                                               'heads (no rotation), query heads 0 and 1 must use key/value head 0, heads 2 and 3 key/value head 1: repeat_interleave along the head axis, not '
                                               "repeat'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> _attn = GroupedQueryAttention(8, 4, 2)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _out, (_k, _v) = _attn(_x)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert tuple(_k.shape) == (2, 2, 5, 2) and tuple(_v.shape) == (2, 2, 5, 2), f'the cache keeps the n_kv = 2 key/value heads, (B, n_kv, T, d_k) = "
                                               "(2, 2, 5, 2), not copies repeated to n_h; got {tuple(_k.shape)}'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> _, _cache = _attn(_x[:, :3])  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _last, _cache = _attn(_x[:, 3:], _cache)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> assert torch.allclose(_last, _out[:, 3:], atol=1e-05), "feeding positions 0-2, then 3-4 with the cache, must give the outputs of one pass over '
                                               '0-4: rotate the new positions at offset t (the cache\'s length), and let new query i see every cached key and the new ones up to t + i"  # doctest: '
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert tuple(_cache[0].shape) == (2, 2, 5, 2), 'after 3 + 2 positions the cache must hold 5 positions'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n",
                                       'hidden': False,
                                       'locked': False},
                                   {   'code': '>>> from seqcourse.testing import define, standin  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> _on_device = define('_on_device', '\\nfrom seqcourse.testing import on_device as _on_device\\n')  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               ">>> _step_output = define('_step_output', '\\ndef _step_output(attn, x, keys, values):\\n    # the output of attention over x after the cached keys "
                                               "and values\\n    return attn(x, (keys, values))[0]\\n')  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> _ = torch.manual_seed(0)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _attn = GroupedQueryAttention(8, 4, 2)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _x = torch.randn(1, 4, 8)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _want = _attn(_x)[0][:, 3:]  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _, _cache = _attn(_x[:, :3])  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _problem, _got = _on_device(_step_output, (_attn, _x[:, 3:], *_cache), _attn)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> assert _problem is None, f"with the layer, its input and a cache on a GPU, the layer fails or answers on the CPU ({_problem}): make the mask on '
                                               'x\'s device"  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert torch.allclose(_got, _want, atol=1e-05), 'on a GPU, a step with a cache gives other values than the same step on the CPU'  # doctest: "
                                               '+REPORT_ONLY_FIRST_FAILURE\n',
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
