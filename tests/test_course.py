"""The course build: reproducible, committed release up to date, solutions 100 %, unsolved 0."""

from __future__ import annotations

import filecmp
import json
import os
import re
import shutil
import subprocess
import sys
import zipfile

import nbformat
import pytest
import yaml

import course
from conftest import ROOT

NOTEBOOKS = course.unit_names()


def _tree(path):
    return sorted(str(p.relative_to(path)) for p in path.rglob("*") if p.is_file() and "__pycache__" not in p.parts)


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_committed_release_matches_a_fresh_build(course_build, name):
    fresh, committed = course_build[name].student_dir, ROOT / "notebooks" / name
    assert _tree(fresh) == _tree(committed), f"notebooks/{name} is stale: run `make course` and commit"
    for rel in _tree(fresh):
        assert filecmp.cmp(fresh / rel, committed / rel, shallow=False), \
            f"notebooks/{name}/{rel} is stale against units/{name}/{name}.ipynb: run `make course` and commit"


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_student_release_has_no_solutions_or_hidden_tests(course_build, name):
    built = course_build[name]
    nb = nbformat.read(built.student_dir / f"{name}.ipynb", as_version=4)
    text = "\n".join(c.source for c in nb.cells)
    assert "BEGIN SOLUTION" not in text and "END SOLUTION" not in text
    assert all(not c.get("outputs") for c in nb.cells if c.cell_type == "code")
    assert nb.metadata["otter"]["assignment_name"] == name
    public = "".join((built.student_dir / "tests" / f).read_text() for f in os.listdir(built.student_dir / "tests"))
    with zipfile.ZipFile(built.autograder_zip) as z:
        hidden = "".join(z.read(n).decode() for n in z.namelist() if n.startswith("tests/"))
    assert "'hidden': True" in hidden and "'hidden': True" not in public
    for _, is_solution, src in course.graded_cells(course.master_path(name)):
        if is_solution:
            body = src.split("# BEGIN SOLUTION", 1)[1].split("# END SOLUTION", 1)[0]
            for line in filter(lambda l: len(l.strip()) > 20, body.splitlines()):
                assert line.strip() not in text, f"solution line leaked to students: {line.strip()}"


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_autograder_zip_carries_the_helper_package_and_no_editable_install(course_build, name):
    with zipfile.ZipFile(course_build[name].autograder_zip) as z:
        names = z.namelist()
        env = z.read("environment.yml").decode()
        config = json.loads(z.read("otter_config.json"))
    assert "files/seqcourse/__init__.py" in names and "files/seqcourse/data.py" in names
    assert "-e ." not in env and "otter-grader" in env and "python=3.11" in env
    pip = next(d["pip"] for d in yaml.safe_load(env)["dependencies"] if isinstance(d, dict))
    assert "--extra-index-url https://download.pytorch.org/whl/cpu" in pip, "Gradescope would install CUDA wheels"
    assert any(r.startswith("torch") for r in pip)
    assert config["assignment_name"] == name and config.get("pdf") is False


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_solution_scores_full_marks_and_unsolved_notebook_scores_zero(course_build, name):
    row, problems = course.check_build(course_build[name])
    assert not problems, "\n".join(problems)
    solution_seconds, unsolved_seconds = map(float, row[3].split(" / "))
    assert max(solution_seconds, unsolved_seconds) < 90, f"grading one submission took {row[3]} s"


def test_gradescope_zip_runs_the_trusted_grader(course_build, tmp_path):
    """The zip grades with the grader package (not Otter's in-kernel runner) and its setup makes the sandbox
    user; run as Gradescope does (folder layout, run_autograder's last command), it writes results.json."""
    built = course_build[NOTEBOOKS[0]]
    with zipfile.ZipFile(built.autograder_zip) as z:
        names = set(z.namelist())
        run = z.read("run_autograder").decode()
        setup = z.read("setup.sh").decode()
        z.extractall(tmp_path / "source")
    package = {f"grader/{p.name}" for p in (ROOT / "grader").glob("*.py")}
    assert package <= names and {"unit/checks.py", "unit/standins.py"} <= names and "run_otter.py" not in names
    assert "cd /autograder/source && python -m grader --gradescope" in run and "chmod -R go-rwx /autograder/source" in run
    assert "useradd" in setup and "sandbox" in setup
    (tmp_path / "submission").mkdir()
    shutil.copy(built.solution_nb, tmp_path / "submission" / f"{built.name}.ipynb")
    # the zip's own copy of the grader, from the folder Gradescope unpacks it into (nothing of this repository)
    subprocess.run([sys.executable, "-m", "grader", "--gradescope", str(tmp_path)], cwd=tmp_path / "source", check=True,
                   env={**os.environ, "PYTHONPATH": ""})
    results = json.loads((tmp_path / "results" / "results.json").read_text())
    assert results["score"] == sum(t["max_score"] for t in results["tests"]) == 15, results
    assert results["stdout_visibility"] == "hidden"
    assert all("passed" in t["output"] and "failed" not in t["output"] for t in results["tests"])


