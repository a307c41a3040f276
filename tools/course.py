"""Build the course: every unit in units/ (master notebook, checks module, stand-ins, mutants) -> student
release in notebooks/ and a Gradescope autograder zip in dist/, then grade the reference solutions and the unsolved
student notebooks with those zips, locally and without Docker; then write the public release into dist/public/.

    python tools/course.py [--only NN_topic ...] [--no-grade] [--out DIR]   (make course [ONLY=.. NO_GRADE=1 TRIAL=..])
    python tools/course.py --publish CLONE                                  (make publish PUBLIC=CLONE)

--only 01_rnn_lstm builds one notebook (a minute or less with --no-grade); --out DIR writes notebooks/ and dist/
under DIR (DIR/notebooks/ starts as a copy of the committed release), leaving this repository alone.

Only what changed is rebuilt: a notebook is built and graded again unless dist/.build-hashes.json (:class:`Stamps`)
says that nothing it is built from changed (:func:`build_inputs`: its unit, grader/, seqcourse/, this file, the lock
file, course.yml's settings but published and answers_released) and that its outputs are as that build wrote them.
So raising ``published`` or ``answers_released`` rewrites dist/public/ alone. The build then says when a published
student folder changed since the last dist/public/ (a points change, a fix): make publish again.

Release (course.yml): ``published`` is the newest notebook students get (default: the first, 01_rnn_lstm);
``answers_released`` the newest notebook whose answers may reach them (default: none). A notebook's answers reach
students two ways: as given code of a later notebook (04 holds 03's beam search) and through the helper modules that
say ``ANSWERS = "NN_topic"`` (seqcourse/search.py answers 02, seqcourse/gpt.py 06). The build finds both (the
answers of each master, :func:`answers_in`, in each published student notebook, and the modules it imports,
:func:`modules_used`), refuses with one paragraph to publish a notebook that needs answers not released, ships a
helper module only once its notebook's answers are released, and prints what dist/public/ holds. Trade-off: a
notebook that builds on the previous one's answers (03, 04 and 05 do) can be published only after that notebook's
extensions and late days are over; 06, 07 and 08 need older answers only and can be published during them.
Publishing keeps history: dist/public/ and the clone of ``--publish`` are updated in place, their .git kept;
``--publish`` refuses a folder that is not a git clone, is this repository, is on another branch than course.yml's
``branch`` (the Colab links open that one) or holds uncommitted work, lists every changed and new file with git's
status and diff --stat, and commits and pushes nothing.

Points (checked before Otter runs; a problem stops the build with one line naming the notebook and the question):
a question states ``points`` (positive); an autograded question has hidden checks, and every hidden check states
its ``points`` in its TEST CONFIG; a public check may state its own (02's do). The public checks that state none
share equally what the stated points leave of the question's points (Otter's rule): so raising a question's
points raises exactly those public checks, and a public check that states its points keeps them. The stated
points may not exceed the question's (nor its float sum: Otter refuses), and where every check states its points
they must add up to the question's. The points column of the table of questions at the top of each notebook is
written from the question configs.

The tested image: dist/requirements-lock.txt pins every package requirements.txt needs, transitively, at the
versions of the environment that builds and grades (torch from PyTorch's CPU wheel index); it is each zip's
whole pip list. The zip's setup.sh is Otter's without R's libraries, LaTeX/pandoc, conda kernels and Playwright's
Chromium (:data:`SETUP_DROPPED`).

Exits non-zero if a build fails, a solution scores below 100 %, or an unsolved notebook earns any
autograded point.
"""

from __future__ import annotations

import argparse
import ast
import builtins
import doctest
import filecmp
import functools
import hashlib
import json
import os
import pprint
import re
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time
import zipfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import nbformat
import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from grader import checks, feedback, grade, submission  # noqa: E402 - the grader package lives beside tools/

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
PUBLIC_FILES = ["pyproject.toml", "requirements.txt", "data/README.md", "LICENSE", "LICENSE-CC-BY-4.0.txt"]  # with the terms of what it holds


def load_config(path: Path = CONFIG) -> dict:
    """course.yml, with the URLs the build derives from its GitHub repository, ``published`` (default: the first
    notebook) and ``answers_released`` (default: None, no notebook's answers) checked."""
    config = yaml.safe_load(path.read_text())
    m = re.fullmatch(r"https://github\.com/([\w.-]+)/([\w.-]+?)(?:\.git)?/?", str(config.get("repository")))
    if not m:
        raise SystemExit(f"{path.name}: repository must look like https://github.com/OWNER/NAME "
                         f"(Colab opens notebooks from GitHub), got {config.get('repository')!r}")
    repo, branch = f"{m[1]}/{m[2]}", config.get("branch", "main")
    config["raw_url"] = f"https://raw.githubusercontent.com/{repo}/{branch}/"
    config["colab_url"] = f"https://colab.research.google.com/github/{repo}/blob/{branch}/"
    names = unit_names()
    config.setdefault("published", names[0])
    if config.get("answers_released") in (None, "none", "None"):
        config["answers_released"] = None
    for key, value in (("published", config["published"]), ("answers_released", config["answers_released"] or names[0])):
        if value not in names:
            raise SystemExit(f"{path.name}: {key} must name a notebook of units/ ({', '.join(names)})"
                             f"{' or none' if key == 'answers_released' else ''}, got {value!r}")
    if (config["answers_released"] or "") > config["published"]:
        raise SystemExit(f"{path.name}: answers_released ({config['answers_released']}) is newer than published "
                         f"({config['published']}): answers of a notebook students do not have yet")
    config.setdefault("hidden_visibility", feedback.DEFAULT_HIDDEN)
    try:
        feedback.hidden_visibility(config)
    except ValueError as e:
        raise SystemExit(f"{path.name}: {str(e).removeprefix('grading.json: ')}") from None
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


OTTER_INIT = re.compile(r"""^grader = (otter\.Notebook\(["'][^"'\n]+["']\))$""", re.M)


