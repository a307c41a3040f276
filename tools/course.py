"""Build the course: every unit in units/ (master notebook, checks module, stand-ins, mutants) -> student
release in notebooks/ and a Gradescope autograder zip in dist/, then grade the reference solutions and the unsolved student
notebooks with those zips, locally and without Docker (`otter run`).

    python tools/course.py [--only NAME ...] [--no-grade]

Exits non-zero if a build fails, a solution scores below 100 %, or an unsolved notebook earns any
autograded point.
"""

from __future__ import annotations

import argparse
import ast
import doctest
import hashlib
import pprint
import re
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import nbformat
import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from grader import checks, grade  # noqa: E402 - the grader package lives beside tools/

PACKAGE = "seqcourse"
UNITS = ROOT / "units"


def unit_names() -> list[str]:
    """The course's notebooks, in order: every folder units/NN_topic/ (the one place that lists them)."""
    return sorted(p.name for p in UNITS.glob("[0-9][0-9]_*") if (p / f"{p.name}.ipynb").is_file())


def master_path(name: str) -> Path:
    """A unit's master notebook (Otter Assign format): units/NAME/NAME.ipynb."""
    return UNITS / name / f"{name}.ipynb"


@dataclass
class Built:
    name: str
    student_dir: Path     # student release: notebook + public tests/
    solution_nb: Path     # solutions notebook produced by Otter (all tests; never give out)
    autograder_zip: Path  # Gradescope zip: hidden tests + the helper package


CONFIG = ROOT / "course.yml"
PUBLIC_FILES = ["pyproject.toml", "requirements.txt", "data/README.md"]


def load_config(path: Path = CONFIG) -> dict:
    """course.yml, with the URLs the build derives from its GitHub repository."""
    config = yaml.safe_load(path.read_text())
    m = re.fullmatch(r"https://github\.com/([\w.-]+)/([\w.-]+?)(?:\.git)?/?", str(config.get("repository")))
    if not m:
        raise SystemExit(f"{path.name}: repository must look like https://github.com/OWNER/NAME "
                         f"(Colab opens notebooks from GitHub), got {config.get('repository')!r}")
    repo, branch = f"{m[1]}/{m[2]}", config.get("branch", "main")
    config["raw_url"] = f"https://raw.githubusercontent.com/{repo}/{branch}/"
    config.setdefault("published", unit_names()[-1])
    if config["published"] not in unit_names():
        raise SystemExit(f"{path.name}: published must name a notebook of units/ ({', '.join(unit_names())}), "
                         f"got {config['published']!r}")
    config["colab_url"] = f"https://colab.research.google.com/github/{repo}/blob/{branch}/"
    return config


COLAB_NOTE = """\
**On Google Colab?** Run the next cell first: it installs the course's packages, its helper package and
this notebook's public tests (anywhere else it does nothing, and the autograder skips it). The notebook
asks Colab for a GPU runtime (Runtime → Change runtime type shows it); everything also runs on a CPU.

**Submitting from Colab:** `grader.export()` does not work there. Save, then use File → Download →
Download .ipynb, and upload that file."""

COLAB_CELL = """\
# Colab only (elsewhere this does nothing): installs the course's packages, helper package and public tests.
import importlib.util, urllib.request
if importlib.util.find_spec("google") and importlib.util.find_spec("google.colab"):
    exec(urllib.request.urlopen("{raw_url}colab_setup.py").read().decode()); colab_setup("{name}")"""

COLAB_SETUP = '''"""Run by the first cell of every course notebook on Colab (and only there): installs the pinned packages
and downloads the helper package, the notebook's public tests and a pristine copy of the notebook (Otter
reads its settings from the file) into the current folder."""
import os
import subprocess
import sys
import urllib.request

COURSE_URL = {raw_url!r}
PACKAGES = {pip!r}
FILES = {files!r}


def colab_setup(notebook: str) -> None:
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", *PACKAGES], check=True)
    for path in FILES["seqcourse"] + FILES[notebook]:
        local = path.removeprefix(f"notebooks/{{notebook}}/")
        os.makedirs(os.path.dirname(local) or ".", exist_ok=True)
        urllib.request.urlretrieve(COURSE_URL + path, local)
    print("Ready: helper package and public tests downloaded from", COURSE_URL)
'''


