"""Run a notebook's checks on the trusted side against a submission running in a sandbox, and score them.

The cases are the test cells of the master notebook (public and hidden), as Otter Assign writes them into
the autograder's ``tests/*.py``: public cases are short checks that students also run with ``grader.check``
in their own kernel; a hidden case is one call into the notebook's checks module (``units/NN/checks.py``,
carried by the autograder zip as ``unit/checks.py``, never by what students get), ``checks.CASE(nb)``, where
``nb`` is a :class:`Notebook`. Here every case runs in this (trusted) process, in a namespace
where this process's own torch, ``nn``, ``F``, ``math`` and builtins can never be shadowed, the
notebook's names are data or :class:`sandbox.Remote` proxies, ``sandbox`` is the
:class:`sandbox.Sandbox` (for checks that define a helper inside the notebook, or swap a reference in
for one check with ``sandbox.swap``) and
``uses(definition, *names)`` a static check of the submitted source and ``rule(definition, *names, says=...)``
the same check for a rule the question states about how to write the answer: breaking it makes the whole
question earn 0, with the rule named (hidden cases only).
References are computed here; the sandbox only ever answers with data. Scores are computed here, only
for known questions, each capped at its points. Failure messages never show a check's source or inputs.
"""

from __future__ import annotations

import ast
import builtins
import contextlib
import doctest
import functools
import io
import json
import math
import re
import shutil
import time
import types
import zipfile
from dataclasses import asdict, dataclass, field
from pathlib import Path

import torch

from seqcourse.checking import shown, todo_in_cells
from seqcourse.contract import VARIANTS, variant_message, variant_problems
from seqcourse.testing import standin_definitions, standin_requires

from . import limits
from .feedback import PART_NOTE
from .remote import RemoteError, SandboxError
from .sandbox import Sandbox
from .submission import CHECK

PROTECTED = {"torch": torch, "nn": torch.nn, "F": torch.nn.functional, "math": math}


@dataclass
class Case:
    name: str
    code: str
    hidden: bool
    points: float
    failure_message: str = ""


@dataclass
class Question:
    name: str
    points: float
    cases: list[Case]


@dataclass
class CaseResult:
    case: Case
    passed: bool
    message: str = ""
    rule_broken: bool = False
    stopped: bool = False  # the student's code ran past its time limit (or the grading stopped)
    calls: list = field(default_factory=list)  # a hidden case's calls into the notebook's code (seqcourse/contract.py)
    seconds: float = 0.0


class RuleBroken(AssertionError):
    """What :func:`rule` raises: the answer breaks a rule its question states (the question earns 0)."""


@dataclass
class QuestionResult:
    question: Question
    results: list[CaseResult] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # cells before its check that were stopped (when it lost points)
    standins: dict[str, set] = field(default_factory=dict)  # an earlier definition -> the kinds of check (hidden?) that ran on its stand-in
    todo: list[str] = field(default_factory=list)  # TODOs left where its public checks look (when a check failed)

    @property
    def score(self) -> float:
        if any(r.rule_broken for r in self.results):
            return 0.0
        return min(self.question.points, round(sum(r.case.points for r in self.results if r.passed), 6))


