"""The trusted half of grading: start a student's notebook in a sandbox and talk to it with data only.

A :class:`Sandbox` copies the submission and the public files it needs into an empty folder and starts
grader/runner.py there, in one of two isolations:

- ``bwrap`` (bubblewrap, Debian's ``bubblewrap`` package; used wherever it works): new user, PID, network,
  IPC and UTS namespaces, uid 65534 inside, no network at all, a filesystem made only of the system and
  Python directories (read-only), the submission folder (read-write) and a private /tmp: the repository,
  hidden tests, solutions and other submissions do not exist in it. When the grading ends the namespace's
  first process is killed, and the kernel kills everything else in the namespace with it.
- ``user`` (for root without bubblewrap, e.g. Gradescope's container): the runner runs as a dedicated
  unprivileged user (``SEQCOURSE_SANDBOX_USER``, default ``sandbox``, created by the autograder's setup
  script) in its own session, the hidden material stays readable only by root, and every process of that
  user is killed when the grading ends. There is no network isolation in this mode.

Without either, grading refuses to start (install bubblewrap, or run as root with that user).

Both modes poll the memory of the sandbox's process tree and kill it at the limit, and every request has a
deadline. Replies are decoded by grader/wire.py; references to the student's objects become
:class:`Remote` proxies, whose calls, attributes and items are requests again, so a check can be written
as ordinary code (``cell = RNNCell(3, 4); h = cell(x, h0)``) and everything it gets back is plain data.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import pwd
import select
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import threading
import time
from functools import lru_cache
from pathlib import Path

import psutil

from . import limits, wire

HERE = Path(__file__).resolve().parent
RUNNER_FILES = ("runner.py", "wire.py")
SANDBOX_HOME = "/home/student"
# modules a notebook imports that checks may use (always this process's copy, never the sandbox's)
MODULES = {"math", "time", "random", "itertools", "collections", "functools", "re", "string", "torch", "torch.nn",
           "torch.nn.functional", "numpy", "seqcourse", "matplotlib.pyplot"}


class SandboxError(Exception):
    """The sandbox stopped, timed out, ran out of memory or sent something that is not valid data."""


class RemoteError(Exception):
    """Student code raised an exception in the sandbox: ``kind`` is its type name, ``where`` its place."""

    def __init__(self, kind: str, message: str, where: str = ""):
        super().__init__(f"{kind}: {message}" + (f" ({where})" if where else ""))
        self.kind, self.message, self.where = kind, message, where


_BUILTIN_ERRORS = (TypeError, ValueError, IndexError, KeyError, AttributeError, RuntimeError, NotImplementedError,
                   ZeroDivisionError, NameError, LookupError, ArithmeticError, OverflowError)


@lru_cache(maxsize=None)
def remote_error_class(kind: str) -> type:
    """RemoteError, also an instance of the built-in exception the student's code raised (so that
    ``except TypeError`` in a check, or ``list()``'s length hint, behave as with a local object)."""
    base = next((e for e in _BUILTIN_ERRORS if e.__name__ == kind), None)
    return type(f"Remote{kind}", (RemoteError, base), {"__init__": RemoteError.__init__,
                                                       "__str__": Exception.__str__}) if base else RemoteError


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


