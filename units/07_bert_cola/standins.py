"""Stand-ins and references of notebook 07_bert_cola's hidden checks that run where the submitted notebook runs
(in the sandbox, inside the notebook's namespace: they may call the notebook's own functions by name).
Each top-level definition is sent on its own by ``nb.standin(name)``; nothing here is given to students."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F
from seqcourse.testing import grads as _grads
from seqcourse.testing import side_effects as _side_effects
from seqcourse.testing import device_problem as _device_problem
from seqcourse.testing import on_device as _on_device


def _forward_ref(model, ids):
    h = model.encoder(ids)
    m = (ids != PAD_ID).unsqueeze(-1).to(h.dtype)
    return model.head((h * m).sum(1) / m.sum(1))


def _mask_with(ids, vocab_size, seed, mask_prob=0.15):
    # the check's way to call mask_tokens with a generator seeded with seed
    return mask_tokens(ids, vocab_size, torch.Generator().manual_seed(seed), mask_prob)


def _mask_on_device(ids, vocab_size, seed):
    # mask_tokens with ids on a GPU and a generator there; on the course's fake GPU a CPU generator stands for it
    generator = torch.Generator("cuda" if torch.cuda.is_available() else "cpu").manual_seed(seed)
    return _on_device(lambda x: mask_tokens(x, vocab_size, generator), (ids,))


def _mask_twice(ids, vocab_size, seed):
    # two calls of mask_tokens with one generator; also whether the first call advanced it
    generator = torch.Generator().manual_seed(seed)
    before = generator.get_state()
    first = mask_tokens(ids, vocab_size, generator)
    advanced = not torch.equal(before, generator.get_state())
    return first, mask_tokens(ids, vocab_size, generator), advanced


def _mask_effects(ids, vocab_size, seed):
    from seqcourse.testing import side_effects
    generator = torch.Generator().manual_seed(seed)
    return side_effects(lambda x: mask_tokens(x, vocab_size, generator), (ids,), None, True)


class _Recorder(nn.Module):
    # a stand-in MLM model: logits from an embedding of each input token; remembers what it was given
    def __init__(self, V):
        super().__init__()
        self.out = nn.Embedding(V, V)
        self.seen = None
    def forward(self, ids):
        self.seen = ids.clone()
        return self.out(ids)


def _run_mlm(model, ids, vocab_size, seed):
    # the check's way to call mlm_loss with a generator seeded with seed, and mask_tokens with the same seed
    loss, n = mlm_loss(model, ids, vocab_size, torch.Generator().manual_seed(seed))
    inputs, labels = mask_tokens(ids, vocab_size, torch.Generator().manual_seed(seed))
    return loss, n, inputs, labels


def _loss_of(model, ids, vocab_size, seed):
    return mlm_loss(model, ids, vocab_size, torch.Generator().manual_seed(seed))[0]


def _loss_effects(model, ids, vocab_size, seed):
    from seqcourse.testing import side_effects
    generator = torch.Generator().manual_seed(seed)
    return side_effects(lambda x: mlm_loss(model, x, vocab_size, generator), (ids,), None, True)


def _after_step(pretrained, n_classes, how):
    # one optimiser step on the new classifier; reports what that did to the pretrained model
    before = {k: v.clone() for k, v in pretrained.state_dict().items()}
    clf = classifier_from_pretrained(pretrained, n_classes, how)
    theirs = pretrained.encoder.state_dict()
    same = {k: k in theirs and torch.equal(v, theirs[k]) for k, v in clf.encoder.state_dict().items()}
    opt = torch.optim.SGD(clf.parameters(), lr=1.0)
    ids = torch.tensor([[CLS_ID, 7, 8, 9], [CLS_ID, 10, 11, PAD_ID]])
    clf.train()
    F.cross_entropy(clf(ids), torch.tensor([0, 1])).backward()
    opt.step()
    changed = [k for k, v in pretrained.state_dict().items() if not torch.equal(v, before[k])]
    return {"copied": bool(same) and all(same.values()), "changed": changed, "shared": clf.encoder is pretrained.encoder}
