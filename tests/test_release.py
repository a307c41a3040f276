"""Releasing the course safely: what course.yml publishes by default, answers that are not released, publishing into a
clone of the public repository without losing its history, the terms it carries, points checked with the question named, and the
Gradescope image pinned to the versions the build used. Each test builds at most notebook 01, without grading."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
import zipfile
from importlib import metadata

import nbformat
import pytest
import yaml

import course
from conftest import ROOT

NOTEBOOKS = course.unit_names()
GIT = ["git", "-c", "user.name=Instructor", "-c", "user.email=instructor@example.org", "-c", "init.defaultBranch=main"]


def _config(**settings) -> dict:
    return {**course.load_config(), **settings}


def _git(repo, *args) -> str:
    return subprocess.run([*GIT, "-C", str(repo), *args], check=True, capture_output=True, text=True).stdout


def _clone(path):
    """A stand-in for a clone of the public repository: one commit holding an old README and a file the release
    no longer has."""
    path.mkdir()
    _git(path, "init", "-q")
    (path / "README.md").write_text("old\n")
    (path / "gone.txt").write_text("removed by the next release\n")
    _git(path, "add", "--all")
    _git(path, "commit", "-qm", "first release")
    return path


def test_course_yml_publishes_notebook_01_and_no_answer(tmp_path):
    config = course.load_config()
    assert config["published"] == NOTEBOOKS[0] and config["answers_released"] is None
    course.publish(ROOT / "notebooks", tmp_path / "public", config)
    assert sorted(p.name for p in (tmp_path / "public" / "notebooks").iterdir()) == [NOTEBOOKS[0]]
    modules = sorted((tmp_path / "public" / "seqcourse").glob("*.py"))
    assert modules and not [m.name for m in modules if course.answers_of(m)], "a module that answers an exercise shipped"
    found = [f for p in (tmp_path / "public").rglob("*") if p.suffix in (".py", ".ipynb")
             for f in course.answers_in(course.notebook_code(p), NOTEBOOKS)]
    assert not found, found
    subprocess.run([sys.executable, "-c", "import seqcourse"], cwd=tmp_path / "public", check=True)


def test_course_yml_names_notebooks_and_releases_no_answers_of_an_unpublished_one(tmp_path):
    for text, message in [("answers_released: 05_subwords\npublished: 04_transformer\n", "newer than published"),
                          ("answers_released: 3\n", "answers_released must name a notebook"),
                          ("published: 09_nothing\n", "published must name a notebook"),
                          ("hidden_visibility: after_grading\n", "hidden_visibility must be one of visible, hidden, after_due_date")]:
        (tmp_path / "course.yml").write_text("repository: https://github.com/org/course\ncolab_pip: []\n" + text)
        with pytest.raises(SystemExit, match=message):
            course.load_config(tmp_path / "course.yml")


def test_an_unreleased_answer_stops_the_build_before_anything_is_built(tmp_path, monkeypatch, capsys):
    config = _config(published="04_transformer", answers_released="02_seq2seq")
    with pytest.raises(SystemExit) as refused:
        course.publish(ROOT / "notebooks", tmp_path / "public", config)
    message = str(refused.value)
    assert "\n" not in message and not (tmp_path / "public").exists()
    for part in ("04_transformer holds", "03_attention's answers to q6_length_penalty, q7_beam_search as given code",
                 "answers_released: 03_attention in course.yml", "keep published: 03_attention", "Nothing was written"):
        assert part in message, message
    # make course refuses at once: no Otter run, no zip
    monkeypatch.setattr(course, "load_config", lambda: config)
    with pytest.raises(SystemExit, match="q7_beam_search"):
        course.main(["--only", "04_transformer", "--no-grade", "--out", str(tmp_path / "trial")])
    assert not list((tmp_path / "trial").rglob("*.zip"))


def test_a_helper_module_ships_only_once_its_answers_are_released(tmp_path):
    """02's answers in seqcourse/search.py: notebook 03 imports it, so 03 waits for them."""
    with pytest.raises(SystemExit, match=r"03_attention holds .*it imports seqcourse/search\.py \(02_seq2seq's answers\)"):
        course.publish(ROOT / "notebooks", tmp_path / "public", _config(published="03_attention"))
    plan = course.publish(ROOT / "notebooks", tmp_path / "public", _config(published="03_attention", answers_released="02_seq2seq"))
    assert (tmp_path / "public" / "seqcourse" / "search.py").is_file() and plan.withheld == ["gpt.py"]


