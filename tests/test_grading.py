"""Grading a class with tools/grade.py (what `make grade` runs): one batch of notebook 01 submissions,
broken and cheating ones among them, graded in parallel through the real autograder zip.

Broken submissions must get a clear error or their honest score without stopping the batch. Cheats
(each one earns points from a plain Otter grader, shown by grading them again with the zip's guard plugin
removed) must earn nothing.
"""

from __future__ import annotations

import csv
import json
import zipfile

import nbformat
import pytest

import grade

NB = "01_rnn_lstm"
FAKE_TEST = ('OK_FORMAT = True\ntest = {"name": "%s", "points": 3, "suites": [{"cases": [{"code": ">>> True\\nTrue", '
             '"hidden": False, "locked": False}], "scored": True, "setup": "", "teardown": "", "type": "doctest"}]}\n')
CHEATS = {
    "cheat-print": 'print("All tests passed!")\nprint("q1_rnn_cell results: All test cases passed!")',
    "cheat-write-tests": f'import pathlib\nfor p in pathlib.Path("tests").glob("*.py"):\n    p.write_text({FAKE_TEST!r} % p.stem)',
    "cheat-delete-tests": 'import shutil\nshutil.rmtree("tests", ignore_errors=True)',
    "cheat-write-check-restore": (
        'import pathlib\nfrom otter.execute import Checker\nfrom otter.nbmeta_config import NBMetadataConfig\n'
        'saved = {p: p.read_text() for p in pathlib.Path("tests").glob("*.py")}\n'
        f'for p in saved:\n    p.write_text({FAKE_TEST!r} % p.stem)\n'
        'for p in saved:\n    Checker.check(str(p), NBMetadataConfig(), global_env=globals())\n'
        'for p, text in saved.items():\n    p.write_text(text)'),
    "cheat-allclose": ('import torch\ntorch.allclose = lambda *a, **k: True\n'
                       'torch.testing.assert_close = lambda *a, **k: None'),
    "cheat-patch-otter": (
        'from otter.test_files.ok_test import OKTestFile\nfrom otter.test_files.abstract_test import TestCaseResult\n'
        'def _run(self, global_environment):\n'
        '    self.test_case_results = [TestCaseResult(test_case=c, message="ok", passed=True) for c in self.test_cases]\n'
        'OKTestFile.run = _run'),
    "cheat-patch-check-restore": (
        'import torch\n_allclose = torch.allclose\ntorch.allclose = lambda *a, **k: True\n'
        'for _q in ["q1_rnn_cell", "q2_rnn", "q3_lstm_cell", "q4_lstm", "q5_early_grad", "q6_lm", "q7_lm_loss"]:\n'
        '    grader.check(_q)\ntorch.allclose = _allclose'),
    "cheat-exit": "import os\nos._exit(0)",
}
# cheats that need answers of the right shape to show what they would earn: q1 with sigmoid for tanh
# (submission "wrong-q1", graded honestly, is their baseline)
ON_WRONG_ANSWER = {"cheat-allclose", "cheat-patch-check-restore"}
# cheats placed at the end of the notebook; the others go first, before any grader.check runs
AT_END = {"cheat-patch-check-restore", "cheat-write-check-restore"}
# cheats that would earn points from a plain Otter grader (the others earn nothing even there)
EFFECTIVE = {"cheat-write-tests", "cheat-write-check-restore", "cheat-allclose", "cheat-patch-otter",
             "cheat-patch-check-restore"}


def _cell(nb, text):
    return next(c for c in nb.cells if c.cell_type == "code" and text in c.source)


def make_submissions(built, folder):
    """Write the batch into ``folder``; returns the solution notebook (for the checks)."""
    solution = nbformat.read(built.solution_nb, as_version=4)
    unsolved = nbformat.read(built.student_dir / f"{NB}.ipynb", as_version=4)

    def variant(base, name, edit=None, append=None, first=None):
        nb = nbformat.from_dict(json.loads(json.dumps(base)))
        if edit:
            edit(nb)
        if append:
            nb.cells.append(nbformat.v4.new_code_cell(append))
        if first:  # right after Otter's init cell
            nb.cells.insert(1, nbformat.v4.new_code_cell(first))
        nbformat.write(nb, folder / f"{name}.ipynb")
        return nb

    def wrong_q1(nb):
        cell = _cell(nb, "class RNNCell")
        cell.source = cell.source.replace("torch.tanh(", "torch.sigmoid(")

    def odd_kernel_huge_output(nb):
        nb.metadata["kernelspec"] = {"name": "conda-env-seqcourse-py", "display_name": "Python (seq)", "language": "python"}
        nb.cells.append(nbformat.v4.new_code_cell('for _ in range(200):\n    print("x" * 100_000)'))

    exported = variant(solution, "_exported", odd_kernel_huge_output)
    (folder / "_exported.ipynb").unlink()
    with zipfile.ZipFile(folder / "exported-odd-kernel-huge-output.zip", "w") as z:
        z.writestr(f"{NB}.ipynb", nbformat.writes(exported))
        z.writestr(".OTTER_LOG", b"")
    with zipfile.ZipFile(folder / "cheat-zip-with-tests.zip", "w") as z:  # a zip may carry files besides the notebook
        z.writestr(f"{NB}.ipynb", nbformat.writes(unsolved))
        z.writestr("tests/q1_rnn_cell.py", FAKE_TEST % "q1_rnn_cell")
    variant(solution, "syntax-error", lambda nb: setattr(_cell(nb, "class RNNCell"), "source", "class RNNCell(nn.Module:\n    pass"))
    variant(solution, "missing-cells", lambda nb: nb.cells.remove(_cell(nb, "class LSTMCell")))
    variant(solution, "endless-loop", append="while True:\n    pass")
    variant(solution, "wrong-assignment", lambda nb: nb.metadata["otter"].update(assignment_name="02_seq2seq"))
    (folder / "not-a-notebook.ipynb").write_text("{ this is not JSON")
    wrong = variant(solution, "wrong-q1", wrong_q1)
    for name, code in CHEATS.items():
        base = wrong if name in ON_WRONG_ANSWER else unsolved
        variant(base, name, append=code) if name in AT_END else variant(base, name, first=code)
    return solution