def questions_from_tests(texts: dict[str, str]) -> list[Question]:
    """Questions from Otter's OK-format test files ({file name: text}), in notebook order."""
    from otter.test_files import OKTestFile  # here: importing Otter takes seconds, and a grading worker is given its questions

    found = []
    for name, text in texts.items():
        spec: dict = {}
        exec(text, spec)  # our own build output (trusted)
        test = OKTestFile.from_spec(spec["test"], path=name)
        cases = [Case(c.name, c.body, bool(c.hidden), float(c.points or 0), c.failure_message or "")
                 for c in test.test_cases]
        found.append(Question(spec["test"]["name"], float(spec["test"].get("points") or sum(c.points for c in cases)), cases))
    key = lambda q: [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", q.name)]  # noqa: E731
    return sorted(found, key=key)


UNIT_FILES = ("checks.py", "standins.py")  # a notebook's checks module and its stand-ins, in the zip's unit/


@dataclass
class Unit:
    """What grades one notebook beyond its test cells: its checks module (trusted side) and the source of
    its stand-ins (sent into the sandbox one definition at a time, :meth:`Notebook.standin`)."""
    checks: types.ModuleType
    standins: str
    source: str = ""  # of the checks module

    @functools.cached_property
    def uses(self) -> dict[str, set[str]]:
        """{hidden case: the notebook's names it uses (``nb.LSTM``)}, from the checks module's source."""
        return {node.name: {x.attr for x in ast.walk(node) if isinstance(x, ast.Attribute) and getattr(x.value, "id", None) == "nb"}
                for node in ast.parse(self.source).body if isinstance(node, ast.FunctionDef)}

    @functools.cached_property
    def definitions(self) -> dict[str, str]:
        """{name: source of the top-level statement of standins.py that binds it}, comments above included."""
        return standin_definitions(self.standins)

    def requires(self, name: str) -> list[str]:
        """The stand-ins that ``name``'s definition needs, each before what needs it, and ``name`` last."""
        return standin_requires(self.definitions, name)

    @functools.cached_property
    def replacements(self) -> dict[str, str]:
        """{a notebook definition's name: the source of the course's stand-in for it}: each reference of the checks
        module (a ``_REF_`` constant) that defines one public name (``_REF_RNN_CELL`` defines ``class RNNCell``: the one
        its hidden checks swap in; other sources a check swaps in, such as 01's cells of another recurrence, are no
        stand-ins), and each function or class of standins.py named as the notebook's own, with what it needs."""
        found = {}
        for key, value in vars(self.checks).items():
            if not key.startswith("_REF_") or not isinstance(value, str) or "\n" not in value:
                continue
            try:
                body = ast.parse(value).body
            except SyntaxError:
                continue
            names = [n.name for n in body if isinstance(n, (ast.FunctionDef, ast.ClassDef)) and not n.name.startswith("_")]
            if len(names) == 1:
                found[names[0]] = value
        for name, source in self.definitions.items():
            if not name.startswith("_") and isinstance(ast.parse(source).body[-1], (ast.FunctionDef, ast.ClassDef)):
                found[name] = "".join(self.definitions[n] for n in self.requires(name))
        return found


def load_unit(source: Path) -> Unit:
    """The checks module and stand-ins an autograder zip (or the folder it was unpacked into) carries."""
    if source.is_dir():
        texts = {f: (source / "unit" / f).read_text() for f in UNIT_FILES}
    else:
        with zipfile.ZipFile(source) as z:
            texts = {f: z.read(f"unit/{f}").decode() for f in UNIT_FILES}
    module = types.ModuleType("unit_checks", "the notebook's checks module")
    module.__file__ = "unit/checks.py"
    exec(compile(texts["checks.py"], "unit/checks.py", "exec"), module.__dict__)  # our own build output (trusted)
    return Unit(module, texts["standins.py"], texts["checks.py"])


class Notebook:
    """The submitted notebook as a hidden case sees it: ``nb.NAME`` is what the notebook bound to NAME (data,
    or a :class:`sandbox.Remote` handle), ``nb.sandbox`` the :class:`sandbox.Sandbox`, ``nb.standin(name)``
    the stand-in of that name from the unit's standins.py defined where the notebook runs (once per case),
    ``nb.here(name)`` a stand-in made on the trusted side, and ``nb.uses``/``nb.rule`` the static checks of
    the submitted source (:func:`uses`, :func:`rule`). The grader's own attributes win over the notebook's
    names (a student's variable ``sandbox`` changes nothing here)."""

    def __init__(self, sandbox: Sandbox, names: dict, cells: list[str], unit: Unit | None = None):
        self.sandbox, self.cells, self._names, self._unit, self._defined = sandbox, list(cells), names, unit, {}

    def __getattr__(self, name: str):
        names = self.__dict__.get("_names", {})
        if name in names:
            return names[name]
        raise NameError(f"name {name!r} is not defined in your notebook")

    def standin(self, name: str):
        for n in self._unit.requires(name):
            if n not in self._defined:
                self._defined[n] = self.sandbox.define(n, self._unit.definitions[n])
        return self._defined[name]

    def here(self, name: str):
        """The stand-in ``name`` made on this (trusted) side, e.g. to compute a reference with the same toy model
        that the notebook's code gets; it sees torch, nn, F, math and the notebook's numbers and strings."""
        env = {k: v for k, v in self._names.items() if type(v) in (int, float, str, bool)}
        env.update(PROTECTED, __builtins__=builtins)
        for n in self._unit.requires(name):
            exec(compile(self._unit.definitions[n], f"unit/standins.py:{n}", "exec"), env)  # our own build output
        return env[name]

    def uses(self, definition: str, *forbidden: str) -> list[str]:
        return uses(self.cells, definition, *forbidden)

    def rule(self, definition: str, *forbidden: str, says: str) -> None:
        rule(self.cells, definition, *forbidden, says=says)


def questions(source: Path) -> list[Question]:
    """The questions of an autograder zip, or of the folder it was unpacked into (Gradescope)."""
    if source.is_dir():
        return questions_from_tests({f"tests/{p.name}": p.read_text() for p in (source / "tests").glob("*.py")})
    with zipfile.ZipFile(source) as z:
        return questions_from_tests({n: z.read(n).decode() for n in z.namelist() if re.fullmatch(r"tests/[^/]+\.py", n)})


def questions_json(found: list[Question]) -> str:
    """Questions as JSON, for a grading worker (:func:`questions_from_json`): the parent parsed them once."""
    return json.dumps([asdict(q) for q in found])


def questions_from_json(text: str) -> list[Question]:
    return [Question(q["name"], q["points"], [Case(**c) for c in q["cases"]]) for q in json.loads(text)]


def extract_package(source: Path, target: Path) -> Path:
    """The helper package an autograder carries (``files/seqcourse``), copied to ``target``; public code
    that the notebook imports in the sandbox."""
    package = target / "seqcourse"
    if source.is_dir():
        shutil.copytree(source / "files" / "seqcourse", package)
        return package
    with zipfile.ZipFile(source) as z:
        for name in z.namelist():
            if re.fullmatch(r"files/seqcourse/[\w.]+\.py", name):
                package.mkdir(parents=True, exist_ok=True)
                (package / name.rsplit("/", 1)[1]).write_bytes(z.read(name))
    return package


def uses(cells: list[str], definition: str, *forbidden: str) -> list[str]:
    """Which of the ``forbidden`` names the submitted ``def``/``class definition`` (its last version)
    mentions: attributes (``nn.RNNCell``), names, keyword arguments (``label_smoothing=``), what it imports,
    names the notebook imported under another name (``from sklearn.metrics import matthews_corrcoef as mcc``
    makes ``mcc`` mean ``sklearn``, ``metrics`` and ``matthews_corrcoef``) and ``"loop"`` for any loop or
    comprehension. A static check of the source, done here, for rules a question states about how to write an
    answer."""
    found, aliases = None, {}
    for source in cells:
        try:
            tree = ast.parse(source)
        except (SyntaxError, ValueError):
            continue
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                for a in node.names:
                    aliases[a.asname or a.name.split(".")[0]] = set((getattr(node, "module", None) or "").split(".")) | set(a.name.split("."))
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name == definition:
                found = node
    if found is None:
        return []
    seen = set()
    for node in ast.walk(found):
        if isinstance(node, ast.Attribute):
            seen.add(node.attr)
        elif isinstance(node, ast.Name) and node.id != definition:  # super(RNNCell, self) names itself
            seen.add(node.id)
            seen |= aliases.get(node.id, set())
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            seen |= {part for a in node.names for part in a.name.split(".")} | set((getattr(node, "module", None) or "").split("."))
        elif isinstance(node, ast.keyword) and node.arg:
            seen.add(node.arg)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            seen.add(node.value)  # getattr(nn, "RNNCell")
        elif isinstance(node, (ast.For, ast.AsyncFor, ast.While, ast.comprehension)):
            seen.add("loop")
    return sorted(set(forbidden) & seen)


def rule(cells: list[str], definition: str, *forbidden: str, says: str) -> None:
    """Raise :class:`RuleBroken` when the submitted ``definition`` uses any of the ``forbidden`` names
    (:func:`uses`): a rule the question states about how to write the answer ("no ``torch.nn.RNNCell``"),
    which, broken, costs the whole question, whatever else its checks find."""
    used = uses(cells, definition, *forbidden)
    if used:
        raise RuleBroken(f"{definition} uses {used}: {says}")


def _environment(sb: Sandbox, names: dict, cells: list[str], unit: Unit | None) -> dict:
    """A case's namespace: public cases use the notebook's names directly (as in the student's kernel) and
    ``sandbox`` (where seqcourse.testing.define sends stand-ins), hidden ones ``checks`` and ``nb``."""
    env = {k: v for k, v in names.items() if k not in PROTECTED and not hasattr(builtins, k)}
    env.update(PROTECTED)
    env.update(__name__="__check__", __builtins__=builtins, sandbox=sb, nb=Notebook(sb, names, cells, unit),
               checks=unit.checks if unit is not None else None)
    return env


def _message(e: BaseException, case: Case) -> str:
    if isinstance(e, SandboxError):
        return f"grading stopped: {e}"
    if isinstance(e, RemoteError) and e.kind == "TimeLimit":
        text = f"your code was {e.message}, the longest one call may run (an endless loop?)" + (f" ({e.where})" if e.where else "")
    elif isinstance(e, RemoteError):
        text = f"your code raised {e}"
    elif isinstance(e, AssertionError):
        text = str(e) or "a check failed"
    elif isinstance(e, NameError):
        text = f"{e}: run the cell that defines it (did it raise an error?)"
    else:
        text = f"the check could not use what your code returned ({type(e).__name__}: {' '.join(str(e).split())[:300]})"
    return text + (f"\n{case.failure_message}" if case.failure_message else "")


ALLOWED_KINDS = {"grad": "its gradients", "train()": "called train()"}  # kind: how seqcourse/contract.py words it


def contract_broken(broken: list, allowed=()) -> str | None:
    """What a student reads when calls into their code broke the contract (seqcourse/contract.py: the caller's
    arguments unchanged, global random generators not reseeded) beyond what the question ``allowed``
    (``MAY_CHANGE`` of its checks module: "function.argument", "function", or "function.argument.KIND" for one
    kind of change, :data:`ALLOWED_KINDS`); None when nothing was."""
    for b in broken if isinstance(broken, list) else []:
        if not isinstance(b, dict):
            continue
        target = f"{b.get('function')}.{b.get('argument')}"
        kind = next((k for k, start in ALLOWED_KINDS.items() if str(b.get("what")).startswith(start)), None)
        if target in allowed or b.get("function") in allowed or kind and f"{target}.{kind}" in allowed:
            continue
        fn, arg, what = (str(b.get(k, ""))[:limit] for k, limit in (("function", 120), ("argument", 120), ("what", 600)))
        if what.startswith("called train()"):
            return (f"{fn} called train() on the caller's {arg}: the caller chooses the mode. It changed nothing here only "
                    f"because {arg} came in training mode; given a model in evaluation mode (as evaluation and decoding "
                    "give it) it would switch dropout on and leave it on. Leave train()/eval() to the caller")
        if what.startswith("reseeded"):
            return (f"{fn} {what}: a function must continue the caller's random state, never reseed it (seed once, "
                    "outside, or draw from the generator it is given)")
        if variant_problems([b]):
            return variant_message(b)
        if what.startswith("changed a global setting"):
            return (f"{fn} {what}: a call must leave torch's global settings as it found them (a `with torch.no_grad():` "
                    "block ends by itself; give dtypes to the tensors you make instead of changing the default)")
        whose = "the module itself" if arg == "self" else f"the caller's {arg}"
        if what.startswith("its settings"):
            return (f"{fn} changed {whose}: {what}. A call must leave a model's settings as it found them: to switch "
                    "dropout off, the caller uses eval(); compute with other values locally instead of storing them on the model")
        return (f"{fn} changed {whose}: {what}. A call must leave what it is given as it found it: compute out of "
                "place (no in-place ops such as add_, masked_fill_, x[...] = on the inputs), copy before changing, "
                "and leave train()/eval() mode as it was")
    return None


_MISSING = object()


def public_names(code: str) -> set[str]:
    """The bare names a test case's doctest examples use (``RNNCell(3, 4)``; not attributes such as ``torch.nn.LSTM``)."""
    found = set()
    for ex in doctest.DocTestParser().get_examples(code):
        try:
            found |= {n.id for n in ast.walk(ast.parse(ex.source)) if isinstance(n, ast.Name)}
        except SyntaxError:
            continue
    return found


def case_names(case: Case, unit: Unit | None) -> set[str]:
    """The notebook's names a case uses: a public case's bare names, a hidden case's ``nb.NAME`` in its function of
    the checks module."""
    if not case.hidden:
        return public_names(case.code)
    found = re.search(r"checks\.(\w+)\(nb\)", case.code)
    return unit.uses.get(found.group(1), set()) if found and unit is not None else set()


@functools.lru_cache(maxsize=2)
def _definitions(cells: tuple[str, ...]) -> dict[str, set[str]]:
    """{function or class the cells define: the names its last definition uses}."""
    uses = {}
    for source in cells:
        try:
            tree = ast.parse(source)
        except (SyntaxError, ValueError):
            continue
        uses.update((n.name, {x.id for x in ast.walk(n) if isinstance(x, ast.Name)}) for n in tree.body
                    if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)))
    return uses


