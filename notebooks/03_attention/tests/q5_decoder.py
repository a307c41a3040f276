OK_FORMAT = True

test = {   'name': 'q5_decoder',
    'points': 3,
    'suites': [   {   'cases': [   {   'code': '>>> _ = torch.manual_seed(0)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _dec = AttentionDecoder(vocab_size=9, emb_size=4, hidden_size=6, memory_size=6, score=DotScore())  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _res = _dec(torch.tensor([2, 5, 7]), torch.zeros(3, 6), torch.zeros(3, 4), torch.randn(3, 5, 6), torch.ones(3, 5, dtype=torch.bool))  # doctest: '
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert isinstance(_res, tuple) and len(_res) == 3, 'forward must return (h, feed, weights): did you fill in the TODO?'  # doctest: "
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert tuple(_res[0].shape) == (3, 6), f'h_t must be (B, H) = (3, 6), got {tuple(_res[0].shape)}'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               ">>> assert tuple(_res[1].shape) == (3, 4), f'the attentional vector h~_t must be (B, E) = (3, 4), got {tuple(_res[1].shape)}: W_c maps [c_t; h_t] to "
                                               "E'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               ">>> assert tuple(_res[2].shape) == (3, 5), f'the weights must be (B, S) = (3, 5), got {tuple(_res[2].shape)}'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> from seqcourse.testing import define, standin  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> _Dot = define('_Dot', '\\nimport torch.nn as nn\\nimport torch\\nclass _Dot(nn.Module):\\n    def forward(self, query, keys):\\n        return "
                                               'torch.einsum("bd,bsd->bs", query, keys)\\n\')  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _emb, _gru, _Wc = (nn.Embedding(9, 4, padding_idx=PAD_ID), nn.GRUCell(8, 6), nn.Linear(12, 4, bias=False))  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _dec = AttentionDecoder(vocab_size=9, emb_size=4, hidden_size=6, memory_size=6, score=_Dot())  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> _ = _dec.load_state_dict({'embedding.weight': _emb.weight.detach(), 'out.weight': _emb.weight.detach(), 'W_c.weight': _Wc.weight.detach(), "
                                               "**{'rnn.' + _n: _p.detach() for _n, _p in _gru.named_parameters()}}, strict=False)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> _tok, _h, _feed = (torch.tensor([2, 5, 7]), torch.randn(3, 6), torch.randn(3, 4))  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _mem, _mask = (torch.randn(3, 5, 6), torch.tensor([[True] * 5, [True] * 3 + [False] * 2, [True] * 4 + [False]]))  # doctest: '
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _res = _dec(_tok, _h, _feed, _mem, _mask)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> with torch.no_grad():\n'
                                               '...     _want_h = _gru(torch.cat([_emb(_tok), _feed], -1), _h)\n'
                                               "...     _want_w = torch.softmax(torch.einsum('bd,bsd->bs', _want_h, _mem).masked_fill(~_mask, float('-inf')), -1)\n"
                                               "...     _want_feed = torch.tanh(_Wc(torch.cat([torch.einsum('bs,bsd->bd', _want_w, _mem), _want_h], -1)))  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               ">>> assert torch.allclose(_res[0], _want_h, atol=1e-05), 'with fixed weights h_t is wrong: h_t = self.rnn([e(y_{t-1}); h~_{t-1}], h_{t-1}) (input "
                                               "feeding: the embedding, then the fed vector)'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               ">>> assert torch.allclose(_res[2], _want_w, atol=1e-05), 'with fixed weights the attention weights are wrong: attend with the NEW state h_t over the "
                                               "memory, passing the mask (uses your attention from question 4)'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               ">>> assert torch.allclose(_res[1], _want_feed, atol=1e-05), 'with fixed weights h~_t is wrong: h~_t = tanh(W_c [c_t; h_t]), the context first'  # "
                                               'doctest: +REPORT_ONLY_FIRST_FAILURE\n',
                                       'hidden': False,
                                       'locked': False},
                                   {   'code': '>>> from seqcourse.testing import define, standin  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> _grads = define('_grads', 'from seqcourse.testing import grads as _grads')  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               ">>> _Dot = define('_Dot', '\\nimport torch.nn as nn\\nimport torch\\nclass _Dot(nn.Module):\\n    def forward(self, query, keys):\\n        return "
                                               'torch.einsum("bd,bsd->bs", query, keys)\\n\')  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _ = torch.manual_seed(1)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _emb, _gru, _Wc = (nn.Embedding(9, 4, padding_idx=PAD_ID), nn.GRUCell(8, 6), nn.Linear(12, 4, bias=False))  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> _state = {'embedding.weight': _emb.weight.detach(), 'out.weight': _emb.weight.detach(), 'W_c.weight': _Wc.weight.detach(), **{'rnn.' + _n: "
                                               '_p.detach() for _n, _p in _gru.named_parameters()}}  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _dec = AttentionDecoder(vocab_size=9, emb_size=4, hidden_size=6, memory_size=6, score=_Dot(), dropout=1.0)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _ = _dec.load_state_dict(_state, strict=False)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _tok, _h, _feed = (torch.tensor([2, 5, 7]), torch.randn(3, 6), torch.randn(3, 4))  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _mem, _mask = (torch.randn(3, 5, 6), torch.tensor([[True] * 5, [True] * 3 + [False] * 2, [True] * 4 + [False]]))  # doctest: '
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _res = _dec(_tok, _h, _feed, _mem, _mask)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert isinstance(_res, tuple) and len(_res) == 3, 'forward must return (h, feed, weights)'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> with torch.no_grad():\n'
                                               '...     _want_h = _gru(torch.cat([torch.zeros(3, 4), _feed], -1), _h)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert isinstance(_res[1], torch.Tensor) and torch.equal(_res[1], torch.zeros(3, 4)), 'with dropout p = 1 in training mode h~_t must be all zeros: "
                                               "apply self.dropout to tanh(W_c [c_t; h_t])'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               ">>> assert isinstance(_res[0], torch.Tensor) and torch.allclose(_res[0], _want_h, atol=1e-05), 'with dropout p = 1 in training mode h_t must be "
                                               "GRU([0; h~_{t-1}], h_{t-1}): apply self.dropout to the embedding, and only to it (not to the fed vector h~_{t-1}, not to h_t)'  # doctest: "
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _ = _dec.eval()  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _res = _dec(_tok, _h, _feed, _mem, _mask)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> with torch.no_grad():\n'
                                               '...     _want_h = _gru(torch.cat([_emb(_tok), _feed], -1), _h)\n'
                                               "...     _want_w = torch.softmax(torch.einsum('bd,bsd->bs', _want_h, _mem).masked_fill(~_mask, float('-inf')), -1)\n"
                                               "...     _want_feed = torch.tanh(_Wc(torch.cat([torch.einsum('bs,bsd->bd', _want_w, _mem), _want_h], -1)))  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               ">>> assert all((torch.allclose(_r, _w, atol=1e-05) for _r, _w in zip(_res, (_want_h, _want_feed, _want_w)))), 'in eval mode dropout must do nothing "
                                               "(here p = 1): use the module self.dropout, or F.dropout(x, p, training=self.training); F.dropout(x, p) drops also in eval mode'  # doctest: "
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _ch, _cf, _cw = (torch.randn(3, 6), torch.randn(3, 4), torch.randn(3, 5))  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _res = _grads(_dec, (_tok, _h, _feed, _mem, _mask), [_ch, _cf, _cw], _dec)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _hr, _fr, _mr = (t.clone().requires_grad_(True) for t in (_h, _feed, _mem))  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _hn = _gru(torch.cat([_emb(_tok), _fr], -1), _hr)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> _wn = torch.softmax(torch.einsum('bd,bsd->bs', _hn, _mr).masked_fill(~_mask, float('-inf')), -1)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               ">>> _fn = torch.tanh(_Wc(torch.cat([torch.einsum('bs,bsd->bd', _wn, _mr), _hn], -1)))  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> ((_hn * _ch).sum() + (_fn * _cf).sum() + (_wn * _cw).sum()).backward()  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert _res is not None, 'the outputs carry no gradient: keep every step of forward differentiable (no .detach(), .data or numpy)'  # doctest: "
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> assert isinstance(_res[1][0], torch.Tensor) and torch.allclose(_res[1][0], _hr.grad, atol=1e-05), "the gradient with respect to the previous state '
                                               'h_{t-1} is wrong or missing: don\'t detach h (or use .data) in the recurrence"  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert isinstance(_res[1][1], torch.Tensor) and torch.allclose(_res[1][1], _fr.grad, atol=1e-05), 'the gradient with respect to the fed vector "
                                               "h~_{t-1} is wrong or missing: input feeding must stay differentiable (no .detach() or .data)'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> assert isinstance(_res[1][2], torch.Tensor) and torch.allclose(_res[1][2], _mr.grad, atol=1e-05), "the gradient with respect to the memory (the '
                                               'encoder\'s outputs) is wrong or missing: don\'t detach the memory or the context"  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert isinstance(_res[0].get('W_c.weight'), torch.Tensor) and torch.allclose(_res[0]['W_c.weight'], _Wc.weight.grad, atol=1e-05), 'no (or a "
                                               "wrong) gradient reaches W_c.weight (no .detach() or .data in forward)'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
