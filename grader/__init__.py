"""The course's trusted grader: what ``make grade`` runs on a class and what the Gradescope zip runs.

One file per role: ``limits`` (every limit), ``submission`` (reading what a student submitted), ``isolation``
(bubblewrap or a dedicated user), ``sandbox`` (a submission's process: supervision, framing, what checks ask
of it), ``remote`` (handles to the notebook's objects, and the errors), ``runner`` (the untrusted half, inside the
sandbox, with seqcourse's ``contract``), ``wire`` (the data-only format between them), ``checks`` (questions, a
notebook's checks module, one case at a time, scores), ``challenge`` (notebook 08's class challenge: a checkpoint
scored on held-out text, the leaderboard), ``grade`` (one submission in a worker process; a class), ``feedback`` (what a
student reads: Gradescope's results.json and the same as text), ``gradescope`` (the Gradescope entry) and
``__main__`` (the command line).
"""

import sys
from pathlib import Path

# Unpacked from an autograder zip (Gradescope: /autograder/source), the helper package is in files/ beside this
# package: the trusted side imports that copy (checks use seqcourse.testing; the notebook's modules are compared
# with it), the one the sandbox gets too. In the repository there is no files/ and the repository's copy is used.
_FILES = Path(__file__).resolve().parents[1] / "files"
if (_FILES / "seqcourse").is_dir() and str(_FILES) not in sys.path:
    sys.path.insert(0, str(_FILES))
