"""One helper for the course's checks, which run in two places: in the student's own kernel
(``grader.check``) and, when grading, on the trusted side while the notebook runs in a sandbox."""

from __future__ import annotations

import sys


def define(name: str, source: str):
    """Execute ``source`` where the notebook's code runs and return what it binds to ``name``.

    A check uses it for stand-ins the student's code must call (a toy model, a reference function): in
    the student's kernel the source runs in the check's namespace; during grading (the check's namespace
    holds the grader's ``sandbox``) it runs inside the sandbox, and the result is a handle to it there.
    """
    env = sys._getframe(1).f_globals
    sandbox = env.get("sandbox")
    if sandbox is not None and hasattr(sandbox, "define"):
        return sandbox.define(name, source)
    exec(compile(source, f"<{name}>", "exec"), env)
    return env[name]
