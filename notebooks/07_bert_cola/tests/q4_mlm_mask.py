OK_FORMAT = True

test = {   'name': 'q4_mlm_mask',
    'points': 3,
    'suites': [   {   'cases': [   {   'code': '>>> from seqcourse.testing import define, standin  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _mask_with = define(\'_mask_with\', "\\nimport torch\\ndef _mask_with(ids, vocab_size, seed, mask_prob=0.15):\\n    # the check\'s way to call '
                                               'mask_tokens with a generator seeded with seed\\n    return mask_tokens(ids, vocab_size, torch.Generator().manual_seed(seed), mask_prob)\\n")  # '
                                               'doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _ids = torch.tensor([[CLS_ID] + list(range(6, 26)) + [PAD_ID] * 3] * 8)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _res = _mask_with(_ids, 30, 0)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert isinstance(_res, tuple) and len(_res) == 2, 'mask_tokens must return (inputs, labels): did you fill in the TODO?'  # doctest: "
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _inputs, _labels = _res  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert tuple(_inputs.shape) == (8, 24) and tuple(_labels.shape) == (8, 24), f'inputs and labels must be (B, T) = (8, 24), got "
                                               "{tuple(_inputs.shape)} and {tuple(_labels.shape)}'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               ">>> assert _inputs.dtype == torch.long and _labels.dtype == torch.long, f'inputs and labels must be long tensors, got {_inputs.dtype} and "
                                               "{_labels.dtype}'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> _chosen = _labels != IGNORE  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert 0 < int(_chosen.sum()) < 80, f'about 15 % of the 160 words should be chosen (labels != IGNORE), got {int(_chosen.sum())}: labels are IGNORE "
                                               "(-100) except at chosen positions'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               ">>> assert torch.equal(_labels[_chosen], _ids[_chosen]), 'at chosen positions the label must be the ORIGINAL token id'  # doctest: "
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert not bool(_chosen[:, 0].any() or _chosen[:, -3:].any()), '[CLS] and <pad> must never be chosen: only ordinary tokens (id >= N_SPECIAL)'  # "
                                               'doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert torch.equal(_inputs[~_chosen], _ids[~_chosen]), 'tokens that are not chosen must stay unchanged in inputs'  # doctest: "
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _again = _mask_with(_ids, 30, 0)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert torch.equal(_again[0], _inputs) and torch.equal(_again[1], _labels), 'the same seed must give the same masking: draw every random number "
                                               "from the generator passed in'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> _all = _mask_with(_ids, 30, 0, 1.0)[1]  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert bool((_all[:, 1:21] == _ids[:, 1:21]).all()), 'with mask_prob = 1 every ordinary token must be chosen: use the mask_prob argument'  # "
                                               'doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _big = torch.arange(N_SPECIAL, 30).repeat(200, 1)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _inp, _lab = _mask_with(_big, 30, 1)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _sel = _lab != IGNORE  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _share = float((_inp[_sel] == MASK_ID).float().mean())  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert 0.72 < _share < 0.88, f'{_share:.0%} of the chosen tokens became [MASK] instead of about 80 % (80 % [MASK], 10 % random, 10 % unchanged)'  "
                                               '# doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _bad = _inp[_sel & (_inp != MASK_ID)]  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert bool((_bad >= N_SPECIAL).all()), 'a chosen token became a special token: random replacements are ordinary ids N_SPECIAL ... vocab_size - "
                                               "1'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               ">>> assert tuple(_mask_with(_ids[:1], 30, 0)[0].shape) == (1, 24), 'a batch of one sentence must keep its shape (1, T) (squeeze() without a dim "
                                               "removes axes of size 1)'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               ">>> _mask_twice = define('_mask_twice', '\\nimport torch\\ndef _mask_twice(ids, vocab_size, seed):\\n    # two calls of mask_tokens with one "
                                               'generator; also whether the first call advanced it\\n    generator = torch.Generator().manual_seed(seed)\\n    before = generator.get_state()\\n    '
                                               'first = mask_tokens(ids, vocab_size, generator)\\n    advanced = not torch.equal(before, generator.get_state())\\n    return first, mask_tokens(ids, '
                                               "vocab_size, generator), advanced\\n')  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> (_f, _lf), (_s, _ls), _advanced = _mask_twice(_ids, 30, 4)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert _advanced and (not torch.equal(_lf, _ls)), 'two calls with one generator must advance it and choose different positions: draw from "
                                               "generator itself, not from a copy or a new generator seeded like it'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n",
                                       'hidden': False,
                                       'locked': False},
                                   {   'code': '>>> from seqcourse.testing import define, standin  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> _mask_on_device = define('_mask_on_device', '\\nfrom seqcourse.testing import on_device as _on_device\\nimport torch\\ndef _mask_on_device(ids, "
                                               "vocab_size, seed):\\n    # mask_tokens with ids on a GPU and a generator there; on the course\\'s fake GPU a CPU generator stands for it\\n    "
                                               'generator = torch.Generator("cuda" if torch.cuda.is_available() else "cpu").manual_seed(seed)\\n    return _on_device(lambda x: mask_tokens(x, '
                                               "vocab_size, generator), (ids,))\\n')  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> _ids = torch.tensor([[CLS_ID] + list(range(N_SPECIAL, N_SPECIAL + 15))] * 4)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _problem, _res = _mask_on_device(_ids, N_SPECIAL + 15, 2)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert _problem is None, f'with ids on a GPU (pretraining masks each batch there, with a generator on the same device), mask_tokens fails "
                                               "({_problem}): draw with device=ids.device (torch.rand(ids.shape, generator=generator, device=ids.device))'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> assert isinstance(_res, tuple) and len(_res) == 2 and torch.equal(_res[1][_res[1] != IGNORE], _ids[_res[1] != IGNORE]) and (0 < int((_res[1] != '
                                               "IGNORE).sum()) < 30), 'on a GPU the masking is wrong: about 15 % of the 60 words chosen, labels the original ids there and IGNORE elsewhere'  # "
                                               'doctest: +REPORT_ONLY_FIRST_FAILURE\n',
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
