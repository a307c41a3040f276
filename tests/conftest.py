"""Shared fixtures: the local Multi30k and CoLA mirrors, an HTTP server for it, and one build of the course."""

from __future__ import annotations

import functools
import http.server
import os
import sys
import threading
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
sys.path.insert(0, str(ROOT))


def _find_mirror() -> Path | None:
    candidates = [os.environ.get("SEQCOURSE_TEST_MIRROR"), ROOT.parent / "shared/data/multi30k",
                  "/work/shared/data/multi30k"]
    for c in candidates:
        if c and (Path(c) / "train.en.gz").is_file():
            return Path(c)
    return None


@pytest.fixture(scope="session")
def mirror_dir() -> Path:
    """Folder holding the Multi30k .gz files (the course tests never reach the internet)."""
    found = _find_mirror()
    if found is None:
        pytest.fail("no local Multi30k mirror: set SEQCOURSE_TEST_MIRROR to a folder with the .gz files "
                    "(e.g. ../shared/data/multi30k)")
    return found


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def serve(directory: Path, handler=_QuietHandler):
    """Serve ``directory`` on 127.0.0.1 (random port) in a thread. Returns (base URL, server)."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(handler, directory=str(directory)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{server.server_address[1]}/", server


@pytest.fixture(scope="session")
def mirror_url(mirror_dir):
    url, server = serve(mirror_dir)
    yield url
    server.shutdown()


@pytest.fixture(scope="session")
def multi30k_env(mirror_dir, tmp_path_factory):
    """Environment for code that loads Multi30k: a fresh data folder, fed from the local mirror."""
    return {"SEQCOURSE_DATA_DIR": str(tmp_path_factory.mktemp("data")),
            "SEQCOURSE_DATA_MIRROR": str(mirror_dir)}


def _find_cola() -> Path | None:
    found = _find_mirror()
    candidates = [os.environ.get("SEQCOURSE_TEST_COLA_MIRROR"), found.parent / "cola" if found else None,
                  ROOT.parent / "shared/data/cola", "/work/shared/data/cola"]
    for c in candidates:
        if c and (Path(c) / "in_domain_train.tsv.gz").is_file():
            return Path(c)
    return None


@pytest.fixture(scope="session")
def cola_dir() -> Path:
    """Folder holding CoLA's raw files gzip-compressed (in_domain_train.tsv.gz, ...), as ../shared/data/cola."""
    found = _find_cola()
    if found is None:
        pytest.fail("no local CoLA mirror: set SEQCOURSE_TEST_COLA_MIRROR to a folder with the .tsv.gz files "
                    "(e.g. ../shared/data/cola)")
    return found


@pytest.fixture(scope="session")
def cola_url(cola_dir):
    url, server = serve(cola_dir)
    yield url
    server.shutdown()


@pytest.fixture(scope="session")
def course_data_env(mirror_dir, cola_dir, tmp_path_factory):
    """Environment for code that loads any course dataset: a fresh data folder, fed from one local mirror
    folder with a subfolder per dataset (multi30k/, cola/), as SEQCOURSE_DATA_MIRROR allows."""
    mirror = tmp_path_factory.mktemp("mirror")
    (mirror / "multi30k").symlink_to(mirror_dir.resolve(), target_is_directory=True)
    (mirror / "cola").symlink_to(cola_dir.resolve(), target_is_directory=True)
    return {"SEQCOURSE_DATA_DIR": str(tmp_path_factory.mktemp("data")), "SEQCOURSE_DATA_MIRROR": str(mirror)}


def paste_answers(nb, master: Path) -> int:
    """Fill the answer cells of a student notebook (an nbformat node) with the master's solutions, as a
    student who solved everything would. Returns how many answers there are."""
    import course

    answers = [src for q, sol, src in course.graded_cells(master) if sol]
    cells = [c for c in nb.cells if c.cell_type == "code" and "otter_answer_cell" in c.metadata.get("tags", [])]
    assert len(cells) == len(answers), f"{len(cells)} answer cells for {len(answers)} solutions"
    for cell, src in zip(cells, answers):
        cell.source = src
    return len(answers)


class _Builds(dict):
    """Masters built on first use (a test of one notebook builds only that one), once for all test workers: the
    first to need a notebook builds it under a lock, the others read what it built (tests only read builds)."""

    def __init__(self, folder: Path):
        super().__init__()
        self.folder = folder

    def __missing__(self, name: str):
        import pickle

        import course
        from filelock import FileLock

        with FileLock(str(self.folder / f"{name}.lock")):
            done = self.folder / f"{name}.built"
            if not done.exists():
                built = course.assign(course.master_path(name), self.folder / "dist", self.folder / "notebooks",
                                      course.load_config())
                done.write_bytes(pickle.dumps(built))
            self[name] = pickle.loads(done.read_bytes())
        return self[name]


@pytest.fixture(scope="session")
def course_build(tmp_path_factory, worker_id):
    """Every master built once per run, into a temporary dist/ and release folder, with tools/course.py (the
    folder all of pytest-xdist's workers share, made by the first)."""
    root = tmp_path_factory.getbasetemp() if worker_id == "master" else tmp_path_factory.getbasetemp().parent
    (root / "course-build").mkdir(exist_ok=True)
    return _Builds(root / "course-build")


def pytest_collection_modifyitems(items):
    """test_mutants.py's cases run notebook by notebook (one notebook's sandbox at a time), in their order
    within the notebook."""
    slots = [i for i, item in enumerate(items)
             if item.path.name == "test_mutants.py" and "nb" in getattr(getattr(item, "callspec", None), "params", {})]
    first = {}
    grouped = sorted((items[i] for i in slots), key=lambda item: first.setdefault(item.callspec.params["nb"], len(first)))
    for i, item in zip(slots, grouped):
        items[i] = item


def resolve_string(node, strings: dict[str, str]) -> str | None:
    """The string an expression of a check's code stands for, statically: a constant, a name bound to one
    (``strings``), or a ``+`` of those; None otherwise."""
    import ast

    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.Name):
        return strings.get(node.id)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = resolve_string(node.left, strings), resolve_string(node.right, strings)
        return None if left is None or right is None else left + right
    return None
