OK_FORMAT = True

test = {   'name': 'q5_decoder',
    'points': 3,
    'suites': [   {   'cases': [   {   'code': '>>> _ = torch.manual_seed(0)\n'
                                               '>>> _dec = AttentionDecoder(vocab_size=9, emb_size=4, hidden_size=6, memory_size=6, score=DotScore())\n'
                                               '>>> _res = _dec(torch.tensor([2, 5, 7]), torch.zeros(3, 6), torch.zeros(3, 4), torch.randn(3, 5, 6), torch.ones(3, 5, dtype=torch.bool))\n'
                                               ">>> assert isinstance(_res, tuple) and len(_res) == 3, 'forward must return (h, feed, weights): did you fill in the TODO?'\n"
                                               ">>> assert tuple(_res[0].shape) == (3, 6), f'h_t must be (B, H) = (3, 6), got {tuple(_res[0].shape)}'\n"
                                               ">>> assert tuple(_res[1].shape) == (3, 4), f'the attentional vector h~_t must be (B, E) = (3, 4), got {tuple(_res[1].shape)}: W_c maps [c_t; h_t] to "
                                               "E'\n"
                                               ">>> assert tuple(_res[2].shape) == (3, 5), f'the weights must be (B, S) = (3, 5), got {tuple(_res[2].shape)}'\n"
                                               '>>> from seqcourse.testing import define\n'
                                               '>>> _Dot = define(\'_Dot\', \'\\nclass _Dot(nn.Module):\\n    def forward(self, query, keys):\\n        return torch.einsum("bd,bsd->bs", query, '
                                               "keys)\\n')\n"
                                               '>>> _emb, _gru, _Wc = (nn.Embedding(9, 4, padding_idx=PAD_ID), nn.GRUCell(8, 6), nn.Linear(12, 4, bias=False))\n'
                                               '>>> _dec = AttentionDecoder(vocab_size=9, emb_size=4, hidden_size=6, memory_size=6, score=_Dot())\n'
                                               ">>> _ = _dec.load_state_dict({'embedding.weight': _emb.weight.detach(), 'out.weight': _emb.weight.detach(), 'W_c.weight': _Wc.weight.detach(), "
                                               "**{'rnn.' + _n: _p.detach() for _n, _p in _gru.named_parameters()}}, strict=False)\n"
                                               '>>> _tok, _h, _feed = (torch.tensor([2, 5, 7]), torch.randn(3, 6), torch.randn(3, 4))\n'
                                               '>>> _mem, _mask = (torch.randn(3, 5, 6), torch.tensor([[True] * 5, [True] * 3 + [False] * 2, [True] * 4 + [False]]))\n'
                                               '>>> _res = _dec(_tok, _h, _feed, _mem, _mask)\n'
                                               '>>> with torch.no_grad():\n'
                                               '...     _want_h = _gru(torch.cat([_emb(_tok), _feed], -1), _h)\n'
                                               "...     _want_w = torch.softmax(torch.einsum('bd,bsd->bs', _want_h, _mem).masked_fill(~_mask, float('-inf')), -1)\n"
                                               "...     _want_feed = torch.tanh(_Wc(torch.cat([torch.einsum('bs,bsd->bd', _want_w, _mem), _want_h], -1)))\n"
                                               ">>> assert torch.allclose(_res[0], _want_h, atol=1e-05), 'with fixed weights h_t is wrong: h_t = self.rnn([e(y_{t-1}); h~_{t-1}], h_{t-1}) (input "
                                               "feeding: the embedding, then the fed vector)'\n"
                                               ">>> assert torch.allclose(_res[2], _want_w, atol=1e-05), 'with fixed weights the attention weights are wrong: attend with the NEW state h_t over the "
                                               "memory, passing the mask (uses your attention from question 4)'\n"
                                               ">>> assert torch.allclose(_res[1], _want_feed, atol=1e-05), 'with fixed weights h~_t is wrong: h~_t = tanh(W_c [c_t; h_t]), the context first'\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
