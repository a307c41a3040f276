"""Grading one submission in its own worker process, and a class: student code runs in a sandbox
(grader/sandbox.py), every check runs and every score is computed outside it (grader/checks.py).

Class grading (:func:`grade_folder`) grades each student's newest notebook (grader/submission.py) and writes a
CSV (submission, score per question, total, error, seconds, peak memory, note: the student's other files), a
summary beside it and, per submission, what Gradescope would show (grader/feedback.py) as NAME.json and NAME.txt
in a feedback folder; an earlier grading is never replaced without ``force``; every other file gets a row saying
it is not a notebook. Each submission is graded by its own worker process with its own temporary folder,
removed whatever happens; a broken submission (not a notebook, a malformed one, wrong assignment, an
endless loop, a kernel that exits, a cheat) gets a row with its error and never stops or changes another's grade.
A notebook stopped for memory (grader/limits.py) is not graded: its row says the grader's limit was reached and
how to grade it with more, and the summary leaves it, and every other row not graded (a file that is not a
notebook, one that cannot be read), out of its means. Exit status 0 unless the command itself was wrong.
"""

from __future__ import annotations

import csv
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path

import psutil

from . import challenge, checks, feedback, limits
from .sandbox import Sandbox, SandboxError
from .submission import SUFFIXES, choice_note, load_cells, newest_first, settings, skipped, student_key

PACKAGE_PARENT = Path(__file__).resolve().parents[1]  # the worker runs `python -m grader` from here


@dataclass
class Graded:
    submission: str
    scores: dict[str, float] = field(default_factory=dict)  # question -> score; empty when not graded
    error: str = ""
    seconds: float = 0.0
    peak_mb: float = 0.0
    own_mb: float = 0.0  # peak of the sandbox's own memory (grader/limits.py private_memory: no shared libraries)
    room_mb: float = 0.0  # the least own memory the sandbox was allowed (what the container or machine left it)
    cases: dict[str, list[dict]] = field(default_factory=dict)  # question -> per check: hidden, points, passed, message
    notes: dict[str, list[str]] = field(default_factory=dict)  # question -> its stopped cells (checks.QuestionResult.notes)
    note: str = ""  # which file of several was graded (submission.choice_note)
    limit: str = ""  # the grader's own limit that stopped the grading (memory): not graded, not the student's error
    challenge: dict = field(default_factory=dict)  # notebook 08's class challenge (grader/challenge.py: score)

    @property
    def total(self) -> float:
        return sum(self.scores.values())


def question_points(source: Path) -> dict[str, float]:
    """{question: points}, in notebook order, from an autograder zip or its unpacked folder."""
    return {q.name: q.points for q in checks.questions(source)}


