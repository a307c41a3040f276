OK_FORMAT = True

test = {   'name': 'q7_beam_search',
    'points': 4,
    'suites': [   {   'cases': [   {   'code': '>>> from seqcourse.testing import define, standin  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> exec(\'\\nimport torch.nn as nn\\nimport torch\\nclass _MarkovToy(nn.Module):\\n    """A stand-in for a translation model: the log-probabilities '
                                               'of the next token depend on the sentence\\n    (its first source token), on its length and on a running hash of the tokens fed so far (so a search '
                                               'that\\n    mixes up hypotheses, or does not pass src and src_len on, is caught). A module with a parameter, as a model has;\\n    its table a buffer, '
                                               'so that it moves with the model to a GPU or to float64 (the checks\\\' variants)."""\\n    follows_inputs = True\\n    def __init__(self, batch, '
                                               'vocab, seed, eos_bias=0.0):\\n        super().__init__()\\n        self.anchor = nn.Parameter(torch.zeros(1))\\n        g = '
                                               'torch.Generator().manual_seed(seed)\\n        logits = torch.randn(batch, 13, vocab, generator=g, dtype=torch.float64) * 2\\n        logits[:, :, '
                                               'EOS_ID] += eos_bias\\n        logits[:, :, [PAD_ID, SOS_ID]] = -50.0      # never produced\\n        self.register_buffer("table", '
                                               'torch.log_softmax(logits, -1).float())   # float32, as the real model\\\'s step\\n    def start(self, src, src_len):\\n        return {"sentence": '
                                               'src[:, 0].clone(), "hash": torch.as_tensor(src_len).to(src.device) % 13}\\n    def step(self, tokens, state):\\n        h = (state["hash"] * 5 + '
                                               'tokens + 1) % 13\\n        return self.table[state["sentence"], h], {"sentence": state["sentence"], "hash": h}\\n\')  # doctest: '
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _LocalToy = _MarkovToy  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _MarkovToy = define(\'_MarkovToy\', \'\\nimport torch.nn as nn\\nimport torch\\nclass _MarkovToy(nn.Module):\\n    """A stand-in for a translation '
                                               'model: the log-probabilities of the next token depend on the sentence\\n    (its first source token), on its length and on a running hash of the '
                                               'tokens fed so far (so a search that\\n    mixes up hypotheses, or does not pass src and src_len on, is caught). A module with a parameter, as a model '
                                               'has;\\n    its table a buffer, so that it moves with the model to a GPU or to float64 (the checks\\\' variants)."""\\n    follows_inputs = True\\n    '
                                               'def __init__(self, batch, vocab, seed, eos_bias=0.0):\\n        super().__init__()\\n        self.anchor = nn.Parameter(torch.zeros(1))\\n        g = '
                                               'torch.Generator().manual_seed(seed)\\n        logits = torch.randn(batch, 13, vocab, generator=g, dtype=torch.float64) * 2\\n        logits[:, :, '
                                               'EOS_ID] += eos_bias\\n        logits[:, :, [PAD_ID, SOS_ID]] = -50.0      # never produced\\n        self.register_buffer("table", '
                                               'torch.log_softmax(logits, -1).float())   # float32, as the real model\\\'s step\\n    def start(self, src, src_len):\\n        return {"sentence": '
                                               'src[:, 0].clone(), "hash": torch.as_tensor(src_len).to(src.device) % 13}\\n    def step(self, tokens, state):\\n        h = (state["hash"] * 5 + '
                                               'tokens + 1) % 13\\n        return self.table[state["sentence"], h], {"sentence": state["sentence"], "hash": h}\\n\')  # doctest: '
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> exec(\'\\nimport torch\\ndef _batch(lengths):\\n    """src (B, max length) whose first token tells the sentence apart, and the lengths '
                                               '(B,)."""\\n    src = torch.full((len(lengths), max(lengths)), 5, dtype=torch.long)\\n    src[:, 0] = torch.arange(len(lengths))\\n    return src, '
                                               "torch.tensor(lengths)\\n')  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> _Designed = define(\'_Designed\', \'\\nimport torch.nn as nn\\nimport torch\\nclass _Designed(nn.Module):\\n    """Next-token logits depend on the '
                                               'last token only: rows[last][next] (default -5)."""\\n    follows_inputs = True   # its table is a buffer, its state made like it: the checks\\\' '
                                               'variants may move it\\n    def __init__(self, rows):\\n        super().__init__()\\n        self.anchor = nn.Parameter(torch.zeros(1))\\n        '
                                               'self.register_buffer("table", torch.full((8, 8), -5.0))\\n        for last, nexts in rows.items():\\n            for tok, logit in '
                                               'nexts.items():\\n                self.table[last, tok] = logit\\n    def start(self, src, src_len):\\n        return {"dummy": '
                                               "self.table.new_zeros(src.size(0))}\\n    def step(self, tokens, state):\\n        return torch.log_softmax(self.table[tokens], -1), state\\n')  # "
                                               'doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _src, _len = _batch([2, 4, 3])  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _toy = _MarkovToy(3, 8, seed=0, eos_bias=1.0)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _res = beam_search(_toy, _src, _len, beam_size=3, max_len=6)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert isinstance(_res, tuple) and len(_res) == 2, 'beam_search must return (hyps, scores): did you fill in the TODO?'  # doctest: "
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _hyps, _scores = _res  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert isinstance(_hyps, list) and len(_hyps) == 3 and all((isinstance(h, list) for h in _hyps)), 'hyps must be a list of B lists of token ids'  # "
                                               'doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert all((isinstance(w, int) and w not in (SOS_ID, EOS_ID) for h in _hyps for w in h)), 'each hypothesis is a list of int ids without <sos> and "
                                               "<eos>'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               ">>> assert isinstance(_scores, torch.Tensor) and tuple(_scores.shape) == (3,), 'scores must be a tensor (B,)'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> assert beam_search(_toy, _src, _len, beam_size=1, max_len=6)[0] == seqcourse.greedy_search(_LocalToy(3, 8, seed=0, eos_bias=1.0), _src, _len, '
                                               "max_len=6)[0], 'with beam_size=1, beam search must return exactly what greedy_search returns'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> _h, _s = beam_search(_Designed({SOS_ID: {4: 2.0, 5: 1.5}, 4: {6: 0.6, 7: 0.4}, 5: {EOS_ID: 3.0}, 6: {EOS_ID: 3.0}, 7: {EOS_ID: 3.0}}), '
                                               'torch.zeros(1, 3, dtype=torch.long), torch.tensor([3]), beam_size=2, max_len=5, alpha=0.5)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> assert _h == [[5]], f"got {_h}, expected [[5]]: greedy search takes \'4\' (the best first token) and ends with \'4 6 <eos>\', but \'5 <eos>\' has '
                                               'the higher log p / lp(|Y|). With beam_size=2 both \'4\' and \'5\' stay in the beam after step 1"  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> assert isinstance(_s, torch.Tensor) and abs(float(_s[0]) - -0.9071392) < 0.0001, f"the score of \'5 <eos>\' must be log p / lp(2) = -0.9071, got '
                                               '{_s.tolist()}"  # doctest: +REPORT_ONLY_FIRST_FAILURE\n',
                                       'hidden': False,
                                       'locked': False},
                                   {   'code': '>>> from seqcourse.testing import beam_diagnosis, define, standin  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> exec(\'\\nimport torch.nn as nn\\nimport torch\\nclass _MarkovToy(nn.Module):\\n    """A stand-in for a translation model: the log-probabilities '
                                               'of the next token depend on the sentence\\n    (its first source token), on its length and on a running hash of the tokens fed so far (so a search '
                                               'that\\n    mixes up hypotheses, or does not pass src and src_len on, is caught). A module with a parameter, as a model has;\\n    its table a buffer, '
                                               'so that it moves with the model to a GPU or to float64 (the checks\\\' variants)."""\\n    follows_inputs = True\\n    def __init__(self, batch, '
                                               'vocab, seed, eos_bias=0.0):\\n        super().__init__()\\n        self.anchor = nn.Parameter(torch.zeros(1))\\n        g = '
                                               'torch.Generator().manual_seed(seed)\\n        logits = torch.randn(batch, 13, vocab, generator=g, dtype=torch.float64) * 2\\n        logits[:, :, '
                                               'EOS_ID] += eos_bias\\n        logits[:, :, [PAD_ID, SOS_ID]] = -50.0      # never produced\\n        self.register_buffer("table", '
                                               'torch.log_softmax(logits, -1).float())   # float32, as the real model\\\'s step\\n    def start(self, src, src_len):\\n        return {"sentence": '
                                               'src[:, 0].clone(), "hash": torch.as_tensor(src_len).to(src.device) % 13}\\n    def step(self, tokens, state):\\n        h = (state["hash"] * 5 + '
                                               'tokens + 1) % 13\\n        return self.table[state["sentence"], h], {"sentence": state["sentence"], "hash": h}\\n\')  # doctest: '
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _LocalToy = _MarkovToy  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _MarkovToy = define(\'_MarkovToy\', \'\\nimport torch.nn as nn\\nimport torch\\nclass _MarkovToy(nn.Module):\\n    """A stand-in for a translation '
                                               'model: the log-probabilities of the next token depend on the sentence\\n    (its first source token), on its length and on a running hash of the '
                                               'tokens fed so far (so a search that\\n    mixes up hypotheses, or does not pass src and src_len on, is caught). A module with a parameter, as a model '
                                               'has;\\n    its table a buffer, so that it moves with the model to a GPU or to float64 (the checks\\\' variants)."""\\n    follows_inputs = True\\n    '
                                               'def __init__(self, batch, vocab, seed, eos_bias=0.0):\\n        super().__init__()\\n        self.anchor = nn.Parameter(torch.zeros(1))\\n        g = '
                                               'torch.Generator().manual_seed(seed)\\n        logits = torch.randn(batch, 13, vocab, generator=g, dtype=torch.float64) * 2\\n        logits[:, :, '
                                               'EOS_ID] += eos_bias\\n        logits[:, :, [PAD_ID, SOS_ID]] = -50.0      # never produced\\n        self.register_buffer("table", '
                                               'torch.log_softmax(logits, -1).float())   # float32, as the real model\\\'s step\\n    def start(self, src, src_len):\\n        return {"sentence": '
                                               'src[:, 0].clone(), "hash": torch.as_tensor(src_len).to(src.device) % 13}\\n    def step(self, tokens, state):\\n        h = (state["hash"] * 5 + '
                                               'tokens + 1) % 13\\n        return self.table[state["sentence"], h], {"sentence": state["sentence"], "hash": h}\\n\')  # doctest: '
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> exec(\'\\nimport torch\\ndef _batch(lengths):\\n    """src (B, max length) whose first token tells the sentence apart, and the lengths '
                                               '(B,)."""\\n    src = torch.full((len(lengths), max(lengths)), 5, dtype=torch.long)\\n    src[:, 0] = torch.arange(len(lengths))\\n    return src, '
                                               "torch.tensor(lengths)\\n')  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> _src, _len = _batch([2, 4, 3])  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _h, _s = beam_search(_MarkovToy(3, 8, seed=73, eos_bias=-0.5), _src, _len, beam_size=3, max_len=6, alpha=0.6)  # doctest: '
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _want_h, _want_s = ([[6, 6], [5, 4, 7, 7, 5, 5], [4, 6]], [-1.340915, -2.275496, -0.861909])  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _greedy = [[6, 7, 6], [5, 5, 4, 7, 7, 5], [4, 6]]  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert _h == _want_h, f'{beam_diagnosis(_h, _want_h, _greedy)}beam_size=3, max_len=6, alpha=0.6 on a toy model: got {_h}, expected {_want_h} "
                                               '(greedy search gives {_greedy}). Check steps 1-6: scores start at [0, -inf, ...]; the top 2β candidates; <eos> of rank < β finished and set aside; the '
                                               "state reordered; β finished per sentence; the best score / lp(|Y|)'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> assert isinstance(_s, torch.Tensor) and tuple(_s.shape) == (3,) and torch.allclose(_s.double(), torch.tensor(_want_s, dtype=torch.float64), '
                                               "atol=0.0001), f'the scores {(_s.tolist() if isinstance(_s, torch.Tensor) else _s)} differ from the expected {_want_s}: return log p(Y|x) / lp(|Y|) of "
                                               "each returned hypothesis, |Y| counting <eos>'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
