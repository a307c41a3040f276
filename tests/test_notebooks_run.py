"""Every master notebook executes top to bottom in a real kernel, in smoke mode (tiny data, one epoch),
training cells included."""

from __future__ import annotations

import os

import nbformat
import pytest
from nbclient import NotebookClient

from conftest import ROOT

MASTERS = sorted((ROOT / "solutions").glob("[0-9][0-9]_*.ipynb"))


@pytest.mark.parametrize("master", MASTERS, ids=lambda p: p.stem)
def test_master_runs_top_to_bottom_in_smoke_mode(master, multi30k_env, tmp_path, monkeypatch):
    for key, value in {**multi30k_env, "SEQCOURSE_SMOKE": "1"}.items():
        monkeypatch.setenv(key, value)
    monkeypatch.delenv("MPLBACKEND", raising=False)  # the kernel's inline backend records the figures
    nb = nbformat.read(master, as_version=4)
    NotebookClient(nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}).execute()
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", []) if o.output_type == "error"]
    assert not errors
    images = sum("image/png" in o.get("data", {}) for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", []))
    assert images >= 2, "the figures (gradient curves, loss curve) were not drawn"