def add_colab_cells(student_nb: Path, config: dict) -> None:
    """Put the Colab note and setup cell (tagged otter_ignore: no grader runs it) first in a student
    notebook, and ask Colab for a GPU runtime in its metadata."""
    nb = nbformat.read(student_nb, as_version=4)
    code = nbformat.v4.new_code_cell(COLAB_CELL.format(raw_url=config["raw_url"], name=student_nb.stem))
    code.metadata["tags"] = ["otter_ignore"]
    nb.cells[:0] = [nbformat.v4.new_markdown_cell(COLAB_NOTE), code]
    nb.metadata["accelerator"] = "GPU"
    nb.metadata["colab"] = {"gpuType": "T4", "provenance": []}
    nbformat.write(nb, student_nb)


def answers_of(module: Path) -> str | None:
    """The notebook whose exercises a module of the helper package answers (``ANSWERS = "NN_topic"`` in it), or None."""
    for node in ast.parse(module.read_text()).body:
        if isinstance(node, ast.Assign) and [getattr(t, "id", None) for t in node.targets] == ["ANSWERS"]:
            return ast.literal_eval(node.value)
    return None


def helper_package(target: Path, notebook: str) -> Path:
    """The helper package as the students of ``notebook`` get it (in its autograder zip, and in the public
    repository while it is the newest notebook published): every module except those that answer an exercise
    of this notebook or a later one. Such a module comes with the notebooks after the one it answers."""
    target.mkdir(parents=True)
    for module in sorted((ROOT / PACKAGE).glob("*.py")):
        answered = answers_of(module)
        if answered is None or answered < notebook:
            shutil.copy(module, target / module.name)
    return target


def colab_setup_script(release: Path, package: Path, config: dict) -> str:
    """colab_setup.py of the public repository: what the Colab cell of every notebook downloads."""
    files = {PACKAGE: [f"{PACKAGE}/{p.name}" for p in sorted(package.glob("*.py"))]}
    for folder in sorted(p for p in release.iterdir() if p.is_dir()):
        files[folder.name] = [f"notebooks/{folder.name}/tests/{p.name}" for p in sorted((folder / "tests").glob("*.py"))]
        files[folder.name].append(f"notebooks/{folder.name}/{folder.name}.ipynb")
    return COLAB_SETUP.format(raw_url=config["raw_url"], pip=list(config["colab_pip"]), files=files)


def publish(release: Path, target: Path, config: dict) -> None:
    """Write the public student repository into ``target``: the notebooks published so far (course.yml's
    ``published``: the newest one) with their public tests, the helper package as that notebook's students
    get it (:func:`helper_package`) and what installs it, and a README with Colab links."""
    shutil.rmtree(target, ignore_errors=True)
    newest = config["published"]
    shutil.copytree(release, target / "notebooks", ignore=lambda folder, names: [
        n for n in names if n in ("__pycache__", ".ipynb_checkpoints") or (Path(folder) == release and n > newest)])
    helper_package(target / PACKAGE, newest)
    for f in PUBLIC_FILES:
        (target / f).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / f, target / f)
    rows = [f"| {nb.name} | [open in Colab]({config['colab_url']}notebooks/{nb.name}/{nb.name}.ipynb) |"
            for nb in sorted((target / "notebooks").iterdir()) if nb.is_dir()]
    (target / "README.md").write_text(STUDENT_README.format(table="\n".join(rows), repository=config["repository"]))
    (target / "colab_setup.py").write_text(colab_setup_script(target / "notebooks", target / PACKAGE, config))


STUDENT_README = """\
# Sequence models: the notebooks

| notebook | |
|---|---|
{table}

**On Colab:** open a notebook from the table, run its first cell, then work top to bottom;
`grader.check("q...")` runs a question's public checks. Submit the notebook with File → Download →
Download .ipynb.

**On your own machine** (Python 3.10 or later):

    git clone {repository} && cd $(basename {repository})
    pip install -r requirements.txt
    jupyter lab notebooks/

Each notebook folder holds the notebook and its public tests; keep them together. Submit the zip that
`grader.export()` writes at the end of the notebook (or the .ipynb itself).
"""


