OK_FORMAT = True

test = {   'name': 'q1_block',
    'points': 3,
    'suites': [   {   'cases': [   {   'code': '>>> from seqcourse.testing import define, standin  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _ = torch.manual_seed(0)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _blk = Block(8, 2, 16, dropout=0.0)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _y = _blk(torch.randn(2, 5, 8))  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert isinstance(_y, torch.Tensor) and tuple(_y.shape) == (2, 5, 8), 'Block must return (B, T, d_model) = (2, 5, 8): did you fill in the TODO?'  "
                                               '# doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> exec('\\ndef _as_block(ref):\\n    W, b = ref.self_attn.in_proj_weight.detach().chunk(3), ref.self_attn.in_proj_bias.detach().chunk(3)\\n    s = "
                                               '{f"attn.W_{n}.weight": W[i] for i, n in enumerate("qkv")}\\n    s.update({f"attn.W_{n}.bias": b[i] for i, n in enumerate("qkv")})\\n    '
                                               's["attn.W_o.weight"], s["attn.W_o.bias"] = ref.self_attn.out_proj.weight.detach(), ref.self_attn.out_proj.bias.detach()\\n    for n, p in '
                                               'ref.named_parameters():\\n        if n.startswith(("linear", "norm")):\\n            s[("ff." if n.startswith("linear") else "") + n] = '
                                               "p.detach()\\n    return s\\n')  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               ">>> _ref = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, activation='gelu', batch_first=True, norm_first=True)  # doctest: "
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> with torch.no_grad():\n'
                                               '...     for _p in _ref.parameters():\n'
                                               '...         if _p.dim() == 1:\n'
                                               '...             _ = _p.copy_(torch.randn_like(_p) * 0.5)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _ = _blk.load_state_dict(_as_block(_ref))  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _x = torch.randn(2, 5, 8)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _want = _ref(_x, src_mask=~causal_mask(5), is_causal=False)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> assert torch.allclose(_blk(_x), _want, atol=1e-05), "on a small example with the same weights, the block differs from '
                                               "torch.nn.TransformerEncoderLayer(norm_first=True, activation='gelu') run with a causal mask: x + attn(h, h, h, causal mask) with h = norm1(x), then x "
                                               '+ ff(norm2(x)); is the mask causal (tril, True = may attend) and passed on?"  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> _grads = define('_grads', 'from seqcourse.testing import grads as _grads')  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> _res = _grads(_blk, (_x,), [torch.ones(2, 5, 8)], _blk)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _none = ["the block\'s parameters"] if _res is None else [_n for _n, _g in _res[0].items() if _n.startswith(\'attn.\') and (_g is None or not '
                                               'bool(_g.abs().sum() > 0))]  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> assert not _none, f"no gradient reaches {_none[0]}: no .detach() (or .data, torch.no_grad()) on a sublayer\'s output"  # doctest: '
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _blk = Block(8, 2, 16, dropout=0.5).eval()  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert torch.allclose(_blk(_x), _blk(_x)), 'in eval mode the block must be deterministic: dropout must be off (use self.dropout, or F.dropout(..., "
                                               "training=self.training))'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> _blk = Block(8, 2, 16, dropout=1.0).train()  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> assert torch.allclose(_blk(_x), _x), "with dropout p = 1 in training mode every sublayer\'s output is dropped, so the block must return x '
                                               'unchanged: apply self.dropout to each sublayer\'s output before adding it to x (not to the sum, not to a sublayer\'s input; is a dropout missing?)"  # '
                                               'doctest: +REPORT_ONLY_FIRST_FAILURE\n',
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