def test_notebook_07_is_published_while_06s_extensions_run_without_06s_answers(tmp_path):
    plan = course.publish(ROOT / "notebooks", tmp_path / "public", _config(published="07_bert_cola", answers_released="05_subwords"))
    assert plan.notebooks == NOTEBOOKS[:7] and not (tmp_path / "public" / "seqcourse" / "gpt.py").exists()
    shown = course.describe(plan, "dist/public/")
    assert "withheld until answers_released reaches their notebook: gpt.py (06_gpt)" in shown
    assert "07_bert_cola uses 03_attention's answers (q3_masked_softmax) as given code" in shown
    with pytest.raises(SystemExit, match=r"08_modern_decoder holds it imports seqcourse/gpt\.py \(06_gpt's answers\)"):
        course.publish(ROOT / "notebooks", tmp_path / "p8", _config(published="08_modern_decoder", answers_released="05_subwords"))


def test_a_build_keeps_the_git_history_of_the_public_folder(tmp_path):
    public = _clone(tmp_path / "public")
    course.publish(ROOT / "notebooks", public, _config())
    assert _git(public, "log", "--format=%s") == "first release\n", "the build lost the public folder's history"
    assert not (public / "gone.txt").exists() and (public / "notebooks" / NOTEBOOKS[0]).is_dir()
    assert " D gone.txt" in _git(public, "status", "--porcelain")


def test_make_publish_syncs_a_clone_shows_the_diff_and_pushes_nothing(tmp_path, capsys):
    clone = _clone(tmp_path / "clone")
    head = _git(clone, "rev-parse", "HEAD")
    course.publish_to_clone(clone, _config())
    shown = capsys.readouterr().out
    assert _git(clone, "rev-parse", "HEAD") == head and not _git(clone, "diff", "--cached", "--name-only"), "nothing is committed or staged"
    new = f"notebooks/{NOTEBOOKS[0]}/{NOTEBOOKS[0]}.ipynb"
    assert " D gone.txt" in shown and " M README.md" in shown and f"?? {new}" in shown and re.search(rf" {new} +\| +\d+ \+", shown)
    assert re.search(r" gone.txt +\| +1 -", shown) and f"git -C {clone} add --all && git -C {clone} diff --cached" in shown
    assert f"git -C {clone} push" in shown and "Nothing is committed or pushed" in shown
    assert (clone / "notebooks" / NOTEBOOKS[0] / f"{NOTEBOOKS[0]}.ipynb").is_file()
    with pytest.raises(SystemExit, match="stash"):  # uncommitted work in the clone is never overwritten
        course.publish_to_clone(clone, _config())
    _git(clone, "add", "--all")
    _git(clone, "commit", "-qm", "release 01")
    course.publish_to_clone(clone, _config())  # nothing new: no change
    assert "no changes" in capsys.readouterr().out


def test_make_publish_lists_a_first_release_and_refuses_a_clone_on_another_branch(tmp_path, capsys):
    """An empty public repository, just cloned: every file is new, and git diff alone would show nothing."""
    empty = tmp_path / "empty"
    empty.mkdir()
    _git(empty, "init", "-q")
    course.publish_to_clone(empty, _config())
    shown = capsys.readouterr().out
    files = sorted(str(p.relative_to(empty)) for p in empty.rglob("*") if p.is_file() and ".git" not in p.parts)
    assert files and all(f"?? {f}\n" in shown and re.search(rf" {re.escape(f)} +\| +\d+ \+", shown) for f in files), shown
    assert f"{len(files)} files changed" in shown and not _git(empty, "diff", "--cached", "--name-only")
    on_master = _clone(tmp_path / "master")
    _git(on_master, "branch", "-m", "master")
    with pytest.raises(SystemExit) as refused:
        course.publish_to_clone(on_master, _config(branch="main"))
    assert str(refused.value) == (f"make publish: {on_master} is on branch master, but course.yml says branch: main (every "
                                  f"notebook's Colab links open that branch): git -C {on_master} switch main, or set branch: "
                                  "in course.yml and make course again.")
    assert (on_master / "gone.txt").exists(), "the clone was touched"


def test_make_publish_refuses_a_folder_that_is_not_a_clone_or_is_this_repository(tmp_path):
    (tmp_path / "plain").mkdir()
    with pytest.raises(SystemExit, match="not the top folder of a git clone"):
        course.publish_to_clone(tmp_path / "plain", _config())
    with pytest.raises(SystemExit, match="development repository"):
        course.publish_to_clone(ROOT, _config())
    copy = _clone(tmp_path / "copy")
    (copy / "units").mkdir()
    with pytest.raises(SystemExit, match="development repository"):
        course.publish_to_clone(copy, _config())