# -- one submission, in a worker process ----------------------------------------------------------------
def grade_cells(cells: list[str], source: Path, *, timeout: float, memory_mb: float, threads: int,
                cell_timeout: float | None = None, questions: list[checks.Question] | None = None,
                submitted: Path | None = None) -> Graded:
    """Run ``cells`` in a sandbox and every check of the autograder ``source`` (zip or folder) here, all within
    ``timeout`` s; no cell, and no call of a check into the notebook, may run more than ``cell_timeout`` s
    (default SEQCOURSE_CELL_TIMEOUT, else :data:`limits.CELL_TIMEOUT_S`). Cells stop
    :data:`limits.CHECKS_RESERVE_S` (at most a third of ``timeout``) before the end, leaving the checks their time.
    Where the autograder has a class challenge, the checkpoint of ``submitted`` (the submitted file) is scored after
    the questions, in the same sandbox (grader/challenge.py): it costs nothing but the challenge's entry."""
    if cell_timeout is None:
        cell_timeout = float(os.environ.get("SEQCOURSE_CELL_TIMEOUT", limits.CELL_TIMEOUT_S))
    graded = Graded("")
    questions, unit = checks.questions(source) if questions is None else questions, checks.load_unit(source)
    started = time.perf_counter()
    prepared = challenge.prepare(source, submitted)  # before the sandbox: the held-out text's memory is freed by then
    timeout -= time.perf_counter() - started  # one budget: preparing the challenge counts
    with tempfile.TemporaryDirectory(prefix="public-") as tmp:
        package = checks.extract_package(source, Path(tmp))
        try:
            with Sandbox({"seqcourse": package}, timeout=timeout, memory_mb=memory_mb, threads=threads,
                         request_timeout=cell_timeout) as sb:
                until = timeout - min(limits.CHECKS_RESERVE_S, timeout / 3)
                results, errors = checks.grade(sb, cells, questions, unit, until=until)
                graded.seconds, graded.peak_mb = sb.seconds, sb.peak / 2**20
                graded.own_mb, graded.room_mb = sb.own_peak / 2**20, min(sb.lowest_room, sb.available) / 2**20
                stopped, notes = sb.stopped, checks.stopped_notes(cells, sb.stopped_cells)
                if sb.memory_stop:
                    return not_graded(graded, f"the notebook was {sb.memory_stop}")
                if prepared is not None:
                    graded.challenge = challenge.score(sb, prepared)
        except SandboxError as e:
            graded.error = f"the notebook could not be started: {e}"
            return graded
    graded.scores = {r.question.name: r.score for r in results}
    graded.cases = {r.question.name: [{"hidden": c.case.hidden, "points": c.case.points, "passed": c.passed,
                                       "message": shown or ""} for c, shown in zip(r.results, checks.messages(r))]
                    for r in results}  # what students read: the first failure's hint, as grader.check shows it
    graded.notes = {r.question.name: r.notes for r in results if r.notes}
    problems = list(notes.values())
    if stopped:
        problems.append(stopped)
    if errors:
        first = next(iter(checks.error_notes(cells, errors).values()), errors[0][1])  # the cell by question and first line
        problems.append(f"{len(errors)} cell(s) raised an error, e.g. {first}")
    graded.error = "; ".join(problems)
    return graded


MORE_MEMORY = ("not the student's error and not a grade: grade it again with more memory (on Gradescope: a larger "
               "container in the assignment's Autograder Settings, then Regrade; locally: make grade MEMORY=MB, "
               "python -m grader --memory-mb MB)")


def not_graded(graded: Graded, what: str) -> Graded:
    """``graded`` marked as stopped by the grader's own memory limit (``what`` was reached): no scores at all."""
    graded.scores, graded.cases, graded.notes = {}, {}, {}
    graded.limit = what
    graded.error = f"not graded: {what}; {MORE_MEMORY}"
    return graded


def worker(source: Path, submission: Path, timeout: float, memory_mb: float, threads: int,
           questions: Path | None = None) -> None:
    """Entry point of a worker process: grade one submission, print its Graded as JSON. ``questions``: the
    autograder's questions as the parent parsed them (:func:`checks.questions_json`), else parsed here."""
    found = checks.questions_from_json(questions.read_text()) if questions else checks.questions(source)
    try:
        cells = load_cells(submission, assignment_name(source), questions={q.name: q.points for q in found},
                           ignored=settings(source).get("ignored_cells", []))
    except (ValueError, OSError) as e:
        graded = Graded("", error=str(e))
    else:
        graded = grade_cells(cells, source, timeout=timeout, memory_mb=memory_mb, threads=threads, questions=found,
                             submitted=submission)
    print(json.dumps(asdict(graded)))


def assignment_name(source: Path) -> str:
    return source.name.removesuffix("-autograder.zip")


def _tree_rss(proc: psutil.Process) -> int:
    total = 0
    for p in [proc] + proc.children(recursive=True):
        try:
            total += p.memory_info().rss
        except psutil.Error:
            pass
    return total


