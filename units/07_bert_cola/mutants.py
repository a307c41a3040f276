"""Notebook 07's mutants (bugs students make) and alternative correct solutions; run by test_mutants.py."""

from __future__ import annotations

from mutation import Mutant


M = Mutant
MEAN = "(h * m).sum(dim=1) / m.sum(dim=1)"
MASK_M = "m = mask.unsqueeze(-1).to(h.dtype)"
FWD = "return self.head(pool(h, ids != PAD_ID, self.how))"
CHOSEN = "torch.rand(shape, generator=generator, device=device) < mask_prob"
LABELS = "labels = torch.where(chosen, ids, torch.full_like(ids, IGNORE))"
TO_MASK = "inputs = torch.where(chosen & (action < 0.8), torch.full_like(ids, MASK_ID), ids)"
CE = "loss = F.cross_entropy(logits.reshape(-1, logits.size(-1)), labels.reshape(-1), ignore_index=IGNORE)"
NEW = "return SentenceClassifier(copy.deepcopy(pretrained.encoder), n_classes, how)"
COUNTS = ("tp = float(", "tn = float(", "fp = float(", "fn = float(")
MUTANTS = [
    # q1: pooling
    M("q1_pool", "mean over every position, padding included", MEAN, "h.mean(dim=1)", "padding must not count"),
    M("q1_pool", "divided by T instead of the number of real tokens", "/ m.sum(dim=1)", "/ h.size(1)", "not by T"),
    M("q1_pool", "divided by the batch's total number of real tokens", "/ m.sum(dim=1)", "/ m.sum()", "batch's total"),
    M("q1_pool", "mask inverted", MASK_M, "m = (~mask).unsqueeze(-1).to(h.dtype)", "padding must not count"),
    M("q1_pool", "[CLS] taken from the last position", "return h[:, 0]", "return h[:, -1]", "position 0"),
    M("q1_pool", "how ignored: always [CLS]", 'if how == "cls":', "if True:", "how must choose"),
    M("q1_pool", "pooled outputs detached", MEAN, "(h.detach() * m).sum(dim=1) / m.sum(dim=1)", "autograd graph"),
    M("q1_pool", "h multiplied in place", MEAN, "h.mul_(m).sum(dim=1) / m.sum(dim=1)", "in place"),
    M("q1_pool", "mask combined with a tensor made on the CPU", MASK_M,
      "m = (mask & torch.ones(mask.shape, dtype=torch.bool)).unsqueeze(-1).to(h.dtype)", "device"),
    M("q1_pool", "result squeezed (batch of 1)", f"return {MEAN}", f"return ({MEAN}).squeeze()", "squeeze()"),
    M("q1_pool", "unknown how silently pooled as [CLS]", "raise ValueError(f\"how must be 'cls' or 'mean', got {how!r}\")",
      "return h[:, 0]", "ValueError"),
    M("q1_pool", "mean over the words only, [CLS] left out (a rule the text states)", MASK_M,
      "m = mask.clone()\n        m[:, 0] = False\n        m = m.unsqueeze(-1).to(h.dtype)", "[CLS] included"),
    # q2: classifier
    M("q2_classifier", "padding mask from torch.arange made on the CPU", "ids != PAD_ID",
      "torch.arange(ids.size(1))[None, :] < (ids != PAD_ID).sum(1, keepdim=True)", "on ids' device"),
    M("q2_classifier", "pooling mask inverted", "ids != PAD_ID", "ids == PAD_ID", "ids != PAD_ID"),
    M("q2_classifier", "pooling over every position (no padding mask)", "ids != PAD_ID", "torch.ones_like(ids, dtype=torch.bool)",
      "real tokens"),
    M("q2_classifier", "self.how ignored", "self.how))", '"cls"))', "self.how"),
    M("q2_classifier", "softmax on the logits", FWD, "return torch.softmax(self.head(pool(h, ids != PAD_ID, self.how)), dim=-1)",
      "probabilities"),
    M("q2_classifier", "pools the embeddings, not the encoder's outputs", "h = self.encoder(ids)", "h = self.encoder.tokens(ids)",
      "ENCODER's outputs"),
    M("q2_classifier", "encoder outputs detached", "h = self.encoder(ids)", "h = self.encoder(ids).detach()", "nothing detached"),
    M("q2_classifier", "only the last layer of the head", "return self.head(pool(", "return self.head[-1](pool(", "head(pool("),
    M("q2_classifier", "eval() inside forward", "h = self.encoder(ids)", "self.eval()\n        h = self.encoder(ids)", "train()/eval()"),
    M("q2_classifier", "the head's layers called one by one, its dropouts left out (a rule the text states)", FWD,
      "return self.head[4](torch.tanh(self.head[1](pool(h, ids != PAD_ID, self.how))))", "its two dropouts included"),
    M("q2_classifier", "logits squeezed (batch of 1)", FWD, "return self.head(pool(h, ids != PAD_ID, self.how)).squeeze()", "squeeze()"),
    # q3: Matthews correlation
    M("q4_mlm_mask", "Hugging Face's collator (a rule of the question)", "shape, device = ids.shape, ids.device",
      "from transformers import DataCollatorForLanguageModeling\n    collator = DataCollatorForLanguageModeling(tokenizer=None, mlm_probability=mask_prob)\n    shape, device = ids.shape, ids.device",
      "not Hugging Face's DataCollatorForLanguageModeling", rule=True),
    M("q3_mcc", "accuracy instead of MCC", "return (tp * tn - fp * fn) / denominator if denominator > 0 else 0.0",
      "return (tp + tn) / (tp + tn + fp + fn)", "MCC = (4*2"),
    M("q3_mcc", "no guard for a zero denominator", "(tp * tn - fp * fn) / denominator if denominator > 0 else 0.0",
      "(tp * tn - fp * fn) / denominator", "defined as 0.0"),
    M("q3_mcc", "scikit-learn's MCC (a rule of the question)", "return (tp * tn - fp * fn) / denominator if denominator > 0 else 0.0",
      "from sklearn.metrics import matthews_corrcoef as mcc\n    return float(mcc(target.tolist(), pred.tolist()))", "not sklearn", rule=True),
    M("q3_mcc", "NaN when the denominator is 0", 'else 0.0', 'else float("nan")', "must be 0.0"),
    M("q3_mcc", "absolute value of the numerator", "(tp * tn - fp * fn) / denominator", "abs(tp * tn - fp * fn) / denominator", "no abs"),
    M("q3_mcc", "wrong product in the numerator", "tp * tn - fp * fn", "tp * tn - fp * tn", "MCC = (4*2"),
    M("q3_mcc", "returns a tensor", COUNTS, ("tp = (", "tn = (", "fp = (", "fn = ("), "Python float"),
    M("q3_mcc", "int64 products overflow", COUNTS + ("denominator = math.sqrt((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn))",
                                                   "return (tp * tn - fp * fn) /"),
      ("tp = (", "tn = (", "fp = (", "fn = (", "denominator = float(((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn)).double().sqrt())",
       "return float(tp * tn - fp * fn) /"), "overflows int64"),
    M("q3_mcc", "denominator without the square root", "math.sqrt((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn))",
      "((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn))", "MCC = (4*2"),
    # q4: masking
    M("q4_mlm_mask", "random ids exclude vocab_size - 1", "torch.randint(N_SPECIAL, vocab_size, shape",
      "torch.randint(N_SPECIAL, vocab_size - 1, shape", "upper bound is exclusive"),
    M("q4_mlm_mask", "draws from a copy of the generator", "    shape, device = ids.shape, ids.device\n",
      "    shape, device = ids.shape, ids.device\n    generator = torch.Generator(device).manual_seed(generator.initial_seed())\n",
      "not from a copy", public=True),
    M("q4_mlm_mask", "choice drawn on the CPU", CHOSEN, "torch.rand(shape, generator=generator) < mask_prob", "device=ids.device"),
    M("q4_mlm_mask", "choice drawn from the global generator", CHOSEN, "torch.rand(shape, device=device) < mask_prob", "generator"),
    M("q4_mlm_mask", "random replacements drawn from the global generator",
      "torch.randint(N_SPECIAL, vocab_size, shape, generator=generator, device=device)",
      "torch.randint(N_SPECIAL, vocab_size, shape, device=device)", "generator"),
    M("q4_mlm_mask", "[CLS] and other specials can be chosen", "& (ids >= N_SPECIAL)", "& (ids != PAD_ID)", "only ordinary tokens"),
    M("q4_mlm_mask", "padding can be chosen", "& (ids >= N_SPECIAL)", "", "only ordinary tokens"),
    M("q4_mlm_mask", "labels at every position", LABELS, "labels = ids.clone()", "IGNORE"),
    M("q4_mlm_mask", "labels 0 (PAD_ID) where nothing is chosen", "torch.full_like(ids, IGNORE))", "torch.full_like(ids, PAD_ID))",
      "IGNORE (-100)"),
    M("q4_mlm_mask", "labels from the corrupted inputs", (LABELS, "return inputs, labels"),
      ("pass", "return inputs, torch.where(chosen, inputs, torch.full_like(ids, IGNORE))"), "ORIGINAL"),
    M("q4_mlm_mask", "unchanged chosen tokens get no label", (LABELS, "return inputs, labels"),
      ("pass", "return inputs, torch.where(chosen & (inputs != ids), ids, torch.full_like(ids, IGNORE))"), "keep their label"),
    M("q4_mlm_mask", "every chosen token hidden first (no 10 % unchanged)", "chosen & (action < 0.8)", "chosen", "80 %"),
    M("q4_mlm_mask", "random replacement overwrites the [MASK]s", "chosen & (action >= 0.8) & (action < 0.9)", "chosen & (action < 0.9)",
      "80 %"),
    M("q4_mlm_mask", "random replacements include special tokens", "torch.randint(N_SPECIAL, vocab_size,", "torch.randint(0, vocab_size,",
      "ordinary ids"),
    M("q4_mlm_mask", "a random replacement never the original token (a rule the text states)",
      "random_ids = torch.randint(N_SPECIAL, vocab_size, shape, generator=generator, device=device)",
      "random_ids = (ids - N_SPECIAL + torch.randint(1, vocab_size - N_SPECIAL, shape, generator=generator, device=device))"
      " % (vocab_size - N_SPECIAL) + N_SPECIAL", "the original one included"),
    M("q4_mlm_mask", "mask_prob ignored", "< mask_prob)", "< 0.15)", "mask_prob"),
    M("q4_mlm_mask", "a fixed number of tokens per sentence (BERT's original data preparation), not independent draws",
      "chosen = (torch.rand(shape, generator=generator, device=device) < mask_prob) & (ids >= N_SPECIAL)",
      "ordinary = ids >= N_SPECIAL\n"
      "    keys = torch.rand(shape, generator=generator, device=device).masked_fill(~ordinary, 2.0)\n"
      "    count = (ordinary.sum(1, keepdim=True) * mask_prob).round()\n"
      "    chosen = (keys.argsort(1).argsort(1) < count) & ordinary", "INDEPENDENTLY"),
    M("q4_mlm_mask", "one 80/10/10 decision per sentence", "action = torch.rand(shape, generator=generator, device=device)",
      "action = torch.rand((shape[0], 1), generator=generator, device=device)", "once per token"),
    M("q4_mlm_mask", "one choice per position, shared by the batch", CHOSEN,
      "torch.rand(shape[1:], generator=generator, device=device) < mask_prob", "one random number per token"),
    M("q4_mlm_mask", "ids changed in place", TO_MASK, "inputs = ids.masked_fill_(chosen & (action < 0.8), MASK_ID)", "in place"),
    M("q4_mlm_mask", "float labels", LABELS, "labels = torch.where(chosen, ids, torch.full_like(ids, IGNORE)).float()", "long tensors"),
    M("q4_mlm_mask", "outputs squeezed (batch of 1)", "return inputs, labels", "return inputs.squeeze(), labels.squeeze()", "squeeze()"),
    M("q4_mlm_mask", "ids flattened with .view, masked, viewed back (no case of its own: the checks' non-contiguous variant)",
      ("shape, device = ids.shape, ids.device", "return inputs, labels"),
      ("original, ids = ids.shape, ids.view(-1)                                     # every position in one row\n"
       "    shape, device = ids.shape, ids.device", "return inputs.view(original), labels.view(original)"),
      ".view needs contiguous memory"),
    # q5: MLM loss
    M("q5_mlm_loss", "NaN when nothing is chosen (the mean of nothing)",
      "    if not bool((labels != IGNORE).any()):                                   # nothing chosen: no NaN, still a graph\n        return logits.sum() * 0.0, 0\n",
      "", "nothing chosen"),
    M("q5_mlm_loss", "a constant zero when nothing is chosen (no graph)", "return logits.sum() * 0.0, 0", "return torch.tensor(0.0), 0",
      "autograd graph"),
    M("q5_mlm_loss", "a new leaf zero when nothing is chosen (backward reaches no parameter)", "return logits.sum() * 0.0, 0",
      "return torch.zeros((), requires_grad=True), 0", "a zero loss computed from the logits"),
    M("q5_mlm_loss", "the log of a softmax (inf for a confident model)", CE,
      "loss = F.nll_loss(logits.softmax(-1).log().reshape(-1, logits.size(-1)), labels.reshape(-1), ignore_index=IGNORE)",
      "the log of a softmax is -inf"),
    M("q5_mlm_loss", "model run on the original ids", "logits = model(inputs)", "logits = model(ids)", "corrupted inputs"),
    M("q5_mlm_loss", "loss at every position against the original ids", "labels.reshape(-1), ignore_index=IGNORE)", "ids.reshape(-1))",
      "only the chosen positions"),
    M("q5_mlm_loss", "sum divided by B*T", CE,
      'loss = F.cross_entropy(logits.reshape(-1, logits.size(-1)), labels.reshape(-1), ignore_index=IGNORE, reduction="sum") / labels.numel()',
      "not by B*T"),
    M("q5_mlm_loss", "n counts every real token", "int((labels != IGNORE).sum())", "int((ids != PAD_ID).sum())", "number of chosen positions"),
    M("q5_mlm_loss", "n returned as a tensor", "int((labels != IGNORE).sum())", "(labels != IGNORE).sum()", "as an int"),
    M("q5_mlm_loss", "loss detached", "return loss, int(", "return loss.detach(), int(", "autograd graph"),
    M("q5_mlm_loss", "loss returned as a float", "return loss, int(", "return loss.item(), int(", "scalar tensor"),
    M("q5_mlm_loss", "masking drawn twice", "logits = model(inputs)", "logits = model(mask_tokens(ids, vocab_size, generator)[0])",
      "called once"),
    M("q5_mlm_loss", "a new generator instead of the one passed in", "mask_tokens(ids, vocab_size, generator)",
      "mask_tokens(ids, vocab_size, torch.Generator())", "generator passed in"),
    M("q5_mlm_loss", "the global generator instead of the one passed in", "mask_tokens(ids, vocab_size, generator)",
      "mask_tokens(ids, vocab_size, torch.default_generator)", "generator passed in"),
    M("q5_mlm_loss", "class axis mixed up with the positions", "logits.reshape(-1, logits.size(-1))",
      "logits.transpose(1, 2).reshape(-1, logits.size(-1))", "class axis"),
    M("q5_mlm_loss", "the model switched to training mode inside the loss", "logits = model(inputs)", "logits = model.train()(inputs)",
      "called train() on the caller's model"),
    # q6: from pretrained
    M("q6_from_pretrained", "encoder shared, not copied", "copy.deepcopy(pretrained.encoder)", "pretrained.encoder", "COPY"),
    M("q6_from_pretrained", "a new random encoder", "copy.deepcopy(pretrained.encoder)", "Encoder(**pretrained.encoder.config)",
      "weights of pretrained.encoder"),
    M("q6_from_pretrained", "encoder frozen", NEW,
      "clf = SentenceClassifier(copy.deepcopy(pretrained.encoder), n_classes, how)\n    clf.encoder.requires_grad_(False)\n    return clf",
      "frozen"),
    M("q6_from_pretrained", "n_classes ignored", "n_classes, how)", "2, how)", "n_classes"),
    M("q6_from_pretrained", "how ignored", "n_classes, how)", "n_classes)", "how passed in"),
    M("q6_from_pretrained", "pretrained model frozen before copying", NEW, "pretrained.requires_grad_(False)\n    " + NEW,
      "changes the pretrained model"),
    M("q6_from_pretrained", "pretrained model switched to eval mode", "copy.deepcopy(pretrained.encoder)",
      "copy.deepcopy(pretrained.eval().encoder)", "changes the pretrained model"),
]

