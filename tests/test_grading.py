"""Trusted grading (the grader package, what `make grade` and Gradescope run): one batch of notebook 01
submissions, broken, malformed and cheating ones among them, graded in parallel through the real zip.

Broken submissions must get a clear error or their honest score without stopping the batch. Attacks must
earn no hidden point and leave the next submission's grade unchanged; the ones that work against Otter's
own in-kernel grading (`otter run` with the same zip's tests) are shown to work there.
"""

from __future__ import annotations

import csv
import json
import os
import secrets
import subprocess
import sys
import zipfile

import nbformat
import psutil
import pytest

from grader import grade
from conftest import serve

NB = "01_rnn_lstm"
TOKEN = secrets.token_hex(8)  # marks processes and files the attacks leave behind
QUESTIONS = ["q1_rnn_cell", "q2_rnn", "q3_lstm_cell", "q4_lstm", "q5_early_grad", "q6_lm", "q7_lm_loss"]
FAKE_TEST = ('OK_FORMAT = True\ntest = {"name": "%s", "points": 30, "suites": [{"cases": [{"code": ">>> True\\nTrue", '
             '"hidden": False, "locked": False}], "scored": True, "setup": "", "teardown": "", "type": "doctest"}]}\n')
ATTACKS = {
    "print": 'print("All tests passed!")\nprint("q1_rnn_cell results: All test cases passed!")',
    "write-tests": f'import pathlib\nfor q in {QUESTIONS + ["q99_bonus"]!r}:\n'
                   f'    pathlib.Path("tests").mkdir(exist_ok=True)\n    pathlib.Path("tests", q + ".py").write_text({FAKE_TEST!r} % q)',
    "chdir-to-own-tests": f'import os, pathlib, tempfile\nd = pathlib.Path(tempfile.mkdtemp())\n(d / "tests").mkdir()\n'
                          f'for q in {QUESTIONS!r}:\n    (d / "tests" / (q + ".py")).write_text({FAKE_TEST!r} % q)\nos.chdir(d)',
    "allclose": 'import torch\ntorch.allclose = lambda *a, **k: True\ntorch.testing.assert_close = lambda *a, **k: None\n'
                'torch.Tensor.__eq__ = lambda *a, **k: True',
    "torch-function-mode": ('import torch\nclass _Yes(torch.overrides.TorchFunctionMode):\n'
                            '    def __torch_function__(self, func, types, args=(), kwargs=None):\n'
                            '        if func in (torch.allclose, torch.equal): return True\n'
                            '        return func(*args, **(kwargs or {}))\n_Yes().__enter__()'),
    "shadow-builtins": ('def isinstance(*a): return True\ndef len(x): return 2\ndef all(x): return True\n'
                        'def abs(x): return 0\ndef float(x): return 0.0\ndef sorted(*a, **k): return []\n'
                        'torch = None\nF = None'),
    "patch-otter": ('from otter.test_files.ok_test import OKTestFile\nfrom otter.test_files.abstract_test import TestCaseResult\n'
                    'def _run(self, global_environment):\n'
                    '    self.test_case_results = [TestCaseResult(test_case=c, message="ok", passed=True) for c in self.test_cases]\n'
                    'OKTestFile.run = _run'),
    "ipython-hook": ('from otter.test_files.ok_test import OKTestFile\nfrom otter.test_files.abstract_test import TestCaseResult\n'
                     'def _patch(*a):\n    OKTestFile.run = lambda self, g: setattr(self, "test_case_results", '
                     '[TestCaseResult(test_case=c, message="ok", passed=True) for c in self.test_cases])\n'
                     'get_ipython().events.register("pre_run_cell", _patch)'),
    "delete-tests": 'import shutil\nshutil.rmtree("tests", ignore_errors=True)',
    "write-check-restore": (
        'import pathlib\nfrom otter.execute import Checker\nfrom otter.nbmeta_config import NBMetadataConfig\n'
        'saved = {p: p.read_text() for p in pathlib.Path("tests").glob("*.py")}\n'
        f'for p in saved:\n    p.write_text({FAKE_TEST!r} % p.stem)\n'
        'for p in saved:\n    Checker.check(str(p), NBMetadataConfig(), global_env=globals())\n'
        'for p, text in saved.items():\n    p.write_text(text)'),
    "patch-check-restore": (
        'import torch\n_allclose = torch.allclose\ntorch.allclose = lambda *a, **k: True\n'
        f'for _q in {QUESTIONS!r}:\n    grader.check(_q)\ntorch.allclose = _allclose'),
    "exit": "import os\nos._exit(0)",
    "memory": "_hog = bytearray(8 * 2**30)\n_hog[::4096] = b'x' * len(_hog[::4096])",
    "detached-child": (f'import os, subprocess\nsubprocess.Popen(["sh", "-c", "exec -a {TOKEN}-child sleep 300"], '
                       'start_new_session=True, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\n'
                       f'import atexit\natexit.register(lambda: open("/tmp/{TOKEN}-atexit", "w").write("x"))'),
}
# attacks placed at the end of the notebook (after the answers); the others go right after Otter's init cell
AT_END = {"ipython-hook", "read-solutions", "write-check-restore", "patch-check-restore"}
# attacks made on a wrong answer (q1 with sigmoid for tanh), to show what they add to its honest score
ON_WRONG_ANSWER = {"allclose", "torch-function-mode", "shadow-builtins", "patch-check-restore"}
# attacks that earn points from Otter's own in-kernel grading with the same tests (shown below)
EFFECTIVE_IN_OTTER = {"write-tests", "allclose", "patch-otter", "read-solutions", "write-check-restore", "patch-check-restore"}


