OK_FORMAT = True

test = {   'name': 'q7_lm_loss',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': '>>> _ = torch.manual_seed(0)\n'
                                               '>>> _lm = LSTMLanguageModel(vocab_size=9, emb_size=4, hidden_size=5)\n'
                                               '>>> _ids = torch.tensor([[2, 5, 6, 7, 3], [2, 8, 3, 0, 0]])\n'
                                               '>>> _res = lm_loss(_lm, (_ids, torch.tensor([5, 3])))\n'
                                               ">>> assert isinstance(_res, tuple) and len(_res) == 2, 'return (loss, n_tokens)'\n"
                                               '>>> _loss, _n = _res\n'
                                               ">>> assert isinstance(_loss, torch.Tensor) and _loss.dim() == 0, 'loss must be a 0-dim tensor (a mean, not per-token values)'\n"
                                               ">>> assert _loss.requires_grad, 'loss must carry gradient: do not call .item() on it'\n"
                                               ">>> assert isinstance(_n, int), f'n_tokens must be a Python int, got {type(_n).__name__}'\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
