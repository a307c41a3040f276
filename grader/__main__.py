"""The trusted grader's command line.

    python -m grader NOTEBOOK SUBMISSIONS [--out CSV] [--feedback DIR] [--force] [--jobs N] [--timeout S] [--memory-mb M]
        (make grade NOTEBOOK=01 SUBMISSIONS=folder [OUT=csv FEEDBACK=dir FORCE=1 JOBS=n TIMEOUT=s MEMORY=mb])
    python -m grader --gradescope [BASE]   (inside Gradescope's container: BASE is /autograder)
    python -m grader --worker ZIP SUBMISSION ...   (one submission; started by grade.grade_one)

NOTEBOOK is a notebook's name or its unambiguous start (01), whose zip is in dist/. Every file under SUBMISSIONS
gets a row of the CSV (default grades/NOTEBOOK.csv): of one student's notebooks (same folder, names equal but for
an export time), the newest is graded and the others are named in the row's note; any other file gets a row
saying it is not a notebook; hidden files, .ipynb_checkpoints, __MACOSX, .DS_Store and Gradescope's
submission_metadata.yml are left out. Beside the CSV: NOTEBOOK.summary.txt, and per submission what Gradescope
would show it (NOTEBOOK.feedback/SUBMISSION.txt and .json; --feedback DIR elsewhere). An earlier grading there
is never replaced without --force. JOBS defaults to what this machine's cores and free memory allow (one
grading needs up to about 1.6 GB).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import psutil

from . import limits
from .grade import grade_folder, worker
from .gradescope import gradescope
from .isolation import choose_mode

ROOT = Path(__file__).resolve().parents[1]
# memory of one grading (worker and sandbox): measured 1.4-1.6 GB with PyPI's torch, 0.7-1.0 GB with its CPU build
GB_PER_JOB = 1.6


def find_zip(notebook: str, dist: Path = ROOT / "dist") -> Path:
    """dist/NAME-autograder.zip for a notebook's name, or for the start of exactly one notebook's name (01)."""
    name = Path(notebook).name.removesuffix(".zip").removesuffix("-autograder")
    available = sorted(p.name.removesuffix("-autograder.zip") for p in dist.glob("*-autograder.zip"))
    if not available:
        raise SystemExit(f"no autograder zips in {dist}: run `make course` first")
    matches = [n for n in available if n == name] or [n for n in available if n.startswith(name)]
    if len(matches) != 1:
        raise SystemExit(f"{notebook!r} names {'no' if not matches else 'more than one'} notebook in {dist}: "
                         f"choose one of {', '.join(matches or available)}")
    return dist / f"{matches[0]}-autograder.zip"


def default_jobs() -> int:
    """Submissions graded at once: one per core, as many as the available memory holds (printed)."""
    cores = os.cpu_count() or 1
    available = min(psutil.virtual_memory().available, limits.available_memory()[0]) / 2**30  # a container's limit too
    jobs = max(1, min(cores, int(available // GB_PER_JOB)))
    print(f"{jobs} job{'s' * (jobs != 1)} at a time: {cores} cores, {available:.1f} GB of memory available, "
          f"about {GB_PER_JOB:g} GB per grading (--jobs / JOBS=n to choose)")
    return jobs


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--gradescope"]:  # optionally the folder Gradescope's /autograder stands for (tests)
        gradescope(Path(argv[1]) if len(argv) > 1 else Path("/autograder"))
        return 0
    if argv[:1] == ["--worker"]:
        p = argparse.ArgumentParser()
        p.add_argument("--worker", type=Path)
        p.add_argument("submission", type=Path)
        p.add_argument("--timeout", type=float)
        p.add_argument("--memory-mb", type=float)
        p.add_argument("--threads", type=int)
        p.add_argument("--questions", type=Path)
        a = p.parse_args(argv)
        worker(a.worker, a.submission, a.timeout, a.memory_mb, a.threads, a.questions)
        return 0
    parser = argparse.ArgumentParser(prog="python -m grader", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("notebook", help="e.g. 01_rnn_lstm or 01 (its zip must be in dist/)")
    parser.add_argument("submissions", type=Path, help="folder of .ipynb or exported .zip files (searched recursively)")
    parser.add_argument("--out", type=Path, help="CSV to write (default grades/NOTEBOOK.csv)")
    parser.add_argument("--feedback", type=Path, help="folder of the feedback files (default: the CSV's name with .feedback)")
    parser.add_argument("--force", action="store_true", help="replace an earlier grading's CSV, summary and feedback")
    parser.add_argument("--jobs", type=int, help="submissions graded at once (default: from cores and free memory)")
    parser.add_argument("--timeout", type=float, default=limits.TIMEOUT_S, help="seconds one submission may take")
    parser.add_argument("--memory-mb", type=float, default=limits.MEMORY_MB,
                        help="memory one submission's sandbox may use (never more than this machine or container leaves "
                             "it); a notebook stopped there is not graded: grade it again with more")
    args = parser.parse_args(argv)
    autograder_zip = find_zip(args.notebook)
    notebook = autograder_zip.name.removesuffix("-autograder.zip")
    choose_mode()  # refuse before grading anything if no sandbox is possible here
    jobs = args.jobs or default_jobs()
    grade_folder(autograder_zip, args.submissions, args.out or ROOT / "grades" / f"{notebook}.csv", jobs=jobs,
                 timeout=args.timeout, memory_mb=args.memory_mb, feedback_dir=args.feedback, force=args.force)
    return 0


if __name__ == "__main__":
    sys.exit(main())
