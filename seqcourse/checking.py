"""What a student reads when a check fails: one short message per question, the same in the notebook
(``grader.check``, ``grader.check_all``, ``grader.export(run_tests=True)``) and in the grader's reports.

The rules, shared by both sides (grader/checks.py's ``report`` uses them too):

- a failing check shows the message of its assertion (the hint that names the likely bug), and, where it
  compared two tensors, the place where they differ most; never the check's code or a doctest transcript;
- only the first failing check of a question shows its hint: checks after it mostly need the values the
  first one found wrong, so they only say that they failed too (``fix the first failure first``);
- a question whose checks fail while a definition they use still holds the release's TODO (a ``...``
  statement) says once that it is not answered yet, and where the TODO is.

In the student's notebook the build writes Otter's init cell as
``grader = short_messages(otter.Notebook("NN_topic.ipynb"))``: :func:`short_messages` gives Otter's
notebook object this module's ``check``, which runs the public test file's cases like the trusted grader
does (grader/checks.py: ``run_case``), every call into the notebook's code also under the grader's variants
(seqcourse/contract.py: ``varied``), and returns a result whose text is the short one. Everything else is
Otter's: finding the test files (./tests, also on Colab), its log, ``check_all``, ``export``.
"""

from __future__ import annotations

import ast
import contextlib
import doctest
import functools
import html
import inspect
import io
import os
import random
import sys
import textwrap

import torch

from seqcourse import contract

NOT_ANSWERED = "not answered yet — fill in the TODO"
FIRST_FIRST = "fix the first failure first"


# -- what a question's checks use, and whether it is still the release's TODO ----------------------------------

def examples(code: str) -> list[doctest.Example]:
    """The statements of one OK-format case (a doctest), in order."""
    return doctest.DocTestParser().get_examples(code)


def names_used(codes: list[str]) -> set[str]:
    """The names that checks' code uses, also inside the source strings they define stand-ins from."""
    found = set()
    for code in codes:
        for ex in examples(code):
            sources, seen = [ex.source], set()
            while sources:
                try:
                    tree = ast.parse(textwrap.dedent(sources.pop()))
                except SyntaxError:
                    continue
                for node in ast.walk(tree):
                    if isinstance(node, ast.Name):
                        found.add(node.id)
                    elif isinstance(node, ast.Constant) and isinstance(node.value, str) and "\n" in node.value \
                            and node.value not in seen:
                        seen.add(node.value)
                        sources.append(node.value)
    return found


def holds_todo(node: ast.AST) -> bool:
    """Whether a definition still holds the release's TODO: a ``...`` statement, or ``...`` assigned or returned."""
    for n in ast.walk(node):
        value = n.value if isinstance(n, (ast.Expr, ast.Assign, ast.AnnAssign, ast.Return)) else None
        if isinstance(value, ast.Constant) and value.value is Ellipsis:
            return True
    return False


def todo_places(node: ast.stmt) -> list[str]:
    """Where a top-level definition holds the TODO: ``name`` for a function or assignment, ``Class.method`` for the
    methods of a class (``Class`` for the class body itself)."""
    if isinstance(node, ast.ClassDef):
        methods = [m for m in node.body if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef))]
        rest = [s for s in node.body if s not in methods]
        return [f"{node.name}.{m.name}" for m in methods if holds_todo(m)] + [node.name] * any(map(holds_todo, rest))
    names = {node.name} if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) else \
        {t.id for t in getattr(node, "targets", [getattr(node, "target", None)]) if isinstance(t, ast.Name)}
    return sorted(names) if holds_todo(node) else []


def todo_in_cells(cells: list[str], codes: list[str]) -> list[str]:
    """The TODOs left in the notebook's last definitions (in ``cells``) of the names that ``codes`` (a question's
    public checks) use, and of the names those definitions use in turn (an earlier question's function the answer
    calls): what the grader reads from a submission's source."""
    last = {}
    for source in cells:
        try:
            tree = ast.parse(source)
        except (SyntaxError, ValueError):
            continue
        for node in tree.body:
            for name in _bound(node):
                last[name] = node
    used = _reached(names_used(codes), lambda name: last.get(name))
    return [p for name in sorted(used) for p in todo_places(last[name])]