def _master_with(tmp_path, name: str, edit) -> Path:
    """A copy of a master (same file name) with ``edit(cell source) -> source`` applied to every cell."""
    nb = nbformat.read(course.master_path(name), as_version=4)
    for cell in nb.cells:
        cell.source = edit(cell.source)
    path = tmp_path / name / f"{name}.ipynb"
    path.parent.mkdir(exist_ok=True)
    nbformat.write(nb, path)
    return path


@pytest.mark.parametrize("name, old, new, message", [
    ("01_rnn_lstm", "name: q1_rnn_cell\npoints: 2", "name: q1_rnn_cell\npoints: 1.5",
     "01_rnn_lstm: question q1_rnn_cell: its checks state 1.8 points (hidden checks 1.8), more than the question's 1.5"),
    ("01_rnn_lstm", "hidden: true\npoints: 0.5\n\"\"\" # END TEST CONFIG\nchecks.q1_rnn_cell_1", "hidden: true\n\"\"\" # END TEST CONFIG\nchecks.q1_rnn_cell_1",
     "01_rnn_lstm: question q1_rnn_cell: its check 5 is hidden and states no points"),
    ("01_rnn_lstm", "name: q2_rnn\npoints: 2", "name: q2_rnn\npoints: two", "01_rnn_lstm: question q2_rnn: points must be a positive number"),
    ("02_seq2seq", "name: q1_encoder\npoints: 2", "name: q1_encoder\npoints: 3",
     "02_seq2seq: question q1_encoder: its checks add up to 2 points, not the question's 3"),
])
def test_invalid_points_stop_the_build_with_one_line_naming_the_question(tmp_path, name, old, new, message):
    master = _master_with(tmp_path, name, lambda source: source.replace(old, new))
    with pytest.raises(SystemExit) as stopped:
        course.assign(master, tmp_path / "dist", tmp_path / "notebooks", _config())
    assert str(stopped.value).startswith(message) and "\n" not in str(stopped.value), stopped.value
    assert not (tmp_path / "dist").exists(), "Otter ran"


def test_points_table_is_written_from_the_question_configs(tmp_path):
    for name in NOTEBOOKS:  # the committed student notebooks show each question's configured points
        nb = nbformat.read(ROOT / "notebooks" / name / f"{name}.ipynb", as_version=4)
        points = course.question_points(course.master_path(name))
        rows = [line for c in nb.cells if c.cell_type == "markdown" and course.POINTS_HEADER.search(c.source)
                for line in c.source.split("\n") if line.startswith("| `")]
        assert rows, f"{name}: no points table"
        for row in rows:
            cells = row.strip("|").split("|")
            assert cells[-1].strip() == " + ".join(f"{points[q]:g}" for q in __import__("re").findall(r"`(\w+)`", cells[0]))
    master = _master_with(tmp_path, "01_rnn_lstm", lambda s: s.replace("name: q1_rnn_cell\npoints: 2", "name: q1_rnn_cell\npoints: 3"))
    nb = nbformat.read(master, as_version=4)
    course.points_table(nb, course.question_points(master), "01_rnn_lstm")
    assert "| `q1_rnn_cell` | one step of an Elman RNN | 3 |" in nb.cells[1].source
    nb.cells[1].source = nb.cells[1].source.replace("| `q2_rnn` |", "| `q2_rnm` |")
    with pytest.raises(SystemExit, match="01_rnn_lstm: the points table's row `q2_rnm` names no question"):
        course.points_table(nb, course.question_points(master), "01_rnn_lstm")


def test_the_zip_installs_the_lock_file_and_nothing_the_grader_never_uses(course_build):
    lock = course.locked_requirements()
    with zipfile.ZipFile(course_build[NOTEBOOKS[0]].autograder_zip) as z:
        env, setup = yaml.safe_load(z.read("environment.yml")), z.read("setup.sh").decode()
    pip = next(d["pip"] for d in env["dependencies"] if isinstance(d, dict))
    assert pip == lock.splitlines() and pip[0] == course.CPU_TORCH_INDEX
    pins = dict(line.split("==") for line in pip[1:])
    assert all(v == metadata.version(k).split("+")[0] for k, v in pins.items()), "a pin is not the version this build used"
    for package in ("torch", "numpy", "spacy", "datasets", "sacrebleu", "tokenizers", "otter-grader", "matplotlib"):
        assert package in pins, package
    assert sum(line.startswith("otter-grader") for line in pip) == 1
    for unused in ("libgit2-dev", "texlive", "pandoc", "playwright", "nb_conda_kernels", "jq"):
        assert unused not in setup, unused
    assert "mamba env create -f /autograder/source/environment.yml" in setup and "useradd" in setup


