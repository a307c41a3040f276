OK_FORMAT = True

test = {   'name': 'q6_decoder_layer',
    'points': 3,
    'suites': [   {   'cases': [   {   'code': '>>> _ = torch.manual_seed(0)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _layer = DecoderLayer(8, 2, 32)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _y = _layer(torch.randn(2, 4, 8), torch.randn(2, 3, 8), torch.ones(4, 4, dtype=torch.bool).tril(), torch.ones(2, 1, 1, 3, dtype=torch.bool))  # '
                                               'doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert isinstance(_y, torch.Tensor) and tuple(_y.shape) == (2, 4, 8), 'DecoderLayer must return (B, T, d_model): did you fill in the TODO?'  # "
                                               'doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> from seqcourse.testing import as_notebook_state  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _ref = nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0, batch_first=True, norm_first=True)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> with torch.no_grad():\n'
                                               '...     for _p in _ref.parameters():\n'
                                               '...         if _p.dim() == 1:\n'
                                               '...             _ = _p.copy_(torch.randn_like(_p) * 0.5)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _layer = DecoderLayer(8, 2, 16, dropout=0.0)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> _ = _layer.load_state_dict(as_notebook_state(_ref, [('self_attn', 'self_attn'), ('cross_attn', 'multihead_attn')]), strict=False)  # doctest: "
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _x, _mem = (torch.randn(2, 4, 8), torch.randn(2, 3, 8))  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _causal, _real = (torch.ones(4, 4, dtype=torch.bool).tril(), torch.tensor([[True, True, True], [True, True, False]]))  # doctest: '
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _want = _ref(_x, _mem, tgt_mask=~_causal, memory_key_padding_mask=~_real)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> assert torch.allclose(_layer(_x, _mem, _causal, _real[:, None, None, :]), _want, atol=1e-05), "on a small example with the same weights, the layer '
                                               'differs from torch.nn.TransformerDecoderLayer(norm_first=True) (this check uses your MultiHeadAttention and FeedForward: pass the checks of questions '
                                               '2 and 5 first): (1) x + self_attn(h, h, h, tgt_mask), h = norm1(x); (2) x + cross_attn(h, memory, memory, src_mask), h = norm2(x); (3) x + '
                                               'ff(norm3(x)); dropout on each sublayer\'s output"  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _layer = DecoderLayer(8, 2, 16, dropout=0.5)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> _ = _layer.load_state_dict(as_notebook_state(_ref, [('self_attn', 'self_attn'), ('cross_attn', 'multihead_attn')]), strict=False)  # doctest: "
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _ = _layer.eval()  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> assert torch.allclose(_layer(_x, _mem, _causal, _real[:, None, None, :]), _want, atol=1e-05), "in eval mode dropout must be off: use the layer\'s '
                                               'self.dropout module (or F.dropout(..., training=self.training)), not F.dropout with its default training=True"  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _layer = DecoderLayer(8, 2, 16, dropout=1.0)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _ = _layer.train()  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> assert torch.allclose(_layer(_x, _mem, _causal, _real[:, None, None, :]), _x), "with dropout p = 1 in training mode each sublayer\'s output is '
                                               "dropped entirely, so the layer must return x unchanged: apply self.dropout to each of the three sublayers' outputs before adding it to x (not to the "
                                               'sum, not to a sublayer\'s input; is a dropout missing?)"  # doctest: +REPORT_ONLY_FIRST_FAILURE\n',
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
