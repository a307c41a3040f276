"""What a student reads about one grading: Gradescope's ``results.json`` (:func:`results`) and the same as plain text
(:func:`text`), which ``make grade`` writes per submission. One function makes both.

Each question is two Gradescope tests whose scores add up to the question's: ``q1_rnn_cell (public checks)``,
always visible (students run those checks themselves), and ``q1_rnn_cell (hidden checks)``, with the visibility
``hidden_visibility`` of the autograder's ``grading.json`` (default ``after_due_date``; Gradescope's values
``visible``, ``hidden``, ``after_due_date``, ``after_published``). Gradescope hides a student's total score while a
test with points is hidden until a date. The grader's stdout is for instructors (it may name hidden results), so
``stdout_visibility`` is always ``hidden``; Otter's ``show_stdout`` is not read.

A grading stopped by the grader's own memory limit (``Graded.limit``) is no grade. Gradescope's format
(gradescope/autograder_samples, docs/specs.md) has a top-level ``score`` that overrides the tests' total and a
top-level ``output`` for the whole submission; its troubleshooting page says a run killed for memory needs a larger
container ("Autograder Settings", 768 MB by default), and its "Regrade All Submissions" reruns the autograder.
Otter 7 (otter/run/run_autograder/__init__.py) writes an error as ``score`` 0 and one test "Autograder Error" that
says it. We do the same, so that nothing looks like a grade: score 0, the explanation first in ``output`` and in a
visible test of 0 points named :data:`NOT_GRADED` (instructors find those submissions by it or by their 0), then
every question's tests at 0 saying "not graded".
"""

from __future__ import annotations

VISIBILITIES = ("visible", "hidden", "after_due_date", "after_published")  # Gradescope's
DEFAULT_HIDDEN = "after_due_date"
WHEN = {"visible": "shown to students at once", "hidden": "never shown to students",
        "after_due_date": "shown to students after the due date", "after_published": "shown to students once grades are published"}
HIDDEN_NOTE = {"hidden": "The hidden checks' results are not shown to students.",
               "after_due_date": "The hidden checks' results, and with them your total score, are shown after the due date.",
               "after_published": "The hidden checks' results, and with them your total score, are shown once grades are published.",
               "visible": ""}
# how a note about one part begins (grader/checks.py: those checks ran on the course's stand-in for an earlier definition)
PART_NOTE = {False: "these public checks ran", True: "these hidden checks ran"}


def hidden_visibility(settings: dict) -> str:
    """The visibility of hidden checks' results from an autograder's ``grading.json`` (a ValueError if invalid)."""
    value = settings.get("hidden_visibility", DEFAULT_HIDDEN)
    if value not in VISIBILITIES:
        raise ValueError(f"grading.json: hidden_visibility must be one of {', '.join(VISIBILITIES)} (Gradescope's), "
                         f"got {value!r}")
    return value


NOT_GRADED = "Not graded: the autograder's memory limit"


def _limit_text(what: str) -> str:
    """What a student (and the instructor) reads when the grader's memory limit stopped the grading."""
    return (f"Not graded: {what}. This is a limit of the autograder, not an error in your "
            "answers, and the 0 shown is not your grade: your instructor will grade it again with more memory (tell "
            "them if it stays at 0). A cell that builds something large (training that is not tagged otter_ignore, "
            "a big tensor) may be why.\nInstructors: raise the memory in the assignment's Autograder Settings on "
            "Gradescope (768 MB by default), then Regrade; locally, make grade MEMORY=MB.")


def _part(cases: list[dict], kind: str) -> list[str]:
    lines = []
    for i, c in enumerate(cases, 1):
        lines.append(f"{kind} check {i} ({c['points']:g} pt): {'passed' if c['passed'] else 'failed'}")
        if not c["passed"]:
            lines.append("    " + c["message"].replace("\n", "\n    "))
    return lines


def results(questions, graded, visibility: str) -> dict:
    """Gradescope's results.json for ``graded`` (a grade.Graded) against ``questions`` (checks.Question, in
    notebook order): per question a public and a hidden test, the graded file named in ``output``. Never a check's
    code or inputs (only its verdict and hint), nor anything the notebook printed."""
    tests = []
    for q in questions:
        got = graded.cases.get(q.name)
        score = graded.scores.get(q.name, 0.0)
        public_max = sum(c.points for c in q.cases if not c.hidden)
        passed_public = sum(c["points"] for c in got or [] if not c["hidden"] and c["passed"])
        public = round(min(score, passed_public), 6)
        parts = [(False, "public", public, public_max, "visible"), (True, "hidden", round(score - public, 6), q.points - public_max, visibility)]
        parts = [p for p in parts if any(c.hidden == p[0] for c in q.cases)]
        notes = graded.notes.get(q.name, [])  # stopped cells, stand-ins: where points were lost first, or in their part
        noted = next((p[0] for p in parts if p[2] < round(p[3], 6)), None)
        for hidden, kind, earned, possible, shown in parts:
            if graded.limit:
                earned, output = 0.0, f"not graded: {graded.limit}"
            elif got is None:
                output = "not graded: " + (graded.error or "no result")
            else:
                lines = [f"Note: {n}" for n in notes if n.startswith(PART_NOTE[hidden])
                         or hidden == noted and not n.startswith(tuple(PART_NOTE.values()))]
                output = "\n".join(lines + _part([c for c in got if c["hidden"] == hidden], kind))
                if not hidden and public < round(passed_public, 6):
                    output += f"\nThe question earns {score:g} of {q.points:g} although these checks passed: see its hidden checks."
            tests.append({"name": f"{q.name} ({kind} checks)", "score": earned, "max_score": round(possible, 6),
                          "output": output, "visibility": shown})
    lines = [f"{'Graded' if graded.cases else 'Could not grade'} {graded.submission}." + (f" {graded.note}" if graded.note else "")]
    lines = lines if graded.submission else []
    lines += [HIDDEN_NOTE[visibility]] if HIDDEN_NOTE[visibility] and any(c.hidden for q in questions for c in q.cases) else []
    if graded.limit:
        lines = lines[:1] + [_limit_text(graded.limit)]
        tests.insert(0, {"name": NOT_GRADED, "score": 0.0, "max_score": 0.0, "output": _limit_text(graded.limit),
                         "visibility": "visible"})
    else:
        lines += [f"Grading note: {graded.error}"] if graded.error else []
    challenge = getattr(graded, "challenge", None)
    if challenge and not graded.limit:  # notebook 08's class challenge (grader/challenge.py): a visible test, the board
        tests.append({"name": "Challenge", "score": challenge["points"] if challenge["entry"] else 0.0,
                      "max_score": challenge["points"], "output": challenge["message"], "visibility": "visible"})
    out = {"score": round(sum(t["score"] for t in tests), 6), "output": "\n".join(lines), "stdout_visibility": "hidden",
           "tests": tests}
    if challenge and challenge["entry"]:
        from .challenge import leaderboard

        out["leaderboard"] = leaderboard(challenge)
    return out


def text(results: dict) -> str:
    """``results`` (:func:`results`) as a student reads it on Gradescope, each test with when students see it."""
    possible = sum(t["max_score"] for t in results["tests"])
    lines = [f"score {results['score']:g} / {possible:g}", results["output"], ""]
    for t in results["tests"]:
        lines.append(f"{t['name']}: {t['score']:g} / {t['max_score']:g}   [{WHEN[t['visibility']]}]")
        lines += ["  " + line for line in t["output"].splitlines()]
    return "\n".join(lines) + "\n"
