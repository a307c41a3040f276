OK_FORMAT = True

test = {   'name': 'q5_greedy',
    'points': 3,
    'suites': [   {   'cases': [   {   'code': '>>> _ = torch.manual_seed(0)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _model = Seq2Seq(Encoder(10, 4, 6), Decoder(8, 4, 6)).eval()  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _out = greedy_decode(_model, torch.tensor([[2, 5, 3], [2, 6, 3]]), torch.tensor([3, 3]), max_len=7)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert isinstance(_out, torch.Tensor), 'return a tensor of token ids: did you fill in the TODO?'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               ">>> assert _out.dtype == torch.long and _out.dim() == 2 and (_out.shape[0] == 2), f'expected (B, U) long, got {tuple(_out.shape)} {_out.dtype}'  # "
                                               'doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert 1 <= _out.shape[1] <= 7, f'{_out.shape[1]} steps with max_len=7'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n",
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0},
                                   {   'code': '>>> _ = torch.manual_seed(9)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _eemb, _ernn = (nn.Embedding(10, 4), nn.LSTM(4, 6, batch_first=True))  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _demb, _drnn, _dlin = (nn.Embedding(8, 4), nn.LSTM(4, 6, batch_first=True), nn.Linear(6, 8))  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> with torch.no_grad():\n'
                                               '...     for _m in (_eemb, _ernn, _demb, _drnn, _dlin):\n'
                                               '...         for _p in _m.parameters():\n'
                                               '...             _ = _p.mul_(3.0)\n'
                                               '...     _ = _dlin.bias[3].add_(1.0)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _e, _d = (Encoder(10, 4, 6), Decoder(8, 4, 6))  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> _ = _e.load_state_dict({'embedding.weight': _eemb.weight.detach(), **{'rnn.' + k: v for k, v in _ernn.state_dict().items()}})  # doctest: "
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> _ = _d.load_state_dict({'embedding.weight': _demb.weight.detach(), **{'rnn.' + k: v for k, v in _drnn.state_dict().items()}, **{'out.' + k: v for "
                                               'k, v in _dlin.state_dict().items()}})  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _src, _len, _max = (torch.tensor([[2, 5, 3], [2, 6, 7]]), torch.tensor([3, 3]), 7)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _want = torch.tensor([[5, 4, 3], [5, 3, 0]])  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _out = greedy_decode(Seq2Seq(_e, _d), _src, _len, max_len=_max)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert isinstance(_out, torch.Tensor) and _out.dtype == torch.long and (_out.dim() == 2), 'return a (B, U) long tensor of token ids'  # doctest: "
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> with torch.no_grad():\n'
                                               '...     _, _state = _ernn(_eemb(_src))\n'
                                               '...     _q12 = torch.allclose(_e(_src, _len)[1][0], _state[0], atol=1e-05) and torch.allclose(_d(torch.full((2,), SOS_ID), _state)[0], '
                                               '_dlin(_drnn(_demb(torch.full((2, 1), SOS_ID)), _state)[0][:, 0]), atol=1e-05)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert torch.equal(_out, _want), ('' if _q12 else 'your Encoder or Decoder differs from nn.LSTM here: pass the checks of questions 1 and 2 first. "
                                               '\') + f"got {_out.tolist()}, expected {_want.tolist()}: start from <sos> with the encoder\'s final state, feed back each step\'s argmax (its own '
                                               'prediction), keep <eos>, write <pad> after it, and stop once ALL sentences have produced <eos>"  # doctest: +REPORT_ONLY_FIRST_FAILURE\n',
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0.5},
                                   {   'code': '>>> from seqcourse.testing import define, standin  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _Stub = define(\'_CountStub\', "\\nimport torch.nn.functional as F\\nimport torch.nn as nn\\nclass _DecoderLike(nn.Module):\\n    def '
                                               '__init__(self, vocab_size, emb_size, hidden_size, num_layers=1, dropout=0.0):\\n        super().__init__()\\n        self.embedding = '
                                               'nn.Embedding(vocab_size, emb_size, padding_idx=PAD_ID)\\n        self.dropout = nn.Dropout(dropout)\\n        self.rnn = nn.LSTM(emb_size, '
                                               'hidden_size, num_layers, batch_first=True, dropout=dropout if num_layers > 1 else 0.0)\\n        self.out = nn.Linear(hidden_size, '
                                               'vocab_size)\\nimport torch\\nclass _CountDecoder(_DecoderLike):\\n    # emits 4, 5, 6, ... and <eos> (3) once its countdown h reaches 0; records its '
                                               'inputs\\n    def __init__(self):\\n        super().__init__(20, 2, 1)\\n        self.fed = []\\n    def forward(self, token, state):\\n        '
                                               'self.fed.append(token.clone())\\n        h, c = state\\n        nxt = torch.where(h[0, :, 0] <= 0, torch.full_like(token, EOS_ID), torch.clamp(token + '
                                               "1, min=4))\\n        return 10.0 * F.one_hot(nxt, 20).float(), (h - 1, c)\\n# the layers of the notebook's Encoder and Decoder, and a model around "
                                               'them: the stand-ins below derive from these\\nclass _EncoderLike(nn.Module):\\n    def __init__(self, vocab_size, emb_size, hidden_size, num_layers=1, '
                                               'dropout=0.0):\\n        super().__init__()\\n        self.embedding = nn.Embedding(vocab_size, emb_size, padding_idx=PAD_ID)\\n        self.dropout = '
                                               'nn.Dropout(dropout)\\n        self.rnn = nn.LSTM(emb_size, hidden_size, num_layers, batch_first=True, dropout=dropout if num_layers > 1 else '
                                               "0.0)\\nclass _CountEncoder(_EncoderLike):\\n    # final state (h, c), each (1, B, 1): h = each sentence's source length, the number of steps before "
                                               'its <eos>\\n    def __init__(self):\\n        super().__init__(20, 2, 1)\\n    def forward(self, src, src_len):\\n        B = src.size(0)\\n        h '
                                               '= src_len.to(device=src.device, dtype=torch.float).view(1, B, 1)\\n        return torch.zeros(B, src.size(1), 1, device=src.device), (h, '
                                               'torch.zeros_like(h))\\nclass _ModelLike(nn.Module):\\n    def __init__(self, encoder, decoder):\\n        super().__init__()\\n        self.encoder, '
                                               "self.decoder = encoder, decoder\\n    def forward(self, src, src_len, tgt, teacher_forcing=1.0):   # the notebook's own Seq2Seq.forward\\n        "
                                               'return Seq2Seq.forward(self, src, src_len, tgt, teacher_forcing)\\nclass _CountStub(_ModelLike):\\n    def __init__(self):\\n        '
                                               'super().__init__(_CountEncoder(), _CountDecoder())\\n")  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _stub = _Stub().train()  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _out = greedy_decode(_stub, torch.zeros(1, 3, dtype=torch.long), torch.tensor([2]), max_len=6)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> assert isinstance(_out, torch.Tensor) and tuple(_out.shape) == (1, 3), f"for one sentence that ends after 3 steps the result must be (1, 3), got '
                                               '{tuple(getattr(_out, \'shape\', ()))}: keep the batch axis (no squeeze() without a dim)"  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert _out.tolist() == [[4, 5, 3]], f'got {_out.tolist()}, expected [[4, 5, 3]]'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               ">>> assert _stub.training, 'greedy_decode switched the model to eval mode: leave the mode to the caller (translate calls model.eval() itself)'  # "
                                               'doctest: +REPORT_ONLY_FIRST_FAILURE\n',
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0.2},
                                   {   'code': '>>> from seqcourse.testing import define, standin  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _CountStub = define(\'_CountStub\', "\\nimport torch.nn.functional as F\\nimport torch.nn as nn\\nclass _DecoderLike(nn.Module):\\n    def '
                                               '__init__(self, vocab_size, emb_size, hidden_size, num_layers=1, dropout=0.0):\\n        super().__init__()\\n        self.embedding = '
                                               'nn.Embedding(vocab_size, emb_size, padding_idx=PAD_ID)\\n        self.dropout = nn.Dropout(dropout)\\n        self.rnn = nn.LSTM(emb_size, '
                                               'hidden_size, num_layers, batch_first=True, dropout=dropout if num_layers > 1 else 0.0)\\n        self.out = nn.Linear(hidden_size, '
                                               'vocab_size)\\nimport torch\\nclass _CountDecoder(_DecoderLike):\\n    # emits 4, 5, 6, ... and <eos> (3) once its countdown h reaches 0; records its '
                                               'inputs\\n    def __init__(self):\\n        super().__init__(20, 2, 1)\\n        self.fed = []\\n    def forward(self, token, state):\\n        '
                                               'self.fed.append(token.clone())\\n        h, c = state\\n        nxt = torch.where(h[0, :, 0] <= 0, torch.full_like(token, EOS_ID), torch.clamp(token + '
                                               "1, min=4))\\n        return 10.0 * F.one_hot(nxt, 20).float(), (h - 1, c)\\n# the layers of the notebook's Encoder and Decoder, and a model around "
                                               'them: the stand-ins below derive from these\\nclass _EncoderLike(nn.Module):\\n    def __init__(self, vocab_size, emb_size, hidden_size, num_layers=1, '
                                               'dropout=0.0):\\n        super().__init__()\\n        self.embedding = nn.Embedding(vocab_size, emb_size, padding_idx=PAD_ID)\\n        self.dropout = '
                                               'nn.Dropout(dropout)\\n        self.rnn = nn.LSTM(emb_size, hidden_size, num_layers, batch_first=True, dropout=dropout if num_layers > 1 else '
                                               "0.0)\\nclass _CountEncoder(_EncoderLike):\\n    # final state (h, c), each (1, B, 1): h = each sentence's source length, the number of steps before "
                                               'its <eos>\\n    def __init__(self):\\n        super().__init__(20, 2, 1)\\n    def forward(self, src, src_len):\\n        B = src.size(0)\\n        h '
                                               '= src_len.to(device=src.device, dtype=torch.float).view(1, B, 1)\\n        return torch.zeros(B, src.size(1), 1, device=src.device), (h, '
                                               'torch.zeros_like(h))\\nclass _ModelLike(nn.Module):\\n    def __init__(self, encoder, decoder):\\n        super().__init__()\\n        self.encoder, '
                                               "self.decoder = encoder, decoder\\n    def forward(self, src, src_len, tgt, teacher_forcing=1.0):   # the notebook's own Seq2Seq.forward\\n        "
                                               'return Seq2Seq.forward(self, src, src_len, tgt, teacher_forcing)\\nclass _CountStub(_ModelLike):\\n    def __init__(self):\\n        '
                                               'super().__init__(_CountEncoder(), _CountDecoder())\\n")  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _greedy_on_device = define(\'_greedy_on_device\', "\\nfrom seqcourse.testing import on_device as _on_device\\n# greedy_decode with the model and '
                                               "the batch on a GPU (or the course's fake one): (what fails or None, the result)\\ndef _greedy_on_device(model, src, src_len, max_len):\\n    return "
                                               '_on_device(lambda s, n: greedy_decode(model, s, n, max_len), (src, src_len), model)\\n")  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _problem, _out = _greedy_on_device(_CountStub(), torch.zeros(2, 3, dtype=torch.long), torch.tensor([1, 3]), 6)  # doctest: '
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert _problem is None, f'with the model and the batch on a GPU (translate moves them there), greedy_decode fails ({_problem}): make the <sos> "
                                               "tokens and every other new tensor on src.device (torch.full(..., device=src.device))'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               ">>> assert isinstance(_out, torch.Tensor) and _out.tolist() == [[4, 3, 0, 0], [4, 5, 6, 3]], f'on a GPU a stand-in model that writes 4, 5, 6, ... and "
                                               "<eos> after src_len tokens gave {(_out.tolist() if isinstance(_out, torch.Tensor) else _out)}, expected [[4, 3, 0, 0], [4, 5, 6, 3]]'  # doctest: "
                                               '+REPORT_ONLY_FIRST_FAILURE\n',
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