class Sandbox:
    """One submission's sandbox. Use as a context manager; ``files`` maps names in the sandbox's
    working folder to local paths (files or folders) to copy in."""

    def __init__(self, files: dict[str, Path], *, timeout: float = limits.TIMEOUT_S, memory_mb: float = limits.MEMORY_MB,
                 threads: int = 1, request_timeout: float = limits.REQUEST_TIMEOUT_S):
        self.files, self.timeout, self.memory = files, timeout, memory_mb * 2**20
        self.threads, self.request_timeout = threads, request_timeout
        self.mode = choose_mode()
        self.proc: subprocess.Popen | None = None
        self.peak = 0
        self.stopped: str = ""   # why the sandbox was stopped by us (time or memory)

    # -- life cycle -------------------------------------------------------------------------------
    def __enter__(self) -> "Sandbox":
        self.dir = Path(tempfile.mkdtemp(prefix="sandbox-"))
        self.work = self.dir / "work"
        self.work.mkdir()
        for name, src in self.files.items():
            target = self.work / name
            target.parent.mkdir(parents=True, exist_ok=True)
            if Path(src).is_dir():
                shutil.copytree(src, target, ignore=shutil.ignore_patterns("__pycache__"))
            else:
                shutil.copy(src, target)
        runner = self.dir / "runner"
        runner.mkdir()
        for f in RUNNER_FILES:
            shutil.copy(HERE / f, runner / f)
        self.log = open(self.dir / "log.txt", "wb")
        self.started = time.perf_counter()
        self.proc = subprocess.Popen(self._command(runner), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=self.log, env=self._env(), start_new_session=True,
                                     preexec_fn=self._drop_privileges if self.mode == "user" else None,
                                     cwd=self.work if self.mode == "user" else None)
        self._watch = threading.Thread(target=self._watchdog, daemon=True)
        self._watch.start()
        self._buffer = b""
        ready = self._receive(60)
        if ready != {"ok": "ready"}:
            raise SandboxError(f"the sandbox did not start: {self.log_tail()}")
        return self

    def _env(self) -> dict:
        home = SANDBOX_HOME if self.mode == "bwrap" else str(self.work)
        return {"PATH": "/usr/bin:/bin", "HOME": home, "LANG": "C.UTF-8", "MPLBACKEND": "Agg",
                "MPLCONFIGDIR": "/tmp/mpl" if self.mode == "bwrap" else str(self.work / ".mpl"),
                "OMP_NUM_THREADS": str(self.threads), "MKL_NUM_THREADS": str(self.threads),
                "PYTHONDONTWRITEBYTECODE": "1", "PYTHONNOUSERSITE": "1", "TQDM_DISABLE": "1",
                "SEQCOURSE_DATA_DIR": os.path.join(home, "data")}

    def _command(self, runner: Path) -> list[str]:
        python = [os.path.abspath(sys.executable)]
        if self.mode == "user":
            user = sandbox_user()
            os.chown(self.dir, user.pw_uid, user.pw_gid)
            for p in [self.work, *self.work.rglob("*")]:
                os.chown(p, user.pw_uid, user.pw_gid)
            os.chmod(self.dir, 0o700)
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
        cmd += ["--bind", str(self.work), SANDBOX_HOME, "--ro-bind", str(runner), "/opt/grader",
                "--chdir", SANDBOX_HOME, "--"]
        return cmd + python + ["/opt/grader/runner.py"]

    def _drop_privileges(self) -> None:  # runs in the child before exec (user mode only)
        user = sandbox_user()
        os.setgroups([])
        os.setgid(user.pw_gid)
        os.setuid(user.pw_uid)

    def _watchdog(self) -> None:
        ps = psutil.Process(self.proc.pid)
        while self.proc.poll() is None:
            rss = 0
            try:
                for p in [ps] + ps.children(recursive=True):
                    try:
                        rss += p.memory_info().rss
                    except psutil.Error:
                        pass
            except psutil.Error:
                pass
            self.peak = max(self.peak, rss)
            if rss > self.memory:
                self.kill(f"stopped at {self.memory / 2**20:g} MB of memory")
            elif time.perf_counter() - self.started > self.timeout:
                self.kill(f"stopped after {self.timeout:g} s (an endless loop or a very slow cell?)")
            time.sleep(0.1)

    def kill(self, reason: str = "") -> None:
        self.stopped = self.stopped or reason
        if self.proc is None:
            return
        try:
            tree = psutil.Process(self.proc.pid).children(recursive=True)
        except psutil.Error:
            tree = []
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except OSError:
            pass
        for p in tree:
            try:
                p.kill()
            except psutil.Error:
                pass
        psutil.wait_procs(tree, timeout=5)  # the PID namespace ends with its first process; wait for it
        if self.mode == "user":
            kill_user_processes(sandbox_user().pw_uid)

    def __exit__(self, *exc) -> None:
        self.kill()
        if self.proc is not None:
            self.proc.wait()
            for f in (self.proc.stdin, self.proc.stdout):
                try:
                    f.close()
                except OSError:
                    pass
        self.log.close()
        shutil.rmtree(self.dir, ignore_errors=True)

    @property
    def seconds(self) -> float:
        return time.perf_counter() - self.started

    def log_tail(self, n: int = 2000) -> str:
        self.log.flush()
        data = (self.dir / "log.txt").read_bytes()[-n:]
        return data.decode("utf-8", "replace")

    # -- protocol ---------------------------------------------------------------------------------
    def _read(self, n: int, deadline: float) -> bytes:
        fd = self.proc.stdout.fileno()
        while len(self._buffer) < n:
            left = deadline - time.perf_counter()
            if left <= 0:
                self.kill(f"stopped: no answer from the notebook within {self.request_timeout:g} s")
                raise SandboxError(self.stopped)
            ready, _, _ = select.select([fd], [], [], min(left, 1.0))
            if ready:
                chunk = os.read(fd, 1 << 20)
                if not chunk:
                    self.proc.wait()
                    raise SandboxError(self.stopped or "the notebook's process exited (does it call exit()?)")
                self._buffer += chunk
        data, self._buffer = self._buffer[:n], self._buffer[n:]
        return data

    def _receive(self, timeout: float):
        deadline = time.perf_counter() + timeout
        (n,) = struct.unpack(">Q", self._read(8, deadline))
        if n > wire.MAX_FRAME:
            self.kill()
            raise SandboxError("the sandbox sent a message that is too large")
        try:
            return wire.parse_frame(self._read(n, deadline))
        except wire.WireError as e:
            raise SandboxError(str(e)) from None

    def request(self, op: str, timeout: float | None = None, **fields):
        if self.stopped:
            raise SandboxError(self.stopped)
        try:
            wire.write_frame(self.proc.stdin, {"op": op, **fields})
        except (BrokenPipeError, OSError):
            raise SandboxError(self.stopped or "the notebook's process exited (does it call exit()?)") from None
        reply = self._receive(timeout or self.request_timeout)
        if type(reply) is not dict:
            raise SandboxError("the sandbox sent a malformed reply")
        if "error" in reply:
            err = reply["error"]
            if type(err) is not list or len(err) != 3 or not all(type(x) is str for x in err):
                raise SandboxError("the sandbox sent a malformed error")
            raise remote_error_class(err[0][:100])(err[0][:100], err[1][:1000], err[2][:200])
        if "ok" not in reply:
            raise SandboxError("the sandbox sent a malformed reply")
        return reply["ok"]

    def value(self, op: str, **fields):
        """A request whose answer is a value: decoded, references turned into :class:`Remote`."""
        try:
            return wire.decode(self.request(op, **fields), self._remote)
        except wire.WireError as e:
            raise SandboxError(f"the notebook returned something that is not data: {e}") from None

    def send(self, value):
        return wire.encode(value, _ref_of)

    def _remote(self, ident: int, type_name: str) -> "Remote":
        return Remote(self, ident, type_name)

    # -- what checks use --------------------------------------------------------------------------
    def run(self, cells: list[str], reset: bool = False) -> list[tuple[int, str]]:
        """Execute notebook cells in order; returns (cell index, error) for the cells that raised."""
        errors = self.request("run", cells=cells, reset=reset, timeout=max(1.0, self.timeout - self.seconds) + 10)  # the watchdog stops it first
        if type(errors) is not dict or type(errors.get("errors")) is not list:
            raise SandboxError("the sandbox sent a malformed reply")
        return [(e[0], str(e[1])[:300]) for e in errors["errors"] if type(e) is list and len(e) == 2 and type(e[0]) is int]

    def names(self) -> dict:
        """The notebook's globals: data as values, modules it imported as this process's own copy (if
        in MODULES), everything else as :class:`Remote`."""
        found = self.request("names")
        if type(found) is not dict or type(found.get("names")) is not list:
            raise SandboxError("the sandbox sent a malformed reply")
        out = {}
        for item in found.get("modules") or []:  # the trusted side's own copy of modules it allows
            if type(item) is list and len(item) == 2 and type(item[0]) is str and item[1] in MODULES:
                out[item[0]] = importlib.import_module(item[1])
        for item in found["names"]:
            if type(item) is list and len(item) == 2 and type(item[0]) is str and item[0].isidentifier():
                try:
                    out[item[0]] = wire.decode(item[1], self._remote)
                except wire.WireError:
                    continue
        return out

    def define(self, name: str, source: str):
        """Execute trusted source in the notebook's namespace (e.g. a reference function that the
        student's code will then call by name); returns what ``name`` is bound to there."""
        return self.value("define", name=name, source=source)

    def get_global(self, name: str):
        return self.value("global", name=name)

    def set_global(self, name: str, value) -> None:
        self.request("setglobal", name=name, value=self.send(value))

    @contextlib.contextmanager
    def swap(self, name: str, source: str):
        """While the block runs, the notebook's ``name`` is the one ``source`` defines (a reference, so that a
        bug elsewhere does not cascade into this check); the student's own is put back afterwards."""
        saved = self.get_global(name)
        self.define(name, source)
        try:
            yield
        finally:
            self.set_global(name, saved)


