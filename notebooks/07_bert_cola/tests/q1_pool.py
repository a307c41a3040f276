OK_FORMAT = True

test = {   'name': 'q1_pool',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': '>>> _h = torch.arange(24, dtype=torch.float32).view(2, 4, 3)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _mask = torch.tensor([[True, True, True, False], [True, True, False, False]])  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> _cls = pool(_h, _mask, 'cls')  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               ">>> assert isinstance(_cls, torch.Tensor) and tuple(_cls.shape) == (2, 3), 'pool must return (B, d) = (2, 3): did you fill in the TODO?'  # doctest: "
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> assert torch.equal(_cls, _h[:, 0]), f"\'cls\' pooling must return the output at position 0 ([CLS]) of every sentence, got {_cls.tolist()}"  # '
                                               'doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> _mean = pool(_h, _mask, 'mean')  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> assert tuple(_mean.shape) == (2, 3), f"\'mean\' pooling must return (B, d) = (2, 3), got {tuple(_mean.shape)}"  # doctest: '
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _want = torch.tensor([[3.0, 4.0, 5.0], [13.5, 14.5, 15.5]])  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> assert torch.allclose(_mean, _want), f"\'mean\' pooling of a small example: want {_want.tolist()} (sentence 1 has 3 real tokens, sentence 2 has 2: '
                                               'padding must not count, and each row is divided by its own number of real tokens), got {_mean.tolist()}"  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert tuple(pool(_h[:1], _mask[:1], 'mean').shape) == (1, 3), 'a batch of one sentence must give (1, d) (squeeze() without a dim removes axes of "
                                               "size 1)'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> try:\n'
                                               "...     pool(_h, _mask, 'max')\n"
                                               '...     _raised = None\n'
                                               '... except Exception as _e:\n'
                                               '...     _raised = type(_e).__name__  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> assert _raised is not None and \'ValueError\' in _raised, f"pool(h, mask, \'max\') must raise a ValueError (an unknown how), got {_raised or \'a '
                                               'value\'}"  # doctest: +REPORT_ONLY_FIRST_FAILURE\n',
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
