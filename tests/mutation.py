"""In-process mutation testing of a master notebook's autograder tests.

For one question, the graded code of the master (every code cell outside test blocks and not tagged
``otter_ignore``, exactly what the autograder executes) is run in a fresh namespace with that question's
solution cell changed, and the question's test file from the built autograder zip (public and hidden
cases) is run against the result. Far cheaper than one full ``otter run`` per mutant.
"""

from __future__ import annotations

import contextlib
import io
import re
import zipfile
from dataclasses import dataclass
from pathlib import Path

from otter.test_files import OKTestFile

from course import graded_cells


@dataclass
class Mutant:
    """A bug students make: replace ``old`` (must occur exactly once in the solution cell) by ``new``
    (or each of a tuple of ``old`` strings by the matching ``new``).
    ``message``: a fragment the failure output must contain (the hint that names the bug)."""

    question: str
    name: str
    old: str | tuple[str, ...]
    new: str | tuple[str, ...]
    message: str = ""


class MasterNotebook:
    def __init__(self, master: Path, autograder_zip: Path | None):
        self.zip = autograder_zip
        self.cells = graded_cells(master)  # (question, is solution cell, source)

    def solution(self, question: str) -> str:
        found = [src for q, sol, src in self.cells if q == question and sol]
        assert len(found) == 1, f"{question}: expected one solution cell, found {len(found)}"
        return found[0]

    def namespace(self, question: str | None = None, source: str | None = None) -> dict:
        """Execute the graded code, with ``question``'s solution cell replaced by ``source``."""
        ns: dict = {"__name__": "__main__"}
        with contextlib.redirect_stdout(io.StringIO()):
            for q, sol, src in self.cells:
                if sol and q == question and source is not None:
                    src = source
                exec(compile(src, f"<{q or 'cell'}>", "exec"), ns)
        return ns

    def test_file(self, question: str) -> OKTestFile:
        with zipfile.ZipFile(self.zip) as z:
            text = z.read(f"tests/{question}.py").decode()
        spec: dict = {}
        exec(text, spec)
        return OKTestFile.from_spec(spec["test"], path=f"tests/{question}.py")

    def run(self, question: str, source: str | None = None) -> OKTestFile:
        test = self.test_file(question)
        test.run(self.namespace(question, source))
        return test

    def mutate(self, mutant: Mutant) -> str:
        src = self.solution(mutant.question)
        olds, news = (mutant.old, mutant.new) if isinstance(mutant.old, tuple) else ((mutant.old,), (mutant.new,))
        for old, new in zip(olds, news):
            count = src.count(old)
            assert count == 1, f"mutant {mutant.name!r}: {old!r} occurs {count} times in the solution of {mutant.question}"
            src = src.replace(old, new)
        return src


def failures(test: OKTestFile) -> str:
    """All failure output of a test file (what a student would read), with ANSI codes stripped."""
    return re.sub(r"\x1b\[[0-9;]*m", "", "\n".join(r.message for r in test.test_case_results if not r.passed))


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
