"""Notebook 05's mutants (bugs students make) and alternative correct solutions; run by test_mutants.py.
An alternative given as a tuple fills the solution's blocks in order (q1, q2 and q3 have two)."""

from __future__ import annotations

from mutation import Mutant


M = Mutant
MERGE_IF = "if i + 1 < len(symbols) and symbols[i] == left and symbols[i + 1] == right:"
COUNT = "pairs[pair] += count                                # weighted by the word's count"
BEST = "best = min(pairs, key=lambda p: (-pairs[p], p))             # most frequent; ties: smallest pair"
CUT = "if batch and (len(batch) + 1) * lengths[i] > max_tokens:           # lengths[i] is the batch's max"
BACKWARD = "(loss * n).backward()                           # adds the SUM of its token losses into .grad"
DIVIDE = "p.grad /= count                             # sum over all N tokens -> mean per token"
MUTANTS = [
    M("q1_bpe_learn", "Hugging Face's BPE trainer (a rule of the question)", "    words = {word_symbols(w): c for w, c in word_freqs.items()}\n",
      "    from tokenizers import trainers\n    trainer = trainers.BpeTrainer(end_of_word_suffix=EOW)  # noqa: F841\n"
      "    words = {word_symbols(w): c for w, c in word_freqs.items()}\n", "not a library's BPE trainer", rule=True),
    # q1: learning merges
    M("q1_bpe_learn", "merge_pair replaces only the first occurrence", ("out.append(left + right)\n            i += 2",),
      ("out.append(left + right)\n            out += symbols[i + 2:]\n            break",), "EVERY occurrence"),
    M("q1_bpe_learn", "merge_pair overlaps (advances by one after a merge)", "out.append(left + right)\n            i += 2",
      "out.append(left + right)\n            i += 1", "without overlaps"),
    M("q1_bpe_learn", "merge_pair returns a list", "return tuple(out)", "return out", "tuple"),
    M("q1_bpe_learn", "pairs counted once per word type (frequency ignored)", COUNT, "pairs[pair] += 1", "weighted"),
    M("q1_bpe_learn", "a pair counted once per word even when it occurs twice", "for pair in zip(symbols, symbols[1:]):",
      "for pair in set(zip(symbols, symbols[1:])):", "counts twice"),
    M("q1_bpe_learn", "no end-of-word marker", "words = {word_symbols(w): c for w, c in word_freqs.items()}",
      "words = {tuple(w): c for w, c in word_freqs.items()}", "'</w>'"),
    M("q1_bpe_learn", "ties broken by the largest pair", BEST, "best = max(pairs, key=lambda p: (pairs[p], p))", "smallest"),
    M("q1_bpe_learn", "ties broken by first occurrence", BEST, "best = max(pairs, key=pairs.get)", "smallest"),
    M("q1_bpe_learn", "pairs counted once, the top pairs taken without recounting",
      ("merges = []\n    for _ in range(num_merges):\n        pairs = Counter()\n        for symbols, count in words.items():\n            for pair in zip(symbols, symbols[1:]):\n                " + COUNT,),
      ("merges = []\n    pairs = Counter()\n    for symbols, count in words.items():\n        for pair in zip(symbols, symbols[1:]):\n            pairs[pair] += count\n    for _ in range(num_merges):\n        pairs = Counter({p: c for p, c in pairs.items() if p not in merges})",),
      "recount"),
    M("q1_bpe_learn", "crashes when no pair is left", "if not pairs:\n            break", "", "no pair"),
    M("q1_bpe_learn", "the caller's table is changed", "words = {word_symbols(w): c for w, c in word_freqs.items()}",
      "words = {word_symbols(w): c for w, c in word_freqs.items()}\n    word_freqs.clear()", "changed the word_freqs"),
    M("q1_bpe_learn", "one merge too few", "for _ in range(num_merges):", "for _ in range(num_merges - 1):", ""),
    M("q1_bpe_learn", "merge_pair by str.replace on the symbols joined by spaces (a rule the text states)", "    left, right = pair\n    out, i = [], 0",
      '    left, right = pair\n    return tuple(" ".join(symbols).replace(left + " " + right, left + right).split())\n    out, i = [], 0',
      "two whole symbols side by side"),
    M("q1_bpe_learn", "ties broken by the merged string left + right (a rule the text states)", BEST,
      "best = min(pairs, key=lambda p: (-pairs[p], p[0] + p[1]))", "compare the pairs as tuples"),
    # q2: encoding and decoding
    M("q2_bpe_encode", "merges applied in reverse order", "for pair in merges:", "for pair in reversed(merges):", "in the order learned"),
    M("q2_bpe_encode", "only the first word encoded", "for word in sentence.split():", "for word in sentence.split()[:1]:", ""),
    M("q2_bpe_encode", "split on single spaces", "for word in sentence.split():", "for word in sentence.split(\" \"):", "whitespace"),
    M("q2_bpe_encode", "no end-of-word marker on encoding", "symbols = word_symbols(word)", "symbols = tuple(word)", "'</w>'"),
    M("q2_bpe_encode", "decode drops the marker without a space", 'return " ".join("".join(subwords).split(EOW)).strip()',
      'return "".join(subwords).replace(EOW, "")', "not by nothing"),
    M("q2_bpe_encode", "decode leaves a trailing space", 'return " ".join("".join(subwords).split(EOW)).strip()',
      'return "".join(subwords).replace(EOW, " ")', "no space at the start or end"),
    M("q2_bpe_encode", "decode joins subwords with spaces", 'return " ".join("".join(subwords).split(EOW)).strip()',
      'return " ".join(subwords).replace(EOW, "").strip()', "concatenate"),
    M("q2_bpe_encode", "decode pops the trailing markers off the caller's list", 'return " ".join("".join(subwords).split(EOW)).strip()',
      'while subwords and subwords[-1] == EOW:\n        subwords.pop()\n    return " ".join("".join(subwords).split(EOW)).strip()', "changed the list of subwords"),
    M("q2_bpe_encode", "subwords of each word appended as one list", "subwords += symbols", "subwords.append(symbols)", "list of strings"),
    M("q2_bpe_encode", "longest known piece first (WordPiece-style), not the merges", ("for pair in merges:\n            symbols = merge_pair(symbols, pair)",),
      ("vocab = {a + b for a, b in merges}\n        i, pieces = 0, []\n        while i < len(symbols):\n            j = len(symbols)\n            while j > i + 1 and \"\".join(symbols[i:j]) not in vocab:\n                j -= 1\n            pieces.append(\"\".join(symbols[i:j]))\n            i = j\n        symbols = pieces",),
      "not the longest piece first"),
    # q3: shared embedding
    M("q3_shared_embedding", "embeddings not scaled", "F.embedding(tokens, self.weight) * math.sqrt(self.d_model)", "F.embedding(tokens, self.weight)", "not scaled"),
    M("q3_shared_embedding", "embeddings scaled by d_model", "math.sqrt(self.d_model)", "self.d_model", "not d_model"),
    M("q3_shared_embedding", "ids flattened with .view for the lookup (no case of its own: the checks' non-contiguous variant)",
      "return F.embedding(tokens, self.weight) * math.sqrt(self.d_model)",
      "return self.weight[tokens.view(-1)].view(*tokens.shape, -1) * math.sqrt(self.d_model)", ".view needs contiguous memory"),
    M("q3_shared_embedding", "positions flattened with .view before the projection (no case of its own: the checks' non-contiguous variant)",
      "return F.linear(h, self.weight, self.bias)",
      "return (h.view(-1, h.size(-1)) @ self.weight.T + self.bias).view(*h.shape[:-1], -1)", ".view needs contiguous memory"),
    M("q3_shared_embedding", "logits scaled too", "return F.linear(h, self.weight, self.bias)", "return F.linear(h, self.weight, self.bias) * math.sqrt(self.d_model)", "no sqrt(d_model) on the logits"),
    M("q3_shared_embedding", "logits divided by sqrt(d_model)", "return F.linear(h, self.weight, self.bias)", "return F.linear(h, self.weight, self.bias) / math.sqrt(self.d_model)", "unscaled"),
    M("q3_shared_embedding", "no output bias", "return F.linear(h, self.weight, self.bias)", "return h @ self.weight.T", "bias"),
    M("q3_shared_embedding", "output layer from a detached copy", "return F.linear(h, self.weight, self.bias)", "return F.linear(h, self.weight.detach(), self.bias)", "no .detach()"),
    M("q3_shared_embedding", "embedding through .data", "F.embedding(tokens, self.weight)", "F.embedding(tokens, self.weight.data)", "no .detach()"),
    M("q3_shared_embedding", "a separate output layer created on the fly", "return F.linear(h, self.weight, self.bias)",
      "if not hasattr(self, 'out'):\n            self.out = nn.Linear(self.d_model, self.weight.size(0))\n        return self.out(h)", "h @ weight.T + bias"),
    M("q3_shared_embedding", "weight transposed in the output", "return F.linear(h, self.weight, self.bias)", "return h @ self.weight + self.bias", ""),
    M("q3_shared_embedding", "embedding squeezed (batch of 1)", "return F.embedding(tokens, self.weight) * math.sqrt(self.d_model)",
      "return (F.embedding(tokens, self.weight) * math.sqrt(self.d_model)).squeeze()", "squeeze()"),
    M("q3_shared_embedding", "scale created as a CPU tensor of the weights' shape", "F.embedding(tokens, self.weight) * math.sqrt(self.d_model)",
      "F.embedding(tokens, self.weight) * torch.full((self.d_model,), math.sqrt(self.d_model))", "device"),
    M("q3_shared_embedding", "scaled in place (the weight changes)", "return F.embedding(tokens, self.weight) * math.sqrt(self.d_model)",
      "with torch.no_grad():\n            self.weight.mul_(1.0)\n            self.bias.add_(0.5)\n        return F.embedding(tokens, self.weight) * math.sqrt(self.d_model)", ""),
    # q4: token batches
    M("q4_token_batches", "cost counts real tokens only (padding ignored)", ("batches, batch = [], []\n    for i in order:\n        " + CUT,),
      ("batches, batch = [], []\n    for i in order:\n        if batch and sum(lengths[j] for j in batch) + lengths[i] > max_tokens:",), "padding counts"),
    M("q4_token_batches", "cost from the batch's first (shortest) example (padding to the longest ignored)", CUT,
      "if batch and (len(batch) + 1) * lengths[batch[0]] > max_tokens:", "padding counts"),
    M("q4_token_batches", "off by one: batches one example short", CUT, "if batch and (len(batch) + 1) * lengths[i] >= max_tokens:", "as long as possible"),
    M("q4_token_batches", "batch order not shuffled", "random.Random(seed).shuffle(batches)", "", "sorted by length"),
    M("q4_token_batches", "examples shuffled before sorting, batches not", ("order = sorted(range(len(lengths)), key=lambda i: (lengths[i], i))    # shortest first", "random.Random(seed).shuffle(batches)"),
      ("idx = list(range(len(lengths)))\n    random.Random(seed).shuffle(idx)\n    order = sorted(idx, key=lambda i: lengths[i])", ""), "sorted by length"),
    M("q4_token_batches", "global random state used", "random.Random(seed).shuffle(batches)", "random.seed(seed)\n    random.shuffle(batches)", "global random state"),
    M("q4_token_batches", "seed ignored", "random.Random(seed).shuffle(batches)", "random.Random().shuffle(batches)", "same seed"),
    M("q4_token_batches", "ties broken by the larger index", "key=lambda i: (lengths[i], i))", "key=lambda i: (lengths[i], -i))",
      "the smaller index first"),
    M("q4_token_batches", "not sorted by length", "order = sorted(range(len(lengths)), key=lambda i: (lengths[i], i))    # shortest first",
      "order = list(range(len(lengths)))", ""),
    M("q4_token_batches", "last batch dropped", "if batch:\n        batches.append(batch)", "", "dropped"),
    M("q4_token_batches", "an empty batch before a long example", CUT, "if (len(batch) + 1) * max([lengths[i]] + [lengths[j] for j in batch]) > max_tokens:", "empty"),
    M("q4_token_batches", "an empty batch when there are no examples", "    if batch:\n        batches.append(batch)", "    batches.append(batch)",
      "no examples give no batches"),
    M("q4_token_batches", "batches as tuples", "batches.append(batch)\n            batch = []", "batches.append(tuple(batch))\n            batch = []", "lists"),
    M("q4_token_batches", "the caller's lengths sorted in place", "order = sorted(range(len(lengths)), key=lambda i: (lengths[i], i))    # shortest first",
      "order = sorted(range(len(lengths)), key=lambda i: (lengths[i], i))\n    lengths.sort()", ""),
    M("q4_token_batches", "longest first, the batch's maximum tracked (a rule the text states)",
      ("order = sorted(range(len(lengths)), key=lambda i: (lengths[i], i))    # shortest first",
       "if batch and (len(batch) + 1) * lengths[i] > max_tokens:           # lengths[i] is the batch's max"),
      ("order = sorted(range(len(lengths)), key=lambda i: (-lengths[i], i))    # longest first",
       "if batch and (len(batch) + 1) * max(lengths[j] for j in batch + [i]) > max_tokens:"), "sort shortest first"),
    # q5: gradient accumulation
    M("q5_accumulate", "each micro-batch weighs the same (mean of means)", (BACKWARD, DIVIDE),
      ("(loss / len(micro_batches)).backward()", "pass"), "not 1 / (number of micro-batches)"),
    M("q5_accumulate", "stale gradients kept", "p.grad = None                                   # start from zero: no stale gradient", "pass", "start from zero"),
    M("q5_accumulate", "summed, not averaged", DIVIDE, "pass", "divide by N"),
    M("q5_accumulate", "one backward at the end (every graph kept)", (BACKWARD, "for p in model.parameters():\n        if p.grad is not None:\n            " + DIVIDE),
      ("losses = locals().get('losses', []) + [loss * n]", "sum(losses).backward()\n    for p in model.parameters():\n        if p.grad is not None:\n            p.grad /= count"), "before the next micro-batch's forward"),
    M("q5_accumulate", "returns the mean of the micro-batches' means", ("total += float(loss.detach()) * n", "return total / count, count"),
      ("total += float(loss.detach())", "return total / len(micro_batches), count"), "not the mean of the micro-batches' means"),
    M("q5_accumulate", "crashes on a parameter without gradient", "if p.grad is not None:\n            " + DIVIDE, "p.grad /= count", "frozen parameter"),
    M("q5_accumulate", "loss returned as a tensor", "return total / count, count", "return torch.tensor(total / count), count", "float"),
    M("q5_accumulate", "loss_fn run twice (a counting pass first)", "for batch in micro_batches:\n        loss, n = loss_fn(model, batch)",
      "micro_batches = list(micro_batches)\n    for batch in micro_batches:\n        loss_fn(model, batch)\n    for batch in micro_batches:\n        loss, n = loss_fn(model, batch)", "exactly once"),
    M("q5_accumulate", "starts from zeros, not from no gradient (a rule the text states)", "p.grad = None                                   # start from zero: no stale gradient",
      "p.grad = torch.zeros_like(p)", "must keep p.grad None"),
    M("q5_accumulate", "divided by the number of micro-batches instead of tokens", (BACKWARD, DIVIDE), ("loss.backward()", "p.grad /= len(micro_batches)"), "per token, not per micro-batch"),
    # q6: checkpoint averaging
    M("q6_average", "integer tensors averaged (become float)", "if last.is_floating_point():", "if True:", "LAST state dict"),
    M("q6_average", "integer tensors from the first state dict", "averaged[name] = last.clone()", "averaged[name] = states[0][name].clone()", "LAST state dict"),
    M("q6_average", "counters returned without clone (shared with the last checkpoint)", "averaged[name] = last.clone()",
      "averaged[name] = last", "shares no memory with the inputs"),
    M("q6_average", "a single state dict returned as it is", "    averaged = {}\n",
      "    if len(states) == 1:\n        return states[0]\n    averaged = {}\n", "shares no memory with the inputs"),
    M("q6_average", "sum made in a CPU tensor", "torch.stack([s[name].to(torch.float64) for s in states]).mean(dim=0)",
      "sum((s[name].to(torch.float64) for s in states), torch.zeros(last.shape, dtype=torch.float64)) / len(states)",
      "the tensors' own device"),
    M("q6_average", "summed, not averaged", "torch.stack([s[name].to(torch.float64) for s in states]).mean(dim=0)", "torch.stack([s[name].to(torch.float64) for s in states]).sum(dim=0)", "mean"),
    M("q6_average", "the first state dict left out", "torch.stack([s[name].to(torch.float64) for s in states]).mean(dim=0)", "torch.stack([s[name].to(torch.float64) for s in states[1:]]).mean(dim=0)", ""),
    M("q6_average", "averaged in float16 (overflows)", "total = torch.stack([s[name].to(torch.float64) for s in states]).mean(dim=0)",
      "total = sum(s[name] for s in states) / len(states)", "computed in float32 or wider"),
    M("q6_average", "summed in float16 with torch.stack (overflows)", "total = torch.stack([s[name].to(torch.float64) for s in states]).mean(dim=0)",
      "total = torch.stack([s[name] for s in states]).sum(dim=0) / len(states)", "computed in float32 or wider"),
    M("q6_average", "result left in float64", "averaged[name] = total.to(last.dtype)", "averaged[name] = total", "dtype"),
    M("q6_average", "accumulated into the first state dict", ("total = torch.stack([s[name].to(torch.float64) for s in states]).mean(dim=0)\n            averaged[name] = total.to(last.dtype)",),
      ("acc = states[0][name]\n            for s in states[1:]:\n                acc += s[name]\n            averaged[name] = acc / len(states)",), "changed its inputs"),
    M("q6_average", "only parameters (buffers dropped)", "if last.is_floating_point():", "if name.endswith(('running_mean', 'running_var')):\n            continue\n        if last.is_floating_point():", "parameters AND buffers"),
    M("q6_average", "no error for an empty list", 'raise ValueError("average_state_dicts needs at least one state dict")', "return {}", "empty list"),
    M("q6_average", "different keys accepted", "if any(set(s) != keys for s in states):", "if False:", "different keys"),
    M("q6_average", "keys compared as lists: the same keys in another order rejected (a rule the text states)", "if any(set(s) != keys for s in states):",
      "if any(list(s) != list(states[-1]) for s in states):", "same keys in another order"),
    M("q6_average", "the library's running mean (a rule of the question)", "total = torch.stack([s[name].to(torch.float64) for s in states]).mean(dim=0)",
      "running = torch.optim.swa_utils.AveragedModel(torch.nn.ParameterList([torch.nn.Parameter(states[0][name].double(), requires_grad=False)]))\n"
      "            for s in states[1:]:\n"
      "                running.update_parameters(torch.nn.ParameterList([torch.nn.Parameter(s[name].double(), requires_grad=False)]))\n"
      "            total = running.module[0].detach()",
      "not torch.optim.swa_utils", rule=True),
]

