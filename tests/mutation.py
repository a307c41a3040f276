"""Mutation testing of a master notebook's checks, through the grading path itself.

For one question, the graded code of the master (every code cell outside test blocks and not tagged
``otter_ignore``, exactly what the autograder executes) runs in a sandbox with that question's solution cell
changed, and the question's checks from the built autograder zip (public and hidden cases) run on the
trusted side against it, as in grading. One sandbox per notebook is reused (its namespace is reset for
every variant): far cheaper than one full grading per mutant.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path

from course import graded_cells
from grader import checks
from grader.sandbox import Sandbox

ROOT = Path(__file__).resolve().parents[1]


@dataclass
class Mutant:
    """A bug students make: replace ``old`` (must occur exactly once in the solution cell) by ``new``
    (or each of a tuple of ``old`` strings by the matching ``new``).
    ``message``: a fragment the failure output must contain (the hint that names the bug).
    ``rule``: the mutant breaks a rule its question states, so the whole question must earn 0.
    ``public``: the public checks must reveal it (what a student sees from ``grader.check``), under every torch
    build and whatever test-only packages are installed: a verdict students rely on is pinned, not measured."""

    question: str
    name: str
    old: str | tuple[str, ...]
    new: str | tuple[str, ...]
    message: str = ""
    rule: bool = False
    public: bool = False


class MasterNotebook:
    def __init__(self, master: Path, autograder_zip: Path):
        self.cells = graded_cells(master)  # (question, is solution cell, source)
        self.questions = {q.name: q for q in checks.questions(autograder_zip)}
        self.unit = checks.load_unit(autograder_zip)
        self.sandbox: Sandbox | None = None
        self.seconds: dict[str, float] = {}  # each case's time on the reference solution, once it has run

    def close(self) -> None:
        if self.sandbox is not None:
            self.sandbox.__exit__(None, None, None)
            self.sandbox = None

    def solution(self, question: str) -> str:
        found = [src for q, sol, src in self.cells if q == question and sol]
        assert len(found) == 1, f"{question}: expected one solution cell, found {len(found)}"
        return found[0]

    def run(self, question: str, source: str | None = None, hint: str | None = None,
            until_failure: bool = False) -> checks.QuestionResult:
        """Grade ``question`` with its solution cell replaced by ``source`` (the reference if None). With
        ``hint`` (a mutant's), public cases run first and all of them, hidden cases (the quickest on the reference
        first) only until a case has failed with that hint: the rest cannot change the verdict, and some train a
        model. With ``until_failure``, cases run only until one fails (enough to tell whether all pass)."""
        if self.sandbox is not None and self.sandbox.stopped:
            self.close()
        if self.sandbox is None:
            self.sandbox = Sandbox({"seqcourse": ROOT / "seqcourse"}, timeout=3600, request_timeout=120).__enter__()
        cells = [source if sol and q == question and source is not None else src for q, sol, src in self.cells]
        self.sandbox.run(cells, reset=True)
        q = self.questions[question]
        enough = None
        if hint is not None or until_failure:
            q = dataclasses.replace(q, cases=sorted(q.cases, key=lambda c: (c.hidden, self.seconds.get(c.name, 0.0))))
            public = sum(not c.hidden for c in q.cases)
            enough = lambda results: any(not r.passed for r in results)  # noqa: E731
        if hint is not None:
            enough = lambda results: len(results) >= public and any(not r.passed and hint in r.message for r in results)  # noqa: E731
        result = checks.run_question(self.sandbox, q, self.sandbox.names(), cells, self.unit, enough)
        if source is None:
            self.seconds.update((r.case.name, r.seconds) for r in result.results)
        return result

    def mutate(self, mutant: Mutant) -> str:
        src = self.solution(mutant.question)
        olds, news = (mutant.old, mutant.new) if isinstance(mutant.old, tuple) else ((mutant.old,), (mutant.new,))
        for old, new in zip(olds, news):
            count = src.count(old)
            assert count == 1, f"mutant {mutant.name!r}: {old!r} occurs {count} times in the solution of {mutant.question}"
            src = src.replace(old, new)
        return src


def passed_all(result: checks.QuestionResult) -> bool:
    return all(r.passed for r in result.results)


def failures(result: checks.QuestionResult) -> str:
    """All failure output of a question (what a student would read)."""
    return "\n".join(r.message for r in result.results if not r.passed)


def with_body(source: str, body: str | tuple[str, ...]) -> str:
    """``source`` with the lines between ``# BEGIN SOLUTION`` and ``# END SOLUTION`` replaced by ``body``
    (given without indentation; indented like the markers). A tuple of bodies fills successive blocks."""
    lines = source.splitlines()
    start = 0
    for text in (body,) if isinstance(body, str) else body:
        begin = next(i for i, l in enumerate(lines) if i >= start and l.strip() == "# BEGIN SOLUTION")
        end = next(i for i, l in enumerate(lines) if i > begin and l.strip() == "# END SOLUTION")
        indent = lines[begin][: len(lines[begin]) - len(lines[begin].lstrip())]
        new = [indent + l if l else l for l in text.strip("\n").splitlines()]
        lines = lines[:begin] + new + lines[end + 1:]
        start = begin + len(new)
    return "\n".join(lines)
