"""Every limit of grading, in one place: what one submission may take, and what the trusted side reads."""

TIMEOUT_S = 600            # seconds one submission's sandbox may run (make grade --timeout overrides it)
GRADESCOPE_TIMEOUT_S = 540  # on Gradescope, below its own limit of the autograder's run (SEQCOURSE_TIMEOUT)
MEMORY_MB = 4096           # memory of one sandbox's process tree (make grade --memory-mb, SEQCOURSE_MEMORY_MB)
WORKER_MARGIN_MB = 1024    # the worker process around a sandbox may use this much more before it is killed
WORKER_MARGIN_S = 60       # ... and this much more time: the sandbox's own limits come first
REQUEST_TIMEOUT_S = 300    # seconds one request of a check may wait for the notebook's answer
MAX_NOTEBOOK = 100 * 2**20  # bytes of one submitted notebook (outputs included)
MAX_ZIP_MEMBERS = 1000     # files in a submitted zip
