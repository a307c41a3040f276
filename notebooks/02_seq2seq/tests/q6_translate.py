OK_FORMAT = True

test = {   'name': 'q6_translate',
    'points': 3,
    'suites': [   {   'cases': [   {   'code': '>>> _ = torch.manual_seed(0)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> _sv, _tv = (Vocab.build([['one', 'two']]), Vocab.build([['1', '2']]))  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> _model = Seq2Seq(Encoder(len(_sv), 4, 6), Decoder(len(_tv), 4, 6))  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> _res = translate(_model, ['one two', 'two'], _sv, _tv, max_len=5)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               ">>> assert isinstance(_res, list) and len(_res) == 2, 'return one token list per sentence'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               ">>> assert all((isinstance(r, list) and all((isinstance(t, str) for t in r)) for r in _res)), 'each translation must be a list of token strings'  # "
                                               'doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert all(('<sos>' not in r and '<eos>' not in r and ('<pad>' not in r) for r in _res)), 'translations must not contain <sos>, <eos> or <pad>: "
                                               "use tgt_vocab.decode'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n",
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0},
                                   {   'code': '>>> from seqcourse.testing import define, standin  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> _Stub = define('_LengthStub', '\\nimport torch.nn.functional as F\\nimport torch.nn as nn\\nclass _DecoderLike(nn.Module):\\n    def "
                                               '__init__(self, vocab_size, emb_size, hidden_size, num_layers=1, dropout=0.0):\\n        super().__init__()\\n        self.embedding = '
                                               'nn.Embedding(vocab_size, emb_size, padding_idx=PAD_ID)\\n        self.dropout = nn.Dropout(dropout)\\n        self.rnn = nn.LSTM(emb_size, '
                                               'hidden_size, num_layers, batch_first=True, dropout=dropout if num_layers > 1 else 0.0)\\n        self.out = nn.Linear(hidden_size, '
                                               'vocab_size)\\nimport torch\\nclass _LengthDecoder(_DecoderLike):\\n    # writes id 4 while its countdown h is positive, then <eos>\\n    def '
                                               '__init__(self):\\n        super().__init__(6, 2, 1)\\n    def forward(self, token, state):\\n        h, c = state\\n        nxt = torch.where(h[0, :, '
                                               '0] <= 0, torch.full_like(token, EOS_ID), torch.full_like(token, 4))\\n        return 10.0 * F.one_hot(nxt, 6).float(), (h - 1, c)\\n# the layers of '
                                               "the notebook\\'s Encoder and Decoder, and a model around them: the stand-ins below derive from these\\nclass _EncoderLike(nn.Module):\\n    def "
                                               '__init__(self, vocab_size, emb_size, hidden_size, num_layers=1, dropout=0.0):\\n        super().__init__()\\n        self.embedding = '
                                               'nn.Embedding(vocab_size, emb_size, padding_idx=PAD_ID)\\n        self.dropout = nn.Dropout(dropout)\\n        self.rnn = nn.LSTM(emb_size, '
                                               'hidden_size, num_layers, batch_first=True, dropout=dropout if num_layers > 1 else 0.0)\\nclass _LengthEncoder(_EncoderLike):\\n    # final state (h, '
                                               "c), each (1, B, 1): h = each sentence\\'s number of source ids (<sos>, <eos> included); records its batch sizes\\n    def __init__(self):\\n        "
                                               'super().__init__(8, 2, 1)\\n        self.batches = []\\n    def forward(self, src, src_len):\\n        B = src.size(0)\\n        '
                                               'self.batches.append(B)\\n        h = src_len.to(device=src.device, dtype=torch.float).view(1, B, 1)\\n        return torch.zeros(B, src.size(1), 1, '
                                               'device=src.device), (h, torch.zeros_like(h))\\nclass _ModelLike(nn.Module):\\n    def __init__(self, encoder, decoder):\\n        '
                                               'super().__init__()\\n        self.encoder, self.decoder = encoder, decoder\\n    def forward(self, src, src_len, tgt, teacher_forcing=1.0):   # the '
                                               "notebook\\'s own Seq2Seq.forward\\n        return Seq2Seq.forward(self, src, src_len, tgt, teacher_forcing)\\nclass _LengthStub(_ModelLike):\\n    # a "
                                               'stand-in model that writes one "1" (id 4) per source id\\n    def __init__(self):\\n        super().__init__(_LengthEncoder(), '
                                               "_LengthDecoder())\\n')  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               ">>> _sv, _tv = (Vocab.build([['one', 'two']]), Vocab.build([['1', '2']]))  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               ">>> _res = translate(_Stub(), ['one one one', 'two', 'one two'], _sv, _tv, max_len=9)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               ">>> _want = [['1'] * 5, ['1'] * 3, ['1'] * 4]  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> assert _res == _want, f"a stand-in model that writes one \'1\' per source id gave {_res}, expected {_want}: encode each sentence with <sos>/<eos> '
                                               'as in training (src_vocab.encode), pass each sentence\'s own length to greedy_decode, decode with tgt_vocab.decode, and keep the input order"  # '
                                               'doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> _res = translate(_Stub(), ['one two one two one two one two'], _sv, _tv, max_len=6)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> assert _res == [[\'1\'] * 6], f"with max_len=6 the stand-in\'s translation of a long sentence must stop after 6 tokens, got {(len(_res[0]) if _res '
                                               'and isinstance(_res[0], list) else _res)}: pass max_len on to greedy_decode"  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _res = translate(_Stub(), [], _sv, _tv)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert _res == [], f'translating no sentences must give [], got {_res}: there is no batch to pad'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               ">>> _dash_split = define('_dash_split', '\\ndef _dash_split(sentence):\\n    # a tokenizer other than str.split: words joined by dashes\\n    return "
                                               'sentence.split("-")\\n\')  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> _res = translate(_Stub(), ['one-two', 'two'], _sv, _tv, tokenize=_dash_split)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> assert _res == [[\'1\'] * 4, [\'1\'] * 3], f"with tokenize splitting at dashes, \'one-two\' is 2 tokens (4 source ids with <sos>/<eos>), got '
                                               '{_res}: use the tokenize argument"  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _stub = _Stub()  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> _ = translate(_stub, ['one', 'two', 'one two'], _sv, _tv, batch_size=2)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               ">>> assert list(_stub.encoder.batches) == [2, 1], f'with batch_size=2 and 3 sentences the model got batches of {list(_stub.encoder.batches)} "
                                               "sentences, expected [2, 1]: at most batch_size sentences at a time'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> _translate_on_device = define(\'_translate_on_device\', "\\nimport torch.nn.functional as F\\nimport torch.nn as nn\\nclass '
                                               '_DecoderLike(nn.Module):\\n    def __init__(self, vocab_size, emb_size, hidden_size, num_layers=1, dropout=0.0):\\n        '
                                               'super().__init__()\\n        self.embedding = nn.Embedding(vocab_size, emb_size, padding_idx=PAD_ID)\\n        self.dropout = '
                                               'nn.Dropout(dropout)\\n        self.rnn = nn.LSTM(emb_size, hidden_size, num_layers, batch_first=True, dropout=dropout if num_layers > 1 else '
                                               '0.0)\\n        self.out = nn.Linear(hidden_size, vocab_size)\\nimport torch\\nclass _LengthDecoder(_DecoderLike):\\n    # writes id 4 while its '
                                               'countdown h is positive, then <eos>\\n    def __init__(self):\\n        super().__init__(6, 2, 1)\\n    def forward(self, token, state):\\n        h, '
                                               'c = state\\n        nxt = torch.where(h[0, :, 0] <= 0, torch.full_like(token, EOS_ID), torch.full_like(token, 4))\\n        return 10.0 * '
                                               'F.one_hot(nxt, 6).float(), (h - 1, c)\\nclass _DeviceDecoder(_LengthDecoder):\\n    # takes the token wherever greedy_decode made it (question 5 '
                                               'checks that)\\n    def forward(self, token, state):\\n        return super().forward(token.to(state[0].device), state)\\n# the layers of the '
                                               "notebook's Encoder and Decoder, and a model around them: the stand-ins below derive from these\\nclass _EncoderLike(nn.Module):\\n    def "
                                               '__init__(self, vocab_size, emb_size, hidden_size, num_layers=1, dropout=0.0):\\n        super().__init__()\\n        self.embedding = '
                                               'nn.Embedding(vocab_size, emb_size, padding_idx=PAD_ID)\\n        self.dropout = nn.Dropout(dropout)\\n        self.rnn = nn.LSTM(emb_size, '
                                               'hidden_size, num_layers, batch_first=True, dropout=dropout if num_layers > 1 else 0.0)\\nclass _LengthEncoder(_EncoderLike):\\n    # final state (h, '
                                               "c), each (1, B, 1): h = each sentence's number of source ids (<sos>, <eos> included); records its batch sizes\\n    def __init__(self):\\n        "
                                               'super().__init__(8, 2, 1)\\n        self.batches = []\\n    def forward(self, src, src_len):\\n        B = src.size(0)\\n        '
                                               'self.batches.append(B)\\n        h = src_len.to(device=src.device, dtype=torch.float).view(1, B, 1)\\n        return torch.zeros(B, src.size(1), 1, '
                                               'device=src.device), (h, torch.zeros_like(h))\\nclass _DeviceEncoder(_LengthEncoder):\\n    # embeds src first, as a real encoder does: src on another '
                                               "device than the model's fails there\\n    def forward(self, src, src_len):\\n        self.embedding(src)\\n        return super().forward(src, "
                                               'src_len)\\nclass _ModelLike(nn.Module):\\n    def __init__(self, encoder, decoder):\\n        super().__init__()\\n        self.encoder, self.decoder '
                                               "= encoder, decoder\\n    def forward(self, src, src_len, tgt, teacher_forcing=1.0):   # the notebook's own Seq2Seq.forward\\n        return "
                                               'Seq2Seq.forward(self, src, src_len, tgt, teacher_forcing)\\nfrom seqcourse.testing import on_device as _on_device\\n# translate with the _LengthStub '
                                               "model on a GPU (or the course's fake one): (what fails or None, the translations)\\ndef _translate_on_device(sentences, src_vocab, tgt_vocab):\\n    "
                                               'model = _ModelLike(_DeviceEncoder(), _DeviceDecoder())\\n    return _on_device(lambda: translate(model, sentences, src_vocab, tgt_vocab, max_len=6), '
                                               '(), model, tensors=False)\\n")  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> _problem, _res = _translate_on_device(['one two', 'two'], _sv, _tv)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> assert _problem is None, f"with the model on a GPU, translate fails ({_problem}): move each padded batch to the model\'s device (device, above)"  '
                                               '# doctest: +REPORT_ONLY_FIRST_FAILURE\n',
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0.5}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
