"""The trusted grader's command line.

    python -m grader NOTEBOOK SUBMISSIONS [--out CSV] [--jobs N] [--timeout S] [--memory-mb M]   (make grade)
    python -m grader --gradescope [BASE]   (inside Gradescope's container: BASE is /autograder)
    python -m grader --worker ZIP SUBMISSION ...   (one submission; started by grade.grade_one)
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from . import limits
from .grade import grade_folder, worker
from .gradescope import gradescope
from .isolation import choose_mode

ROOT = Path(__file__).resolve().parents[1]


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
        a = p.parse_args(argv)
        worker(a.worker, a.submission, a.timeout, a.memory_mb, a.threads)
        return 0
    parser = argparse.ArgumentParser(prog="python -m grader", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("notebook", help="e.g. 01_rnn_lstm (its zip must be in dist/)")
    parser.add_argument("submissions", type=Path, help="folder of .ipynb or exported .zip files (searched recursively)")
    parser.add_argument("--out", type=Path, help="CSV to write (default grades/NOTEBOOK.csv)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="submissions graded at once")
    parser.add_argument("--timeout", type=float, default=limits.TIMEOUT_S, help="seconds one submission may take")
    parser.add_argument("--memory-mb", type=float, default=limits.MEMORY_MB, help="memory one submission's sandbox may use")
    args = parser.parse_args(argv)
    notebook = Path(args.notebook).stem.removesuffix("-autograder")
    autograder_zip = ROOT / "dist" / f"{notebook}-autograder.zip"
    if not autograder_zip.is_file():
        raise SystemExit(f"dist/{autograder_zip.name} not found: run `make course` first")
    choose_mode()  # refuse before grading anything if no sandbox is possible here
    grade_folder(autograder_zip, args.submissions, args.out or ROOT / "grades" / f"{notebook}.csv", jobs=args.jobs,
                 timeout=args.timeout, memory_mb=args.memory_mb)
    return 0


if __name__ == "__main__":
    sys.exit(main())
