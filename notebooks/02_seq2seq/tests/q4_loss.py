OK_FORMAT = True

test = {   'name': 'q4_loss',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': '>>> _ = torch.manual_seed(0)\n'
                                               '>>> _model = Seq2Seq(Encoder(10, 4, 6), Decoder(8, 4, 6))\n'
                                               '>>> _batch = ((torch.tensor([[2, 5, 3], [2, 6, 3]]), torch.tensor([3, 3])), (torch.tensor([[2, 5, 6, 7, 3], [2, 4, 3, 0, 0]]), torch.tensor([5, 3])))\n'
                                               '>>> _res = seq2seq_loss(_model, _batch)\n'
                                               ">>> assert isinstance(_res, tuple) and len(_res) == 2, 'return (loss, n_tokens)'\n"
                                               ">>> assert isinstance(_res[0], torch.Tensor) and _res[0].dim() == 0 and _res[0].requires_grad, 'loss must be a 0-dim tensor that carries gradient'\n"
                                               ">>> assert isinstance(_res[1], int), 'n_tokens must be a Python int'\n",
                                       'hidden': False,
                                       'locked': False},
                                   {   'code': '>>> from seqcourse.testing import define\n'
                                               ">>> _Fixed = define('_Fixed', 'if True:  # a stand-in model with given logits, and a helper that runs backward\\n    class "
                                               '_FixedLogits(nn.Module):\\n        # The given logits (B, T-1, V), whatever the input; records teacher_forcing.\\n        def __init__(self, '
                                               'logits):\\n            super().__init__()\\n            self.logits = nn.Parameter(logits.clone())\\n            self.seen_teacher_forcing = '
                                               'None\\n        def forward(self, src, src_len, tgt, teacher_forcing=1.0):\\n            self.seen_teacher_forcing = teacher_forcing\\n            '
                                               'return self.logits\\n    def _loss_grad(model, batch):\\n        model.zero_grad(set_to_none=True)\\n        loss, n = seq2seq_loss(model, '
                                               'batch)\\n        if not (isinstance(loss, torch.Tensor) and loss.requires_grad):\\n            return None\\n        loss.backward()\\n        return '
                                               "model.logits.grad\\n    _Fixed = (_FixedLogits, _loss_grad)')\n"
                                               '>>> _ = torch.manual_seed(0)\n'
                                               '>>> _L = torch.randn(2, 4, 8)\n'
                                               '>>> _tgt = torch.tensor([[2, 5, 6, 7, 3], [2, 4, 3, 0, 0]])\n'
                                               '>>> _loss, _n = seq2seq_loss(_Fixed[0](_L), ((torch.ones(2, 2, dtype=torch.long), torch.tensor([2, 2])), (_tgt, torch.tensor([5, 3]))))\n'
                                               '>>> _logp = torch.log_softmax(_L, -1)\n'
                                               '>>> _want = torch.stack([-_logp[b, t, _tgt[b, t + 1]] for b in range(2) for t in range(4) if _tgt[b, t + 1] != 0]).mean()\n'
                                               ">>> assert _n == 6, f'n_tokens is {_n}, expected 6: count the targets tgt[:, 1:] that are not <pad>'\n"
                                               ">>> assert abs(float(torch.as_tensor(_loss).detach()) - float(_want)) < 1e-05, f'loss {float(torch.as_tensor(_loss).detach()):.5f}, expected "
                                               "{float(_want):.5f}: the mean cross-entropy of the logits against tgt[:, 1:] (not tgt[:, :-1]), skipping <pad> targets (ignore_index=PAD_ID)'\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