CPU_TORCH_INDEX = "--extra-index-url https://download.pytorch.org/whl/cpu"


def autograder_requirements() -> str:
    """requirements.txt for the grader: without the editable install of the helper package (the
    autograder zip carries the package itself, ``autograder_files``), and with PyTorch's CPU wheel index
    so that a grading machine never downloads CUDA packages (pip prefers ``torch==X+cpu`` from it)."""
    lines = (ROOT / "requirements.txt").read_text().splitlines()
    return "\n".join([CPU_TORCH_INDEX] + [l for l in lines if l.strip() and not l.startswith(("#", "-e"))]) + "\n"


def stable_cell_ids(path: Path) -> None:
    """Otter gives the cells it inserts random ids; derive every id from the cell's position and
    content instead, so that the same master always builds the same files."""
    nb = nbformat.read(path, as_version=4)
    for i, cell in enumerate(nb.cells):
        cell.id = hashlib.sha1(f"{i}\0{cell.cell_type}\0{cell.source}".encode()).hexdigest()[:8]
    nbformat.write(nb, path)


FIRST_FAILURE = "  # doctest: +REPORT_ONLY_FIRST_FAILURE"


def first_failure_only(code: str) -> str:
    """A check (one doctest) with every example marked REPORT_ONLY_FIRST_FAILURE. Otter's runner in the
    student's kernel (``grader.check``) then reports a check's first failing assertion and stays silent about
    the ones after it, which would name bugs the student does not have (the flag only takes effect when every
    example carries it). The trusted grader stops at a check's first failure itself (``checks.run_case``)."""
    out = []
    for ex in doctest.DocTestParser().get_examples(code):
        lines = ex.source.rstrip("\n").split("\n")
        if FIRST_FAILURE not in lines[-1]:
            lines[-1] += FIRST_FAILURE  # the last line of a complete statement never ends inside a string
        out.append("".join([">>> " + lines[0] + "\n"] + ["... " + line + "\n" for line in lines[1:]]) + ex.want)
    return "".join(out)


def first_failure_tests(text: str) -> str:
    """An OK-format test file (as Otter writes it) with :func:`first_failure_only` applied to every case."""
    spec: dict = {}
    exec(text, spec)  # our own build output (trusted)
    test = spec["test"]
    for suite in test["suites"]:
        for case in suite["cases"]:
            case["code"] = first_failure_only(case["code"])
    return "OK_FORMAT = True\n\ntest = " + pprint.pformat(test, indent=4, width=200) + "\n"


def master_cells(master: Path) -> list[tuple[str | None, str | None, nbformat.NotebookNode]]:
    """Every cell of a master with the question it belongs to (or None) and the block it is in (``SOLUTION``,
    ``TESTS``, ``PROMPT``... or None), read from Otter Assign's raw marker cells (which are left out). The one
    reader of the master format."""
    cells, question, block = [], None, None
    for cell in nbformat.read(master, as_version=4).cells:
        if cell.cell_type == "raw":
            lines = cell.source.strip().splitlines()
            marker = lines[0].strip() if lines else ""
            if marker == "# BEGIN QUESTION":
                question = yaml.safe_load(cell.source.split("\n", 1)[1])["name"]
            elif marker == "# END QUESTION":
                question = None
            elif marker.startswith("# BEGIN "):
                block = marker.split()[2]
            elif marker.startswith("# END "):
                block = None
            continue
        cells.append((question, block, cell))
    return cells


def graded_cells(master: Path) -> list[tuple[str | None, bool, str]]:
    """The code an autograder executes from a master: every code cell outside test blocks and not tagged
    ``otter_ignore``, in order, as (question or None, is a solution cell, source)."""
    return [(q, block == "SOLUTION", c.source) for q, block, c in master_cells(master)
            if c.cell_type == "code" and block != "TESTS" and "otter_ignore" not in c.metadata.get("tags", [])]


def check_cells(master: Path) -> list[tuple[str, bool, str]]:
    """The checks of a master, in order, as (question, hidden, source)."""
    return [(q, hidden_check(c.source), c.source) for q, block, c in master_cells(master)
            if c.cell_type == "code" and block == "TESTS"]