def _ref_of(obj):
    if isinstance(obj, Remote):
        return {"$": "ref", "id": object.__getattribute__(obj, "_id"), "type": "?"}
    raise TypeError(f"a check tried to send a {type(obj).__name__} into the sandbox (only data and the "
                    "notebook's own objects can go there; use Sandbox.define for code)")


class Remote:
    """An object that lives in the sandbox. Calls, attributes, items, len, iteration and truth are
    answered by the sandbox; what comes back is data or another Remote."""

    __slots__ = ("_sb", "_id", "_type")

    def __init__(self, sb: Sandbox, ident: int, type_name: str):
        object.__setattr__(self, "_sb", sb)
        object.__setattr__(self, "_id", ident)
        object.__setattr__(self, "_type", type_name[:100])

    def __call__(self, *args, **kwargs):
        sb = self._sb
        return sb.value("call", id=self._id, args=sb.send(args), kwargs=sb.send(kwargs))

    def __getattr__(self, name: str):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return self._sb.value("getattr", id=self._id, name=name)

    def __setattr__(self, name: str, value) -> None:
        self._sb.request("setattr", id=self._id, name=name, value=self._sb.send(value))

    def __getitem__(self, key):
        return self._sb.value("getitem", id=self._id, key=self._sb.send(key))

    def __setitem__(self, key, value) -> None:
        self._sb.request("setitem", id=self._id, key=self._sb.send(key), value=self._sb.send(value))

    def __len__(self) -> int:
        n = self._sb.request("len", id=self._id)
        if type(n) is not int or n < 0:
            raise SandboxError("len() of a sandbox object is not an int")
        return n

    def __iter__(self):
        items = self._sb.value("iter", id=self._id)
        if type(items) is not list:
            raise SandboxError("iterating a sandbox object gave no list")
        return iter(items)

    def __bool__(self) -> bool:
        b = self._sb.request("bool", id=self._id)
        if type(b) is not bool:
            raise SandboxError("truth of a sandbox object is not a bool")
        return b

    def __repr__(self) -> str:
        return f"<{self._type} in the sandbox>"


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
