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
                                               '<eos> as input), started from the encoder\'s final state and carrying its own state from step to step"  # doctest: +REPORT_ONLY_FIRST_FAILURE\n',
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0.5}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