def grade_one(path: Path, autograder_zip: Path, *, name: str | None = None, timeout: float = limits.TIMEOUT_S,
              memory_mb: float = limits.MEMORY_MB, threads: int = 1, workdir: Path | None = None,
              questions: list[checks.Question] | None = None) -> Graded:
    """Grade one submission in a worker process with its own temporary folder (made in ``workdir``, by default
    the system's temporary folder; removed afterwards). ``questions``: the zip's, parsed already (a class's
    grading parses them once; the worker then need not import Otter, seconds per submission)."""
    name = name or path.name
    tmp = Path(tempfile.mkdtemp(prefix="grade-", dir=workdir))
    tmp.chmod(0o711)  # in user mode the sandbox user must reach its own folder inside (nothing else)
    start = time.perf_counter()
    try:
        env = {**os.environ, "TMPDIR": str(tmp), "OMP_NUM_THREADS": str(threads), "MKL_NUM_THREADS": str(threads)}
        given = []
        if questions is not None:
            (tmp / "questions.json").write_text(checks.questions_json(questions))
            given = ["--questions", str(tmp / "questions.json")]
        with open(tmp / "out.json", "wb") as out, open(tmp / "log.txt", "wb") as log:
            proc = subprocess.Popen([sys.executable, "-m", "grader", "--worker", str(autograder_zip), str(path),
                                     "--timeout", str(timeout), "--memory-mb", str(memory_mb), "--threads", str(threads),
                                     *given],
                                    stdout=out, stderr=log, env=env, start_new_session=True, cwd=PACKAGE_PARENT)
            ps, peak, killed = psutil.Process(proc.pid), 0, ""
            oom_kills = limits.oom_kills()
            while proc.poll() is None:
                peak = max(peak, _tree_rss(ps))
                if time.perf_counter() - start > timeout + limits.WORKER_MARGIN_S:  # the sandbox's own limits come first
                    killed = f"stopped after {timeout:g} s"
                elif peak > (memory_mb + limits.WORKER_MARGIN_MB) * 2**20:
                    killed = f"worker stopped at {(memory_mb + limits.WORKER_MARGIN_MB):g} MB of memory"
                if killed:
                    for p in ps.children(recursive=True) + [ps]:
                        try:
                            p.kill()
                        except psutil.Error:
                            pass
                    proc.wait()
                    break
                time.sleep(0.2)
        if killed:
            graded = Graded(name, error=killed, seconds=time.perf_counter() - start, peak_mb=peak / 2**20)
            return not_graded(graded, f"grading {killed}") if "memory" in killed else graded
        if proc.returncode == -9 and (limits.oom_kills() or 0) > (oom_kills or 0):  # the kernel's OOM killer
            return not_graded(Graded(name, seconds=time.perf_counter() - start, peak_mb=peak / 2**20),
                              f"grading was killed by the system for memory at about {peak / 2**20:.0f} MB")
        try:
            graded = Graded(**json.loads((tmp / "out.json").read_text().strip().splitlines()[-1]))
        except (ValueError, IndexError, TypeError):
            tail = (tmp / "log.txt").read_bytes()[-2000:].decode("utf-8", "replace").strip().splitlines()
            return Graded(name, error=f"the grader failed: {tail[-1][:300] if tail else 'no output'}",
                          seconds=time.perf_counter() - start, peak_mb=peak / 2**20)
        graded.submission, graded.seconds = name, time.perf_counter() - start
        graded.peak_mb = max(graded.peak_mb, peak / 2**20)
        return graded
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def class_files(root: Path) -> list[tuple[list[Path], list[Path]]]:
    """Every file under ``root`` (:func:`submission.skipped` ones left out) by student (:func:`submission.student_key`):
    per student, their notebooks (.ipynb, .zip) and their other files."""
    groups: dict = {}
    for p in sorted(root.rglob("*")):
        if p.is_file() and not skipped(p, root) and p.suffix.lower() != challenge.SUFFIX:  # a checkpoint: its notebook's
            notebooks, others = groups.setdefault(student_key(p), ([], []))
            (notebooks if p.suffix.lower() in SUFFIXES else others).append(p)
    return list(groups.values())


