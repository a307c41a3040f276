OK_FORMAT = True

test = {   'name': 'q5_encoder_layer',
    'points': 3,
    'suites': [   {   'cases': [   {   'code': '>>> _ = torch.manual_seed(0)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _ff = FeedForward(8, 32)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _y = _ff(torch.randn(2, 3, 8))  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert isinstance(_y, torch.Tensor) and tuple(_y.shape) == (2, 3, 8), 'FeedForward must map (B, n, d_model) to (B, n, d_model): did you fill in "
                                               "the TODO?'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> _layer = EncoderLayer(8, 2, 32)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _y = _layer(torch.randn(2, 3, 8), torch.ones(2, 1, 1, 3, dtype=torch.bool))  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert isinstance(_y, torch.Tensor) and tuple(_y.shape) == (2, 3, 8), 'EncoderLayer must return (B, S, d_model)'  # doctest: "
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> from seqcourse.testing import define  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> _RefMHA = define('_RefMHA', '\\nclass _RefMHA(nn.Module):\\n    # a correct multi-head attention with the notebook\\'s names (checks do not depend "
                                               'on q2): W_q, W_k, W_v, W_o,\\n    # h, d_k, split_heads, merge_heads, forward, and the last weights in self.weights\\n    def __init__(self, d, '
                                               'h):\\n        super().__init__()\\n        self.h, self.d_k = h, d // h\\n        self.W_q, self.W_k, self.W_v, self.W_o = (nn.Linear(d, d) for _ in '
                                               'range(4))\\n        self.weights = None\\n    def split_heads(self, x):\\n        return x.view(x.size(0), x.size(1), self.h, self.d_k).transpose(1, '
                                               '2)\\n    def merge_heads(self, x):\\n        return x.transpose(1, 2).reshape(x.size(0), x.size(2), self.h * self.d_k)\\n    def forward(self, query, '
                                               'key, value, mask=None):\\n        q, k, v = self.split_heads(self.W_q(query)), self.split_heads(self.W_k(key)), '
                                               'self.split_heads(self.W_v(value))\\n        scores = q @ k.transpose(-2, -1) / self.d_k ** 0.5\\n        if mask is not None:\\n            scores = '
                                               'scores.masked_fill(~mask, float("-inf"))\\n        self.weights = torch.softmax(scores, dim=-1)\\n        return '
                                               "self.W_o(self.merge_heads(self.weights @ v))\\n')  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> def _as_notebook(ref, attns, grad=False):\n'
                                               '...     get = (lambda t: t.grad) if grad else lambda t: t.detach()\n'
                                               '...     s = {}\n'
                                               '...     for mine, theirs in attns:\n'
                                               '...         a = getattr(ref, theirs)\n'
                                               "...         for n, Wn, bn in zip('qkv', get(a.in_proj_weight).chunk(3), get(a.in_proj_bias).chunk(3)):\n"
                                               "...             s[f'{mine}.W_{n}.weight'], s[f'{mine}.W_{n}.bias'] = (Wn, bn)\n"
                                               "...         s[f'{mine}.W_o.weight'], s[f'{mine}.W_o.bias'] = (get(a.out_proj.weight), get(a.out_proj.bias))\n"
                                               '...     for n, p in ref.named_parameters():\n'
                                               "...         if n.startswith(('linear', 'norm')):\n"
                                               "...             s[('ff.' if n.startswith('linear') else '') + n] = get(p)\n"
                                               '...     return s  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _ref = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True, norm_first=True)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> with torch.no_grad():\n'
                                               '...     for _p in _ref.parameters():\n'
                                               '...         if _p.dim() == 1:\n'
                                               '...             _ = _p.copy_(torch.randn_like(_p) * 0.5)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _layer = EncoderLayer(8, 2, 16, dropout=0.0)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _layer.self_attn = _RefMHA(8, 2)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> _ = _layer.load_state_dict(_as_notebook(_ref, [('self_attn', 'self_attn')]), strict=False)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> _x, _real = (torch.randn(2, 3, 8), torch.tensor([[True, True, True], [True, True, False]]))  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _want = _ref(_x, src_key_padding_mask=~_real)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert torch.allclose(_layer(_x, _real[:, None, None, :])[_real], _want[_real], atol=1e-05), 'on a small example with the same weights, the layer "
                                               'differs from torch.nn.TransformerEncoderLayer(norm_first=True): h = norm1(x); x = x + dropout(self_attn(h, h, h, src_mask)); return x + '
                                               "dropout(ff(norm2(x))), with ff = linear2(relu(linear1(x)))'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> _layer = EncoderLayer(8, 2, 16, dropout=0.5)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _layer.self_attn = _RefMHA(8, 2)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> _ = _layer.load_state_dict(_as_notebook(_ref, [('self_attn', 'self_attn')]), strict=False)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> _ = _layer.eval()  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> assert torch.allclose(_layer(_x, _real[:, None, None, :])[_real], _want[_real], atol=1e-05), "in eval mode dropout must be off: use the layer\'s '
                                               'self.dropout module (or F.dropout(..., training=self.training)), not F.dropout with its default training=True"  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _layer = EncoderLayer(8, 2, 16, dropout=1.0)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _layer.self_attn = _RefMHA(8, 2)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _ = _layer.train()  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> assert torch.allclose(_layer(_x, _real[:, None, None, :]), _x), "with dropout p = 1 in training mode each sublayer\'s output is dropped entirely, '
                                               "so the layer must return x unchanged: apply self.dropout to each sublayer's output before adding it to x (not to the sum, not to the sublayer's input; "
                                               'is a dropout missing?)"  # doctest: +REPORT_ONLY_FIRST_FAILURE\n',
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
