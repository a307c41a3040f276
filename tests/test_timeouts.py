"""Limits of grading (grader/limits.py). Time: a cell that runs too long costs only the questions that need it, the
report names it, and a notebook that never stops is still graded within the budget. Memory: the grader reads the
memory it really has (the container's cgroup, v1 or v2) and stops a notebook below it; a notebook stopped for memory
is reported as the grader's limit, not graded.

Notebook 01's reference solution, built with its real autograder zip, graded in worker processes as `make grade`
and Gradescope do, with small limits (a cell may run 3 s) so that the file takes seconds, not minutes.
"""

from __future__ import annotations

import signal
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import nbformat
import psutil
import pytest

from grader import checks, feedback, grade, limits
from grader.sandbox import Sandbox

NB = "01_rnn_lstm"
CELL_S = 10      # SEQCOURSE_CELL_TIMEOUT in these tests
BUDGET_S = 60    # one grading's budget (cells stop 20 s before its end)
SMALL_BUDGET_S = 45
ALL = {"q1_rnn_cell": 2, "q2_rnn": 2, "q3_lstm_cell": 3, "q4_lstm": 2, "q5_early_grad": 2, "q6_lm": 2, "q7_lm_loss": 2}
SLOW = "for epoch in range(20):  # training, not tagged otter_ignore\n    time.sleep(1)\n"


def _index(nb, text: str) -> int:
    return next(i for i, c in enumerate(nb.cells) if c.cell_type == "code" and text in c.source)


def _slow_cell_before_a_name_q3_needs(nb):
    """After q2's check: a slow untagged cell that, had it finished, would define what the student's q3 uses."""
    nb.cells.insert(_index(nb, 'grader.check("q2_rnn")') + 1, nbformat.v4.new_code_cell(SLOW + "SIGMA = torch.sigmoid"))
    cell = nb.cells[_index(nb, "class LSTMCell")]
    assert "torch.sigmoid(" in cell.source
    cell.source = cell.source.replace("torch.sigmoid(", "SIGMA(")


def _endless_loops_in_answers(nb):
    """q7: an endless loop in lm_loss (runs when a check calls it); q5: one at the top of its cell."""
    cell = nb.cells[_index(nb, "def lm_loss")]
    head, sep, tail = cell.source.partition("def lm_loss(")
    signature, body = tail.split(":\n", 1)
    cell.source = head + sep + signature + ":\n    while True:\n        pass\n" + body
    cell = nb.cells[_index(nb, "def early_gradient_norm")]
    cell.source = "while True:\n    pass\n" + cell.source


def _loop_that_ignores_the_interrupt(nb):
    nb.cells.insert(_index(nb, 'grader.check("q7_lm_loss")') + 1, nbformat.v4.new_code_cell(
        "while True:  # swallows the grader's interrupt\n    try:\n        time.sleep(1)\n    except BaseException:\n        pass"))


def _q1_raises_and_q3_sleeps(nb):
    """q1: RNNCell.forward raises (q2 and q5 call it); q3: its answer cell sleeps first, so LSTMCell is never
    defined (q4 and q6 need it)."""
    cell = nb.cells[_index(nb, "class RNNCell")]
    head, sep, tail = cell.source.partition("    def forward(")
    signature, body = tail.split(":\n", 1)
    cell.source = head + sep + signature + ':\n        raise RuntimeError("not finished")\n' + body
    cell = nb.cells[_index(nb, "class LSTMCell")]
    cell.source = "import time\ntime.sleep(200)\n" + cell.source


def _many_slow_cells(nb):
    at = _index(nb, 'grader.check("q1_rnn_cell")') + 1
    for k in range(8):
        nb.cells.insert(at, nbformat.v4.new_code_cell(f"while True:  # slow cell {k}\n    pass"))


