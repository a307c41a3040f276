"""Every limit of grading, in one place: what one submission may take, and what the trusted side reads.

Time. One submission's grading (its sandbox: the notebook's cells, then every check) has one budget:
TIMEOUT_S locally (make grade --timeout), GRADESCOPE_TIMEOUT_S on Gradescope (SEQCOURSE_TIMEOUT). Gradescope
kills an autograder after 10 minutes by default (settable up to 40; gradescope/autograder_samples,
docs/troubleshooting.md) and then shows no result at all, so our budget must end well before: 480 s leaves
120 s for what surrounds it (run_autograder starting Python, importing torch, writing results.json). Inside the budget,
no single cell, and no single call of a check into the notebook, may run longer than CELL_TIMEOUT_S
(SEQCOURSE_CELL_TIMEOUT): it is interrupted (or, if it will not stop, its process is killed and the notebook
run again without it), and only the questions that need it lose points. Cells stop CHECKS_RESERVE_S before
the budget ends, so the checks of the cells that ran always get time.

Memory. A sandbox's process tree may hold MEMORY_MB of resident memory (make grade --memory-mb, SEQCOURSE_MEMORY_MB),
and of its own memory (private_memory: what the kernel cannot drop) never more than this grading really has: the
container's cgroup limit (v2 ``memory.max``, v1 ``memory.limit_in_bytes``, the lowest along the grader's own cgroup
and its parents; else the machine's RAM) less the grading process's own memory (measured as the sandbox runs) and
MEMORY_RESERVE_MB. So it is the grader that stops a notebook at the limit, not the kernel's OOM killer; should the
kernel act first all the same (an allocation faster than the watchdog polls), the sandbox is its first choice
(oom_score_adj 1000) and the cgroup's ``oom_kill`` counter tells the grader so. Either way a notebook stopped for
memory is not graded: it is reported as the grader's limit (grader/feedback.py), never as the student's error.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import psutil

TIMEOUT_S = 600             # seconds one submission's grading may take locally (make grade --timeout overrides it)
GRADESCOPE_TIMEOUT_S = 480  # on Gradescope: inside its default 10-minute limit with 120 s to spare (SEQCOURSE_TIMEOUT)
CELL_TIMEOUT_S = 90         # one cell, or one call of a check into the notebook (SEQCOURSE_CELL_TIMEOUT). Measured with
#                             one thread on 2 busy cores: the slowest graded cell of the 8 reference solutions 1.5 s
#                             (02's given data cell, skipped by the grader since 95b8bc9), the slowest call of a check 15.6 s (02, training the student's
#                             model); on half a CPU perhaps twice that (not measured): 90 s stops what would not finish
CHECKS_RESERVE_S = 120      # cells stop this long before the budget ends (a third of a budget under 360 s)
KILL_GRACE_S = 10           # an interrupted cell that has not stopped this long after its limit is killed
MAX_RESTARTS = 5            # times one grading may start the notebook again without a cell that killed it
MEMORY_MB = 4096            # memory of one sandbox's process tree (make grade --memory-mb, SEQCOURSE_MEMORY_MB)
MEMORY_RESERVE_MB = 64      # kept free under the container's limit besides the trusted side's own memory: the kernel's
#                             and page cache's share, and what a check allocates between two polls of the watchdog
WORKER_MARGIN_MB = 1024     # the worker process around a sandbox may use this much more before it is killed
WORKER_MARGIN_S = 60        # ... and this much more time: the sandbox's own limits come first
MAX_NOTEBOOK = 100 * 2**20  # bytes of one submitted notebook (outputs included)
MAX_ZIP_MEMBERS = 1000      # files in a submitted zip


# -- the memory this grading really has ------------------------------------------------------------------------
UNLIMITED = 2**60  # cgroup v1 writes "no limit" as a huge number (9223372036854771712)


def cgroup_root() -> Path:
    """Where the cgroup file system is mounted (SEQCOURSE_CGROUP_ROOT: a stand-in tree, for tests)."""
    return Path(os.environ.get("SEQCOURSE_CGROUP_ROOT", "/sys/fs/cgroup"))


def memory_cgroup(root: Path | None = None, self_cgroup: Path = Path("/proc/self/cgroup")) -> tuple[str, list[Path]]:
    """("v2" or "v1", the folders of this process's memory cgroup, innermost first, then each parent up to the root of
    the hierarchy); ("", []) where there is none. v2 is a unified hierarchy mounted at ``root`` (it has
    ``cgroup.controllers``); v1 a ``memory`` hierarchy under it. A cgroup path that is not there (a cgroup namespace
    shows "/") falls back to the hierarchy's root."""
    root = cgroup_root() if root is None else root
    try:
        lines = self_cgroup.read_text().splitlines()
    except OSError:
        lines = []
    paths = {}
    for line in lines:  # "hierarchy-id:controllers:path"; v2's line is "0::path"
        parts = line.split(":", 2)
        if len(parts) == 3:
            for controller in parts[1].split(",") if parts[1] else [""]:
                paths[controller] = parts[2]
    if (root / "cgroup.controllers").exists():
        version, top, path = "v2", root, paths.get("", "/")
    elif (root / "memory").is_dir():
        version, top, path = "v1", root / "memory", paths.get("memory", "/")
    else:
        return "", []
    here = top / path.strip("/")
    if not here.is_dir():
        here = top
    return version, [here, *[p for p in here.parents if p.is_relative_to(top)]]