def reached(cells: list[str], roots: set[str]) -> set[str]:
    """``roots`` and the names the submitted cells' definitions of them use, transitively (an LSTM uses LSTMCell)."""
    uses = _definitions(tuple(cells))
    seen, todo = set(), list(roots)
    while todo:
        name = todo.pop()
        if name not in seen:
            seen.add(name)
            todo += uses.get(name, ())
    return seen


def owners(questions: list[Question], names) -> dict[str, str]:
    """{name: the question that defines it}: the first question (in notebook order) whose public checks use it."""
    found = {}
    for q in questions:
        for case in q.cases:
            if not case.hidden:
                for name in public_names(case.code) & set(names):
                    found.setdefault(name, q.name)
    return found


class StandIns:
    """Later questions' checks run on the course's stand-in for a definition whose own question failed, so that a
    mistake, an error or a stopped cell in one question costs that question only. A question's public checks use the
    stand-in where the defining question failed a public check (or its definition is missing: it fails them), its
    hidden checks where that question failed any check; the question's own checks always use the student's. The
    stand-ins (:attr:`Unit.replacements`) are defined in the notebook's namespace, so the student's later code that
    calls the name by itself (an LSTM building its LSTMCell) gets them too; the student's own is put back where a
    later check should see it again."""

    def __init__(self, questions: list[Question], unit: Unit | None):
        self.unit = unit
        self.owner = owners(questions, unit.replacements) if unit is not None else {}
        self.failed: dict[str, tuple[bool, bool]] = {}  # question -> (a public check failed, any check failed)
        self.saved: dict[str, object] = {}  # name -> the student's own (or _MISSING)
        self.bound: dict[str, object] = {}  # name -> the stand-in, where it is bound now
        self.using: set[str] = set()  # the stand-ins the last use() gave

    def record(self, result: QuestionResult) -> None:
        failed = [not r.passed for r in result.results]
        self.failed[result.question.name] = (any(f for f, r in zip(failed, result.results) if not r.case.hidden), any(failed))

    def reset(self) -> None:
        """After the notebook's process was started again: nothing of ours is bound in the new one."""
        self.saved, self.bound = {}, {}

    def use(self, sb: Sandbox, names: dict, hidden: bool) -> dict:
        """Bind the stand-ins one kind of check (public or hidden) of the next question needs, put the student's own
        back for the others; the notebook's names as those checks see them."""
        wanted = {n for n, q in self.owner.items() if q in self.failed and self.failed[q][hidden]}
        for name in sorted(set(self.bound) - wanted):
            if self.saved.get(name, _MISSING) is not _MISSING:
                try:
                    sb.set_global(name, self.saved[name])
                    del self.bound[name]
                except (SandboxError, RemoteError):
                    pass
        for name in sorted(wanted - set(self.bound)):
            try:
                if name not in self.saved:
                    try:
                        self.saved[name] = sb.get_global(name)
                    except RemoteError:
                        self.saved[name] = _MISSING
                self.bound[name] = sb.define(name, self.unit.replacements[name])
            except (SandboxError, RemoteError):
                continue
        self.using = wanted & set(self.bound)
        return {**names, **{n: self.bound[n] for n in self.using}}


