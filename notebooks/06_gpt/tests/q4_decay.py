OK_FORMAT = True

test = {   'name': 'q4_decay',
    'points': 1,
    'suites': [   {   'cases': [   {   'code': '>>> _ = torch.manual_seed(0)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _m = GPT(11, d_model=8, n_heads=2, n_layers=1, d_ff=16, max_len=6)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _res = decay_split(_m)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert isinstance(_res, tuple) and len(_res) == 2, 'decay_split must return (decay, no_decay): did you fill in the TODO?'  # doctest: "
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _decay, _no = _res  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert sorted(_decay + _no) == sorted((n for n, _ in _m.named_parameters())), 'every parameter name must appear exactly once, in one of the two "
                                               "lists'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               ">>> assert 'blocks.0.attn.W_q.weight' in _decay and 'blocks.0.ff.linear1.weight' in _decay, 'the weights of the linear layers (attention projections, "
                                               "feed-forward) must be decayed'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               ">>> assert 'blocks.0.attn.W_q.bias' in _no and 'blocks.0.norm1.weight' in _no, 'biases and LayerNorm weights must not be decayed'  # doctest: "
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> assert \'tok_emb.weight\' in _no and \'pos_emb.weight\' in _no, "the embeddings (token and position) must not be decayed: a matrix is not '
                                               'necessarily a linear layer\'s weight (check the module type, not p.dim())"  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> from seqcourse.testing import define, standin  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert _decay == [_n for _n, _ in _m.named_parameters() if _n in _decay] and _no == [_n for _n, _ in _m.named_parameters() if _n in _no], 'keep "
                                               "the named_parameters() order in both lists (no sorting)'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               ">>> _seq = define('_seq', '\\nimport torch.nn as nn\\ndef _seq():\\n    return nn.Sequential(nn.Embedding(5, 4), nn.Linear(4, 6), nn.LayerNorm(6), "
                                               "nn.Linear(6, 3, bias=False))\\n')  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> _res = decay_split(_seq())  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> assert _res == ([\'1.weight\', \'3.weight\'], [\'0.weight\', \'1.bias\', \'2.weight\', \'2.bias\']), f"nn.Sequential(nn.Embedding(5, 4), '
                                               "nn.Linear(4, 6), nn.LayerNorm(6), nn.Linear(6, 3, bias=False)) gave {_res}, expected (['1.weight', '3.weight'], ['0.weight', '1.bias', '2.weight', "
                                               '\'2.bias\']): find the linear layers by type (isinstance(module, nn.Linear)), not by GPT\'s names, in named_parameters() order"  # doctest: '
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _res = decay_split(_seq()[1])  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> assert _res == ([\'weight\'], [\'bias\']), f"a model that is itself an nn.Linear gave {_res}, expected ([\'weight\'], [\'bias\']): its own module '
                                               'name is \'\', so its parameters are named \'weight\' and \'bias\'"  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _frozen = _seq()  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _ = _frozen[1].requires_grad_(False)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _res = decay_split(_frozen)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert _res == (['1.weight', '3.weight'], ['0.weight', '1.bias', '2.weight', '2.bias']), f'with its first nn.Linear frozen (requires_grad False) "
                                               "the same nn.Sequential gave {_res}: split every parameter, frozen ones too'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