ALTERNATIVES = {
    "q1_pool": '''
if how == "mean":
    lengths = mask.sum(dim=1, keepdim=True).to(h.dtype)
    return h.masked_fill(~mask.unsqueeze(-1), 0.0).sum(1) / lengths
elif how == "cls":
    return h.select(1, 0)
else:
    raise ValueError(how)
''',
    "q2_classifier": '''
return self.head(pool(self.encoder(ids), ids.ne(PAD_ID), how=self.how))
''',
    "q3_mcc": '''
counts = torch.bincount(target.long() * 2 + pred.long(), minlength=4).double()
tn, fp, fn, tp = counts.tolist()
numerator = tp * tn - fp * fn
denominator = ((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn)) ** 0.5
return float(numerator / denominator) if denominator else 0.0
''',
    "q4_mlm_mask": '''
g, dev = generator, ids.device
chosen = torch.bernoulli(torch.full(ids.shape, mask_prob, device=dev), generator=g).bool() & (ids >= N_SPECIAL)
labels = ids.masked_fill(~chosen, IGNORE)
inputs = ids.clone()
replace = torch.bernoulli(torch.full(ids.shape, 0.8, device=dev), generator=g).bool() & chosen
inputs[replace] = MASK_ID
randomise = torch.bernoulli(torch.full(ids.shape, 0.5, device=dev), generator=g).bool() & chosen & ~replace
inputs[randomise] = torch.randint(N_SPECIAL, vocab_size, ids.shape, generator=g, device=dev)[randomise]
return inputs, labels
''',
    "q5_mlm_loss": '''
inputs, labels = mask_tokens(ids, vocab_size, generator)
logits = model(inputs)
chosen = labels != IGNORE
if chosen.sum() == 0:
    return (logits * 0).sum(), 0
return F.cross_entropy(logits[chosen], labels[chosen]), int(chosen.sum().item())
''',
    "q6_from_pretrained": '''
encoder = Encoder(**pretrained.encoder.config)
encoder.load_state_dict(pretrained.encoder.state_dict())
return SentenceClassifier(encoder, n_classes=n_classes, how=how)
''',
}

