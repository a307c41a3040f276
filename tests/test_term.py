"""A real term's submissions (issue 40): which file Gradescope grades, what students see of hidden checks, the
feedback `make grade` writes, the command line's edges, and notebooks that lost their Otter metadata and tags
(as a Colab download may).

Three gradings of notebook 01 through its real autograder zip (one by the Gradescope entry, two by `make grade`'s
class grading); everything else reads files or calls functions without a sandbox.
"""

from __future__ import annotations

import json
import os
import shutil
import zipfile
from pathlib import Path

import nbformat
import pytest

from grader import __main__ as cli
from grader import checks, feedback, grade, submission
from grader.gradescope import gradescope

ROOT = Path(__file__).resolve().parents[1]
NB = "01_rnn_lstm"
OLD, NEW = f"{NB}_2025_03_01T10_00_00_000000.zip", f"{NB}_2025_03_02T09_30_00_000000.zip"  # grader.export()'s names


def _export(path: Path, notebook: Path) -> None:
    """A zip as grader.export() writes it: the notebook, and the zip's own name in __zip_filename__."""
    with zipfile.ZipFile(path, "w") as z:
        z.write(notebook, f"{NB}.ipynb")
        z.writestr("__zip_filename__", path.name)


def _stripped(nb: dict) -> dict:
    """A notebook as a Colab download may leave it: no notebook metadata but the kernel, no cell metadata."""
    nb = json.loads(json.dumps(nb))
    nb["metadata"] = {"kernelspec": nb["metadata"].get("kernelspec", {})}
    for cell in nb["cells"]:
        cell["metadata"] = {}
    return nb


@pytest.fixture(scope="module")
def term(course_build, tmp_path_factory):
    """Notebook 01's zip (with the grading.json the build writes); one student (alice/) who uploaded an old unsolved
    export and a newer solved one, graded by the Gradescope entry and by `make grade` beside a student whose
    notebook lost its metadata and tags (bob.ipynb), a file that is not a notebook and files never looked at."""
    built = course_build[NB]
    tmp = tmp_path_factory.mktemp("term")
    zip_path = tmp / "dist" / built.autograder_zip.name
    zip_path.parent.mkdir()
    shutil.copy(built.autograder_zip, zip_path)
    assert submission.settings(zip_path)["ignored_cells"], "the build writes grading.json with the ignored cells"
    # the class folder
    subs = tmp / "class"
    (subs / "alice").mkdir(parents=True)
    _export(subs / "alice" / OLD, built.student_dir / f"{NB}.ipynb")
    _export(subs / "alice" / NEW, built.solution_nb)
    solution = json.loads(built.solution_nb.read_text())
    bob = _stripped(solution)
    training = next(c for c in bob["cells"] if c["cell_type"] == "code" and "".join(c["source"]).startswith("seqcourse.seed_everything(0)\nconfig"))
    source = "".join(training["source"]).split("\n")
    training["source"] = "\n".join(source[:1] + ["RNNCell = None  # costs q1 if this training cell runs"] + source[1:])
    (subs / "bob.ipynb").write_text(json.dumps(bob))
    (subs / "carol-notes.pdf").write_bytes(b"%PDF-1.4")
    (subs / ".DS_Store").write_bytes(b"\0")
    (subs / ".ipynb_checkpoints").mkdir()
    shutil.copy(built.student_dir / f"{NB}.ipynb", subs / ".ipynb_checkpoints" / "bob-checkpoint.ipynb")
    # Gradescope: alice's uploads, in the folder layout Gradescope unpacks the zip and the submission into
    base = tmp / "autograder"
    with zipfile.ZipFile(zip_path) as z:
        z.extractall(base / "source")
    shutil.copytree(subs / "alice", base / "submission" / "alice")
    gradescope(base)
    results = json.loads((base / "results" / "results.json").read_text())
    out = tmp / "grades" / f"{NB}.csv"
    rows = grade.grade_folder(zip_path, subs, out, jobs=2, timeout=120, memory_mb=2048, workdir=tmp_path_factory.mktemp("work"))
    return {"zip": zip_path, "results": results, "rows": {r.submission: r for r in rows}, "out": out, "class": subs,
            "questions": checks.questions(zip_path), "base": base}


