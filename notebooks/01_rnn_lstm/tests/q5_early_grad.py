OK_FORMAT = True

test = {   'name': 'q5_early_grad',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': '>>> _ = torch.manual_seed(0)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _g = early_gradient_norm(RNN(3, 5), torch.randn(2, 4, 3))  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert type(_g) is float, f'return a Python float (use .item() or float(...)), got {_g!r}'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               ">>> assert _g > 0, 'the gradient norm of a 4-step RNN should be positive'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n",
                                       'hidden': False,
                                       'locked': False},
                                   {   'code': '>>> from seqcourse.testing import define  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _StandIn = define(\'_StandIn\', "\\nclass _StandIn(torch.nn.Module):\\n    def __init__(self, kind, input_size, hidden_size):\\n        '
                                               "super().__init__()\\n        self.kind = kind\\n        self.net = (torch.nn.LSTM if kind == 'lstm' else torch.nn.RNN)(input_size, hidden_size, "
                                               "batch_first=True)\\n    def forward(self, x):\\n        out, state = self.net(x)\\n        if self.kind == 'lstm':\\n            return out, "
                                               '(state[0][0], state[1][0])\\n        return out, state[0]\\n")  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
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
