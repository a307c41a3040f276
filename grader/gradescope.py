"""The Gradescope entry: ``python -m grader --gradescope`` in the autograder's container (run_autograder)."""

from __future__ import annotations

import json
import os
from pathlib import Path

from . import limits
from .grade import Graded, grade_cells, question_points
from .submission import load_cells


def gradescope(base: Path = Path("/autograder")) -> None:
    """Grade the one submission in ``base/submission`` with the autograder unpacked in ``base/source`` and
    write Gradescope's ``base/results/results.json``: per question the score and what each check said
    (hints of failed hidden checks included; their inputs, their code and the notebook's output never)."""
    source = base / "source"
    assignment = json.loads((source / "otter_config.json").read_text())["assignment_name"]
    points = question_points(source)
    found = sorted(p for p in (base / "submission").rglob("*") if p.suffix in (".ipynb", ".zip") and p.is_file()
                   and ".ipynb_checkpoints" not in p.parts)
    named = [p for p in found if p.stem == assignment]
    graded = Graded("submission")
    if not found:
        graded.error = "no .ipynb or .zip file was submitted"
    else:
        try:
            cells = load_cells((named or found)[0], assignment)
        except (ValueError, OSError) as e:
            graded.error = str(e)
        else:
            graded = grade_cells(cells, source, timeout=float(os.environ.get("SEQCOURSE_TIMEOUT", limits.GRADESCOPE_TIMEOUT_S)),
                                 memory_mb=float(os.environ.get("SEQCOURSE_MEMORY_MB", limits.MEMORY_MB)), threads=1)
    tests = [{"name": q, "score": graded.scores.get(q, 0.0), "max_score": p,
              "output": graded.reports.get(q, "not graded: " + (graded.error or "no result")), "visibility": "visible"}
             for q, p in points.items()]
    results = {"score": sum(t["score"] for t in tests), "tests": tests, "stdout_visibility": "hidden",
               "output": f"Grading note: {graded.error}" if graded.error else "Graded."}
    (base / "results").mkdir(parents=True, exist_ok=True)
    (base / "results" / "results.json").write_text(json.dumps(results, indent=2))