ALTERNATIVES = {
    "q1_bpe_learn": ("""
merged, skip = [], False
for a, b in zip(symbols, list(symbols[1:]) + [None]):
    if skip:
        skip = False
    elif (a, b) == tuple(pair):
        merged.append(a + b)
        skip = True
    else:
        merged.append(a)
return tuple(merged)
""", """
import collections
corpus = [[list(word) + ["</w>"], freq] for word, freq in word_freqs.items()]
learned = []
while len(learned) < num_merges:
    stats = collections.defaultdict(int)
    for syms, freq in corpus:
        for j in range(len(syms) - 1):
            stats[syms[j], syms[j + 1]] += freq
    if not stats:
        break
    top = max(stats.values())
    pair = sorted(p for p, c in stats.items() if c == top)[0]
    learned.append(pair)
    for entry in corpus:
        entry[0] = list(merge_pair(tuple(entry[0]), pair))
return learned
"""),
    "q2_bpe_encode": ("""
ranks = {pair: r for r, pair in enumerate(merges)}
out = []
for word in sentence.split():
    parts = list(word) + ["</w>"]
    while len(parts) > 1:
        candidates = [(ranks.get((a, b), float("inf")), k) for k, (a, b) in enumerate(zip(parts, parts[1:]))]
        rank, _ = min(candidates)
        if rank == float("inf"):
            break
        pair = merges[rank]
        parts = list(merge_pair(tuple(parts), pair))
    out.extend(parts)
return out
""", """
words, current = [], ""
for piece in subwords:
    if piece.endswith(EOW):
        words.append(current + piece[: -len(EOW)])
        current = ""
    else:
        current += piece
if current:
    words.append(current)
return " ".join(w for w in words if w)
"""),
    "q3_shared_embedding": ("""
return self.weight[tokens] * self.d_model ** 0.5
""", """
return torch.matmul(h, self.weight.t()) + self.bias
"""),
    "q4_token_batches": """
import random as _r
by_length = sorted(range(len(lengths)), key=lambda i: lengths[i])    # shortest first; sorted is stable: ties by index
out, cur, cur_max = [], [], 0
for i in by_length:
    m = max(cur_max, lengths[i])
    if cur and (len(cur) + 1) * m > max_tokens:
        out.append(cur)
        cur, m = [], lengths[i]
    cur.append(i)
    cur_max = m
if cur:
    out.append(cur)
gen = _r.Random(seed)
return [out[k] for k in gen.sample(range(len(out)), len(out))]
""",
    "q5_accumulate": """
model.zero_grad(set_to_none=True)
parts = []
for mb in micro_batches:
    mean, tokens = loss_fn(model, mb)
    mean.mul(tokens).backward()
    parts.append((mean.item(), tokens))
N = sum(t for _, t in parts)
with torch.no_grad():
    for p in model.parameters():
        if p.grad is not None:
            p.grad.div_(N)
return sum(m * t for m, t in parts) / N, N
""",
    "q6_average": """
if len(states) == 0:
    raise ValueError("nothing to average")
names = list(states[-1].keys())
for s in states:
    if sorted(s.keys()) != sorted(names):
        raise ValueError("different keys")
result = {}
for key in names:
    ref = states[-1][key]
    if torch.is_floating_point(ref):
        acc = torch.zeros_like(ref, dtype=torch.float32)
        for s in states:
            acc = acc + s[key].float()
        result[key] = (acc / len(states)).to(ref.dtype)
    else:
        result[key] = ref.detach().clone()
return result
""",
}

