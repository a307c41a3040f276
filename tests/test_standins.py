"""A mistake in one question costs that question only: later questions' checks run on the course's stand-in for a
definition whose own question failed (grader/checks.py, StandIns), in process. The graded notebooks that show it
(a crash in question 1, a stopped cell in question 3) are in tests/test_timeouts.py's batch."""

from __future__ import annotations

import functools
import json
import random
import types

import pytest
import torch

import course
from conftest import ROOT
from grader import checks, feedback, grade

NB = "01_rnn_lstm"


def _unit(name=NB):
    unit = ROOT / "units" / name
    module = types.ModuleType("unit_checks")
    exec(compile((unit / "checks.py").read_text(), "unit/checks.py", "exec"), module.__dict__)
    return checks.Unit(module, (unit / "standins.py").read_text())


def _questions(name=NB):
    return checks.questions_from_tests({p.name: p.read_text() for p in (ROOT / "notebooks" / name / "tests").glob("*.py")})


def test_each_stand_in_belongs_to_the_first_question_whose_public_checks_use_it():
    """Notebook 01's stand-ins: its checks module's references (RNNCell, LSTMCell, LSTM) and standins.py's RNN, each
    owned by its question (LSTM not by q3, whose checks use torch.nn.LSTM); in every notebook, a stand-in belongs to the
    question that defines its name; standins.py's own (01's RNN, 03's DotScore) compute what the question asks."""
    unit = _unit()
    assert checks.owners(_questions(), unit.replacements) == {"RNNCell": "q1_rnn_cell", "RNN": "q2_rnn",
                                                              "LSTMCell": "q3_lstm_cell", "LSTM": "q4_lstm"}
    for name in course.unit_names():
        released = json.loads((ROOT / "notebooks" / name / f"{name}.ipynb").read_text())
        cells = ["".join(c["source"]) for c in released["cells"] if c["cell_type"] == "code"]
        places = checks.cell_places(cells)
        for definition, owner in checks.owners(_questions(name), _unit(name).replacements).items():
            defined = [places[i] for i, src in enumerate(cells) if f"def {definition}(" in src or f"class {definition}(" in src]
            assert defined and defined[-1] == owner, (name, definition, owner, defined)
    ns = {}
    exec(unit.replacements["RNN"], ns)  # the stand-in RNN is torch.nn.RNN with the notebook's interface
    mine, ref = ns["RNN"](3, 4), torch.nn.RNN(3, 4, batch_first=True)
    mine.load_state_dict({"cell." + n: getattr(ref, n + "_l0").detach() for n in ("weight_ih", "weight_hh", "bias_ih", "bias_hh")})
    x, h0 = torch.randn(2, 5, 3), torch.randn(2, 4)
    (out, h), (want, wh) = mine(x, h0), ref(x, h0[None])
    assert torch.allclose(out, want, atol=1e-6) and torch.allclose(h, wh[0], atol=1e-6)
    ns = {}
    exec(_unit("03_attention").replacements["DotScore"], ns)  # 03's DotScore: q . k, over sqrt(d_k) when scaled
    q, k = torch.randn(2, 4), torch.randn(2, 3, 4)
    assert torch.allclose(ns["DotScore"](scaled=True)(q, k), (k @ q[:, :, None])[:, :, 0] / 2, atol=1e-6)


_master = functools.lru_cache(maxsize=None)(course.master_namespace)

_LONG = torch.tensor([[2, 5, 6, 3, 0], [2, 7, 3, 0, 0], [2, 4, 8, 9, 3]]), torch.tensor([4, 3, 5])
_TGT = torch.tensor([[2, 5, 6, 7, 3], [2, 4, 3, 0, 0], [2, 6, 6, 3, 0]])
_DRAW = torch.Generator().manual_seed(0)
_X, _MEMORY, _STATE = torch.randn(2, 5, 8, generator=_DRAW), torch.randn(2, 3, 8, generator=_DRAW), torch.randn(2, 2, 3, 6, generator=_DRAW)
_LOGITS = torch.randn(3, 10, generator=_DRAW) * 2
_H, _MASK = torch.randn(2, 4, 3), torch.tensor([[True, True, True, False], [True, True, False, False]])
_DEFINED = {"02_seq2seq": ("Encoder", "Decoder", "Seq2Seq", "greedy_decode"), "04_transformer": ("MultiHeadAttention", "FeedForward"),
            "05_subwords": ("merge_pair",), "06_gpt": ("GPT", "filter_logits"), "07_bert_cola": ("pool", "SentenceClassifier")}


def _decoder_model():
    # the master's Seq2Seq with large weights and a push towards <eos>: its sentences end at different steps
    ns = _master("02_seq2seq")
    torch.manual_seed(9)
    model = ns["Seq2Seq"](ns["Encoder"](10, 4, 6), ns["Decoder"](8, 4, 6)).eval()
    with torch.no_grad():
        for p in model.parameters():
            p.mul_(3.0)
        model.decoder.out.bias[3] += 1.0
    return model


