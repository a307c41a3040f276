OK_FORMAT = True

test = {   'name': 'q5_accumulate',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': '>>> from seqcourse.testing import define, standin  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> _acc_run = define('_acc_run', '\\nimport torch.nn.functional as F\\nimport torch\\ndef _acc_run(state, micro_batches, stale=False, "
                                               'frozen=False):\\n    # a tiny model (embedding, tanh, output layer) and a masked cross-entropy; calls accumulate_gradients\\n    import torch\\n    '
                                               'import torch.nn.functional as F\\n    model = torch.nn.Sequential(torch.nn.Embedding(11, 6), torch.nn.Tanh(), torch.nn.Linear(6, 11))\\n    '
                                               'model.load_state_dict(state)\\n    if frozen:\\n        model[0].weight.requires_grad_(False)\\n    if stale:\\n        for p in '
                                               'model.parameters():\\n            if p.requires_grad:\\n                p.grad = torch.full_like(p, 3.0)        # left over from an earlier step\\n    '
                                               'backs, seen = [], []\\n    def loss_fn(m, batch):\\n        x, y = batch\\n        seen.append(len(backs))                         # backward passes '
                                               'done before this forward\\n        logits = m(x)\\n        loss = F.cross_entropy(logits.reshape(-1, 11), y.reshape(-1), ignore_index=0)\\n        '
                                               'loss.register_hook(lambda g: backs.append(1))\\n        return loss, int((y != 0).sum())\\n    out = accumulate_gradients(model, loss_fn, '
                                               "micro_batches)\\n    grads = {n: None if p.grad is None else p.grad.clone() for n, p in model.named_parameters()}\\n    return out, grads, seen\\n')  "
                                               '# doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> exec('\\nimport torch.nn.functional as F\\nimport torch.nn as nn\\nimport torch\\ndef _acc_ref(state, micro_batches):\\n    # the same model on "
                                               'one batch holding every micro-batch (padded to one length): mean loss per target token\\n    _m = nn.Sequential(nn.Embedding(11, 6), nn.Tanh(), '
                                               'nn.Linear(6, 11))\\n    _ = _m.load_state_dict(state)\\n    T = max(x.size(1) for x, _ in micro_batches)\\n    xs = torch.cat([F.pad(x, (0, T - '
                                               'x.size(1))) for x, _ in micro_batches])\\n    ys = torch.cat([F.pad(y, (0, T - y.size(1))) for _, y in micro_batches])\\n    loss = '
                                               'F.cross_entropy(_m(xs).reshape(-1, 11), ys.reshape(-1), ignore_index=0)\\n    loss.backward()\\n    return float(loss.detach()), int((ys != 0).sum()), '
                                               "{n: p.grad for n, p in _m.named_parameters()}\\n')  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> _ = torch.manual_seed(0)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _state = nn.Sequential(nn.Embedding(11, 6), nn.Tanh(), nn.Linear(6, 11)).state_dict()  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _mb = [(torch.tensor([[1, 2, 3]]), torch.tensor([[4, 0, 0]])), (torch.tensor([[5, 6, 7, 8], [2, 3, 4, 5]]), torch.tensor([[9, 10, 2, 3], [4, 5, 6, '
                                               '7]]))]  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _out, _got, _seen = _acc_run(_state, _mb, True)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert isinstance(_out, tuple) and len(_out) == 2, 'accumulate_gradients must return (mean loss, number of target tokens): did you fill in the "
                                               "TODO?'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> assert _seen == [0, 1], f"loss_fn must run exactly once per micro-batch, each micro-batch\'s backward before the next one\'s forward (backward '
                                               'passes done before each forward: {_seen}, expected [0, 1])"  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> _loss, _n, _want = _acc_ref(_state, _mb)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> assert all((_got[_k] is not None for _k in _want)), "some parameters received no gradient: call backward on each micro-batch\'s loss"  # doctest: '
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert not torch.allclose(_got['2.weight'] - 3.0, _want['2.weight'], atol=0.0001) and (not torch.allclose(_got['2.weight'] - 3.0 / _n, "
                                               "_want['2.weight'], atol=0.0001)), 'gradients left over from an earlier step were kept: start from zero (p.grad = None or model.zero_grad()) before the "
                                               "first micro-batch'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               ">>> assert torch.allclose(_got['2.weight'], _want['2.weight'], atol=1e-05) and torch.allclose(_got['0.weight'], _want['0.weight'], atol=1e-05), 'with "
                                               'a micro-batch of 1 target token and one of 8, the accumulated gradient differs from that of one batch holding both: weight each micro-batch by its '
                                               "number of tokens (backward of n_i * mean_i, then divide by N = sum of n_i), not 1 / (number of micro-batches)'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               ">>> assert isinstance(_out[1], int) and _out[1] == _n, f'the number of target tokens must be the int N = {_n}, got {_out[1]!r}'  # doctest: "
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert isinstance(_out[0], float) and abs(_out[0] - _loss) < 1e-05, f'the loss must be the float mean over all {_n} target tokens ({_loss:.5f}), "
                                               "got {_out[0]!r}'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