def test_an_otter_option_the_grader_would_ignore_stops_the_build(tmp_path):
    master = _master_with(tmp_path, "01_rnn_lstm", lambda source: source.replace("generate:\n  pdf: false\n", "generate:\n  pdf: false\n  show_stdout: true\n"))
    with pytest.raises(SystemExit, match="01_rnn_lstm: generate: show_stdout in the ASSIGNMENT CONFIG would be ignored"):
        course.assign(master, tmp_path / "dist", tmp_path / "notebooks", _config())


def test_the_zip_says_when_hidden_checks_are_shown_and_which_cells_are_ignored(course_build):
    from grader import submission

    built = course_build[NOTEBOOKS[0]]
    settings = submission.settings(built.autograder_zip)
    assert settings["hidden_visibility"] == course.load_config()["hidden_visibility"] == "after_due_date"
    student = nbformat.read(built.student_dir / f"{NOTEBOOKS[0]}.ipynb", as_version=4)
    tagged = [c.source for c in student.cells if "otter_ignore" in c.metadata.get("tags", [])]
    assert tagged and settings["ignored_cells"] == tagged


def test_the_public_release_carries_the_terms_of_what_it_holds_and_the_data_notices(tmp_path):
    """LICENSE (MIT for the code, CC BY 4.0 for text and figures) with CC BY's legal code, data/README.md with the
    data sets' and models' terms, a README that names both, and CITATION.cff pointing at course.yml's repository."""
    public = tmp_path / "public"
    course.publish(ROOT / "notebooks", public, _config(repository="https://github.com/org/course"))
    licence = (public / "LICENSE").read_text()
    assert "MIT License" in licence and "CC BY 4.0" in licence and "seqcourse/" in licence, licence[:400]
    assert "Creative Commons Attribution 4.0 International Public License" in (public / "LICENSE-CC-BY-4.0.txt").read_text()
    data = (public / "data" / "README.md").read_text()
    for notice in ("## Third-party terms", "non-commercial", "WordNet 3.0 Copyright 2006 by Princeton University",
                   "Modified MIT License", "SmolLM2-135M", "Apache-2.0", "BSD-3-Clause"):
        assert notice in data, f"data/README.md of the public release lacks {notice!r}"
    readme = (public / "README.md").read_text()
    assert "[LICENSE](LICENSE)" in readme and "CC BY 4.0" in readme and "data/README.md" in readme
    for page in (public / "README.md", public / "data" / "README.md"):  # the links of the terms resolve in the release
        for target in re.findall(r"\]\((?![a-z]+:)([^)#\s]+)", page.read_text()):
            assert (page.parent / target).exists(), f"{page.relative_to(public)} links to {target}, which the release lacks"
    citation = yaml.safe_load((public / "CITATION.cff").read_text())
    assert citation["cff-version"] == "1.2.0" and citation["license"] == "MIT" and citation["authors"] and citation["message"]
    assert citation["repository-code"] == "https://github.com/org/course"


def _recording_assign(built: list):
    """A stand-in for course.assign that records the notebook and writes what a build writes, quickly: the committed
    student folder plus a file naming the master's hash (so an edit of the master changes the student folder)."""
    import hashlib
    import shutil

    def assign(master, dist, release, config, requirements=None):
        name = master.stem
        built.append(name)
        shutil.rmtree(release / name, ignore_errors=True)
        shutil.copytree(ROOT / "notebooks" / name, release / name)
        (release / name / "built-from.txt").write_text(hashlib.sha256(master.read_bytes()).hexdigest())
        (dist / name / "autograder").mkdir(parents=True, exist_ok=True)
        (dist / name / "autograder" / f"{name}.ipynb").write_bytes(master.read_bytes())
        (dist / f"{name}-autograder.zip").write_text(f"{name} {requirements}")
        return course.Built(name, release / name, dist / name / "autograder" / f"{name}.ipynb", dist / f"{name}-autograder.zip")
    return assign