def run_case(sb: Sandbox, case: Case, env: dict, seed: int = 0, allowed=(), variants=()) -> CaseResult:
    """Execute one case's doctest examples in ``env``; output must match what the test expects. A hidden case
    also fails when a call it made into the notebook's code broke the contract (:func:`contract_broken`); any case,
    when one went wrong run again under one of ``variants`` (seqcourse/contract.py's VARIANTS)."""
    try:
        sb.request("seed", seed=seed, variants=list(variants))
        torch.manual_seed(seed)
        for ex in doctest.DocTestParser().get_examples(case.code):
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                exec(compile(ex.source, f"<{case.name}>", "single"), env)
            if out.getvalue().strip() != ex.want.strip():
                return CaseResult(case, False, "the check printed something other than expected" +
                                  (f"\n{case.failure_message}" if case.failure_message else ""))
    except RuleBroken as e:
        return CaseResult(case, False, f"{e}\nThis breaks a rule the question states: the question earns 0.", rule_broken=True)
    except Exception as e:  # noqa: BLE001 - any failure of a case is that case's result
        stopped = isinstance(e, SandboxError) or isinstance(e, RemoteError) and e.kind == "TimeLimit"
        return CaseResult(case, False, (not stopped and _kept(sb)) or _message(e, case), stopped=stopped)
    try:
        found, calls = sb.request("contract"), sb.request("calls")
        # a public check keeps only its variants: what the student's own grader.check runs (seqcourse/checking.py)
        broken = contract_broken(found if case.hidden else variant_problems(found), allowed)
    except (SandboxError, RemoteError) as e:
        broken, calls = str(e), []
    if broken:
        return CaseResult(case, False, broken)
    return CaseResult(case, True, calls=calls if case.hidden and isinstance(calls, list) else [])


