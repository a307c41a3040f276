"""Hidden checks of notebook 05_subwords: each case is a function of ``nb``, the submitted notebook as the
grader sees it (``grader.checks.Notebook``: its names as data or handles into the sandbox, ``nb.sandbox``,
``nb.standin(name)`` for a definition of ``standins.py`` executed where the notebook runs, and the static
``nb.uses``/``nb.rule``). The master's hidden test cells call them; they run on the trusted side only."""

from __future__ import annotations

import math

import torch
import torch.nn as nn

# what a question's answer may change of what it is given (seqcourse/contract.py): accumulate_gradients leaves its result
# in the model's .grad, as the text asks, and may call model.train() as a training step often does
MAY_CHANGE = {"q5_accumulate": ("accumulate_gradients.model.grad", "accumulate_gradients.model.train()")}


# the course's merge_pair, for the checks of later questions where question 1 failed (grader/checks.py, StandIns)
_REF_MERGE_PAIR = """
def merge_pair(symbols, pair):
    left, right = pair
    out, i = [], 0
    while i < len(symbols):
        if i + 1 < len(symbols) and symbols[i] == left and symbols[i + 1] == right:
            out.append(left + right)
            i += 2
        else:
            out.append(symbols[i])
            i += 1
    return tuple(out)
"""

def _ref_bpe(freqs, n):
    words = {tuple(w) + ("</w>",): c for w, c in freqs.items()}
    out = []
    for _ in range(n):
        pairs = {}
        for s, c in words.items():
            for p in zip(s, s[1:]):
                pairs[p] = pairs.get(p, 0) + c
        if not pairs:
            break
        best = min(pairs, key=lambda p: (-pairs[p], p))
        out.append(best)
        new = {}
        for s, c in words.items():
            r, i = [], 0
            while i < len(s):
                if i + 1 < len(s) and (s[i], s[i + 1]) == best:
                    r.append(s[i] + s[i + 1])
                    i += 2
                else:
                    r.append(s[i])
                    i += 1
            new[tuple(r)] = c
        words = new
    return out


def _check_batches(lengths, max_tokens, batches):
    # the properties every correct answer has, and the number of batches of the greedy cut
    assert isinstance(batches, list) and all(isinstance(b, list) and len(b) > 0 for b in batches), "token_batches must return a list of non-empty lists (no empty batch)"
    flat = [i for b in batches for i in b]
    assert sorted(flat) == list(range(len(lengths))), f"every example must be in exactly one batch ({len(flat)} indices for {len(lengths)} examples, {len(set(flat))} distinct): is the last batch dropped?"
    for b in batches:
        cost = len(b) * max(lengths[i] for i in b)
        assert cost <= max_tokens or len(b) == 1, f"a batch of {len(b)} examples up to {max(lengths[i] for i in b)} tokens long costs {cost} > max_tokens = {max_tokens}: padding counts, the cost is len(batch) * max(length), not the sum of the lengths"
    spans = sorted((min(lengths[i] for i in b), max(lengths[i] for i in b)) for b in batches)
    assert all(hi <= lo2 for (lo, hi), (lo2, hi2) in zip(spans, spans[1:])), "the batches must be consecutive runs of the examples sorted by length (two batches overlap in length: sort first, then cut)"
    order = sorted(range(len(lengths)), key=lambda i: (lengths[i], i))
    count, size = 0, 0
    for i in order:
        if size and (size + 1) * lengths[i] > max_tokens:
            count, size = count + 1, 0
        size += 1
    count += size > 0
    assert len(batches) == count, f"{len(batches)} batches where {count} suffice: make each batch as long as possible (add the next example while (len(batch) + 1) * its length <= max_tokens; is the comparison off by one?)"


def q1_bpe_learn_1(nb):
    nb.rule("learn_bpe", "tokenizers", "BpeTrainer", "sentencepiece", "SentencePieceTrainer", "youtokentome",
            says="the question asks for the merge loop itself, not a library's BPE trainer (Hugging Face's tokenizers comes in section 3)")
    _cases = [((), ("a", "b")), (("a",), ("a", "b")), (("a", "b", "a", "b"), ("a", "b")), (("b", "a", "a", "a", "a"), ("a", "a")),
              (("x", "y", "z"), ("y", "q")), (("e", "s", "t", "</w>"), ("t", "</w>")), (("ab", "c", "ab", "c"), ("ab", "c"))]
    _want = [(), ("a",), ("ab", "ab"), ("b", "aa", "aa"), ("x", "y", "z"), ("e", "s", "t</w>"), ("abc", "abc")]
    for (_s, _p), _w in zip(_cases, _want):
        _got = nb.merge_pair(_s, _p)
        assert _got == _w, f"merge_pair({_s}, {_p}) must be {_w}, got {_got}: replace EVERY occurrence (not only the first), left to right without overlaps, keep the other symbols, and return a tuple"
    _got = nb.merge_pair(("xa", "b", "a", "bc"), ("a", "b"))
    assert _got == ("xa", "b", "a", "bc"), f"merge_pair(('xa', 'b', 'a', 'bc'), ('a', 'b')) must change nothing, got {_got}: a pair is two whole symbols side by side, not the end of 'xa' and the start of 'bc' (str.replace on the symbols joined by spaces matches inside longer symbols)"


