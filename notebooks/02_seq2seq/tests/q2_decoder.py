OK_FORMAT = True

test = {   'name': 'q2_decoder',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': '>>> _ = torch.manual_seed(0)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _dec = Decoder(vocab_size=9, emb_size=4, hidden_size=6, num_layers=2)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _state = (torch.zeros(2, 3, 6), torch.zeros(2, 3, 6))  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _res = _dec(torch.tensor([2, 5, 7]), _state)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert isinstance(_res, tuple) and len(_res) == 2, 'forward must return (logits, (h, c)): did you fill in the TODO?'  # doctest: "
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _logits, (_h, _c) = _res  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert tuple(_logits.shape) == (3, 9), f'logits must be (B, C) = (3, 9), got {tuple(_logits.shape)}: one step, so squeeze the time axis (dim 1)'  "
                                               '# doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert tuple(_h.shape) == (2, 3, 6), 'the new state must have the shape of the old one, (L, B, H)'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n",
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0},
                                   {   'code': '>>> _ = torch.manual_seed(0)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _emb, _rnn, _lin = (nn.Embedding(9, 4), nn.LSTM(4, 6, 2, batch_first=True), nn.Linear(6, 9))  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _dec = Decoder(vocab_size=9, emb_size=4, hidden_size=6, num_layers=2).eval()  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> _ = _dec.load_state_dict({'embedding.weight': _emb.weight.detach(), **{'rnn.' + k: v for k, v in _rnn.state_dict().items()}, **{'out.' + k: v for "
                                               'k, v in _lin.state_dict().items()}}, strict=False)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _tok, _h0, _c0 = (torch.tensor([2, 5, 7]), torch.randn(2, 3, 6), torch.randn(2, 3, 6))  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _logits, (_h, _c) = _dec(_tok, (_h0, _c0))  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> with torch.no_grad():\n'
                                               '...     _o, (_wh, _wc) = _rnn(_emb(_tok)[:, None], (_h0, _c0))\n'
                                               '...     _want = _lin(_o[:, 0])  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert not (torch.allclose(_logits.sum(-1), torch.ones(3), atol=0.001) or torch.allclose(_logits.exp().sum(-1), torch.ones(3), atol=0.001)), 'the "
                                               "logits look like probabilities or log-probabilities (rows sum to 1, or their exp does): return raw scores, no softmax or log_softmax'  # doctest: "
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> assert torch.allclose(_logits, _want, atol=1e-05), "one step\'s logits differ from out(rnn(embedding(token), state)). Feed the given state to '
                                               'self.rnn (embedding -> rnn -> out)"  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> assert torch.allclose(_h, _wh, atol=1e-05) and torch.allclose(_c, _wc, atol=1e-05), "the new (h, c) differs from the LSTM\'s after this step: '
                                               'return the state that self.rnn gives back"  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> from seqcourse.testing import define  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> _grads = define('_grads', 'from seqcourse.testing import grads as _grads')  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> _res = _grads(_dec, (_tok, (_h0, _c0)), [torch.zeros(3, 9), torch.ones(2, 3, 6), torch.ones(2, 3, 6)])  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert _res is not None and _res[1][0] is not None and bool(_res[1][0].abs().sum() > 0), 'no gradient flows from the new (h, c) back to the given "
                                               "state: do not .detach() the state (training backpropagates through every step)'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n",
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0.25},
                                   {   'code': '>>> _ = torch.manual_seed(0)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _emb, _rnn, _lin = (nn.Embedding(9, 4), nn.LSTM(4, 6, batch_first=True), nn.Linear(6, 9))  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> _weights = {'embedding.weight': _emb.weight.detach(), **{'rnn.' + k: v for k, v in _rnn.state_dict().items()}, **{'out.' + k: v for k, v in "
                                               '_lin.state_dict().items()}}  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _dec = Decoder(vocab_size=9, emb_size=4, hidden_size=6, num_layers=1, dropout=1.0).train()  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _ = _dec.load_state_dict(_weights, strict=False)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _tok, _h0, _c0 = (torch.tensor([2, 5, 7]), torch.randn(1, 3, 6), torch.randn(1, 3, 6))  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _logits, (_h, _c) = _dec(_tok, (_h0, _c0))  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> with torch.no_grad():\n'
                                               '...     _zo, _ = _rnn(torch.zeros(3, 1, 4), (_h0, _c0))\n'
                                               "...     assert torch.allclose(_logits, _lin(_zo[:, 0]), atol=1e-05), 'with dropout=1.0 in training mode the embedding is dropped (zero), so the logits "
                                               "must be out(rnn(zeros, state)): apply self.dropout to the embedding (embed, then dropout), and nowhere else'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> _ = _dec.eval()  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _logits, _ = _dec(_tok[:1], (_h0[:, :1], _c0[:, :1]))  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> with torch.no_grad():\n'
                                               '...     _ro, _ = _rnn(_emb(_tok[:1])[:, None], (_h0[:, :1], _c0[:, :1]))  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert tuple(_logits.shape) == (1, 9), f'for a batch of one sentence the logits must be (1, C) = (1, 9), got {tuple(_logits.shape)}: squeeze only "
                                               "the time axis, squeeze(1)'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               ">>> assert torch.allclose(_logits, _lin(_ro[:, 0]).detach(), atol=1e-05), 'with dropout=1.0 in eval mode the decoder must not drop anything: dropout "
                                               "is off after model.eval() (use self.dropout, or F.dropout(..., training=self.training))'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n",
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0.25}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