# per notebook: its stand-ins from the checks module's references, each as (how to make one from the notebook's names,
# the calls to compare; a call is its arguments, and the attributes to compare after it)
_REFERENCES = {
    "02_seq2seq": [
        (lambda ns: ns["Encoder"](10, 4, 6, num_layers=2, dropout=0.5), [(_LONG, ())]),
        (lambda ns: ns["Decoder"](9, 4, 6, num_layers=2, dropout=0.5), [((torch.tensor([2, 5, 7]), (_STATE[0], _STATE[1])), ())]),
        (lambda ns: ns["Seq2Seq"](ns["Encoder"](10, 4, 6, dropout=0.5), ns["Decoder"](9, 4, 6, dropout=0.5)),
         [((*_LONG, _TGT), ()), ((*_LONG, _TGT, 0.5), ())]),
        (lambda ns: functools.partial(ns["greedy_decode"], _decoder_model()), [((*_LONG, 7), ()), ((*_LONG, 2), ())]),
    ],
    "04_transformer": [
        (lambda ns: ns["MultiHeadAttention"](8, 2), [((_X, _X, _X, torch.ones(5, 5, dtype=torch.bool).tril()), ("weights",)),
                                                     ((_X, _MEMORY, _MEMORY, torch.tensor([True, True, False])[None, None, None]), ("weights",)),
                                                     ((_X, _MEMORY, _MEMORY), ("weights",))]),
        (lambda ns: ns["FeedForward"](8, 16), [((_X,), ())]),
    ],
    "05_subwords": [
        (lambda ns: ns["merge_pair"], [((("l", "o", "w", "l", "o", "l", "o"), ("l", "o")), ()), ((("a", "a", "a", "a", "a"), ("a", "a")), ()),
                                       (((), ("a", "b")), ()), ((("a", "b</w>"), ("a", "b</w>")), ())]),
    ],
    "07_bert_cola": [
        (lambda ns: ns["pool"], [((_H, _MASK), ()), ((_H, _MASK, "mean"), ())]),
        (lambda ns: ns["SentenceClassifier"](ns["Encoder"](12, d_model=8, n_heads=2, n_layers=1, d_ff=16, max_len=6), how="mean", dropout=0.5),
         [((torch.tensor([[1, 5, 7, 0], [1, 9, 0, 0]]),), ())]),
    ],
    "06_gpt": [
        (lambda ns: ns["GPT"](11, d_model=8, n_heads=2, n_layers=2, d_ff=16, max_len=6, dropout=0.5),
         [((torch.tensor([[2, 5, 7, 1], [2, 10, 4, 4]]),), ())]),
        (lambda ns: ns["filter_logits"], [((_LOGITS,), ()), ((_LOGITS, 0.7, 3), ()), ((_LOGITS, 1.0, None, 0.55), ()), ((_LOGITS, 0.5, 4, 0.8), ()),
                                          ((_LOGITS, 1.0, 12), ()), ((torch.tensor([[1.0, 2.0, 2.0, 0.0]]), 1.0, 1, 0.5), ())]),
    ],
}


@pytest.mark.parametrize("name", sorted(_REFERENCES))
def test_each_stand_in_from_a_reference_computes_what_the_masters_answer_computes(name):
    """02's Encoder, Decoder, Seq2Seq and greedy_decode, 04's MultiHeadAttention and FeedForward, 05's merge_pair, 06's
    GPT and filter_logits, 07's pool and SentenceClassifier: made after the same seed as the master's, a stand-in module has its state_dict (names and values:
    it draws what the master draws), and each gives its results (dropout and teacher forcing drawn alike), a module's
    in evaluation and training mode. Each is defined, as StandIns defines it, among the master's names (06's GPT
    builds the notebook's Block)."""
    real, mine = _master(name), dict(_master(name))
    replacements = _unit(name).replacements
    for defined in _DEFINED[name]:
        exec(replacements[defined], mine)
        assert mine[defined] is not real[defined]
    for make, calls in _REFERENCES[name]:
        torch.manual_seed(0)
        theirs = make(real)
        torch.manual_seed(0)
        ours = make(mine)
        what = getattr(ours, "__name__", None) or getattr(ours, "func", type(ours)).__name__
        modes = [None]
        if isinstance(ours, torch.nn.Module):
            assert type(ours).__name__ == type(theirs).__name__ and type(ours) is not type(theirs)
            torch.testing.assert_close(ours.state_dict(), theirs.state_dict(), rtol=0, atol=0, msg=lambda m: f"{name}, {what}'s state_dict: {m}")
            modes = [False, True]
        for training in modes:
            for args, attributes in calls:
                found = []
                for f in (ours, theirs):
                    if training is not None:
                        f.train(training)
                    torch.manual_seed(1)
                    random.seed(1)
                    found.append((f(*args), *(getattr(f, a) for a in attributes)))
                if isinstance(found[0][0], tuple) and all(isinstance(x, str) for x in found[0][0]):  # 05's symbols
                    assert found[0] == found[1], (name, what, args)
                else:
                    torch.testing.assert_close(found[0], found[1], msg=lambda m: f"{name}, {what}, training={training}: {m}")