def _literal(source: str) -> str:
    """``source`` as a raw string literal that reads back exactly."""
    for quote in ('"""', "'''"):
        if quote not in source and not source.endswith("\\"):
            return f"r{quote}\n{source}{quote}"
    return repr(source)


def resolve_standins(nb, unit: Path) -> None:
    """Replace every ``standin("NAME")`` in the test cells of a master (an nbformat node) with the source it stands
    for, from the unit's standins.py (``seqcourse.testing.standin``): what students get carries the stand-ins'
    source and never reads a file, while the unit defines each stand-in once."""
    from seqcourse.testing import standin

    for cell in nb.cells:
        if cell.cell_type != "code" or "standin(" not in cell.source:
            continue
        tree, edits = ast.parse(cell.source), []
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "standin":
                (arg,) = node.args
                edits.append((node.lineno, node.col_offset, node.end_lineno, node.end_col_offset,
                              _literal(standin(arg.value, unit / "standins.py"))))
        lines = cell.source.split("\n")
        for l0, c0, l1, c1, text in sorted(edits, reverse=True):  # ast offsets count UTF-8 bytes
            first, last = lines[l0 - 1].encode(), lines[l1 - 1].encode()
            lines[l0 - 1:l1] = (first[:c0].decode() + text + last[c1:].decode()).split("\n")
        cell.source = "\n".join(lines)


def runnable_master(name: str):
    """A master as a plain run executes it (tools/results.py, the tests): hidden checks left out (they run only on
    the grader's side), stand-ins resolved."""
    nb = nbformat.read(master_path(name), as_version=4)
    nb.cells = [c for c in nb.cells if not (c.cell_type == "code" and hidden_check(c.source))]
    resolve_standins(nb, master_path(name).parent)
    return nb


def hidden_check(source: str) -> bool:
    """Whether a master's code cell is a hidden check (they run only on the grader's side: they use the
    sandbox and static rules, so a plain run of a master leaves them out)."""
    head = source.lstrip().split("# END TEST CONFIG", 1)[0]
    return source.lstrip().startswith("# HIDDEN") or ("# BEGIN TEST CONFIG" in head and "hidden: true" in head)


RUN_AUTOGRADER = """\
#!/usr/bin/env bash
# The course's trusted grader (the grader package): the submission runs as the unprivileged user `sandbox`
# (or in bubblewrap where the container allows namespaces); checks and scores are computed here, as root.
export PATH=/root/miniforge3/bin:$PATH
eval "$(mamba shell hook --shell bash)"
mamba activate otter-env
chmod -R go-rwx /autograder/source /autograder/submission /autograder/results 2>/dev/null || true
cd /autograder/source && python -m grader --gradescope
"""
SETUP_SANDBOX = """
# The course's sandbox: a dedicated unprivileged user runs student code; it may traverse /root to reach
# the Python environment but can read nothing of /autograder (run_autograder makes it root-only).
apt-get install -y bubblewrap || true
id -u sandbox >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin sandbox
chmod 711 /root
"""


def make_autograder(source: Path, target: Path, unit: Path) -> None:
    """Gradescope zip from Otter's: same environment and tests, but graded by the course's trusted grader
    (the ``grader/`` package) instead of Otter's in-kernel runner, with the unit's checks module and
    stand-ins (``unit/``), and a setup script that creates the sandbox user."""
    with zipfile.ZipFile(source) as src, zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as dst:
        for item in src.infolist():
            data = src.read(item)
            if item.filename == "run_otter.py":
                continue
            if re.fullmatch(r"tests/[^/]+\.py", item.filename):
                data = first_failure_tests(data.decode()).encode()
            elif item.filename == "run_autograder":
                data = RUN_AUTOGRADER.encode()
            elif item.filename == "setup.sh":
                data = data.rstrip(b"\n") + b"\n" + SETUP_SANDBOX.encode()
            dst.writestr(item, data)
        for f in sorted((ROOT / "grader").glob("*.py")):
            dst.write(f, f"grader/{f.name}")
        for f in checks.UNIT_FILES:
            dst.write(unit / f, f"unit/{f}")


