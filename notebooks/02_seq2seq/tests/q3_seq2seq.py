OK_FORMAT = True

test = {   'name': 'q3_seq2seq',
    'points': 3,
    'suites': [   {   'cases': [   {   'code': '>>> _ = torch.manual_seed(0)\n'
                                               '>>> _model = Seq2Seq(Encoder(10, 4, 6), Decoder(8, 4, 6))\n'
                                               '>>> _tgt = torch.tensor([[2, 5, 6, 7, 3], [2, 4, 3, 0, 0]])\n'
                                               '>>> _logits = _model(torch.tensor([[2, 5, 3], [2, 6, 3]]), torch.tensor([3, 3]), _tgt)\n'
                                               ">>> assert isinstance(_logits, torch.Tensor), 'forward must return the stacked logits: did you fill in the TODO?'\n"
                                               ">>> assert tuple(_logits.shape) == (2, 4, 8), f'logits must be (B, T-1, V) = (2, 4, 8), got {tuple(_logits.shape)}: T-1 steps, reading tgt[:, :-1] and "
                                               "predicting tgt[:, 1:] (never feed <eos>)'\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
