OK_FORMAT = True

test = {   'name': 'q2_mha',
    'points': 3,
    'suites': [   {   'cases': [   {   'code': '>>> _ = torch.manual_seed(0)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _mha = MultiHeadAttention(12, 3)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _x = torch.randn(2, 5, 12)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert tuple(_mha.split_heads(_x).shape) == (2, 3, 5, 4), f'split_heads must give (B, n_h, n, d_k) = (2, 3, 5, 4), got "
                                               "{tuple(_mha.split_heads(_x).shape)}'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               ">>> assert tuple(_mha.merge_heads(torch.randn(2, 3, 5, 4)).shape) == (2, 5, 12), 'merge_heads must give (B, n, d_model) = (2, 5, 12)'  # doctest: "
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert torch.equal(_mha.merge_heads(_mha.split_heads(_x)), _x), 'merge_heads(split_heads(x)) must give x back'  # doctest: "
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _out = _mha(_x, torch.randn(2, 7, 12), torch.randn(2, 7, 12))  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert tuple(_out.shape) == (2, 5, 12), f'forward must return (B, T, d_model) = (2, 5, 12), got {tuple(_out.shape)}'  # doctest: "
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert _mha.weights is not None and tuple(_mha.weights.shape) == (2, 3, 5, 7), 'self.weights must hold the attention weights (B, n_h, T, S) = (2, "
                                               "3, 5, 7): store them; the keys come from W_k(key) and the values from W_v(value) (T = 5 queries, S = 7 keys)'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> _ref = nn.MultiheadAttention(8, 2, batch_first=True)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> with torch.no_grad():\n'
                                               '...     for _p in _ref.parameters():\n'
                                               '...         _ = _p.copy_(torch.randn_like(_p) * 0.5)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _W, _b = (_ref.in_proj_weight.detach().chunk(3), _ref.in_proj_bias.detach().chunk(3))  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> _state = {'W_q.weight': _W[0], 'W_k.weight': _W[1], 'W_v.weight': _W[2], 'W_q.bias': _b[0], 'W_k.bias': _b[1], 'W_v.bias': _b[2], 'W_o.weight': "
                                               "_ref.out_proj.weight.detach(), 'W_o.bias': _ref.out_proj.bias.detach()}  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> _mha = MultiHeadAttention(8, 2)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _ = _mha.load_state_dict(_state, strict=False)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _x, _mem, _val = (torch.randn(2, 3, 8), torch.randn(2, 4, 8), torch.randn(2, 4, 8))  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _real = torch.tensor([[True] * 4, [True, True, True, False]])  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _want, _ = _ref(_x, _mem, _val, key_padding_mask=~_real)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert torch.allclose(_mha(_x, _mem, _val, _real[:, None, None, :]), _want, atol=1e-05), 'on a small example with the same weights (the last key "
                                               'of the second sentence masked), the output differs from torch.nn.MultiheadAttention(8, 2): queries from W_q(query), keys from W_k(key), values from '
                                               "W_v(value), split into heads, attention (pass the mask on), merge, then W_o'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
