OK_FORMAT = True

test = {   'name': 'q7_label_smoothing',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': '>>> _ = torch.manual_seed(0)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _loss = label_smoothed_cross_entropy(torch.randn(6, 10), torch.tensor([4, 5, 6, 7, 8, PAD_ID]), 0.1)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert isinstance(_loss, torch.Tensor) and _loss.dim() == 0, 'the loss must be a scalar tensor: did you fill in the TODO?'  # doctest: "
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _logits, _target = (torch.randn(5, 7), torch.tensor([4, 5, 6, 4, 5]))  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert torch.allclose(label_smoothed_cross_entropy(_logits, _target, 0.0), F.cross_entropy(_logits, _target), atol=1e-05), 'with eps = 0 the loss "
                                               "must be the plain cross-entropy'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> _logits, _target = (torch.randn(6, 7), torch.tensor([4, 5, PAD_ID, 6, 4, PAD_ID]))  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _got, _want = (label_smoothed_cross_entropy(_logits, _target, 0.1), F.cross_entropy(_logits, _target, label_smoothing=0.1, ignore_index=PAD_ID))  '
                                               '# doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert torch.allclose(_got, _want, atol=1e-05), f'on a small example (eps = 0.1, two <pad> targets) got {float(_got):.4f}, F.cross_entropy(logits, "
                                               'target, label_smoothing=0.1, ignore_index=PAD_ID) gives {float(_want):.4f}: per real position (1 - eps) * (-log p(y)) + eps * mean over the vocabulary '
                                               "of (-log p(w)), averaged over the real positions'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> _got, _want = (label_smoothed_cross_entropy(_logits, _target, 0.1, ignore_index=4), F.cross_entropy(_logits, _target, label_smoothing=0.1, '
                                               'ignore_index=4))  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert torch.allclose(_got, _want, atol=1e-05), f'with ignore_index=4 got {float(_got):.4f}, F.cross_entropy(logits, target, label_smoothing=0.1, "
                                               "ignore_index=4) gives {float(_want):.4f}: skip the positions where target == ignore_index (the argument, not PAD_ID)'  # doctest: "
                                               '+REPORT_ONLY_FIRST_FAILURE\n',
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
