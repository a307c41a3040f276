OK_FORMAT = True

test = {   'name': 'q6_filter',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': '>>> _l = torch.log(torch.tensor([[0.1, 0.5, 0.05, 0.3, 0.05], [0.2, 0.2, 0.2, 0.2, 0.2]]))  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _res = filter_logits(_l)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert isinstance(_res, torch.Tensor) and tuple(_res.shape) == (2, 5), 'filter_logits must return a (B, C) tensor: did you fill in the TODO?'  # "
                                               'doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert torch.allclose(filter_logits(_l, temperature=0.5), _l / 0.5), 'temperature: divide the logits by it (logits / temperature, not times)'  # "
                                               'doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _k = filter_logits(_l[:1], top_k=2)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert torch.isinf(_k).tolist() == [[True, False, True, False, True]], f'top_k = 2 must keep the 2 most likely tokens (ids 1 and 3) and set the "
                                               "others to -inf, kept {(~torch.isinf(_k)).nonzero()[:, 1].tolist()}'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> _p = filter_logits(_l[:1], top_p=0.7)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert torch.isinf(_p).tolist() == [[True, False, True, False, True]], f'top_p = 0.7 with probabilities 0.5, 0.3, 0.1, ...: 0.5 alone is below "
                                               "0.7, so the token of 0.3 (which crosses 0.7) is kept too; kept {(~torch.isinf(_p)).nonzero()[:, 1].tolist()}, expected [1, 3]'  # doctest: "
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert torch.allclose(_p[0, [1, 3]], _l[0, [1, 3]]), 'kept tokens must keep their logits (/ temperature); the softmax renormalises'  # doctest: "
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _l2 = torch.log(torch.tensor([[0.1, 0.5, 0.05, 0.3, 0.05], [0.4, 0.05, 0.35, 0.12, 0.08]]))  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert torch.isinf(filter_logits(_l2, top_k=2)).tolist() == [[True, False, True, False, True], [False, True, False, True, True]], 'top_k = 2 on a "
                                               "batch of 2 rows: each row keeps its own 2 most likely tokens (top-k along dim=-1, per row, not over the whole batch)'  # doctest: "
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert torch.isinf(filter_logits(_l2[:1], temperature=0.5, top_p=0.7)).tolist() == [[True, False, True, True, True]], 'temperature 0.5, top_p = "
                                               '0.7: at temperature 0.5 the probabilities become 0.704, 0.254, ...: the top token alone reaches 0.7. Apply the temperature first, then top-k/top-p on '
                                               "the distribution AFTER the temperature'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               ">>> assert torch.isinf(filter_logits(torch.tensor([[1000.0, 999.0, 0.0, -5.0]]), top_p=0.5)).tolist() == [[False, True, True, True]], 'with logits "
                                               '1000, 999, 0, -5 and top_p = 0.5 the top token alone (probability 0.73) must be kept: compute the probabilities with torch.softmax (exp by hand '
                                               "overflows)'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               ">>> assert torch.equal(filter_logits(_l, top_k=9), _l), 'top_k = 9 with 5 tokens keeps every token (top_k >= C: no limit)'  # doctest: "
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _kept = (~torch.isinf(filter_logits(torch.log(torch.tensor([[0.4, 0.2, 0.2, 0.1, 0.1]])), top_k=2))).sum().item()  # doctest: '
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert _kept >= 2, f'top_k = 2 with the 2nd and 3rd most likely tokens tied kept {_kept} token(s): never fewer than k (ties with the k-th may "
                                               "stay)'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> _kept = ~torch.isinf(filter_logits(torch.log(torch.tensor([[0.4, 0.3, 0.3]])), top_p=0.5))[0]  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert _kept[0] and _kept[1:].any(), f'top_p = 0.5 with probabilities 0.4, 0.3, 0.3 kept {_kept.nonzero()[:, 0].tolist()}: keep the most likely "
                                               "tokens as long as the kept set reaches p (a tie at the crossing point keeps one of them at least)'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               ">>> assert torch.isinf(filter_logits(_l[:1], top_k=2, top_p=0.6)).tolist() == [[True, False, True, True, True]], 'top_k = 2, then top_p = 0.6: top-p "
                                               "acts on the distribution left by top-k (0.625, 0.375), where the top token alone reaches 0.6'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> from seqcourse.testing import define  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> _side_effects = define('_side_effects', 'from seqcourse.testing import side_effects as _side_effects')  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> assert not _side_effects(filter_logits, (_l, 0.5, 2, 0.7)), "filter_logits changed the caller\'s logits in place: work on a new tensor (logits / '
                                               'temperature, masked_fill without _)"  # doctest: +REPORT_ONLY_FIRST_FAILURE\n',
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
