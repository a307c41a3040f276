OK_FORMAT = True

test = {   'name': 'q6_translate',
    'points': 3,
    'suites': [   {   'cases': [   {   'code': '>>> _ = torch.manual_seed(0)\n'
                                               ">>> _sv, _tv = (Vocab.build([['one', 'two']]), Vocab.build([['1', '2']]))\n"
                                               '>>> _model = Seq2Seq(Encoder(len(_sv), 4, 6), Decoder(len(_tv), 4, 6))\n'
                                               ">>> _res = translate(_model, ['one two', 'two'], _sv, _tv, max_len=5)\n"
                                               ">>> assert isinstance(_res, list) and len(_res) == 2, 'return one token list per sentence'\n"
                                               ">>> assert all((isinstance(r, list) and all((isinstance(t, str) for t in r)) for r in _res)), 'each translation must be a list of token strings'\n"
                                               ">>> assert all(('<sos>' not in r and '<eos>' not in r and ('<pad>' not in r) for r in _res)), 'translations must not contain <sos>, <eos> or <pad>: "
                                               "use tgt_vocab.decode'\n",
                                       'hidden': False,
                                       'locked': False},
                                   {   'code': '>>> from seqcourse.testing import define\n'
                                               '>>> _Stub = define(\'_LengthStub\', \'if True:  # a stand-in model that writes one "1" per source token (<sos>, <eos> included)\\n    class '
                                               '_LengthEncoder(nn.Module):\\n        def forward(self, src, src_len):\\n            return None, src_len.clone().float()\\n    class '
                                               '_LengthDecoder(nn.Module):\\n        def forward(self, token, state):\\n            nxt = torch.where(state <= 0, torch.full_like(token, 3), '
                                               'torch.full_like(token, 4))\\n            return 10.0 * F.one_hot(nxt, 6).float(), state - 1\\n    class _LengthStub(nn.Module):\\n        def '
                                               '__init__(self):\\n            super().__init__()\\n            self.encoder, self.decoder = _LengthEncoder(), _LengthDecoder()\\n            '
                                               "self.unused = nn.Parameter(torch.zeros(1))')\n"
                                               ">>> _sv, _tv = (Vocab.build([['one', 'two']]), Vocab.build([['1', '2']]))\n"
                                               ">>> _res = translate(_Stub(), ['one one one', 'two', 'one two'], _sv, _tv, max_len=9)\n"
                                               ">>> _want = [['1'] * 5, ['1'] * 3, ['1'] * 4]\n"
                                               '>>> assert _res == _want, f"a stand-in model that writes one \'1\' per source id gave {_res}, expected {_want}: encode each sentence with <sos>/<eos> '
                                               'as in training (src_vocab.encode), pass each sentence\'s own length to greedy_decode, decode with tgt_vocab.decode, and keep the input order"\n',
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
