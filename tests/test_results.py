"""Reference runs (tools/results.py, ``make results``): the concurrent command (``--concurrent``, the GPU
machine's) in smoke size on the CPU: one notebook's run writes its JSON, figures and HTML while another, stopped
by its budget, leaves its earlier run as it was; neither reaches docs/results.md or README (that the committed
ones match results/: tests/test_docs.py). A GPU run becomes the headline with the CPU run kept beside it."""

from __future__ import annotations

import json

import results
from conftest import ROOT


def _earlier(name: str, **hardware) -> dict:
    r = json.loads((ROOT / "results" / f"{name}.json").read_text())
    r["hardware"].update(hardware)
    return r


def test_the_concurrent_command_writes_what_finished_and_keeps_what_was_stopped(multi30k_env, tmp_path, monkeypatch, capsys):
    for key, value in multi30k_env.items():
        monkeypatch.setenv(key, value)
    monkeypatch.delenv("MPLBACKEND", raising=False)
    out = tmp_path / "out"
    out.mkdir()
    earlier = json.dumps(_earlier("02_seq2seq"), indent=1)  # a good earlier run, which a stopped run must not touch
    (out / "02_seq2seq.json").write_text(earlier)
    (out / "02_seq2seq-bleu-by-length.png").write_bytes(b"earlier figure")
    (out / "01_rnn_lstm.json").write_text(json.dumps(_earlier("01_rnn_lstm")))  # an earlier CPU run, replaced
    (out / "01_rnn_lstm-gone.png").write_bytes(b"a figure the new run no longer saves")
    rc = results.main(["--concurrent", "--smoke", "--only", "01_rnn_lstm", "02_seq2seq", "--out", str(out),
                       "--logs", str(tmp_path / "logs"), "--budget", "300", "--notebook-budget", "02_seq2seq=3"])
    printed = capsys.readouterr().out
    assert rc == 1, "a notebook stopped by its budget makes the command fail"
    assert "02_seq2seq: stopped by its budget after" in printed and "01_rnn_lstm: " in printed, printed
    assert "s on CPU" in printed and "test perplexity" in printed, f"no time, device or headline numbers: {printed}"
    assert (out / "02_seq2seq.json").read_text() == earlier
    assert (out / "02_seq2seq-bleu-by-length.png").read_bytes() == b"earlier figure"
    assert (tmp_path / "logs" / "02_seq2seq.log").is_file() and not list(ROOT.glob("build/results-02_seq2seq-*"))

    r = json.loads((out / "01_rnn_lstm.json").read_text())
    assert r["smoke"] and r["seconds"] > 0 and r["torch"] and r["commit"]
    assert r["hardware"]["cores"] >= 1 and r["hardware"]["gpu"]
    assert {"test PPL", "seed"} <= set(r["metrics"]), r["metrics"]
    assert r["figures"] and all((out / f).stat().st_size > 1000 for f in r["figures"])
    assert not (out / "01_rnn_lstm-gone.png").exists() and not (out / "runs").exists()
    html = (out / "html" / "01_rnn_lstm.html").read_text()
    assert "image/png" in html, "the executed notebook's figures are missing from its HTML"
    assert "no reference run recorded yet" in results.docs_block(out), "smoke runs never reach docs/results.md"
    assert "no reference run recorded yet" in results.headline("01_rnn_lstm", results.load_runs(out))


def test_a_gpu_run_is_the_headline_and_the_cpu_run_is_kept_beside_it(tmp_path):
    out, name = tmp_path / "out", "02_seq2seq"

    def finish(r: dict, figure: bytes):
        stage = tmp_path / f"stage{len(list(tmp_path.iterdir()))}"
        stage.mkdir()
        (stage / f"{name}.json").write_text(json.dumps(r))
        (stage / f"{name}-bleu-by-length.png").write_bytes(figure)
        return results.install(stage, out, name)

    cpu = _earlier(name, gpu="not measured (no GPU)", cores=2, cpu="AMD EPYC")
    gpu = _earlier(name)
    assert finish(cpu, b"cpu") == out / f"{name}.json"
    assert finish(gpu, b"gpu") == out / f"{name}.json"
    assert json.loads((out / "runs" / f"{name}-cpu.json").read_text()) == cpu
    assert finish({**cpu, "seconds": 999.0}, b"cpu again") == out / "runs" / f"{name}-cpu.json"
    assert json.loads((out / f"{name}.json").read_text()) == gpu, "a CPU run never replaces the GPU headline run"
    assert (out / f"{name}-bleu-by-length.png").read_bytes() == b"gpu"
    runs = results.load_runs(out)
    assert results.headline(name, runs).endswith(f"| {results.device(gpu)}, 213 s (3.6 min); CPU, 2 cores: 16.6 min")
    assert f"results/runs/{name}-cpu.json" in results.docs_block(out)

    # what the GPU machine sends back (tools/device_results.sh take): only the runs not held yet move in
    ours, theirs = tmp_path / "ours", tmp_path / "theirs"
    for folder, r in ((ours, cpu), (theirs, gpu)):
        folder.mkdir()
        (folder / f"{name}.json").write_text(json.dumps(r))
    (theirs / "01_rnn_lstm.json").write_text(json.dumps(_earlier("01_rnn_lstm")))
    (ours / "01_rnn_lstm.json").write_text(json.dumps(_earlier("01_rnn_lstm")))
    assert results.take(theirs, ours) == [name] and results.take(theirs, ours) == []
    assert json.loads((ours / "runs" / f"{name}-cpu.json").read_text()) == cpu