SUBMISSIONS = {"slow-cell": (_slow_cell_before_a_name_q3_needs, BUDGET_S),
               "endless-loops": (_endless_loops_in_answers, BUDGET_S),
               "ignores-interrupt": (_loop_that_ignores_the_interrupt, BUDGET_S),
               "many-slow-cells": (_many_slow_cells, SMALL_BUDGET_S),
               "q1-raises-q3-sleeps": (_q1_raises_and_q3_sleeps, BUDGET_S)}


@pytest.fixture(scope="module")
def graded(course_build, tmp_path_factory):
    built = course_build[NB]
    folder = tmp_path_factory.mktemp("slow")
    paths = {}
    for name, (edit, _) in SUBMISSIONS.items():
        nb = nbformat.read(built.solution_nb, as_version=4)
        edit(nb)
        paths[name] = folder / f"{name}.ipynb"
        nbformat.write(nb, paths[name])

    def one(name):
        return name, grade.grade_one(paths[name], built.autograder_zip, timeout=SUBMISSIONS[name][1], memory_mb=2048)

    with pytest.MonkeyPatch.context() as mp, ThreadPoolExecutor(2) as pool:
        mp.setenv("SEQCOURSE_CELL_TIMEOUT", str(CELL_S))  # read by the worker processes
        return dict(pool.map(one, SUBMISSIONS))


def _full(g, *questions):
    return all(g.scores[q] == ALL[q] for q in questions)


def _messages(g, question):
    return "\n".join(c["message"] for c in g.cases[question])


def _within_budget(g, budget):
    """The sandbox's budget was never reached (its watchdog kills the notebook there); the worker process around it
    (starting Python, importing torch) adds a few seconds."""
    assert "the time one grading may take" not in g.error and g.seconds < budget + 30, g


def _standin_notes(g, question):
    return [n for n in g.notes.get(question, []) if n.startswith(tuple(feedback.PART_NOTE.values()))]


def test_a_slow_cell_costs_only_the_question_that_needs_it_and_is_named(graded):
    g = graded["slow-cell"]
    assert g.scores["q3_lstm_cell"] == 0 and _full(g, *(q for q in ALL if q != "q3_lstm_cell")), g
    note = ('cell "for epoch in range(20):  # training, not tagged otter_ignore" (in q3_lstm_cell, before its check): '
            f"stopped after {CELL_S} s, the longest a cell may run; tag training and other slow cells otter_ignore")
    assert note in g.error, g.error
    # told in the question that lost points with it before its check, never in one with full marks; the later
    # questions that use LSTMCell were checked on the course's (grader/checks.py StandIns) and say so
    assert g.notes["q3_lstm_cell"][0] == note and all(note not in g.notes.get(q, []) for q in ALL if q != "q3_lstm_cell"), g
    assert _standin_notes(g, "q4_lstm") and _standin_notes(g, "q6_lm"), g.notes
    _within_budget(g, BUDGET_S)


def test_a_crash_in_the_first_question_and_a_stopped_cell_in_a_middle_one_cost_only_those(graded, course_build):
    """Public and hidden checks alike: q2 and q5 call the course's RNNCell, q4 and q6 its LSTMCell, and the feedback
    says so in each part that did; the failing question names the later ones."""
    g = graded["q1-raises-q3-sleeps"]
    assert g.scores["q1_rnn_cell"] == 0 and g.scores["q3_lstm_cell"] == 0, g
    assert _full(g, "q2_rnn", "q4_lstm", "q5_early_grad", "q6_lm", "q7_lm_loss"), g
    assert f'cell "import time" (in q3_lstm_cell, before its check): stopped after {CELL_S} s' in g.error, g.error
    shown = {t["name"]: t["output"] for t in feedback.results(checks.questions(course_build[NB].autograder_zip), g,
                                                               "after_due_date")["tests"]}
    for question, name, owner in [("q2_rnn", "RNNCell", "q1_rnn_cell"), ("q4_lstm", "LSTMCell", "q3_lstm_cell"),
                                  ("q6_lm", "LSTMCell", "q3_lstm_cell")]:
        for kind in ("public", "hidden"):
            assert (f"Note: these {kind} checks ran with the course's {name} in place of yours, as {owner} failed "
                    in shown[f"{question} ({kind} checks)"]), shown
    assert "later questions were checked with the course's LSTMCell in place of yours" in shown["q3_lstm_cell (public checks)"]
    assert "q4_lstm, q6_lm" in shown["q3_lstm_cell (public checks)"], shown
    assert not _standin_notes(g, "q7_lm_loss") and not _standin_notes(g, "q3_lstm_cell"), g.notes
    _within_budget(g, BUDGET_S)