def q1_bpe_learn_2(nb):
    _freqs = {"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5}
    _got = nb.learn_bpe(_freqs, 6)
    assert _got[:2] == [("u", "g"), ("n", "</w>")], f"on {{hug: 10, pug: 5, pun: 12, bun: 4, hugs: 5}} the first merges must be (u, g) (20 times) and (n, </w>) (16): weight each pair by the count of its word (not one per word type), and mark the end of every word with '</w>'; got {_got[:2]}"
    assert _got == [("u", "g"), ("n", "</w>"), ("u", "n</w>"), ("h", "ug"), ("p", "un</w>"), ("hug", "</w>")], f"on {{hug: 10, pug: 5, pun: 12, bun: 4, hugs: 5}} the 6 merges must be (u, g), (n, </w>), (u, n</w>), (h, ug), (p, un</w>), (hug, </w>): count the pairs again after every merge; got {_got}"


def q1_bpe_learn_3(nb):
    _got = nb.learn_bpe({"ab": 2, "ba": 2}, 1)
    assert _got == [("a", "</w>")], f"four pairs tie with count 2 in {{ab: 2, ba: 2}}: the smallest pair in Python's ordering, ('a', '</w>'), must win (min over the tied pairs), got {_got}"
    _got = nb.learn_bpe({"ab": 3, "cd": 3, "ef": 3}, 3)
    _want = [("a", "b"), ("ab", "</w>"), ("c", "d")]
    assert _got == _want, f"with ties at every step, {{ab: 3, cd: 3, ef: 3}} must give {_want} (the smallest tied pair each time, after recounting), got {_got}"
    _got = nb.learn_bpe({"ab": 1, "ac": 1}, 2)
    assert _got == [("a", "b"), ("a", "c")], f"in {{ab: 1, ac: 1}}, after (a, b) the pairs (ab, </w>), (a, c), (c, </w>) tie: ('a', 'c') is the smallest (left, right) tuple ('a' < 'ab'), though 'ab</w>' < 'ac' as merged strings: compare the pairs as tuples, not left + right; got {_got}"


def q1_bpe_learn_4(nb):
    try:
        _got = nb.learn_bpe({"aaa": 1}, 10)
    except Exception as _e:
        raise AssertionError(f"learn_bpe({{aaa: 1}}, 10) raised {_e}: when no pair is left (every word one symbol), stop early and return the merges so far")
    assert _got == [("a", "a"), ("a", "</w>"), ("aa", "a</w>")], f"learn_bpe({{aaa: 1}}, 10) must give (a, a), (a, </w>), (aa, a</w>) and stop when the word is one symbol (no pair left, no error): a pair occurring twice in one word counts twice, and merging is left to right without overlap; got {_got}"
    assert nb.learn_bpe({"hello": 4}, 0) == [], "learn_bpe(..., 0) must return no merge"
    _got = nb.learn_bpe({"ab": 1, "c": 7}, 50)
    assert _got == [("c", "</w>"), ("a", "b"), ("ab", "</w>")], f"learn_bpe({{ab: 1, c: 7}}, 50) must give (c, </w>), (a, b), (ab, </w>) and stop when no pair is left, got {_got}"


def q1_bpe_learn_5(nb):
    _unchanged = nb.standin("_unchanged")
    _same, _got = _unchanged({"lower": 3, "newest": 2, "low": 4}, 4)
    assert _same, "learn_bpe changed the word_freqs it was given: work on a copy (a new dict of symbol tuples)"
    from collections import Counter
    import random as _random
    _words = "the cat sat on the mat with the other cats and the hats sat there".split()
    _freqs = dict(Counter(_words))
    _got = nb.learn_bpe(_freqs, 12)
    assert _got == _ref_bpe(_freqs, 12), f"on a small English text the 12 merges differ from BPE's: {_got} (expected {_ref_bpe(_freqs, 12)}); count pairs weighted by word counts, recount after each merge, ties by the smallest pair"
    _many = {"".join(_random.Random(_i).choices("abcde", k=_random.Random(100 + _i).randint(1, 7))): 1 + _i % 5 for _i in range(60)}
    assert nb.learn_bpe(_many, 40) == _ref_bpe(_many, 40), "on 60 random words over 'abcde' the 40 merges differ from BPE's (a word can hold a pair twice: count both; merging is left to right without overlap)"


def q2_bpe_encode_1(nb):
    _merges = [("b", "c"), ("a", "b"), ("a", "bc"), ("abc", "</w>")]
    _got = nb.bpe_encode("abc", _merges)
    assert _got == ["abc</w>"], f"bpe_encode('abc', [(b, c), (a, b), (a, bc), (abc, </w>)]) must be ['abc</w>'] (merges applied in the order learned), got {_got}"
    _got = nb.bpe_encode("abc", [("b", "c"), ("a", "b")])
    assert _got == ["a", "bc", "</w>"], f"bpe_encode('abc', [(b, c), (a, b)]) must be ['a', 'bc', '</w>']: (b, c) was learned first, so it is applied first and (a, b) then finds no pair (apply the merges in their order, not the longest piece first); got {_got}"
    _got = nb.bpe_encode("abab", [("a", "b"), ("ab", "ab"), ("abab", "</w>")])
    assert _got == ["abab</w>"], f"bpe_encode('abab', [(a, b), (ab, ab), (abab, </w>)]) must be ['abab</w>']: each merge replaces every occurrence in the word; got {_got}"


def q2_bpe_encode_2(nb):
    _merges = [("t", "h"), ("th", "e"), ("the", "</w>"), ("a", "t"), ("c", "at"), ("s", "</w>")]
    _got = nb.bpe_encode("the  cats\tthe", _merges)
    assert _got == ["the</w>", "cat", "s</w>", "the</w>"], f"bpe_encode('the  cats\\tthe', ...) must be ['the</w>', 'cat', 's</w>', 'the</w>']: split on any whitespace (sentence.split()), every word ends with '</w>'; got {_got}"
    assert nb.bpe_encode("", _merges) == [] and nb.bpe_encode("   ", _merges) == [], "an empty sentence (or only spaces) must give []"
    _got = nb.bpe_encode("zoë", _merges)
    assert _got == ["z", "o", "ë", "</w>"], f"a word with characters no merge knows stays as characters + '</w>', got {_got}"
    assert nb.bpe_encode("the", []) == ["t", "h", "e", "</w>"], "with no merges every word is its characters + '</w>'"


def q2_bpe_encode_3(nb):
    _cases = [(["the</w>", "cat", "s</w>"], "the cats"), (["a</w>"], "a"), ([], ""), (["x", "y", "</w>", "z</w>"], "xy z"),
              (["Feuer", "wehr", "mann</w>", "klettert</w>", "."], "Feuerwehrmann klettert ."), (["</w>"], "")]
    for _s, _w in _cases:
        _got = nb.bpe_decode(_s)
        assert _got == _w, f"bpe_decode({_s}) must be {_w!r}, got {_got!r}: concatenate, every '</w>' ends a word (replace it by a space, not by nothing), no space at the start or end"


def q2_bpe_encode_4(nb):
    _merges = [("e", "r"), ("er", "</w>"), ("e", "n"), ("en", "</w>"), ("i", "n"), ("s", "t"), ("c", "h"), ("h", "e"), ("d", "e"), ("M", "a")]
    for _s in ("Ein Mann in einem roten Hemd steht vor der Tür", "Zwei Hunde spielen im Schnee .", "Mädchen  mit\tHut", "a b c"):
        _enc = nb.bpe_encode(_s, _merges)
        assert nb.bpe_decode(_enc) == " ".join(_s.split()), f"decoding the encoding of {_s!r} must give the sentence back (words separated by one space), got {nb.bpe_decode(_enc)!r}: lossless"
        assert "".join(_enc).count("</w>") == len(_s.split()), f"the encoding of {_s!r} must hold one '</w>' per word"


def q2_bpe_encode_5(nb):
    _codec_unchanged = nb.standin("_codec_unchanged")
    _merges = [("t", "h"), ("th", "e"), ("the", "</w>"), ("a", "t")]
    _same_merges, _same_subwords, _enc, _dec = _codec_unchanged("the", _merges, ["c", "at", "</w>", "the</w>", "</w>"])
    assert _enc == ["the</w>"] and _dec == "cat the", f"bpe_encode('the', ...) must be ['the</w>'] and bpe_decode(['c', 'at', '</w>', 'the</w>', '</w>']) 'cat the' (a '</w>' alone ends a word too), got {_enc} and {_dec!r} (this check of side effects needs the right values first)"
    assert _same_merges, "bpe_encode changed the merges it was given (pop, remove or sort on the caller's list): read them, the caller uses them for every sentence"
    assert _same_subwords, "bpe_decode changed the list of subwords it was given (pop or an assignment into the caller's list): build a new string from it"


def q3_shared_embedding_1(nb):
    _ = torch.manual_seed(1)
    for _V, _d, _shape in ((7, 9, (1, 1)), (50, 16, (3, 8)), (5, 2, (4, 1))):
        _emb = nb.SharedEmbedding(_V, _d)
        _W, _b = torch.randn(_V, _d), torch.randn(_V)
        _ = _emb.load_state_dict({"weight": _W, "bias": _b})
        _tokens = torch.randint(0, _V, _shape)
        _x = _emb.embed(_tokens)
        assert tuple(_x.shape) == _shape + (_d,), f"embed of ids {_shape} with d_model = {_d} must be {_shape + (_d,)}, got {tuple(_x.shape)} (squeeze() removes a batch or length of 1)"
        assert not torch.allclose(_x, _W[_tokens], atol=1e-4) or _d == 1, "the embeddings are not scaled: multiply them by sqrt(d_model), as the Transformer does"
        assert torch.allclose(_x, _W[_tokens] * math.sqrt(_d), atol=1e-5), f"embed must be weight[tokens] * sqrt(d_model) (d_model = {_d}: sqrt(d_model), not d_model or sqrt(V))"
        _h = torch.randn(_shape + (_d,))
        _l = _emb.project(_h)
        assert tuple(_l.shape) == _shape + (_V,), f"project of {_shape + (_d,)} must be {_shape + (_V,)}, got {tuple(_l.shape)}"
        assert torch.allclose(_l, _h @ _W.T + _b, atol=1e-4), f"project(h) must be h @ weight.T + bias, unscaled (C = {_V}, d_model = {_d}); with the bias"


def q3_shared_embedding_2(nb):
    _grads = nb.standin("_grads")
    _ = torch.manual_seed(2)
    _emb = nb.SharedEmbedding(6, 4)
    _W, _b = torch.randn(6, 4), torch.randn(6)
    _ = _emb.load_state_dict({"weight": _W, "bias": _b})
    _tokens, _g = torch.tensor([[1, 2, 2], [5, 3, 1]]), torch.randn(2, 3, 4)
    _got = _grads(_emb.embed, (_tokens,), [_g], _emb)
    _lW = _W.clone().requires_grad_(True)
    _ = ((_lW[_tokens] * 2.0) * _g).sum().backward()
    assert _got is not None and _got[0].get("weight") is not None, "no gradient reaches weight through embed: use self.weight itself (no .detach(), .data or torch.no_grad())"
    assert torch.allclose(_got[0]["weight"], _lW.grad, atol=1e-5), "the gradient of weight through embed is wrong: every use of a row adds sqrt(d_model) * its upstream gradient (a repeated token twice)"
    _h, _g2 = torch.randn(2, 3, 4), torch.randn(2, 3, 6)
    _got = _grads(_emb.project, (_h,), [_g2], _emb)
    _lW, _lb, _lh = _W.clone().requires_grad_(True), _b.clone().requires_grad_(True), _h.clone().requires_grad_(True)
    _ = ((_lh @ _lW.T + _lb) * _g2).sum().backward()
    assert _got is not None and _got[0].get("weight") is not None and _got[0].get("bias") is not None, "no gradient reaches weight or bias through project: use self.weight and self.bias themselves (no .detach(), .data, a copy or a new nn.Linear)"
    assert torch.allclose(_got[0]["weight"], _lW.grad, atol=1e-4) and torch.allclose(_got[0]["bias"], _lb.grad, atol=1e-4), "the gradients of weight and bias through project differ from those of h @ weight.T + bias"
    assert _got[1][0] is not None and torch.allclose(_got[1][0], _lh.grad, atol=1e-4), "the gradient with respect to h through project is wrong (or missing): h @ weight.T + bias, kept in the autograd graph"


def q3_shared_embedding_3(nb):
    _three = nb.standin("_three")
    _ = torch.manual_seed(3)
    _W, _b = torch.randn(9, 6), torch.randn(9)
    _src, _tgt = torch.tensor([[1, 4, 5, 3]]), torch.tensor([[2, 4, 8]])
    _gs, _gt, _go = torch.randn(1, 4, 6), torch.randn(1, 3, 6), torch.randn(1, 3, 9)
    _got, _n = _three({"weight": _W, "bias": _b}, _src, _tgt, _gs, _gt, _go)
    _lW, _lb = _W.clone().requires_grad_(True), _b.clone().requires_grad_(True)
    _h = _lW[_tgt] * math.sqrt(6)
    _ = ((_lW[_src] * math.sqrt(6) * _gs).sum() + (_h * _gt).sum() + ((_h @ _lW.T + _lb) * _go).sum()).backward()
    assert _n == 9 * 6 + 9, f"the module must hold C * d_model + C = 63 parameters (one matrix, one bias), got {_n}: do not create other layers"
    assert _got.get("weight") is not None and torch.allclose(_got["weight"], _lW.grad, atol=1e-4), "used for source, target and output in one pass, weight must receive the sum of all three gradients: use self.weight itself everywhere (no copy, .data or .detach())"
    assert torch.allclose(_got["bias"], _lb.grad, atol=1e-4), "the bias gradient is wrong"


def q3_shared_embedding_4(nb):
    _device_problem = nb.standin("_device_problem")
    _side_effects = nb.standin("_side_effects")
    _ = torch.manual_seed(4)
    _emb = nb.SharedEmbedding(8, 4)
    _W, _b = torch.randn(8, 4), torch.randn(8)
    _ = _emb.load_state_dict({"weight": _W, "bias": _b})
    _tokens, _h = torch.tensor([[3, 1], [0, 7]]), torch.randn(2, 2, 4)
    assert torch.allclose(_emb.embed(_tokens), _W[_tokens] * 2.0, atol=1e-5) and torch.allclose(_emb.project(_h), _h @ _W.T + _b, atol=1e-4), "embed or project has wrong values (this check of side effects and devices needs the right values first)"
    _found = _side_effects(_emb.embed, (_tokens,), _emb, True) + _side_effects(_emb.project, (_h,), _emb, True)
    assert not _found, f"embed or project has side effects: {'; '.join(_found)} (no in-place change of weight, bias or the inputs; no random numbers)"
    _m1, _m2 = nb.SharedEmbedding(8, 4), nb.SharedEmbedding(8, 4)     # moved to the other device by the check
    _problem = _device_problem(_m1.embed, (_tokens,), _m1) or _device_problem(_m2.project, (_h,), _m2)
    assert _problem is None, f"with the module and its inputs on another device than the CPU, embed or project fails or answers on the CPU ({_problem}): create no tensor without device= (use self.weight, F.embedding, F.linear)"


def q4_token_batches_1(nb):
    import random as _random
    _rng = _random.Random(7)
    _lengths = [_rng.randint(1, 40) for _ in range(500)]
    for _max in (200, 64, 41):
        _check_batches(_lengths, _max, nb.token_batches(_lengths, _max, 3))
    _lengths = [12] * 30 + [3] * 30
    _check_batches(_lengths, 36, nb.token_batches(_lengths, 36, 0))


def q4_token_batches_2(nb):
    _lengths = [3, 50, 4, 70, 2, 5]
    _b = nb.token_batches(_lengths, 20, 1)
    assert isinstance(_b, list) and all(isinstance(_x, list) and _x for _x in _b), f"token_batches must return non-empty batches (no empty batch before an example longer than max_tokens), got {_b}"
    assert sorted(_i for _x in _b for _i in _x) == list(range(6)), f"examples longer than max_tokens must not be dropped: every index exactly once, got {_b}"
    assert sorted(sorted(_x) for _x in _b) == [[0, 2, 4, 5], [1], [3]], f"with lengths {_lengths} and max_tokens = 20 the batches must be {{4, 0, 2, 5}}, {{1}}, {{3}} in any order (an example longer than max_tokens alone, the others packed), got {_b}"
    try:
        _none = nb.token_batches([], 100, 0)
    except Exception as _e:
        _none = f"{type(_e).__name__} raised"
    assert _none == [], f"lengths = [] gave {_none!r}: 'no examples give no batches ([])' (no empty batch, no error)"
    assert sorted(map(sorted, nb.token_batches([7], 3, 0))) == [[0]], "a single example longer than max_tokens must get a batch of its own (and no empty batch before it)"
    _got = sorted(map(sorted, nb.token_batches([5, 5, 5, 5, 5], 15, 0)))
    assert _got == [[0, 1, 2], [3, 4]], f"five examples of equal length, three per batch: the batches must be {{0, 1, 2}} and {{3, 4}} (ties: the smaller index first, sort by (length, index)), got {_got}"
    _got = sorted(map(sorted, nb.token_batches([2, 2, 3], 6, 0)))
    assert _got == [[0, 1], [2]], f"lengths [2, 2, 3] and max_tokens = 6 must give the batches {{0, 1}} and {{2}}, got {_got}: sort shortest first, as the text says (longest first packs {{2, 0}} and {{1}})"


def q4_token_batches_3(nb):
    _rng_check = nb.standin("_rng_check")
    import random as _random
    _rng = _random.Random(11)
    _lengths = [_rng.randint(1, 30) for _ in range(600)]
    _same_state, _b0 = _rng_check(_lengths, 60, 0)
    assert sorted(_i for _x in _b0 for _i in _x) == list(range(600)), "every example must be in exactly one batch (this check of the shuffle needs that first)"
    _mins = [min(_lengths[_i] for _i in _x) for _x in _b0]
    assert _mins != sorted(_mins) and _mins != sorted(_mins, reverse=True), "the batches come out sorted by length: shuffle the ORDER of the batches (random.Random(seed).shuffle(batches)), not only the examples before sorting"
    assert nb.token_batches(_lengths, 60, 0) == _b0, "'the same seed gives the same batches in the same order': draw the order from random.Random(seed), not from an unseeded generator (any draw from it is right: shuffle, sample, a permutation of your own)"
    assert nb.token_batches(_lengths, 60, 1) != _b0, "another seed must give another order of the batches (use the seed argument)"
    assert _same_state, "token_batches changed the global random state (random.shuffle): use a generator of its own, random.Random(seed)"


def q4_token_batches_4(nb):
    _types = nb.standin("_types")
    _outer, _inner, _unchanged = _types([4, 9, 2, 2, 7, 5, 1, 8], 16, 2)
    _b = nb.token_batches([4, 9, 2, 2, 7, 5, 1, 8], 16, 2)
    _ok = sorted(int(_i) for _x in _b for _i in _x) == list(range(8)) and len(_b) == 4 and all(len(_x) * max([4, 9, 2, 2, 7, 5, 1, 8][int(_i)] for _i in _x) <= 16 for _x in _b)
    assert _ok, "with lengths [4, 9, 2, 2, 7, 5, 1, 8] and max_tokens = 16 the answer must be 4 batches of at most 16 tokens holding every index once (this check of types needs the right batches first)"
    assert _outer == ["list"] and _inner == ["int"], f"the batches must be lists of Python ints, got {_outer} of {_inner} (no tensors, NumPy numbers or tuples)"
    assert _unchanged, "token_batches changed the lengths it was given (sort a list of indices instead of sorting lengths in place)"


def q5_accumulate_1(nb):
    _acc_run = nb.standin("_acc_run")
    _ = torch.manual_seed(1)
    _state = nn.Sequential(nn.Embedding(11, 6), nn.Tanh(), nn.Linear(6, 11)).state_dict()
    _mb = [(torch.randint(1, 11, (1, 2)), torch.tensor([[3, 0]])),
           (torch.randint(1, 11, (5, 6)), torch.randint(1, 11, (5, 6))),
           (torch.randint(1, 11, (3, 4)), torch.tensor([[2, 3, 0, 0], [5, 0, 0, 0], [1, 2, 3, 4]]))]
    _loss, _n, _want = nb.here("_acc_ref")(_state, _mb)
    _out, _got, _ = _acc_run(_state, _mb, True)
    assert all(_got[_k] is not None for _k in _want), "some parameters have no gradient after accumulation"
    _fresh = all(torch.allclose(_got[_k] - 3.0, _want[_k], atol=1e-4) for _k in _want)
    assert not _fresh, "gradients left over from an earlier step were added to the new ones: start from no gradient (p.grad = None or model.zero_grad())"
    assert all(torch.allclose(_got[_k], _want[_k], atol=1e-5) for _k in _want), "with three micro-batches of 1, 30 and 7 target tokens (and stale gradients before), the result differs from the gradient of one batch holding them all: start from zero, backward n_i * mean_i for each micro-batch, divide by N = sum of n_i at the end (per token, not per micro-batch, not summed)"


def q5_accumulate_2(nb):
    _acc_run = nb.standin("_acc_run")
    _ = torch.manual_seed(2)
    _state = nn.Sequential(nn.Embedding(11, 6), nn.Tanh(), nn.Linear(6, 11)).state_dict()
    _mb = [(torch.randint(1, 11, (2, 3)), torch.randint(1, 11, (2, 3))) for _ in range(4)]
    _out, _got, _seen = _acc_run(_state, _mb)
    assert len(_seen) == 4, f"loss_fn must run exactly once per micro-batch (4 micro-batches, {len(_seen)} calls): one forward each"
    assert _seen == [0, 1, 2, 3], f"each micro-batch's backward must run before the next micro-batch's forward (backward passes done before each forward: {_seen}, expected [0, 1, 2, 3]): keeping every graph for one backward at the end uses the memory accumulation is meant to save"


def q5_accumulate_3(nb):
    _acc_run = nb.standin("_acc_run")
    _ = torch.manual_seed(3)
    _state = nn.Sequential(nn.Embedding(11, 6), nn.Tanh(), nn.Linear(6, 11)).state_dict()
    _mb = [(torch.randint(1, 11, (1, 5)), torch.tensor([[1, 2, 0, 0, 0]])), (torch.randint(1, 11, (4, 5)), torch.randint(1, 11, (4, 5)))]
    _loss, _n, _want = nb.here("_acc_ref")(_state, _mb)
    _out, _got, _ = _acc_run(_state, _mb)
    assert isinstance(_out[0], float) and not isinstance(_out[0], bool), f"the loss must be returned as a Python float, got {type(_out[0]).__name__}"
    assert abs(_out[0] - _loss) < 1e-5, f"the returned loss must be the mean over all {_n} target tokens, {_loss:.5f}, got {_out[0]:.5f}: weight each micro-batch's mean by its tokens (not the mean of the micro-batches' means)"
    assert type(_out[1]) is int and _out[1] == _n, f"the returned count must be the int N = {_n}, got {_out[1]!r}"


def q5_accumulate_4(nb):
    _acc_run = nb.standin("_acc_run")
    _ = torch.manual_seed(4)
    _state = nn.Sequential(nn.Embedding(11, 6), nn.Tanh(), nn.Linear(6, 11)).state_dict()
    _mb = [(torch.randint(1, 11, (2, 3)), torch.randint(1, 11, (2, 3))), (torch.randint(1, 11, (1, 6)), torch.randint(1, 11, (1, 6)))]
    try:
        _out, _got, _ = _acc_run(_state, _mb, False, True)
    except Exception as _e:
        raise AssertionError(f"with a frozen parameter (requires_grad False, .grad None) your code raised {_e}: parameters that receive no gradient keep p.grad None; skip them when dividing")
    _loss, _n, _want = nb.here("_acc_ref")(_state, _mb)
    assert _got["0.weight"] is None or not bool(_got["0.weight"].any()), "a frozen parameter must not get a gradient"
    assert torch.allclose(_got["2.weight"], _want["2.weight"], atol=1e-5) and torch.allclose(_got["2.bias"], _want["2.bias"], atol=1e-5), "with a frozen embedding the output layer's gradient differs from that of one batch"
    _out1, _got1, _ = _acc_run(_state, _mb[:1])
    _loss1, _n1, _want1 = nb.here("_acc_ref")(_state, _mb[:1])
    assert all(torch.allclose(_got1[_k], _want1[_k], atol=1e-5) for _k in _want1), "with a single micro-batch the gradient must be that of its own mean loss"
    assert _got["0.weight"] is None, "a parameter that received no gradient (here a frozen one) must keep p.grad None, not zeros: start from no gradient (p.grad = None or model.zero_grad()), not torch.zeros_like(p)"


# torch.testing's default tolerances (rtol, atol) per dtype: an average "computed in float32 or wider" is compared with
# the exact mean within those of the less precise of float32 and its own dtype
_TOLERANCE = {torch.float16: (1e-3, 1e-5), torch.bfloat16: (1.6e-2, 1e-5), torch.float32: (1.3e-6, 1e-5)}


def _mean_close(got, tensors):
    # got (a tensor of the average) against the float64 mean of tensors
    if not isinstance(got, torch.Tensor) or tuple(got.shape) != tuple(tensors[0].shape):
        return False
    rtol, atol = _TOLERANCE.get(got.dtype, _TOLERANCE[torch.float32])
    return torch.allclose(got.double(), torch.stack([t.double() for t in tensors]).mean(0), rtol=rtol, atol=atol)


def q6_average_1(nb):
    nb.rule("average_state_dicts", "AveragedModel", "swa_utils", "average_checkpoints", "get_ema_multi_avg_fn", "get_swa_multi_avg_fn",
            says="the question asks for the average itself (stacked or summed tensors), not torch.optim.swa_utils or seqcourse.average_checkpoints")
    _ = torch.manual_seed(0)
    _net = nn.Sequential(nn.Linear(4, 3), nn.BatchNorm1d(3), nn.Linear(3, 2))
    _states = []
    for _k in range(3):
        _ = _net.train()
        _ = _net(torch.randn(8, 4) * (_k + 1))                     # moves the running statistics, counts a batch
        with torch.no_grad():
            for _p in _net.parameters():
                _ = _p.add_(torch.randn_like(_p))
        _states.append({_n: _t.clone() for _n, _t in _net.state_dict().items()})
    _avg = nb.average_state_dicts(_states)
    assert set(_avg) == set(_states[0]), f"the average must keep every key of the state dicts (parameters AND buffers), missing {sorted(set(_states[0]) - set(_avg))}"
    for _n, _t in _states[-1].items():
        assert _avg[_n].dtype == _t.dtype and tuple(_avg[_n].shape) == tuple(_t.shape), f"{_n}: the average must keep dtype {_t.dtype} and shape {tuple(_t.shape)}, got {_avg[_n].dtype} {tuple(_avg[_n].shape)}"
        if _t.is_floating_point():
            assert _mean_close(_avg[_n], [_s[_n] for _s in _states]), f"{_n} must be the element-wise mean of the 3 state dicts (a float buffer such as running_mean too): their sum divided by len(states), over all of them"
    assert int(_avg["1.num_batches_tracked"]) == 3, f"the integer buffer num_batches_tracked must come from the last state dict (3), got {int(_avg['1.num_batches_tracked'])} (not averaged, not the first)"


def q6_average_2(nb):
    _big = [{"w": torch.full((3,), 40000.0, dtype=torch.float16) + _i, "x": torch.tensor([0.1, 0.2], dtype=torch.float64) * _i} for _i in range(3)]
    _avg = nb.average_state_dicts(_big)
    assert _avg["w"].dtype == torch.float16 and _avg["x"].dtype == torch.float64, f"a float16 (float64) tensor must stay float16 (float64), got {_avg['w'].dtype} and {_avg['x'].dtype}"
    assert bool(torch.isfinite(_avg["w"]).all()) and _mean_close(_avg["w"], [_s["w"] for _s in _big]), f"the mean of three float16 tensors near 40,000 must be about 40,000, got {_avg['w'].tolist()}: their sum overflows float16 (max 65,504): 'computed in float32 or wider', then returned in float16"
    assert _mean_close(_avg["x"], [_s["x"] for _s in _big]), "the float64 tensor must be averaged too"
    _one = {"w": torch.randn(2, 3), "n": torch.tensor([4, 5])}
    _avg = nb.average_state_dicts([_one])
    assert torch.allclose(_avg["w"], _one["w"]) and torch.equal(_avg["n"], _one["n"]), "the average of one state dict is that state dict"


def q6_average_3(nb):
    _side_effects = nb.standin("_side_effects")
    _states = [{"w": torch.tensor([1.0, 3.0]) * _i, "c": torch.tensor(_i)} for _i in range(1, 4)]
    _avg = nb.average_state_dicts(_states)
    assert torch.allclose(_avg["w"], torch.tensor([2.0, 6.0])), "the mean of [1, 3], [2, 6], [3, 9] must be [2, 6] (this check of side effects needs the right values first)"
    _found = _side_effects(nb.average_state_dicts, (_states,), None, True)
    assert not _found, f"average_state_dicts changed its inputs: {'; '.join(_found)}. Do not accumulate into the first state dict's tensors (+= on them): build new tensors (torch.stack(...).mean(0), or start from zeros)"


def q6_average_4(nb):
    try:
        _ = nb.average_state_dicts([])
        _err = "nothing"
    except ValueError:
        _err = "ValueError"
    except Exception as _e:
        _err = type(_e).__name__
    assert _err == "ValueError", f"an empty list must raise a ValueError (a clear message: nothing to average), got {_err}"
    try:
        _ = nb.average_state_dicts([{"a": torch.zeros(2)}, {"a": torch.zeros(2), "b": torch.zeros(1)}, {"a": torch.ones(2)}])
        _err = "nothing"
    except ValueError:
        _err = "ValueError"
    except Exception as _e:
        _err = type(_e).__name__
    assert _err == "ValueError", f"state dicts with different keys (here the middle one of three: checkpoints of different models) must raise a ValueError, got {_err}: compare the keys of every state dict"
    try:
        _avg = nb.average_state_dicts([{"w": torch.ones(2), "b": torch.zeros(1)}, {"b": torch.ones(1), "w": torch.zeros(2)}])
    except Exception:
        raise AssertionError("two state dicts with the same keys in another order raised an error: their keys are the same (compare them as sets, not as lists)") from None
    assert torch.allclose(_avg["w"], torch.full((2,), 0.5)) and torch.allclose(_avg["b"], torch.full((1,), 0.5)), "two state dicts with the same keys in another order must be averaged name by name (their keys are the same: not an error, not matched by position)"


def q6_average_5(nb):
    _states = [{"mask": torch.tensor([True, False]) ^ bool(_i % 2), "ids": torch.tensor([_i, 10 * _i], dtype=torch.int32), "w": torch.ones(2) * _i} for _i in range(4)]
    _avg = nb.average_state_dicts(_states)
    assert _avg["ids"].dtype == torch.int32 and _avg["ids"].tolist() == [3, 30], f"an int32 tensor must be copied from the LAST state dict ([3, 30], int32), got {_avg['ids'].tolist()} {_avg['ids'].dtype}: integer tensors are not averaged (their mean is no integer) and not taken from the first"
    assert _avg["mask"].dtype == torch.bool and _avg["mask"].tolist() == [False, True], f"a bool tensor must be copied from the last state dict, got {_avg['mask'].tolist()} {_avg['mask'].dtype}"
    assert torch.allclose(_avg["w"], torch.full((2,), 1.5)), "the float tensor must be the mean over all 4 state dicts (1.5): divide by len(states), include the first and the last"


def q6_average_6(nb):
    _on_device = nb.standin("_on_device")
    _ = torch.manual_seed(6)
    _states = [{"w": torch.randn(3, 2), "b": torch.randn(2).half(), "steps": torch.tensor(_k)} for _k in range(3)]
    _problem, _avg = _on_device(nb.average_state_dicts, (_states,))
    assert _problem is None, f"with state dicts on a GPU (checkpoints of a model trained there), average_state_dicts fails ({_problem}): compute on the tensors' own device (torch.stack of the tensors, or torch.zeros_like(t, dtype=torch.float64)), not in a tensor made with torch.zeros(shape)"
    assert isinstance(_avg, dict) and _mean_close(_avg["w"], [_s["w"] for _s in _states]) and int(_avg["steps"]) == 2, "on a GPU the average differs: the mean of the float tensors, the integer ones from the last state dict"


def q6_average_7(nb):
    _aliases = nb.standin("_average_aliases")
    _ = torch.manual_seed(7)
    _one = {"w": torch.randn(2, 3), "steps": torch.tensor(4), "mask": torch.tensor([True, False])}
    _three = [{"w": torch.randn(2), "steps": torch.tensor(_i)} for _i in range(3)]
    (_avg1, _found), (_avg3, _more) = _aliases([_one]), _aliases(_three)
    assert torch.allclose(_avg1["w"], _one["w"]) and int(_avg1["steps"]) == 4 and _avg1["mask"].tolist() == [True, False], "the average of one state dict must equal it (this check of side effects needs the right values first)"
    assert _mean_close(_avg3["w"], [_s["w"] for _s in _three]) and int(_avg3["steps"]) == 2, "the average of three state dicts must be their mean, the counters from the last (this check of side effects needs the right values first)"
    _found += _more
    assert not _found, f"the average is not a new state dict: {'; '.join(_found)}. 'The result is a new dict of new tensors that shares no memory with the inputs' (clone() what you copy, also for a single state dict), so that changing the average leaves the checkpoints alone"
