OK_FORMAT = True

test = {   'name': 'q3_masked_softmax',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': '>>> _w = masked_softmax(torch.tensor([[1.0, 2.0, 3.0], [0.5, 0.5, 9.0]]), torch.tensor([[True, True, True], [True, True, False]]))\n'
                                               ">>> assert isinstance(_w, torch.Tensor), 'masked_softmax must return a tensor: did you fill in the TODO?'\n"
                                               '>>> assert tuple(_w.shape) == (2, 3), f"weights must have the scores\' shape (B, S) = (2, 3), got {tuple(_w.shape)}"\n'
                                               ">>> assert float(_w[1, 2]) == 0.0, f'a masked position (mask False) must get weight exactly 0, got {float(_w[1, 2]):.4f}: mask the scores with -inf "
                                               "before the softmax'\n"
                                               ">>> assert torch.allclose(_w.sum(-1), torch.ones(2), atol=1e-06), f'each row must sum to 1 over the source positions (softmax over dim=-1), got "
                                               "{_w.sum(-1).tolist()}'\n"
                                               ">>> assert torch.allclose(_w, torch.tensor([[0.09003057, 0.24472847, 0.66524096], [0.5, 0.5, 0.0]]), atol=1e-05), f'got {_w.tolist()}: row 0 must be "
                                               "softmax([1, 2, 3]), row 1 softmax([0.5, 0.5]) on its two real positions and 0 on the masked one'\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
