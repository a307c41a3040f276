"""Nothing a student receives contains an answer they are asked to write.

What students get: every notebook's public checks (``notebooks/*/tests/``), the student notebooks, the helper
package as it ships with each notebook in its autograder zip (``course.helper_package``; the public repository
ships a module once its notebook's answers are released) and the public repository itself (``dist/public/``, built here
for every stage of a course: ``published`` = each notebook in turn, ``answers_released`` the least it needs).

An answer is a solution block of a master (the lines between ``# BEGIN SOLUTION`` and ``# END SOLUTION``, or a
whole solution cell without such lines). Two ways of finding one (``course.answers_in``, which the build's release
check uses too):

- a line: any line of a solution block of 24 characters or more (spaces and comments aside), verbatim;
- a function: a function whose body is a solution block with its names changed (local names, arguments and
  the function's own name replaced by placeholders; attributes, constants and library calls kept), at any depth.

Which answers count where: public checks may hold none at all; a student notebook none of its own or a later
notebook's (given code may hold an earlier notebook's answer: its deadline has passed); the helper package that
ships with notebook N none of notebook N's or a later one's. A later notebook's answer that is also an earlier
one's (the student wrote it already) does not count. The public repository at each stage holds no answer of a
notebook whose answers course.yml's ``answers_released`` does not release.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

import course
from conftest import ROOT, resolve_string as _resolve

NOTEBOOKS = course.unit_names()
_Rename, _code = course._Rename, course.notebook_code


def solution_blocks(name: str) -> list[str]:
    return [block for _, block in course.solution_blocks(name)]


def leaks(text: str, answers_of: list[str], where: str, written: list[str] = ()) -> list[str]:
    """What of the answers of the notebooks ``answers_of`` is readable in ``text``, as messages (the build's own
    detector, ``course.answers_in``), except what is also an answer of a notebook in ``written``."""
    return [f"{where}: {found}" for _, _, found in course.answers_in(text, answers_of, written)]


def public_test_files(name: str) -> list[Path]:
    """A notebook's public checks as Otter writes them (the OK format keeps each check's code in a string)."""
    return sorted((ROOT / "notebooks" / name / "tests").glob("*.py"))


def _test_code(path: Path) -> str:
    spec: dict = {}
    exec(path.read_text(), spec)  # our own build output
    return "\n".join(case["code"].replace(">>> ", "").replace("... ", "") for suite in spec["test"]["suites"]
                     for case in suite["cases"])


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_public_checks_hold_no_answer_of_any_notebook(name):
    found = [l for p in public_test_files(name) for l in leaks(_test_code(p), NOTEBOOKS, f"notebooks/{name}/tests/{p.name}")]
    assert public_test_files(name) and not found, "\n".join(found)


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_student_notebook_holds_no_answer_of_its_own_or_a_later_notebook(name):
    later, earlier = [n for n in NOTEBOOKS if n >= name], [n for n in NOTEBOOKS if n < name]
    found = leaks(_code(ROOT / "notebooks" / name / f"{name}.ipynb"), later, f"notebooks/{name}/{name}.ipynb", earlier)
    assert not found, "\n".join(found)


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_helper_package_shipped_with_a_notebook_holds_no_answer_of_it_or_a_later_one(name, tmp_path):
    package = course.helper_package(tmp_path / "seqcourse", name)
    later, earlier = [n for n in NOTEBOOKS if n >= name], [n for n in NOTEBOOKS if n < name]
    found = [l for p in sorted(package.glob("*.py")) for l in leaks(p.read_text(), later, f"seqcourse/{p.name} (with {name})", earlier)]
    assert not found, "\n".join(found)
    __import__("subprocess").run([sys.executable, "-c", "import seqcourse"], cwd=tmp_path, check=True)  # it imports without what it lacks


def test_every_module_that_answers_an_exercise_says_so():
    """Without staging the whole package would ship with every notebook: each module that holds an answer must
    name the notebook it answers (ANSWERS), and then it ships only after that notebook, so it may hold no answer
    of a later notebook either."""
    for module in sorted((ROOT / "seqcourse").glob("*.py")):
        owner = course.answers_of(module)
        for name in NOTEBOOKS:
            if owner is None or name > owner:
                found = leaks(module.read_text(), [name], f"seqcourse/{module.name}", [n for n in NOTEBOOKS if n < name])
                assert not found, "\n".join(found) + f"\n(mark the module with ANSWERS = {name!r})"


@pytest.mark.parametrize("stage", NOTEBOOKS)
def test_public_repository_at_every_stage_holds_no_answer_a_student_must_still_write(stage, tmp_path):
    """Each notebook published with the fewest answers released that the build accepts (an extension of the
    notebook before it may still run): nothing in the public repository holds an answer of a notebook whose
    answers are not released, and one notebook fewer released is refused."""
    needed = course.release_of(ROOT / "notebooks", {**course.load_config(), "published": stage, "answers_released": None}).unreleased_needs()
    released = needed[-1] if needed else None
    config = {**course.load_config(), "published": stage, "answers_released": released}
    course.publish(ROOT / "notebooks", tmp_path / "public", config)
    published = sorted(p.name for p in (tmp_path / "public" / "notebooks").iterdir())
    assert published == [n for n in NOTEBOOKS if n <= stage]
    secret, known = [n for n in NOTEBOOKS if released is None or n > released], [n for n in NOTEBOOKS if released and n <= released]
    found = []
    for path in sorted((tmp_path / "public").rglob("*")):
        rel = path.relative_to(tmp_path / "public")
        if path.suffix not in (".py", ".ipynb"):
            continue
        if rel.parts[0] == "notebooks" and rel.parts[2:3] == ("tests",):
            found += leaks(_test_code(path), NOTEBOOKS, str(rel))
        else:
            found += leaks(_code(path), secret, str(rel), known)
    assert not found, "\n".join(found)
    if released is not None:
        earlier = max([n for n in NOTEBOOKS if n < released], default=None)
        with pytest.raises(SystemExit, match=f"answers_released: {released}"):
            course.publish(ROOT / "notebooks", tmp_path / "refused", {**config, "answers_released": earlier})
        assert not (tmp_path / "refused").exists()


def test_the_leak_test_finds_a_copied_answer_and_a_renamed_one():
    """The detector itself: a reference implementation pasted into a check, verbatim or with its names changed."""
    name = "04_transformer"
    block = next(b for b in solution_blocks(name) if len(ast.parse(__import__("textwrap").dedent(b)).body) >= 2)
    body = __import__("textwrap").dedent(block)
    pasted = "def _ref(self, *args):\n" + "".join("    " + l + "\n" for l in body.splitlines())
    assert leaks(pasted, [name], "pasted")
    tree = ast.parse(pasted)
    renamed = ast.unparse(_Rename().visit(tree))  # every local name changed, as a student hiding a copy would
    assert any("has the body of a solution" in l for l in leaks(renamed, [name], "renamed"))
    assert not leaks("def f(x):\n    return x + 1\n", NOTEBOOKS, "unrelated")


# -- answers as behaviour: a definition students get that passes a question's checks is that question's answer ----

def _definitions_in(source: str, whole: str | None = None) -> list[tuple[str, str, ast.AST, str]]:
    """(name, kind, node, source to run) of the functions and classes a source defines at its top level (also
    inside an ``if True:`` block); a definition runs with the whole source it came from (its bases, helpers)."""
    tree = ast.parse(source)
    nodes = [n for s in tree.body for n in ([s] + (s.body if isinstance(s, ast.If) else []))]
    return [(n.name, "class" if isinstance(n, ast.ClassDef) else "def", n, whole or source)
            for n in nodes if isinstance(n, (ast.ClassDef, ast.FunctionDef))]


def public_definitions(code: str) -> list[tuple[str, str, ast.AST, str]]:
    """What a public check defines: its own top-level functions and classes, and those of the sources it hands to
    ``define`` (string constants, names bound to them, ``+``)."""
    tree = ast.parse(code)
    found, strings = [], {}
    for stmt in tree.body:
        if isinstance(stmt, (ast.ClassDef, ast.FunctionDef)):
            found.append((stmt.name, "class" if isinstance(stmt, ast.ClassDef) else "def", stmt, ast.get_source_segment(code, stmt)))
        for node in ast.walk(stmt):
            if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", None)) == "define" and len(node.args) > 1:
                source = _resolve(node.args[1], strings)
                if source is not None:
                    found += _definitions_in(source)
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            value = _resolve(stmt.value, strings)
            if value is not None:
                strings[stmt.targets[0].id] = value
    return found


def _required(fn: ast.FunctionDef) -> int:
    return len(fn.args.posonlyargs + fn.args.args) - len(fn.args.defaults)


def graded_answers(name: str, questions: set[str]) -> list[tuple[str, str, str, set[str], int]]:
    """(question, name, kind, methods holding a solution block, required parameters) of the definitions that the
    autograded questions ask for."""
    found = []
    for question, is_solution, src in course.graded_cells(course.master_path(name)):
        if not is_solution or question not in questions:
            continue
        for node in ast.parse(src).body:
            segment = ast.get_source_segment(src, node) or ""
            if "BEGIN SOLUTION" not in segment:
                continue
            if isinstance(node, ast.ClassDef):
                methods = {f.name for f in node.body if isinstance(f, ast.FunctionDef) and "BEGIN SOLUTION" in (ast.get_source_segment(src, f) or "")}
                found.append((question, node.name, "class", methods, 0))
            elif isinstance(node, ast.FunctionDef):
                found.append((question, node.name, "def", set(), _required(node)))
    return found


def candidates(name: str, definitions: list) -> list[tuple[str, str, str, str]]:
    """(question, answer name, public definition's name, source) pairs where the public definition could stand in
    for the answer: a class with every method the answer's class fills in, a function with as many required
    parameters."""
    from test_mutants import SPECS

    out = []
    for question, answer, kind, methods, required in graded_answers(name, set(SPECS[name].ALTERNATIVES)):
        for d_name, d_kind, node, source in definitions:
            if d_kind != kind:
                continue
            if kind == "class" and not methods <= {f.name for f in node.body if isinstance(f, ast.FunctionDef)}:
                continue
            if kind == "def" and _required(node) != required:
                continue
            if (question, answer, d_name, source) not in out:  # the same definition in several checks runs once
                out.append((question, answer, d_name, source))
    return out


@pytest.fixture(scope="module")
def masters(course_build):
    from mutation import MasterNotebook

    opened: dict = {}

    def get(name: str):
        if name not in opened:
            for other in opened.values():
                other.close()
            opened[name] = MasterNotebook(course.master_path(name), course_build[name].autograder_zip)
        return opened[name]
    yield get
    for m in opened.values():
        m.close()


def behaves_as_answer(master, question: str, answer: str, d_name: str, source: str) -> bool:
    from mutation import passed_all

    cell = master.solution(question) + f"\n\n{source}\n{answer} = {d_name}\n"
    return passed_all(master.run(question, cell, until_failure=True))


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_no_definition_in_the_public_checks_passes_a_question_as_its_answer(name, masters):
    definitions = [d for p in public_test_files(name) for d in public_definitions(_test_code(p))]
    found = [f"{d_name} (public checks of {name}) passes every check of {question} as {answer}"
             for question, answer, d_name, source in candidates(name, definitions)
             if behaves_as_answer(masters(name), question, answer, d_name, source)]
    assert not found, "\n".join(found)


def test_the_behaviour_test_finds_a_reference_implementation_in_a_public_check(masters):
    """The detector itself: notebook 04's former public check of question 5 defined a correct multi-head attention
    (``_RefMHA``) under its own name; standing in for MultiHeadAttention it passes question 2, so it is found."""
    ref_mha = (ROOT / "units" / "04_transformer" / "standins.py").read_text()
    definitions = [d for d in _definitions_in(ref_mha) if d[0] == "_RefMHA"]
    pairs = [c for c in candidates("04_transformer", definitions) if c[1] == "MultiHeadAttention"]
    assert pairs and all(behaves_as_answer(masters("04_transformer"), *c) for c in pairs)
