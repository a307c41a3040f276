"""The trusted half of grading: start a student's notebook in a sandbox and talk to it with data only.

A :class:`Sandbox` copies the submission and the public files it needs into an empty folder and starts
grader/runner.py there, isolated as grader/isolation.py says (bubblewrap, or a dedicated unprivileged user;
without either, grading refuses to start): the repository, hidden tests, solutions and other submissions are
not reachable from it, and when the grading ends everything it started is killed.

This class supervises the process (it polls the memory of the sandbox's process tree and kills it at its limits,
grader/limits.py: ``memory_mb``, and what the container leaves beside the grader; every request has a deadline),
frames the requests and replies, and offers what checks use (run the cells, the notebook's names, define, swap). Replies are decoded by grader/wire.py; references to the student's objects become
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

from seqcourse import contract

from . import isolation, limits, wire
from .remote import Remote, SandboxError, ref_of, remote_error_class

HERE = Path(__file__).resolve().parent
RUNNER_FILES = (HERE / "runner.py", HERE / "wire.py", Path(contract.__file__))  # the contract is the helper package's: the
# student's own grader.check runs its variants too (seqcourse/checking.py)
# modules a notebook imports that checks may use (always this process's copy, never the sandbox's)
MODULES = {"math", "time", "random", "itertools", "collections", "functools", "re", "string", "torch", "torch.nn",
           "torch.nn.functional", "numpy", "seqcourse", "matplotlib.pyplot"}


class Sandbox:
    """One submission's sandbox. Use as a context manager; ``files`` maps names in the sandbox's
    working folder to local paths (files or folders) to copy in."""

    def __init__(self, files: dict[str, Path], *, timeout: float = limits.TIMEOUT_S, memory_mb: float = limits.MEMORY_MB,
                 threads: int = 1, request_timeout: float = limits.CELL_TIMEOUT_S):
        self.files, self.timeout, self.memory = files, timeout, memory_mb * 2**20
        self.threads, self.request_timeout = threads, request_timeout  # the limit of one cell or one request
        self.mode = isolation.choose_mode()
        self.proc: subprocess.Popen | None = None
        self.peak = 0  # resident memory of the process tree (bytes), shared libraries' pages included
        self.own_peak = 0  # its own memory: anonymous and shared-memory pages (limits.private_memory)
        self.lowest_room = float("inf")  # the least own memory room() allowed it while it ran (bytes)
        self.stopped: str = ""   # why the sandbox was stopped by us (time or memory)
        self.memory_stop: str = ""  # why, when it was memory (ours or the kernel's): the grading cannot go on
        self.available, self.available_what = limits.available_memory()
        self.ran: list[str] = []  # the cells run in this process's namespace, in order (what a restart runs again)
        self.stopped_cells: dict[int, str] = {}  # index of a cell the last run() stopped or skipped -> why
        self.restarts = 0

    # -- life cycle -------------------------------------------------------------------------------
    def __enter__(self) -> "Sandbox":
        self.dir = Path(tempfile.mkdtemp(prefix="sandbox-"))
        self.work = self.dir / "work"
        runner = self.dir / "runner"
        runner.mkdir()
        for f in RUNNER_FILES:
            shutil.copy(f, runner / f.name)
        self.log = open(self.dir / "log.txt", "wb")
        self.started = time.perf_counter()  # one budget for the whole grading, restarts included
        self._start()
        return self

    def _start(self) -> None:
        """Copy the files into an empty working folder and start the notebook's process there."""
        shutil.rmtree(self.work, ignore_errors=True)
        self.work.mkdir()
        for name, src in self.files.items():
            target = self.work / name
            target.parent.mkdir(parents=True, exist_ok=True)
            if Path(src).is_dir():
                shutil.copytree(src, target, ignore=shutil.ignore_patterns("__pycache__"))
            else:
                shutil.copy(src, target)
        self.proc = subprocess.Popen(isolation.command(self.mode, self.dir, self.work, self.dir / "runner"),
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log,
                                     env=isolation.environment(self.mode, self.work, self.threads), start_new_session=True,
                                     preexec_fn=isolation.prepare_child(self.mode),
                                     cwd=self.work if self.mode == "user" else None)
        self.oom_kills = limits.oom_kills()  # the kernel's count before this process: did it kill it?
        threading.Thread(target=self._watchdog, args=(self.proc,), daemon=True).start()
        self._buffer = b""
        ready = self._receive(60)
        if ready != {"ok": "ready"}:
            raise SandboxError(f"the sandbox did not start: {self.log_tail()}")

    def restart(self) -> None:
        """A new process for the notebook, after a cell or a check killed the last one: the cells that had run
        in it (:attr:`ran`) run again, in order, each within its limit (they all ran within it before). Never after
        a memory stop: the notebook needs more than this grading has, and is not graded (:attr:`memory_stop`)."""
        if self.memory_stop:
            raise SandboxError(self.memory_stop)
        self._stop_process()
        self.stopped = ""
        self.restarts += 1
        self._start()
        ran, self.ran = self.ran, []
        for source in ran:
            if self._run_cell(source, self.request_timeout)["stopped"]:
                raise SandboxError("a cell that had run within its limit did not when the notebook was run again")

    def _watchdog(self, proc: subprocess.Popen) -> None:
        ps = psutil.Process(proc.pid)
        while proc.poll() is None:
            rss = own = 0
            try:
                for p in [ps] + ps.children(recursive=True):
                    try:
                        rss += p.memory_info().rss
                        own += limits.private_memory(p.pid)
                    except psutil.Error:
                        pass
            except psutil.Error:
                pass
            self.peak, self.own_peak = max(self.peak, rss), max(self.own_peak, own)
            room, why = self.room()
            self.lowest_room = min(self.lowest_room, room)
            if rss > self.memory:
                self.memory_stop = f"stopped at {self.memory / 2**20:g} MB of memory, the grader's limit (--memory-mb {self.memory / 2**20:g})"
                self.kill(self.memory_stop)
            elif own > room:
                self.memory_stop = f"stopped at {room / 2**20:.0f} MB of its own memory, {why}"
                self.kill(self.memory_stop)
            elif time.perf_counter() - self.started > self.timeout:
                self.kill(f"stopped after {self.timeout:g} s, the time one grading may take")
            time.sleep(0.1)

    def room(self) -> tuple[int, str]:
        """(bytes, why) of its own memory (:func:`limits.private_memory`: what the kernel cannot reclaim) the sandbox's
        process tree may hold now: what the container (or machine) leaves once the grading process's own and
        :data:`limits.MEMORY_RESERVE_MB` are set aside. (Its resident memory, shared libraries included, is held to
        ``memory_mb`` besides.)"""
        trusted = limits.private_memory(os.getpid())
        room = self.available - trusted - limits.MEMORY_RESERVE_MB * 2**20
        return room, (f"the most this grading can give it: {self.available_what}, less {trusted / 2**20:.0f} MB the "
                      f"grader itself holds and {limits.MEMORY_RESERVE_MB} MB kept free")

    def _ended(self) -> str:
        """Why the notebook's process is gone (it closed its output): stopped by us, killed by the kernel's OOM killer
        (SIGKILL, directly or as bubblewrap's 128 + 9, with the cgroup's or machine's oom_kill count increased), or
        exited by itself."""
        self.proc.wait()
        if not self.stopped and self.proc.returncode in (-signal.SIGKILL, 128 + signal.SIGKILL):
            now = limits.oom_kills()
            if now is not None and self.oom_kills is not None and now > self.oom_kills:
                self.memory_stop = self.stopped = (
                    f"killed by the system for memory at about {self.peak / 2**20:.0f} MB: {self.available_what} "
                    "was used up (the grader's own limit did not act in time)")
        return self.stopped or "the notebook's process exited (does it call exit()?)"

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

    def _stop_process(self) -> None:
        self.kill()
        if self.proc is not None:
            self.proc.wait()
            for f in (self.proc.stdin, self.proc.stdout):
                try:
                    f.close()
                except OSError:
                    pass

    def __exit__(self, *exc) -> None:
        self._stop_process()
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
    def _read(self, n: int, deadline: float, limit: float) -> bytes:
        fd = self.proc.stdout.fileno()
        while len(self._buffer) < n:
            left = deadline - time.perf_counter()
            if left <= 0:
                self.kill(f"stopped after {limit:g} s (killed: it did not stop when interrupted)" if limit else
                          "stopped: the notebook's process did not answer")
                raise SandboxError(self.stopped)
            ready, _, _ = select.select([fd], [], [], min(left, 1.0))
            if ready:
                chunk = os.read(fd, 1 << 20)
                if not chunk:
                    raise SandboxError(self._ended())
                self._buffer += chunk
        data, self._buffer = self._buffer[:n], self._buffer[n:]
        return data

    def _receive(self, timeout: float, limit: float = 0):
        deadline = time.perf_counter() + timeout
        (n,) = struct.unpack(">Q", self._read(8, deadline, limit))
        if n > wire.MAX_FRAME:
            self.kill()
            raise SandboxError("the sandbox sent a message that is too large")
        try:
            return wire.parse_frame(self._read(n, deadline, limit))
        except wire.WireError as e:
            raise SandboxError(str(e)) from None

    def request(self, op: str, timeout: float | None = None, **fields):
        """Send one request; the notebook's side interrupts it after ``timeout`` s (default: the limit of one
        request), and if no answer comes :data:`limits.KILL_GRACE_S` later its process is killed."""
        if self.stopped:
            raise SandboxError(self.stopped)
        limit = timeout or self.request_timeout
        try:
            wire.write_frame(self.proc.stdin, {"op": op, "limit": limit, **fields})
        except (BrokenPipeError, OSError):
            raise SandboxError(self._ended()) from None
        reply = self._receive(limit + limits.KILL_GRACE_S, limit)
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
    def _run_cell(self, source: str, limit: float, reset: bool = False) -> dict:
        out = self.request("run", timeout=limit, source=source, reset=reset)
        if type(out) is not dict or type(out.get("stopped")) is not bool or type(out.get("error")) not in (str, type(None)):
            raise SandboxError("the sandbox sent a malformed reply")
        if not out["stopped"]:
            self.ran.append(source)
        return out

    def run(self, cells: list[str], reset: bool = False, until: float | None = None) -> list[tuple[int, str]]:
        """Execute notebook cells in order, each for at most ``request_timeout`` s; returns (cell index, error)
        for the cells that raised. A cell that runs too long is interrupted; one that does not stop or ends the
        process is killed with it, and the notebook is started again with the cells that had run (:meth:`restart`).
        Either way the next cell runs, and :attr:`stopped_cells` says which cells were stopped and why. A cell that
        runs out of memory ends the grading (SandboxError, :attr:`memory_stop`): the notebook is not graded. With
        ``until`` (seconds since the grading started), no cell runs past it: the cells
        left are skipped. SandboxError when the grading's own budget is spent, or the notebook cannot be run again."""
        if reset:
            self.ran = []
        self.stopped_cells = {}
        errors = []
        for i, source in enumerate(cells):
            limit = self.request_timeout
            if until is not None:
                left = until - self.seconds
                if left < 1:
                    self.stopped_cells[i] = "not run: the time for running cells was used up"
                    continue
                limit = min(limit, left)
            try:
                out = self._run_cell(source, limit, reset=reset)
            except SandboxError as e:
                if self.memory_stop or self.seconds >= self.timeout or self.restarts >= limits.MAX_RESTARTS:
                    raise
                self.stopped_cells[i] = f"{e}; the notebook was run again without it"
                self.restart()
                continue
            reset = False
            if out["stopped"]:
                self.stopped_cells[i] = f"stopped after {round(limit, 1):g} s" + (", the longest a cell may run" if limit == self.request_timeout
                                                                         else ": the time for running cells was used up")
            elif out["error"] is not None:
                errors.append((i, out["error"][:300]))
        return errors

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