def test_make_course_rebuilds_and_regrades_only_the_notebooks_whose_sources_changed(tmp_path, monkeypatch, capsys):
    import shutil

    units = tmp_path / "units"
    shutil.copytree(course.UNITS, units, ignore=shutil.ignore_patterns("__pycache__"))
    config, lock, built, graded = _config(), ["--extra-index-url x\ntorch==2.13.0\n"], [], []
    monkeypatch.setattr(course, "UNITS", units)
    monkeypatch.setattr(course, "load_config", lambda: config)
    monkeypatch.setattr(course, "locked_requirements", lambda: lock[0])
    monkeypatch.setattr(course, "assign", _recording_assign(built))
    monkeypatch.setattr(course, "check_build", lambda b: (graded.append(b.name), ([b.name, "1 / 1", "0 / 1", "1.0 / 1.0", "500"], []))[1])
    trial = tmp_path / "trial"

    def build(*args) -> tuple[list[str], list[str]]:
        built.clear(), graded.clear()
        assert course.main(["--out", str(trial), *args]) == 0
        return list(built), list(graded)

    assert build() == (NOTEBOOKS, NOTEBOOKS), "a build into a new folder has nothing to reuse"
    assert build() == ([], []), "nothing changed"
    shown = capsys.readouterr().out
    assert "02_seq2seq: up to date" in shown and f"Not graded again (their last grading above; nothing changed since): {', '.join(NOTEBOOKS)}" in shown
    config["published"] = "02_seq2seq"  # a release: the public folder only
    assert build() == ([], []) and (trial / "dist" / "public" / "notebooks" / "02_seq2seq").is_dir()
    master = units / "01_rnn_lstm" / "01_rnn_lstm.ipynb"
    nb = nbformat.read(master, as_version=4)
    for cell in nb.cells:
        cell.source = cell.source.replace("name: q1_rnn_cell\npoints: 2", "name: q1_rnn_cell\npoints: 3")
    nbformat.write(nb, master)
    (units / "04_transformer" / "checks.py").write_text((units / "04_transformer" / "checks.py").read_text() + "\n# edited\n")
    assert build() == (["01_rnn_lstm", "04_transformer"],) * 2
    shown = capsys.readouterr().out
    assert "Changed since the last build of" in shown and ": 01_rnn_lstm (the student notebook" in shown and "make publish again" in shown
    (trial / "dist" / "05_subwords-autograder.zip").unlink()  # outputs removed or changed since their build
    (trial / "notebooks" / "06_gpt" / "06_gpt.ipynb").write_text("{}")
    assert build() == (["05_subwords", "06_gpt"],) * 2
    config["hidden_visibility"] = "visible"  # a setting the zips hold
    assert build("--only", "03_attention", "--no-grade") == (["03_attention"], [])
    assert build("--only", "03_attention") == ([], ["03_attention"]), "built without grading: graded now"
    lock[0] += "numpy==2.0.0\n"
    assert build() == (NOTEBOOKS, NOTEBOOKS), "new package versions rebuild and regrade everything"


def test_the_lock_file_leaves_out_what_only_a_cuda_build_of_torch_needs(monkeypatch):
    """torch 2.14's CUDA wheel from PyPI requires cuda-bindings, cuda-toolkit (which pulls cuda-pathfinder),
    nvidia-* and triton: none of it is locked, so Gradescope's CPU image never installs them."""
    from importlib import metadata as md

    real = md.distribution

    class Torch:
        version = "2.14.1+cu130"
        requires = [*real("torch").requires, 'cuda-bindings==13.0.3; platform_system == "Linux"',
                    'cuda-toolkit[cublas,cudart]==13.0.2; platform_system == "Linux"',
                    'nvidia-cudnn-cu13==9.13.0.50; platform_system == "Linux"', 'triton==3.6.0; platform_system == "Linux"']

    def distribution(name):
        assert not course.CUDA_ONLY.fullmatch(name.lower()), f"the lock file followed {name}"
        return Torch() if name == "torch" else real(name)

    monkeypatch.setattr(md, "distribution", distribution)
    names = [line.split("==")[0] for line in course.locked_requirements().splitlines()[1:]]
    assert "torch==2.14.1" in course.locked_requirements() and not [n for n in names if course.CUDA_ONLY.fullmatch(n)]


def test_the_zips_conda_packages_are_pinned():
    """Otter's environment.yml asks conda for python=3.11, pip and jupyter_server, whatever is newest on the day of an
    upload; the zip's pins Python and pip to this build's and leaves jupyter_server to the lock file."""
    import platform
    from importlib import metadata as md

    otter = {"name": "otter-env", "channels": ["conda-forge"], "dependencies": [
        "python={}.{}".format(*sys.version_info[:2]), "pip", "jupyter_server", {"pip": ["otter-grader[grading,plugins]==7.0.0"]}]}
    lock = course.CPU_TORCH_INDEX + "\njupyter-server==2.0.0\ntorch==2.13.0\n"
    env = yaml.safe_load(course.environment_file(yaml.safe_dump(otter), lock))
    assert env["dependencies"] == [f"python={platform.python_version()}", f"pip={md.version('pip')}", {"pip": lock.splitlines()}]
    assert env["channels"] == ["conda-forge"] and env["name"] == "otter-env"
