OK_FORMAT = True

test = {   'name': 'q6_lm',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': '>>> _ = torch.manual_seed(0)\n'
                                               '>>> _lm = LSTMLanguageModel(vocab_size=11, emb_size=4, hidden_size=6)\n'
                                               '>>> _res = _lm(torch.randint(0, 11, (3, 5)))\n'
                                               ">>> assert isinstance(_res, tuple) and len(_res) == 2, 'forward must return (logits, (h_T, c_T))'\n"
                                               '>>> _logits, (_h, _c) = _res\n'
                                               '>>> assert tuple(_logits.shape) == (3, 5, 11), f"logits must be (B, T, V) = (3, 5, 11), got {tuple(_logits.shape)}: apply self.out to every step\'s '
                                               'hidden state, not only the last"\n'
                                               '>>> assert tuple(_h.shape) == (3, 6), "the returned state must be the LSTM\'s (h_T, c_T), each (B, H)"\n',
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