NOT_A_NOTEBOOK = "not a notebook (only .ipynb files and the .zip that grader.export() writes are graded)"


def _refuse_overwrite(out: Path, feedback_dir: Path, force: bool) -> None:
    """An earlier grading's CSV, summary or feedback is replaced only with ``force`` (and a feedback folder only
    if it holds nothing but what grading writes)."""
    earlier = [p for p in (out, out.with_suffix(".summary.txt")) if p.exists()]
    earlier += [feedback_dir] if feedback_dir.is_dir() and any(feedback_dir.iterdir()) else []
    if earlier and not force:
        raise SystemExit(f"{', '.join(map(str, earlier))} already exist(s) (an earlier grading): nothing was graded. "
                         "Choose another --out (make grade OUT=...) or replace them with --force (make grade FORCE=1).")
    if feedback_dir.is_dir():
        strange = [p for p in feedback_dir.rglob("*") if p.is_file() and p.suffix not in (".txt", ".json")]
        if strange:
            raise SystemExit(f"{feedback_dir} holds files grading does not write (e.g. {strange[0]}): not replacing it; "
                             "choose another --feedback folder")
        shutil.rmtree(feedback_dir)


def grade_folder(autograder_zip: Path, submissions: Path, out: Path, *, jobs: int, timeout: float,
                 memory_mb: float, workdir: Path | None = None, feedback_dir: Path | None = None,
                 force: bool = False) -> list[Graded]:
    """Grade every student's newest notebook under ``submissions``; write the CSV ``out``, a summary beside it and
    per submission what Gradescope would show (``feedback_dir``, default ``out`` with the suffix ``.feedback``:
    NAME.json as results.json, NAME.txt as text). Refuses to replace an earlier grading unless ``force``."""
    notebook = assignment_name(autograder_zip)
    if not submissions.is_dir():
        raise SystemExit(f"{submissions} is not a folder")
    feedback_dir = feedback_dir or out.with_suffix(".feedback")
    _refuse_overwrite(out, feedback_dir, force)
    groups = class_files(submissions)
    if not groups:
        raise SystemExit(f"no files in {submissions}")
    questions = checks.questions(autograder_zip)
    visibility = feedback.hidden_visibility(settings(autograder_zip))
    points = {q.name: q.points for q in questions}
    threads = max(1, (os.cpu_count() or 1) // jobs)
    start = time.perf_counter()
    todo = sum(bool(notebooks) for notebooks, _ in groups)
    print(f"grading {plural(todo, 'submission')} of {notebook} ({jobs} at a time, {timeout:g} s each at most)", flush=True)

    def one(group: tuple[list[Path], list[Path]]) -> list[Graded]:
        notebooks, others = group
        if not notebooks:
            return [Graded(str(p.relative_to(submissions)), error=NOT_A_NOTEBOOK) for p in others]
        ordered = newest_first(notebooks)
        g = grade_one(ordered[0][0], autograder_zip, name=str(ordered[0][0].relative_to(submissions)), timeout=timeout,
                      memory_mb=memory_mb, threads=threads, workdir=workdir, questions=questions)
        g.note = " ".join([choice_note(ordered, submissions)] * (len(ordered) > 1) +
                          [f"Also submitted, not a notebook: {', '.join(str(p.relative_to(submissions)) for p in others)}."] * bool(others))
        print(f"  {g.submission}: " + ("not graded" if g.limit else f"{g.total:g} / {sum(points.values()):g}") +
              (f"  ({g.error})" if g.error else ""), flush=True)
        return [g]

    with ThreadPoolExecutor(jobs) as pool:
        rows = sorted((g for found in pool.map(one, groups) for g in found), key=lambda g: g.submission)
    wall = time.perf_counter() - start
    out.parent.mkdir(parents=True, exist_ok=True)
    with open(out, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["submission", *points, "total", "error", "seconds", "peak_mb", "note"])
        for g in rows:
            w.writerow([g.submission, *(f"{g.scores[q]:g}" if q in g.scores else "" for q in points),
                        f"{g.total:g}" if g.scores else "", g.error,
                        f"{g.seconds:.1f}", f"{g.peak_mb:.0f}", g.note])
    if any(g.challenge for g in rows):
        challenge.write_board(out.with_suffix(".challenge.csv"), rows)
    for g in rows:
        results = feedback.results(questions, g, visibility)
        target = feedback_dir / g.submission
        target.parent.mkdir(parents=True, exist_ok=True)
        target.with_name(target.name + ".json").write_text(json.dumps(results, indent=2))
        target.with_name(target.name + ".txt").write_text(feedback.text(results))
    summary = summarize(notebook, rows, points, wall, jobs)
    out.with_suffix(".summary.txt").write_text(summary)
    print(summary + f"\nwrote {out}, {out.with_suffix('.summary.txt')}, " +
          (f"the challenge's board {out.with_suffix('.challenge.csv')} " if any(g.challenge for g in rows) else "") + "and what each student would see on Gradescope in "
          f"{feedback_dir}/ (SUBMISSION.txt, SUBMISSION.json)")
    return rows


def summarize(notebook: str, rows: list[Graded], points: dict[str, float], wall: float, jobs: int) -> str:
    """The class's summary: how many rows were graded and how many not (apart: the grader's memory limit, files that
    are not notebooks, notebooks that could not be read or run), and the means of the graded rows only."""
    possible = sum(points.values())
    graded = [g for g in rows if g.scores]
    limit = sum(bool(g.limit) for g in rows)
    other = sum(g.error == NOT_A_NOTEBOOK for g in rows)
    unread = len(rows) - len(graded) - limit - other
    apart = [f"{n} {what}" for n, what in ((limit, "stopped at the grader's memory limit (not the student's error: "
                                                   "grade again with more memory, MEMORY=MB)"),
                                           (other, "not a notebook"), (unread, "a notebook that could not be read or run"))
             if n]
    lines = [f"{notebook}: {plural(len(rows), 'submission')}, {len(graded)} graded ({sum(not g.error for g in graded)} cleanly, "
             f"{sum(bool(g.error) for g in graded)} with an error in a cell or check), {len(rows) - len(graded)} not graded"
             + (f": {', '.join(apart)}" if apart else "")]
    if graded:
        totals = [g.total for g in graded]
        lines.append(f"total out of {possible:g}, over the {plural(len(graded), 'graded submission')}"
                     + (" (rows not graded are left out)" if len(graded) < len(rows) else "") +
                     f": mean {statistics.mean(totals):.2f}, median {statistics.median(totals):g}, "
                     f"min {min(totals):g}, max {max(totals):g}")
        lines += [f"  {q}: mean {statistics.mean(g.scores.get(q, 0) for g in graded):.2f} / {p:g}, "
                  f"full marks {sum(g.scores.get(q, 0) >= p for g in graded)}" for q, p in points.items()]
    else:
        lines.append("no submission was graded: no means")
    lines.append(f"time: {wall:.0f} s wall with {plural(jobs, 'job')}, {statistics.mean(g.seconds for g in rows):.1f} s per "
                 f"row on average; peak memory of one grading {max(g.peak_mb for g in rows):.0f} MB")
    lines += [f"not graded: {g.submission}: {g.error.removeprefix('not graded: ')}" for g in rows if not g.scores]
    lines += [f"error: {g.submission}: {g.error}" for g in graded if g.error]
    lines += [f"note: {g.submission}: {g.note}" for g in rows if g.note]
    return "\n".join(lines) + "\n"