def test_an_endless_loop_in_an_answer_costs_that_question(graded):
    g = graded["endless-loops"]
    assert _full(g, "q1_rnn_cell", "q2_rnn", "q3_lstm_cell", "q4_lstm", "q6_lm"), g
    assert g.scores["q5_early_grad"] == 0 and g.scores["q7_lm_loss"] == 0, g
    # in lm_loss: the first check that calls it is interrupted, the question's other checks are not run
    q7 = _messages(g, "q7_lm_loss")
    assert f"your code was stopped after {CELL_S} s, the longest one call may run (an endless loop?) (in lm_loss" in q7, q7
    assert "not run: an earlier check of this question was stopped" in q7
    # at the top of its cell: the cell is stopped, its function never defined
    assert g.notes["q5_early_grad"] == ['cell "while True:" (in q5_early_grad, before its check): stopped after '
                                        f"{CELL_S} s, the longest a cell may run; tag training and other slow cells "
                                        "otter_ignore"], g.notes
    _within_budget(g, BUDGET_S)


def test_a_cell_that_ignores_the_interrupt_is_killed_and_the_notebook_graded_without_it(graded):
    g = graded["ignores-interrupt"]
    assert g.total == sum(ALL.values()), g
    assert ('cell "while True:  # swallows the grader\'s interrupt" (after the last question\'s check): stopped after '
            f"{CELL_S} s (killed: it did not stop when interrupted); the notebook was run again without it") in g.error, g.error
    _within_budget(g, BUDGET_S)


def test_a_notebook_that_never_ends_is_graded_within_its_budget(graded):
    g = graded["many-slow-cells"]
    assert _full(g, "q1_rnn_cell"), g
    assert "not run: the time for running cells was used up" in g.error, g.error
    _within_budget(g, SMALL_BUDGET_S)


def test_cells_belong_to_the_question_whose_check_follows_them():
    cells = ["import torch", "class A: ...", 'grader.check("q1")', "x = 1", "grader.check('q2')", "train()"]
    assert checks.cell_places(cells) == ["q1", "q1", "q1", "q2", "q2", None]
    notes = checks.stopped_notes(cells, {1: "stopped after 3 s", 5: "not run: the time for running cells was used up"})
    assert notes == {1: 'cell "class A: ..." (in q1, before its check): stopped after 3 s; tag training and other slow '
                        "cells otter_ignore",
                     5: 'cell "train()" (after the last question\'s check): not run: the time for running cells was used up'}


def test_the_gradescope_budget_fits_inside_gradescopes_own_limit():
    """Gradescope stops an autograder after 10 minutes by default and then shows nothing; ours ends 2 minutes
    before, and its cells' share holds at least three cells stopped at the per-cell limit."""
    assert limits.GRADESCOPE_TIMEOUT_S + 120 <= 600
    cells_share = limits.GRADESCOPE_TIMEOUT_S - min(limits.CHECKS_RESERVE_S, limits.GRADESCOPE_TIMEOUT_S / 3)
    assert 3 * (limits.CELL_TIMEOUT_S + limits.KILL_GRACE_S) <= cells_share