def _cell(nb, text):
    return next(c for c in nb.cells if c.cell_type == "code" and text in c.source)


def make_submissions(built, folder, network_url):
    solution = nbformat.read(built.solution_nb, as_version=4)
    unsolved = nbformat.read(built.student_dir / f"{NB}.ipynb", as_version=4)

    def variant(base, name, edit=None, append=None, first=None, where=None):
        nb = nbformat.from_dict(json.loads(json.dumps(base)))
        if edit:
            edit(nb)
        if append:
            nb.cells.append(nbformat.v4.new_code_cell(append))
        if first:  # right after Otter's init cell
            index = next(i for i, c in enumerate(nb.cells) if c.cell_type == "code" and "otter.Notebook" in c.source)
            nb.cells.insert(index + 1, nbformat.v4.new_code_cell(first))
        nbformat.write(nb, where or folder / f"{name}.ipynb")
        return nb

    def wrong_q1(nb):
        cell = _cell(nb, "class RNNCell")
        cell.source = cell.source.replace("torch.tanh(", "torch.sigmoid(")

    def odd_kernel_huge_output(nb):
        nb.metadata["kernelspec"] = {"name": "conda-env-seqcourse-py", "display_name": "Python (seq)", "language": "python"}
        nb.cells.append(nbformat.v4.new_code_cell('for _ in range(200):\n    print("x" * 100_000)'))

    exported = variant(solution, "_exported", odd_kernel_huge_output, where=folder / "_exported.tmp")
    (folder / "_exported.tmp").unlink()
    with zipfile.ZipFile(folder / "exported-odd-kernel-huge-output.zip", "w") as z:
        z.writestr(f"{NB}.ipynb", nbformat.writes(exported))
        z.writestr(".OTTER_LOG", b"")
    with zipfile.ZipFile(folder / "attack-zip-with-tests.zip", "w") as z:  # a zip may carry files besides the notebook
        z.writestr(f"{NB}.ipynb", nbformat.writes(unsolved))
        z.writestr("tests/q1_rnn_cell.py", FAKE_TEST % "q1_rnn_cell")
    variant(solution, "syntax-error", lambda nb: setattr(_cell(nb, "class RNNCell"), "source", "class RNNCell(nn.Module:\n    pass"))
    variant(solution, "missing-cells", lambda nb: nb.cells.remove(_cell(nb, "class LSTMCell")))
    variant(solution, "endless-loop", append="while True:\n    pass")
    variant(solution, "wrong-assignment", lambda nb: nb.metadata["otter"].update(assignment_name="02_seq2seq"))
    (folder / "not-a-notebook.ipynb").write_text("{ this is not JSON")
    variant(solution, "malformed-otter-null", lambda nb: nb.metadata.update(otter=None))
    bad = json.loads(nbformat.writes(solution))
    del next(c for c in bad["cells"] if "class LSTMCell" in "".join(c.get("source", "")))["source"]
    bad["nbformat_minor"] = "five"
    (folder / "malformed-cell-without-source.ipynb").write_text(json.dumps(bad))
    with zipfile.ZipFile(folder / "zip-bomb.zip", "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr(f"{NB}.ipynb", b"{" + b" " * (150 * 2**20) + b"}")
    wrong = variant(solution, "wrong-q1", wrong_q1)
    attacks = dict(ATTACKS)
    attacks["read-solutions"] = (  # the paths where a local grader keeps the solutions and the hidden tests
        f'import json\nnb = json.load(open({str(built.solution_nb)!r}))\n'
        'for c in nb["cells"]:\n    if c["cell_type"] == "code" and "otter" not in "".join(c["source"]):\n'
        '        try: exec("".join(c["source"]), globals())\n        except Exception: pass')
    attacks["network"] = f'import urllib.request\nurllib.request.urlopen({network_url + TOKEN!r}, timeout=5)'
    for name, code in attacks.items():
        base = wrong if name in ON_WRONG_ANSWER else unsolved
        if name in AT_END:
            variant(base, f"attack-{name}", append=code)
        else:
            variant(base, f"attack-{name}", first=code)
    # the untouched solution graded right after the attacks: its grade must not change
    variant(solution, "zz-solution-after-attacks")
    return attacks


class _Recorder:
    hits: list[str] = []


@pytest.fixture(scope="session")
def batch(course_build, tmp_path_factory):
    import http.server

    class Handler(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            _Recorder.hits.append(self.path)

    built = course_build[NB]
    folder = tmp_path_factory.mktemp("submissions")
    url, server = serve(folder, Handler)
    attacks = make_submissions(built, folder, url)
    out = tmp_path_factory.mktemp("grades") / f"{NB}.csv"
    private = tmp_path_factory.mktemp("tmp")  # this batch's own temporary folder (tests in parallel grade too)
    with pytest.MonkeyPatch.context() as mp:  # the endless loop stops after 20 s, not at the 40 s the cells may take
        mp.setenv("SEQCOURSE_CELL_TIMEOUT", "20")  # read by the worker processes (one cell or check call of 01: < 3 s)
        rows = grade.grade_folder(built.autograder_zip, folder, out, jobs=2, timeout=60, memory_mb=2048, workdir=private)
    leftovers = {n for n in os.listdir(private) if n.startswith("grade-")}  # workers keep all in it
    server.shutdown()
    return {r.submission.rsplit(".", 1)[0]: r for r in rows}, out, folder, attacks, leftovers


def test_csv_and_summary_are_written(batch):
    rows, out, _, attacks, _ = batch
    with open(out) as f:
        table = list(csv.DictReader(f))
    assert len(table) == len(rows) == 12 + len(attacks)
    assert list(table[0])[:2] == ["submission", "q1_rnn_cell"] and list(table[0])[-5:] == ["total", "error", "seconds", "peak_mb", "note"]
    summary = out.with_suffix(".summary.txt").read_text()
    assert f"{len(rows)} submissions" in summary and "peak memory" in summary


def test_nothing_is_left_behind(batch):
    assert not batch[4], f"left in the temporary folder: {batch[4]}"
    alive = [p.info["name"] for p in psutil.process_iter(["name", "cmdline"])
             if TOKEN in " ".join(p.info["cmdline"] or [])]
    assert not alive, f"processes started by a submission outlived its grading: {alive}"
    assert not os.path.exists(f"/tmp/{TOKEN}-atexit")


def test_solutions_score_full_marks_including_the_one_graded_after_the_attacks(batch):
    for name in ("exported-odd-kernel-huge-output", "zz-solution-after-attacks", "malformed-otter-null"):  # known by its cells
        r = batch[0][name]
        assert (r.total, r.error) == (15, ""), r


@pytest.mark.parametrize("name, error", [("wrong-assignment", "this is not 01_rnn_lstm"),
                                         ("not-a-notebook", "not a readable notebook"),
                                         ("zip-bomb", "larger than 100 MB"),
                                         ("endless-loop", 'cell "while True:" (after the last question\'s check): stopped after'),
                                         ("attack-exit", "process exited"),
                                         ("attack-memory", "stopped at 2048 MB")])
def test_broken_submission_gets_a_clear_error_and_no_points(batch, name, error):
    r = batch[0][name]
    assert error in r.error and (r.total == 0 or name == "endless-loop"), r


def test_a_notebook_stopped_for_memory_is_not_graded_and_counted_apart(batch):
    """The grader's memory limit is no grade: the row has no scores, its error says so and how to grade it with more
    memory, and the summary's means leave it out, as they leave out a file that is not a notebook."""
    rows, out = batch[0], batch[1]
    r = rows["attack-memory"]
    assert r.limit == "the notebook was stopped at 2048 MB of memory, the grader's limit (--memory-mb 2048)" and not r.scores, r
    row = next(row for row in csv.DictReader(open(out)) if row["submission"].startswith("attack-memory"))
    assert row["total"] == "" and row["error"].startswith(f"not graded: {r.limit}; not the student's error"), row
    graded = [g for g in rows.values() if g.scores]
    summary = out.with_suffix(".summary.txt").read_text()
    assert f", {len(graded)} graded (" in summary and "1 stopped at the grader's memory limit" in summary, summary
    assert f"over the {len(graded)} graded submissions (rows not graded are left out): mean " \
           f"{sum(g.total for g in graded) / len(graded):.2f}" in summary, summary


def test_broken_cells_cost_only_their_questions(batch):
    """A cell that raises (q1's syntax error), a missing cell (q3's) or a wrong answer (q1's) costs that question and
    nothing else: later questions are checked on the course's stand-ins for its definitions (grader/checks.py)."""
    for name, question, points in [("syntax-error", "q1_rnn_cell", 2), ("wrong-q1", "q1_rnn_cell", 2),
                                   ("missing-cells", "q3_lstm_cell", 3)]:
        r = batch[0][name]
        assert r.scores[question] == 0 and r.total == 15 - points, r
    r = batch[0]["malformed-cell-without-source"]
    assert r.scores["q3_lstm_cell"] == 0 and r.scores["q1_rnn_cell"] == 2, r


@pytest.mark.parametrize("name", sorted(ATTACKS) + ["read-solutions", "network", "zip-with-tests"])
def test_attack_earns_nothing_beyond_the_honest_answer(batch, name):
    r, baseline = batch[0][f"attack-{name}"], batch[0]["wrong-q1"]
    assert set(r.scores) <= set(QUESTIONS), r.scores
    if name in ON_WRONG_ANSWER:
        assert baseline.scores["q1_rnn_cell"] < 2  # the wrong q1 earns at most partial credit (0 since its values are wrong)
        assert r.scores.get("q1_rnn_cell", 0) <= baseline.scores["q1_rnn_cell"], r
        assert all(r.scores[q] <= baseline.scores[q] for q in QUESTIONS[1:]), r
    else:
        earned = {q: s for q, s in r.scores.items() if s > 0}
        assert not earned, f"{name} earned {earned}"


def test_the_sandbox_has_no_network(batch):
    assert not [h for h in _Recorder.hits if TOKEN in h], "a submission reached a server on 127.0.0.1"


def test_attacks_earn_points_from_otters_own_in_kernel_grading(course_build, batch, tmp_path):
    """The attacks above are real: Otter's `otter run` (tests and student code in one kernel, same zip)
    gives each of them points."""
    built, honest = course_build[NB], batch[0]["wrong-q1"].scores["q1_rnn_cell"]
    for name in sorted(EFFECTIVE_IN_OTTER):
        out = tmp_path / name
        out.mkdir()
        subprocess.run([sys.executable, "-m", "otter", "run", "-a", str(built.autograder_zip), "-o", str(out), "--no-logo",
                        str(batch[2] / f"attack-{name}.ipynb")], capture_output=True, timeout=300,
                       env={**os.environ, "OMP_NUM_THREADS": "1"})
        scores = {t["name"]: t.get("score", 0) for t in json.loads((out / "results.json").read_text())["tests"]}
        assert scores.get("q1_rnn_cell", 0) > honest, f"{name} earns nothing from Otter either: {scores}"


MALFORMED = {
    "array": [], "string": "notebook", "number": 3, "null": None,
    "metadata-list": {"metadata": [], "cells": []}, "otter-string": {"metadata": {"otter": "01_rnn_lstm"}, "cells": []},
    "otter-list": {"metadata": {"otter": [1]}, "cells": []}, "name-number": {"metadata": {"otter": {"assignment_name": 1}}},
    "cells-dict": {"metadata": {"otter": {"assignment_name": NB}}, "cells": {}},
    "deep": None,
}


@pytest.mark.parametrize("name", sorted(MALFORMED))
def test_malformed_notebook_gets_a_message_never_a_crash(tmp_path, name):
    path = tmp_path / "sub.ipynb"
    path.write_text(json.dumps(MALFORMED[name]) if name != "deep" else "[" * 100_000 + "]" * 100_000)
    with pytest.raises(ValueError) as e:
        grade.load_cells(path, NB)
    assert str(e.value)


def test_cells_of_every_json_type_are_read_or_skipped(tmp_path):
    odd = [1, None, "x", [], {"cell_type": "code"}, {"cell_type": "code", "source": 5},
           {"cell_type": "code", "source": ["a = 1\n", 2]}, {"cell_type": "code", "source": ["a = 1\n", "b = 2"], "metadata": []},
           {"cell_type": "code", "source": "c = 3", "metadata": {"tags": "otter_ignore"}},
           {"cell_type": "code", "source": "skipped", "metadata": {"tags": ["otter_ignore"]}}]
    path = tmp_path / "sub.ipynb"
    path.write_text(json.dumps({"metadata": {"otter": {"assignment_name": NB}}, "nbformat_minor": [], "cells": odd}))
    assert grade.load_cells(path, NB) == ["", "", "", "a = 1\nb = 2", "c = 3"]


def test_zip_with_many_members_or_a_lying_header_is_refused(tmp_path):
    many = tmp_path / "many.zip"
    with zipfile.ZipFile(many, "w") as z:
        for i in range(1001):
            z.writestr(f"f{i}.txt", b"")
    with pytest.raises(ValueError, match="more than 1000 files"):
        grade.load_cells(many, NB)
    broken = tmp_path / "broken.zip"
    broken.write_bytes(b"PK\x03\x04" + os.urandom(200))
    with pytest.raises(ValueError, match="not a readable zip"):
        grade.load_cells(broken, NB)


def test_a_worker_is_given_its_questions_and_imports_no_otter(course_build):
    """A class's grading parses the zip's questions once (Otter's parser) and hands them to each worker, which then
    imports no Otter: seconds saved per submission."""
    from grader import checks

    found = checks.questions(course_build[NB].autograder_zip)
    assert checks.questions_from_json(checks.questions_json(found)) == found
    probe = "import sys, grader.__main__, grader.grade; print('otter' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout.strip() == "False"
