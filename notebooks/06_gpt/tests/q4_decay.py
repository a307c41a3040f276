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
                                               'necessarily a linear layer\'s weight (check the module type, not p.dim())"  # doctest: +REPORT_ONLY_FIRST_FAILURE\n',
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
