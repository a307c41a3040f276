OK_FORMAT = True

test = {   'name': 'q3_shared_embedding',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': '>>> _ = torch.manual_seed(0)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _emb = SharedEmbedding(10, 4)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _W, _b = (torch.randn(10, 4), torch.randn(10))  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> _ = _emb.load_state_dict({'weight': _W, 'bias': _b})  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> _tokens = torch.tensor([[1, 2, 0], [9, 9, 3]])  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _x = _emb.embed(_tokens)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert isinstance(_x, torch.Tensor), 'embed must return a tensor: did you fill in the TODO?'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               ">>> assert tuple(_x.shape) == (2, 3, 4), f'embed of (B, n) = (2, 3) ids must be (B, n, d_model) = (2, 3, 4), got {tuple(_x.shape)}'  # doctest: "
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert torch.allclose(_x[0, 0], _W[1] * 2.0, atol=1e-06), 'embed(tokens)[b, i] must be weight[tokens[b, i]] * sqrt(d_model) (here sqrt(4) = 2)'  # "
                                               'doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert torch.allclose(_x, _W[_tokens] * 2.0, atol=1e-06), 'embed(tokens) must be weight[tokens] * sqrt(d_model) for every position'  # doctest: "
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _h = torch.randn(2, 5, 4)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _logits = _emb.project(_h)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert tuple(_logits.shape) == (2, 5, 10), f'project of (B, T, d_model) = (2, 5, 4) must give (B, T, C) = (2, 5, 10), got {tuple(_logits.shape)}'  "
                                               '# doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert torch.allclose(_logits, _h @ _W.T + _b, atol=1e-05), 'project(h) must be h @ weight.T + bias (the same matrix as the embedding, no "
                                               "sqrt(d_model) on the logits)'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               ">>> assert tuple(_emb.embed(torch.tensor([[7]])).shape) == (1, 1, 4), f'embed of a (1, 1) batch must be (1, 1, d_model) = (1, 1, 4), got "
                                               "{tuple(_emb.embed(torch.tensor([[7]])).shape)} (squeeze() removes the axes of size 1)'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> from seqcourse.testing import define  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> _grads = define('_grads', 'from seqcourse.testing import grads as _grads')  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> _got = _grads(_emb.embed, (torch.tensor([[1, 2]]),), [torch.ones(1, 2, 4)], _emb)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert _got is not None and _got[0].get('weight') is not None, 'no gradient reaches weight through embed: use self.weight itself (no .detach(), "
                                               ".data or torch.no_grad())'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> _got = _grads(_emb.project, (torch.randn(1, 2, 4),), [torch.ones(1, 2, 10)], _emb)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert _got is not None and _got[0].get('weight') is not None, 'no gradient reaches weight through project: use self.weight itself (no .detach(), "
                                               ".data, a copy or a new nn.Linear)'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