def _kept(sb: Sandbox) -> str | None:
    """After a failed case: where one of its calls gave other values on a fresh copy of its module (seqcourse/contract.py's
    ``fresh``), that message, not the case's own: a value kept from an earlier call explains the values the case saw."""
    try:
        return next((variant_message(b) for b in variant_problems(sb.request("contract"))
                     if str(b.get("what", "")).startswith(VARIANTS["fresh"])), None)
    except (SandboxError, RemoteError):
        return None


def run_question(sb: Sandbox, question: Question, names: dict, cells: list[str], unit: Unit | None,
                 enough=None, standins: StandIns | None = None) -> QuestionResult:
    """Every case of ``question``, in order; ``enough(results)`` returning True stops early (mutation tests
    stop at the failure they look for). With ``standins``, each case sees the stand-ins of earlier questions that
    failed (:class:`StandIns`)."""
    result = QuestionResult(question)
    for case in question.cases:
        if enough is not None and enough(result.results):
            break
        if sb.stopped:
            result.results.append(CaseResult(case, False, f"grading stopped: {sb.stopped}", stopped=True))
            continue
        if any(r.stopped for r in result.results):  # the same code would most likely be stopped again
            result.results.append(CaseResult(case, False, "not run: an earlier check of this question was stopped"))
            continue
        allowed = getattr(unit.checks, "MAY_CHANGE", {}).get(question.name, ()) if unit is not None else ()
        off = getattr(unit.checks, "VARIANTS_OFF", {}).get(question.name, {}) if unit is not None else {}
        start = time.perf_counter()
        seen = names
        if standins is not None:
            seen = standins.use(sb, names, case.hidden)
            for name in standins.using and standins.using & reached(cells, case_names(case, unit)):  # where it mattered
                result.standins.setdefault(name, set()).add(case.hidden)
        result.results.append(run_case(sb, case, _environment(sb, seen, cells, unit), allowed=allowed,
                                       variants=[v for v in VARIANTS if v not in off]))
        result.results[-1].seconds = time.perf_counter() - start
    if not all(r.passed for r in result.results):
        result.todo = todo_in_cells(cells, [c.code for c in question.cases if not c.hidden])
    return result