def test_gradescope_grades_the_newest_export_and_names_it(term):
    r = term["results"]
    assert r["score"] == 15, r
    first = r["output"].splitlines()[0]
    assert first.startswith(f"Graded alice/{NEW}.") and "2 notebooks were submitted" in first and f"Not graded: alice/{OLD}" in first


def test_each_question_is_a_visible_public_test_and_a_hidden_test_until_the_due_date(term):
    tests, questions = term["results"]["tests"], term["questions"]
    assert [t["name"] for t in tests] == [f"{q.name} ({kind} checks)" for q in questions for kind in ("public", "hidden")]
    for q, (public, hidden) in zip(questions, zip(tests[::2], tests[1::2])):
        assert public["visibility"] == "visible" and hidden["visibility"] == "after_due_date"
        assert public["max_score"] + hidden["max_score"] == pytest.approx(q.points)
        assert "hidden check" not in public["output"] and "public check" not in hidden["output"]
    assert term["results"]["stdout_visibility"] == "hidden"
    assert "shown after the due date" in term["results"]["output"]


@pytest.mark.parametrize("value", ["after_published", "hidden", "visible"])
def test_hidden_visibility_follows_the_setting(term, tmp_path, value):
    base = tmp_path / "autograder"
    shutil.copytree(term["base"] / "source", base / "source")
    (base / "source" / submission.SETTINGS).write_text(json.dumps({"hidden_visibility": value}))
    (base / "submission").mkdir()  # nothing uploaded: every test says so, nothing is run
    gradescope(base)
    results = json.loads((base / "results" / "results.json").read_text())
    assert {t["visibility"] for t in results["tests"][1::2]} == {value}
    assert {t["visibility"] for t in results["tests"][::2]} == {"visible"}
    assert all(t["output"] == "not graded: no .ipynb or .zip file was submitted" and t["score"] == 0 for t in results["tests"])


def test_an_invalid_visibility_is_a_clear_error(term, tmp_path):
    base = tmp_path / "autograder"
    shutil.copytree(term["base"] / "source", base / "source")
    (base / "source" / submission.SETTINGS).write_text(json.dumps({"hidden_visibility": "after_deadline"}))
    with pytest.raises(ValueError, match="hidden_visibility must be one of visible, hidden, after_due_date, after_published"):
        gradescope(base)
    with pytest.raises(ValueError, match="after_deadline"):
        submission.settings_text(ROOT / "notebooks" / NB / f"{NB}.ipynb", "after_deadline")


def test_a_rule_broken_in_a_hidden_check_costs_the_public_part_too_and_says_so(term):
    q = term["questions"][0]
    cases = [{"hidden": c.hidden, "points": c.points, "passed": c.hidden is False, "message": "broke a rule"} for c in q.cases]
    graded = grade.Graded("x.ipynb", scores={q.name: 0.0}, cases={q.name: cases})
    public, hidden = feedback.results([q], graded, "hidden")["tests"]
    assert (public["score"], hidden["score"]) == (0, 0) and "although these checks passed" in public["output"]


def test_feedback_files_are_what_gradescope_shows(term):
    feedback_dir = term["out"].with_suffix(".feedback")
    written = json.loads((feedback_dir / "alice" / f"{NEW}.json").read_text())
    assert written == term["results"]
    assert (feedback_dir / "alice" / f"{NEW}.txt").read_text() == feedback.text(term["results"])
    text = feedback.text(term["results"])
    assert "score 15 / 15" in text and "q1_rnn_cell (hidden checks): 1.8 / 1.8   [shown to students after the due date]" in text
    assert sorted(p.name for p in feedback_dir.rglob("*.txt")) == sorted([f"{NEW}.txt", "bob.ipynb.txt", "carol-notes.pdf.txt"])


