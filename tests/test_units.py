"""One notebook is one unit (units/NN_topic/: master, checks.py, standins.py, mutants.py), and every stand-in,
reference and fixture of its checks is defined once: in standins.py (what runs where the notebook runs, public
checks included, through ``standin(...)``) or in checks.py (the trusted side of hidden checks)."""

from __future__ import annotations

import ast
import collections

import pytest

import course
from conftest import ROOT

UNITS = course.unit_names()


def _test_cells(name: str) -> list[tuple[bool, str]]:
    """(hidden, source) of the master's test cells."""
    return [(hidden, src) for _, hidden, src in course.check_cells(course.master_path(name))]


def _bodies(tree: ast.AST) -> list[tuple[str, str]]:
    """(name, body without names and docstrings) of every function and class at any depth."""
    out = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            body = node.body[1:] if ast.get_docstring(node) else node.body
            out.append((node.name, ast.dump(ast.Module(body=body, type_ignores=[]), annotate_fields=False)))
    return out


def test_every_unit_is_one_folder():
    assert UNITS, "no units found"
    for name in UNITS:
        files = {p.name for p in (ROOT / "units" / name).iterdir() if p.is_file()}
        assert {f"{name}.ipynb", "checks.py", "standins.py", "mutants.py"} <= files, f"units/{name}/ lacks {files}"


@pytest.mark.parametrize("name", UNITS)
def test_hidden_cells_are_one_call_into_the_checks_module(name):
    module = ast.parse((ROOT / "units" / name / "checks.py").read_text())
    cases = {n.name for n in module.body if isinstance(n, ast.FunctionDef) and not n.name.startswith("_")}
    called = []
    for hidden, source in _test_cells(name):
        if hidden:
            code = source.split('""" # END TEST CONFIG\n', 1)[1].strip()
            assert code.startswith("checks.") and code.endswith("(nb)") and "\n" not in code, f"a hidden cell of {name} is not one call: {code[:200]}"
            called.append(code[len("checks."):-len("(nb)")])
    assert sorted(called) == sorted(cases), "every case function of checks.py is called by exactly one hidden cell"


@pytest.mark.parametrize("name", UNITS)
def test_each_stand_in_reference_and_fixture_is_defined_once(name):
    unit = ROOT / "units" / name
    trees = {f: ast.parse((unit / f).read_text()) for f in ("checks.py", "standins.py")}
    for f, tree in trees.items():
        top = [n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))]
        top += [t.id for n in tree.body if isinstance(n, ast.Assign) for t in n.targets if isinstance(t, ast.Name)]
        twice = [k for k, v in collections.Counter(top).items() if v > 1]
        assert not twice, f"units/{name}/{f} defines {twice} more than once"
    public = [ast.parse(src) for hidden, src in _test_cells(name) if not hidden]
    bodies = collections.defaultdict(set)
    for where, tree in [*trees.items(), *((f"public check {i}", t) for i, t in enumerate(public))]:
        for fn, body in _bodies(tree):
            bodies[body].add(f"{where}: {fn}")
    repeated = [sorted(places) for places in bodies.values() if len(places) > 1]
    assert not repeated, f"the same definition in several places of {name}: {repeated}"
    sources = collections.Counter()
    for tree in [*trees.values(), *public]:
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "define" and len(node.args) > 1:
                arg = node.args[1]
                literal = isinstance(arg, ast.Constant) and not arg.value.lstrip().startswith(("from ", "import "))
                assert not literal, f"a public check of {name} defines {ast.unparse(node.args[0])} from its own source: put it in standins.py and pass standin(...)"
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and len(node.value) > 80 and "\n" in node.value:
                sources[node.value] += 1
    assert all(v == 1 for v in sources.values()), f"a source string repeated in {name}'s checks"


def test_rules_see_through_imports_and_other_names():
    """A rule a question states (``nb.rule``) holds however the library is reached: an attribute, a name imported
    under another name elsewhere in the notebook, an import inside the answer; a correct answer that merely shares
    a word (its own name, a local variable) breaks nothing."""
    from grader.checks import RuleBroken, rule, uses

    answer = "def matthews_corrcoef(pred, target):\n    tp = 1\n    return float(tp)\n"
    assert uses([answer], "matthews_corrcoef", "sklearn", "matthews_corrcoef") == []
    cheats = [
        ["import sklearn.metrics as skm", "def matthews_corrcoef(pred, target):\n    return skm.matthews_corrcoef(target, pred)\n"],
        ["from sklearn.metrics import matthews_corrcoef as mcc", "def matthews_corrcoef(pred, target):\n    return mcc(target, pred)\n"],
        ["def matthews_corrcoef(pred, target):\n    from sklearn import metrics\n    return metrics.matthews_corrcoef(target, pred)\n"],
    ]
    for cells in cheats:
        assert "sklearn" in uses(cells, "matthews_corrcoef", "sklearn", "matthews_corrcoef"), cells
        with pytest.raises(RuleBroken, match="not sklearn"):
            rule(cells, "matthews_corrcoef", "sklearn", says="not sklearn")
    # the last definition counts: a cheat replaced by an own answer breaks nothing
    assert uses(cheats[1] + [answer], "matthews_corrcoef", "sklearn") == []
