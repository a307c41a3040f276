OK_FORMAT = True

test = {   'name': 'q2_gpt',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': '>>> _ = torch.manual_seed(0)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _m = GPT(11, d_model=8, n_heads=2, n_layers=2, d_ff=16, max_len=6, dropout=0.0)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _out = _m(torch.randint(0, 11, (3, 5)))  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert isinstance(_out, torch.Tensor) and tuple(_out.shape) == (3, 5, 11), 'forward must return logits (B, T, C) = (3, 5, 11): did you fill in the "
                                               "TODO?'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               ">>> assert not any((isinstance(_mod, nn.Linear) and _mod.out_features == 11 for _mod in _m.modules())), 'the output layer is the token embedding "
                                               "(weight tying): use self.tok_emb.weight, no new nn.Linear'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> from seqcourse.testing import define, standin  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> _affine = define('_affine', '\\nimport torch.nn as nn\\ndef _affine(scales, shifts):\\n    # stand-in blocks (this check does not depend on "
                                               'question 1): block i computes x * scales[i] + shifts[i]\\n    class _Affine(nn.Module):\\n        def __init__(self, a, b):\\n            '
                                               'super().__init__()\\n            self.a, self.b = a, nn.Parameter(b)\\n        def forward(self, x):\\n            return x * self.a + self.b\\n    '
                                               "return nn.ModuleList(_Affine(a, b) for a, b in zip(scales, shifts))\\n')  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> _E, _P, _g, _beta, _b0, _b1 = (torch.randn(11, 8), torch.randn(6, 8), torch.rand(8) + 0.5, torch.randn(8), torch.randn(8), torch.randn(8))  # '
                                               'doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> _ = _m.load_state_dict({'tok_emb.weight': _E, 'pos_emb.weight': _P, 'norm.weight': _g, 'norm.bias': _beta}, strict=False)  # doctest: "
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _m.blocks = _affine([2.0, -0.5], [_b0, _b1])  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _ids = torch.tensor([[2, 5, 7, 1, 9], [2, 10, 4, 4, 3]])  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _x = ((_E[_ids] + _P[:5]) * 2.0 + _b0) * -0.5 + _b1  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _want = F.layer_norm(_x, (8,), _g, _beta) @ _E.T  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert torch.allclose(_m(_ids), _want, atol=0.0001), 'with stand-in blocks (block i computes x * a_i + b_i), the logits differ: x = tok_emb(ids) + "
                                               "pos_emb(0 ... T-1), then every block in order, then norm, then logits = x @ tok_emb.weight.T (tied, no softmax)'  # doctest: "
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> _grads = define('_grads', 'from seqcourse.testing import grads as _grads')  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> _w = torch.linspace(-1, 1, 110).reshape(2, 5, 11)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _Er = _E.clone().requires_grad_(True)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> (F.layer_norm(((_Er[_ids] + _P[:5]) * 2.0 + _b0) * -0.5 + _b1, (8,), _g, _beta) @ _Er.T * _w).sum().backward()  # doctest: '
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _res = _grads(_m, (_ids,), [_w], _m)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert _res is not None and _res[0].get('tok_emb.weight') is not None and torch.allclose(_res[0]['tok_emb.weight'], _Er.grad, atol=0.0001), "
                                               '"the gradient of tok_emb.weight differs from the tied reference\'s (input and output layer both): use tok_emb.weight itself for the logits, not '
                                               'tok_emb.weight.detach()"  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _m = GPT(11, d_model=8, n_heads=2, n_layers=1, d_ff=16, max_len=6, dropout=1.0).train()  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _m.blocks = _affine([1.0], [torch.zeros(8)])  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _want = F.layer_norm(torch.zeros(1, 3, 8), (8,), _m.norm.weight.detach(), _m.norm.bias.detach()) @ _m.tok_emb.weight.detach().T  # doctest: '
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert torch.allclose(_m(torch.tensor([[1, 2, 3]])), _want, atol=1e-05), 'with dropout p = 1 in training mode the embeddings must be dropped "
                                               "entirely (self.dropout on tok_emb(ids) + pos_emb(positions)): is the embedding dropout missing?'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
