OK_FORMAT = True

test = {   'name': 'q5_greedy',
    'points': 3,
    'suites': [   {   'cases': [   {   'code': '>>> _ = torch.manual_seed(0)\n'
                                               '>>> _model = Seq2Seq(Encoder(10, 4, 6), Decoder(8, 4, 6)).eval()\n'
                                               '>>> _out = greedy_decode(_model, torch.tensor([[2, 5, 3], [2, 6, 3]]), torch.tensor([3, 3]), max_len=7)\n'
                                               ">>> assert isinstance(_out, torch.Tensor), 'return a tensor of token ids: did you fill in the TODO?'\n"
                                               ">>> assert _out.dtype == torch.long and _out.dim() == 2 and (_out.shape[0] == 2), f'expected (B, L) long, got {tuple(_out.shape)} {_out.dtype}'\n"
                                               ">>> assert 1 <= _out.shape[1] <= 7, f'{_out.shape[1]} steps with max_len=7'\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