def short_check_messages(student_nb: Path) -> None:
    """Otter's init cell of a student notebook with the course's short check messages (seqcourse/checking.py):
    ``grader = short_messages(otter.Notebook("NAME.ipynb"))``, so that ``grader.check`` prints one short message
    per failing check instead of Otter's doctest transcript (the grader identifies a notebook by the
    ``otter.Notebook("NAME.ipynb")`` it keeps)."""
    nb = nbformat.read(student_nb, as_version=4)
    (cell,) = [c for c in nb.cells if c.cell_type == "code" and OTTER_INIT.search(c.source)]
    cell.source = OTTER_INIT.sub(r"from seqcourse.checking import short_messages\ngrader = short_messages(\1)", cell.source)
    nbformat.write(nb, student_nb)


def answers_of(module: Path) -> str | None:
    """The notebook whose exercises a module of the helper package answers (``ANSWERS = "NN_topic"`` in it), or None."""
    for node in ast.parse(module.read_text()).body:
        if isinstance(node, ast.Assign) and [getattr(t, "id", None) for t in node.targets] == ["ANSWERS"]:
            return ast.literal_eval(node.value)
    return None


def helper_package(target: Path, notebook: str) -> Path:
    """The helper package as the students of ``notebook`` get it in its autograder zip: every module except
    those that answer an exercise of this notebook or a later one."""
    return _package(target, lambda answered: answered < notebook)


def _package(target: Path, ships) -> Path:
    """The helper package in ``target``: the modules without answers, and those whose notebook ``ships(notebook)``."""
    target.mkdir(parents=True)
    for module in sorted((ROOT / PACKAGE).glob("*.py")):
        answered = answers_of(module)
        if answered is None or ships(answered):
            shutil.copy(module, target / module.name)
    return target


def colab_setup_script(release: Path, package: Path, config: dict) -> str:
    """colab_setup.py of the public repository: what the Colab cell of every notebook downloads."""
    files = {PACKAGE: [f"{PACKAGE}/{p.name}" for p in sorted(package.glob("*.py"))]}
    for folder in sorted(p for p in release.iterdir() if p.is_dir()):
        files[folder.name] = [f"notebooks/{folder.name}/tests/{p.name}" for p in sorted((folder / "tests").glob("*.py"))]
        files[folder.name].append(f"notebooks/{folder.name}/{folder.name}.ipynb")
    return COLAB_SETUP.format(raw_url=config["raw_url"], pip=list(config["colab_pip"]), files=files)


# -- answers: where a notebook's answers appear (the build's release check and tests/test_leaks.py use the same) ----

MIN_LINE = 24
# lines that are an answer's and also the course's given interface, with the reason each reveals nothing
INTERFACE = {
    "log_probs, state = model.step(tokens, state)": "one step of the decoding interface that seqcourse/search.py documents "
                                                     "and notebook 03's text introduces; beam search (03) and greedy search make it",
}


def _normal(line: str) -> str:
    """A line without comments, indentation and runs of spaces (a '#' inside a string is kept: rare, harmless)."""
    code = re.sub(r"\s+#(?!.*[\"']).*$", "", line).strip()
    return re.sub(r"\s+", " ", code)


def solution_blocks(name: str) -> list[tuple[str, str]]:
    """The solution blocks of a master as (question, source text), dedented where they are inside a function. An
    answer is a solution block: the lines between ``# BEGIN SOLUTION`` and ``# END SOLUTION``, or a whole
    solution cell without such lines."""
    blocks = []
    for question, is_solution, src in graded_cells(master_path(name)):
        if is_solution:
            found = re.findall(r"^[ \t]*# BEGIN SOLUTION\n(.*?)^[ \t]*# END SOLUTION", src, flags=re.S | re.M)
            blocks += [(question, b) for b in found or [src]]
    return blocks


@functools.lru_cache(maxsize=None)
def answer_lines(name: str) -> dict[str, str]:
    """{line: question} of a master's answer lines of MIN_LINE characters or more (spaces and comments aside)."""
    return {line: q for q, block in solution_blocks(name) for line in map(_normal, block.splitlines())
            if len(line.replace(" ", "")) >= MIN_LINE and line not in INTERFACE}


class _Rename(ast.NodeTransformer):
    """Local names and arguments become v0, v1, ... in order of appearance; builtins, modules and attributes stay."""

    KEEP = set(dir(builtins)) | {"torch", "nn", "F", "math", "self", "cls"}

    def __init__(self):
        self.names: dict[str, str] = {}

    def _new(self, name: str) -> str:
        if name in self.KEEP:
            return name
        return self.names.setdefault(name, f"v{len(self.names)}")

    def visit_Name(self, node: ast.Name) -> ast.AST:
        return ast.copy_location(ast.Name(self._new(node.id), node.ctx), node)

    def visit_arg(self, node: ast.arg) -> ast.AST:
        return ast.copy_location(ast.arg(self._new(node.arg), None), node)

    def visit_Constant(self, node: ast.Constant) -> ast.AST:
        return ast.copy_location(ast.Constant("" if isinstance(node.value, str) else node.value), node)  # messages aside


def shape(body: list[ast.stmt]) -> str:
    """A statement list with its names replaced (:class:`_Rename`), docstrings and messages dropped."""
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str):
        body = body[1:]
    return ast.dump(_Rename().visit(ast.Module(body=list(body), type_ignores=[])), annotate_fields=False)


@functools.lru_cache(maxsize=None)
def answer_shapes(name: str) -> dict[str, str]:
    """{shape: question} of the solution blocks of at least two statements that parse on their own (function bodies)."""
    found = {}
    for question, block in solution_blocks(name):
        try:
            body = ast.parse(textwrap.dedent(block)).body
        except SyntaxError:
            continue
        if len(body) >= 2:
            found[shape(body)] = question
    return found


