"""What a student reads when a check fails (seqcourse/checking.py, grader/checks.py's report): one short message per
question, the first failure's hint, "not answered yet" once for a question still holding its TODO.

The student side runs in this process: a notebook's graded cells (the master's, or the student release's) execute
as in a kernel, and a question's public test file from notebooks/NN/tests runs through seqcourse.checking's Checks,
exactly what ``grader.check`` runs. Every project mutant of every notebook is checked this way (about two minutes
on 2 cores); one test runs ``grader.check`` in a real Jupyter kernel on the released notebook 01.
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import linecache
import shutil

import nbformat
import pytest
import torch
from nbclient import NotebookClient
from otter.nbmeta_config import NBMetadataConfig
from otter.test_files import create_test_file

from conftest import ROOT
from course import graded_cells, master_path, unit_names
from grader import checks
from seqcourse.checking import FIRST_FIRST, NOT_ANSWERED, Checks, todo_in_cells, todo_in_namespace

NOTEBOOKS = unit_names()
LINES_PER_QUESTION = 12  # the most grader.check may print for a failing question (measured: at most 3)
TRANSCRIPT = ("Trying:", "Expecting", "^^^", "Traceback", "doctest")


def run_cells(ns: dict, sources: list[str]) -> None:
    """Execute notebook cells in ``ns`` as a kernel would (each under an IPython cell name, so that its source is found)."""
    for source in sources:
        name = f"<ipython-input-{len(linecache.cache)}-test>"
        linecache.cache[name] = (len(source), None, source.splitlines(True), name)
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            exec(compile(source, name, "exec"), ns)


def check(nb: str, question: str, ns: dict) -> Checks:
    """What ``grader.check(question)`` runs and returns in a student's kernel whose namespace is ``ns``."""
    test = Checks.of(create_test_file(str(ROOT / "notebooks" / nb / "tests" / f"{question}.py"), NBMetadataConfig()))
    test.run(ns)
    return test