# -- memory ---------------------------------------------------------------------------------------------------
def _cgroup_v2(root: Path, limit: str = "max", parent_limit: str = "max", oom_kill: int = 0) -> Path:
    """A cgroup v2 tree as /sys/fs/cgroup shows it: this process in /grading/job, limits on both levels."""
    (root / "grading" / "job").mkdir(parents=True)
    (root / "cgroup.controllers").write_text("cpu memory pids\n")
    (root / "grading" / "memory.max").write_text(parent_limit + "\n")
    (root / "grading" / "job" / "memory.max").write_text(limit + "\n")
    for folder in (root / "grading", root / "grading" / "job"):
        (folder / "memory.events").write_text(f"low 0\nhigh 0\nmax 3\noom 1\noom_kill {oom_kill}\noom_group_kill 0\n")
    own = root / "self-cgroup"
    own.write_text("0::/grading/job\n")
    return own


def test_the_memory_limit_is_read_from_a_cgroup_v2_tree_the_lowest_along_its_parents(tmp_path):
    own = _cgroup_v2(tmp_path, limit="max", parent_limit=str(768 * 2**20), oom_kill=2)
    assert limits.memory_cgroup(tmp_path, own) == ("v2", [tmp_path / "grading" / "job", tmp_path / "grading", tmp_path])
    assert limits.cgroup_limit(tmp_path, own) == 768 * 2**20
    assert limits.oom_kills(tmp_path, own) == 4  # counted on both levels: any increase is an OOM kill
    assert limits.available_memory(tmp_path, own) == (768 * 2**20, "the container's limit of 768 MB")
    (tmp_path / "grading" / "memory.max").write_text("max\n")
    assert limits.cgroup_limit(tmp_path, own) is None
    assert limits.available_memory(tmp_path, own)[0] == psutil.virtual_memory().total
    # a cgroup namespace shows "/" (or a path not mounted here): the hierarchy's root
    (tmp_path / "memory.max").write_text(str(2**30))
    assert limits.cgroup_limit(tmp_path, tmp_path / "nowhere") == 2**30


def test_the_memory_limit_is_read_from_a_cgroup_v1_tree(tmp_path):
    memory = tmp_path / "memory"
    (memory / "docker" / "abc").mkdir(parents=True)
    (memory / "memory.limit_in_bytes").write_text("9223372036854771712\n")  # v1's "no limit"
    (memory / "docker" / "abc" / "memory.limit_in_bytes").write_text(f"{768 * 2**20}\n")
    (memory / "docker" / "abc" / "memory.oom_control").write_text("oom_kill_disable 0\nunder_oom 0\noom_kill 1\n")
    own = tmp_path / "self-cgroup"
    own.write_text("12:pids:/docker/abc\n4:memory:/docker/abc\n0::/\n")
    assert limits.memory_cgroup(tmp_path, own) == ("v1", [memory / "docker" / "abc", memory / "docker", memory])
    assert limits.cgroup_limit(tmp_path, own) == 768 * 2**20
    assert limits.oom_kills(tmp_path, own) == 1
    assert limits.memory_cgroup(tmp_path / "none", own) == ("", [])


def test_a_process_the_kernel_killed_for_memory_is_a_memory_stop(tmp_path, monkeypatch):
    """SIGKILL (directly, or bubblewrap's 137) with the cgroup's oom_kill count up since the start: memory, the grader's
    limit; without the count up, or another exit: what it was before."""
    monkeypatch.setenv("SEQCOURSE_CGROUP_ROOT", str(tmp_path))
    (tmp_path / "cgroup.controllers").write_text("memory\n")
    (tmp_path / "memory.events").write_text("oom_kill 0\n")

    class Ended:
        def __init__(self, code):
            self.returncode = code

        def wait(self):
            return self.returncode

    def ended(code, kills_after):
        sb = Sandbox.__new__(Sandbox)
        sb.stopped, sb.memory_stop, sb.peak, sb.available_what = "", "", 700 * 2**20, "the container's limit of 768 MB"
        sb.proc, sb.oom_kills = Ended(code), limits.oom_kills()
        (tmp_path / "memory.events").write_text(f"oom_kill {kills_after}\n")
        return sb._ended(), sb.memory_stop

    why, stop = ended(-signal.SIGKILL, 1)
    assert why == stop == ("killed by the system for memory at about 700 MB: the container's limit of 768 MB was used up "
                           "(the grader's own limit did not act in time)")
    assert ended(128 + signal.SIGKILL, 2)[1]
    assert ended(-signal.SIGKILL, 2) == ("the notebook's process exited (does it call exit()?)", "")  # no new OOM kill
    assert ended(0, 3) == ("the notebook's process exited (does it call exit()?)", "")


