OK_FORMAT = True

test = {   'name': 'q6_from_pretrained',
    'points': 1,
    'suites': [   {   'cases': [   {   'code': '>>> _ = torch.manual_seed(0)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _pre = MLMModel(Encoder(20, d_model=8, n_heads=2, n_layers=1, d_ff=16, max_len=16))  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> _clf = classifier_from_pretrained(_pre, 3, 'mean')  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> _ids = torch.tensor([[CLS_ID, 7, 8, PAD_ID], [CLS_ID, 9, 10, 11]])  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _logits = _clf.eval()(_ids)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> assert isinstance(_logits, torch.Tensor) and tuple(_logits.shape) == (2, 3), "classifier_from_pretrained(pretrained, 3, \'mean\') must return a '
                                               'SentenceClassifier with 3 classes: did you fill in the TODO?"  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _mine, _theirs = (_clf.encoder.state_dict(), _pre.encoder.state_dict())  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> assert sorted(_mine) == sorted(_theirs) and all((torch.equal(_mine[_k], _theirs[_k]) for _k in _theirs)), "the classifier\'s encoder must start '
                                               'with the weights of pretrained.encoder (all of them: embeddings, layers, final norm)"  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> assert _clf.how == \'mean\', f"the classifier must pool with the how passed in (\'mean\' here), got {_clf.how!r}"  # doctest: '
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert all((_p.requires_grad for _p in _clf.parameters())), 'every parameter of the classifier must be trainable (requires_grad): fine-tuning "
                                               "trains the encoder too'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