@pytest.mark.parametrize("name", sorted(_DEFINED))
def test_later_questions_public_checks_pass_on_these_stand_ins(name):
    """With these stand-ins bound in place of the master's answers (as StandIns binds them where their questions
    failed), the public checks of their own questions and of every later one pass: the checks load weights by the
    notebook's names, build the later answers around them (04's DecoderLayer makes its MultiHeadAttention and
    FeedForward by name), and call them."""
    ns, unit, questions = course.master_namespace(name), _unit(name), _questions(name)
    for defined in _DEFINED[name]:
        exec(unit.replacements[defined], ns)
    owner = checks.owners(questions, _DEFINED[name])
    first = min(i for i, q in enumerate(questions) if q.name in owner.values())
    sandbox = types.SimpleNamespace(request=lambda *args, **kwargs: None)   # run_case asks it to seed only
    cases = [c for q in questions[first:] for c in q.cases if not c.hidden]
    failed = [(c.name, r.message) for c in cases if not (r := checks.run_case(sandbox, c, ns)).passed]
    assert cases and not failed, failed


def test_a_stand_in_of_standins_py_is_sent_with_no_other_definition():
    """A stand-in named as the notebook's own in standins.py must not be what another of its definitions uses: sent
    along with that one (``Notebook.standin``), it would replace the student's for every later check. 02's stand-ins
    are its checks module's references for that reason (its _ModelLike runs the notebook's Seq2Seq.forward)."""
    for name in course.unit_names():
        unit = _unit(name)
        own = {n for n in unit.replacements if n in unit.definitions}
        found = [(n, other) for other in unit.definitions for n in own if n != other and n in unit.requires(other)]
        assert not found, (name, found)


class _Namespace:
    """What StandIns asks of a sandbox, on a dict standing for the notebook's globals."""

    def __init__(self, ns):
        self.ns = ns

    def get_global(self, name):
        if name not in self.ns:
            raise checks.RemoteError("KeyError", repr(name))
        return self.ns[name]

    def set_global(self, name, value):
        self.ns[name] = value

    def define(self, name, source):
        assert f"class {name}(" in source
        self.ns[name] = f"the course's {name}"
        return self.ns[name]


def _result(question, public_ok, hidden_ok):
    cases = [checks.Case("p", "", False, 1.0), checks.Case("h", "", True, 1.0)]
    return checks.QuestionResult(checks.Question(question, 2.0, cases),
                                 [checks.CaseResult(cases[0], public_ok), checks.CaseResult(cases[1], hidden_ok)])


def test_stand_ins_replace_what_failed_for_the_checks_that_should_see_it_and_the_students_own_comes_back():
    standins = checks.StandIns(_questions(), _unit())
    sb = _Namespace({"RNNCell": "yours", "RNN": "your RNN"})
    names = dict(sb.ns)
    assert standins.use(sb, names, hidden=True) == names  # nothing failed yet
    standins.record(_result("q1_rnn_cell", public_ok=True, hidden_ok=False))  # e.g. a device bug: public checks pass
    assert standins.use(sb, names, hidden=False) == names and sb.ns["RNNCell"] == "yours"
    assert standins.use(sb, names, hidden=True)["RNNCell"] == sb.ns["RNNCell"] == "the course's RNNCell"
    assert standins.use(sb, names, hidden=False) == names and sb.ns["RNNCell"] == "yours"  # put back
    standins.record(_result("q2_rnn", public_ok=False, hidden_ok=False))
    seen = standins.use(sb, names, hidden=False)
    assert (seen["RNN"], seen["RNNCell"]) == ("the course's RNN", "yours") and standins.using == {"RNN"}
    standins.reset()  # a new process: the stand-ins are bound again there
    sb.ns = {}
    standins.record(_result("q3_lstm_cell", public_ok=False, hidden_ok=False))  # never defined: a NameError
    assert standins.use(sb, {}, hidden=False) == {"RNN": "the course's RNN", "LSTMCell": "the course's LSTMCell"}


def test_feedback_shows_each_stand_in_note_with_the_checks_it_concerns():
    """A note about hidden checks never shows in the public part (it would tell a hidden result before the due date);
    one about public checks shows there even where the question earned everything."""
    questions = [checks.Question("q2_rnn", 2.0, [checks.Case("p", "", False, 1.0), checks.Case("h", "", True, 1.0)])]
    public, hidden = (checks.standin_note("RNNCell", "q1_rnn_cell", h) for h in (False, True))
    for notes, where in [([hidden], "hidden"), ([public, hidden], "both")]:
        graded = grade.Graded("a.ipynb", scores={"q2_rnn": 2.0}, notes={"q2_rnn": notes},
                              cases={"q2_rnn": [{"hidden": h, "points": 1.0, "passed": True, "message": ""} for h in (False, True)]})
        shown = {t["name"]: t["output"] for t in feedback.results(questions, graded, "after_due_date")["tests"]}
        assert (public in shown["q2_rnn (public checks)"]) == (where == "both"), shown
        assert hidden not in shown["q2_rnn (public checks)"] and hidden in shown["q2_rnn (hidden checks)"], shown
