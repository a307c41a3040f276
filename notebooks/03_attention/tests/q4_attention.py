OK_FORMAT = True

test = {   'name': 'q4_attention',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': '>>> _ = torch.manual_seed(0)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _res = attention(DotScore(), torch.randn(2, 4), torch.randn(2, 3, 4), torch.randn(2, 3, 6), torch.ones(2, 3, dtype=torch.bool))  # doctest: '
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert isinstance(_res, tuple) and len(_res) == 2, 'attention must return (context, weights): did you fill in the TODO?'  # doctest: "
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert tuple(_res[0].shape) == (2, 6), f'context must be (B, d_v) = (2, 6), got {tuple(_res[0].shape)}: a weighted sum of the values over the "
                                               "source positions'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               ">>> assert tuple(_res[1].shape) == (2, 3), f'weights must be (B, S) = (2, 3), got {tuple(_res[1].shape)}'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> from seqcourse.testing import define, standin  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> _Dot = define('_Dot', '\\nimport torch.nn as nn\\nimport torch\\nclass _Dot(nn.Module):\\n    def forward(self, query, keys):\\n        return "
                                               'torch.einsum("bd,bsd->bs", query, keys)\\n\')  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _q = torch.tensor([[1.0, 0.0], [0.0, 2.0]])  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _k = torch.tensor([[[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]], [[1.0, 0.0], [0.0, 1.0], [5.0, 5.0]]])  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _v = torch.arange(12.0).view(2, 3, 2)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _mask = torch.tensor([[True, True, True], [True, True, False]])  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _ctx, _w = attention(_Dot(), _q, _k, _v, _mask)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> _want_w = torch.softmax(torch.einsum('bd,bsd->bs', _q, _k).masked_fill(~_mask, float('-inf')), -1)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               ">>> assert isinstance(_w, torch.Tensor) and tuple(_w.shape) == (2, 3) and torch.allclose(_w, _want_w, atol=1e-05), f'got weights {_w.tolist()}, "
                                               'expected {[[round(x, 4) for x in r] for r in _want_w.tolist()]}: masked_softmax(score(query, keys), mask), so pass the mask on (this uses your '
                                               "masked_softmax from question 3)'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               ">>> assert isinstance(_ctx, torch.Tensor) and tuple(_ctx.shape) == (2, 2) and torch.allclose(_ctx, torch.einsum('bs,bsd->bd', _want_w, _v), "
                                               "atol=1e-05), f'got context {_ctx.tolist()}: it must be sum_s weights[b, s] * values[b, s], the weighted sum of the VALUES (not the keys, not a plain "
                                               "mean)'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n",
                                       'hidden': False,
                                       'locked': False},
                                   {   'code': '>>> from seqcourse.testing import define, standin  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> _grads = define('_grads', 'from seqcourse.testing import grads as _grads')  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               ">>> _Dot = define('_Dot', '\\nimport torch.nn as nn\\nimport torch\\nclass _Dot(nn.Module):\\n    def forward(self, query, keys):\\n        return "
                                               'torch.einsum("bd,bsd->bs", query, keys)\\n\')  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _q = torch.tensor([[1.0, -1.0]])  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _k = torch.tensor([[[2.0, 0.0], [0.0, 1.0], [1.0, 1.0]]])  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _v = torch.tensor([[[1.0, 0.0, 2.0, -1.0], [0.0, 1.0, -1.0, 3.0], [4.0, 4.0, 4.0, 4.0]]])  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _m = torch.tensor([[True, True, False]])  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _res = attention(_Dot(), _q, _k, _v, _m)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert isinstance(_res, tuple) and len(_res) == 2, 'attention must return (context, weights)'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> assert isinstance(_res[0], torch.Tensor) and tuple(_res[0].shape) == (1, 4), f"with one sentence the context must be (B, d_v) = (1, 4), got '
                                               '{getattr(_res[0], \'shape\', type(_res[0]).__name__)}: squeeze only the dimension you added (squeeze(1)), never squeeze() without a dimension"  # '
                                               'doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> assert isinstance(_res[1], torch.Tensor) and tuple(_res[1].shape) == (1, 3), f"with one sentence the weights must be (B, S) = (1, 3), got '
                                               '{getattr(_res[1], \'shape\', type(_res[1]).__name__)}"  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert torch.allclose(_res[1], torch.tensor([[0.95257413, 0.04742587, 0.0]]), atol=1e-05), f'got weights {_res[1].tolist()}, expected [[0.9526, "
                                               "0.0474, 0]]: masked_softmax(score(query, keys), mask) with the scores [2, -1, 0] of the KEYS'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               ">>> assert torch.allclose(_res[0], torch.tensor([[0.95257413, 0.04742587, 1.85772238, -0.81029651]]), atol=1e-05), f'got context {_res[0].tolist()}: "
                                               "it must be sum_s weights[b, s] * values[b, s], the weighted sum of the VALUES'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> _grad = _grads(attention, (_Dot(), _q, _k, _v, _m), [torch.tensor([[1.0, -1.0, 0.5, 2.0]]), torch.tensor([[0.5, -2.0, 1.0]])])  # doctest: '
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert _grad is not None and all((isinstance(g, torch.Tensor) for g in _grad[1])), 'the context and weights carry no gradient to the query, keys "
                                               "or values: use differentiable operations (torch.bmm; no .detach(), .data or numpy)'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> assert torch.allclose(_grad[1][2], torch.tensor([[[0.95257413, -0.95257413, 0.47628706, 1.90514825], [0.04742587, -0.04742587, 0.02371294, '
                                               "0.09485175], [0.0, 0.0, 0.0, 0.0]]]), atol=1e-05), 'the gradient with respect to the values is wrong: context = sum_s weights[b, s] * values[b, s]'  # "
                                               'doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> assert torch.allclose(_grad[1][0], torch.tensor([[-0.18070664, 0.09035332]]), atol=1e-05) and torch.allclose(_grad[1][1], '
                                               'torch.tensor([[[-0.09035332, 0.09035332], [0.09035332, -0.09035332], [0.0, 0.0]]]), atol=1e-05), "the gradient does not flow back through the weights '
                                               'into the query and the keys: don\'t detach the weights (or use .data) when you form the context, or the score could never be trained"  # doctest: '
                                               '+REPORT_ONLY_FIRST_FAILURE\n',
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
