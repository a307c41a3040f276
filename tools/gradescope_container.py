"""Grade each notebook's reference solution as Gradescope's default container would: the zip's own grader
(``python -m grader --gradescope``, run from the unpacked zip) in a cgroup of 768 MB and half a CPU (CFS quota
50 ms per 100 ms), and record the score, wall time, the cgroup's peak memory, the sandbox's own peak and limit (the
grader reads the cgroup's limit and keeps its sandbox under it, grader/limits.py) and whether the kernel's OOM killer
acted, in results/gradescope_container.json.

    .venv/bin/python tools/gradescope_container.py [--only NN_topic ...] [--dist DIR] [--memory-mb 768]
        [--submission NOTEBOOK.ipynb --out results/x.json]   (another notebook than the reference solution)
        (after make course, or make course TRIAL=dir and --dist dir/dist; Linux, cgroup v1, root)

Measures this machine's CPU, not Gradescope's; the limits are Gradescope's documented defaults.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
from course import unit_names  # noqa: E402

MEMORY_MB, QUOTA_US, PERIOD_US = 768, 50_000, 100_000  # Gradescope's default container
CGROUP = Path("/sys/fs/cgroup")


def measure(name: str, dist: Path = ROOT / "dist", memory_mb: int = MEMORY_MB, submission: Path | None = None) -> dict:
    group = f"seqcourse-{name}-{os.getpid()}"
    mem, cpu = CGROUP / "memory" / group, CGROUP / "cpu" / group
    mem.mkdir()
    cpu.mkdir()
    try:
        (mem / "memory.limit_in_bytes").write_text(str(memory_mb * 2**20))
        (cpu / "cpu.cfs_period_us").write_text(str(PERIOD_US))
        (cpu / "cpu.cfs_quota_us").write_text(str(QUOTA_US))
        with tempfile.TemporaryDirectory(prefix="gradescope-") as tmp:
            base = Path(tmp)
            with zipfile.ZipFile(dist / f"{name}-autograder.zip") as z:
                z.extractall(base / "source")
            (base / "submission").mkdir()
            shutil.copy(submission or dist / name / "autograder" / f"{name}.ipynb", base / "submission" / f"{name}.ipynb")

            def enter():  # the child joins both groups before it execs
                for g in (mem, cpu):
                    (g / "cgroup.procs").write_text(str(os.getpid()))

            start = time.perf_counter()
            proc = subprocess.run([sys.executable, "-m", "grader", "--gradescope", str(base)], cwd=base / "source",
                                  preexec_fn=enter, capture_output=True, text=True)
            seconds = time.perf_counter() - start
            results = json.loads((base / "results" / "results.json").read_text()) if proc.returncode == 0 else {}
        failcnt = int((mem / "memory.failcnt").read_text())
        oom = re.search(r"^oom_kill (\d+)$", (mem / "memory.oom_control").read_text(), re.M)
        log = re.search(r"peak (\d+) MB \((\d+) MB its own, allowed (\d+) MB\)", proc.stdout or "")
        return {"notebook": name, "container MB": memory_mb, "exit code": proc.returncode, "score": results.get("score"),
                "max score": sum(t["max_score"] for t in results.get("tests", [])), "seconds": round(seconds, 1),
                "peak MB": round(int((mem / "memory.max_usage_in_bytes").read_text()) / 2**20),
                **dict(zip(("sandbox peak MB", "sandbox own MB", "sandbox allowed MB"),
                           (int(log.group(i)) if log else None for i in (1, 2, 3)))),
                "memory limit hits": failcnt, "OOM kills": int(oom.group(1)) if oom else None,
                "not graded": next((t["output"] for t in results.get("tests", []) if t.get("name", "").startswith("Not graded")), ""),
                "points lost": {t["name"]: t["output"][:300] for t in results.get("tests", []) if t["score"] < t["max_score"]},
                "note": (proc.stderr or "")[-300:] if proc.returncode else ""}
    finally:
        for g in (mem, cpu):
            for _ in range(50):
                try:
                    g.rmdir()
                    break
                except OSError:
                    time.sleep(0.1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", nargs="+", default=unit_names())
    parser.add_argument("--dist", type=Path, default=ROOT / "dist", help="where the zips and dist/NN/autograder are")
    parser.add_argument("--memory-mb", type=int, default=MEMORY_MB, help="the container's memory (Gradescope's default 768)")
    parser.add_argument("--submission", type=Path, help="grade this notebook (of the one --only notebook) instead")
    parser.add_argument("--out", type=Path, default=ROOT / "results" / "gradescope_container.json")
    args = parser.parse_args()
    if args.submission and len(args.only) != 1:
        parser.error("--submission needs exactly one --only notebook")
    rows = []
    for name in args.only:
        rows.append(measure(name, args.dist, args.memory_mb, args.submission))
        print(rows[-1], flush=True)
    out = args.out
    out.write_text(json.dumps({
        "what": f"{args.submission.name if args.submission else 'the reference solution'} graded by the zip's own grader in a cgroup of {args.memory_mb} MB and half a CPU "
                "(Gradescope's default container: 768 MB); peak MB is the cgroup's peak usage, page cache included; "
                "sandbox peak MB the notebook's process tree (resident), sandbox own MB its own memory (anonymous and "
                "shared-memory pages), sandbox allowed MB the own memory the grader allowed it (the container's limit "
                "less the grader's own memory and a reserve)",
        "torch": torch.__version__, "python": platform.python_version(), "cpu": platform.processor() or platform.machine(),
        "cores": os.cpu_count(), "date": time.strftime("%Y-%m-%d"), "notebooks": rows}, indent=1) + "\n")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
