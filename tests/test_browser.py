"""The student's first minutes, the way students work: JupyterLab on 127.0.0.1, a released notebook with
the answers pasted in, opened in headless Chromium (Debian's ``chromium``, driven by Playwright), Run All
in smoke mode. Every ``grader.check`` shows its pass in the page, figures render as images, the export
cell writes the submission zip. A screenshot is kept in ``$SEQCOURSE_ARTIFACTS`` (default
``build/test-artifacts/``)."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import nbformat
import pytest

from conftest import ROOT, paste_answers
from course import master_path

NOTEBOOK = "01_rnn_lstm"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def lab(multi30k_env, tmp_path):
    """JupyterLab serving a folder that holds the student notebook (answers pasted in) and its tests."""
    folder = tmp_path / NOTEBOOK
    shutil.copytree(ROOT / "notebooks" / NOTEBOOK, folder)
    nb = nbformat.read(folder / f"{NOTEBOOK}.ipynb", as_version=4)
    paste_answers(nb, master_path(NOTEBOOK))
    nbformat.write(nb, folder / f"{NOTEBOOK}.ipynb")
    port, token = _free_port(), "course-test"
    settings = tmp_path / "lab-settings" / "@jupyterlab" / "notebook-extension"
    settings.mkdir(parents=True)  # render every cell (no windowing), so that the page holds every output
    (settings / "tracker.jupyterlab-settings").write_text('{"windowingMode": "none"}')
    env = {**os.environ, **multi30k_env, "SEQCOURSE_SMOKE": "1", "JUPYTER_CONFIG_DIR": str(tmp_path / "config"),
           "JUPYTER_RUNTIME_DIR": str(tmp_path / "runtime"), "IPYTHONDIR": str(tmp_path / "ipython"),
           "JUPYTERLAB_SETTINGS_DIR": str(tmp_path / "lab-settings")}
    env.pop("MPLBACKEND", None)
    server = subprocess.Popen(
        [sys.executable, "-m", "jupyterlab", "--no-browser", "--ip=127.0.0.1", f"--port={port}",
         f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={folder}", "--LabApp.expose_app_in_browser=True",
         "--ServerApp.disable_check_xsrf=True", "--allow-root"],
        env=env, stdout=subprocess.DEVNULL, stderr=open(tmp_path / "lab.log", "w"))
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120
    while True:
        try:
            urllib.request.urlopen(f"{url}/api/status?token={token}", timeout=5)
            break
        except OSError:
            if time.monotonic() > deadline or server.poll() is not None:
                server.kill()
                pytest.fail("JupyterLab did not start:\n" + (tmp_path / "lab.log").read_text()[-3000:])
            time.sleep(0.5)
    yield url, token, folder
    server.terminate()
    try:
        server.wait(30)
    except subprocess.TimeoutExpired:
        server.kill()


RUN_ALL = """async () => {
    const app = window.jupyterapp;
    await app.commands.execute('notebook:run-all-cells');
}"""

DONE = """() => {  // the kernel is idle with nothing queued, and the last cell ran or a cell failed
    const panel = window.jupyterapp.shell.currentWidget;
    const kernel = panel.sessionContext.session.kernel;
    const cells = panel.content.widgets.filter(c => c.model.type === 'code' && c.model.sharedModel.getSource().trim());
    const queued = cells.some(c => c.node.querySelector('.jp-InputPrompt').textContent.includes('*'));
    const failed = cells.some(c => c.model.outputs.toJSON().some(o => o.output_type === 'error'));
    return kernel.status === 'idle' && !queued && (failed || cells[cells.length - 1].model.executionCount !== null);
}"""


def test_student_runs_all_in_jupyterlab_in_chromium_and_every_check_passes(lab):
    if CHROMIUM is None:
        (pytest.fail if os.environ.get("CI") else pytest.skip)("needs Debian's chromium package (.ci/run installs it)")
    from playwright.sync_api import sync_playwright

    url, token, folder = lab
    artifacts = Path(os.environ.get("SEQCOURSE_ARTIFACTS", ROOT / "build" / "test-artifacts"))
    artifacts.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        try:
            page.goto(f"{url}/lab/tree/{NOTEBOOK}.ipynb?token={token}")
            page.wait_for_function("() => window.jupyterapp && window.jupyterapp.shell.currentWidget "
                                   "&& window.jupyterapp.shell.currentWidget.sessionContext "
                                   "&& window.jupyterapp.shell.currentWidget.sessionContext.isReady", timeout=120_000)
            page.evaluate(RUN_ALL)
            page.wait_for_function(DONE, timeout=600_000, polling=2000)
            outputs = page.evaluate("""() => window.jupyterapp.shell.currentWidget.content.widgets
                .filter(c => c.model.type === 'code')
                .map(c => [c.model.sharedModel.getSource(), c.node.querySelector('.jp-OutputArea') ?
                           c.node.querySelector('.jp-OutputArea').innerText : '',
                           c.node.querySelectorAll('.jp-OutputArea img').length,
                           c.model.outputs.toJSON().filter(o => o.output_type === 'error').map(o => o.ename + ': ' + o.evalue)])""")
            page.screenshot(path=str(artifacts / f"{NOTEBOOK}-jupyterlab.png"), full_page=False)
        finally:
            browser.close()
    errors = [(src[:80], err) for src, _, _, err in outputs if err]
    assert not errors, errors
    checks = [(src, text) for src, text, _, _ in outputs if src.startswith("grader.check(")]
    assert len(checks) >= 7
    for src, text in checks:  # Otter's HTML view of a passing check: "q1_rnn_cell passed!"
        question = src.split('"')[1]
        assert f"{question} passed" in text, f"{src}: {text[:500]}"
    assert sum(n for _, _, n, _ in outputs) >= 2, "the figures did not render as images"
    export = next(text for src, text, _, _ in outputs if "grader.export(" in src)
    assert "exported" in export and "without encryption" not in export, export
    assert list(folder.glob(f"{NOTEBOOK}_*.zip")), "the export cell wrote no submission zip"
