OK_FORMAT = True

test = {   'name': 'q4_loss',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': '>>> _ = torch.manual_seed(0)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _model = Seq2Seq(Encoder(10, 4, 6), Decoder(8, 4, 6))  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _batch = ((torch.tensor([[2, 5, 3], [2, 6, 3]]), torch.tensor([3, 3])), (torch.tensor([[2, 5, 6, 7, 3], [2, 4, 3, 0, 0]]), torch.tensor([5, 3])))  '
                                               '# doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _res = seq2seq_loss(_model, _batch)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert isinstance(_res, tuple) and len(_res) == 2, 'return (loss, n_tokens)'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               ">>> assert isinstance(_res[0], torch.Tensor) and _res[0].dim() == 0 and _res[0].requires_grad, 'loss must be a 0-dim tensor that carries gradient'  # "
                                               'doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert isinstance(_res[1], int), 'n_tokens must be a Python int'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n",
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0},
                                   {   'code': '>>> from seqcourse.testing import define, standin  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _Fixed = (define(\'_FixedLogits\', "\\nimport torch.nn as nn\\nclass _ModelLike(nn.Module):\\n    def __init__(self, encoder, decoder):\\n        '
                                               'super().__init__()\\n        self.encoder, self.decoder = encoder, decoder\\n    def forward(self, src, src_len, tgt, teacher_forcing=1.0):   # the '
                                               "notebook's own Seq2Seq.forward\\n        return Seq2Seq.forward(self, src, src_len, tgt, teacher_forcing)\\nclass _DecoderLike(nn.Module):\\n    def "
                                               '__init__(self, vocab_size, emb_size, hidden_size, num_layers=1, dropout=0.0):\\n        super().__init__()\\n        self.embedding = '
                                               'nn.Embedding(vocab_size, emb_size, padding_idx=PAD_ID)\\n        self.dropout = nn.Dropout(dropout)\\n        self.rnn = nn.LSTM(emb_size, '
                                               'hidden_size, num_layers, batch_first=True, dropout=dropout if num_layers > 1 else 0.0)\\n        self.out = nn.Linear(hidden_size, vocab_size)\\nclass '
                                               '_StateDecoder(_DecoderLike):\\n    # logits from the state alone (not used by these checks)\\n    def forward(self, token, state):\\n        return '
                                               "self.out(state[0][-1]), state\\n# the layers of the notebook's Encoder and Decoder, and a model around them: the stand-ins below derive from "
                                               'these\\nclass _EncoderLike(nn.Module):\\n    def __init__(self, vocab_size, emb_size, hidden_size, num_layers=1, dropout=0.0):\\n        '
                                               'super().__init__()\\n        self.embedding = nn.Embedding(vocab_size, emb_size, padding_idx=PAD_ID)\\n        self.dropout = '
                                               'nn.Dropout(dropout)\\n        self.rnn = nn.LSTM(emb_size, hidden_size, num_layers, batch_first=True, dropout=dropout if num_layers > 1 else '
                                               '0.0)\\nimport torch\\nclass _ZeroEncoder(_EncoderLike):\\n    # final state zeros, each (L, B, H) (not used by these checks)\\n    def forward(self, '
                                               'src, src_len):\\n        h = torch.zeros(self.rnn.num_layers, src.size(0), self.rnn.hidden_size, device=src.device)\\n        return '
                                               'torch.zeros(src.size(0), src.size(1), self.rnn.hidden_size, device=src.device), (h, torch.zeros_like(h))\\nclass _FixedLogits(_ModelLike):\\n    # a '
                                               'Seq2Seq whose forward returns the given logits (B, T-1, C), whatever the input; records teacher_forcing\\n    def __init__(self, logits):\\n        '
                                               'super().__init__(_ZeroEncoder(12, 2, 1), _StateDecoder(logits.size(-1), 2, 1))\\n        self.logits = nn.Parameter(logits.clone())\\n        '
                                               'self.seen_teacher_forcing = None\\n    def forward(self, src, src_len, tgt, teacher_forcing=1.0):\\n        self.seen_teacher_forcing = '
                                               'teacher_forcing\\n        return self.logits\\n"), define(\'_loss_grad\', \'\\nimport torch\\ndef _loss_grad(model, batch):\\n    '
                                               'model.zero_grad(set_to_none=True)\\n    loss, n = seq2seq_loss(model, batch)\\n    if not (isinstance(loss, torch.Tensor) and '
                                               "loss.requires_grad):\\n        return None\\n    loss.backward()\\n    return model.logits.grad\\n'))  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> _ = torch.manual_seed(0)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _L = torch.randn(2, 4, 8)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _tgt = torch.tensor([[2, 5, 6, 7, 3], [2, 4, 3, 0, 0]])  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _batch = ((torch.ones(2, 2, dtype=torch.long), torch.tensor([2, 2])), (_tgt, torch.tensor([5, 3])))  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _loss, _n = seq2seq_loss(_Fixed[0](_L), _batch)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _want = F.cross_entropy(_L.reshape(-1, 8), _tgt[:, 1:].reshape(-1), ignore_index=0)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert _n == 6, f'n_tokens is {_n}, expected 6: count the targets tgt[:, 1:] that are not <pad>'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               ">>> assert abs(float(torch.as_tensor(_loss).detach()) - float(_want)) < 1e-05, f'loss {float(torch.as_tensor(_loss).detach()):.5f}, expected "
                                               "{float(_want):.5f}: the mean cross-entropy of the logits against tgt[:, 1:] (not tgt[:, :-1]), skipping <pad> targets (ignore_index=PAD_ID)'  # "
                                               'doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _loss, _ = seq2seq_loss(_Fixed[0](_L * 100), _batch)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _want = F.cross_entropy(_L.double().reshape(-1, 8) * 100, _tgt[:, 1:].reshape(-1), ignore_index=0)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert abs(float(torch.as_tensor(_loss).detach()) - float(_want)) <= 0.0001 * float(_want), f'with logits of magnitude ~100 the loss is "
                                               '{float(torch.as_tensor(_loss).detach()):.4g}, expected {float(_want):.4g}: compute log-probabilities stably (F.cross_entropy or log_softmax, never '
                                               "log(softmax(...)) or exp by hand)'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> _model = _Fixed[0](_L)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _ = seq2seq_loss(_model, _batch, teacher_forcing=0.25)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert _model.seen_teacher_forcing == 0.25, f'seq2seq_loss(model, batch, teacher_forcing=0.25) ran the model with "
                                               "teacher_forcing={_model.seen_teacher_forcing}: pass teacher_forcing=0.25 on to the model'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> _Lr = _L.clone().requires_grad_(True)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> F.cross_entropy(_Lr.reshape(-1, 8), _tgt[:, 1:].reshape(-1), ignore_index=0).backward()  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _g = _Fixed[1](_Fixed[0](_L), _batch)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> assert _g is not None and torch.allclose(_g, _Lr.grad, atol=1e-06), "no gradient reaches the logits, or it differs from F.cross_entropy\'s: build '
                                               'the loss from the logits themselves (no .item(), torch.tensor(...) or .detach())"  # doctest: +REPORT_ONLY_FIRST_FAILURE\n',
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0.3}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