def test_public_repository_serves_every_notebook_to_colab_and_holds_nothing_hidden(course_build, tmp_path):
    config = {**course.load_config(), "published": NOTEBOOKS[-1], "answers_released": NOTEBOOKS[-2]}  # the last stage
    public = tmp_path / "public"
    course.publish([course_build[n] for n in NOTEBOOKS][0].student_dir.parent, public, config)
    script: dict = {}
    exec((public / "colab_setup.py").read_text(), script)
    assert script["COURSE_URL"] == config["raw_url"] and script["PACKAGES"] == config["colab_pip"]
    for name in NOTEBOOKS:
        nb = nbformat.read(public / "notebooks" / name / f"{name}.ipynb", as_version=4)
        note, setup, init = nb.cells[:3]
        assert "File → Download" in note.source and init.source.startswith("# Initialize Otter")
        assert setup.metadata["tags"] == ["otter_ignore"], "every grader must skip the Colab cell"
        assert nb.metadata["accelerator"] == "GPU" and nb.metadata["colab"]["gpuType"]
        assert f'{config["raw_url"]}colab_setup.py' in setup.source and f'colab_setup("{name}")' in setup.source
        assert len(setup.source.splitlines()) <= 4, "the Colab cell must stay a few lines"
        files = script["FILES"]["seqcourse"] + script["FILES"][name]
        assert all((public / f).is_file() for f in files), "the Colab setup downloads a file the repository lacks"
        assert {f.rsplit("/", 1)[1] for f in files if "/tests/" in f} == set(os.listdir(public / "notebooks" / name / "tests"))
        assert f"{config['colab_url']}notebooks/{name}/{name}.ipynb" in (public / "README.md").read_text()
    text = "\n".join(p.read_text() for p in public.rglob("*") if p.is_file())
    for secret in ("'hidden': True", "BEGIN SOLUTION", "BEGIN TEST CONFIG", "# HIDDEN"):
        assert secret not in text, f"the public repository contains {secret!r}"
    assert sorted(p.name for p in public.iterdir()) == ["CITATION.cff", "LICENSE", "LICENSE-CC-BY-4.0.txt", "README.md", "colab_setup.py",
                                                         "data", "notebooks", "pyproject.toml", "requirements.txt", "seqcourse"]


def test_course_config_must_name_a_github_repository(tmp_path):
    bad = tmp_path / "course.yml"
    bad.write_text("repository: https://gitlab.com/someone/course\n")
    with pytest.raises(SystemExit, match="github.com/OWNER/NAME"):
        course.load_config(bad)


TWO_BUGS = """>>> _out = answer()
>>> assert _out > 0, 'first: the answer must be positive'
>>> assert _out % 2 == 0, 'second: the answer must be even'
>>> assert _out == 4, 'third: the answer is 4'
"""


class _SeedOnly:
    """The part of the sandbox that ``checks.run_case`` uses when the check calls plain local code."""

    stopped = None

    def request(self, *args, **kwargs):
        return None


def test_a_failing_check_shows_only_its_first_failure_to_the_student_and_in_the_grades():
    from otter.test_files.ok_test import run_doctest

    from grader import checks

    ok, shown = run_doctest("q", course.first_failure_only(TWO_BUGS), {"answer": lambda: -1})
    errors = lambda text: re.findall(r"AssertionError: (\w+):", text)  # noqa: E731
    assert not ok and shown.count("Failed example") == 1 and errors(shown) == ["first"], \
        "a failing check printed messages about later assertions"
    ok, shown = run_doctest("q", course.first_failure_only(TWO_BUGS), {"answer": lambda: 3})
    assert not ok and errors(shown) == ["second"]
    assert run_doctest("q", course.first_failure_only(TWO_BUGS), {"answer": lambda: 4})[0]
    result = checks.run_case(_SeedOnly(), checks.Case("q", TWO_BUGS, False, 1.0), {"answer": lambda: -1})
    assert not result.passed and result.message == "first: the answer must be positive"


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_every_public_and_hidden_check_reports_only_its_first_failure(course_build, name):
    built = course_build[name]
    with zipfile.ZipFile(built.autograder_zip) as z:
        texts = {n: z.read(n).decode() for n in z.namelist() if re.fullmatch(r"tests/[^/]+\.py", n)}
    texts.update({p.name: p.read_text() for p in (built.student_dir / "tests").glob("*.py")})
    for file, text in texts.items():
        spec: dict = {}
        exec(text, spec)
        for case in spec["test"]["suites"][0]["cases"]:
            assert course.first_failure_only(case["code"]) == case["code"], f"{file}: a check without the flag"
