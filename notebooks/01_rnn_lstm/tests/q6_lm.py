OK_FORMAT = True

test = {   'name': 'q6_lm',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': '>>> _ = torch.manual_seed(0)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _emb, _rl, _lin = (torch.nn.Embedding(11, 4, padding_idx=0), torch.nn.LSTM(4, 6, batch_first=True), torch.nn.Linear(6, 11))  # doctest: '
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> _sd = {'embedding.weight': _emb.weight.detach(), 'out.weight': _lin.weight.detach(), 'out.bias': _lin.bias.detach()}  # doctest: "
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> _sd.update({'lstm.cell.' + _n: getattr(_rl, _n + '_l0').detach() for _n in ('weight_ih', 'weight_hh', 'bias_ih', 'bias_hh')})  # doctest: "
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _lm = LSTMLanguageModel(vocab_size=11, emb_size=4, hidden_size=6)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _ = _lm.load_state_dict(_sd, strict=False)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _tok = torch.randint(0, 11, (3, 5))  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _res = _lm(_tok)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert isinstance(_res, tuple) and len(_res) == 2, 'forward must return (logits, (h_T, c_T))'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> _logits, (_h, _c) = _res  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> assert tuple(_logits.shape) == (3, 5, 11), f"logits must be (B, T, C) = (3, 5, 11), got {tuple(_logits.shape)}: apply self.out to every step\'s '
                                               'hidden state, not only the last"  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> assert tuple(_h.shape) == (3, 6), "the returned state must be the LSTM\'s (h_T, c_T), each (B, H)"  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> with torch.no_grad():\n'
                                               '...     _ro, (_rh, _rc) = _rl(_emb(_tok))\n'
                                               '...     _want = _lin(_ro)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert torch.allclose(_logits, _want, atol=1e-05), '(C, E, H) = (11, 4, 6): the shapes are right but the logits differ from embedding -> "
                                               'torch.nn.LSTM -> self.out with the same weights: use self.embedding, your self.lstm and self.out, in that order, on every step, and return raw logits '
                                               "(no softmax; and your LSTM must be right: question 4)'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> assert torch.allclose(_h, _rh[0], atol=1e-05) and torch.allclose(_c, _rc[0], atol=1e-05), "(C, E, H) = (11, 4, 6): the returned state differs from '
                                               'the LSTM\'s final (h_T, c_T): return the state your self.lstm returns"  # doctest: +REPORT_ONLY_FIRST_FAILURE\n',
                                       'hidden': False,
                                       'locked': False},
                                   {   'code': '>>> _ = torch.manual_seed(0)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _emb, _rl, _lin = (torch.nn.Embedding(7, 3, padding_idx=0), torch.nn.LSTM(3, 4, batch_first=True), torch.nn.Linear(4, 7))  # doctest: '
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> _sd = {'embedding.weight': _emb.weight.detach(), 'out.weight': _lin.weight.detach(), 'out.bias': _lin.bias.detach()}  # doctest: "
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> _sd.update({'lstm.cell.' + _n: getattr(_rl, _n + '_l0').detach() for _n in ('weight_ih', 'weight_hh', 'bias_ih', 'bias_hh')})  # doctest: "
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _lm = LSTMLanguageModel(vocab_size=7, emb_size=3, hidden_size=4)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _ = _lm.load_state_dict(_sd, strict=False)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _tok = torch.tensor([[1, 4, 2, 6], [3, 3, 5, 0]])  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> with torch.no_grad():\n'
                                               '...     _ro, (_rh, _rc) = _rl(_emb(_tok))\n'
                                               '...     _want = _lin(_ro)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _logits, (_h, _c) = _lm(_tok)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert torch.allclose(_logits, _want, atol=1e-05), 'on a small fixed example (C = 7, E = 3, H = 4) the logits differ from embedding -> "
                                               'torch.nn.LSTM -> self.out with the same weights: use self.embedding, your self.lstm and self.out, in that order, on every step, and return raw logits '
                                               "(no softmax)'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> assert torch.allclose(_h, _rh[0], atol=1e-05) and torch.allclose(_c, _rc[0], atol=1e-05), "on a small fixed example the returned state differs '
                                               'from the LSTM\'s final (h_T, c_T)"  # doctest: +REPORT_ONLY_FIRST_FAILURE\n',
                                       'hidden': False,
                                       'locked': False},
                                   {   'code': '>>> from seqcourse.testing import define  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> _grads = define('_grads', 'from seqcourse.testing import grads as _grads')  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> _ = torch.manual_seed(0)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _emb, _rl, _lin = (torch.nn.Embedding(7, 3, padding_idx=0), torch.nn.LSTM(3, 4, batch_first=True), torch.nn.Linear(4, 7))  # doctest: '
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> _sd = {'embedding.weight': _emb.weight.detach(), 'out.weight': _lin.weight.detach(), 'out.bias': _lin.bias.detach()}  # doctest: "
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> _sd.update({'lstm.cell.' + _n: getattr(_rl, _n + '_l0').detach() for _n in ('weight_ih', 'weight_hh', 'bias_ih', 'bias_hh')})  # doctest: "
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _lm = LSTMLanguageModel(vocab_size=7, emb_size=3, hidden_size=4)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _ = _lm.load_state_dict(_sd, strict=False)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _tok = torch.tensor([[1, 4, 2, 6], [3, 3, 5, 0]])  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _w = torch.linspace(-1, 1, 56).reshape(2, 4, 7)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _res = _grads(_lm, (_tok,), [_w], _lm)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert _res is not None, 'the logits carry no gradient at all: something cuts the graph (.detach(), .data, torch.no_grad() or .item() in "
                                               "forward)'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> _pg, _ = _res  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> (_lin(_rl(_emb(_tok))[0]) * _w).sum().backward()  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> _want = {'embedding.weight': _emb.weight.grad, 'out.weight': _lin.weight.grad, 'out.bias': _lin.bias.grad}  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               ">>> _want.update({'lstm.cell.' + _n: getattr(_rl, _n + '_l0').grad for _n in ('weight_ih', 'weight_hh', 'bias_ih', 'bias_hh')})  # doctest: "
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _bad = [_n for _n, _r in _want.items() if _pg.get(_n) is None or not torch.allclose(_pg[_n], _r, atol=1e-05)]  # doctest: '
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> assert not _bad, f"on the small fixed example the gradients of {_bad} are missing or differ from embedding -> torch.nn.LSTM -> Linear\'s: do not '
                                               'detach the embeddings or the LSTM\'s outputs (no .data, torch.no_grad())"  # doctest: +REPORT_ONLY_FIRST_FAILURE\n',
                                       'hidden': False,
                                       'locked': False},
                                   {   'code': '>>> from seqcourse.testing import define  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> _device_problem = define('_device_problem', 'from seqcourse.testing import device_problem as _device_problem')  # doctest: "
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _ = torch.manual_seed(0)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _emb, _rl, _lin = (torch.nn.Embedding(13, 5, padding_idx=0), torch.nn.LSTM(5, 7, batch_first=True), torch.nn.Linear(7, 13))  # doctest: '
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> _sd = {'embedding.weight': _emb.weight.detach(), 'out.weight': _lin.weight.detach(), 'out.bias': _lin.bias.detach()}  # doctest: "
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> _sd.update({'lstm.cell.' + _n: getattr(_rl, _n + '_l0').detach() for _n in ('weight_ih', 'weight_hh', 'bias_ih', 'bias_hh')})  # doctest: "
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _lm = LSTMLanguageModel(vocab_size=13, emb_size=5, hidden_size=7)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _ = _lm.load_state_dict(_sd, strict=False)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _tok = torch.randint(1, 13, (2, 4))  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> with torch.no_grad():\n'
                                               '...     _ro, (_rh, _rc) = _rl(_emb(_tok))\n'
                                               '...     _want = _lin(_ro)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _logits, (_h, _c) = _lm(_tok)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert torch.allclose(_logits, _want, atol=1e-05) and torch.allclose(_h, _rh[0], atol=1e-05) and torch.allclose(_c, _rc[0], atol=1e-05), 'on the "
                                               'CPU (logits, (h_T, c_T)) differ from embedding -> torch.nn.LSTM -> self.out with the same weights (this check of devices needs the right values '
                                               'first): use self.embedding, your self.lstm and self.out, in that order, on every step, return raw logits and the state your self.lstm returns (and '
                                               "your LSTM must be right: question 4)'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> _p = _device_problem(_lm, (_tok,), _lm)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> assert _p is None, f"with the model and the tokens on another device than the CPU and state = None, your model fails ({_p}): create no tensor on '
                                               'the default device in forward (pass state = None on to your LSTM, which makes its zeros on x\'s device)"  # doctest: +REPORT_ONLY_FIRST_FAILURE\n',
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
