"""The Makefile's set-up step on a machine without bubblewrap: it installs it with apt-get, or stops before
anything else runs with one message that names the command to run."""

from __future__ import annotations

import shutil
import subprocess
import time

import pytest

from conftest import ROOT

MAKE = shutil.which("make")
pytestmark = pytest.mark.skipif(MAKE is None, reason="make is not installed")


def _machine(tmp_path, apt_get: str | None = None):
    """A copy of the Makefile, what it installs from and its set-up script, and a PATH with only the basic tools (no bwrap, no
    chromium, no sudo) plus, if given, a stand-in for apt-get. Returns (repository copy, environment)."""
    repo, bin_dir = tmp_path / "repo", tmp_path / "bin"
    (repo / "tools").mkdir(parents=True)
    bin_dir.mkdir()
    for name in ("Makefile", "requirements.txt", "requirements-tests.txt", "pyproject.toml"):
        shutil.copy(ROOT / name, repo)
    shutil.copy(ROOT / "tools" / "system_packages.sh", repo / "tools")
    for program in ("sh", "id", "touch", "cat"):
        (bin_dir / program).symlink_to(shutil.which(program))
    if apt_get is not None:
        (bin_dir / "apt-get").write_text(apt_get)
        (bin_dir / "apt-get").chmod(0o755)
    return repo, {"PATH": str(bin_dir), "HOME": str(tmp_path)}


def _make(repo, env, *args):
    start = time.perf_counter()
    proc = subprocess.run([MAKE, "--no-print-directory", "-C", str(repo), *args, "PYTHON=false"], env=env,
                          capture_output=True, text=True, timeout=60)
    return proc, time.perf_counter() - start


@pytest.mark.parametrize("target, packages", [("course", "bubblewrap"), ("grade", "bubblewrap"),
                                              ("test", "bubblewrap chromium")])
def test_without_bubblewrap_or_apt_get_make_stops_at_once_with_one_message(tmp_path, target, packages):
    repo, env = _machine(tmp_path)
    proc, seconds = _make(repo, env, target)
    said = [line for line in (proc.stdout + proc.stderr).splitlines() if not line.startswith("make: ***")]
    assert proc.returncode != 0 and seconds < 10
    assert said == [f"missing system packages: {packages}. Install them once, then run make again: "
                    f"sudo apt-get install -y {packages}"], said
    assert not (repo / ".venv").exists(), "make went on after the set-up step failed"


def test_without_bubblewrap_make_installs_it_with_apt_get_before_anything_else(tmp_path):
    bin_dir = tmp_path / "bin"
    fake_apt_get = f"""#!/bin/sh
echo "$@" >> {tmp_path}/apt-get.log
case "$*" in *install*bubblewrap*) printf '#!/bin/sh\\n' > {bin_dir}/bwrap; chmod 755 {bin_dir}/bwrap;; esac
"""
    repo, env = _machine(tmp_path, fake_apt_get)
    (bin_dir / "chmod").symlink_to(shutil.which("chmod"))
    proc, _ = _make(repo, env, "course")
    assert (tmp_path / "apt-get.log").read_text().splitlines() == ["update -qq", "install -y -qq bubblewrap"]
    assert "installing the Debian packages bubblewrap" in proc.stdout
    # then make goes on to the course's Python environment (here PYTHON=false, so that step fails)
    assert proc.returncode != 0 and "false -m venv .venv" in proc.stdout, proc.stdout + proc.stderr
    proc, _ = _make(repo, env, "system-course")
    assert proc.returncode == 0 and proc.stdout == "" and len((tmp_path / "apt-get.log").read_text().splitlines()) == 2


def test_torch_cpu_installs_pytorchs_cpu_build_before_the_requirements(tmp_path):
    repo, env = _machine(tmp_path)
    env["PATH"] += ":" + str(ROOT / ".venv" / "bin")  # unused: make -n only prints the commands
    lines = subprocess.run([MAKE, "-n", "-C", str(repo), ".venv/.installed", "TORCH=cpu"], env=env, capture_output=True,
                           text=True, check=True).stdout.splitlines()
    torch_line = next(i for i, line in enumerate(lines) if "install torch --index-url https://download.pytorch.org/whl/cpu" in line)
    assert torch_line < next(i for i, line in enumerate(lines) if "install -r requirements.txt" in line)
    plain = subprocess.run([MAKE, "-n", "-C", str(repo), ".venv/.installed"], env=env, capture_output=True, text=True).stdout
    assert "download.pytorch.org" not in plain and "requirements-tests.txt" not in plain, "make course installs test packages"