def cell_places(cells: list[str]) -> list[str | None]:
    """The question each cell belongs to: that of the first ``grader.check("...")`` at or after it (None after the
    last one). In Otter's student notebook each autograded question ends with that call, so a question's cells
    are those after the previous question's check, up to its own."""
    places: list[str | None] = [None] * len(cells)
    following = None
    for i in reversed(range(len(cells))):
        found = CHECK.search(cells[i])
        following = found.group(1) if found else following
        places[i] = following
    return places


def stopped_notes(cells: list[str], stopped: dict[int, str]) -> dict[int, str]:
    """{cell index: what a student reads about that stopped (or skipped) cell}: its first line, its question, why."""
    places, notes = cell_places(cells), {}
    for i, why in sorted(stopped.items()):
        hint = "; tag training and other slow cells otter_ignore" if "stopped after" in why else ""
        notes[i] = f"{cell_label(cells, places, i)}: {why}{hint}"
    return notes


def cell_label(cells: list[str], places: list[str | None], i: int) -> str:
    """How a student finds cell ``i``: its first line and its question (``places``: :func:`cell_places`)."""
    first = next((line.strip() for line in cells[i].splitlines() if line.strip()), "")
    first = first if len(first) <= 60 else first[:57] + "..."
    where = f"in {places[i]}, before its check" if places[i] else "after the last question's check"
    return f'cell "{first}" ({where})'


