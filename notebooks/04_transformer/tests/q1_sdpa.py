OK_FORMAT = True

test = {   'name': 'q1_sdpa',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': '>>> _ = torch.manual_seed(0)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _res = scaled_dot_product_attention(torch.randn(2, 5, 4), torch.randn(2, 7, 4), torch.randn(2, 7, 3))  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert isinstance(_res, tuple) and len(_res) == 2, 'scaled_dot_product_attention must return (output, weights): did you fill in the TODO?'  # "
                                               'doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert tuple(_res[0].shape) == (2, 5, 3), f'output must be (B, T, d_v) = (2, 5, 3), got {tuple(_res[0].shape)}'  # doctest: "
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert tuple(_res[1].shape) == (2, 5, 7), f'weights must be (B, T, S) = (2, 5, 7), got {tuple(_res[1].shape)}: one weight per query and key'  # "
                                               'doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert torch.allclose(_res[1].sum(-1), torch.ones(2, 5), atol=1e-05), 'each row of weights must sum to 1: softmax over the keys (dim=-1)'  # "
                                               'doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _q, _k, _v = (torch.randn(1, 2, 3, 4), torch.randn(1, 2, 5, 4), torch.randn(1, 2, 5, 2))  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _mask = torch.tensor([[True, True, False, True, False]])[:, None, None, :]  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _out, _w = scaled_dot_product_attention(_q, _k, _v, _mask)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert torch.allclose(_out, F.scaled_dot_product_attention(_q, _k, _v, attn_mask=_mask), atol=1e-05), 'on a small example (2 heads, 3 queries, 5 "
                                               'keys, 2 of them masked) the output differs from torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=mask): softmax over the keys of q '
                                               "k^T / sqrt(d_k), masked keys filled with -inf, times v'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> _q, _k, _v = (torch.randn(1, 3, 8) * 30, torch.randn(1, 4, 8) * 30, torch.randn(1, 4, 2))  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _out, _w = scaled_dot_product_attention(_q, _k, _v)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> assert bool(torch.isfinite(_out).all()) and bool(torch.isfinite(_w).all()), "scores of large magnitude (here about 1000) give inf or NaN: compute '
                                               'the softmax with torch.softmax (or subtract each row\'s maximum before exp), not exp(scores) / exp(scores).sum()"  # doctest: '
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert torch.allclose(_out, F.scaled_dot_product_attention(_q, _k, _v), atol=0.0001, rtol=0.0001), 'with scores of large magnitude the output "
                                               "differs from torch.nn.functional.scaled_dot_product_attention: compute the softmax with torch.softmax (numerically stable)'  # doctest: "
                                               '+REPORT_ONLY_FIRST_FAILURE\n',
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