def _reached(names: set[str], definition) -> set[str]:
    """``names`` that ``definition`` (name -> its syntax tree, or None where the notebook does not define it) finds, and
    every such name their definitions use, in turn."""
    reached, stack = set(), sorted(names)
    while stack:
        name = stack.pop()
        tree = definition(name) if name not in reached else None
        if tree is not None:
            reached.add(name)
            stack += [n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id not in reached]
    return reached


def _bound(node: ast.stmt) -> set[str]:
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return {node.name}
    if isinstance(node, (ast.Assign, ast.AnnAssign)):
        return {t.id for t in getattr(node, "targets", [getattr(node, "target", None)]) if isinstance(t, ast.Name)}
    return set()


def todo_in_namespace(env: dict, codes: list[str]) -> list[str]:
    """The same for a live notebook: the TODOs in the source of the notebook's functions and classes (and values
    still ``...``) that ``codes`` use, and that those functions and classes use in turn."""
    trees: dict[str, list] = {}  # name -> [(function, its syntax tree)] of the notebook's own definitions

    def definition(name: str):
        obj = env.get(name)
        if obj is Ellipsis:
            return ast.Constant(...)
        if getattr(obj, "__module__", None) != env.get("__name__", "__main__"):
            return None  # not the notebook's own (a module, a library's class)
        functions = [obj] if inspect.isfunction(obj) else \
            [f for f in vars(obj).values() if inspect.isfunction(f)] if inspect.isclass(obj) else []
        trees[name] = []
        for f in functions:
            try:
                trees[name].append((f, ast.parse(textwrap.dedent(inspect.getsource(f)))))
            except (OSError, TypeError, SyntaxError):
                continue
        return ast.Module(body=[t for _, t in trees[name]], type_ignores=[])

    places = []
    for name in sorted(_reached(names_used(codes), definition)):
        if env.get(name) is Ellipsis:
            places.append(name)
        places += [f"{name}.{f.__name__}" if f is not env.get(name) else name for f, tree in trees.get(name, ()) if holds_todo(tree)]
    return places


# -- what a student reads --------------------------------------------------------------------------------------

def shown(failed: list[bool], messages: list[str], todo: list[str], keep: list[bool] | None = None) -> list[str | None]:
    """Per case what a student reads (None where it passed): the first failure's message, or, while the question's
    TODO is left, that it is not answered yet; later failures say only ``FIRST_FIRST``. ``keep`` marks messages that always show
    (a broken rule, a stopped cell)."""
    keep = keep or [False] * len(failed)
    out, first = [], True
    for bad, message, always in zip(failed, messages, keep):
        if not bad:
            out.append(None)
        elif always:
            out.append(message)
        elif first:
            out.append(f"{NOT_ANSWERED} ({', '.join(todo)})" if todo else message)
            first = False
        else:
            out.append(FIRST_FIRST)
    return out


def compared(source: str, env: dict) -> str:
    """For a failed ``assert torch.allclose(a, b)`` (or ``torch.equal``) on two tensors the check holds in variables:
    their shapes, or where they differ most, rounded. Empty when the assertion is another kind."""
    try:
        test = ast.parse(source).body[0].test
        func = test.func.attr if isinstance(test.func, ast.Attribute) else test.func.id
        names = [a.id for a in test.args[:2]]
        a, b = (env[n] for n in names)
    except (AttributeError, IndexError, KeyError, SyntaxError, TypeError, ValueError):
        return ""
    if func not in ("allclose", "equal") or not all(isinstance(t, torch.Tensor) for t in (a, b)):
        return ""
    a, b = a.detach().cpu(), b.detach().cpu()
    if a.shape != b.shape:
        return f"shapes: {names[0]} {tuple(a.shape)}, {names[1]} {tuple(b.shape)}"
    if a.numel() == 0 or a.is_complex() or b.is_complex():
        return ""
    diff = torch.nan_to_num((a.double() - b.double()).abs(), nan=float("inf"))
    at = tuple(int(i) for i in torch.unravel_index(diff.argmax(), diff.shape)) if diff.dim() else ()
    where = f"[{', '.join(map(str, at))}]" if at else ""
    return (f"largest difference at {names[0]}{where} = {float(a[at]):.4g}, {names[1]}{where} = {float(b[at]):.4g}"
            f" (shape {tuple(a.shape)})")


