"""The trusted half of grading: start a student's notebook in a sandbox and talk to it with data only.

A :class:`Sandbox` copies the submission and the public files it needs into an empty folder and starts
grader/runner.py there, isolated as grader/isolation.py says (bubblewrap, or a dedicated unprivileged user;
without either, grading refuses to start): the repository, hidden tests, solutions and other submissions are
not reachable from it, and when the grading ends everything it started is killed.

This class supervises the process (it polls the memory of the sandbox's process tree and kills it at the limit,
and every request has a deadline), frames the requests and replies, and offers what checks use (run the cells,
the notebook's names, define, swap). Replies are decoded by grader/wire.py; references to the student's objects become
:class:`Remote` proxies, whose calls, attributes and items are requests again, so a check can be written
as ordinary code (``cell = RNNCell(3, 4); h = cell(x, h0)``) and everything it gets back is plain data.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import select
import shutil
import signal
import struct
import subprocess
import tempfile
import threading
import time
from pathlib import Path

import psutil

from . import isolation, limits, wire
from .remote import Remote, SandboxError, ref_of, remote_error_class

HERE = Path(__file__).resolve().parent
RUNNER_FILES = ("runner.py", "wire.py")
# modules a notebook imports that checks may use (always this process's copy, never the sandbox's)
MODULES = {"math", "time", "random", "itertools", "collections", "functools", "re", "string", "torch", "torch.nn",
           "torch.nn.functional", "numpy", "seqcourse", "matplotlib.pyplot"}


class Sandbox:
    """One submission's sandbox. Use as a context manager; ``files`` maps names in the sandbox's
    working folder to local paths (files or folders) to copy in."""

    def __init__(self, files: dict[str, Path], *, timeout: float = limits.TIMEOUT_S, memory_mb: float = limits.MEMORY_MB,
                 threads: int = 1, request_timeout: float = limits.REQUEST_TIMEOUT_S):
        self.files, self.timeout, self.memory = files, timeout, memory_mb * 2**20
        self.threads, self.request_timeout = threads, request_timeout
        self.mode = isolation.choose_mode()
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
        self.proc = subprocess.Popen(isolation.command(self.mode, self.dir, self.work, runner), stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=self.log,
                                     env=isolation.environment(self.mode, self.work, self.threads), start_new_session=True,
                                     preexec_fn=isolation.drop_privileges if self.mode == "user" else None,
                                     cwd=self.work if self.mode == "user" else None)
        self._watch = threading.Thread(target=self._watchdog, daemon=True)
        self._watch.start()
        self._buffer = b""
        ready = self._receive(60)
        if ready != {"ok": "ready"}:
            raise SandboxError(f"the sandbox did not start: {self.log_tail()}")
        return self

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
            isolation.kill_user_processes(isolation.sandbox_user().pw_uid)

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
        return wire.encode(value, ref_of)

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