CELL_FILE = re.compile(r"\(<ipython-input-[^>]*>, line (\d+)\)")


def error_notes(cells: list[str], errors: list[tuple[int, str]]) -> dict[int, str]:
    """{cell index: what a student reads about that cell's error}: the cell by its first line and question, the error
    with its line counted in the cell (not IPython's ``<ipython-input-...>`` name)."""
    places = cell_places(cells)
    return {i: f"{cell_label(cells, places, i)} raised " + CELL_FILE.sub(r"(line \1 of the cell)", why)
            for i, why in errors if 0 <= i < len(cells)}


def grade(sb: Sandbox, cells: list[str], questions: list[Question], unit: Unit,
          until: float | None = None) -> tuple[list[QuestionResult], list]:
    """Run the notebook's cells in the sandbox (none past ``until``, see :meth:`Sandbox.run`), then every question's
    checks. Returns the results and the (cell, error) pairs of cells that raised; ``sb.stopped_cells`` holds the
    cells that were stopped. A cell that ran too long, raised or holds a wrong answer costs only its own question:
    later questions' checks run on the course's stand-ins for what a failed question defines (:class:`StandIns`), and
    say so in their notes; a question that lost points while a cell before its check was stopped says so. When a
    check killed the notebook's process, the next question gets a new one (the same cells run again)."""
    try:
        errors = sb.run(cells, until=until)
        names = sb.names()
    except (SandboxError, RemoteError) as e:
        errors, names = [(-1, str(e))], {}
        sb.stopped = sb.stopped or str(e)
    notes = dict(sorted({**stopped_notes(cells, sb.stopped_cells), **error_notes(cells, errors)}.items()))
    checked_at = {}
    for i, source in enumerate(cells):
        for name in CHECK.findall(source):
            checked_at.setdefault(name, i)
    results, standins = [], StandIns(questions, unit)
    for q in questions:
        if sb.stopped and names and sb.seconds < sb.timeout and sb.restarts < limits.MAX_RESTARTS:
            try:
                sb.restart()
                standins.reset()
                names = sb.names()
            except (SandboxError, RemoteError):
                pass
        result = run_question(sb, q, names, cells, unit, standins=standins)
        standins.record(result)
        if result.score < q.points:
            result.notes = [n for i, n in notes.items() if i < checked_at.get(q.name, len(cells))]
        result.notes += [standin_note(name, standins.owner[name], hidden) for name, kinds in sorted(result.standins.items())
                         for hidden in sorted(kinds)]
        results.append(result)
    by_owner: dict[str, dict[str, list[str]]] = {}
    for r in results:
        for name in r.standins:
            by_owner.setdefault(standins.owner[name], {}).setdefault(name, []).append(r.question.name)
    for r in results:
        r.notes += [f"later questions were checked with the course's {name} in place of yours, so that this mistake costs "
                    f"only this question: {', '.join(later)}" for name, later in by_owner.get(r.question.name, {}).items()]
    return results, errors


