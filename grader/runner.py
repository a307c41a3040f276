"""The untrusted half of grading: runs inside the sandbox (grader/sandbox.py starts it) and executes a
student's notebook, then answers requests from the trusted grader about the objects it defined.

Nothing here is trusted. The student's code runs in this process and can change anything in it; the
trusted side therefore sends only data and accepts only data (grader/wire.py: JSON with tensors as raw
bytes, never pickle), checks what it gets, computes every reference itself and scores outside.

Protocol: length-prefixed JSON frames on the process's original stdin (requests) and stdout (replies);
before any student code runs, fd 0 is pointed at /dev/null and fd 1 at fd 2 (a log file the grader keeps
for instructors), so prints cannot mix with replies. A request's ``limit`` (seconds) arms SIGALRM: when it
rings, :class:`TimeLimit` is raised in whatever code runs (a cell, or the student's function a check called).
That is a courtesy to well-behaved code only; code that catches it or blocks in C is killed by the trusted
side (grader/sandbox.py) a few seconds later.
"""

from __future__ import annotations

import builtins
import contextlib
import os
import signal
import sys
import traceback
import types

import contract  # seqcourse/contract.py, beside this file in the sandbox, as is wire (grader/sandbox.py copies them there)
import wire

# Objects handed to the trusted side by reference (modules, functions, instances): id -> object.
OBJECTS: dict[int, object] = {}


class TimeLimit(BaseException):
    """Raised in the notebook's code when a request runs past its limit (not an Exception: ``except Exception``
    in a student's loop does not swallow it)."""


@contextlib.contextmanager
def time_limit(seconds):
    def ring(signum, frame):
        raise TimeLimit(f"stopped after {seconds:g} s")

    if not seconds or seconds <= 0:
        yield
        return
    signal.signal(signal.SIGALRM, ring)  # set again for every request: a cell may have replaced it
    signal.setitimer(signal.ITIMER_REAL, float(seconds))
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


def ref(obj) -> dict:
    OBJECTS[id(obj)] = obj
    return {"$": "ref", "id": id(obj), "type": type(obj).__qualname__}


def resolve(ident: int):
    try:
        return OBJECTS[ident]
    except KeyError:
        raise LookupError("the grader referred to an object that no longer exists") from None


class FakeGrader:
    """Stands in for ``otter.Notebook`` while grading: checks and exports do nothing here."""

    def __init__(self, *args, **kwargs):
        pass

    def __getattr__(self, name):
        return lambda *args, **kwargs: None


def install_fake_otter() -> None:
    otter = types.ModuleType("otter")
    otter.Notebook = FakeGrader
    sys.modules["otter"] = otter


class Session:
    def __init__(self):
        from IPython.core.interactiveshell import InteractiveShell

        self.shell = InteractiveShell.instance()
        self.ns = self.shell.user_ns

    def run(self, source: str, reset: bool) -> dict:
        """Execute one cell like a notebook kernel: its error (or None), and whether its time limit stopped it."""
        if reset:
            self.shell.reset(new_session=False)
            self.ns = self.shell.user_ns
            OBJECTS.clear()
        try:
            result = self.shell.run_cell(source, store_history=False, silent=False)
        except TimeLimit:  # rang outside the cell's own code (IPython's machinery)
            return {"error": None, "stopped": True}
        err = result.error_in_exec or result.error_before_exec
        if isinstance(err, TimeLimit):
            return {"error": None, "stopped": True}
        return {"error": None if err is None else f"{type(err).__name__}: {str(err)[:300]}", "stopped": False}

    def handle(self, req: dict):
        op = req["op"]
        if op == "run":
            return self.run(str(req["source"]), bool(req.get("reset")))
        if op == "names":  # the notebook's globals that are not private: modules by name, the rest as values
            contract.wrap_namespace(self.ns)  # its own functions and classes: every call keeps the contract
            items = [(k, v) for k, v in list(self.ns.items()) if not k.startswith("_") and v is not getattr(builtins, k, None)
                     and k not in ("In", "Out", "exit", "quit", "get_ipython")]
            return {"names": [[k, wire.encode(v, ref)] for k, v in items if not isinstance(v, types.ModuleType)],
                    "modules": [[k, v.__name__] for k, v in items if isinstance(v, types.ModuleType)]}
        if op == "contract":  # what calls into the notebook's code broke since the last check began
            return contract.take()
        if op == "calls":  # which of the caller's modules calls into the notebook's code got, in which mode
            return contract.take(contract.CALLS)
        if op == "seed":  # before every check, so that checks are reproducible (and a fresh contract record)
            contract.take()
            contract.take(contract.CALLS)
            contract.restore_globals()
            contract.vary(req.get("variants") or ())
            import random

            import torch

            random.seed(req["seed"])
            torch.manual_seed(req["seed"])
            return None
        if op == "define":  # run trusted-side source in the notebook's namespace (reference swaps)
            exec(compile(req["source"], f"<grader:{req['name']}>", "exec"), self.ns)  # contract.py tells test models apart
            return wire.encode(self.ns[req["name"]], ref)
        decode = lambda v: wire.decode(v, lambda ident, _type: resolve(ident))  # noqa: E731
        if op == "global":
            return wire.encode(self.ns[req["name"]], ref)
        if op == "setglobal":
            self.ns[req["name"]] = decode(req["value"])
            return None
        target = resolve(req["id"])
        if op == "call":
            args = decode(req["args"])
            kwargs = decode(req["kwargs"])
            return wire.encode(target(*args, **kwargs), ref)
        if op == "getattr":
            return wire.encode(getattr(target, req["name"]), ref)
        if op == "setattr":
            setattr(target, req["name"], decode(req["value"]))
            return None
        if op == "getitem":
            return wire.encode(target[decode(req["key"])], ref)
        if op == "setitem":
            target[decode(req["key"])] = decode(req["value"])
            return None
        if op == "len":
            return len(target)
        if op == "iter":
            return wire.encode(list(target), ref)
        if op == "bool":
            return bool(target)
        raise ValueError(f"unknown request {op!r}")


def main() -> None:
    requests = os.fdopen(os.dup(0), "rb", buffering=0)
    replies = os.fdopen(os.dup(1), "wb", buffering=0)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.dup2(2, 1)
    sys.stdout = os.fdopen(1, "w", buffering=1)
    work = os.getcwd()
    sys.path[:0] = [work]  # the notebook's folder first, as in Jupyter (the helper package is copied there)
    install_fake_otter()
    import matplotlib
    import torch

    matplotlib.use("Agg")
    torch.set_num_threads(int(os.environ.get("OMP_NUM_THREADS", "1")))
    contract.install()  # after the thread count: the settings it notes are those every check starts from
    session = Session()
    wire.write_frame(replies, {"ok": "ready"})
    while True:
        req = wire.read_frame(requests)
        if req is None:
            return
        try:
            with time_limit(req.get("limit")):
                reply = {"ok": session.handle(req)}
        except BaseException as e:  # noqa: BLE001 - every failure of student code is reported as data
            tb = traceback.extract_tb(e.__traceback__)
            where = next((f"in {f.name}, line {f.lineno} of its cell" for f in reversed(tb) if "ipython-input" in f.filename), "")
            reply = {"error": [type(e).__name__, str(e)[:1000], where]}
        try:
            wire.write_frame(replies, reply)
        except (TypeError, ValueError) as e:
            wire.write_frame(replies, {"error": ["TypeError", f"the answer could not be sent to the grader: {e}", ""]})


if __name__ == "__main__":
    main()
