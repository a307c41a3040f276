"""Reading a submission (trusted; any input ends in its cells or a ValueError with a message, nothing else),
and choosing which file of a submission to grade.

Which file: of several notebooks from one student (Gradescope: everything uploaded at once; ``make grade``: files
in one folder whose names differ only by an export time, a browser's `` (1)`` or Colab's ``Copy of``), the
newest is graded: by the time ``grader.export()`` writes into the zip's name (``NAME_2025_03_01T17_05_09_123456.zip``,
Otter 7's ``%Y_%m_%dT%H_%M_%S_%f``), else by the file's modification time. :func:`choice_note` says which file was graded and which were not.

Which notebook: its ``metadata.otter.assignment_name``. A notebook without one (a Colab download may drop it)
is recognised by its cells: the Otter cell ``otter.Notebook("NAME.ipynb")``, else its ``grader.check("q...")``
calls, which must all name questions of the assignment. A notebook that names another assignment is rejected.

Which cells: code cells, except those tagged ``otter_ignore`` (as every Otter grader does) and, for a
notebook whose tags were lost, those that are still the release's ignored cells: the build lists the
student notebook's ``otter_ignore`` cells in the autograder's ``grading.json`` (:func:`ignored_cells`); a cell
with the same first line and at least half of that cell's lines is skipped (:func:`is_ignored`).
"""

from __future__ import annotations

import datetime as dt
import json
import re
import zipfile
from pathlib import Path

from . import feedback
from .limits import MAX_NOTEBOOK, MAX_ZIP_MEMBERS

SETTINGS = "grading.json"  # written by the build into the autograder zip's root (see grader/gradescope.py)
EXPORT_TIME = re.compile(r"_(\d{4})_(\d\d)_(\d\d)T(\d\d)_(\d\d)_(\d\d)_(\d{6})")  # Otter's export name
SUFFIXES = (".ipynb", ".zip")
# never a submission, never a row: system files, editor checkpoints, macOS zip debris, Gradescope's export index
SKIPPED = {".DS_Store", "Thumbs.db", "desktop.ini", "submission_metadata.yml"}


def settings(source: Path) -> dict:
    """The autograder's ``grading.json`` (zip or unpacked folder), or {} when the build wrote none."""
    try:
        if source.is_dir():
            text = (source / SETTINGS).read_text()
        else:
            with zipfile.ZipFile(source) as z:
                text = z.read(SETTINGS).decode()
    except (FileNotFoundError, KeyError):
        return {}
    found = json.loads(text)
    if type(found) is not dict:
        raise ValueError(f"{SETTINGS} must hold a JSON object")
    return found


# -- which files -------------------------------------------------------------------------------------------
def skipped(path: Path, root: Path) -> bool:
    """Whether a file under ``root`` is never looked at: hidden files and folders, Jupyter checkpoints, macOS
    zip debris and the files in :data:`SKIPPED`."""
    parts = path.relative_to(root).parts
    return any(p.startswith(".") or p == "__MACOSX" for p in parts) or path.name in SKIPPED


def export_time(path: Path) -> tuple[dt.datetime, str]:
    """When a submitted file was made, and how that is known: the export time in its name, else the file's
    modification time. (Only the name is read: choosing a file never opens one.)"""
    m = EXPORT_TIME.search(path.name)
    if m:
        try:
            return dt.datetime(*map(int, m.groups())), "exported"
        except ValueError:  # 2025_13_45...: not a time
            pass
    return dt.datetime.fromtimestamp(path.stat().st_mtime), "file time"


def newest_first(paths: list[Path]) -> list[tuple[Path, dt.datetime, str]]:
    """``paths`` with their time (:func:`export_time`), newest first (ties: the name sorting last first)."""
    timed = [(p, *export_time(p)) for p in paths]
    return sorted(timed, key=lambda t: (t[1], t[0].name), reverse=True)


def choice_note(ordered: list[tuple[Path, dt.datetime, str]], root: Path) -> str:
    """What a student or TA reads about which file was graded (empty when there was only one)."""
    if len(ordered) < 2:
        return ""

    def when(t):
        return f"{t[0].relative_to(root)} ({t[2]} {t[1]:%Y-%m-%d %H:%M:%S})"

    return (f"{len(ordered)} notebooks were submitted; the newest was graded: {when(ordered[0])}. "
            f"Not graded: {'; '.join(when(t) for t in ordered[1:])}. "
            "(Newest by the time grader.export() puts in the zip's name, else by the file's time; "
            "submit only the file you want graded to be sure.)")


def student_key(path: Path) -> tuple[Path, str]:
    """Files of one student in a class folder: same folder, and names equal once an export time, a browser's
    `` (1)`` and Colab's ``Copy of`` are taken out (``01_rnn_lstm.ipynb``, ``01_rnn_lstm_2025_..._123456.zip``)."""
    stem = EXPORT_TIME.sub("", path.stem)
    stem = re.sub(r"\s*\(\d+\)$", "", stem)
    return path.parent, stem.removeprefix("Copy of ").strip().lower()


# -- reading one notebook ---------------------------------------------------------------------------------
def _read_notebook_bytes(path: Path) -> bytes:
    if path.suffix.lower() != ".zip":
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