def _in_cell(filename: str) -> bool:
    """Whether code comes from a notebook cell (IPython's and ipykernel's names for a cell's code)."""
    return filename.startswith("<ipython-input-") or f"{os.sep}ipykernel_" in filename


def failure(e: BaseException, check_file: str) -> str:
    """The message of a check's exception, as the grader words it (grader/checks.py: ``_message``)."""
    if isinstance(e, AssertionError):
        return str(e) or "a check failed"
    for frame in reversed(inspect.getinnerframes(e.__traceback__, context=0)):
        if frame.filename == check_file:
            break  # raised by the check's own code, or a library it called
        if _in_cell(frame.filename):
            return f"your code raised {type(e).__name__}: {str(e)[:1000]} (in {frame.function}, line {frame.lineno} of its cell)"
    if isinstance(e, NameError):
        return f"{e}: run the cell that defines it (did it raise an error?)"
    return f"the check could not use what your code returned ({type(e).__name__}: {' '.join(str(e).split())[:300]})"


def run_case(code: str, env: dict, name: str) -> str | None:
    """Run one case's statements in ``env`` (a copy of the notebook's namespace, as the trusted grader gives each
    case its own) after seeding torch and random with 0 as the grader does; None when it passes, else what failed:
    the message, and a line comparing the tensors where the assertion compared two."""
    torch.manual_seed(0)
    random.seed(0)
    for ex in examples(code):
        out = io.StringIO()
        try:
            with contextlib.redirect_stdout(out):
                exec(compile(ex.source, name, "single"), env)
        except Exception as e:  # noqa: BLE001 - any failure of a case is that case's result
            extra = compared(ex.source, env) if isinstance(e, AssertionError) else ""
            return failure(e, name) + (f"\n{extra}" if extra else "")
        if out.getvalue().strip() != ex.want.strip():
            return "the check printed something other than expected"
    return None


def summary_lines(name: str, failed: list[bool], messages: list[str], todo: list[str]) -> list[str]:
    """What ``grader.check`` prints for a question with a failing check (its checks are all public)."""
    lines, later = [], []
    for i, text in enumerate(shown(failed, messages, todo), 1):
        if text is None:
            continue
        if text.startswith(NOT_ANSWERED):
            lines.append(f"{name}: {text}")
        elif text == FIRST_FIRST:
            later.append(str(i))
        else:
            lines.append(f"{name}: public check {i} failed: " + text.replace("\n", "\n    "))
    if later and not todo:
        nums = later[0] if len(later) == 1 else ", ".join(later[:-1]) + " and " + later[-1]
        lines.append(f"{name}: public check{'s' * (len(later) > 1)} {nums} also failed; {FIRST_FIRST}")
    return lines


