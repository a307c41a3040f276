OK_FORMAT = True

test = {   'name': 'q1_bpe_learn',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': ">>> _m = merge_pair(('l', 'o', 'w', '</w>'), ('o', 'w'))  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               ">>> assert isinstance(_m, tuple), f'merge_pair must return a tuple of symbols, got {type(_m).__name__}: did you fill in the TODO?'  # doctest: "
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> assert _m == (\'l\', \'ow\', \'</w>\'), f"merge_pair((\'l\', \'o\', \'w\', \'</w>\'), (\'o\', \'w\')) must be (\'l\', \'ow\', \'</w>\'), got '
                                               '{_m}"  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> assert merge_pair((\'a\', \'a\', \'a\'), (\'a\', \'a\')) == (\'aa\', \'a\'), f"merge_pair((\'a\', \'a\', \'a\'), (\'a\', \'a\')) must be (\'aa\', '
                                               '\'a\'): scan left to right, without overlaps, and keep the symbols after a merge; got {merge_pair((\'a\', \'a\', \'a\'), (\'a\', \'a\'))}"  # doctest: '
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> _merges = learn_bpe({'low': 5, 'lower': 2, 'newest': 6, 'widest': 3}, 5)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               ">>> assert isinstance(_merges, list) and all((isinstance(_p, tuple) for _p in _merges)), 'learn_bpe must return a list of (left, right) tuples'  # "
                                               'doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> assert _merges[:3] == [(\'e\', \'s\'), (\'es\', \'t\'), (\'est\', \'</w>\')], f"Sennrich et al.\'s example {{low: 5, lower: 2, newest: 6, widest: '
                                               "3}} must start with the merges (e, s), (es, t), (est, </w>): count each pair weighted by its word's count, words as characters + '</w>'; got "
                                               '{_merges[:3]}"  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert _merges == [('e', 's'), ('es', 't'), ('est', '</w>'), ('l', 'o'), ('lo', 'w')], f'the first 5 merges of the example must be (e, s), (es, "
                                               "t), (est, </w>), (l, o), (lo, w): recount the pairs after every merge, ties broken by the smallest pair; got {_merges}'  # doctest: "
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert merge_pair(('a', 'b', 'x', 'a', 'b'), ('a', 'b')) == ('ab', 'x', 'ab'), 'merge_pair must replace EVERY occurrence of the pair, not only the "
                                               "first'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> assert learn_bpe({\'ab\': 1, \'cd\': 5}, 1) == [(\'c\', \'d\')], f"learn_bpe({{ab: 1, cd: 5}}, 1) must merge (c, d) first: each pair counts as '
                                               'often as its word occurs (weighted by the count), got {learn_bpe({\'ab\': 1, \'cd\': 5}, 1)}"  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> assert learn_bpe({\'aaa\': 1}, 1) == [(\'a\', \'a\')], f"learn_bpe({{aaa: 1}}, 1) must merge (a, a): it occurs twice in \'a a a </w>\' and counts '
                                               'twice, got {learn_bpe({\'aaa\': 1}, 1)}"  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> assert learn_bpe({\'ba\': 1, \'ab\': 1}, 1) == [(\'a\', \'</w>\')], f"in {{ba: 1, ab: 1}} every pair occurs once: the smallest pair, (\'a\', '
                                               '\'</w>\'), must win the tie (not the first one found), got {learn_bpe({\'ba\': 1, \'ab\': 1}, 1)}"  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> try:\n'
                                               "...     _few = learn_bpe({'ab': 1}, 5)\n"
                                               '... except Exception as _e:\n'
                                               "...     raise AssertionError(f'learn_bpe({{ab: 1}}, 5) raised {_e}: when no pair is left (every word one symbol), stop early and return the merges so "
                                               "far')  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               ">>> assert _few == [('a', 'b'), ('ab', '</w>')], f'learn_bpe({{ab: 1}}, 5) must give (a, b), (ab, </w>) and stop (no pair left), got {_few}'  # "
                                               'doctest: +REPORT_ONLY_FIRST_FAILURE\n',
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
