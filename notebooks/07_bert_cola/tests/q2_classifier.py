OK_FORMAT = True

test = {   'name': 'q2_classifier',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': '>>> _ = torch.manual_seed(0)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> _model = SentenceClassifier(Encoder(20, d_model=8, n_heads=2, n_layers=1, d_ff=16, max_len=16), 3, 'mean').eval()  # doctest: "
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _ids = torch.tensor([[CLS_ID, 7, 8, 9, PAD_ID], [CLS_ID, 10, PAD_ID, PAD_ID, PAD_ID]])  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _logits = _model(_ids)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert isinstance(_logits, torch.Tensor) and tuple(_logits.shape) == (2, 3), 'SentenceClassifier must return logits (B, n_classes) = (2, 3): did "
                                               "you fill in the TODO?'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> _more = torch.cat([_ids, torch.full((2, 4), PAD_ID)], dim=1)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert torch.allclose(_model(_more), _logits, atol=1e-05), 'with 4 more <pad> columns the logits change: pool over the real tokens only (mask ids "
                                               "!= PAD_ID), so that the amount of padding does not matter'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> _h = _model.encoder(_ids)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _want = _model.head(torch.stack([_h[0, :4].mean(0), _h[1, :2].mean(0)]))  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> assert torch.allclose(_logits, _want, atol=1e-05), "with how=\'mean\' the logits must be head(mean of the encoder\'s outputs at the real tokens), '
                                               'without a softmax"  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert tuple(_model(_ids[:1]).shape) == (1, 3), 'a batch of one sentence must give logits (1, n_classes) (squeeze() without a dim removes axes of "
                                               "size 1)'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
