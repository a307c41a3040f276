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
                                               "the distribution AFTER the temperature'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
