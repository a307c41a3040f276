"""Grade each notebook's reference solution as Gradescope's default container would: the zip's own grader
(``python -m grader --gradescope``, run from the unpacked zip) in a cgroup of 768 MB and half a CPU (CFS quota
50 ms per 100 ms), and record the score, wall time and the cgroup's peak memory in results/gradescope_container.json.

    .venv/bin/python tools/gradescope_container.py [--only NN_topic ...]   (after make course; Linux, cgroup v1, root)

Measures this machine's CPU, not Gradescope's; the limits are Gradescope's documented defaults.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
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

MEMORY_MB, QUOTA_US, PERIOD_US = 768, 50_000, 100_000
CGROUP = Path("/sys/fs/cgroup")


def measure(name: str) -> dict:
    group = f"seqcourse-{name}-{os.getpid()}"
    mem, cpu = CGROUP / "memory" / group, CGROUP / "cpu" / group
    mem.mkdir()
    cpu.mkdir()
    try:
        (mem / "memory.limit_in_bytes").write_text(str(MEMORY_MB * 2**20))
        (cpu / "cpu.cfs_period_us").write_text(str(PERIOD_US))
        (cpu / "cpu.cfs_quota_us").write_text(str(QUOTA_US))
        with tempfile.TemporaryDirectory(prefix="gradescope-") as tmp:
            base = Path(tmp)
            with zipfile.ZipFile(ROOT / "dist" / f"{name}-autograder.zip") as z:
                z.extractall(base / "source")
            (base / "submission").mkdir()
            shutil.copy(ROOT / "dist" / name / "autograder" / f"{name}.ipynb", base / "submission" / f"{name}.ipynb")

            def enter():  # the child joins both groups before it execs
                for g in (mem, cpu):
                    (g / "cgroup.procs").write_text(str(os.getpid()))

            start = time.perf_counter()
            proc = subprocess.run([sys.executable, "-m", "grader", "--gradescope", str(base)], cwd=base / "source",
                                  preexec_fn=enter, capture_output=True, text=True)
            seconds = time.perf_counter() - start
            results = json.loads((base / "results" / "results.json").read_text()) if proc.returncode == 0 else {}
        failcnt = int((mem / "memory.failcnt").read_text())
        return {"notebook": name, "exit code": proc.returncode, "score": results.get("score"),
                "max score": sum(t["max_score"] for t in results.get("tests", [])), "seconds": round(seconds, 1),
                "peak MB": round(int((mem / "memory.max_usage_in_bytes").read_text()) / 2**20),
                "memory limit hits": failcnt, "note": (proc.stderr or "")[-300:] if proc.returncode else ""}
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
    args = parser.parse_args()
    rows = []
    for name in args.only:
        rows.append(measure(name))
        print(rows[-1], flush=True)
    out = ROOT / "results" / "gradescope_container.json"
    out.write_text(json.dumps({
        "what": f"the reference solution graded by the zip's own grader in a cgroup of {MEMORY_MB} MB and half a CPU "
                "(Gradescope's default container); peak MB is the cgroup's peak usage, page cache included",
        "torch": torch.__version__, "python": platform.python_version(), "cpu": platform.processor() or platform.machine(),
        "cores": os.cpu_count(), "date": time.strftime("%Y-%m-%d"), "notebooks": rows}, indent=1) + "\n")
    print(f"wrote {out.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
