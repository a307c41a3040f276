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
"""

TIMEOUT_S = 600             # seconds one submission's grading may take locally (make grade --timeout overrides it)
GRADESCOPE_TIMEOUT_S = 480  # on Gradescope: inside its default 10-minute limit with 120 s to spare (SEQCOURSE_TIMEOUT)
CELL_TIMEOUT_S = 90         # one cell, or one call of a check into the notebook (SEQCOURSE_CELL_TIMEOUT). Measured with
#                             one thread on 2 busy cores: the slowest graded cell of the 8 reference solutions 1.5 s
#                             (02's given data cell), the slowest call of a check 15.6 s (02, training the student's
#                             model); on half a CPU perhaps twice that (not measured): 90 s stops what would not finish
CHECKS_RESERVE_S = 120      # cells stop this long before the budget ends (a third of a budget under 360 s)
KILL_GRACE_S = 10           # an interrupted cell that has not stopped this long after its limit is killed
MAX_RESTARTS = 5            # times one grading may start the notebook again without a cell that killed it
MEMORY_MB = 4096            # memory of one sandbox's process tree (make grade --memory-mb, SEQCOURSE_MEMORY_MB)
WORKER_MARGIN_MB = 1024     # the worker process around a sandbox may use this much more before it is killed
WORKER_MARGIN_S = 60        # ... and this much more time: the sandbox's own limits come first
MAX_NOTEBOOK = 100 * 2**20  # bytes of one submitted notebook (outputs included)
MAX_ZIP_MEMBERS = 1000      # files in a submitted zip
