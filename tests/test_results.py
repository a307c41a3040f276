"""Reference runs (tools/results.py, ``make results``): a smoke-size run of a master writes its JSON, figures
and HTML, and never reaches docs/results.md or README (that the committed ones match results/:
tests/test_docs.py)."""

from __future__ import annotations

import json

import course
import results


def test_a_reference_run_writes_numbers_figures_and_the_executed_notebook(multi30k_env, tmp_path, monkeypatch):
    for key, value in multi30k_env.items():
        monkeypatch.setenv(key, value)
    monkeypatch.delenv("MPLBACKEND", raising=False)
    r = results.run(course.master_path("01_rnn_lstm"), tmp_path, smoke=True)
    saved = json.loads((tmp_path / "01_rnn_lstm.json").read_text())
    assert saved == r and r["smoke"] and r["seconds"] > 0 and r["torch"] and r["commit"]
    assert r["hardware"]["cores"] >= 1 and r["hardware"]["gpu"]
    assert {"test PPL", "seed"} <= set(r["metrics"]), r["metrics"]
    assert r["figures"] and all((tmp_path / f).stat().st_size > 1000 for f in r["figures"])
    html = (tmp_path / "html" / "01_rnn_lstm.html").read_text()
    assert "image/png" in html, "the executed notebook's figures are missing from its HTML"
    assert "no reference run recorded yet" in results.docs_block(tmp_path), "smoke runs never reach docs/results.md"
    assert "no reference run recorded yet" in results.headline("01_rnn_lstm", results.load_runs(tmp_path))
