OK_FORMAT = True

test = {   'name': 'q6_lm',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': '>>> _ = torch.manual_seed(0)\n'
                                               '>>> _lm = LSTMLanguageModel(vocab_size=11, emb_size=4, hidden_size=6)\n'
                                               '>>> _res = _lm(torch.randint(0, 11, (3, 5)))\n'
                                               ">>> assert isinstance(_res, tuple) and len(_res) == 2, 'forward must return (logits, (h_T, c_T))'\n"
                                               '>>> _logits, (_h, _c) = _res\n'
                                               '>>> assert tuple(_logits.shape) == (3, 5, 11), f"logits must be (B, T, V) = (3, 5, 11), got {tuple(_logits.shape)}: apply self.out to every step\'s '
                                               'hidden state, not only the last"\n'
                                               '>>> assert tuple(_h.shape) == (3, 6), "the returned state must be the LSTM\'s (h_T, c_T), each (B, H)"\n',
                                       'hidden': False,
                                       'locked': False},
                                   {   'code': '>>> _ = torch.manual_seed(0)\n'
                                               '>>> _emb, _rl, _lin = (torch.nn.Embedding(7, 3, padding_idx=0), torch.nn.LSTM(3, 4, batch_first=True), torch.nn.Linear(4, 7))\n'
                                               ">>> _sd = {'embedding.weight': _emb.weight.detach(), 'out.weight': _lin.weight.detach(), 'out.bias': _lin.bias.detach()}\n"
                                               ">>> _sd.update({'lstm.cell.' + _n: getattr(_rl, _n + '_l0').detach() for _n in ('weight_ih', 'weight_hh', 'bias_ih', 'bias_hh')})\n"
                                               '>>> _lm = LSTMLanguageModel(vocab_size=7, emb_size=3, hidden_size=4)\n'
                                               '>>> _ = _lm.load_state_dict(_sd, strict=False)\n'
                                               '>>> _tok = torch.tensor([[1, 4, 2, 6], [3, 3, 5, 0]])\n'
                                               '>>> with torch.no_grad():\n'
                                               '...     _ro, (_rh, _rc) = _rl(_emb(_tok))\n'
                                               '...     _want = _lin(_ro)\n'
                                               '>>> _logits, (_h, _c) = _lm(_tok)\n'
                                               ">>> assert torch.allclose(_logits, _want, atol=1e-05), 'on a small fixed example (V = 7, E = 3, H = 4) the logits differ from embedding -> "
                                               'torch.nn.LSTM -> self.out with the same weights: use self.embedding, your self.lstm and self.out, in that order, on every step, and return raw logits '
                                               "(no softmax)'\n"
                                               '>>> assert torch.allclose(_h, _rh[0], atol=1e-05) and torch.allclose(_c, _rc[0], atol=1e-05), "on a small fixed example the returned state differs '
                                               'from the LSTM\'s final (h_T, c_T)"\n',
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
