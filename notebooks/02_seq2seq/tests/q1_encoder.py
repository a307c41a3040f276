OK_FORMAT = True

test = {   'name': 'q1_encoder',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': '>>> _ = torch.manual_seed(0)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _enc = Encoder(vocab_size=10, emb_size=4, hidden_size=6, num_layers=2)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _src = torch.tensor([[2, 5, 6, 3, 0], [2, 7, 3, 0, 0], [2, 4, 8, 9, 3]])  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _res = _enc(_src, torch.tensor([4, 3, 5]))  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert isinstance(_res, tuple) and len(_res) == 2, 'forward must return (outputs, (h, c)): did you fill in the TODO?'  # doctest: "
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _out, (_h, _c) = _res  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert tuple(_out.shape) == (3, 5, 6), f'outputs must be (B, S, H) = (3, 5, 6), got {tuple(_out.shape)}: batch_first, and unpack with "
                                               "total_length=src.size(1)'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> assert tuple(_h.shape) == (2, 3, 6) and tuple(_c.shape) == (2, 3, 6), f"h and c must be (L, B, H) = (2, 3, 6), got {tuple(_h.shape)}: return the '
                                               'LSTM\'s whole final state"  # doctest: +REPORT_ONLY_FIRST_FAILURE\n',
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0},
                                   {   'code': '>>> _ = torch.manual_seed(0)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _emb, _rnn = (nn.Embedding(10, 4), nn.LSTM(4, 6, 2, batch_first=True))  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _enc = Encoder(vocab_size=10, emb_size=4, hidden_size=6, num_layers=2).eval()  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> _ = _enc.load_state_dict({'embedding.weight': _emb.weight.detach(), **{'rnn.' + k: v for k, v in _rnn.state_dict().items()}}, strict=False)  # "
                                               'doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _src, _len = (torch.tensor([[2, 5, 6, 3, 0], [2, 7, 3, 0, 0], [2, 4, 8, 9, 3]]), torch.tensor([4, 3, 5]))  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _out, (_h, _c) = _enc(_src, _len)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> with torch.no_grad():\n'
                                               '...     for _b in range(3):\n'
                                               '...         _alone, (_ah, _ac) = _rnn(_emb(_src[_b:_b + 1, :_len[_b]]))\n'
                                               "...         assert torch.allclose(_h[:, _b], _ah[:, 0], atol=1e-05) and torch.allclose(_c[:, _b], _ac[:, 0], atol=1e-05), f'sentence {_b} (length "
                                               '{int(_len[_b])}): the final state differs from nn.LSTM run on the sentence alone. The LSTM ran over the padding: pack the embeddings with '
                                               "pack_padded_sequence(..., src_len.cpu(), batch_first=True, enforce_sorted=False)'\n"
                                               "...         assert torch.allclose(_out[_b, :_len[_b]], _alone[0], atol=1e-05), f'sentence {_b}: outputs at real positions differ from nn.LSTM run on "
                                               "the sentence alone (embedding -> dropout -> rnn)'\n"
                                               "...         assert bool((_out[_b, _len[_b]:] == 0).all()), 'outputs at padded positions must be zero (pad_packed_sequence does this)'  # doctest: "
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> from seqcourse.testing import define  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> _grads = define('_grads', 'from seqcourse.testing import grads as _grads')  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> _res = _grads(_enc, (_src, _len), [torch.ones(3, 5, 6)], _enc)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> _g = None if _res is None else _res[0].get('embedding.weight')  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               ">>> assert _g is not None and bool(_g.abs().sum() > 0), 'the outputs carry no gradient of embedding.weight: do not .detach() the embeddings (no .data "
                                               "or torch.no_grad() in forward)'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n",
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0.25},
                                   {   'code': '>>> _ = torch.manual_seed(0)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _emb, _rnn = (nn.Embedding(10, 4), nn.LSTM(4, 6, batch_first=True))  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> _weights = {'embedding.weight': _emb.weight.detach(), **{'rnn.' + k: v for k, v in _rnn.state_dict().items()}}  # doctest: "
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _src, _len = (torch.tensor([[2, 5, 6, 3, 0], [2, 7, 3, 0, 0]]), torch.tensor([4, 3]))  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _enc = Encoder(vocab_size=10, emb_size=4, hidden_size=6, num_layers=1, dropout=1.0).train()  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _ = _enc.load_state_dict(_weights, strict=False)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _out, (_h, _c) = _enc(_src, _len)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> assert tuple(_out.shape) == (2, 5, 6), f"outputs must be (B, S, H) = (2, 5, 6) also when every sentence is shorter than the batch\'s S = 5 '
                                               'positions, got {tuple(_out.shape)}: unpack with total_length=src.size(1)"  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> with torch.no_grad():\n'
                                               '...     for _b in range(2):\n'
                                               '...         _zo, (_zh, _zc) = _rnn(torch.zeros(1, int(_len[_b]), 4))\n'
                                               "...         assert torch.allclose(_h[:, _b], _zh[:, 0], atol=1e-05) and torch.allclose(_out[_b, :_len[_b]], _zo[0], atol=1e-05), 'with dropout=1.0 in "
                                               'training mode every embedding is dropped (zero), so the LSTM must read zeros: apply self.dropout to the embeddings (embed, then dropout), and nowhere '
                                               "else'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> _ = _enc.eval()  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _out, (_h, _c) = _enc(_src, _len)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> with torch.no_grad():\n'
                                               '...     for _b in range(2):\n'
                                               '...         _ro, (_rh, _rc) = _rnn(_emb(_src[_b:_b + 1, :_len[_b]]))\n'
                                               "...         assert torch.allclose(_h[:, _b], _rh[:, 0], atol=1e-05), 'with dropout=1.0 in eval mode the encoder must not drop anything: dropout is off "
                                               "after model.eval() (use self.dropout, or F.dropout(..., training=self.training))'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> _ = _enc.train()  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _out, (_h, _c) = _enc(_src, _len)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> with torch.no_grad():\n'
                                               '...     _zo, (_zh, _zc) = _rnn(torch.zeros(1, 4, 4))  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> assert torch.allclose(_h[:, 0], _zh[:, 0], atol=1e-05), "back in training mode after eval(), dropout=1.0 must drop every embedding again: leave '
                                               'self.dropout\'s settings (its p) as they are"  # doctest: +REPORT_ONLY_FIRST_FAILURE\n',
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0.25},
                                   {   'code': '>>> from seqcourse.testing import define  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> _on_device = define('_on_device', 'from seqcourse.testing import on_device as _on_device')  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> _ = torch.manual_seed(1)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _emb, _rnn = (nn.Embedding(10, 4), nn.LSTM(4, 6, batch_first=True))  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _enc = Encoder(vocab_size=10, emb_size=4, hidden_size=6, num_layers=1).eval()  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> _ = _enc.load_state_dict({'embedding.weight': _emb.weight.detach(), **{'rnn.' + k: v for k, v in _rnn.state_dict().items()}})  # doctest: "
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _src, _len = (torch.tensor([[2, 5, 6, 3], [2, 7, 3, 0]]), torch.tensor([4, 3]))  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _problem, _res = _on_device(_enc, (_src, _len), _enc)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert _problem is None, f'with the encoder, src and src_len on a GPU (the training loop moves the whole batch there, lengths included), forward "
                                               "fails ({_problem}): pack_padded_sequence wants the lengths on the CPU (src_len.cpu())'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> with torch.no_grad():\n'
                                               '...     _, (_rh, _) = _rnn(_emb(_src[1:, :3]))  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert isinstance(_res, tuple) and len(_res) == 2 and torch.allclose(_res[1][0][:, 1], _rh[:, 0], atol=1e-05), 'on a GPU the final state of the "
                                               "shorter sentence differs from nn.LSTM run on it alone: pack with the lengths'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n",
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
