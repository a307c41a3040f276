"""The course's trusted grader: what ``make grade`` runs on a class and what the Gradescope zip runs.

One file per role: ``limits`` (every limit), ``submission`` (reading what a student submitted), ``sandbox``
(isolation, supervision and the remote-call API to the notebook), ``runner`` (the untrusted half, inside the
sandbox), ``wire`` (the data-only format between them), ``checks`` (questions, a notebook's checks module, one
case at a time, scores), ``grade`` (one submission in a worker process; a class), ``gradescope`` (the
Gradescope entry) and ``__main__`` (the command line).
"""
