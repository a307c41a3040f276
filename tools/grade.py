"""Grade a whole class locally, without Docker: every submission (.ipynb, or a .zip from grader.export)
in a folder, in parallel, with the notebook's autograder zip from ``make course``.

    python tools/grade.py NOTEBOOK SUBMISSIONS [--out CSV] [--jobs N] [--timeout S] [--memory-mb M]

Writes a CSV (submission, score per question, total, error, seconds, peak memory) and a summary beside
it. A broken submission (not a notebook, wrong assignment, syntax errors, an endless loop, huge output,
an unusual kernel name, a cheat caught by tools/grading_guard.py) gets a row with its error and a total
of 0; it never stops the batch. Exit status 0 unless the command itself was wrong.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
import zipfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
import psutil

ROOT = Path(__file__).resolve().parents[1]
GUARD = "grading_guard"


@dataclass
class Graded:
    submission: str
    scores: dict[str, float] = field(default_factory=dict)  # question -> score; empty when not graded
    error: str = ""
    seconds: float = 0.0
    peak_mb: float = 0.0

    @property
    def total(self) -> float:
        return sum(self.scores.values())


def question_points(autograder_zip: Path) -> dict[str, float]:
    """{question: points} from the zip's test files, in notebook order (q1, q2, ..., q10)."""
    points = {}
    with zipfile.ZipFile(autograder_zip) as z:
        for name in z.namelist():
            if re.fullmatch(r"tests/[^/]+\.py", name):
                spec: dict = {}
                exec(z.read(name).decode(), spec)
                points[spec["test"]["name"]] = float(spec["test"].get("points") or 0)
    key = lambda q: [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", q)]
    return {q: points[q] for q in sorted(points, key=key)}


def load_submission(path: Path, assignment: str) -> nbformat.NotebookNode:
    """The notebook in ``path`` (.ipynb, or the one .ipynb inside an exported .zip), ready to grade:
    outputs cleared, kernel set to python3. Raises ValueError with a message for the CSV."""
    if path.suffix == ".zip":
        try:
            with zipfile.ZipFile(path) as z:
                names = [n for n in z.namelist() if n.endswith(".ipynb") and "__MACOSX" not in n
                         and ".ipynb_checkpoints" not in n]
                if len(names) != 1:
                    raise ValueError(f"the zip holds {len(names)} notebooks, expected 1")
                text = z.read(names[0]).decode("utf-8", "replace")
        except zipfile.BadZipFile:
            raise ValueError("not a readable zip file") from None
    else:
        text = path.read_text(encoding="utf-8", errors="replace")
    try:
        nb = nbformat.reads(text, as_version=4)
    except Exception as e:  # nbformat raises several JSON and schema errors
        raise ValueError(f"not a readable notebook ({type(e).__name__}: {str(e).splitlines()[0][:200]})") from None
    found = nb.metadata.get("otter", {}).get("assignment_name")
    if found != assignment:
        raise ValueError(f"this is not {assignment}: the notebook's assignment name is {found!r} "
                         "(was the right notebook submitted?)")
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    return nb


def _tree_rss(proc: psutil.Process) -> int:
    total = 0
    for p in [proc] + proc.children(recursive=True):
        try:
            total += p.memory_info().rss
        except psutil.Error:
            pass
    return total


def _kill_tree(proc: psutil.Process) -> None:
    for p in proc.children(recursive=True) + [proc]:
        try:
            p.kill()
        except psutil.Error:
            pass


def grade_one(path: Path, autograder_zip: Path, *, name: str | None = None, timeout: float = 600,
              memory_mb: float = 6144, threads: int = 1) -> Graded:
    """Grade one submission with ``otter run`` in a fresh folder, under a time and memory limit."""
    graded = Graded(name or path.name)
    assignment = autograder_zip.name.removesuffix("-autograder.zip")
    with tempfile.TemporaryDirectory(prefix="grade-") as tmp:
        work = Path(tmp)
        try:
            nbformat.write(load_submission(path, assignment), work / f"{assignment}.ipynb")
        except (ValueError, OSError) as e:
            graded.error = str(e)
            return graded
        with zipfile.ZipFile(autograder_zip) as z:
            (work / "guard").mkdir()
            (work / "guard" / f"{GUARD}.py").write_bytes(z.read(f"{GUARD}.py"))
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(work / "guard"), os.environ.get("PYTHONPATH")])),
               "OMP_NUM_THREADS": str(threads), "MKL_NUM_THREADS": str(threads), "MPLBACKEND": "Agg"}
        start = time.perf_counter()
        with open(work / "log.txt", "wb") as log:
            proc = subprocess.Popen([sys.executable, "-m", "otter", "run", "-a", str(autograder_zip), "-o",
                                     str(work), "--no-logo", f"{assignment}.ipynb"],
                                    cwd=work, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
            ps, peak = psutil.Process(proc.pid), 0
            while proc.poll() is None:
                peak = max(peak, _tree_rss(ps))
                elapsed = time.perf_counter() - start
                if elapsed > timeout or peak > memory_mb * 2**20:
                    _kill_tree(ps)
                    proc.wait()
                    graded.error = (f"stopped after {timeout:g} s (an endless loop or a very slow cell?)"
                                    if elapsed > timeout else f"stopped at {memory_mb:g} MB of memory")
                    break
                time.sleep(0.2)
        graded.seconds, graded.peak_mb = time.perf_counter() - start, peak / 2**20
        if graded.error:
            return graded
        results = work / "results.json"
        if not results.is_file():
            tail = (work / "log.txt").read_bytes()[-4000:].decode("utf-8", "replace").strip().splitlines()
            last = next((l for l in reversed(tail) if re.match(r"^\w+(Error|Exception)\b", l)), tail[-1] if tail else "")
            graded.error = f"otter run failed: {last[:300]}"
            return graded
        data = json.loads(results.read_text())
    graded.scores = {t["name"]: float(t["score"]) for t in data["tests"] if "score" in t}
    if not graded.scores:
        failure = [t["output"] for t in data["tests"] if t.get("name") == "Autograder Exception"]
        last = failure[0].strip().splitlines()[-1] if failure else "did the kernel die?"
        graded.error = f"the autograder produced no scores ({last[:300]})"
    graded.error = graded.error or data.get("output", "")
    return graded


def grade_folder(autograder_zip: Path, submissions: Path, out: Path, *, jobs: int, timeout: float,
                 memory_mb: float) -> list[Graded]:
    notebook = autograder_zip.name.removesuffix("-autograder.zip")
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
                      memory_mb=memory_mb, threads=threads)
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


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("notebook", help="e.g. 01_rnn_lstm (its zip must be in dist/)")
    parser.add_argument("submissions", type=Path, help="folder of .ipynb or exported .zip files (searched recursively)")
    parser.add_argument("--out", type=Path, help="CSV to write (default grades/NOTEBOOK.csv)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="submissions graded at once")
    parser.add_argument("--timeout", type=float, default=600, help="seconds one submission may take")
    parser.add_argument("--memory-mb", type=float, default=6144, help="memory one grading may use")
    args = parser.parse_args(argv)
    notebook = Path(args.notebook).stem.removesuffix("-autograder")
    autograder_zip = ROOT / "dist" / f"{notebook}-autograder.zip"
    if not autograder_zip.is_file():
        raise SystemExit(f"dist/{autograder_zip.name} not found: run `make course` first")
    grade_folder(autograder_zip, args.submissions, args.out or ROOT / "grades" / f"{notebook}.csv", jobs=args.jobs,
                 timeout=args.timeout, memory_mb=args.memory_mb)
    return 0


if __name__ == "__main__":
    sys.exit(main())
