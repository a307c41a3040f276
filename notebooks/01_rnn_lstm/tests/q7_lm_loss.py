OK_FORMAT = True

test = {   'name': 'q7_lm_loss',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': '>>> from seqcourse.testing import define, standin  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _Bigram = define(\'_Bigram\', "\\nimport torch\\nclass _Bigram(torch.nn.Module):\\n    follows_inputs = True   # every tensor it makes follows its '
                                               "weights' device and dtype: the checks' variants may use it\\n    def __init__(self, vocab_size):\\n        super().__init__()\\n        self.table = "
                                               'torch.nn.Embedding(vocab_size, vocab_size)\\n    def forward(self, tokens, state=None):\\n        if state is None:   # the documented interface: '
                                               '(logits, (h_T, c_T)), each state (B, H)\\n            h = self.table.weight.new_zeros(tokens.size(0), 1)\\n            state = (h, h)\\n        return '
                                               'self.table(tokens), state\\n")  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _ = torch.manual_seed(0)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _m = _Bigram(9)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _ids = torch.tensor([[2, 5, 6, 7, 3], [2, 8, 3, 0, 0]])  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _res = lm_loss(_m, (_ids, torch.tensor([5, 3])))  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert isinstance(_res, tuple) and len(_res) == 2, 'return (loss, n_tokens)'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> _loss, _n = _res  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert isinstance(_loss, torch.Tensor) and _loss.dim() == 0, 'loss must be a 0-dim tensor (a mean, not per-token values)'  # doctest: "
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert _loss.requires_grad, 'loss must carry gradient: do not call .item() on it'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               ">>> assert type(_n) is int, f'n_tokens must be a Python int (int(...) or .item()), got {_n!r}'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               ">>> assert _n == 6, f'n_tokens is {_n}, expected 6 (4 + 2 targets): count the target positions ids[:, 1:] that are not <pad> (a row of lengths[b] "
                                               "tokens has lengths[b] - 1 targets)'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n",
                                       'hidden': False,
                                       'locked': False},
                                   {   'code': '>>> from seqcourse.testing import define, standin  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _Bigram = define(\'_Bigram\', "\\nimport torch\\nclass _Bigram(torch.nn.Module):\\n    follows_inputs = True   # every tensor it makes follows its '
                                               "weights' device and dtype: the checks' variants may use it\\n    def __init__(self, vocab_size):\\n        super().__init__()\\n        self.table = "
                                               'torch.nn.Embedding(vocab_size, vocab_size)\\n    def forward(self, tokens, state=None):\\n        if state is None:   # the documented interface: '
                                               '(logits, (h_T, c_T)), each state (B, H)\\n            h = self.table.weight.new_zeros(tokens.size(0), 1)\\n            state = (h, h)\\n        return '
                                               'self.table(tokens), state\\n")  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> exec('\\nimport torch\\ndef _reference_lm_loss(table, ids, pad_id=0):\\n    logp = torch.log_softmax(table.double(), -1)\\n    total, count = 0.0, "
                                               '0\\n    for b in range(ids.shape[0]):\\n        for t in range(ids.shape[1] - 1):\\n            target = int(ids[b, t + 1])\\n            if target != '
                                               "pad_id:\\n                total = total - logp[int(ids[b, t]), target]\\n                count += 1\\n    return total / count\\n')  # doctest: "
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _ = torch.manual_seed(0)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _table = torch.randn(9, 9)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _m = _Bigram(9)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> _ = _m.load_state_dict({'table.weight': _table}, strict=False)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> _ids = torch.tensor([[2, 5, 6, 7, 3], [2, 8, 3, 0, 0]])  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _got, _ = lm_loss(_m, (_ids, torch.tensor([5, 3])))  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _got = _got.detach() if isinstance(_got, torch.Tensor) else _got  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _want = float(_reference_lm_loss(_table, _ids))  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert abs(float(_got) - _want) < 1e-05, f'on a small fixed batch the loss is {float(_got):.5f}, expected {_want:.5f}: feed ids[:, :-1] and "
                                               "predict ids[:, 1:], and ignore <pad> targets (ignore_index)'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> _ids1 = torch.tensor([[2, 0, 5, 7, 3], [2, 8, 3, 1, 1]])  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _got1, _n1 = lm_loss(_m, (_ids1, torch.tensor([5, 3])), pad_id=1)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _got1 = _got1.detach() if isinstance(_got1, torch.Tensor) else _got1  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _want1 = float(_reference_lm_loss(_table, _ids1, pad_id=1))  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert abs(float(_got1) - _want1) < 1e-05 and _n1 == 6, f'with pad_id=1 got loss {float(_got1):.5f} and n_tokens {_n1}, expected {_want1:.5f} and "
                                               "6: ignore the targets equal to the pad_id argument (ignore_index=pad_id), not a fixed 0 or PAD_ID'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