HOG = "_hog = bytearray(3 * 2**30)\n_hog[::4096] = b'x' * len(_hog[::4096])  # 3 GB, every page touched"


def test_a_notebook_past_the_containers_memory_is_stopped_by_the_grader_and_not_graded(course_build, tmp_path, monkeypatch):
    """In a container of 1.5 GB (a cgroup v2 tree the worker reads), the sandbox may hold what the container leaves
    once the grader's own memory is set aside, though --memory-mb allows 4 GB: a cell that takes 3 GB is stopped
    there by the grader, and the notebook is reported as not graded, the grader's limit, on Gradescope as locally."""
    built = course_build[NB]
    cgroup = tmp_path / "cgroup"  # as a container's own cgroup namespace shows it: its limits at the root
    cgroup.mkdir()
    (cgroup / "cgroup.controllers").write_text("cpu memory pids\n")
    (cgroup / "memory.max").write_text(f"{1536 * 2**20}\n")
    monkeypatch.setenv("SEQCOURSE_CGROUP_ROOT", str(cgroup))  # read by the worker process
    nb = nbformat.read(built.solution_nb, as_version=4)
    nb.cells.insert(_index(nb, "otter.Notebook") + 1, nbformat.v4.new_code_cell(HOG))
    nbformat.write(nb, tmp_path / "hog.ipynb")
    g = grade.grade_one(tmp_path / "hog.ipynb", built.autograder_zip, timeout=BUDGET_S, memory_mb=4096)
    assert g.limit.startswith("the notebook was stopped at ") and ("MB of its own memory, the most this grading can give "
                                                                   "it: the container's limit of 1536 MB, less ") in g.limit, g
    assert g.own_mb > g.room_mb > 1000 and g.room_mb < 1536 - limits.MEMORY_RESERVE_MB, g
    assert not g.scores and not g.cases and g.error.startswith(f"not graded: {g.limit}; not the student's error"), g
    results = feedback.results(checks.questions(built.autograder_zip), g, "after_due_date")
    assert results["score"] == 0 and all(t["score"] == 0 for t in results["tests"])
    first = results["tests"][0]
    assert first["name"] == feedback.NOT_GRADED and first["visibility"] == "visible" and "not an error in your answers" in first["output"]
    assert "Autograder Settings" in results["output"] and "not your grade" in results["output"]


def test_the_summary_leaves_rows_not_graded_out_of_its_means_and_says_so():
    rows = [grade.Graded("a.ipynb", scores={"q1": 2.0, "q2": 1.0}), grade.Graded("b.ipynb", scores={"q1": 0.0, "q2": 1.0}),
            grade.Graded("c.pdf", error=grade.NOT_A_NOTEBOOK),
            grade.not_graded(grade.Graded("d.ipynb"), "the notebook was stopped at 400 MB of memory")]
    summary = grade.summarize("01_x", rows, {"q1": 2, "q2": 1}, wall=10, jobs=1)
    assert summary.startswith("01_x: 4 submissions, 2 graded (2 cleanly, 0 with an error in a cell or check), 2 not graded: "
                              "1 stopped at the grader's memory limit")
    assert "1 not a notebook" in summary
    assert "total out of 3, over the 2 graded submissions (rows not graded are left out): mean 2.00, median 2, min 1, max 3" in summary
    assert "  q1: mean 1.00 / 2, full marks 1" in summary
    assert "not graded: d.ipynb: the notebook was stopped at 400 MB of memory; not the student's error" in summary