def test_one_row_per_student_a_row_for_a_file_that_is_not_a_notebook_and_none_for_system_files(term):
    rows = term["rows"]
    assert sorted(rows) == [f"alice/{NEW}", "bob.ipynb", "carol-notes.pdf"]
    assert rows[f"alice/{NEW}"].total == 15 and f"Not graded: alice/{OLD}" in rows[f"alice/{NEW}"].note
    assert rows["carol-notes.pdf"].error.startswith("not a notebook") and not rows["carol-notes.pdf"].scores
    table = term["out"].read_text().splitlines()
    assert table[0].endswith(",total,error,seconds,peak_mb,note") and len(table) == 4
    summary = term["out"].with_suffix(".summary.txt").read_text()
    assert "3 submissions" in summary and f"note: alice/{NEW}" in summary and "with 2 jobs" in summary


def test_a_notebook_without_metadata_and_tags_is_graded_like_the_intact_one(term):
    bob, alice = term["rows"]["bob.ipynb"], term["rows"][f"alice/{NEW}"]
    assert bob.error == "" and bob.scores == alice.scores and bob.cases == alice.cases, bob


def test_an_earlier_grading_is_never_replaced_silently(term, tmp_path):
    before = term["out"].read_text()
    with pytest.raises(SystemExit, match="already exist.*--force"):
        grade.grade_folder(term["zip"], term["class"], term["out"], jobs=1, timeout=60, memory_mb=2048)
    assert term["out"].read_text() == before
    out = tmp_path / "again.csv"
    out.write_text("an earlier grading\n")
    (tmp_path / "only-a-pdf").mkdir()
    (tmp_path / "only-a-pdf" / "x.pdf").write_bytes(b"%PDF")  # nothing to run: replaced at once with force
    rows = grade.grade_folder(term["zip"], tmp_path / "only-a-pdf", out, jobs=1, timeout=60, memory_mb=2048, force=True)
    assert len(rows) == 1 and out.read_text().startswith("submission,q1_rnn_cell")
    (out.with_suffix(".feedback") / "mine.ipynb").write_text("{}")  # a folder holding other files is never removed
    with pytest.raises(SystemExit, match="holds files grading does not write"):
        grade.grade_folder(term["zip"], tmp_path / "only-a-pdf", out, jobs=1, timeout=60, memory_mb=2048, force=True)


# -- without a sandbox ---------------------------------------------------------------------------------------
def test_newest_by_the_export_time_in_the_name_then_by_file_time(tmp_path):
    nb = ROOT / "notebooks" / NB / f"{NB}.ipynb"
    _export(tmp_path / NEW, nb)
    _export(tmp_path / OLD, nb)
    shutil.copy(nb, tmp_path / "a.ipynb")
    os.utime(tmp_path / "a.ipynb", (1e9, 1e9))  # 2001
    os.utime(tmp_path / NEW, (1e9, 1e9))  # the name counts, not the file's time
    ordered = submission.newest_first([tmp_path / "a.ipynb", tmp_path / OLD, tmp_path / NEW])
    assert [(p.name, how) for p, _, how in ordered] == [(NEW, "exported"), (OLD, "exported"), ("a.ipynb", "file time")]
    os.utime(tmp_path / "a.ipynb")  # now: newer than both exports
    assert submission.newest_first([tmp_path / OLD, tmp_path / "a.ipynb"])[0][0].name == "a.ipynb"
    assert submission.choice_note(submission.newest_first([tmp_path / OLD]), tmp_path) == ""


def test_a_students_files_are_grouped_by_folder_and_name():
    keys = {submission.student_key(Path(p)) for p in
            ["s/alice/01_rnn_lstm.ipynb", f"s/alice/{OLD}", f"s/alice/{NEW}", "s/alice/01_rnn_lstm (1).ipynb",
             "s/alice/Copy of 01_rnn_lstm.ipynb"]}
    assert len(keys) == 1
    assert len({submission.student_key(Path(p)) for p in ["s/alice.ipynb", "s/bob.ipynb", "s/x/alice.ipynb"]}) == 3


