OK_FORMAT = True

test = {   'name': 'q7_label_smoothing',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': '>>> _ = torch.manual_seed(0)\n'
                                               '>>> _loss = label_smoothed_cross_entropy(torch.randn(6, 10), torch.tensor([4, 5, 6, 7, 8, PAD_ID]), 0.1)\n'
                                               ">>> assert isinstance(_loss, torch.Tensor) and _loss.dim() == 0, 'the loss must be a scalar tensor: did you fill in the TODO?'\n"
                                               '>>> _logits, _target = (torch.randn(5, 7), torch.tensor([4, 5, 6, 4, 5]))\n'
                                               ">>> assert torch.allclose(label_smoothed_cross_entropy(_logits, _target, 0.0), F.cross_entropy(_logits, _target), atol=1e-05), 'with eps = 0 the loss "
                                               "must be the plain cross-entropy'\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
