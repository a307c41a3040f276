OK_FORMAT = True

test = {   'name': 'q7_gpt2',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': '>>> from seqcourse.testing import standin  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> exec(\'\\nimport torch\\ndef _tiny_gpt2(seed, d, n_layers, vocab, n_positions, prefix=""):\\n    # GPT-2\\\'s weights under Hugging Face\\\'s '
                                               'names, random (gains and biases too), with the buffers a checkpoint holds\\n    g = torch.Generator().manual_seed(seed)\\n    def r(*shape):\\n        '
                                               'return torch.randn(*shape, generator=g) * 0.3\\n    wte = r(vocab, d)\\n    sd = {prefix + "wte.weight": wte, prefix + "wpe.weight": r(n_positions, '
                                               'd)}\\n    for i in range(n_layers):\\n        p = f"{prefix}h.{i}."\\n        sd.update({p + "ln_1.weight": 1 + r(d), p + "ln_1.bias": '
                                               'r(d),\\n                   p + "attn.bias": torch.ones(n_positions, n_positions, dtype=torch.bool).tril()[None, None],\\n                   p + '
                                               '"attn.masked_bias": torch.tensor(-1e4),\\n                   p + "attn.c_attn.weight": r(d, 3 * d), p + "attn.c_attn.bias": r(3 * '
                                               'd),\\n                   p + "attn.c_proj.weight": r(d, d), p + "attn.c_proj.bias": r(d),\\n                   p + "ln_2.weight": 1 + r(d), p + '
                                               '"ln_2.bias": r(d),\\n                   p + "mlp.c_fc.weight": r(d, 4 * d), p + "mlp.c_fc.bias": r(4 * d),\\n                   p + '
                                               '"mlp.c_proj.weight": r(4 * d, d), p + "mlp.c_proj.bias": r(d)})\\n    sd.update({prefix + "ln_f.weight": 1 + r(d), prefix + "ln_f.bias": r(d), '
                                               '"lm_head.weight": wte})\\n    return sd\\n\')  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> exec('\\nimport torch.nn.functional as F\\ndef _gpt2_logits(hf, ids, n_heads):\\n    # GPT-2\\'s own forward pass, read from its weights under "
                                               'Hugging Face\\\'s names (Conv1D: x @ weight + bias)\\n    sd = {k.removeprefix("transformer."): v for k, v in hf.items()}\\n    B, T = ids.shape\\n    '
                                               'd = sd["wte.weight"].size(1)\\n    def ln(z, n):\\n        return F.layer_norm(z, (d,), sd[n + ".weight"], sd[n + ".bias"], eps=1e-5)\\n    def '
                                               'conv(z, n):\\n        return z @ sd[n + ".weight"] + sd[n + ".bias"]\\n    x = sd["wte.weight"][ids] + sd["wpe.weight"][:T]\\n    i = 0\\n    while '
                                               'f"h.{i}.ln_1.weight" in sd:\\n        p = f"h.{i}."\\n        q, k, v = conv(ln(x, p + "ln_1"), p + "attn.c_attn").split(d, dim=-1)\\n        q, k, v '
                                               '= (z.view(B, T, n_heads, d // n_heads).transpose(1, 2) for z in (q, k, v))\\n        a = F.scaled_dot_product_attention(q, k, v, '
                                               'is_causal=True).transpose(1, 2).reshape(B, T, d)\\n        x = x + conv(a, p + "attn.c_proj")\\n        x = x + conv(F.gelu(conv(ln(x, p + "ln_2"), p '
                                               '+ "mlp.c_fc"), approximate="tanh"), p + "mlp.c_proj")\\n        i += 1\\n    return ln(x, "ln_f") @ sd["wte.weight"].T\\n\')  # doctest: '
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> _hf = _tiny_gpt2(0, d=8, n_layers=2, vocab=13, n_positions=10, prefix='transformer.')  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> _sd = gpt2_state_dict(_hf)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert isinstance(_sd, dict), 'gpt2_state_dict must return a dict: did you fill in the TODO?'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               ">>> _m = GPT(13, d_model=8, n_heads=2, n_layers=2, d_ff=32, max_len=10, dropout=0.0, gelu='tanh').eval()  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> _shapes = {_k: tuple(_v.shape) for _k, _v in _m.state_dict().items()}  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _missing, _extra = (sorted(set(_shapes) - set(_sd)), sorted(set(_sd) - set(_shapes)))  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert not _missing and (not _extra), f'the names must be exactly those of GPT(...).state_dict(): missing {_missing[:4]}, not ours {_extra[:4]} "
                                               "(skip attn.bias, attn.masked_bias and lm_head.weight)'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> _wrong = [_k for _k in _shapes if tuple(_sd[_k].shape) != _shapes[_k]]  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> assert not _wrong, f"{_wrong[0]} has shape {tuple(_sd[_wrong[0]].shape)}, our GPT\'s is {_shapes[_wrong[0]]}: Conv1D weights are (in, out), so '
                                               'transpose them for nn.Linear; c_attn\'s weight is [W_q | W_k | W_v] along its SECOND axis"  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _ = _m.load_state_dict(_sd)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _ids = torch.tensor([[1, 5, 9, 2, 12], [0, 3, 3, 7, 4]])  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> assert torch.allclose(_m(_ids), _gpt2_logits(_hf, _ids, n_heads=2), atol=0.0001), "a tiny random GPT-2 loaded into our GPT gives other logits than '
                                               "GPT-2's own computation: Conv1D weights are (in, out), so transpose them for nn.Linear; c_attn's weight is [W_q | W_k | W_v] along its SECOND axis "
                                               '(chunk(3, dim=1)), its bias likewise"  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _hf1 = _tiny_gpt2(1, d=8, n_layers=1, vocab=13, n_positions=10)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> _m1 = GPT(13, d_model=8, n_heads=2, n_layers=1, d_ff=32, max_len=10, dropout=0.0, gelu='tanh').eval()  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> _ = _m1.load_state_dict(gpt2_state_dict(_hf1))  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert torch.allclose(_m1(_ids), _gpt2_logits(_hf1, _ids, n_heads=2), atol=0.0001), 'names without the prefix transformer. (as in the downloaded "
                                               "file) must work too, and the number of blocks comes from the names'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> from seqcourse.testing import define  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> _untouched = define('_gpt2_untouched', '\\nimport torch\\ndef _changes(d, snapshot):\\n    # what was changed in the dictionary d since its "
                                               'snapshot: names, tensors, values\\n    names, tensors, values = snapshot\\n    found = []\\n    if list(d) != names:\\n        found.append("names '
                                               'were removed, added or reordered")\\n    if any(d.get(k) is not t for k, t in tensors.items()):\\n        found.append("a value was replaced")\\n    '
                                               'if any(k in d and isinstance(v, torch.Tensor) and (d[k].shape != v.shape or not torch.equal(d[k], v)) for k, v in values.items()):\\n        '
                                               'found.append("a tensor was changed in place")\\n    return found\\ndef _snapshot(d):\\n    # the names, tensors and values of a dictionary of tensors, '
                                               'to tell later what a call changed in it\\n    return list(d), dict(d), {k: v.clone() if isinstance(v, torch.Tensor) else v for k, v in '
                                               'd.items()}\\ndef _tiny_gpt2(seed, d, n_layers, vocab, n_positions, prefix=""):\\n    # GPT-2\\\'s weights under Hugging Face\\\'s names, random (gains '
                                               'and biases too), with the buffers a checkpoint holds\\n    g = torch.Generator().manual_seed(seed)\\n    def r(*shape):\\n        return '
                                               'torch.randn(*shape, generator=g) * 0.3\\n    wte = r(vocab, d)\\n    sd = {prefix + "wte.weight": wte, prefix + "wpe.weight": r(n_positions, d)}\\n    '
                                               'for i in range(n_layers):\\n        p = f"{prefix}h.{i}."\\n        sd.update({p + "ln_1.weight": 1 + r(d), p + "ln_1.bias": '
                                               'r(d),\\n                   p + "attn.bias": torch.ones(n_positions, n_positions, dtype=torch.bool).tril()[None, None],\\n                   p + '
                                               '"attn.masked_bias": torch.tensor(-1e4),\\n                   p + "attn.c_attn.weight": r(d, 3 * d), p + "attn.c_attn.bias": r(3 * '
                                               'd),\\n                   p + "attn.c_proj.weight": r(d, d), p + "attn.c_proj.bias": r(d),\\n                   p + "ln_2.weight": 1 + r(d), p + '
                                               '"ln_2.bias": r(d),\\n                   p + "mlp.c_fc.weight": r(d, 4 * d), p + "mlp.c_fc.bias": r(4 * d),\\n                   p + '
                                               '"mlp.c_proj.weight": r(4 * d, d), p + "mlp.c_proj.bias": r(d)})\\n    sd.update({prefix + "ln_f.weight": 1 + r(d), prefix + "ln_f.bias": r(d), '
                                               '"lm_head.weight": wte})\\n    return sd\\ndef _gpt2_untouched(prefix):\\n    # what gpt2_state_dict changes in the caller\\\'s dictionary of a tiny '
                                               'GPT-2 (names, tensors, values)\\n    hf = _tiny_gpt2(7, 8, 2, 11, 6, prefix)\\n    before = _snapshot(hf)\\n    gpt2_state_dict(hf)  # noqa: F821 (the '
                                               "notebook\\'s)\\n    return _changes(hf, before)\\n')  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               ">>> _found = _untouched('transformer.')  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> assert not _found, f"gpt2_state_dict changed the caller\'s dictionary: {_found} (read from it, build a new dict; no pop, del or in-place '
                                               'transpose)"  # doctest: +REPORT_ONLY_FIRST_FAILURE\n',
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