def assign(master: Path, dist: Path, release: Path, config: dict) -> Built:
    """Run Otter Assign on ``master`` in a staging folder (Otter only copies files from beside the
    master), write ``dist/NAME/`` and ``dist/NAME-autograder.zip``, and replace ``release/NAME/``
    with the student folder."""
    name = master.stem
    out = dist / name
    with tempfile.TemporaryDirectory(prefix=f"assign-{name}-") as tmp:
        stage = Path(tmp)
        staged = nbformat.read(master, as_version=4)
        resolve_standins(staged, master.parent)
        nbformat.write(staged, stage / master.name)
        helper_package(stage / PACKAGE, name)
        (stage / "requirements.txt").write_text(autograder_requirements())
        proc = subprocess.run([sys.executable, "-m", "otter", "assign", master.name, "out"],
                              cwd=stage, capture_output=True, text=True)
        if proc.returncode != 0:
            raise RuntimeError(f"otter assign failed for {master}:\n{proc.stdout}\n{proc.stderr}")
        add_colab_cells(stage / "out" / "student" / master.name, config)
        for test_file in (stage / "out" / "student" / "tests").glob("*.py"):
            test_file.write_text(first_failure_tests(test_file.read_text()))
        for nb in (stage / "out").glob("*/*.ipynb"):
            stable_cell_ids(nb)
        shutil.rmtree(out, ignore_errors=True)
        shutil.copytree(stage / "out", out, ignore=shutil.ignore_patterns("__pycache__"))
    (zip_path,) = (out / "autograder").glob(f"{name}-autograder_*.zip")
    final_zip = dist / f"{name}-autograder.zip"
    make_autograder(zip_path, final_zip, master.parent)
    zip_path.unlink()
    target = release / name
    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(out / "student", target)
    return Built(name, target, out / "autograder" / f"{name}.ipynb", final_zip)


def check_build(built: Built) -> tuple[list[str], list[str]]:
    """Grade the solution and the unsolved student notebook. Returns (table row, problems)."""
    points = grade.question_points(built.autograder_zip)
    with ThreadPoolExecutor(2) as pool:  # one thread each: imports dominate a grading
        sol, stu = pool.map(lambda nb: grade.grade_one(nb, built.autograder_zip),
                            [built.solution_nb, built.student_dir / f"{built.name}.ipynb"])
    problems = [f"{built.name}: {who} could not be graded: {g.error}" for who, g in (("the solution", sol), ("the unsolved notebook", stu))
                if g.error]
    problems += [f"{built.name}: solution scores {sol.scores.get(q, 0):g}/{p:g} on {q}" for q, p in points.items()
                 if sol.scores.get(q, 0) < p]
    problems += [f"{built.name}: the unsolved notebook earns {s:g} on {q}" for q, s in stu.scores.items() if s > 0]
    total = sum(points.values())
    row = [built.name, f"{sol.total:g} / {total:g}", f"{stu.total:g} / {total:g}", f"{sol.seconds:.1f} / {stu.seconds:.1f}",
           f"{max(sol.peak_mb, stu.peak_mb):.0f}"]
    return row, problems


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", nargs="*", help="build only these notebooks (e.g. 01_rnn_lstm)")
    parser.add_argument("--no-grade", action="store_true", help="build without grading")
    args = parser.parse_args(argv)

    masters = [master_path(n) for n in unit_names() if not args.only or n in args.only]
    config = load_config()
    rows, problems = [], []
    for master in masters:
        start = time.perf_counter()
        built = assign(master, ROOT / "dist", ROOT / "notebooks", config)
        print(f"built {built.name} in {time.perf_counter() - start:.1f} s -> {built.student_dir.relative_to(ROOT)}, "
              f"{built.autograder_zip.relative_to(ROOT)}", flush=True)
        if not args.no_grade:
            row, found = check_build(built)
            rows.append(row)
            problems += found
    publish(ROOT / "notebooks", ROOT / "dist" / "public", config)
    print(f"wrote dist/public/ (notebooks up to {config['published']}): push it to", config["repository"])
    if rows:
        header = ["notebook", "solution", "unsolved", "seconds per grading (solution / unsolved)", "peak MB"]
        widths = [max(len(r[i]) for r in rows + [header]) for i in range(len(header))]
        for r in [header] + rows:
            print("  ".join(c.ljust(w) for c, w in zip(r, widths)))
    for p in problems:
        print("FAIL:", p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
