"""Isolation of a sandbox: which kind this machine allows, and the command, environment and user that a submission's
process runs with.

- ``bwrap`` (bubblewrap, Debian's ``bubblewrap`` package; used wherever it works): new user, PID, network,
  IPC and UTS namespaces, uid 65534 inside, no network at all, a filesystem made only of the system and
  Python directories (read-only), the submission folder (read-write) and a private /tmp.
- ``user`` (for root without bubblewrap, e.g. Gradescope's container): a dedicated unprivileged user
  (``SEQCOURSE_SANDBOX_USER``, default ``sandbox``, created by the autograder's setup script) in its own session.
"""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import sys
import time
from functools import lru_cache
from pathlib import Path

import psutil

SANDBOX_HOME = "/home/student"


@lru_cache(maxsize=None)
def bwrap_works() -> bool:
    exe = shutil.which("bwrap")
    if not exe:
        return False
    try:
        return subprocess.run([exe, "--ro-bind", "/", "/", "--unshare-all", "--die-with-parent", "true"],
                              capture_output=True, timeout=30).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def sandbox_user() -> pwd.struct_passwd | None:
    try:
        return pwd.getpwnam(os.environ.get("SEQCOURSE_SANDBOX_USER", "sandbox"))
    except KeyError:
        return None


def choose_mode() -> str:
    forced = os.environ.get("SEQCOURSE_SANDBOX")  # "bwrap" or "user", to test a mode where both work
    if forced in ("bwrap", "user"):
        return forced
    if bwrap_works():
        return "bwrap"
    if os.geteuid() == 0 and sandbox_user() is not None:
        return "user"
    raise SystemExit("cannot grade safely here: bubblewrap is missing or cannot create namespaces "
                     "(apt-get install bubblewrap), and this is not root with a dedicated user "
                     f"{os.environ.get('SEQCOURSE_SANDBOX_USER', 'sandbox')!r} (useradd --system sandbox)")


def _real(path: str) -> str:
    return os.path.realpath(path)


def environment(mode: str, work: Path, threads: int) -> dict:
    """The whole environment of the sandbox's process (nothing of the grader's is inherited)."""
    home = SANDBOX_HOME if mode == "bwrap" else str(work)
    return {"PATH": "/usr/bin:/bin", "HOME": home, "LANG": "C.UTF-8", "MPLBACKEND": "Agg",
            "MPLCONFIGDIR": "/tmp/mpl" if mode == "bwrap" else str(work / ".mpl"),
            "OMP_NUM_THREADS": str(threads), "MKL_NUM_THREADS": str(threads),
            "PYTHONDONTWRITEBYTECODE": "1", "PYTHONNOUSERSITE": "1", "TQDM_DISABLE": "1",
            "SEQCOURSE_DATA_DIR": os.path.join(home, "data")}


def command(mode: str, folder: Path, work: Path, runner: Path) -> list[str]:
    """The command that starts ``runner/runner.py`` isolated: ``work`` is the submission's folder inside
    ``folder`` (both handed to the sandbox user in ``user`` mode)."""
    python = [os.path.abspath(sys.executable)]
    if mode == "user":
        user = sandbox_user()
        os.chown(folder, user.pw_uid, user.pw_gid)
        for p in [work, *work.rglob("*")]:
            os.chown(p, user.pw_uid, user.pw_gid)
        os.chmod(folder, 0o700)
        return python + [str(runner / "runner.py")]
    cmd = ["bwrap", "--unshare-all", "--unshare-user", "--disable-userns", "--die-with-parent", "--new-session",
           "--uid", "65534", "--gid", "65534", "--hostname", "sandbox",
           "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp"]
    seen = set()
    for path in ["/usr", "/bin", "/sbin", "/lib", "/lib64", "/lib32", "/etc", _real(sys.base_prefix),
                 _real(sys.prefix), sys.prefix, os.path.dirname(_real(sys.executable))]:
        if path not in seen and os.path.exists(path):
            seen.add(path)
            cmd += ["--ro-bind", path, path]
    cmd += ["--bind", str(work), SANDBOX_HOME, "--ro-bind", str(runner), "/opt/grader",
            "--chdir", SANDBOX_HOME, "--"]
    return cmd + python + ["/opt/grader/runner.py"]


def prepare_child(mode: str):
    """What the sandbox's process does before it execs (Popen's ``preexec_fn``): offer itself first to the kernel's
    OOM killer (oom_score_adj 1000, which any process may raise for itself: should the container run out of memory
    before the grader's watchdog acts, the notebook is killed, not the grader), then, in ``user`` mode, become the
    sandbox user."""
    def prepare() -> None:
        try:
            with open("/proc/self/oom_score_adj", "w") as f:
                f.write("1000")
        except OSError:
            pass
        if mode == "user":
            drop_privileges()
    return prepare


def drop_privileges() -> None:
    """Become the sandbox user (``user`` mode; runs in the child before exec)."""
    user = sandbox_user()
    os.setgroups([])
    os.setgid(user.pw_gid)
    os.setuid(user.pw_uid)


def kill_user_processes(uid: int) -> None:
    """Kill every process of ``uid`` until none is left (user mode: nothing a submission starts survives)."""
    for _ in range(50):
        found = [p for p in psutil.process_iter(["uids"]) if p.info["uids"] and p.info["uids"].real == uid]
        if not found:
            return
        for p in found:
            try:
                p.kill()
            except psutil.Error:
                pass
        time.sleep(0.05)
