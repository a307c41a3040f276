OK_FORMAT = True

test = {   'name': 'q5_early_grad',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': '>>> _ = torch.manual_seed(0)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _g = early_gradient_norm(RNN(3, 5), torch.randn(2, 4, 3))  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert type(_g) is float, f'return a Python float (use .item() or float(...)), got {_g!r}'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               ">>> assert _g > 0, 'the gradient norm of a 4-step RNN should be positive'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> from seqcourse.testing import define, standin  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> _Decay = define('_Decay', '\\nimport torch\\nclass _Decay(torch.nn.Module):\\n    # a linear recurrence h_t = 0.5 h_(t-1) + x_t W^T, h_0 = 0: "
                                               '(outputs (B, T, H), h_T), like your RNN\\n    def __init__(self, input_size, hidden_size):\\n        super().__init__()\\n        self.weight = '
                                               'torch.nn.Parameter(torch.zeros(hidden_size, input_size))\\n    def forward(self, x):\\n        t = torch.arange(x.shape[1], device=x.device, '
                                               'dtype=x.dtype)\\n        decay = torch.tril(0.5 ** (t[:, None] - t[None, :]))   # decay[t, s] = 0.5 ** (t - s) for s <= t, else 0\\n        outputs = '
                                               'torch.einsum("ts,bsh->bth", decay, x @ self.weight.T)\\n        return outputs, outputs[:, -1]\\n\')  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _W = torch.tensor([[1.0, 2.0], [2.0, -1.0], [0.0, 1.0]])  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _layer = _Decay(2, 3)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> _ = _layer.load_state_dict({'weight': _W}, strict=False)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> _g = early_gradient_norm(_layer, torch.randn(3, 4, 2))  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _want = 0.5 ** 3 * 3 ** 0.5 * _W.sum(0).norm().item()  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert type(_g) is float and abs(_g - _want) <= 1e-05, f'on a linear recurrence h_t = 0.5 h_(t-1) + x_t W^T (B = 3, T = 4) the answer is 0.5 ** 3 "
                                               '* sqrt(B) * |W summed over its rows| = {_want:.6g}, got {_g!r}: the norm of the gradient of h_T summed (outputs[:, -1].sum(), not all outputs, not the '
                                               "first state) with respect to the FIRST step x[:, 0] (not the last, not all steps)'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n",
                                       'hidden': False,
                                       'locked': False},
                                   {   'code': '>>> from seqcourse.testing import define, standin  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _StandIn = define(\'_StandIn\', "\\nimport torch\\nclass _StandIn(torch.nn.Module):\\n    def __init__(self, kind, input_size, '
                                               "hidden_size):\\n        super().__init__()\\n        self.kind = kind\\n        self.net = (torch.nn.LSTM if kind == 'lstm' else "
                                               'torch.nn.RNN)(input_size, hidden_size, batch_first=True)\\n    def forward(self, x):\\n        out, state = self.net(x)\\n        if self.kind == '
                                               '\'lstm\':\\n            return out, (state[0][0], state[1][0])\\n        return out, state[0]\\n")  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _ = torch.manual_seed(0)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _ref = torch.nn.RNN(2, 3, batch_first=True)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _x = torch.randn(2, 4, 2)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> _layer = _StandIn('rnn', 2, 3)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               ">>> _ = _layer.load_state_dict({'net.' + _k: _v for _k, _v in _ref.state_dict().items()}, strict=False)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> _g = early_gradient_norm(_layer, _x)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _xr = _x.clone().requires_grad_(True)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _want = torch.autograd.grad(_ref(_xr)[0][:, -1].sum(), _xr)[0][:, 0].norm().item()  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert abs(float(_g) - _want) <= 1e-05 * max(1.0, _want), f'on a small fixed example (an RNN, B = 2, T = 4) got {float(_g):.6g}, expected "
                                               "{_want:.6g}: the norm of the gradient of h_T summed (outputs[:, -1].sum()) with respect to the FIRST step x[:, 0]'  # doctest: "
                                               '+REPORT_ONLY_FIRST_FAILURE\n',
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
