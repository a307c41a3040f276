OK_FORMAT = True

test = {   'name': 'q3_nll',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': '>>> from seqcourse.testing import define, standin  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> _Bigram = define('_Bigram', '\\nimport torch\\nclass _Bigram(torch.nn.Module):\\n    # a stand-in language model: the logits of the next token are "
                                               'a learned row per current token\\n    def __init__(self, vocab_size):\\n        super().__init__()\\n        self.table = '
                                               "torch.nn.Embedding(vocab_size, vocab_size)\\n    def forward(self, ids):\\n        return self.table(ids)\\n')  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> _ = torch.manual_seed(0)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _m = _Bigram(9)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _table = torch.randn(9, 9)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> _ = _m.load_state_dict({'table.weight': _table})  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> _ids = torch.tensor([[2, 5, 6, 7, 3], [2, 8, 3, 0, 0]])  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _got = next_token_nll(_m, _ids)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert isinstance(_got, torch.Tensor) and tuple(_got.shape) == (2, 4), f'next_token_nll must return (B, T-1) = (2, 4), one NLL per target "
                                               "position: did you fill in the TODO? (got {(tuple(_got.shape) if isinstance(_got, torch.Tensor) else type(_got).__name__)})'  # doctest: "
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _lp = _table.log_softmax(-1)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _want = torch.tensor([[-_lp[2, 5], -_lp[5, 6], -_lp[6, 7], -_lp[7, 3]], [-_lp[2, 8], -_lp[8, 3], 0.0, 0.0]])  # doctest: '
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> assert torch.allclose(_got, _want, atol=1e-05), "on a small fixed batch the NLLs differ: feed ids[:, :-1], score ids[:, 1:] (position t predicts '
                                               'token t+1), -log_softmax of the target, and 0.0 where the target is padding (reduction=\'none\', ignore_index=pad_id)"  # doctest: '
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _ids1 = torch.tensor([[2, 5, 6, 7, 3], [2, 8, 3, 1, 1]])  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _want1 = torch.tensor([[-_lp[2, 5], -_lp[5, 6], -_lp[6, 7], -_lp[7, 3]], [-_lp[2, 8], -_lp[8, 3], 0.0, 0.0]])  # doctest: '
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert torch.allclose(next_token_nll(_m, _ids1, pad_id=1), _want1, atol=1e-05), 'with pad_id = 1 the NLLs differ: use the pad_id argument "
                                               "(ignore_index=pad_id), do not assume padding is 0'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               ">>> _grads = define('_grads', 'from seqcourse.testing import grads as _grads')  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> _res = _grads(next_token_nll, (_m, _ids), [torch.ones(2, 4)], _m)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> assert _res is not None and _res[0].get(\'table.weight\') is not None and bool(_res[0][\'table.weight\'].abs().sum() > 0), "the NLLs carry no '
                                               'gradient to the model\'s weights: keep them in the autograd graph (no .detach(), .item() or torch.no_grad())"  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> _ = _m.load_state_dict({'table.weight': _table * 100})  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> _lp = (_table * 100).log_softmax(-1)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _want = torch.tensor([[-_lp[2, 5], -_lp[5, 6], -_lp[6, 7], -_lp[7, 3]], [-_lp[2, 8], -_lp[8, 3], 0.0, 0.0]])  # doctest: '
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert torch.allclose(next_token_nll(_m, _ids), _want, rtol=0.0001), 'with a confident model (logits of magnitude ~100) the NLLs differ or are "
                                               "inf: the log of a softmax is -inf where a probability underflows; use F.cross_entropy or log_softmax'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> _ = _m.eval()  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _ = next_token_nll(_m, _ids)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> assert not _m.training, "given a model in eval mode, next_token_nll called train() on the caller\'s model: leave its mode as it came"  # doctest: '
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> _on_device = define('_on_device', 'from seqcourse.testing import on_device as _on_device')  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> _m = _Bigram(9)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> _ = _m.load_state_dict({'table.weight': _table})  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> _problem, _got = _on_device(next_token_nll, (_m, _ids), _m)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> assert _problem is None, f"with the model and ids on a GPU, next_token_nll fails ({_problem}): make every tensor on ids\' device"  # doctest: '
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _g = GPT(9, d_model=8, n_heads=2, n_layers=1, d_ff=16, max_len=4, dropout=0.0)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> try:\n'
                                               '...     _ = next_token_nll(_g, torch.tensor([[2, 4, 5, 6, 3], [2, 7, 3, 0, 0]]))\n'
                                               '... except Exception:\n'
                                               "...     raise AssertionError('a GPT of question 2 with max_len = 4, given ids of 5 tokens, raised an error: the model reads the T - 1 tokens ids[:, "
                                               ":-1], never all of ids') from None  # doctest: +REPORT_ONLY_FIRST_FAILURE\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
