"""Every autograded question rejects the bugs students make and accepts other correct solutions.

For each unit NN_topic, ``units/NN_topic/mutants.py`` lists MUTANTS (one realistic bug each, in one
question's solution) and ALTERNATIVES (a differently written correct solution per question). The question's
checks from the built autograder zip (public + hidden), run through the grading path (sandbox + trusted
checks, tests/mutation.py), must fail on every mutant, with a failure output that
carries the hint naming the bug, and pass on every alternative and on the reference solution.
"""

from __future__ import annotations

import importlib.util
import re
import warnings

import pytest
import torch

from conftest import ROOT
from course import master_path, unit_names
from grader.checks import report
from mutation import MasterNotebook, failures, passed_all, with_body

NOTEBOOKS = unit_names()


def _mutants(nb: str):
    spec = importlib.util.spec_from_file_location(f"mutants_{nb}", ROOT / "units" / nb / "mutants.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


SPECS = {nb: _mutants(nb) for nb in NOTEBOOKS}
_masters: dict[str, MasterNotebook] = {}
_public_reveals: dict[str, dict[int, bool]] = {}  # notebook -> mutant index -> a public check failed
_garbage_share: dict[str, float] = {}
_variants_run: dict[str, dict[str, set]] = {}  # notebook -> question -> the variants its hidden checks' calls ran under


@pytest.fixture(scope="module", autouse=True)
def _close_sandboxes():
    yield
    for m in _masters.values():
        m.close()


@pytest.fixture
def master(course_build):
    def get(nb: str) -> MasterNotebook:
        if nb not in _masters:
            for other in _masters.values():  # one notebook's sandbox at a time (memory)
                other.close()
            _masters[nb] = MasterNotebook(master_path(nb), course_build[nb].autograder_zip)
        return _masters[nb]
    return get


@pytest.mark.parametrize("nb", NOTEBOOKS)
def test_every_autograded_question_has_mutants_and_an_alternative(master, nb):
    graded = {q for q, sol, _ in master(nb).cells if sol and q and not q.startswith("w")}
    assert graded == {m.question for m in SPECS[nb].MUTANTS} == set(SPECS[nb].ALTERNATIVES)
    assert len(graded) >= 6


@pytest.mark.parametrize("nb, question", [(nb, q) for nb in NOTEBOOKS for q in sorted(SPECS[nb].ALTERNATIVES)])
def test_reference_solution_passes(master, nb, question):
    test = master(nb).run(question)
    assert passed_all(test), failures(test)
    # every question's hidden cases call its code through the contract; where a hidden case gives the notebook's code a
    # model, one gives it in training mode: an eval() left inside the call shows there (the contract sees train()
    # inside in either mode); constructors and declared changes aside
    allowed = getattr(master(nb).unit.checks, "MAY_CHANGE", {}).get(question, ())
    calls = [c for r in test.results for c in r.calls]
    assert calls, "no hidden case calls the notebook's code through the call contract (seqcourse/contract.py)"
    modes: dict = {}
    for call in (c for c in calls if c["argument"] is not None):
        if ".__init__" not in call["function"] and call["function"] not in allowed and f"{call['function']}.{call['argument']}" not in allowed:
            modes.setdefault(f"{call['function']}({call['argument']})", set()).add(call["training"])
    assert all(True in m for m in modes.values()), f"given only in evaluation mode: {[k for k, m in modes.items() if True not in m]}"
    # and its calls run again under the variants (seqcourse/contract.py): at least one, each where it can
    ran = {c["variant"] for c in calls if c.get("variant")}
    assert ran or allowed, "no call of its hidden checks ran under a variant (the calls' arguments, or their time, allow none)"
    _variants_run.setdefault(nb, {})[question] = ran
    variants_row_is_current(nb)


@pytest.mark.parametrize("nb, question", [(nb, q) for nb in NOTEBOOKS for q in sorted(SPECS[nb].ALTERNATIVES)])
def test_alternative_correct_solution_passes(master, nb, question):
    m = master(nb)
    test = m.run(question, with_body(m.solution(question), SPECS[nb].ALTERNATIVES[question]))
    assert passed_all(test), failures(test)


MORE = [(nb, q, i) for nb in NOTEBOOKS for q, bodies in sorted(getattr(SPECS[nb], "MORE_ALTERNATIVES", {}).items())
        for i in range(len(bodies))]


@pytest.mark.parametrize("nb, question, i", MORE)
def test_more_correct_styles_pass(master, nb, question, i):
    """MORE_ALTERNATIVES: further correct answers in other styles (lists of bodies per question)."""
    m = master(nb)
    test = m.run(question, with_body(m.solution(question), SPECS[nb].MORE_ALTERNATIVES[question][i]))
    assert passed_all(test), failures(test)


@pytest.mark.parametrize("nb, mutant", [(nb, m) for nb in NOTEBOOKS for m in SPECS[nb].MUTANTS],
                         ids=lambda v: v if isinstance(v, str) else f"{v.question}: {v.name}")
def test_mutant_is_rejected_with_a_helpful_message(master, nb, mutant):
    m = master(nb)
    test = m.run(mutant.question, m.mutate(mutant), hint=mutant.message)
    _public_reveals.setdefault(nb, {})[SPECS[nb].MUTANTS.index(mutant)] = any(
        not r.passed for r in test.results if not r.case.hidden)
    assert not passed_all(test), f"the autograder accepts the bug '{mutant.name}'"
    if mutant.public:
        public = [r for r in test.results if not r.case.hidden]
        assert any(not r.passed and mutant.message in r.message for r in public), \
            f"the public checks must reveal '{mutant.name}' (torch {torch.__version__}):\n{failures(test)[-3000:]}"
    assert mutant.message in failures(test), f"failure output does not mention {mutant.message!r}:\n{failures(test)[-3000:]}"
    if mutant.rule:  # every check run: the question earns 0, whatever the other checks find
        whole = m.run(mutant.question, m.mutate(mutant))
        assert whole.score == 0 and any(r.rule_broken for r in whole.results), \
            f"an answer that breaks the question's rule earns {whole.score:g} of {whole.question.points:g}"
    readme_row_is_current(nb)


@pytest.mark.parametrize("nb, question", [(nb, q) for nb in NOTEBOOKS for q in sorted(getattr(SPECS[nb], "PUBLIC_ONLY", {}))])
def test_answer_hard_coded_to_the_public_tests_earns_no_hidden_point(master, nb, question):
    m = master(nb)
    test = m.run(question, with_body(m.solution(question), SPECS[nb].PUBLIC_ONLY[question]))
    public = [r for r in test.results if not r.case.hidden]
    hidden = [r for r in test.results if r.case.hidden]
    assert public and all(r.passed for r in public), f"the cheat should pass the public cases:\n{failures(test)}"
    assert hidden and not any(r.passed for r in hidden), "a hidden case accepts an answer hard-coded to the public tests"


@pytest.mark.parametrize("nb", NOTEBOOKS)
def test_answers_right_only_in_types_and_shapes_earn_nothing(master, nb):
    m = master(nb)
    assert set(SPECS[nb].GARBAGE) == set(SPECS[nb].ALTERNATIVES), "one shape-only answer per autograded question"
    earned, total, reports = 0.0, 0.0, []
    for question, bodies in sorted(SPECS[nb].GARBAGE.items()):
        for body in bodies if isinstance(bodies, list) else [bodies]:  # a list: several answers (zeros, a constant, ...)
            test = m.run(question, with_body(m.solution(question), body))
            earned, total = earned + test.score, total + test.question.points
            reports.append(f"{question}: {test.score:g} of {test.question.points:g}\n{report(test)}")
    _garbage_share[nb] = earned / total
    assert earned == 0, f"shape-only answers earn {earned:g} of {total:g} points (a point must mean some value was right):\n" + "\n".join(reports)
    readme_row_is_current(nb)


def readme_row(nb: str) -> str:
    n, public = len(SPECS[nb].MUTANTS), sum(_public_reveals[nb].values())
    return (f"| {nb} | {n} | {public} ({100 * public / n:.0f} %) | {n} (100 %) | {len(SPECS[nb].ALTERNATIVES)} "
            f"of {len(SPECS[nb].ALTERNATIVES)} | {100 * _garbage_share[nb]:.0f} % |")


STRENGTH = ROOT / "docs" / "developers.md"  # the check-strength table, under "## Check strength"


def described_environment(text: str) -> str | None:
    """Why this environment is not the one the table was measured in (None when it is): the torch versions its
    "Measured with" line names, transformers installed (rule mutants import it), scikit-learn not (one imports it).
    The public checks' verdicts are meant not to depend on these; the table is a measurement, compared only
    where it was made."""
    line = next((ln for ln in text.splitlines() if ln.startswith("Measured with torch")), "")
    versions = re.findall(r"torch (\d+\.\d+\.\d+)", line)
    found = []
    if torch.__version__.split("+")[0] not in versions:
        found.append(f"torch {torch.__version__} (the table: {', '.join(versions) or 'no version named'})")
    if importlib.util.find_spec("transformers") is None:
        found.append("transformers not installed")
    if importlib.util.find_spec("sklearn") is not None:
        found.append("scikit-learn installed")
    return "; ".join(found) or None


def readme_row_is_current(nb: str) -> None:
    """Once all of a notebook's mutants and shape-only answers have run in this process (whichever test
    comes last, in any order), the table of check strength (docs/developers.md) must hold the measured row,
    where this environment is the one it names; elsewhere a warning says so and gives the measured row."""
    if len(_public_reveals.get(nb, {})) == len(SPECS[nb].MUTANTS) and nb in _garbage_share:
        table_holds(readme_row(nb), "table of check strength")


def table_holds(row: str, table: str) -> None:
    """docs/developers.md holds the measured ``row`` of ``table``, where this environment is the one the tables were
    measured in; elsewhere a warning says so and gives the measured row."""
    text = STRENGTH.read_text()
    other = described_environment(text)
    if other:
        warnings.warn(f"{table} not compared ({other}); measured here: {row}")
        return
    assert row in text, f"docs/developers.md's {table} disagrees with this run; the measured row:\n{row}"


def variants_row(nb: str) -> str:
    """The row of docs/developers.md's table of variants: per variant, the questions whose hidden checks ran it."""
    from seqcourse.contract import VARIANTS

    ran = _variants_run[nb]
    cells = [" ".join(q.split("_")[0] for q in sorted(ran, key=lambda q: int(q.split("_")[0][1:])) if v in ran[q]) or "none"
             for v in VARIANTS]
    return f"| {nb} | " + " | ".join(cells) + " |"


def variants_row_is_current(nb: str) -> None:
    """Once the reference solution of all of a notebook's questions has run here, the table of variants
    (docs/developers.md) must hold the measured row (where this environment is the one it names)."""
    if len(_variants_run.get(nb, {})) == len(SPECS[nb].ALTERNATIVES):
        table_holds(variants_row(nb), "table of variants")