def standin_note(name: str, owner: str, hidden: bool) -> str:
    """What a student reads in the public or hidden checks of a question that ran on the course's stand-in for ``name``
    (:class:`StandIns`); grader/feedback.py shows it with those checks."""
    why = "some of its checks" if hidden else "its public checks"
    return f"{PART_NOTE[hidden]} with the course's {name} in place of yours, as {owner} failed {why}: a mistake there costs only {owner}"


def messages(result: QuestionResult) -> list[str | None]:
    """Per case what a student reads (None where it passed), by seqcourse.checking's rules, as ``grader.check`` words
    them: the first failure's hint (or, with the question's TODO left, that it is not answered yet); later failures
    only say so, except a broken rule or a stopped check, which always show."""
    return shown([not r.passed for r in result.results], [r.message for r in result.results], result.todo,
                 [r.rule_broken or r.stopped for r in result.results])


def report(result: QuestionResult) -> str:
    """What a student reads about one question: each case passed or failed, the first failure with its hint
    (:func:`messages`); public and hidden checks numbered apart, as students number their public ones; never the
    code or inputs of a check."""
    lines = [f"Note: {n}" for n in result.notes]
    count = {True: 0, False: 0}
    for r, text in zip(result.results, messages(result)):
        count[r.case.hidden] += 1
        head = f"{'hidden' if r.case.hidden else 'public'} check {count[r.case.hidden]} ({r.case.points:g} pt): "
        if text is None:
            lines.append(head + "passed")
        elif "\n" not in text and len(text) <= 60:
            lines.append(head + "failed: " + text)
        else:
            lines += [head + "failed", "    " + text.replace("\n", "\n    ")]
    return "\n".join(lines)

