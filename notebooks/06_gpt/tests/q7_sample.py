OK_FORMAT = True

test = {   'name': 'q7_sample',
    'points': 1,
    'suites': [   {   'cases': [   {   'code': '>>> from seqcourse.testing import define, standin  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> _draw = define('_draw', '\\nimport torch\\ndef _draw(fn, logits, seed, **kw):\\n    # calls fn(logits, generator, **kw) with a fresh generator "
                                               'seeded with seed; also says whether the global\\n    # random state stayed as it was\\n    before = torch.get_rng_state()\\n    out = fn(logits, '
                                               "torch.Generator().manual_seed(seed), **kw)\\n    return out, bool(torch.equal(before, torch.get_rng_state()))\\n')  # doctest: "
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _l = torch.log(torch.tensor([[0.1, 0.6, 0.3], [0.5, 0.25, 0.25]])).repeat(50, 1)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _a, _ = _draw(sample_next, _l, 0)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert isinstance(_a, torch.Tensor) and tuple(_a.shape) == (100,) and (_a.dtype == torch.long), 'sample_next must return a (B,) long tensor, one "
                                               "token id per row: did you fill in the TODO?'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> _b, _same_global = _draw(sample_next, _l, 0)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert torch.equal(_a, _b), 'two calls with generators seeded alike must give the same tokens: draw with the generator (torch.multinomial(..., "
                                               "generator=generator) or torch.rand(..., generator=generator))'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               ">>> assert _same_global, 'sample_next changed the global random state: pass generator= to every random call (torch.multinomial, torch.rand)'  # "
                                               'doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _c, _ = _draw(sample_next, _l, 1)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert not torch.equal(_a, _c), 'generators with different seeds gave the same 100 tokens: the draw must come from the generator (is it random at "
                                               "all?)'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> _g, _ = _draw(sample_next, _l, 0, top_k=1)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert _g.tolist() == [1, 0] * 50, 'with top_k = 1 every row must get its most likely token: draw from softmax(filter_logits(logits, temperature, "
                                               "top_k, top_p)), one token per row'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> _t, _ = _draw(sample_next, torch.log(torch.tensor([[0.1, 0.5, 0.05, 0.3, 0.05]])).repeat(200, 1), 3, top_p=0.7)  # doctest: '
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert set(_t.tolist()) <= {1, 3}, 'with top_p = 0.7 only tokens 1 and 3 (probabilities 0.5 and 0.3) may be drawn: pass every argument "
                                               "(temperature, top_k, top_p) on to filter_logits'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               ">>> _draw_twice = define('_draw_twice', '\\nimport torch\\ndef _draw_twice(fn, logits, seed, **kw):\\n    # two calls of fn(logits, generator, **kw) "
                                               'with one generator; also whether the first call advanced it\\n    generator = torch.Generator().manual_seed(seed)\\n    before = '
                                               'generator.get_state()\\n    first = fn(logits, generator, **kw)\\n    advanced = not torch.equal(before, generator.get_state())\\n    return first, '
                                               "fn(logits, generator, **kw), advanced\\n')  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> _f, _s, _advanced = _draw_twice(sample_next, torch.zeros(100, 10), 5)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert _advanced and (not torch.equal(_f, _s)), 'two calls with one generator must advance it and draw different tokens: draw from generator "
                                               "itself, not from a copy or a new generator seeded like it'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> _h, _ = _draw(sample_next, torch.tensor([[0.0, 1000.0, 0.0]]).repeat(4, 1), 0)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert _h.tolist() == [1] * 4, f'with logits 0, 1000, 0 every draw must be token 1, got {_h.tolist()}: compute the probabilities with "
                                               "torch.softmax (exp by hand overflows)'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> _cold, _ = _draw(sample_next, _l, 0, temperature=0.05)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert _cold.tolist() == [1, 0] * 50, 'at temperature 0.05 the most likely token has probability 0.99999 or more, so every row must get it: pass "
                                               "temperature on to filter_logits'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> _one, _ = _draw(sample_next, torch.zeros(1, 5), 0)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert tuple(_one.shape) == (1,), f'for a batch of one row the result must be (1,), got {tuple(_one.shape)}: not squeeze()'  # doctest: "
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert len(set(_f.tolist())) > 1, '100 rows of equal logits all got the same token: draw one number per row, not the same token for every row'  # "
                                               'doctest: +REPORT_ONLY_FIRST_FAILURE\n',
                                       'hidden': False,
                                       'locked': False},
                                   {   'code': '>>> from seqcourse.testing import define, standin  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> _sample_on_device = define('_sample_on_device', '\\nfrom seqcourse.testing import on_device as _on_device\\nimport torch\\ndef "
                                               "_sample_on_device(logits, seed, **kw):\\n    # sample_next with the logits on a GPU and a generator there; on the course\\'s fake GPU a CPU generator "
                                               "stands for\\n    # it, drawing (as CUDA\\'s) only for tensors made on the GPU\\n    if torch.cuda.is_available():\\n        generator = "
                                               'torch.Generator("cuda").manual_seed(seed)\\n    else:\\n        from seqcourse.fakecuda import cuda_generator\\n        generator = '
                                               "cuda_generator(torch.Generator().manual_seed(seed))\\n    return _on_device(lambda x: sample_next(x, generator, **kw), (logits,))\\n')  # doctest: "
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _problem, _got = _sample_on_device(torch.tensor([[0.0, 0.0, 25.0, 0.0], [9.0, 40.0, 0.0, 1.0]]), 1)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert _problem is None, f'with the logits on a GPU (and a generator there), sample_next fails ({_problem}): draw with device=logits.device "
                                               "(torch.rand(..., generator=generator, device=logits.device))'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               ">>> assert isinstance(_got, torch.Tensor) and _got.tolist() == [2, 1], f'on a GPU, rows whose top token has probability 1 must draw it: expected [2, "
                                               "1], got {(_got.tolist() if isinstance(_got, torch.Tensor) else _got)}'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n",
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
