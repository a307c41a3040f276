OK_FORMAT = True

test = {   'name': 'q4_loss',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': '>>> _ = torch.manual_seed(0)\n'
                                               '>>> _model = Seq2Seq(Encoder(10, 4, 6), Decoder(8, 4, 6))\n'
                                               '>>> _batch = ((torch.tensor([[2, 5, 3], [2, 6, 3]]), torch.tensor([3, 3])), (torch.tensor([[2, 5, 6, 7, 3], [2, 4, 3, 0, 0]]), torch.tensor([5, 3])))\n'
                                               '>>> _res = seq2seq_loss(_model, _batch)\n'
                                               ">>> assert isinstance(_res, tuple) and len(_res) == 2, 'return (loss, n_tokens)'\n"
                                               ">>> assert isinstance(_res[0], torch.Tensor) and _res[0].dim() == 0 and _res[0].requires_grad, 'loss must be a 0-dim tensor that carries gradient'\n"
                                               ">>> assert isinstance(_res[1], int), 'n_tokens must be a Python int'\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
