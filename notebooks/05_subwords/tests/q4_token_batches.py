OK_FORMAT = True

test = {   'name': 'q4_token_batches',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': '>>> _lengths = [5, 3, 8, 3, 4, 9, 2]  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _b = token_batches(_lengths, 10, 0)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert isinstance(_b, list) and all((isinstance(_x, list) for _x in _b)), 'token_batches must return a list of lists of indices: did you fill in "
                                               "the TODO?'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               ">>> assert sorted((_i for _x in _b for _i in _x)) == list(range(7)), f'every example index must be in exactly one batch, got {_b}'  # doctest: "
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _costs = [len(_x) * max((_lengths[_i] for _i in _x)) for _x in _b]  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert all((_c <= 10 for _c in _costs)), f'with lengths {_lengths} and max_tokens = 10 a batch costs len(batch) * max(its lengths) (padding "
                                               "counts), at most 10; got batches {_b} costing {_costs}'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               ">>> assert sorted((sorted(_x) for _x in _b)) == [[0, 4], [1, 3, 6], [2], [5]], f'with lengths {_lengths} and max_tokens = 10 the batches must be {{6, "
                                               '1, 3}}, {{4, 0}}, {{2}}, {{5}} (in any order): sort by length, then fill each batch as long as possible (a batch may cost exactly max_tokens); got '
                                               "{_b}'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> _lengths = [_i * 37 % 50 + 1 for _i in range(400)]  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _b = token_batches(_lengths, 100, 0)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _mins = [min((_lengths[_i] for _i in _x)) for _x in _b]  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert _mins != sorted(_mins) and _mins != sorted(_mins, reverse=True), 'the batches come out sorted by length: shuffle the ORDER of the batches "
                                               "(random.Random(seed).shuffle(batches)), not only the examples before sorting'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               ">>> assert token_batches(_lengths, 100, 0) == _b, 'the same seed must give the same batches in the same order: shuffle with random.Random(seed)'  # "
                                               'doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _b = token_batches([1, 1, 1, 6], 10, 0)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> assert sorted((sorted(_x) for _x in _b)) == [[0, 1, 2], [3]], f"with lengths [1, 1, 1, 6] and max_tokens = 10 the batches must be {{0, 1, 2}}, '
                                               '{{3}} (in any order), got {_b}: padding counts, every sentence of a batch is padded to its longest, so all four together cost 4 * 6 = 24 > 10 '
                                               '(len(batch) * max(its lengths), not the sum of the lengths, 9, nor a cost from the batch\'s first example)"  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _b = token_batches([2, 2, 3], 6, 0)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert sorted((sorted(_x) for _x in _b)) == [[0, 1], [2]], f'with lengths [2, 2, 3] and max_tokens = 6 the batches must be {{0, 1}}, {{2}} (in any "
                                               "order), got {_b}: sort shortest first, as the text says (longest first packs {{2, 0}} and {{1}})'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
