OK_FORMAT = True

test = {   'name': 'q3_seq2seq',
    'points': 3,
    'suites': [   {   'cases': [   {   'code': '>>> _ = torch.manual_seed(0)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _model = Seq2Seq(Encoder(10, 4, 6), Decoder(8, 4, 6))  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _tgt = torch.tensor([[2, 5, 6, 7, 3], [2, 4, 3, 0, 0]])  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _logits = _model(torch.tensor([[2, 5, 3], [2, 6, 3]]), torch.tensor([3, 3]), _tgt)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert isinstance(_logits, torch.Tensor), 'forward must return the stacked logits: did you fill in the TODO?'  # doctest: "
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert tuple(_logits.shape) == (2, 4, 8), f'logits must be (B, T-1, C) = (2, 4, 8), got {tuple(_logits.shape)}: T-1 steps, reading tgt[:, :-1] and "
                                               "predicting tgt[:, 1:] (never feed <eos>)'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n",
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0},
                                   {   'code': '>>> _ = torch.manual_seed(0)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _eemb, _ernn = (nn.Embedding(10, 4), nn.LSTM(4, 6, batch_first=True))  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _demb, _drnn, _dlin = (nn.Embedding(8, 4), nn.LSTM(4, 6, batch_first=True), nn.Linear(6, 8))  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _e, _d = (Encoder(10, 4, 6), Decoder(8, 4, 6))  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> _ = _e.load_state_dict({'embedding.weight': _eemb.weight.detach(), **{'rnn.' + k: v for k, v in _ernn.state_dict().items()}})  # doctest: "
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> _ = _d.load_state_dict({'embedding.weight': _demb.weight.detach(), **{'rnn.' + k: v for k, v in _drnn.state_dict().items()}, **{'out.' + k: v for "
                                               'k, v in _dlin.state_dict().items()}})  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _src, _len = (torch.tensor([[2, 5, 3], [2, 6, 3]]), torch.tensor([3, 3]))  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _tgt = torch.tensor([[2, 5, 6, 7, 3], [2, 4, 3, 0, 0]])  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _logits = Seq2Seq(_e, _d)(_src, _len, _tgt, teacher_forcing=1.0)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> with torch.no_grad():\n'
                                               '...     _, _state = _ernn(_eemb(_src))\n'
                                               '...     _o, _ = _drnn(_demb(_tgt[:, :-1]), _state)\n'
                                               '...     _want = _dlin(_o)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert tuple(_logits.shape) == (2, 4, 8), f'logits must be (B, T-1, C) = (2, 4, 8), got {tuple(_logits.shape)}: T-1 steps, stacked along dim 1'  # "
                                               'doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> with torch.no_grad():\n'
                                               '...     _q12 = torch.allclose(_e(_src, _len)[1][0], _state[0], atol=1e-05) and torch.allclose(_d(_tgt[:, 0], _state)[0], _want[:, 0], atol=1e-05)  # '
                                               'doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert torch.allclose(_logits, _want, atol=1e-05), ('' if _q12 else 'your Encoder or Decoder differs from nn.LSTM here: pass the checks of "
                                               'questions 1 and 2 first. \') + "with teacher_forcing=1 the logits must equal the decoder run over tgt[:, :-1] (never the token being predicted, never '
                                               '<eos> as input), started from the encoder\'s final state and carrying its own state from step to step"  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> from seqcourse.testing import define  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> _grads = define('_grads', 'from seqcourse.testing import grads as _grads')  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> _res = _grads(Seq2Seq(_e, _d), (_src, _len, _tgt, 1.0), [torch.zeros(2, 4, 8).index_fill(1, torch.tensor([3]), 1.0)], _e)  # doctest: '
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> _g = None if _res is None else _res[0].get('rnn.weight_hh_l0')  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> assert _g is not None and bool(_g.abs().sum() > 0), "the last step\'s logits carry no gradient back to the encoder\'s weights: the gradient must '
                                               'flow back through every decoder step (its state from the step before) to the encoder (no .detach(), .data or torch.no_grad() on the state or the '
                                               'logits)"  # doctest: +REPORT_ONLY_FIRST_FAILURE\n',
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0.5},
                                   {   'code': '>>> import random  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> from seqcourse.testing import define, standin  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _Stubs = (define(\'_ZeroStateEncoder\', "\\nimport torch.nn as nn\\n# the layers of the notebook\'s Encoder and Decoder, and a model around them: '
                                               'the stand-ins below derive from these\\nclass _EncoderLike(nn.Module):\\n    def __init__(self, vocab_size, emb_size, hidden_size, num_layers=1, '
                                               'dropout=0.0):\\n        super().__init__()\\n        self.embedding = nn.Embedding(vocab_size, emb_size, padding_idx=PAD_ID)\\n        self.dropout = '
                                               'nn.Dropout(dropout)\\n        self.rnn = nn.LSTM(emb_size, hidden_size, num_layers, batch_first=True, dropout=dropout if num_layers > 1 else '
                                               '0.0)\\nimport torch\\nclass _ZeroStateEncoder(_EncoderLike):\\n    # final state (h, c) = zeros, each (1, B, 1)\\n    def __init__(self):\\n        '
                                               'super().__init__(12, 2, 1)\\n    def forward(self, src, src_len):\\n        B = src.size(0)\\n        h = torch.zeros(1, B, 1, '
                                               'device=src.device)\\n        return torch.zeros(B, src.size(1), 1, device=src.device), (h, torch.zeros_like(h))\\n"), define(\'_Mod8Decoder\', '
                                               "'\\nimport torch.nn.functional as F\\nimport torch.nn as nn\\nclass _DecoderLike(nn.Module):\\n    def __init__(self, vocab_size, emb_size, "
                                               'hidden_size, num_layers=1, dropout=0.0):\\n        super().__init__()\\n        self.embedding = nn.Embedding(vocab_size, emb_size, '
                                               'padding_idx=PAD_ID)\\n        self.dropout = nn.Dropout(dropout)\\n        self.rnn = nn.LSTM(emb_size, hidden_size, num_layers, batch_first=True, '
                                               'dropout=dropout if num_layers > 1 else 0.0)\\n        self.out = nn.Linear(hidden_size, vocab_size)\\nclass _Mod8Decoder(_DecoderLike):\\n    # '
                                               'predicts (token + 1) mod 8, so its own predictions are never the true token 8; records its inputs\\n    def __init__(self):\\n        '
                                               'super().__init__(9, 2, 1)\\n        self.fed = []\\n    def forward(self, token, state):\\n        self.fed.append(token.clone())\\n        return 5.0 '
                                               "* F.one_hot((token + 1) % 8, 9).float(), state\\n'), define('_run_seeded', '\\ndef _run_seeded(model, src, src_len, tgt, teacher_forcing):\\n    "
                                               "import random\\n    random.seed(0)\\n    return model(src, src_len, tgt, teacher_forcing=teacher_forcing)\\n'))  # doctest: "
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _dec, _many = (_Stubs[1](), torch.full((16, 11), 8))  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _many[:, 0] = SOS_ID  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _ = _Stubs[2](Seq2Seq(_Stubs[0](), _dec), torch.tensor([[2, 3]] * 16), torch.tensor([2] * 16), _many, 0.0)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert len(list(_dec.fed)) == 10, f'the stand-in decoder was fed {len(list(_dec.fed))} inputs in 10 steps: call the decoder module itself once per "
                                               "step (not its layers)'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> assert torch.equal(torch.stack(list(_dec.fed), 1), torch.tensor([[2, 3, 4, 5, 6, 7, 0, 1, 2, 3]] * 16)), "with teacher_forcing=0 (16 sentences, 10 '
                                               'steps) each input after <sos> must be the argmax of the previous step\'s logits (the model\'s own prediction), not a token sampled from its softmax"  '
                                               '# doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _dec = _Stubs[1]()  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _ = _Stubs[2](Seq2Seq(_Stubs[0](), _dec), torch.tensor([[2, 3]] * 2), torch.tensor([2, 2]), torch.tensor([[2] + [8] * 10] * 2), 0.5)  # doctest: '
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _got = [int(int(_f[0]) == 8) for _f in list(_dec.fed)[1:]]  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _rng = random.Random(0)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _stream = [int(_rng.random() < 0.5) for _ in range(13)]  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> assert _got == _stream[:9], f"with random.seed(0) and teacher_forcing=0.5 the inputs after <sos> were {_got} (1: the true token, 0: the step\'s '
                                               "argmax), the draws give {_stream[:9]}: decide each step, drawing random.random() once after each step's logits (none before the first step, no other "
                                               'draw)"  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _ = _Stubs[2](Seq2Seq(_Stubs[0](), _Stubs[1]()), torch.tensor([[2, 3]] * 2), torch.tensor([2, 2]), torch.tensor([[2, 5, 1, 7, 3], [2, 4, 3, 0, '
                                               '0]]), 1.0)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _dec = _Stubs[1]()  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _ = Seq2Seq(_Stubs[0](), _dec)(torch.tensor([[2, 3]] * 2), torch.tensor([2, 2]), torch.tensor([[2] + [8] * 10] * 2), teacher_forcing=0.5)  # '
                                               'doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _got = [int(int(_f[0]) == 8) for _f in list(_dec.fed)[1:]]  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> assert _got in (_stream[3:12], _stream[4:13]), f"after random.seed(0) and a forward with teacher_forcing=1 and T = 5, the next forward\'s inputs '
                                               "were {_got}, not those the 4th or 5th draw onwards give: draw random.random() once after each step's logits whatever the ratio (the last step may skip "
                                               'it)"  # doctest: +REPORT_ONLY_FIRST_FAILURE\n',
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