@pytest.fixture(scope="session")
def batch(course_build, tmp_path_factory):
    built = course_build[NB]
    folder = tmp_path_factory.mktemp("submissions")
    make_submissions(built, folder)
    out = tmp_path_factory.mktemp("grades") / f"{NB}.csv"
    rows = grade.grade_folder(built.autograder_zip, folder, out, jobs=2, timeout=60, memory_mb=4096)
    return {r.submission.rsplit(".", 1)[0]: r for r in rows}, out, folder


def test_csv_and_summary_are_written(batch):
    rows, out, _ = batch
    with open(out) as f:
        table = list(csv.DictReader(f))
    assert len(table) == len(rows) == 16
    assert list(table[0])[:2] == ["submission", "q1_rnn_cell"] and list(table[0])[-4:] == ["total", "error", "seconds", "peak_mb"]
    summary = out.with_suffix(".summary.txt").read_text()
    assert "16 submissions" in summary and "peak memory" in summary


def test_exported_zip_with_an_odd_kernel_name_and_huge_output_scores_full_marks(batch):
    r = batch[0]["exported-odd-kernel-huge-output"]
    assert (r.total, r.error) == (15, ""), r


@pytest.mark.parametrize("name, error", [("wrong-assignment", "this is not 01_rnn_lstm"),
                                         ("not-a-notebook", "not a readable notebook"),
                                         ("endless-loop", "stopped after 60 s")])
def test_broken_submission_gets_a_clear_error_and_no_points(batch, name, error):
    r = batch[0][name]
    assert error in r.error and r.total == 0, r


def test_broken_cells_cost_only_their_questions(batch):
    syntax, missing = batch[0]["syntax-error"], batch[0]["missing-cells"]
    assert syntax.error == "" and syntax.scores["q1_rnn_cell"] == 0 and syntax.scores["q3_lstm_cell"] == 3, syntax
    assert missing.error == "" and missing.scores["q3_lstm_cell"] == 0 and missing.scores["q1_rnn_cell"] == 2, missing


@pytest.mark.parametrize("name", sorted(CHEATS) + ["cheat-zip-with-tests"])
def test_cheat_earns_no_hidden_point(batch, name):
    r, baseline = batch[0][name], batch[0]["wrong-q1"]
    if name in ON_WRONG_ANSWER:  # no more than the wrong answer earns honestly (its public case)
        assert baseline.scores["q1_rnn_cell"] < 2 and baseline.error == ""
        assert r.scores.get("q1_rnn_cell", 0) <= baseline.scores["q1_rnn_cell"], r
    else:
        earned = {q: s for q, s in r.scores.items() if s > 0}
        assert not earned, f"{name} earned {earned}"
    if name in {"cheat-write-tests", "cheat-write-check-restore"}:
        assert "./tests" in r.error, r.error
    if name in {"cheat-allclose", "cheat-patch-otter"}:
        assert "replaced" in r.error and ("torch.allclose" in r.error or "OKTestFile.run" in r.error), r.error
    if name in {"cheat-exit", "cheat-delete-tests"}:
        assert r.error, r


def test_cheats_would_earn_points_from_an_unguarded_grader(course_build, batch, tmp_path):
    """The cheats above are real: with the guard plugin taken out of the zip, each earns points."""
    built = course_build[NB]
    plain = tmp_path / f"{NB}-autograder.zip"
    with zipfile.ZipFile(built.autograder_zip) as src, zipfile.ZipFile(plain, "w") as dst:
        for item in src.infolist():
            data = src.read(item)
            if item.filename == "otter_config.json":
                data = json.dumps({k: v for k, v in json.loads(data).items() if k != "plugins"}).encode()
            dst.writestr(item, data)
    folder = tmp_path / "cheats"
    folder.mkdir()
    for name in EFFECTIVE:
        (folder / f"{name}.ipynb").write_bytes((batch[2] / f"{name}.ipynb").read_bytes())
    rows = grade.grade_folder(plain, folder, tmp_path / "plain.csv", jobs=2, timeout=60, memory_mb=4096)
    honest = batch[0]["wrong-q1"].scores["q1_rnn_cell"]
    for r in rows:
        assert r.scores.get("q1_rnn_cell", 0) > honest, f"{r.submission} earns nothing even without the guard: {r}"