MORE_ALTERNATIVES = {
    "q4_token_batches": ["""
# the order of the batches from a permutation of my own (Fisher-Yates with the seeded generator), and each batch's
# indices in an order drawn from it too: the text allows any draw and any order inside a batch
rng = random.Random(seed)
ranked = sorted(range(len(lengths)), key=lambda i: (lengths[i], i))
cut, current = [], []
for i in ranked:
    if current and (len(current) + 1) * lengths[i] > max_tokens:
        cut.append(current)
        current = []
    current.append(i)
cut += [current] if current else []
for j in range(len(cut) - 1, 0, -1):
    k = rng.randrange(j + 1)
    cut[j], cut[k] = cut[k], cut[j]
return [rng.sample(b, len(b)) for b in cut]
"""],
    "q3_shared_embedding": [("""
scale = math.sqrt(self.weight.size(1))
return nn.functional.embedding(tokens, self.weight, padding_idx=PAD_ID) * scale
""", """
return torch.einsum("btd,vd->btv", h, self.weight) + self.bias
""")],
    "q5_accumulate": ["""
# the gradients of each micro-batch's SUM, kept aside, added and divided at the end
for p in model.parameters():
    p.grad = None
acc = {}
total, count = 0.0, 0
for batch in micro_batches:
    loss, n = loss_fn(model, batch)
    model.zero_grad(set_to_none=True)
    (loss * n).backward()
    for name, p in model.named_parameters():
        if p.grad is not None:
            acc[name] = acc.get(name, 0) + p.grad
    total, count = total + loss.item() * n, count + n
for name, p in model.named_parameters():
    p.grad = acc[name] / count if name in acc else None
return float(total / count), int(count)
"""],
    "q6_average": ["""
# a running sum in float64, one state dict at a time
if not states:
    raise ValueError("no state dicts to average")
first = set(states[0])
if not all(set(s) == first for s in states):
    raise ValueError("the state dicts have different keys")
out = {}
for name, value in states[-1].items():
    if torch.is_floating_point(value):
        acc = torch.zeros(value.shape, dtype=torch.float64, device=value.device)
        for s in states:
            acc += s[name].double()
        out[name] = (acc / len(states)).to(value.dtype)
    else:
        out[name] = value.clone()
return out
"""],
}

