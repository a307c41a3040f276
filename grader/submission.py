"""Reading a submission (trusted; any input ends in its cells or a ValueError with a message, nothing else)."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

from .limits import MAX_NOTEBOOK, MAX_ZIP_MEMBERS


def _read_notebook_bytes(path: Path) -> bytes:
    if path.suffix != ".zip":
        if path.stat().st_size > MAX_NOTEBOOK:
            raise ValueError(f"the notebook is larger than {MAX_NOTEBOOK // 2**20} MB")
        return path.read_bytes()
    try:
        with zipfile.ZipFile(path) as z:
            infos = z.infolist()
            if len(infos) > MAX_ZIP_MEMBERS:
                raise ValueError(f"the zip holds more than {MAX_ZIP_MEMBERS} files")
            found = [i for i in infos if i.filename.endswith(".ipynb") and "__MACOSX" not in i.filename
                     and ".ipynb_checkpoints" not in i.filename]
            if len(found) != 1:
                raise ValueError(f"the zip holds {len(found)} notebooks, expected 1")
            if found[0].file_size > MAX_NOTEBOOK:
                raise ValueError(f"the notebook in the zip is larger than {MAX_NOTEBOOK // 2**20} MB")
            with z.open(found[0]) as f:
                data = f.read(MAX_NOTEBOOK + 1)  # the header's size can lie: never read more than the limit
            if len(data) > MAX_NOTEBOOK:
                raise ValueError(f"the notebook in the zip is larger than {MAX_NOTEBOOK // 2**20} MB")
            return data
    except (zipfile.BadZipFile, zipfile.LargeZipFile, NotImplementedError, EOFError, RuntimeError, OSError) as e:
        raise ValueError(f"not a readable zip file ({type(e).__name__})") from None


def load_cells(path: Path, assignment: str) -> list[str]:
    """The code cells a grader runs from a submission (.ipynb, or the one .ipynb in an exported .zip).

    Read with plain JSON and checked field by field, so a notebook of any shape gives either its cells or
    a ValueError that says what is wrong. Cells tagged ``otter_ignore`` are skipped, as every grader does."""
    try:
        nb = json.loads(_read_notebook_bytes(path).decode("utf-8", "replace"))
    except (ValueError, RecursionError) as e:
        raise ValueError(f"not a readable notebook (invalid JSON: {str(e)[:100]})") from None
    if type(nb) is not dict:
        raise ValueError("not a notebook (the file is not a JSON object)")
    meta = nb.get("metadata")
    otter = meta.get("otter") if type(meta) is dict else None
    found = otter.get("assignment_name") if type(otter) is dict else None
    if found != assignment:
        raise ValueError(f"this is not {assignment}: the notebook's assignment name is {found!r} "
                         "(was the right notebook submitted?)")
    cells = nb.get("cells")
    if type(cells) is not list:
        raise ValueError("not a notebook (it has no list of cells)")
    code = []
    for cell in cells:
        if type(cell) is not dict or cell.get("cell_type") != "code":
            continue
        meta = cell.get("metadata") if type(cell.get("metadata")) is dict else {}
        tags = meta.get("tags") if type(meta.get("tags")) is list else []
        otter_meta = meta.get("otter") if type(meta.get("otter")) is dict else {}
        if "otter_ignore" in tags or otter_meta.get("ignore") is True:
            continue
        source = cell.get("source", "")
        if type(source) is list and all(type(s) is str for s in source):
            source = "".join(source)
        code.append(source if type(source) is str else "")
    return code
