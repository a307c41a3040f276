OK_FORMAT = True

test = {   'name': 'q2_bpe_encode',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': ">>> _merges = [('e', 's'), ('es', 't'), ('est', '</w>'), ('l', 'o'), ('lo', 'w')]  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               ">>> _enc = bpe_encode('lowest newer', _merges)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               ">>> assert isinstance(_enc, list) and all((isinstance(_s, str) for _s in _enc)), f'bpe_encode must return a list of strings, got "
                                               "{type(_enc).__name__}: did you fill in the TODO?'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> assert _enc == [\'low\', \'est</w>\', \'n\', \'e\', \'w\', \'e\', \'r\', \'</w>\'], f"bpe_encode(\'lowest newer\', [(e, s), (es, t), (est, </w>), '
                                               "(l, o), (lo, w)]) must be ['low', 'est</w>', 'n', 'e', 'w', 'e', 'r', '</w>']: every word as characters + '</w>', then every merge in order; got "
                                               '{_enc}"  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> _dec = bpe_decode(['low', 'est</w>', 'n', 'e', 'w', 'e', 'r', '</w>'])  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               ">>> assert isinstance(_dec, str), 'bpe_decode must return a string'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> assert _dec == \'lowest newer\', f"bpe_decode([\'low\', \'est</w>\', \'n\', \'e\', \'w\', \'e\', \'r\', \'</w>\']) must be \'lowest newer\': '
                                               'concatenate, \'</w>\' ends a word, one space between words, none at the end; got {_dec!r}"  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> assert bpe_encode(\'a  b\', []) == [\'a\', \'</w>\', \'b\', \'</w>\'], f"bpe_encode(\'a  b\', []) must be [\'a\', \'</w>\', \'b\', \'</w>\']: '
                                               'split on any whitespace (sentence.split()), got {bpe_encode(\'a  b\', [])}"  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> assert bpe_encode(\'abc\', [(\'b\', \'c\'), (\'a\', \'b\')]) == [\'a\', \'bc\', \'</w>\'], f"bpe_encode(\'abc\', [(b, c), (a, b)]) must be [\'a\', '
                                               '\'bc\', \'</w>\']: apply the merges in the order learned (not the longest piece first), got {bpe_encode(\'abc\', [(\'b\', \'c\'), (\'a\', \'b\')])}"  '
                                               '# doctest: +REPORT_ONLY_FIRST_FAILURE\n',
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