def function_shapes(source: str) -> list[tuple[str, str]]:
    """(name, shape of its body) of every function in Python source, at any depth."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    return [(n.name, shape(n.body)) for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]


def answers_in(text: str, answers_of: list[str], written: list[str] = ()) -> list[tuple[str, str, str]]:
    """The answers of the notebooks ``answers_of`` readable in ``text`` (Python source or notebook code), as
    (notebook, question, what was found), found two ways: any answer line verbatim (:func:`answer_lines`), or a
    function whose body is a solution block with its names changed (:func:`shape`), at any depth. What is also an
    answer of a notebook in ``written`` (earlier ones: the student has written it already, e.g. 06's pre-LN block
    repeats a line of 04's encoder layer) does not count."""
    lines = {_normal(line) for line in text.splitlines()}
    known_lines = set().union(*(answer_lines(n) for n in written))
    known_shapes = set().union(*(answer_shapes(n) for n in written))
    found = []
    for name in answers_of:
        found += [(name, q, f"a line of {name}'s solutions: {line}") for line, q in sorted(answer_lines(name).items())
                  if line in lines and line not in known_lines]
        shapes = answer_shapes(name)
        found += [(name, shapes[s], f"{fn}() has the body of a solution of {name}") for fn, s in function_shapes(text)
                  if s in shapes and s not in known_shapes]
    return found


def notebook_code(path: Path) -> str:
    """The code cells of a notebook, or a Python file's text."""
    if path.suffix == ".ipynb":
        return "\n".join(c.source for c in nbformat.read(path, as_version=4).cells if c.cell_type == "code")
    return path.read_text()


def modules_used(code: str) -> set[str]:
    """The helper package's modules that notebook code uses: imported, named as ``seqcourse.MODULE``, or through
    a name the package re-exports from it (``from seqcourse import greedy_search`` uses search.py)."""
    exported = {}
    for node in ast.parse((ROOT / PACKAGE / "__init__.py").read_text()).body:
        for n in ast.walk(node):
            if isinstance(n, ast.ImportFrom) and n.level == 1 and n.module:
                exported.update({a.asname or a.name: n.module for a in n.names})
    used = set(re.findall(rf"\b{PACKAGE}\.(\w+)", code))
    for names in re.findall(rf"from\s+{PACKAGE}\s+import\s+(\([^)]*\)|[^\n]*)", code):
        used.update(re.findall(r"\w+", re.sub(r"#[^\n]*", "", names)))
    return {m for m in used if (ROOT / PACKAGE / f"{m}.py").is_file()} | {exported[n] for n in used if n in exported}


@dataclass
class Release:
    """What a public release holds: the notebooks published (course.yml's ``published`` and those before it),
    for each the earlier notebooks whose answers its given code holds ({notebook: questions}) and the helper
    modules with answers it uses, and the helper package's modules (those answering a notebook whose answers are
    not released stay out: ``withheld``)."""
    published: str
    answers_released: str | None
    notebooks: list[str]
    given: dict[str, dict[str, set[str]]]
    uses: dict[str, dict[str, str]]     # notebook -> {module: the notebook it answers}
    modules: dict[str, str | None]      # every module of the package -> the notebook it answers, or None
    withheld: list[str]

    def problems(self) -> dict[str, str]:
        """{published notebook: what it holds or imports of answers not released}; empty: the release is safe."""
        found = {}
        for nb in self.notebooks:
            given = [f"{n}'s answer{'s' if len(qs) > 1 else ''} to {', '.join(sorted(qs))} as given code"
                     for n, qs in sorted(self.given[nb].items()) if not self.released(n)]
            used = [f"{PACKAGE}/{m} ({n}'s answers)" for m, n in sorted(self.uses[nb].items()) if not self.released(n)]
            if given or used:
                found[nb] = "; ".join(given + ([f"it imports {', '.join(used)}"] if used else []))
        return found

    def released(self, notebook: str) -> bool:
        return self.answers_released is not None and notebook <= self.answers_released

    def unreleased_needs(self) -> list[str]:
        """The notebooks whose answers the published notebooks need and course.yml does not release."""
        return sorted({n for nb in self.notebooks for n in [*self.given[nb], *self.uses[nb].values()] if not self.released(n)})


def release_of(release: Path, config: dict) -> Release:
    """The public release that ``config`` (course.yml) asks for, from the student release folder ``release``."""
    modules = {p.name: answers_of(p) for p in sorted((ROOT / PACKAGE).glob("*.py"))}
    notebooks = sorted(p.name for p in release.iterdir() if p.is_dir() and p.name in unit_names() and p.name <= config["published"])
    given, uses = {}, {}
    for nb in notebooks:
        code = notebook_code(release / nb / f"{nb}.ipynb")
        earlier = [n for n in unit_names() if n < nb]
        given[nb] = {}
        for n in earlier:  # an answer that repeats an earlier notebook's answer counts only there
            for _, q, _ in answers_in(code, [n], [m for m in earlier if m < n]):
                given[nb].setdefault(n, set()).add(q)
        uses[nb] = {f"{m}.py": modules[f"{m}.py"] for m in modules_used(code) if modules.get(f"{m}.py")}
    released = config["answers_released"]
    withheld = [m for m, n in modules.items() if n is not None and (released is None or n > released)]
    return Release(config["published"], released, notebooks, given, uses, modules, withheld)


def publish(release: Path, target: Path, config: dict) -> Release:
    """Write the public student repository into ``target``: the notebooks published so far (course.yml's
    ``published``: the newest one) with their public tests, the helper package without the modules whose
    notebook's answers are not released (course.yml's ``answers_released``), what installs it, and a README with
    Colab links. Refuses (SystemExit, nothing written) when a published notebook holds or imports answers that are
    not released. Everything in ``target`` but its ``.git`` is replaced (:func:`sync_tree`)."""
    plan = release_of(release, config)
    refuse_unsafe(plan, target)
    with tempfile.TemporaryDirectory(prefix="public-") as tmp:
        stage = Path(tmp)
        shutil.copytree(release, stage / "notebooks", ignore=lambda folder, names: [
            n for n in names if n in ("__pycache__", ".ipynb_checkpoints") or (Path(folder) == release and n not in plan.notebooks)])
        _package(stage / PACKAGE, plan.released)
        for f in PUBLIC_FILES:
            (stage / f).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(ROOT / f, stage / f)
        rows = [f"| {nb} | [open in Colab]({config['colab_url']}notebooks/{nb}/{nb}.ipynb) |" for nb in plan.notebooks]
        (stage / "README.md").write_text(STUDENT_README.format(table="\n".join(rows), repository=config["repository"]))
        (stage / "CITATION.cff").write_text(re.sub(r"(?m)^repository-code: .*$", f"repository-code: \"{config['repository']}\"", (ROOT / "CITATION.cff").read_text()))
        (stage / "colab_setup.py").write_text(colab_setup_script(stage / "notebooks", stage / PACKAGE, config))
        sync_tree(stage, target)
    return plan


def refuse_unsafe(plan: Release, target: Path) -> None:
    """Stop (SystemExit, one paragraph) when a published notebook holds or imports answers that are not released."""
    problems = plan.problems()
    if problems:
        needs, first = plan.unreleased_needs(), min(problems)
        safe = [n for n in plan.notebooks if n < first]
        raise SystemExit(
            f"Not published: course.yml's published: {plan.published} would give students answers that are not released "
            f"(answers_released: {plan.answers_released or 'none'}): " + "; ".join(f"{nb} holds {p}" for nb, p in problems.items())
            + f". A public push cannot be taken back. Once every extension and late day of {' and '.join(needs)} is over, set "
            f"answers_released: {needs[-1]} in course.yml" + (f"; until then keep published: {safe[-1]}" if safe else "")
            + f". Nothing was written to {target}.")


def describe(plan: Release, where: str) -> str:
    """What a public release holds, for the instructor: notebooks, answers in their given code, helper modules."""
    lines = [f"{where} now holds (course.yml: published: {plan.published}, answers_released: {plan.answers_released or 'none'}):",
             f"  notebooks: {', '.join(plan.notebooks)}"]
    for nb in plan.notebooks:
        parts = [f"{n}'s answers ({', '.join(sorted(qs))}) as given code" for n, qs in sorted(plan.given[nb].items())]
        parts += [f"{PACKAGE}/{m} ({n}'s answers)" for m, n in sorted(plan.uses[nb].items())]
        if parts:
            lines.append(f"    {nb} uses " + "; ".join(parts))
    shipped = [m if n is None else f"{m} (answers of {n})" for m, n in plan.modules.items() if m not in plan.withheld]
    lines.append(f"  {PACKAGE}/: {', '.join(shipped)}")
    if plan.withheld:
        lines.append("  withheld until answers_released reaches their notebook: "
                     + ", ".join(f"{m} ({plan.modules[m]})" for m in plan.withheld))
    return "\n".join(lines)


def sync_tree(source: Path, target: Path) -> None:
    """Make ``target`` hold exactly what ``source`` holds, leaving ``target/.git`` alone (a clone of the public
    repository keeps its history): files that differ are replaced, files and folders ``source`` lacks removed."""
    target.mkdir(parents=True, exist_ok=True)
    for path in sorted(target.iterdir()):
        if path.name == ".git":
            continue
        twin = source / path.name
        if path.is_dir() and not path.is_symlink() and twin.is_dir():
            sync_tree(twin, path)
        elif not (path.is_file() and twin.is_file() and filecmp.cmp(path, twin, shallow=False)):
            shutil.rmtree(path) if path.is_dir() and not path.is_symlink() else path.unlink()
    for path in sorted(source.iterdir()):
        if not (target / path.name).exists():
            (shutil.copytree if path.is_dir() else shutil.copy2)(path, target / path.name)


def git(repo: Path, *args: str) -> str:
    """git's output in ``repo``; it never writes to the repository (no optional locks: status refreshes no index)."""
    return subprocess.run(["git", "--no-optional-locks", "-C", str(repo), *args], capture_output=True, text=True, check=True).stdout


def publish_to_clone(clone: Path, config: dict) -> None:
    """``make publish PUBLIC=clone``: write the public release (:func:`publish`, from the student release in
    notebooks/) into a clone of the public repository, keep its ``.git``, show what changed, and print the
    commands that commit and push it (nothing is committed or pushed here)."""
    clone = clone.resolve()
    top = subprocess.run(["git", "-C", str(clone), "rev-parse", "--show-toplevel"], capture_output=True, text=True)
    if not clone.is_dir() or top.returncode != 0 or Path(top.stdout.strip()).resolve() != clone:
        raise SystemExit(f"make publish: PUBLIC={clone} is not the top folder of a git clone; clone the public "
                         f"repository first: git clone {config['repository']} {clone}")
    if clone == ROOT or (clone / "tools" / "course.py").exists() or (clone / "units").exists():
        raise SystemExit(f"make publish: PUBLIC={clone} is this development repository (or a clone of it, with the "
                         f"solutions): name a clone of the public repository {config['repository']}")
    branch = subprocess.run(["git", "-C", str(clone), "symbolic-ref", "--short", "-q", "HEAD"], capture_output=True, text=True).stdout.strip()
    if branch != config.get("branch", "main"):
        raise SystemExit(f"make publish: {clone} is on {f'branch {branch}' if branch else 'no branch'}, but course.yml says "
                         f"branch: {config.get('branch', 'main')} (every notebook's Colab links open that branch): git -C {clone} "
                         f"switch {config.get('branch', 'main')}, or set branch: in course.yml and make course again.")
    dirty = git(clone, "status", "--porcelain", "--ignored").splitlines()
    if dirty:
        raise SystemExit(f"make publish: {clone} holds what git has not committed ({', '.join(line[3:] for line in dirty[:5])}"
                         f"{', ...' if len(dirty) > 5 else ''}); make publish replaces everything in it but .git, so it "
                         f"touches nothing until they are committed or set aside (an earlier make publish's output you did not "
                         f"commit too): git -C {clone} stash -u --all, then run it again.")
    plan = publish(ROOT / "notebooks", clone, config)
    print(describe(plan, str(clone)))
    print(git(clone, "status", "--short", "--untracked-files=all") or "no changes", end="")
    print(changes_stat(clone), end="")
    print(f"Nothing is committed or pushed. Review every change, new files included:\n"
          f"  git -C {clone} add --all && git -C {clone} diff --cached\nthen commit and push:\n"
          f"  git -C {clone} commit -m 'Release up to {plan.published}' && git -C {clone} push")


def changes_stat(clone: Path) -> str:
    """``git diff --stat`` of the clone's work tree against its last commit, new files included (git diff alone leaves
    out files git does not track yet: a first release would look empty), computed in a temporary index so that the
    clone's own index stays as it was."""
    with tempfile.TemporaryDirectory(prefix="publish-index-") as tmp:
        env = {**os.environ, "GIT_INDEX_FILE": str(Path(tmp) / "index")}
        for args in (["add", "--all"], ["diff", "--cached", "--stat=100,80"]):
            out = subprocess.run(["git", "-C", str(clone), *args], capture_output=True, text=True, check=True, env=env).stdout
    return out


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
`grader.export()` writes at the end of the notebook (or the .ipynb itself). Upload one file per notebook: where
several are uploaded, the newest is graded (by the time in the zip's name, else the file's time), and the results
name the file graded.

Terms: the code is under the MIT License, the notebooks' text and figures under CC BY 4.0 ([LICENSE](LICENSE)); the
data sets and model weights the notebooks download keep their own ([data/README.md](data/README.md#third-party-terms)).
"""


CPU_TORCH_INDEX = "--extra-index-url https://download.pytorch.org/whl/cpu"
CUDA_ONLY = re.compile(r"nvidia-.*|cuda-.*|triton")  # what a CUDA build of torch pulls in and its CPU wheel does not


def locked_requirements() -> str:
    """The lock file (dist/requirements-lock.txt, and the pip list of every zip's environment.yml): PyTorch's CPU
    wheel index, then ``name==version`` of every package that requirements.txt needs (without the editable install
    of the helper package: the zip carries it), transitively, as installed in the environment that builds and
    grades the course. So Gradescope builds the image the build tested, not whatever is newest on the day of an
    upload. torch's local label (+cpu) is dropped: with the CPU index pip picks the +cpu wheel of that version,
    never a CUDA build; CUDA-only packages (nvidia-*, cuda-*, triton) are left out."""
    from importlib import metadata

    from packaging.markers import default_environment
    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name

    roots = [Requirement(line.split("#")[0]) for line in (ROOT / "requirements.txt").read_text().splitlines()
             if line.split("#")[0].strip() and not line.startswith("-")]
    todo, extras_seen, versions = roots, {}, {}
    while todo:
        req = todo.pop()
        key = canonicalize_name(req.name)
        if CUDA_ONLY.fullmatch(key) or (key in extras_seen and set(req.extras) <= extras_seen[key]):
            continue
        extras_seen[key] = extras_seen.get(key, set()) | set(req.extras)
        try:
            dist = metadata.distribution(req.name)
        except metadata.PackageNotFoundError:
            raise SystemExit(f"the lock file needs {req.name} (requirements.txt), which this environment lacks: "
                             f"pip install -r requirements.txt") from None
        versions[key] = dist.version.split("+")[0]
        for line in dist.requires or []:
            dep = Requirement(line)
            if dep.marker is None or any(dep.marker.evaluate({**default_environment(), "extra": e}) for e in req.extras or [""]):
                todo.append(dep)
    return "\n".join([CPU_TORCH_INDEX] + [f"{k}=={v}" for k, v in sorted(versions.items())]) + "\n"


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


def master_namespace(name: str) -> dict:
    """A master's graded code (:func:`graded_cells`: its reference solution, what the notebook's namespace holds when
    checks run) executed in a fresh namespace, which is returned."""
    ns: dict = {"__name__": f"master_{name}"}
    for _, _, source in graded_cells(master_path(name)):
        exec(compile(source, f"<{name}>", "exec"), ns)
    return ns


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


def question_configs(master: Path) -> dict[str, dict]:
    """{question: its ``# BEGIN QUESTION`` config (name, points, manual...)} of a master, in order."""
    return {c["name"]: c for c in (yaml.safe_load(cell.source.split("\n", 1)[1]) for cell in nbformat.read(master, as_version=4).cells
                                   if cell.cell_type == "raw" and cell.source.strip().startswith("# BEGIN QUESTION"))}


def check_config(source: str) -> dict:
    """The ``\"\"\" # BEGIN TEST CONFIG ... \"\"\" # END TEST CONFIG`` header of a check cell ({} without one)."""
    text = source.lstrip()
    if not text.startswith('""" # BEGIN TEST CONFIG'):
        return {}
    return yaml.safe_load(text.split("\n", 1)[1].split('""" # END TEST CONFIG', 1)[0]) or {}


def question_points(master: Path) -> dict[str, float]:
    """{question: points} of a master, checked against the points rule (module docstring); the build stops at the
    first problem with one line naming the notebook and the question, before Otter runs."""
    name, found, checks_of = master.stem, {}, {}
    for q, hidden, src in check_cells(master):
        checks_of.setdefault(q, []).append((hidden, check_config(src).get("points")))
    for q, config in question_configs(master).items():
        where, points, cases = f"{name}: question {q}", config.get("points"), checks_of.get(q, [])
        if isinstance(points, bool) or not isinstance(points, (int, float)) or points <= 0:
            raise SystemExit(f"{where}: points must be a positive number (its # BEGIN QUESTION cell), got {points!r}")
        if not config.get("manual") and not any(hidden for hidden, _ in cases):
            raise SystemExit(f"{where}: an autograded question needs at least one hidden check (or manual: true)")
        for i, (hidden, p) in enumerate(cases, 1):
            if p is None and hidden:
                raise SystemExit(f"{where}: its check {i} is hidden and states no points (points: in its TEST CONFIG)")
            if p is not None and (isinstance(p, bool) or not isinstance(p, (int, float)) or p < 0):
                raise SystemExit(f"{where}: its check {i} states points: {p!r}, not a number of 0 or more")
        stated = [p for _, p in cases if p is not None]
        hidden = sum(p for h, p in cases if h)
        if sum(stated) > points:  # Otter's own test, in floating point
            raise SystemExit(f"{where}: its checks state {sum(stated):.10g} points (hidden checks {hidden:g}), more than the "
                             f"question's {points:g}" + ("; their sum lies above it only in floating point: use values that add "
                                                         "up exactly (e.g. multiples of 0.25)" if sum(stated) - points < 1e-9 else ""))
        if cases and len(stated) == len(cases) and abs(sum(stated) - points) > 1e-9:
            raise SystemExit(f"{where}: its checks add up to {sum(stated):g} points, not the question's {points:g}: "
                             f"no answer could earn them all; make the question's points the sum of its checks'")
        found[q] = points
    return found


POINTS_HEADER = re.compile(r"\|\s*question\s*\|.*\|\s*points\s*\|\s*")


def points_table(nb, points: dict[str, float], name: str) -> None:
    """Fill the points column of a master's table of questions (a Markdown table whose header row starts with
    ``question`` and ends with ``points``; each row names its questions in backquotes: ``2 + 2`` for two) from the
    questions' configs, in an nbformat node. Every question needs a row; a row naming no question of the master
    stops the build."""
    seen = []
    for cell in nb.cells:
        lines = cell.source.split("\n") if cell.cell_type == "markdown" else []
        for header in [i for i, line in enumerate(lines) if POINTS_HEADER.fullmatch(line)]:
            for i in range(header + 2, len(lines)):
                if not lines[i].startswith("|"):
                    break
                row = lines[i].rstrip().rstrip("|").split("|")
                questions = re.findall(r"`(\w+)`", row[1])
                if not questions or set(questions) - set(points):
                    raise SystemExit(f"{name}: the points table's row {row[1].strip()} names no question of the master "
                                     f"({', '.join(points)})")
                seen += questions
                row[-1] = " " + " + ".join(f"{points[q]:g}" for q in questions) + " "
                lines[i] = "|".join(row) + "|"
        if lines:
            cell.source = "\n".join(lines)
    missing = [q for q in points if q not in seen]
    if seen and missing:
        raise SystemExit(f"{name}: the points table has no row for question {missing[0]} (the table in the first cells)")


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


# Lines of Otter 7's setup.sh that install what the course never uses (the build stops if one is no longer there:
# a new Otter's setup.sh must be read again): R's build libraries; LaTeX and pandoc for PDFs (every master sets
# pdf: false and the course's grader makes none; jq only tests for them); Jupyter kernels of conda environments
# and Playwright's Chromium (Otter's kernel and PDF export: the course's grader runs cells in-process).
SETUP_DROPPED = [
    (r"apt-get install -y wget jq build-essential libcurl4-gnutls-dev libxml2-dev libssl-dev libgit2-dev\n",
     "apt-get install -y wget build-essential\n"),
    (r"\n# install PDF generation dependencies if enabled\nif cat [^\n]*jq[^\n]*; then\n(?:[^\n]*\n)*?fi\n", ""),
    (r"mamba install -n otter-env -c conda-forge nb_conda_kernels\n", ""),
    (r"mamba run -n otter-env bash -c \"playwright install-deps && playwright install chromium\"\n", ""),
]


def setup_script(otter_setup: str) -> str:
    """setup.sh of the Gradescope zip: Otter's without what the course never uses (SETUP_DROPPED), then the sandbox."""
    for pattern, replacement in SETUP_DROPPED:
        otter_setup, n = re.subn(pattern, replacement, otter_setup)
        if n != 1:
            raise SystemExit(f"Otter's setup.sh no longer has {pattern!r}: read the new one and update tools/course.py SETUP_DROPPED")
    return otter_setup.rstrip("\n") + "\n" + SETUP_SANDBOX


def environment_file(otter_env: str, requirements: str) -> str:
    """environment.yml of the Gradescope zip: Otter's (conda-forge, its Python), with the lock file as its whole pip
    list (Otter's own line, otter-grader[grading,plugins], adds a second otter-grader and extras the grader never
    uses: Google Sheets plugins, PDF and kernel packages), and its conda packages pinned: Python at this build's
    version where the master asks for this build's minor version, pip at this environment's, and a package the lock
    file pins (Otter's jupyter_server) left to pip, which installs the locked version."""
    from importlib import metadata

    from packaging.utils import canonicalize_name

    env = yaml.safe_load(otter_env)
    locked = {canonicalize_name(line.split("==")[0]) for line in requirements.splitlines() if "==" in line}
    conda = []
    for dep in env["dependencies"]:
        if isinstance(dep, dict) and "pip" in dep:
            dep = {"pip": requirements.splitlines()}
        elif dep == "python={}.{}".format(*sys.version_info[:2]):
            dep = "python={}.{}.{}".format(*sys.version_info[:3])
        elif dep == "pip":
            dep = f"pip={metadata.version('pip')}"
        elif canonicalize_name(dep) in locked:
            continue
        conda.append(dep)
    env["dependencies"] = conda
    return yaml.safe_dump(env, sort_keys=False)


def make_autograder(source: Path, target: Path, unit: Path, requirements: str, settings: str) -> None:
    """Gradescope zip from Otter's: same tests, but graded by the course's trusted grader (the ``grader/`` package)
    instead of Otter's in-kernel runner, with the unit's checks module and stand-ins (``unit/``), the lock file as
    its pip list (:func:`environment_file`), and a setup script that installs only what the grader uses and creates
    the sandbox user (:func:`setup_script`), and ``settings``: the grader's ``grading.json`` (when students see hidden
    checks' results, the released notebook's ignored cells: grader.submission.settings_text)."""
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
                data = setup_script(data.decode()).encode()
            elif item.filename == "environment.yml":
                data = environment_file(data.decode(), requirements).encode()
            dst.writestr(item, data)
        for f in sorted((ROOT / "grader").glob("*.py")):
            dst.write(f, f"grader/{f.name}")
        for f in checks.UNIT_FILES:
            dst.write(unit / f, f"unit/{f}")
        dst.writestr(submission.SETTINGS, settings)


def unused_otter_options(master: Path) -> None:
    """Stop the build on options of the master's ``generate:`` block that Otter would write into the zip but that
    nothing reads: Gradescope runs the course's grader (grader/gradescope.py), not Otter's run_autograder, so only
    ``pdf: false`` (no PDF tooling in the image) applies; hidden checks' visibility is course.yml's hidden_visibility."""
    cell = next(c for c in nbformat.read(master, as_version=4).cells if c.source.startswith("# ASSIGNMENT CONFIG"))
    generate = (yaml.safe_load(cell.source) or {}).get("generate") or {}
    unused = sorted(k for k, v in generate.items() if (k, v) != ("pdf", False))
    if unused:
        raise SystemExit(f"{master.stem}: generate: {', '.join(unused)} in the ASSIGNMENT CONFIG would be ignored (the "
                         "zip runs the course's grader, not Otter's): remove it; course.yml's hidden_visibility says "
                         "when students see hidden checks")


def challenge_heldout(config: dict) -> Path | None:
    """course.yml's private held-out text for the class challenge (relative to this repository), or None: Multi30k's."""
    given = (config.get("challenge") or {}).get("heldout")
    if not given:
        return None
    path = Path(given).expanduser()
    path = path if path.is_absolute() else ROOT / path
    if not path.is_file():
        raise SystemExit(f"course.yml: challenge: heldout: {given} is not a file")
    return path


def assign(master: Path, dist: Path, release: Path, config: dict, requirements: str | None = None) -> Built:
    """Run Otter Assign on ``master`` in a staging folder (Otter only copies files from beside the
    master), write ``dist/NAME/`` and ``dist/NAME-autograder.zip``, and replace ``release/NAME/``
    with the student folder. The master's points are checked first (:func:`question_points`) and its points
    table filled in (:func:`points_table`); the zip installs ``requirements`` (default: :func:`locked_requirements`)."""
    requirements = requirements or locked_requirements()
    name = master.stem
    unused_otter_options(master)
    out = dist / name
    with tempfile.TemporaryDirectory(prefix=f"assign-{name}-") as tmp:
        stage = Path(tmp)
        staged = nbformat.read(master, as_version=4)
        points_table(staged, question_points(master), name)
        resolve_standins(staged, master.parent)
        nbformat.write(staged, stage / master.name)
        helper_package(stage / PACKAGE, name)
        (stage / "requirements.txt").write_text(requirements)
        proc = subprocess.run([sys.executable, "-m", "otter", "assign", master.name, "out"],
                              cwd=stage, capture_output=True, text=True)
        if proc.returncode != 0:
            raise RuntimeError(f"otter assign failed for {master}:\n{proc.stdout}\n{proc.stderr}")
        add_colab_cells(stage / "out" / "student" / master.name, config)
        short_check_messages(stage / "out" / "student" / master.name)
        for test_file in (stage / "out" / "student" / "tests").glob("*.py"):
            test_file.write_text(first_failure_tests(test_file.read_text()))
        for nb in (stage / "out").glob("*/*.ipynb"):
            stable_cell_ids(nb)
        shutil.rmtree(out, ignore_errors=True)
        shutil.copytree(stage / "out", out, ignore=shutil.ignore_patterns("__pycache__"))
    (zip_path,) = (out / "autograder").glob(f"{name}-autograder_*.zip")
    final_zip = dist / f"{name}-autograder.zip"
    settings = submission.settings_text(out / "student" / f"{name}.ipynb", config["hidden_visibility"])
    heldout = challenge_heldout(config) if (config.get("challenge") or {}).get("notebook") == name else False
    if heldout is not False:  # notebook 08's class challenge (grader/challenge.py): its settings, a private text
        settings = json.dumps({**json.loads(settings), "challenge": {
            "points": float(config["challenge"].get("points") or 0), "heldout": heldout and "challenge/heldout.txt"}}, indent=1)
    make_autograder(zip_path, final_zip, master.parent, requirements, settings)
    if heldout:
        with zipfile.ZipFile(final_zip, "a", zipfile.ZIP_DEFLATED) as z:
            z.write(heldout, "challenge/heldout.txt")
    zip_path.unlink()
    target = release / name
    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(out / "student", target)
    return Built(name, target, out / "autograder" / f"{name}.ipynb", final_zip)


# course.yml's settings that only choose what dist/public/ holds: changing them rebuilds no notebook
RELEASE_ONLY = ("published", "answers_released")


def tree_digest(paths: list[Path]) -> str:
    """sha256 of files and folders (every file in them but caches), by content and by path below each one's parent."""
    h = hashlib.sha256()
    for top in paths:
        files = [top] if top.is_file() else sorted(p for p in top.rglob("*") if p.is_file() and not
                                                   {"__pycache__", ".ipynb_checkpoints"} & set(p.parts))
        for f in files:
            h.update(f"{f.relative_to(top.parent)}\0{f.stat().st_size}\0".encode() + f.read_bytes())
    return h.hexdigest()


def build_inputs(name: str, config: dict, requirements: str) -> str:
    """A content hash of everything a notebook's build reads: its unit folder (master, checks, stand-ins, mutants),
    the grader and helper packages, this file, requirements.txt, pyproject.toml, the lock file (the versions the zip
    installs, Otter's among them), this Python, and course.yml's settings but those that only choose the public
    release (:data:`RELEASE_ONLY`)."""
    settings = {k: v for k, v in config.items() if k not in RELEASE_ONLY}
    paths = [master_path(name).parent, ROOT / "grader", ROOT / PACKAGE, Path(__file__).resolve(),
             ROOT / "requirements.txt", ROOT / "pyproject.toml", *filter(None, [challenge_heldout(config)])]
    extra = json.dumps([settings, requirements, sys.version], sort_keys=True, default=str)
    return hashlib.sha256(tree_digest(paths).encode() + extra.encode()).hexdigest()


class Stamps:
    """dist/.build-hashes.json: for each notebook built, the hash of what it was built from (:func:`build_inputs`),
    the hash of what the build wrote (student folder, dist/NAME/, the zip) and, once it passed, its row of the
    grading table. A notebook is rebuilt unless both hashes still match, so a build into a new folder (TRIAL=) has
    nothing to reuse, and outputs that were removed or changed since (a checkout of notebooks/) are rebuilt."""

    FILE = ".build-hashes.json"

    def __init__(self, dist: Path):
        self.dist, self.path = dist, dist / self.FILE
        try:
            self.entries = json.loads(self.path.read_text())
        except (OSError, ValueError):
            self.entries = {}

    def outputs(self, name: str, release: Path) -> list[Path]:
        return [release / name, self.dist / name, self.dist / f"{name}-autograder.zip"]

    def up_to_date(self, name: str, sources: str, release: Path) -> Built | None:
        """The notebook's last build when nothing it is built from changed and its outputs are as it wrote them."""
        entry, outputs = self.entries.get(name) or {}, self.outputs(name, release)
        if entry.get("sources") != sources or not all(p.exists() for p in outputs) or entry.get("outputs") != tree_digest(outputs):
            return None
        return Built(name, release / name, self.dist / name / "autograder" / f"{name}.ipynb", outputs[2])

    def graded(self, name: str) -> list[str] | None:
        return (self.entries.get(name) or {}).get("graded")

    def record(self, name: str, sources: str, release: Path, graded: list[str] | None = None) -> None:
        self.entries[name] = {"sources": sources, "outputs": tree_digest(self.outputs(name, release)), "graded": graded}
        self.path.write_text(json.dumps(self.entries, indent=1, sort_keys=True) + "\n")


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
    parser.add_argument("--only", nargs="+", metavar="NN_topic", choices=unit_names(),
                        help="build only these notebooks (e.g. 01_rnn_lstm); dist/public/ still holds every published one")
    parser.add_argument("--no-grade", action="store_true", help="build without grading the solutions and unsolved notebooks")
    parser.add_argument("--out", type=Path, default=ROOT, metavar="DIR",
                        help="write notebooks/ and dist/ under DIR instead of this repository (DIR/notebooks/ starts as a "
                             "copy of the committed release)")
    parser.add_argument("--publish", type=Path, metavar="CLONE",
                        help="build nothing: write the public release (from notebooks/ and course.yml) into CLONE, a git clone "
                             "of the public repository, and show what changed (make publish PUBLIC=CLONE)")
    args = parser.parse_args(argv)

    config = load_config()
    if args.publish:
        publish_to_clone(args.publish, config)
        return 0
    out = args.out.resolve()
    release, dist = out / "notebooks", out / "dist"
    if out != ROOT and not release.exists():
        shutil.copytree(ROOT / "notebooks", release)
    refuse_unsafe(release_of(release, config), dist / "public")  # at once, not after a long build; publish checks again
    dist.mkdir(parents=True, exist_ok=True)
    requirements = locked_requirements()
    (dist / "requirements-lock.txt").write_text(requirements)
    stamps = Stamps(dist)
    rows, problems, reused = [], [], []
    for name in args.only or unit_names():
        start, sources = time.perf_counter(), build_inputs(name, config, requirements)
        built = stamps.up_to_date(name, sources, release)
        if built:
            print(f"{name}: up to date (nothing it is built from changed since {built.autograder_zip} was built)", flush=True)
        else:
            built = assign(master_path(name), dist, release, config, requirements)
            stamps.record(name, sources, release)
            print(f"built {built.name} in {time.perf_counter() - start:.1f} s -> {built.student_dir}, {built.autograder_zip}", flush=True)
        if not args.no_grade:
            row = stamps.graded(name)
            if row is not None:
                reused.append(name)
            else:
                row, found = check_build(built)
                problems += found
                if not found:
                    stamps.record(name, sources, release, graded=row)
            rows.append(row)
    before = {p.name: tree_digest([p]) for p in (dist / "public" / "notebooks").glob("*") if p.is_dir()}
    plan = publish(release, dist / "public", config)
    print(describe(plan, f"{dist / 'public'}/"))
    changed = [nb for nb in plan.notebooks if nb in before and before[nb] != tree_digest([dist / "public" / "notebooks" / nb])]
    if changed:
        print(f"Changed since the last build of {dist / 'public'}/: {', '.join(changed)} (the student notebook or its public "
              "tests). Students get the new version only from the public repository: make publish again, and tell them.")
    print(f"The zips install {dist / 'requirements-lock.txt'} (the versions this build used). To publish: "
          f"make publish PUBLIC=path/to/a/clone/of/{config['repository'].rstrip('/').rsplit('/', 1)[-1]}")
    if rows:
        header = ["notebook", "solution", "unsolved", "seconds per grading (solution / unsolved)", "peak MB"]
        widths = [max(len(r[i]) for r in rows + [header]) for i in range(len(header))]
        for r in [header] + rows:
            print("  ".join(c.ljust(w) for c, w in zip(r, widths)))
        if reused:
            print(f"Not graded again (their last grading above; nothing changed since): {', '.join(reused)}")
    for p in problems:
        print("FAIL:", p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
