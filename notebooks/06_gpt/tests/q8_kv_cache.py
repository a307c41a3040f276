OK_FORMAT = True

test = {   'name': 'q8_kv_cache',
    'points': 3,
    'suites': [   {   'cases': [   {   'code': '>>> from seqcourse.testing import standin  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> exec('\\nimport torch\\ndef _rand_state(C, d, L, d_ff, max_len, scale=0.3):\\n    # random weights (biases and norms included) under the "
                                               'notebook\\\'s names\\n    s = {"tok_emb.weight": torch.randn(C, d) * scale * 3, "pos_emb.weight": torch.randn(max_len, d) * scale * 3,\\n         '
                                               '"norm.weight": 1 + torch.randn(d) * scale, "norm.bias": torch.randn(d) * scale}\\n    for i in range(L):\\n        p = f"blocks.{i}."\\n        for n '
                                               'in "qkvo":\\n            s[p + f"attn.W_{n}.weight"], s[p + f"attn.W_{n}.bias"] = torch.randn(d, d) * scale, torch.randn(d) * scale\\n        for n in '
                                               '("norm1", "norm2"):\\n            s[p + n + ".weight"], s[p + n + ".bias"] = 1 + torch.randn(d) * scale, torch.randn(d) * scale\\n        s[p + '
                                               '"ff.linear1.weight"], s[p + "ff.linear1.bias"] = torch.randn(d_ff, d) * scale, torch.randn(d_ff) * scale\\n        s[p + "ff.linear2.weight"], s[p + '
                                               '"ff.linear2.bias"] = torch.randn(d, d_ff) * scale, torch.randn(d) * scale\\n    return s\\n\')  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _ = torch.manual_seed(0)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _m = GPT(11, d_model=8, n_heads=2, n_layers=2, d_ff=16, max_len=6, dropout=0.0).eval()  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _s = _rand_state(11, 8, 2, 16, 6)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _ = _m.load_state_dict(_s)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _cache = empty_cache(_m, 2)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _res = step(_m, torch.tensor([2, 2]), _cache)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert isinstance(_res, tuple) and len(_res) == 2, 'step must return (logits, cache): did you fill in the TODO?'  # doctest: "
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert tuple(_res[0].shape) == (2, 11), f'the logits must be (B, C) = (2, 11), got {tuple(_res[0].shape)}'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               ">>> assert len(_res[1]) == 2 and tuple(_res[1][0][0].shape) == (2, 2, 1, 4), 'the cache must hold one (keys, values) pair per block, each (B, n_h, t + "
                                               "1, d_k) = (2, 2, 1, 4) after the first token'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> _ids = torch.tensor([[2, 5, 7, 1], [2, 10, 4, 4]])  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _want = _m(_ids)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _cache, _got = (empty_cache(_m, 2), [])  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> for _t in range(4):\n'
                                               '...     _logits, _cache = step(_m, torch.tensor(_ids[:, _t].tolist()), _cache)\n'
                                               '...     _got.append(_logits)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> assert torch.allclose(torch.stack(_got, 1), _want, atol=0.0001), "on a small example (2 layers, 4 tokens fed one at a time), the logits of the '
                                               "steps differ from your model's forward pass over the whole sequence (question 2; if that one is wrong, fix it first): position t = cache length, "
                                               'tok_emb + pos_emb, per block x + attention (cached_self_attention on norm1(x)) then x + ff(norm2(x)), the final norm, tied output"  # doctest: '
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _one, _ = step(_m, torch.tensor([2]), empty_cache(_m, 1))  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert tuple(_one.shape) == (1, 11), f'for a batch of one the logits must be (1, C) = (1, 11), got {tuple(_one.shape)}: no squeeze()'  # doctest: "
                                               '+REPORT_ONLY_FIRST_FAILURE\n',
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
