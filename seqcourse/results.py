"""Reference runs: what a notebook records for the instructor's ``make results``.

``tools/results.py`` executes a master notebook with ``$SEQCOURSE_RESULTS`` set to a path prefix (e.g.
``results/01_rnn_lstm``); there ``record`` merges headline numbers into ``<prefix>.metrics.json`` and
``save_figure`` writes ``<prefix>-<name>.png``. Anywhere else (a student's run) both do nothing.
"""

from __future__ import annotations

import json
import os
from pathlib import Path


def _prefix() -> Path | None:
    value = os.environ.get("SEQCOURSE_RESULTS")
    return Path(value) if value else None


def record(metrics: dict | None = None, **more) -> None:
    """Keep headline numbers (floats, ints, strings, lists of them) of a reference run, by name
    (``record({"test PPL": 24.4}, seed=0)``)."""
    prefix = _prefix()
    if prefix is None:
        return
    metrics = {**(metrics or {}), **more}
    path = prefix.with_name(prefix.name + ".metrics.json")
    found = json.loads(path.read_text()) if path.is_file() else {}
    found.update(metrics)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(found, indent=1, sort_keys=True))


def save_figure(fig, name: str) -> None:
    """Save a matplotlib figure of a reference run as ``<prefix>-<name>.png``."""
    prefix = _prefix()
    if prefix is None:
        return
    prefix.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(prefix.with_name(f"{prefix.name}-{name}.png"), dpi=110, bbox_inches="tight")