def test_a_notebook_prefix_names_its_zip_and_a_wrong_name_lists_the_zips(tmp_path):
    with pytest.raises(SystemExit, match="run `make course` first"):
        cli.find_zip("01", tmp_path)
    for name in ("01_rnn_lstm", "02_seq2seq", "03_attention"):
        (tmp_path / f"{name}-autograder.zip").write_bytes(b"")
    assert cli.find_zip("01", tmp_path).name == "01_rnn_lstm-autograder.zip"
    assert cli.find_zip("dist/02_seq2seq-autograder.zip", tmp_path).name == "02_seq2seq-autograder.zip"
    with pytest.raises(SystemExit, match="more than one notebook.*01_rnn_lstm, 02_seq2seq, 03_attention"):
        cli.find_zip("0", tmp_path)
    with pytest.raises(SystemExit, match="names no notebook.*choose one of 01_rnn_lstm, 02_seq2seq, 03_attention"):
        cli.find_zip("09", tmp_path)


def test_default_jobs_follow_free_memory_and_say_one_job(monkeypatch, capsys):
    monkeypatch.setattr(cli.os, "cpu_count", lambda: 16)
    monkeypatch.setattr(cli.limits, "available_memory", lambda: (128 * 2**30, "this machine's 131072 MB"))  # no container
    monkeypatch.setattr(cli.psutil, "virtual_memory", lambda: type("M", (), {"available": 3 * 2**30})())
    assert cli.default_jobs() == 1
    assert capsys.readouterr().out.startswith("1 job at a time: 16 cores, 3.0 GB")
    monkeypatch.setattr(cli.psutil, "virtual_memory", lambda: type("M", (), {"available": 64 * 2**30})())
    assert cli.default_jobs() == 16
    monkeypatch.setattr(cli.limits, "available_memory", lambda: (6 * 2**30, "the container's limit of 6144 MB"))
    assert cli.default_jobs() == 3  # a container's limit below the machine's free memory counts


@pytest.mark.parametrize("name", sorted(p.name for p in (ROOT / "notebooks").iterdir() if p.is_dir()))
def test_every_release_skips_the_same_cells_without_its_tags(tmp_path, name):
    """The build's list of ignored cells (submission.ignored_cells) tells every released notebook's ignored cells
    from its graded ones: stripped of metadata and tags, the same cells run."""
    released = ROOT / "notebooks" / name / f"{name}.ipynb"
    stripped = tmp_path / "stripped.ipynb"
    stripped.write_text(json.dumps(_stripped(json.loads(released.read_text()))))
    ignored = submission.ignored_cells(released)
    assert submission.load_cells(stripped, name, ignored=ignored) == submission.load_cells(released, name)
    assert len(submission.load_cells(stripped, name)) > len(submission.load_cells(released, name))


def test_a_notebook_without_metadata_is_recognised_by_its_cells_and_a_wrong_one_still_rejected(tmp_path):
    path = tmp_path / "nb.ipynb"
    questions = ["q1_rnn_cell", "q2_rnn"]

    def load(*sources, assignment=NB):
        path.write_text(nbformat.writes(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(s) for s in sources])))
        return submission.load_cells(path, assignment, questions=questions)

    assert load('import otter\ngrader = otter.Notebook("01_rnn_lstm.ipynb")', "x = 1")
    assert load("x = 1", 'grader.check("q1_rnn_cell")')  # no Otter cell: the questions it checks
    for wrong in (['grader = otter.Notebook("02_seq2seq.ipynb")', 'grader.check("q1_rnn_cell")'],
                  ['grader.check("q1_rnn_cell")', 'grader.check("q1_attention")'], ["x = 1"]):
        with pytest.raises(ValueError, match="this is not 01_rnn_lstm"):
            load(*wrong)
    released = json.loads((ROOT / "notebooks" / "02_seq2seq" / "02_seq2seq.ipynb").read_text())
    path.write_text(json.dumps(_stripped(released)))
    with pytest.raises(ValueError, match="this is not 01_rnn_lstm"):
        submission.load_cells(path, NB, questions=questions)