def _read_int(path: Path) -> int | None:
    try:
        text = path.read_text().strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None


def cgroup_limit(root: Path | None = None, self_cgroup: Path = Path("/proc/self/cgroup")) -> int | None:
    """The lowest memory limit (bytes) of this process's cgroup and its parents; None where none is set or readable."""
    version, folders = memory_cgroup(root, self_cgroup)
    name = "memory.max" if version == "v2" else "memory.limit_in_bytes"  # v2 writes "max" for no limit
    found = [n for n in (_read_int(f / name) for f in folders) if n is not None and n < UNLIMITED]
    return min(found) if found else None


def oom_kills(root: Path | None = None, self_cgroup: Path = Path("/proc/self/cgroup")) -> int | None:
    """How many processes the kernel's OOM killer has killed: in this process's cgroup and its parents (v2
    ``memory.events``, v1 ``memory.oom_control``: ``oom_kill N``), else on the whole machine (/proc/vmstat); None
    where nothing says. Compared before and after a process vanished, it tells whether memory killed it."""
    version, folders = memory_cgroup(root, self_cgroup)
    name = "memory.events" if version == "v2" else "memory.oom_control"
    counts = [n for n in (_oom_kill(f / name) for f in folders) if n is not None] or \
        [n for n in [_oom_kill(Path("/proc/vmstat"))] if n is not None]
    return sum(counts) if counts else None


def _oom_kill(path: Path) -> int | None:
    try:
        found = re.search(r"^oom_kill (\d+)$", path.read_text(), re.M)
    except OSError:
        return None
    return int(found.group(1)) if found else None


def available_memory(root: Path | None = None, self_cgroup: Path = Path("/proc/self/cgroup")) -> tuple[int, str]:
    """(bytes, what they are) of memory this grading has: the container's cgroup limit, or this machine's RAM."""
    limit, ram = cgroup_limit(root, self_cgroup), psutil.virtual_memory().total
    if limit is not None and limit < ram:
        return limit, f"the container's limit of {limit / 2**20:.0f} MB"
    return ram, f"this machine's {ram / 2**20:.0f} MB"


def private_memory(pid: int) -> int:
    """A process's own resident memory, which the kernel cannot reclaim without swap: anonymous and shared-memory pages
    (/proc/PID/status RssAnon + RssShmem; 0 if gone). Unlike its resident size it leaves out the pages of shared
    libraries and other files (torch's alone are a few hundred MB, shared by the grader and the notebook and dropped
    under pressure)."""
    try:
        text = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return 0
    return 1024 * sum(int(n) for n in re.findall(r"^(?:RssAnon|RssShmem):\s+(\d+) kB", text, re.M))
