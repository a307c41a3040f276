"""An Otter plugin that keeps a submission from grading itself.

Otter runs a submission's code and the tests in one kernel, so code in a notebook can reach the grader:
replace ``torch.allclose`` or Otter's own functions, call checks against tests it wrote into ``./tests``,
or stop the kernel before the tests run. ``make course`` ships this module at the root of every
autograder zip (Gradescope runs ``run_otter.py`` from there) and names it in ``otter_config.json``;
``tools/grade.py`` puts the zip's copy on the grader's path. Outside the kernel (trusted) it

- records a fingerprint of ``./tests`` (inode, ctime and hash of the folder and of every file) before the
  notebook runs and compares it after: writing, deleting, replacing or restoring a test file changes it;
- adds a first cell (after Otter's own) that snapshots the callables of torch, ``torch.testing``,
  ``torch.nn.functional``, Otter, ``doctest``, ``pickle`` and the builtins, and defers every
  ``grader.check`` in the notebook to the end, so no check result can be produced by tampered code that
  is later undone;
- adds a last cell (before Otter's export cell, which runs every test) that drops any check results the
  notebook produced, compares the snapshot, and writes its verdict with a one-time token to a file
  outside the submission folder.

If the verdict is missing (the kernel stopped early), names a replaced callable, or the tests changed,
every question scores 0 and the results say why. This stops what students try (the cheats in
``tests/test_grading.py``); a program written against this module's internals could still defeat it,
as any grader that runs student code in the grading process can be.
"""

from __future__ import annotations

import hashlib
import os
import secrets
import tempfile
from pathlib import Path

import nbformat
from otter.plugins import AbstractOtterPlugin

# Run in the kernel. {stash} is a fresh name per grading.
SNAPSHOT = """\
def {stash}():
    import builtins, doctest, pickle, types
    import torch, torch.testing, torch.nn.functional
    import otter, otter.execute, otter.test_files, otter.test_files.abstract_test, otter.test_files.ok_test
    import otter.check.notebook

    def _deferred(self, question, global_env=None):
        print(f"(grading: the tests of {{question}} run at the end of the notebook)")

    otter.check.notebook.Notebook.check = _deferred
    owners = [torch, torch.testing, torch.nn.functional, torch.Tensor, torch._C.TensorBase, doctest, pickle]
    owners += [m for name, m in list(__import__("sys").modules.items()) if name == "otter" or name.startswith("otter.")]
    owners += [c for m in owners if isinstance(m, types.ModuleType) for c in list(vars(m).values())
               if isinstance(c, type) and c.__module__ == m.__name__]
    snap = [(o, k, v) for o in owners for k, v in list(vars(o).items())
            if callable(v) or isinstance(v, (property, classmethod, staticmethod))]
    snap += [(builtins, k, v) for k, v in vars(builtins).items()
             if not k.startswith("_") and isinstance(v, (types.BuiltinFunctionType, type))]
    snap.append((builtins, "__import__", builtins.__import__))
    return snap, open, getattr(otter.execute.Checker, "clear_results")
{stash} = {stash}()
"""

VERIFY = """\
def {stash}_verify(snap, _open, clear):
    clear()
    missing = object()
    changed = sorted({{f"{{getattr(o, '__name__', o)}}.{{k}}" for o, k, v in snap if vars(o).get(k, missing) is not v}})
    with _open({verdict!r}, "w") as f:
        f.write({token!r} + (" replaced: " + ", ".join(changed) if changed else " ok"))
{stash}_verify(*{stash})
"""


def fingerprint(folder: Path) -> list:
    """Everything that changes when a file in ``folder`` is written, deleted, replaced or restored."""
    if not folder.is_dir():
        return []
    st = folder.stat()
    files = sorted(p for p in folder.rglob("*") if p.is_file())
    return [(st.st_ino, st.st_ctime_ns)] + [(str(p.relative_to(folder)), p.stat().st_ino, p.stat().st_ctime_ns,
                                            hashlib.sha256(p.read_bytes()).hexdigest()) for p in files]


class GradingGuard(AbstractOtterPlugin):
    def before_execution(self, submission):
        self.tests = Path("tests").resolve()  # Otter grades with the submission folder as working directory
        self.before = fingerprint(self.tests)
        self.token = secrets.token_hex(16)
        self.verdict = Path(tempfile.mkdtemp(prefix="verdict-")) / "verdict"
        stash = f"_g{secrets.token_hex(6)}"
        submission.cells.insert(0, nbformat.v4.new_code_cell(SNAPSHOT.format(stash=stash)))
        submission.cells.append(nbformat.v4.new_code_cell(
            VERIFY.format(stash=stash, verdict=str(self.verdict), token=self.token)))
        return submission

    def after_grading(self, results):
        try:
            verdict = self.verdict.read_text()
        except OSError:
            verdict = ""
        finally:
            self.verdict.unlink(missing_ok=True)
            os.rmdir(self.verdict.parent)
        if not verdict.startswith(self.token):
            problem = "the notebook stopped before grading finished (does it exit the kernel?)"
        elif verdict != f"{self.token} ok":
            problem = f"the notebook {verdict.removeprefix(self.token).strip()}"
        elif fingerprint(self.tests) != self.before:
            problem = "the notebook wrote, deleted or replaced files in ./tests"
        else:
            return
        for name in results.results:
            results.update_score(name, 0)
        results.set_output(f"All scores set to 0: {problem}. Ask your instructor if you think this is a mistake.")