def mutants(nb: str):
    spec = importlib.util.spec_from_file_location(f"mutants_{nb}", ROOT / "units" / nb / "mutants.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.MUTANTS


def mutated(source: str, mutant) -> str:
    olds, news = (mutant.old, mutant.new) if isinstance(mutant.old, tuple) else ((mutant.old,), (mutant.new,))
    for old, new in zip(olds, news):
        source = source.replace(old, new)
    return source


@pytest.mark.parametrize("nb", NOTEBOOKS)
def test_grader_check_names_one_bug_in_a_few_lines_for_every_mutant(nb, monkeypatch):
    """Per mutant of the notebook: what grader.check prints for its question stays within LINES_PER_QUESTION lines,
    holds no doctest transcript, shows the first failing check's message and no hint of a later check (those name
    other bugs: they only say they failed too), and shows the mutant's hint whenever a public check carries it (all
    but a few per cent: where an earlier check finds a true symptom of the same bug first, the list below)."""
    monkeypatch.chdir(ROOT / "units" / nb)
    monkeypatch.setenv("MPLBACKEND", "Agg")
    cells = graded_cells(master_path(nb))
    base = {"__name__": "__main__"}
    run_cells(base, [source for _, _, source in cells])
    revealed, lost = 0, []
    for mutant in mutants(nb):
        (at,) = [i for i, (q, solution, _) in enumerate(cells) if q == mutant.question and solution]
        ns = dict(base)
        torch.set_grad_enabled(True)  # a mutant may leave a global setting changed (02's gradients switched off)
        torch.set_default_dtype(torch.float32)
        try:
            run_cells(ns, [mutated(cells[at][2], mutant)] + [s for i, (q, _, s) in enumerate(cells) if i > at and q == mutant.question])
        except Exception:  # noqa: BLE001 - a mutant that does not even run (the grader reports the cell's error)
            continue
        test = check(nb, mutant.question, ns)
        if test.passed_all:
            continue  # revealed by hidden checks only (tests/test_mutants.py)
        out = test.summary()
        failed = [r.message for r in test.test_case_results if not r.passed]
        assert len(out.splitlines()) <= LINES_PER_QUESTION and not any(t in out for t in TRANSCRIPT), f"{mutant.name}:\n{out}"
        assert out.startswith(f"{mutant.question}: public check "), f"{mutant.name}:\n{out}"
        assert failed[0].splitlines()[0] in out
        for later in failed[1:]:
            assert later.splitlines()[0] not in out or later.splitlines()[0] in failed[0], f"{mutant.name}: a later hint shows:\n{out}"
        if len(failed) > 1:
            assert out.splitlines()[-1].endswith(f"also failed; {FIRST_FIRST}")
        if mutant.message and any(mutant.message in m for m in failed):
            revealed += 1
            if mutant.message not in out:
                lost.append(f"{mutant.question}: {mutant.name} (shows: {failed[0].splitlines()[0][:100]})")
    torch.set_grad_enabled(True)
    torch.set_default_dtype(torch.float32)
    assert len(lost) <= 0.15 * revealed, f"{len(lost)} of {revealed} hints lost:\n" + "\n".join(lost)


@pytest.mark.parametrize("nb", NOTEBOOKS)
def test_an_unanswered_question_says_so_once(nb, monkeypatch):
    """The released notebook as students get it (every TODO left): each question's grader.check prints one line,
    "qN_...: not answered yet — fill in the TODO (where)"; the grader finds the same TODOs in the submitted cells,
    and none in the reference solutions."""
    monkeypatch.chdir(ROOT / "units" / nb)
    monkeypatch.setenv("MPLBACKEND", "Agg")
    release = nbformat.read(ROOT / "notebooks" / nb / f"{nb}.ipynb", as_version=4)
    sources = [c.source for c in release.cells if c.cell_type == "code" and "otter_ignore" not in c.metadata.get("tags", [])
               and "grader" not in c.source]
    ns = {"__name__": "__main__"}
    run_cells(ns, sources)
    solved = [source for _, _, source in graded_cells(master_path(nb))]
    for question in sorted(checks.questions_from_tests({p.name: p.read_text() for p in (ROOT / "notebooks" / nb / "tests").glob("*.py")}),
                           key=lambda q: q.name):
        out = check(nb, question.name, ns).summary()
        assert out.startswith(f"{question.name}: {NOT_ANSWERED} (") and len(out.splitlines()) == 1, out
        public = [c.code for c in question.cases if not c.hidden]
        assert todo_in_cells(sources, public), question.name
        assert todo_in_cells(solved, public) == [], question.name


def test_a_todo_left_in_code_the_answer_calls_is_named():
    """An answered question whose code calls an earlier question's function still holding its TODO says where that
    TODO is (not the crash the None it returns causes), in the kernel and in the grader."""
    cells = ["def masked_softmax(scores, mask):\n    # TODO\n    ...\n",
             "def attention(query, keys, mask):\n    return masked_softmax(keys @ query, mask)\n",
             "class Unrelated:\n    def forward(self):\n        ...\n"]
    codes = [">>> attention(torch.ones(2), torch.ones(3, 2), None)\n"]
    ns = {"__name__": "__main__"}
    run_cells(ns, cells)
    assert todo_in_cells(cells, codes) == todo_in_namespace(ns, codes) == ["masked_softmax"]


def _result(*cases, todo=()):
    """A QuestionResult from (hidden, passed, message[, rule broken]) tuples."""
    q = checks.Question("q3_lstm_cell", 4, [checks.Case(f"c{i}", "", c[0], 1) for i, c in enumerate(cases)])
    return checks.QuestionResult(q, [checks.CaseResult(case, c[1], c[2], rule_broken=len(c) > 3 and c[3])
                                     for case, c in zip(q.cases, cases)], todo=list(todo))


def test_the_graders_report_follows_the_same_rules():
    report = checks.report(_result((False, True, ""), (False, False, "values differ: check the gate order"),
                                   (True, False, "gradients differ: use the parameters themselves"), (True, True, "")))
    assert report.splitlines() == ["public check 1 (1 pt): passed", "public check 2 (1 pt): failed: values differ: check the gate order",
                                   f"hidden check 1 (1 pt): failed: {FIRST_FIRST}", "hidden check 2 (1 pt): passed"]
    unanswered = checks.report(_result((False, False, "the outputs carry no gradient"), (True, False, "TypeError: cannot unpack"),
                                       todo=["LSTMCell.forward"]))
    assert unanswered.count(NOT_ANSWERED) == 1 and "gradient" not in unanswered and "unpack" not in unanswered, unanswered
    rule = checks.report(_result((False, False, "values differ"), (True, False, "LSTMCell uses ['LSTMCell']: no torch.nn.LSTMCell", True)))
    assert "values differ" in rule and "no torch.nn.LSTMCell" in rule


def test_grader_check_in_a_kernel(tmp_path):
    """The released notebook 01 in a real kernel (its graded cells, every TODO left): grader.check on q1 prints the one
    line; with q1's cell then run again without b_hh, a short message with its hint (and the place where the values
    differ); grader.check_all that and one line per unanswered question."""
    folder = tmp_path / "01_rnn_lstm"
    shutil.copytree(ROOT / "notebooks" / "01_rnn_lstm", folder)
    nb = nbformat.read(folder / "01_rnn_lstm.ipynb", as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code" and "otter_ignore" not in c.metadata.get("tags", [])]
    until = next(i for i, c in enumerate(code) if 'grader.check("q1_rnn_cell")' in c.source)
    cell = next(c for c in code if c.source.startswith("class RNNCell"))
    buggy = cell.source.replace("        ...", "        return torch.tanh(x @ self.weight_ih.T + self.bias_ih + h @ self.weight_hh.T)")
    nb.cells = code + [nbformat.v4.new_code_cell(buggy), nbformat.v4.new_code_cell('grader.check("q1_rnn_cell")'),
                       nbformat.v4.new_code_cell("grader.check_all()")]
    NotebookClient(nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(folder)}}).execute()

    def shown(c):
        return "".join(o.get("text", "") + o.get("data", {}).get("text/plain", "") for o in c.outputs)
    unanswered, wrong, every = shown(nb.cells[until]), shown(nb.cells[-2]), shown(nb.cells[-1])
    assert unanswered.strip() == f"q1_rnn_cell: {NOT_ANSWERED} (RNNCell.forward)"
    assert "both biases" in wrong and "largest difference at" in wrong and len(wrong.splitlines()) <= 4, wrong
    assert not any(t in wrong for t in TRANSCRIPT)
    assert every.count(NOT_ANSWERED) == 6 and "q1_rnn_cell: public check 1 failed" in every, every


def test_grader_check_runs_the_graders_variants(monkeypatch):
    """The student's own grader.check runs every call into the notebook's code under the grader's variants too
    (seqcourse/contract.py: varied): a bug no public check was written for shows before submitting, and a correct
    answer passes."""
    nb = "01_rnn_lstm"
    monkeypatch.chdir(ROOT / "units" / nb)
    cells = graded_cells(master_path(nb))
    (mutant,) = [m for m in mutants(nb) if m.name.startswith("initial state made in float32")]
    (at,) = [i for i, (q, solution, _) in enumerate(cells) if q == mutant.question and solution]
    for bug in (False, True):
        ns = {"__name__": "__main__"}
        run_cells(ns, [mutated(s, mutant) if bug and i == at else s for i, (_, _, s) in enumerate(cells[:at + 1])])
        test = check(nb, mutant.question, ns)
        assert test.passed_all is not bug, test.summary()
        if bug:
            assert "given its tensors and modules in float64" in test.summary(), test.summary()
    assert not any(getattr(v, "__course_contract__", False) for v in vars(ns["RNN"]).values())  # put back after
