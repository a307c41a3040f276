OK_FORMAT = True

test = {   'name': 'q9_kv_cache',
    'points': 3,
    'suites': [   {   'cases': [   {   'code': '>>> _ = torch.manual_seed(0)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _attn = MultiHeadAttention(8, 2)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _res = cached_self_attention(_attn, torch.randn(3, 1, 8), torch.randn(3, 2, 4, 4), torch.randn(3, 2, 4, 4))  # doctest: '
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert isinstance(_res, tuple) and len(_res) == 3, 'cached_self_attention must return (output, keys, values): did you fill in the TODO?'  # "
                                               'doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert tuple(_res[0].shape) == (3, 1, 8), f'output must be (N, 1, d_model) = (3, 1, 8), got {tuple(_res[0].shape)}'  # doctest: "
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert tuple(_res[1].shape) == (3, 2, 5, 4) and tuple(_res[2].shape) == (3, 2, 5, 4), 'the returned keys and values must be (N, n_h, t+1, d_k) = "
                                               "(3, 2, 5, 4): append the new position along dim 2'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
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
                                               '>>> def _causal_mha(s, x, h):\n'
                                               '...     B, T, d = x.shape\n'
                                               "...     heads = lambda n: F.linear(x, s[f'W_{n}.weight'], s[f'W_{n}.bias']).view(B, T, h, d // h).transpose(1, 2)\n"
                                               "...     q, k, v = (heads('q'), heads('k'), heads('v'))\n"
                                               '...     out = F.scaled_dot_product_attention(q, k, v, is_causal=True).transpose(1, 2).reshape(B, T, d)\n'
                                               "...     return (F.linear(out, s['W_o.weight'], s['W_o.bias']), k, v)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               ">>> _state = {f'W_{_n}.{_p}': torch.randn(8, 8) * 0.5 if _p == 'weight' else torch.randn(8) * 0.5 for _n in 'qkvo' for _p in ('weight', 'bias')}  # "
                                               'doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _attn = _RefMHA(8, 2)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _ = _attn.load_state_dict(_state)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _x = torch.randn(2, 3, 8)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _want, _want_k, _want_v = _causal_mha(_state, _x, 2)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _out, _k, _v = cached_self_attention(_attn, _x[:, 2:], _want_k[:, :, :2], _want_v[:, :, :2])  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert torch.allclose(_k, _want_k, atol=1e-05) and torch.allclose(_v, _want_v, atol=1e-05), 'on a small example (2 cached positions, 1 new), the "
                                               "returned keys and values must be the cached ones followed by split_heads(W_k(x)) and split_heads(W_v(x)) of the new position'  # doctest: "
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert torch.allclose(_out, _want[:, 2:], atol=1e-05), 'on a small example (2 cached positions, 1 new), the output differs from causal "
                                               "self-attention over the whole sequence at its last position: the new query attends to every cached key and to its own, then merge_heads and W_o'  # "
                                               'doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> assert _attn.weights is not None and tuple(_attn.weights.shape) == (2, 2, 1, 3), "store the step\'s attention weights (N, n_h, 1, t+1) = (2, 2, 1, '
                                               '3) in attn.weights"  # doctest: +REPORT_ONLY_FIRST_FAILURE\n',
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