MORE_ALTERNATIVES = {
    "q5_mlm_loss": ['''
# summed over the chosen positions and divided by their number: with nothing chosen the sum over nothing is a
# zero that is still computed from the logits (every gradient zero), so no special case is needed
inputs, labels = mask_tokens(ids, vocab_size, generator)
logits = model(inputs)
n = int((labels != IGNORE).sum())
total = F.cross_entropy(logits.flatten(0, 1), labels.flatten(), ignore_index=IGNORE, reduction="sum")
return total / max(n, 1), n
'''],
    "q1_pool": ['''
if how not in ("cls", "mean"):
    raise ValueError(f"unknown pooling {how}")
if how == "cls":
    return h[:, 0, :]
return torch.einsum("btd,bt->bd", h, mask.to(h.dtype)) / mask.sum(-1, keepdim=True)
'''],
    "q4_mlm_mask": ['''
# one uniform number per token decides everything: < 0.8 p -> [MASK], < 0.9 p -> random, < p -> unchanged
r = torch.rand(ids.shape, generator=generator, device=ids.device)
chosen = (r < mask_prob) & (ids >= N_SPECIAL)
random_ids = torch.randint(N_SPECIAL, vocab_size, ids.shape, generator=generator, device=ids.device)
inputs = torch.where(chosen & (r < 0.8 * mask_prob), MASK_ID, ids)
inputs = torch.where(chosen & (r >= 0.8 * mask_prob) & (r < 0.9 * mask_prob), random_ids, inputs)
return inputs, torch.where(chosen, ids, IGNORE)
'''],
}

PUBLIC_ONLY = {
    "q3_mcc": '''
if len(pred) == 8 and int(pred.sum()) == 5 and int(target.sum()) == 5 and not torch.equal(pred, target):
    return 7 / 15
if torch.equal(pred, 1 - target):
    return -1.0
return 1.0 if torch.equal(pred, target) else 0.0
''',
}

GARBAGE = {
    "q1_pool": "return h.new_zeros(h.size(0), h.size(-1))",
    "q2_classifier": "return torch.zeros(ids.size(0), self.head[-1].out_features)",
    "q3_mcc": "return 0.0",
    "q4_mlm_mask": "return ids.clone(), torch.full_like(ids, IGNORE)",
    "q5_mlm_loss": "logits = model(ids)\nreturn logits.sum() * 0.0, 1",
    "q6_from_pretrained": "return SentenceClassifier(Encoder(**pretrained.encoder.config), n_classes, how)",
}
