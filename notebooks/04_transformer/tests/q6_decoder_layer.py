OK_FORMAT = True

test = {   'name': 'q6_decoder_layer',
    'points': 3,
    'suites': [   {   'cases': [   {   'code': '>>> _ = torch.manual_seed(0)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _layer = DecoderLayer(8, 2, 32)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _y = _layer(torch.randn(2, 4, 8), torch.randn(2, 3, 8), torch.ones(4, 4, dtype=torch.bool).tril(), torch.ones(2, 1, 1, 3, dtype=torch.bool))  # '
                                               'doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert isinstance(_y, torch.Tensor) and tuple(_y.shape) == (2, 4, 8), 'DecoderLayer must return (B, T, d_model): did you fill in the TODO?'  # "
                                               'doctest: +REPORT_ONLY_FIRST_FAILURE\n'
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
                                               '>>> _RefFF = define(\'_RefFF\', "\\nclass _RefFF(nn.Module):\\n    # a correct feed-forward network with the notebook\'s parameter names (checks do '
                                               'not depend on q5)\\n    def __init__(self, d, d_ff):\\n        super().__init__()\\n        self.linear1, self.linear2 = nn.Linear(d, d_ff), '
                                               'nn.Linear(d_ff, d)\\n    def forward(self, x):\\n        return self.linear2(F.relu(self.linear1(x)))\\n")  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
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
                                               '>>> _ref = nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0, batch_first=True, norm_first=True)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> with torch.no_grad():\n'
                                               '...     for _p in _ref.parameters():\n'
                                               '...         if _p.dim() == 1:\n'
                                               '...             _ = _p.copy_(torch.randn_like(_p) * 0.5)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _layer = DecoderLayer(8, 2, 16, dropout=0.0)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _layer.self_attn, _layer.cross_attn, _layer.ff = (_RefMHA(8, 2), _RefMHA(8, 2), _RefFF(8, 16))  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> _ = _layer.load_state_dict(_as_notebook(_ref, [('self_attn', 'self_attn'), ('cross_attn', 'multihead_attn')]), strict=False)  # doctest: "
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _x, _mem = (torch.randn(2, 4, 8), torch.randn(2, 3, 8))  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _causal, _real = (torch.ones(4, 4, dtype=torch.bool).tril(), torch.tensor([[True, True, True], [True, True, False]]))  # doctest: '
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _want = _ref(_x, _mem, tgt_mask=~_causal, memory_key_padding_mask=~_real)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> assert torch.allclose(_layer(_x, _mem, _causal, _real[:, None, None, :]), _want, atol=1e-05), "on a small example with the same weights, the layer '
                                               'differs from torch.nn.TransformerDecoderLayer(norm_first=True): (1) x + self_attn(h, h, h, tgt_mask), h = norm1(x); (2) x + cross_attn(h, memory, '
                                               'memory, src_mask), h = norm2(x); (3) x + ff(norm3(x)); dropout on each sublayer\'s output"  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _layer = DecoderLayer(8, 2, 16, dropout=0.5)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _layer.self_attn, _layer.cross_attn, _layer.ff = (_RefMHA(8, 2), _RefMHA(8, 2), _RefFF(8, 16))  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> _ = _layer.load_state_dict(_as_notebook(_ref, [('self_attn', 'self_attn'), ('cross_attn', 'multihead_attn')]), strict=False)  # doctest: "
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _ = _layer.eval()  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> assert torch.allclose(_layer(_x, _mem, _causal, _real[:, None, None, :]), _want, atol=1e-05), "in eval mode dropout must be off: use the layer\'s '
                                               'self.dropout module (or F.dropout(..., training=self.training)), not F.dropout with its default training=True"  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _layer = DecoderLayer(8, 2, 16, dropout=1.0)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _layer.self_attn, _layer.cross_attn, _layer.ff = (_RefMHA(8, 2), _RefMHA(8, 2), _RefFF(8, 16))  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _ = _layer.train()  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> assert torch.allclose(_layer(_x, _mem, _causal, _real[:, None, None, :]), _x), "with dropout p = 1 in training mode each sublayer\'s output is '
                                               "dropped entirely, so the layer must return x unchanged: apply self.dropout to each of the three sublayers' outputs before adding it to x (not to the "
                                               'sum, not to a sublayer\'s input; is a dropout missing?)"  # doctest: +REPORT_ONLY_FIRST_FAILURE\n',
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
