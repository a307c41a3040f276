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
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