@functools.cache
def _otter_classes() -> dict:
    """:class:`Checks` and :class:`Notebook`, made on first use: importing Otter takes seconds, and only a student's
    kernel needs them (the grader's processes use this module's rules alone). Empty where Otter is missing or a
    stand-in (the grader runs notebooks with one, grader/runner.py: no checks run there)."""
    try:
        from otter.check.logs import EventType
        from otter.check.notebook import Notebook as OtterNotebook
        from otter.check.utils import IPythonInterpreter, LoggedEventReturnValue, logs_event, resolve_test_info
        from otter.execute import Checker
        from otter.test_files import OKTestFile, TestCaseResult, create_test_file
        from otter.utils import hide_outputs
    except ImportError:
        return {}

    class Checks(OKTestFile):
        """A question's public test file run case by case (:func:`run_case`); its text is :func:`summary_lines`'s."""

        todo: list[str] = []

        @classmethod
        def of(cls, test) -> Checks:
            return cls(test.name, test.path, test.test_cases, test.all_or_nothing)

        def run(self, global_environment: dict) -> None:
            self.test_case_results = []
            with torch.random.fork_rng(), hide_outputs():  # the notebook's own random state is left as it was
                state = random.getstate()
                for i, case in enumerate(self.test_cases, 1):
                    env = dict(global_environment)
                    with contract.varied(env) as varied:  # its calls also run under the grader's variants
                        message = run_case(case.body, env, f"<{self.name} check {i}>")
                    kept = [v for v in varied if str(v.get("what", "")).startswith(contract.VARIANTS["fresh"])]
                    if message is None and varied or kept:  # a value kept from an earlier call explains the case's
                        message = contract.variant_message((kept or varied)[0])
                    if message is not None and case.failure_message:
                        message += f"\n{case.failure_message}"
                    self.test_case_results.append(TestCaseResult(case, message or "passed", message is None))
                random.setstate(state)
            self.todo = [] if self.passed_all else todo_in_namespace(global_environment, [c.body for c in self.test_cases])

        def summary(self, public_only: bool = False) -> str:
            if self.passed_all:
                return super().summary(public_only)
            results = self.test_case_results
            return "\n".join(summary_lines(self.name, [not r.passed for r in results], [r.message for r in results], self.todo))

        def _repr_html_(self) -> str:
            return super()._repr_html_() if self.passed_all else f"<pre>{html.escape(self.summary())}</pre>"

    class Notebook(OtterNotebook):
        """Otter's notebook object with :class:`Checks` behind ``check`` (so also behind ``check_all`` and the checks
        ``export(run_tests=True)`` runs in a fresh kernel); the rest is Otter 7's own."""

        @logs_event(EventType.CHECK)
        def check(self, question: str, global_env: dict | None = None):
            # as otter.Notebook.check (Otter 7.0) finds the test and the caller's namespace, with Checks running it
            test_path, test_name = resolve_test_info(self._tests_dir, self._notebook, self._tests_url_prefix, question)
            if test_name is not None and self.interpreter is IPythonInterpreter.COLAB:
                raise ValueError(f"Test {question} does not exist")
            if not os.path.isfile(test_path):
                raise FileNotFoundError(f"Test {question} does not exist")
            if global_env is None:
                frame = sys._getframe(2)  # the caller of logs_event's wrapper
                if f"{os.sep}wrapt{os.sep}" in frame.f_code.co_filename:
                    frame = frame.f_back
                global_env = frame.f_globals
            result = Checks.of(create_test_file(test_path, self._nbmeta_config, test_name=test_name))
            result.run(global_env)
            if Checker._track_results:  # grading mode (export's run of the notebook): Otter collects the results
                Checker.get_results().append(result)
            return LoggedEventReturnValue(result, question=question, shelve_env=global_env)

    for cls in (Checks, Notebook):  # importable by name, as pickle (Otter's log, through dill) finds a class
        cls.__qualname__ = cls.__name__
        globals()[cls.__name__] = cls
    return {"Checks": Checks, "Notebook": Notebook, "OtterNotebook": OtterNotebook}


def __getattr__(name: str):
    if name in ("Checks", "Notebook"):
        classes = _otter_classes()
        if name in classes:
            return classes[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def short_messages(notebook):
    """Otter's notebook object ``notebook`` with this module's short check messages (:class:`Notebook`); where the
    grader runs the notebook (a stand-in for otter, nothing to check) it is returned as it is."""
    classes = _otter_classes()
    if classes and type(notebook) is classes["OtterNotebook"]:
        notebook.__class__ = classes["Notebook"]
    return notebook
