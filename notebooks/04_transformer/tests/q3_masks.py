OK_FORMAT = True

test = {   'name': 'q3_masks',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': '>>> _pm = padding_mask(torch.tensor([[5, 6, 7], [8, 9, PAD_ID]]))  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert isinstance(_pm, torch.Tensor) and _pm.dtype == torch.bool, 'padding_mask must return a bool tensor: did you fill in the TODO?'  # doctest: "
                                               '+REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert tuple(_pm.shape) == (2, 1, 1, 3), f'padding_mask must be (B, 1, 1, S) = (2, 1, 1, 3) to broadcast over heads and queries, got "
                                               "{tuple(_pm.shape)}'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               ">>> assert _pm.flatten().tolist() == [True, True, True, True, True, False], f'padding_mask of [[5, 6, 7], [8, 9, <pad>]] must be True at the 5 real "
                                               "tokens and False at the <pad>, got {_pm.flatten().tolist()}'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> _cm = causal_mask(4)  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert isinstance(_cm, torch.Tensor) and _cm.dtype == torch.bool and (tuple(_cm.shape) == (4, 4)), 'causal_mask(4) must be a (4, 4) bool tensor'  "
                                               '# doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> assert causal_mask(2).tolist() == [[True, False], [True, True]], f'causal_mask(2) must be [[True, False], [True, True]] (row = query t, column = "
                                               "key s, True where s <= t), got {causal_mask(2).tolist()}'  # doctest: +REPORT_ONLY_FIRST_FAILURE\n"
                                               '>>> from seqcourse.testing import define, standin  # doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               ">>> _device_of = define('_device_of', '\\ndef _device_of(make, *args):\\n    return make(*args).device.type   # where a tensor is created\\n')  # "
                                               'doctest: +REPORT_ONLY_FIRST_FAILURE\n'
                                               '>>> assert _device_of(causal_mask, 3, torch.device(\'meta\')) == \'meta\', "causal_mask(size, device) must create the mask on the device it is given '
                                               '(the model passes tgt_in.device; here the \'meta\' device): pass device=device when you create it"  # doctest: +REPORT_ONLY_FIRST_FAILURE\n',
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
