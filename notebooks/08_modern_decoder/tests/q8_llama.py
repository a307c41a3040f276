OK_FORMAT = True

test = {   'name': 'q8_llama',
    'points': 3,
    'suites': [   {   'cases': [   {   'code': '>>> from seqcourse.testing import standin  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> exec(\'\\nimport torch\\ndef _tiny_llama(seed, d, n_layers, n_heads, n_kv_heads, d_hidden, vocab, prefix="model.", lm_head=False, '
                                               "buffers=False,\\n                dtype=torch.float32, emb_scale=1.0):\\n    # a Llama-family checkpoint under Hugging Face\\'s names, random (gains "
                                               'too); lm_head: an output layer of its own\\n    # (an untied model\\\'s) or "tied" (the token embedding itself, as a tied model\\\'s state_dict() '
                                               'holds it); buffers:\\n    # the rotary inverse frequencies that older checkpoints hold in every layer; emb_scale: token embeddings that small\\n    # '
                                               "(RMSNorm\\'s epsilon then matters)\\n    g = torch.Generator().manual_seed(seed)\\n    def r(*shape, scale=1.0):\\n        return (torch.randn(*shape, "
                                               'generator=g) * scale / shape[-1] ** 0.5).to(dtype)\\n    d_k = d // n_heads\\n    emb = r(vocab, d, scale=d ** 0.5 * emb_scale)\\n    sd = {prefix + '
                                               '"embed_tokens.weight": emb}\\n    for i in range(n_layers):\\n        p = f"{prefix}layers.{i}."\\n        sd.update({p + "self_attn.q_proj.weight": '
                                               'r(n_heads * d_k, d, scale=2.0), p + "self_attn.k_proj.weight": r(n_kv_heads * d_k, d, scale=2.0),\\n                   p + "self_attn.v_proj.weight": '
                                               'r(n_kv_heads * d_k, d), p + "self_attn.o_proj.weight": r(d, d),\\n                   p + "mlp.gate_proj.weight": r(d_hidden, d), p + '
                                               '"mlp.up_proj.weight": r(d_hidden, d),\\n                   p + "mlp.down_proj.weight": r(d, d_hidden),\\n                   p + '
                                               '"input_layernorm.weight": (1 + 0.2 * torch.randn(d, generator=g)).to(dtype),\\n                   p + "post_attention_layernorm.weight": (1 + 0.2 * '
                                               'torch.randn(d, generator=g)).to(dtype)})\\n        if buffers:\\n            sd[p + "self_attn.rotary_emb.inv_freq"] = 1.0 / 10000 ** (torch.arange(0, '
                                               'd_k, 2).float() / d_k)\\n    sd[prefix + "norm.weight"] = (1 + 0.2 * torch.randn(d, generator=g)).to(dtype)\\n    if lm_head == "tied":\\n        '
                                               'sd["lm_head.weight"] = emb\\n    elif lm_head:\\n        sd["lm_head.weight"] = r(vocab, d, scale=2.0)\\n    return sd\\n\')  # doctest: '
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> _cfg = {'vocab_size': 11, 'hidden_size': 32, 'intermediate_size': 24, 'num_hidden_layers': 11, 'num_attention_heads': 4, 'num_key_value_heads': 2, "
                                               "'rms_norm_eps': 0.05, 'rope_theta': 500.0, 'tie_word_embeddings': True}  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> _hf = _tiny_llama(0, 32, 11, 4, 2, 24, 11)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _names, _tensors, _values = (list(_hf), dict(_hf), {_k: _v.clone() for _k, _v in _hf.items()})  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _m = llama_decoder(_hf, _cfg)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert _m is not None and hasattr(_m, 'tok_emb') and hasattr(_m, 'extend'), 'llama_decoder must return the ModernDecoder it built: did you fill in "
                                               "the TODO?'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               ">>> assert not _m.training, 'return the model in eval mode (model.eval())'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> _ids = torch.tensor([[3, 1, 4, 1, 5, 9, 2, 6]])  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> with torch.no_grad():\n'
                                               '...     _logits = _m(_ids)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _want_0 = torch.tensor([-2.4474, -5.1721, 1.845, -3.3262, -0.1303, 7.8227, 6.3154, 1.6501])  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _want_last = torch.tensor([1.6501, -4.9798, -9.9992, -4.3386, 7.3244, 1.5026, 1.419, -0.4488, 5.7967, 11.5155, 22.839])  # doctest: '
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> assert abs(float(_logits[0, 0, 0]) - float(_want_0[0])) < 0.002, "at position 0 (no rotation) the logits differ from Hugging Face\'s: '
                                               'input_layernorm -> norm1, post_attention_layernorm -> norm2, mlp.gate_proj -> ff.W, mlp.up_proj -> ff.V, mlp.down_proj -> ff.W2, v_proj and o_proj as '
                                               "they are (only q_proj's and k_proj's rows move); eps = rms_norm_eps (0.05 here); the output layer is the token embedding when tie_word_embeddings is "
                                               'true"  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> assert torch.allclose(_logits[0, :, 0], _want_0, atol=0.002) and torch.allclose(_logits[0, -1], _want_last, atol=0.002), "position 0 is right, '
                                               "later positions are not: within each head, Hugging Face's rows j and j + d_k/2 of q_proj (n_h heads) and of k_proj (n_kv heads) must become rows 2j "
                                               'and 2j + 1; and the base is rope_theta (500 here)"  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> assert list(_hf) == _names and all((_hf[_k] is _tensors[_k] and torch.equal(_hf[_k], _values[_k]) for _k in _names)), "llama_decoder changed the '
                                               'caller\'s dictionary (a name, a tensor or its values): read from it, build new tensors and a new dict"  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> _hf_sd = {**_tiny_llama(0, 32, 11, 4, 2, 24, 11, buffers=True), 'lm_head.weight': _hf['model.embed_tokens.weight']}  # doctest: "
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> with torch.no_grad():\n'
                                               '...     assert torch.allclose(llama_decoder(_hf_sd, _cfg)(_ids), _logits, atol=1e-05), "the same weights as a tied model\'s state_dict() lists them '
                                               '(lm_head.weight, the embedding itself, and rotary_emb.inv_freq buffers in every block) must give the same model: skip both"  # doctest: '
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> _cfg2 = {'vocab_size': 11, 'hidden_size': 16, 'intermediate_size': 20, 'num_hidden_layers': 2, 'num_attention_heads': 2, 'num_key_value_heads': 1, "
                                               "'rms_norm_eps': 1e-05, 'rope_parameters': {'rope_theta': 1000.0, 'rope_type': 'default'}, 'tie_word_embeddings': False}  # doctest: "
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> _hf2 = _tiny_llama(1, 16, 2, 2, 1, 20, 11, prefix='', lm_head=True)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> with torch.no_grad():\n'
                                               '...     _logits2 = llama_decoder(_hf2, _cfg2)(_ids)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _want2 = torch.tensor([-0.3961, 0.0431, -0.4395, 4.8157, 1.4893, -1.2461, 3.271, 1.372, -2.1311, -0.3019, -1.5965])  # doctest: '
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> assert torch.allclose(_logits2[0, -1], _want2, atol=0.002), "an untied model (tie_word_embeddings false) with names without model. and its base in '
                                               "rope_parameters (transformers 5) gives other logits than Hugging Face's: ModernDecoder(..., tied=False) holding lm_head.weight; strip the prefix only "
                                               'where it is; base = rope_parameters[\'rope_theta\']"  # doctest: +REPORT_ONLY_FIRST_FAILURE\n',
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
