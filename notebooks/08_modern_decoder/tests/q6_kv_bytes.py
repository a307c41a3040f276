OK_FORMAT = True

test = {   'name': 'q6_kv_bytes',
    'points': 1,
    'suites': [   {   'cases': [   {   'code': '>>> _b = kv_bytes_per_token(3, 2, 32)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert isinstance(_b, int), f'kv_bytes_per_token must return a Python int, got {type(_b).__name__}: did you fill in the TODO?'  # doctest: "
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert _b == 1536, f'3 layers, 2 key/value heads of width 32, float32: 2 (key and value) * 3 * 2 * 32 numbers of 4 bytes = 1,536 bytes, got {_b}'  "
                                               '# doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> assert kv_bytes_per_token(3, 2, 32, torch.bfloat16) == 768, "in bfloat16 each number takes 2 bytes: use the dtype\'s element size"  # doctest: '
                                               '+REPORT_ONLY_FIRST_FAILURE\n',
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
