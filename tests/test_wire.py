"""The data-only format between the trusted grader and the sandbox (tools/wire.py) and the sandbox's
isolation, without a notebook."""

from __future__ import annotations

import json

import time

import pytest
import torch

from grader import wire
from grader.remote import RemoteError, SandboxError
from grader.sandbox import Sandbox


def _ref(obj):
    return {"$": "ref", "id": 7, "type": type(obj).__name__}


def _roundtrip(value):
    return wire.decode(json.loads(json.dumps(wire.encode(value, _ref))), lambda i, t: ("ref", t))


def test_data_survives_the_trip_with_its_exact_types():
    t = torch.arange(6, dtype=torch.float32).reshape(2, 3).requires_grad_()
    out = _roundtrip({"a": (1, 2.5, "x", None, True), "t": t, "s": torch.Size([2, 3]), "d": torch.int64,
                      "e": torch.tensor(3.0), "z": torch.zeros(0, 4, dtype=torch.bool)})
    assert out["a"] == (1, 2.5, "x", None, True) and type(out["a"][0]) is int and type(out["a"][1]) is float
    assert type(out["t"]) is torch.Tensor and torch.equal(out["t"], t.detach()) and out["t"].requires_grad
    assert out["s"] == (2, 3) and out["d"] is torch.int64 and out["e"].shape == () and out["z"].shape == (0, 4)


def test_views_with_any_strides_survive_the_trip():
    """Views a student's answer may return: a column of a batch of one keeps stride 2 in its size-1
    dimension (.contiguous() does not fix that), a strided slice, a transpose, an expanded tensor."""
    ids = torch.arange(6).view(3, 2)
    for view in (ids[:1][:, 1], ids[:1].t(), ids[:, ::2], ids.t(), torch.tensor([1.5]).expand(3, 2), ids[:0]):
        out = _roundtrip(view)
        assert out.dtype == view.dtype and torch.equal(out, view)


def test_subclasses_are_not_data():
    class Sneaky(torch.Tensor):
        pass

    class MyFloat(float):
        pass

    assert _roundtrip(torch.zeros(2).as_subclass(Sneaky)) == ("ref", "Sneaky")
    assert _roundtrip(MyFloat(1.0)) == ("ref", "MyFloat")


@pytest.mark.parametrize("bad", [
    {"$": "tensor", "dtype": "float32", "shape": [2, 2], "data": "AAAA"},          # too few bytes
    {"$": "tensor", "dtype": "object", "shape": [1], "data": ""},                  # unknown dtype
    {"$": "tensor", "dtype": "float32", "shape": [2**40], "data": ""},             # too large
    {"$": "tensor", "dtype": "float32", "shape": [-1], "data": ""},
    {"$": "pickle", "v": "gASV"}, {"$": "dict", "v": [[[1], 2]]}, {"$": "ref", "id": "7"}, [1, 2], {"no": "kind"},
])
def test_malformed_values_are_refused(bad):
    with pytest.raises(wire.WireError):
        wire.decode(bad, lambda i, t: None)


def test_deep_nesting_is_refused():
    value = 1
    for _ in range(100):
        value = {"$": "list", "v": [value]}
    with pytest.raises(wire.WireError):
        wire.decode(value, lambda i, t: None)


def test_sandbox_sees_no_repository_no_network_and_dies_with_its_children(tmp_path):
    with Sandbox({}, timeout=60) as sb:
        errors = sb.run(["import os, socket, subprocess\n"
                         f"SEES_REPO = os.path.exists({str(tmp_path)!r}) or os.path.exists({__file__!r})\n"
                         "UID = os.getuid()\n"
                         "try:\n    socket.create_connection(('127.0.0.1', 22), timeout=2); NET = True\n"
                         "except OSError:\n    NET = False\n"
                         "CHILD = subprocess.Popen(['sleep', '301'], start_new_session=True).pid\n"
                         "def boom():\n    raise KeyError('nope')"])
        assert errors == []
        names = sb.names()
        assert names["SEES_REPO"] is False and names["UID"] != 0 and names["NET"] is False
        with pytest.raises(RemoteError) as e:
            names["boom"]()
        assert isinstance(e.value, RemoteError) and e.value.kind == "KeyError"
        pid = sb.proc.pid
    import psutil

    assert not psutil.pid_exists(pid) or psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    left = lambda: [p for p in psutil.process_iter(["cmdline"]) if p.info["cmdline"] == ["sleep", "301"]]  # noqa: E731
    deadline = time.monotonic() + 30  # a loaded machine may take a moment to tear down the namespace
    while left() and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not left()


def test_sandbox_time_limit_stops_an_endless_cell():
    with Sandbox({}, timeout=30) as sb:
        with pytest.raises(SandboxError, match="stopped after 30 s"):
            sb.run(["while True:\n    pass"])
