"""Every master notebook executes top to bottom in a real kernel, in smoke mode (tiny data, one epoch),
training cells included."""

from __future__ import annotations

import shutil

import nbformat
import pytest
from nbclient import NotebookClient

from conftest import ROOT
from mutation import MasterNotebook

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
    assert images >= 2, "the figures were not drawn"


@pytest.mark.parametrize("master", MASTERS, ids=lambda p: p.stem)
def test_student_notebook_with_answers_pasted_passes_its_checks_and_exports(master, multi30k_env, tmp_path, monkeypatch):
    """The student flow: open the released notebook (public tests beside it), fill the TODO cells, run
    everything; every grader.check passes and grader.export writes the submission zip."""
    name = master.stem
    for key, value in {**multi30k_env, "SEQCOURSE_SMOKE": "1"}.items():
        monkeypatch.setenv(key, value)
    monkeypatch.delenv("MPLBACKEND", raising=False)
    folder = tmp_path / name
    shutil.copytree(ROOT / "notebooks" / name, folder)
    nb = nbformat.read(folder / f"{name}.ipynb", as_version=4)
    answers = [src for q, sol, src in MasterNotebook(master, None).cells if sol]
    answer_cells = [c for c in nb.cells if c.cell_type == "code" and "otter_answer_cell" in c.metadata.get("tags", [])]
    assert len(answer_cells) == len(answers) >= 6
    for cell, src in zip(answer_cells, answers):
        cell.source = src
    nbformat.write(nb, folder / f"{name}.ipynb")
    NotebookClient(nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(folder)}}).execute()

    checks = [c for c in nb.cells if c.cell_type == "code" and c.source.startswith("grader.check(")]
    assert len(checks) == len(answers)
    for cell in checks:
        text = "".join(o.get("data", {}).get("text/plain", "") for o in cell.outputs)
        assert "All test cases passed" in text, f"{cell.source}: {text}"
    assert list(folder.glob(f"{name}_*.zip")), "grader.export() wrote no submission zip"
