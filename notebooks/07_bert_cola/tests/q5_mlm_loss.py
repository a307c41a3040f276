OK_FORMAT = True

test = {   'name': 'q5_mlm_loss',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': '>>> from seqcourse.testing import define, standin  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> _Recorder = define('_Recorder', '\\nimport torch.nn as nn\\nclass _Recorder(nn.Module):\\n    # a stand-in MLM model: logits from an embedding of "
                                               'each input token; remembers what it was given\\n    def __init__(self, V):\\n        super().__init__()\\n        self.out = nn.Embedding(V, '
                                               "V)\\n        self.seen = None\\n    def forward(self, ids):\\n        self.seen = ids.clone()\\n        return self.out(ids)\\n')  # doctest: "
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _run_mlm = define(\'_run_mlm\', "\\nimport torch\\ndef _run_mlm(model, ids, vocab_size, seed):\\n    # the check\'s way to call mlm_loss with a '
                                               'generator seeded with seed, and mask_tokens with the same seed\\n    loss, n = mlm_loss(model, ids, vocab_size, '
                                               'torch.Generator().manual_seed(seed))\\n    inputs, labels = mask_tokens(ids, vocab_size, torch.Generator().manual_seed(seed))\\n    return loss, n, '
                                               'inputs, labels\\n")  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _ = torch.manual_seed(0)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _model = _Recorder(40)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _ids = torch.randint(N_SPECIAL, 40, (6, 12))  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _ids[:, 0] = CLS_ID  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _ids[:3, -2:] = PAD_ID  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _res = _run_mlm(_model, _ids, 40, 0)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert isinstance(_res[0], torch.Tensor) and _res[0].dim() == 0, 'mlm_loss must return (loss, n_chosen) with loss a scalar tensor: did you fill in "
                                               "the TODO?'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> _loss, _n, _inputs, _labels = _res  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert type(_n) is int and _n == int((_labels != IGNORE).sum()), f'n_chosen must be the number of chosen positions as an int ({int((_labels != "
                                               "IGNORE).sum())} here), got {_n!r}'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               ">>> assert torch.equal(_model.seen, _inputs), 'the model must be run on the corrupted inputs from mask_tokens (called once, with the generator passed "
                                               "in), never on the original ids: it would learn to copy its input'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> _logits = _model(_inputs)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _want = F.cross_entropy(_logits.reshape(-1, 40), _labels.reshape(-1), ignore_index=IGNORE)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert torch.allclose(_loss, _want, atol=1e-05), f'the loss must be the mean cross-entropy over the chosen positions only: want "
                                               "{float(_want):.4f}, got {float(_loss):.4f}'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
