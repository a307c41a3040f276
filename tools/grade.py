"""Grade submissions with the trusted grader: student code runs in a sandbox (tools/sandbox.py), every
check runs and every score is computed outside it (tools/checks.py).

    python tools/grade.py NOTEBOOK SUBMISSIONS [--out CSV] [--jobs N] [--timeout S] [--memory-mb M]
    python tools/grade.py --gradescope          (inside Gradescope's container: /autograder/...)

Class grading writes a CSV (submission, score per question, total, error, seconds, peak memory) and a
summary beside it. Each submission is graded by its own worker process with its own temporary folder,
removed whatever happens; a broken submission (not a notebook, a malformed one, wrong assignment, an
endless loop, runaway memory, a kernel that exits, a cheat) gets a row with its error and never stops or
changes another's grade. Exit status 0 unless the command itself was wrong.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import zipfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path

import psutil

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
MAX_NOTEBOOK = 100 * 2**20   # bytes of one submitted notebook (outputs included)
MAX_ZIP_MEMBERS = 1000


@dataclass
class Graded:
    submission: str
    scores: dict[str, float] = field(default_factory=dict)  # question -> score; empty when not graded
    error: str = ""
    seconds: float = 0.0
    peak_mb: float = 0.0
    reports: dict[str, str] = field(default_factory=dict)  # question -> what the student reads

    @property
    def total(self) -> float:
        return sum(self.scores.values())


def question_points(source: Path) -> dict[str, float]:
    """{question: points}, in notebook order, from an autograder zip or its unpacked folder."""
    import checks

    return {q.name: q.points for q in checks.questions(source)}


# -- reading a submission (trusted; any input must end in a ValueError with a message, nothing else) ----
def _read_notebook_bytes(path: Path) -> bytes:
    if path.suffix != ".zip":
        if path.stat().st_size > MAX_NOTEBOOK:
            raise ValueError(f"the notebook is larger than {MAX_NOTEBOOK // 2**20} MB")
        return path.read_bytes()
    try:
        with zipfile.ZipFile(path) as z:
            infos = z.infolist()
            if len(infos) > MAX_ZIP_MEMBERS:
                raise ValueError(f"the zip holds more than {MAX_ZIP_MEMBERS} files")
            found = [i for i in infos if i.filename.endswith(".ipynb") and "__MACOSX" not in i.filename
                     and ".ipynb_checkpoints" not in i.filename]
            if len(found) != 1:
                raise ValueError(f"the zip holds {len(found)} notebooks, expected 1")
            if found[0].file_size > MAX_NOTEBOOK:
                raise ValueError(f"the notebook in the zip is larger than {MAX_NOTEBOOK // 2**20} MB")
            with z.open(found[0]) as f:
                data = f.read(MAX_NOTEBOOK + 1)  # the header's size can lie: never read more than the limit
            if len(data) > MAX_NOTEBOOK:
                raise ValueError(f"the notebook in the zip is larger than {MAX_NOTEBOOK // 2**20} MB")
            return data
    except (zipfile.BadZipFile, zipfile.LargeZipFile, NotImplementedError, EOFError, RuntimeError, OSError) as e:
        raise ValueError(f"not a readable zip file ({type(e).__name__})") from None


def load_cells(path: Path, assignment: str) -> list[str]:
    """The code cells a grader runs from a submission (.ipynb, or the one .ipynb in an exported .zip).

    Read with plain JSON and checked field by field, so a notebook of any shape gives either its cells or
    a ValueError that says what is wrong. Cells tagged ``otter_ignore`` are skipped, as every grader does."""
    try:
        nb = json.loads(_read_notebook_bytes(path).decode("utf-8", "replace"))
    except (ValueError, RecursionError) as e:
        raise ValueError(f"not a readable notebook (invalid JSON: {str(e)[:100]})") from None
    if type(nb) is not dict:
        raise ValueError("not a notebook (the file is not a JSON object)")
    meta = nb.get("metadata")
    otter = meta.get("otter") if type(meta) is dict else None
    found = otter.get("assignment_name") if type(otter) is dict else None
    if found != assignment:
        raise ValueError(f"this is not {assignment}: the notebook's assignment name is {found!r} "
                         "(was the right notebook submitted?)")
    cells = nb.get("cells")
    if type(cells) is not list:
        raise ValueError("not a notebook (it has no list of cells)")
    code = []
    for cell in cells:
        if type(cell) is not dict or cell.get("cell_type") != "code":
            continue
        meta = cell.get("metadata") if type(cell.get("metadata")) is dict else {}
        tags = meta.get("tags") if type(meta.get("tags")) is list else []
        otter_meta = meta.get("otter") if type(meta.get("otter")) is dict else {}
        if "otter_ignore" in tags or otter_meta.get("ignore") is True:
            continue
        source = cell.get("source", "")
        if type(source) is list and all(type(s) is str for s in source):
            source = "".join(source)
        code.append(source if type(source) is str else "")
    return code


# -- one submission, in a worker process ----------------------------------------------------------------
def grade_cells(cells: list[str], source: Path, *, timeout: float, memory_mb: float, threads: int) -> Graded:
    """Run ``cells`` in a sandbox and every check of the autograder ``source`` (zip or folder) here."""
    import checks
    from sandbox import Sandbox, SandboxError

    graded = Graded("")
    questions = checks.questions(source)
    with tempfile.TemporaryDirectory(prefix="public-") as tmp:
        package = checks.extract_package(source, Path(tmp))
        try:
            with Sandbox({"seqcourse": package}, timeout=timeout, memory_mb=memory_mb, threads=threads) as sb:
                results, errors = checks.grade(sb, cells, questions)
                graded.seconds, graded.peak_mb = sb.seconds, sb.peak / 2**20
                stopped = sb.stopped
        except SandboxError as e:
            graded.error = f"the notebook could not be started: {e}"
            return graded
    graded.scores = {r.question.name: r.score for r in results}
    graded.reports = {r.question.name: checks.report(r) for r in results}
    if stopped:
        graded.error = stopped
    elif errors:
        graded.error = f"{len(errors)} cell(s) raised an error, e.g. {errors[0][1]}"
    return graded


def worker(source: Path, submission: Path, timeout: float, memory_mb: float, threads: int) -> None:
    """Entry point of a worker process: grade one submission, print its Graded as JSON."""
    assignment = assignment_name(source)
    try:
        cells = load_cells(submission, assignment)
    except (ValueError, OSError) as e:
        graded = Graded("", error=str(e))
    else:
        graded = grade_cells(cells, source, timeout=timeout, memory_mb=memory_mb, threads=threads)
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


def grade_one(path: Path, autograder_zip: Path, *, name: str | None = None, timeout: float = 600,
              memory_mb: float = 6144, threads: int = 1, workdir: Path | None = None) -> Graded:
    """Grade one submission in a worker process with its own temporary folder (made in ``workdir``, by default
    the system's temporary folder; removed afterwards)."""
    name = name or path.name
    tmp = Path(tempfile.mkdtemp(prefix="grade-", dir=workdir))
    tmp.chmod(0o711)  # in user mode the sandbox user must reach its own folder inside (nothing else)
    start = time.perf_counter()
    try:
        env = {**os.environ, "TMPDIR": str(tmp), "OMP_NUM_THREADS": str(threads), "MKL_NUM_THREADS": str(threads)}
        with open(tmp / "out.json", "wb") as out, open(tmp / "log.txt", "wb") as log:
            proc = subprocess.Popen([sys.executable, str(HERE / "grade.py"), "--worker", str(autograder_zip), str(path),
                                     "--timeout", str(timeout), "--memory-mb", str(memory_mb), "--threads", str(threads)],
                                    stdout=out, stderr=log, env=env, start_new_session=True)
            ps, peak, killed = psutil.Process(proc.pid), 0, ""
            while proc.poll() is None:
                peak = max(peak, _tree_rss(ps))
                if time.perf_counter() - start > timeout + 60:  # the sandbox's own limits come first
                    killed = f"stopped after {timeout:g} s"
                elif peak > (memory_mb + 1024) * 2**20:
                    killed = f"stopped at {memory_mb:g} MB of memory"
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
            return Graded(name, error=killed, seconds=time.perf_counter() - start, peak_mb=peak / 2**20)
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


def grade_folder(autograder_zip: Path, submissions: Path, out: Path, *, jobs: int, timeout: float,
                 memory_mb: float, workdir: Path | None = None) -> list[Graded]:
    notebook = assignment_name(autograder_zip)
    if not submissions.is_dir():
        raise SystemExit(f"{submissions} is not a folder")
    paths = sorted(p for p in submissions.rglob("*") if p.suffix in (".ipynb", ".zip") and p.is_file()
                   and ".ipynb_checkpoints" not in p.parts)
    if not paths:
        raise SystemExit(f"no .ipynb or .zip submissions in {submissions}")
    points = question_points(autograder_zip)
    threads = max(1, (os.cpu_count() or 1) // jobs)
    start = time.perf_counter()
    print(f"grading {len(paths)} submissions of {notebook} ({jobs} at a time, {timeout:g} s each at most)", flush=True)

    def one(path: Path) -> Graded:
        g = grade_one(path, autograder_zip, name=str(path.relative_to(submissions)), timeout=timeout,
                      memory_mb=memory_mb, threads=threads, workdir=workdir)
        print(f"  {g.submission}: {g.total:g} / {sum(points.values()):g}" + (f"  ({g.error})" if g.error else ""), flush=True)
        return g

    with ThreadPoolExecutor(jobs) as pool:
        rows = list(pool.map(one, paths))
    wall = time.perf_counter() - start
    out.parent.mkdir(parents=True, exist_ok=True)
    with open(out, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["submission", *points, "total", "error", "seconds", "peak_mb"])
        for g in rows:
            w.writerow([g.submission, *(f"{g.scores[q]:g}" if q in g.scores else "" for q in points), f"{g.total:g}", g.error,
                        f"{g.seconds:.1f}", f"{g.peak_mb:.0f}"])
    summary = summarize(notebook, rows, points, wall, jobs)
    out.with_suffix(".summary.txt").write_text(summary)
    print(summary + f"\nwrote {out} and {out.with_suffix('.summary.txt')}")
    return rows


def summarize(notebook: str, rows: list[Graded], points: dict[str, float], wall: float, jobs: int) -> str:
    possible = sum(points.values())
    totals = [g.total for g in rows]
    lines = [f"{notebook}: {len(rows)} submissions, {sum(not g.error for g in rows)} graded cleanly, "
             f"{sum(bool(g.error) for g in rows)} with an error",
             f"total out of {possible:g}: mean {statistics.mean(totals):.2f}, median {statistics.median(totals):g}, "
             f"min {min(totals):g}, max {max(totals):g}"]
    lines += [f"  {q}: mean {statistics.mean(g.scores.get(q, 0) for g in rows):.2f} / {p:g}, "
              f"full marks {sum(g.scores.get(q, 0) >= p for g in rows)}" for q, p in points.items()]
    lines.append(f"time: {wall:.0f} s wall with {jobs} jobs, {statistics.mean(g.seconds for g in rows):.1f} s per "
                 f"submission on average; peak memory of one grading {max(g.peak_mb for g in rows):.0f} MB")
    lines += [f"error: {g.submission}: {g.error}" for g in rows if g.error]
    return "\n".join(lines)


# -- Gradescope ------------------------------------------------------------------------------------------
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
            graded = grade_cells(cells, source, timeout=float(os.environ.get("SEQCOURSE_TIMEOUT", 540)),
                                 memory_mb=float(os.environ.get("SEQCOURSE_MEMORY_MB", 4096)), threads=1)
    tests = [{"name": q, "score": graded.scores.get(q, 0.0), "max_score": p,
              "output": graded.reports.get(q, "not graded: " + (graded.error or "no result")), "visibility": "visible"}
             for q, p in points.items()]
    results = {"score": sum(t["score"] for t in tests), "tests": tests, "stdout_visibility": "hidden",
               "output": f"Grading note: {graded.error}" if graded.error else "Graded."}
    (base / "results").mkdir(parents=True, exist_ok=True)
    (base / "results" / "results.json").write_text(json.dumps(results, indent=2))


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--gradescope"]:
        gradescope()
        return 0
    if argv[:1] == ["--worker"]:
        p = argparse.ArgumentParser()
        p.add_argument("--worker", type=Path)
        p.add_argument("submission", type=Path)
        p.add_argument("--timeout", type=float)
        p.add_argument("--memory-mb", type=float)
        p.add_argument("--threads", type=int)
        a = p.parse_args(argv)
        worker(a.worker, a.submission, a.timeout, a.memory_mb, a.threads)
        return 0
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("notebook", help="e.g. 01_rnn_lstm (its zip must be in dist/)")
    parser.add_argument("submissions", type=Path, help="folder of .ipynb or exported .zip files (searched recursively)")
    parser.add_argument("--out", type=Path, help="CSV to write (default grades/NOTEBOOK.csv)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="submissions graded at once")
    parser.add_argument("--timeout", type=float, default=600, help="seconds one submission may take")
    parser.add_argument("--memory-mb", type=float, default=4096, help="memory one submission's sandbox may use")
    args = parser.parse_args(argv)
    notebook = Path(args.notebook).stem.removesuffix("-autograder")
    autograder_zip = ROOT / "dist" / f"{notebook}-autograder.zip"
    if not autograder_zip.is_file():
        raise SystemExit(f"dist/{autograder_zip.name} not found: run `make course` first")
    from sandbox import choose_mode

    choose_mode()  # refuse before grading anything if no sandbox is possible here
    grade_folder(autograder_zip, args.submissions, args.out or ROOT / "grades" / f"{notebook}.csv", jobs=args.jobs,
                 timeout=args.timeout, memory_mb=args.memory_mb)
    return 0


if __name__ == "__main__":
    sys.exit(main())
