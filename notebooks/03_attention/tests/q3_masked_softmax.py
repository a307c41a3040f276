OK_FORMAT = True

test = {   'name': 'q3_masked_softmax',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': '>>> _w = masked_softmax(torch.tensor([[1.0, 2.0, 3.0], [0.5, 0.5, 9.0]]), torch.tensor([[True, True, True], [True, True, False]]))  # doctest: '
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert isinstance(_w, torch.Tensor), 'masked_softmax must return a tensor: did you fill in the TODO?'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> assert tuple(_w.shape) == (2, 3), f"weights must have the scores\' shape (B, S) = (2, 3), got {tuple(_w.shape)}"  # doctest: '
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert float(_w[1, 2]) == 0.0, f'a masked position (mask False) must get weight exactly 0, got {float(_w[1, 2]):.4f}: mask the scores with -inf "
                                               "before the softmax'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               ">>> assert torch.allclose(_w.sum(-1), torch.ones(2), atol=1e-06), f'each row must sum to 1 over the source positions (softmax over dim=-1), got "
                                               "{_w.sum(-1).tolist()}'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               ">>> assert torch.allclose(_w, torch.tensor([[0.09003057, 0.24472847, 0.66524096], [0.5, 0.5, 0.0]]), atol=1e-05), f'got {_w.tolist()}: row 0 must be "
                                               "softmax([1, 2, 3]), row 1 softmax([0.5, 0.5]) on its two real positions and 0 on the masked one'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n",
                                       'hidden': False,
                                       'locked': False},
                                   {   'code': '>>> from seqcourse.testing import define  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> _grads = define('_grads', 'from seqcourse.testing import grads as _grads')  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> _w = masked_softmax(torch.tensor([[1000.0, 1001.0, -5000.0], [-1000.0, -1001.0, 7.0]]), torch.tensor([[True, True, False], [True, True, False]]))  '
                                               '# doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> assert isinstance(_w, torch.Tensor) and tuple(_w.shape) == (2, 3), "masked_softmax must return a tensor of the scores\' shape"  # doctest: '
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> assert torch.isfinite(_w).all(), f"scores of size 1000 gave {_w.tolist()}: exp(1000) overflows to inf (and exp(-1000) to 0, so 0/0): subtract each '
                                               'row\'s maximum before exp, as torch.softmax does"  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert torch.allclose(_w, torch.tensor([[0.26894142, 0.73105858, 0.0], [0.73105858, 0.26894142, 0.0]]), atol=0.0001), f'scores [1000, 1001] and "
                                               '[-1000, -1001] (the third position masked) gave {_w.tolist()}: expected softmax([1000, 1001]) = [0.2689, 0.7311] and softmax([-1000, -1001]) = '
                                               "[0.7311, 0.2689], 0 where masked (mask the scores BEFORE the softmax)'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> _s = torch.tensor([[0.3, -1.2, 2.0], [1.0, 2.0, 3.0]])  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _m = torch.tensor([[False, False, False], [True, False, True]])  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _w = masked_softmax(_s, _m)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert isinstance(_w, torch.Tensor) and (not torch.isnan(_w).any()), f'a row with every position masked gave {(_w[0].tolist() if isinstance(_w, "
                                               "torch.Tensor) else _w)}: it must be all zeros, not NaN (softmax of only -inf is 0/0)'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               ">>> assert bool((_w[0] == 0).all()), f'a row with every position masked must be all zeros (no real position to attend to), got {_w[0].tolist()}'  # "
                                               'doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert torch.allclose(_w[1], torch.tensor([0.11920292, 0.0, 0.88079708]), atol=1e-05), f'row [1, 2, 3] with mask [True, False, True] gave "
                                               "{_w[1].tolist()}: expected softmax([1, 3]) on the real positions, 0 on the masked one'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> _res = _grads(masked_softmax, (_s, _m), [torch.tensor([[1.0, 2.0, 3.0], [1.0, 2.0, 3.0]])])  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert _res is not None and isinstance(_res[1][0], torch.Tensor), 'no gradient reaches the scores: compute the weights from the scores with "
                                               "differentiable operations (no .detach(), .data or numpy), or attention could never be trained'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               ">>> assert not torch.isnan(_res[1][0]).any(), f'the gradient through the all-masked row is {_res[1][0][0].tolist()}: NaN gradients poison every "
                                               "parameter. Mask the scores with masked_fill before the softmax and replace the NaN weights with masked_fill/torch.where'  # doctest: "
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> assert torch.allclose(_res[1][0], torch.tensor([[0.0, 0.0, 0.0], [-0.20998717, 0.0, 0.20998717]]), atol=1e-05), f"the gradient with respect to the '
                                               'scores is {_res[1][0].tolist()}, expected [[0, 0, 0], [-0.21, 0, 0.21]]: masked positions (and all-masked rows) get gradient 0, real positions the '
                                               'softmax\'s gradient"  # doctest: +REPORT_ONLY_FIRST_FAILURE\n',
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