def _code_cells(nb: dict) -> list[tuple[dict, str]]:
    """(metadata, source) of every code cell of a notebook read as plain JSON, whatever its shape."""
    cells = nb.get("cells")
    if type(cells) is not list:
        raise ValueError("not a notebook (it has no list of cells)")
    code = []
    for cell in cells:
        if type(cell) is not dict or cell.get("cell_type") != "code":
            continue
        meta = cell.get("metadata") if type(cell.get("metadata")) is dict else {}
        source = cell.get("source", "")
        if type(source) is list and all(type(s) is str for s in source):
            source = "".join(source)
        code.append((meta, source if type(source) is str else ""))
    return code


def _tagged_ignore(meta: dict) -> bool:
    tags = meta.get("tags") if type(meta.get("tags")) is list else []
    otter_meta = meta.get("otter") if type(meta.get("otter")) is dict else {}
    return "otter_ignore" in tags or otter_meta.get("ignore") is True


INIT = re.compile(r"""otter\.Notebook\(\s*(?:nb_path\s*=\s*)?["']([^"'\n]*)["']""")
CHECK = re.compile(r"""grader\.check\(\s*["']([^"'\n]*)["']""")


def identify(sources: list[str], assignment: str, questions) -> str:
    """Why a notebook without an assignment name in its metadata is ``assignment`` ('' when it is not): its Otter
    cell opens ``assignment.ipynb``, or it has no Otter cell and every question it checks is one of ``questions``."""
    text = "\n".join(sources)
    opened = {Path(name).stem for name in INIT.findall(text)}
    if opened:
        return f"its Otter cell opens {assignment}.ipynb" if assignment in opened else ""
    checked = set(CHECK.findall(text))
    if checked and checked <= set(questions):
        return f"its cells check {', '.join(sorted(checked))}"
    return ""


def load_cells(path: Path, assignment: str, *, questions=(), ignored: list[str] = ()) -> list[str]:
    """The code cells a grader runs from a submission (.ipynb, or the one .ipynb in an exported .zip).

    Read with plain JSON and checked field by field, so a notebook of any shape gives either its cells or
    a ValueError that says what is wrong. The notebook must be ``assignment`` (its metadata, else its cells:
    :func:`identify` with the assignment's ``questions``). Cells tagged ``otter_ignore`` are skipped, as every
    grader does, and so are untagged ones that are still one of the release's ``ignored`` cells (:func:`is_ignored`)."""
    try:
        nb = json.loads(_read_notebook_bytes(path).decode("utf-8", "replace"))
    except (ValueError, RecursionError) as e:
        raise ValueError(f"not a readable notebook (invalid JSON: {str(e)[:100]})") from None
    if type(nb) is not dict:
        raise ValueError("not a notebook (the file is not a JSON object)")
    meta = nb.get("metadata")
    otter = meta.get("otter") if type(meta) is dict else None
    found = otter.get("assignment_name") if type(otter) is dict else None
    if found is not None and found != assignment:
        raise ValueError(f"this is not {assignment}: the notebook's assignment name is {found!r} "
                         "(was the right notebook submitted?)")
    cells = _code_cells(nb)
    if found is None and not identify([s for _, s in cells], assignment, questions):
        raise ValueError(f"this is not {assignment}: the notebook has no assignment name in its metadata and no cell "
                         f"that identifies it (no otter.Notebook(\"{assignment}.ipynb\") cell; was the right notebook submitted?)")
    return [source for meta, source in cells if not _tagged_ignore(meta) and not is_ignored(source, ignored)]


# -- cells the release marks otter_ignore, for notebooks whose tags were lost ----------------------------------
def _lines(source: str) -> list[str]:
    return [line.strip() for line in source.splitlines() if line.strip()]


def is_ignored(source: str, ignored: list[str]) -> bool:
    """Whether a cell is still one of the release's ``ignored`` cells: the same first line and at least half of
    that cell's lines (a student may change a number in a training cell; it stays skipped)."""
    lines = _lines(source)
    for cell in ignored:
        want = _lines(cell)
        if lines and want and lines[0] == want[0] and 2 * len(set(want) & set(lines)) >= len(set(want)):
            return True
    return False


def ignored_cells(student_notebook: Path) -> list[str]:
    """The sources of a released student notebook's ``otter_ignore`` cells, for the autograder's ``grading.json``.
    Refuses (ValueError, naming the cell) when one of its graded cells would pass for an ignored one."""
    cells = _code_cells(json.loads(student_notebook.read_text()))
    ignored = [source for meta, source in cells if _tagged_ignore(meta) and _lines(source)]
    for meta, source in cells:
        if not _tagged_ignore(meta) and is_ignored(source, ignored):
            raise ValueError(f"{student_notebook.name}: the graded cell starting {_lines(source)[0]!r} looks like an "
                             "otter_ignore cell (same first line, half its lines): a grader could not tell them apart "
                             "in a notebook whose tags were lost; give one of them another first line")
    return ignored


def settings_text(student_notebook: Path, hidden_visibility: str = feedback.DEFAULT_HIDDEN) -> str:
    """The autograder's ``grading.json`` for a released student notebook (what the build writes into the zip):
    when students see hidden checks' results (:mod:`grader.feedback`) and the notebook's ignored cells."""
    feedback.hidden_visibility({"hidden_visibility": hidden_visibility})  # refuse an invalid value at build time
    return json.dumps({"hidden_visibility": hidden_visibility, "ignored_cells": ignored_cells(student_notebook)}, indent=1)
