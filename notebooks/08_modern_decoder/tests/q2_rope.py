OK_FORMAT = True

test = {   'name': 'q2_rope',
    'points': 2.5,
    'suites': [   {   'cases': [   {   'code': '>>> _x = torch.ones(1, 1, 3, 4)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _y = rope(_x)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert isinstance(_y, torch.Tensor) and tuple(_y.shape) == (1, 1, 3, 4), 'rope must return (B, H, T, d_k) = (1, 1, 3, 4): did you fill in the "
                                               "TODO?'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               ">>> assert torch.allclose(_y[0, 0, 0], _x[0, 0, 0]), 'position 0 is rotated by angle 0: it must come back unchanged'  # doctest: "
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _c, _s = (math.cos(1.0), math.sin(1.0))  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert torch.allclose(_y[0, 0, 1, :2], torch.tensor([_c - _s, _s + _c]), atol=1e-05), 'position 1, pair 0 (dimensions 0 and 1) turns by theta_0 = "
                                               "1 radian: (x0 cos - x1 sin, x0 sin + x1 cos). Pairs are NEIGHBOURING dimensions (2i, 2i+1), not i and i + d_k/2'  # doctest: "
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _c, _s = (math.cos(0.02), math.sin(0.02))  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert torch.allclose(_y[0, 0, 2, 2:], torch.tensor([_c - _s, _s + _c]), atol=1e-05), 'position 2, pair 1 (dimensions 2 and 3) turns by 2 * "
                                               "theta_1 with theta_1 = 10000 ** (-2 / 4) = 0.01: theta_i = base ** (-2i / d_k)'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               ">>> assert torch.allclose(rope(_x, offset=1)[0, 0, 0], _y[0, 0, 1], atol=1e-06), 'with offset = 1 the first position is position 1: positions are "
                                               "offset ... offset + T - 1'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> _ = torch.manual_seed(0)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _q, _k = (torch.randn(1, 1, 1, 8), torch.randn(1, 1, 1, 8))  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _s1 = (rope(_q, offset=5) * rope(_k, offset=2)).sum()  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _s2 = (rope(_q, offset=13) * rope(_k, offset=10)).sum()  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert torch.allclose(_s1, _s2, atol=0.0001), 'the score of a query at 5 and a key at 2 must equal that of the same vectors at 13 and 10: RoPE "
                                               "scores depend only on the offset (rotate both members of every pair by the same angle)'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> _c, _s = (math.cos(0.1), math.sin(0.1))  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert torch.allclose(rope(torch.ones(1, 1, 2, 4), 0, 100.0)[0, 0, 1, 2:], torch.tensor([_c - _s, _s + _c]), atol=1e-05), 'with base = 100, pair 1 "
                                               "of d_k = 4 has theta_1 = 100 ** (-2 / 4) = 0.1: use the base argument'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> _x16 = torch.ones(1, 1, 1, 16, dtype=torch.float16)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _y16 = rope(_x16, 1000)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert _y16.dtype == torch.float16, f'a float16 input must give a float16 output, got {_y16.dtype}: compute in float32, then .to(x.dtype)'  # "
                                               'doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> assert torch.allclose(_y16.float(), rope(_x16.float(), 1000).half().float(), atol=0.002), "at position 1000 a float16 input must give the float32 '
                                               'result rounded to float16: compute the angles, cosines and sines in float32 whatever x\'s dtype"  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> from seqcourse.testing import define, standin  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> _grads = define('_grads', '\\nfrom seqcourse.testing import grads as _grads\\n')  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               ">>> _side_effects = define('_side_effects', '\\nfrom seqcourse.testing import side_effects as _side_effects\\n')  # doctest: "
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _x = torch.randn(1, 2, 3, 4)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _found = _side_effects(rope, (_x, 3))  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> assert not _found, f"rope must not change its input: {_found[0]} (build new tensors; the caller\'s queries and keys stay as they were)"  # '
                                               'doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> assert _grads(rope, (_x, 3), [torch.ones(1, 2, 3, 4)]) is not None, "rope\'s output carries no gradient: no .detach(), no torch.no_grad()"  # '
                                               'doctest: +REPORT_ONLY_FIRST_FAILURE\n',
                                       'hidden': False,
                                       'locked': False},
                                   {   'code': '>>> from seqcourse.testing import define, standin  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> _on_device = define('_on_device', '\\nfrom seqcourse.testing import on_device as _on_device\\n')  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> _problem, _got = _on_device(rope, (torch.ones(1, 1, 1, 2), 1))  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> assert _problem is None, f"with x on a GPU, rope fails or answers on the CPU ({_problem}): make the positions and angles on x\'s device"  # '
                                               'doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert torch.allclose(_got, torch.tensor([[[[math.cos(1.0) - math.sin(1.0), math.sin(1.0) + math.cos(1.0)]]]]), atol=1e-05), 'on a GPU, rope gives "
                                               "wrong values (position 1, pair 0 turns by 1 radian: (x0 cos - x1 sin, x0 sin + x1 cos))'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n",
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
