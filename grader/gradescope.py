"""The Gradescope entry: ``python -m grader --gradescope`` in the autograder's container (run_autograder).

Of the files a student uploaded (``.ipynb`` or the ``.zip`` of ``grader.export()``, in any folder), the newest is
graded (grader/submission.py: the export time in its name, else the file's time); results.json names it and,
when several were uploaded, lists those not graded. Per question a public and a hidden test (grader/feedback.py);
the hidden checks' visibility comes from the autograder's ``grading.json`` (``hidden_visibility``, default
``after_due_date``): an invalid value stops the run with that message (Gradescope shows the autograder failed).
The sandbox's memory is kept under the container's own limit (grader/limits.py); a notebook stopped for memory is
written as not graded (score 0 and a visible test saying so, grader/feedback.py), never as a grade.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from . import checks, feedback, limits
from .grade import Graded, grade_cells
from .submission import SUFFIXES, choice_note, load_cells, newest_first, settings, skipped


def gradescope(base: Path = Path("/autograder")) -> None:
    """Grade the submission in ``base/submission`` with the autograder unpacked in ``base/source`` and write
    Gradescope's ``base/results/results.json``; print a short log for instructors (stdout stays hidden)."""
    source = base / "source"
    assignment = json.loads((source / "otter_config.json").read_text())["assignment_name"]
    config = settings(source)
    visibility = feedback.hidden_visibility(config)
    questions = checks.questions(source)
    folder = base / "submission"
    found = [p for p in folder.rglob("*") if p.is_file() and p.suffix.lower() in SUFFIXES and not skipped(p, folder)]
    if not found:
        graded = Graded("", error="no .ipynb or .zip file was submitted")
    else:
        ordered = newest_first(found)
        path = ordered[0][0]
        try:
            cells = load_cells(path, assignment, questions=[q.name for q in questions], ignored=config.get("ignored_cells", []))
        except (ValueError, OSError) as e:
            graded = Graded("", error=str(e))
        else:
            graded = grade_cells(cells, source, timeout=float(os.environ.get("SEQCOURSE_TIMEOUT", limits.GRADESCOPE_TIMEOUT_S)),
                                 memory_mb=float(os.environ.get("SEQCOURSE_MEMORY_MB", limits.MEMORY_MB)), threads=1,
                                 submitted=path)
        graded.submission, graded.note = str(path.relative_to(folder)), choice_note(ordered, folder)
    results = feedback.results(questions, graded, visibility)
    (base / "results").mkdir(parents=True, exist_ok=True)
    (base / "results" / "results.json").write_text(json.dumps(results, indent=2))
    print(f"{assignment}: graded {graded.submission or 'nothing'}: {results['score']:g} in {graded.seconds:.1f} s, "
          f"peak {graded.peak_mb:.0f} MB ({graded.own_mb:.0f} MB its own, allowed {graded.room_mb:.0f} MB)" + (f"\nNOT GRADED: {graded.limit}" if graded.limit else "") +
          (f"\n{graded.note}" if graded.note else "") +
          (f"\n{graded.challenge['message']}" if graded.challenge else "") +
          (f"\nerror: {graded.error}" if graded.error else ""))