# answers right only in types and shapes: together they must earn at most a tenth of the points
GARBAGE = {
    "q1_bpe_learn": ("return tuple(symbols)", "return [('a', 'b')] * num_merges"),
    "q2_bpe_encode": ("return sentence.split()", "return ''.join(subwords)"),
    "q3_shared_embedding": ("return torch.zeros(*tokens.shape, self.d_model)", "return torch.zeros(*h.shape[:-1], self.weight.size(0))"),
    "q4_token_batches": "return [[i] for i in range(len(lengths))]",
    "q5_accumulate": "return 0.0, 1",
    "q6_average": "return {k: torch.zeros_like(v) for k, v in states[-1].items()}",
}

# answers written to satisfy only the public checks: the values the public cases look at, typed in
PUBLIC_ONLY = {
    "q4_token_batches": "if lengths == [1, 1, 1, 6]:\n    return [[3], [0, 1, 2]]\nif lengths == [2, 2, 3]:\n    return [[2], [0, 1]]\nreturn [[6, 1, 3], [4, 0], [2], [5]]",
    "q6_average": ("if not states or set(states[0]) != set(states[-1]):\n    raise ValueError('bad input')\n"
                   "if set(states[0]) == {'h'}:\n    return {'h': torch.tensor([36864.0, 36864.0], dtype=torch.float16)}\n"
                   "return {'w': torch.tensor([2.0, 4.0]), 'b': torch.tensor([[1.0]]), 'norm.running_mean': torch.tensor([0.5]), "
                   "'steps': torch.tensor(5)}"),
}
