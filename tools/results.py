"""Reference runs (``make results``): execute each master notebook in full on this machine's device and keep
what it measured, so that every number README and docs/results.md quote comes from a file.

Per notebook NN_topic, into ``results/`` (or ``--out``):

- ``NN_topic.json``: the headline numbers the notebook recorded (``seqcourse.record``), wall time,
  hardware (CPU model and cores, GPU or "not measured"), torch and Python versions, commit, date, smoke;
- ``NN_topic-<figure>.png``: the figures it saved (``seqcourse.save_figure``);
- ``html/NN_topic.html``: the executed master, for TAs grading written questions that cite a figure.
  It contains the solutions: it never goes to the public repository (``dist/public/``).

Hidden checks are left out (they run only on the grader's side). After a run into ``results/`` (and alone
with ``--docs``, which runs nothing) it rewrites ``docs/results.md``'s generated block (per notebook its run,
its metrics as tables with units and 95 % intervals, its figures) and the headline cells of README's notebook
table from the JSON files; ``tests/test_docs.py`` fails when they disagree.

A run is written into a folder of its own first and moved into ``results/`` only once it finished, so a run cut
short leaves the earlier one as it was. ``NN_topic.json`` is the notebook's headline run, a GPU run where there
is one; the latest run on the other kind of device (a CPU run beside a GPU run) is kept as
``runs/NN_topic-cpu.json`` (or ``-gpu.json``), its numbers and time only, and README shows its time beside.

``--concurrent`` (``make results CONCURRENT=1``, the GPU machine's command: tools/device_results.sh) runs the
notebooks at the same time, each in its own process (its own kernel) with its share of the cores and a
wall-clock budget, and moves each one's run into ``results/`` as soon as it finishes; one stopped by its budget
is reported and leaves the earlier run as it was.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from nbclient import NotebookClient

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
import course  # noqa: E402

# captions of the figures the reference runs save (docs/results.md shows every saved figure; one without a
# caption here is shown under its file name)
FIGURES = {
    "01_rnn_lstm-vanishing-gradients.png": "gradient reaching the first input against sequence length: RNN, LSTM with PyTorch's initialisation, LSTM with forget bias +3 (H = 64, mean of 5 random networks)",
    "01_rnn_lstm-lm-training.png": "the LSTM language model on Multi30k English: training and validation loss",
    "02_seq2seq-multi30k-training.png": "the seq2seq LSTM on Multi30k de→en: training and validation loss",
    "02_seq2seq-bleu-by-length.png": "seq2seq without attention: BLEU by source length",
    "03_attention-multi30k-training.png": "the attention seq2seq on Multi30k de→en: training and validation loss",
    "03_attention-bleu-against-beam-size.png": "BLEU and translation length against beam size and length penalty α",
    "03_attention-bleu-by-length.png": "tokenised BLEU by source length on test 2016: 03 with attention and beam search against 02 without attention (greedy)",
    "04_transformer-masks.png": "the masks of a small batch, entry by entry",
    "04_transformer-numbers-positions.png": "number words: sinusoidal and learned positional encodings",
    "04_transformer-multi30k-heads-encoder.png": "encoder self-attention of every layer and head on one test sentence",
    "04_transformer-multi30k-heads-decoder.png": "decoder self-attention of every layer and head on one test sentence",
    "04_transformer-multi30k-heads-cross-attention.png": "cross-attention of every layer and head on one test sentence",
    "04_transformer-multi30k-training.png": "the Transformer on Multi30k de→en: training (label-smoothed) and validation loss, and the learning-rate schedule",
    "05_subwords-vocabulary-size.png": "validation set: tokens per sentence against vocabulary size, BPE and notebook 04's words",
    "05_subwords-padding.png": "padding share of random, length-bucketed and token-count batches, and sentences per batch of at most 3,000 tokens",
    "05_subwords-training.png": "the subword Transformer on Multi30k de→en: training (label-smoothed) and validation loss",
    "05_subwords-subwords-against-words.png": "tokenised BLEU of the subword model minus notebook 04's word-level model on three test sets: all sentences, those with a German word seen fewer than twice in training, and the others (95 % paired bootstrap intervals over sentences; one training run per model)",
    "06_gpt-loss-against-time.png": "validation loss per word against training time, LSTM and GPT on two CPU cores",
    "06_gpt-quality-diversity.png": "sampling: quality (perplexity per word under the LSTM) against diversity (distinct-2) for temperature and nucleus sampling",
    "06_gpt-copy-heads.png": "the copy task: attention maps of every layer and head of the two-layer model",
    "07_bert_cola-mlm-loss.png": "masked language modelling: loss at the chosen positions during pretraining",
    "07_bert_cola-mcc-by-seed.png": "CoLA dev MCC per seed, trained from scratch and pretrained (bars: mean over seeds and its 95 % bootstrap interval over dev sentences)",
    "07_bert_cola-learning-curve.png": "CoLA in-domain dev MCC against the share of training labels, from scratch and pretrained (mean over 3 seeds, 95 % bootstrap intervals over dev sentences)",
    "07_bert_cola-cls-attention.png": "attention of [CLS] per head on dev sentences, acceptable and unacceptable",
    "08_modern_decoder-rope-scores.png": "rotary position embeddings: the score of one query and key at every pair of positions, and the mean score against the offset",
    "08_modern_decoder-loss-against-time.png": "validation loss per word against training time, 06's GPT and the modern decoder on two CPU cores",
    "08_modern_decoder-ablation.png": "ablation: validation loss per word against training time of the modern decoder with one change undone at a time",
    "08_modern_decoder-beyond-training-length.png": "captions read as one stream: loss per BPE token against position, beyond the longest training sequence",
    "08_modern_decoder-attention-kernels.png": "causal attention (4 heads of width 32, 4 sequences): speed and peak memory against sequence length for the own attention, F.scaled_dot_product_attention in float32 and bf16 autocast, and torch.compile",
    "08_modern_decoder-kv-cache.png": "key/value cache bytes per token for multi-head, grouped-query and multi-query attention at three model shapes",
}


def hardware() -> dict:
    import torch

    cpu = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                if line.startswith("model name")), platform.processor()) if Path("/proc/cpuinfo").is_file() else platform.processor()
    return {"cpu": cpu, "cores": os.cpu_count(),
            "gpu": torch.cuda.get_device_name(0) if torch.cuda.is_available() else "not measured (no GPU)"}


def commit() -> str:
    if os.environ.get("SEQCOURSE_COMMIT"):  # a copy of the tree without .git (e.g. sent to a GPU machine)
        return os.environ["SEQCOURSE_COMMIT"]
    rev = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    # the run's own output (results/, rewritten as it goes) is not a change to what ran
    dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no", "--", ".", ":!results"], cwd=ROOT,
                           capture_output=True, text=True).stdout.strip()
    return (rev or "unknown") + (" with local changes" if dirty else "")


def run(master: Path, out: Path, smoke: bool, ablations: bool = False) -> dict:
    """Execute ``master`` (hidden checks left out) and write its JSON, figures and HTML into ``out``."""
    import torch

    from nbconvert import HTMLExporter

    name = master.stem
    out.mkdir(parents=True, exist_ok=True)
    for old in [*out.glob(f"{name}-*.png"), out / f"{name}.metrics.json"]:
        old.unlink(missing_ok=True)
    nb = course.runnable_master(name)
    env = {"SEQCOURSE_RESULTS": str((out / name).resolve()), "SEQCOURSE_SMOKE": "1" if smoke else "",
           "SEQCOURSE_ABLATIONS": "1" if ablations else ""}
    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    start = time.perf_counter()
    try:
        with tempfile.TemporaryDirectory() as work:
            NotebookClient(nb, timeout=None, kernel_name="python3", resources={"metadata": {"path": work}}).execute()
    finally:
        for k, v in saved.items():
            os.environ.pop(k) if v is None else os.environ.__setitem__(k, v)
    seconds = time.perf_counter() - start
    load = os.getloadavg()[1]  # over the last 5 minutes: other work on the machine slows the run down
    metrics_file = out / f"{name}.metrics.json"
    metrics = json.loads(metrics_file.read_text()) if metrics_file.is_file() else {}
    metrics_file.unlink(missing_ok=True)
    result = {"notebook": name, "smoke": smoke, "metrics": metrics, "seconds": round(seconds, 1),
              "figures": sorted(p.name for p in out.glob(f"{name}-*.png")), "hardware": hardware(),
              "load_average_5min_at_end": round(load, 2),
              "torch": torch.__version__, "python": platform.python_version(), "commit": commit(),
              "date": datetime.date.today().isoformat()}
    (out / f"{name}.json").write_text(json.dumps(result, indent=1) + "\n")
    (out / "html").mkdir(exist_ok=True)
    (out / "html" / f"{name}.html").write_text(HTMLExporter().from_notebook_node(nb)[0])
    return result


def kind(r: dict) -> str:
    """The kind of device a run was made on: "gpu" or "cpu"."""
    return "cpu" if r["hardware"]["gpu"].startswith("not measured") else "gpu"


def install(stage: Path, out: Path, name: str) -> Path:
    """Move the run of ``name`` that finished in ``stage`` into ``out``; returns where its JSON went. The headline
    run ``NN_topic.json`` (with its figures and HTML) is a GPU run where there is one: a run on the other kind of
    device than the headline's keeps the latest of that kind as ``runs/NN_topic-<kind>.json``, numbers only."""
    new = json.loads((stage / f"{name}.json").read_text())
    head = out / f"{name}.json"
    old = json.loads(head.read_text()) if head.is_file() else None
    out.mkdir(parents=True, exist_ok=True)
    if old and not old["smoke"] and kind(old) != kind(new):
        (out / "runs").mkdir(exist_ok=True)
        if kind(new) == "cpu":  # the GPU run stays the headline
            beside = out / "runs" / f"{name}-cpu.json"
            shutil.move(stage / f"{name}.json", beside)
            return beside
        head.replace(out / "runs" / f"{name}-{kind(old)}.json")
    for fig in out.glob(f"{name}-*.png"):
        fig.unlink()
    for fig in stage.glob(f"{name}-*.png"):
        shutil.move(fig, out / fig.name)
    if (stage / "html" / f"{name}.html").is_file():
        (out / "html").mkdir(exist_ok=True)
        shutil.move(stage / "html" / f"{name}.html", out / "html" / f"{name}.html")
    shutil.move(stage / f"{name}.json", head)
    return head


def staged_run(master: Path, out: Path, smoke: bool, ablations: bool = False) -> dict:
    """:func:`run` into a folder of its own, moved into ``out`` (:func:`install`) only once it finished."""
    (ROOT / "build").mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=f"results-{master.stem}-", dir=ROOT / "build") as stage:
        r = run(master, Path(stage), smoke, ablations)
        install(Path(stage), out, master.stem)
    return r


def take(src: Path, out: Path) -> list[str]:
    """Move the runs in ``src`` (a copy of ``results/`` written elsewhere: the GPU machine's) that ``out`` does not
    hold yet into ``out`` (:func:`install`; smoke runs left out); returns their notebooks."""
    taken = []
    for name in course.unit_names():
        path = src / f"{name}.json"
        r = json.loads(path.read_text()) if path.is_file() else None
        held = [p for p in [out / f"{name}.json", *out.glob(f"runs/{name}-*.json")] if p.is_file()]
        if r is None or r["smoke"] or any(json.loads(p.read_text()) == r for p in held):
            continue
        install(src, out, name)
        taken.append(name)
    return taken


def kill_tree(proc: subprocess.Popen) -> None:
    """End ``proc`` and every process it started (its notebook's kernel runs in a session of its own)."""
    import psutil

    try:
        family = [psutil.Process(proc.pid), *psutil.Process(proc.pid).children(recursive=True)]
    except psutil.NoSuchProcess:
        family = []
    for p in family:
        try:
            p.kill()
        except psutil.NoSuchProcess:
            pass
    proc.wait()


def run_concurrently(names: list[str], out: Path, smoke: bool, ablations: bool, budget: float,
                     budgets: dict[str, float], logs: Path) -> dict[str, bool]:
    """Run the notebooks ``names`` at the same time, each in a process of its own (``--stage``: its own kernel) with
    its share of the cores as threads (at least 1) and a wall-clock budget (``budgets``, else ``budget``; all of
    them stop when ``budget`` seconds have passed). Each finished run moves into ``out`` at once (:func:`install`);
    a stopped or failed one leaves ``out`` as it was. Prints a line per notebook; returns {notebook: finished}."""
    threads = max(1, (os.cpu_count() or 1) // max(1, len(names)))
    env = {**os.environ, "OMP_NUM_THREADS": str(threads), "MKL_NUM_THREADS": str(threads),
           "RAYON_NUM_THREADS": str(threads)}  # torch's and tokenizers' threads
    logs.mkdir(parents=True, exist_ok=True)
    (ROOT / "build").mkdir(exist_ok=True)
    start, running, outcome = time.monotonic(), {}, {}
    print(f"{len(names)} notebooks at once, {threads} threads each, budget {budget:.0f} s; logs in {logs}", flush=True)
    for name in names:
        stage = Path(tempfile.mkdtemp(prefix=f"results-{name}-", dir=ROOT / "build"))
        with open(logs / f"{name}.log", "w") as log:
            cmd = [sys.executable, __file__, "--stage", str(stage), "--only", name] + ["--smoke"] * smoke + ["--ablations"] * ablations
            running[name] = (subprocess.Popen(cmd, env=env, stdout=log, stderr=subprocess.STDOUT, cwd=ROOT), stage)
    try:
        while running:
            time.sleep(0.5)
            elapsed = time.monotonic() - start
            for name, (proc, stage) in list(running.items()):
                limit = min(budgets.get(name, budget), budget)
                if proc.poll() is None and elapsed < limit:
                    continue
                del running[name]
                outcome[name] = proc.returncode == 0
                if proc.returncode is None:
                    kill_tree(proc)
                    said = f"stopped by its budget after {elapsed:.0f} s: {out / name}.json left as it was"
                elif proc.returncode:
                    tail = " | ".join((logs / f"{name}.log").read_text(errors="replace").strip().splitlines()[-3:])
                    said = f"failed after {elapsed:.0f} s (exit {proc.returncode}; {logs / name}.log): {tail}"
                else:
                    r = json.loads((stage / f"{name}.json").read_text())
                    where = install(stage, out, name)
                    said = f"{r['seconds']:.0f} s on {device(r)} -> {where}: {headline_text(name, {**load_runs(out), name: r})}"
                shutil.rmtree(stage, ignore_errors=True)
                print(f"{name}: {said}", flush=True)
    finally:
        for name, (proc, stage) in running.items():
            kill_tree(proc)
            shutil.rmtree(stage, ignore_errors=True)
    return outcome


# README's notebook table ends each row with two generated cells: the notebook's headline number against its
# baseline ({key} is a metric of that notebook's results file, {NN_topic/key} one of another notebook's;
# "{key [95 %]}" adds its interval), and the hardware and run time of the reference run
HEADLINES = {
    "01_rnn_lstm": "LSTM language model, test perplexity **{test PPL}**; a uniform guess over the vocabulary: {vocabulary}",
    "02_seq2seq": "de→en, greedy tokenised BLEU **{Multi30k: greedy BLEU (tokenised)}** (test 2016)",
    "03_attention": "greedy tokenised BLEU **{greedy BLEU (tokenised)}** ({beam BLEU (tokenised)} with beam search); 02 without attention: {02_seq2seq/Multi30k: greedy BLEU (tokenised)}",
    "04_transformer": "greedy tokenised BLEU **{greedy BLEU (tokenised)}**; 03's attention GRU: {03_attention/greedy BLEU (tokenised)}",
    "05_subwords": "tokenised BLEU **{2016 Flickr, all: subwords (05): tokenised BLEU}** (beam; cased sacreBLEU {beam sacreBLEU (cased, detokenised)}); 04's word-level recipe in the same run: {2016 Flickr, all: words (04's recipe): tokenised BLEU} (difference {2016 Flickr, all: subwords minus words, tokenised BLEU [95 %]})",
    "06_gpt": "GPT, test perplexity per word **{GPT: test PPL per word}**; 01's LSTM in the same run: {LSTM (nn.LSTM, 01's configuration): test PPL per word}",
    "07_bert_cola": "CoLA in-domain dev MCC, pretrained **{pretrained: in domain dev MCC mean}**; from scratch: {from scratch: in domain dev MCC mean} (mean of 3 seeds; difference {pretrained minus from scratch: in domain dev MCC mean [95 %]})",
    "08_modern_decoder": "test perplexity per word **{modern decoder: test PPL per word}**; 06's GPT in the same run: {06's GPT: test PPL per word}",
}
DOCS = ROOT / "docs" / "results.md"
BEGIN = "<!-- results:begin (written by tools/results.py --docs from results/*.json) -->"
END = "<!-- results:end -->"
INTERVAL = re.compile(r"(.*), 95 % (?:interval )?(low|high)")


def unit(key: str) -> tuple[str, float]:
    """(unit, scale) of a recorded metric, read from its name."""
    for pattern, found in ((r"\bper s(econd)?\b", (" tokens/s", 1)), (r"\bms\b", (" ms", 1)), (r"\bMiB\b", (" MiB", 1)),
                           (r"\bbytes\b", (" bytes", 1)), (r"\bseconds\b", (" s", 1)), (r"speed-up", ("×", 1)),
                           (r"\bloss\b|\bNLL\b", (" nats", 1)),
                           (r"exact match|\bshare\b|\brate\b|accuracy|identical", (" %", 100))):
        if re.search(pattern, key):
            return found
    return "", 1


def number(v, scale: float = 1) -> str:
    """An integer with thousands separators; a float to about three significant digits, never in
    exponent notation above 1 (38.96 stays 38.96 at four: 1 decimal from 10 on, 2 from 1 on)."""
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return str(v).replace("|", "\\|")
    if isinstance(v, int) and scale == 1:
        return f"{v:,}"
    v = v * scale
    a = abs(v)
    return f"{v:,.0f}" if a >= 100 else f"{v:.1f}" if a >= 10 else f"{v:.2f}" if a >= 1 else f"{v:.3g}"


def value(key: str, v, interval: tuple | None = None) -> str:
    """A metric with its unit (a list of them: one unit after the list), and its 95 % interval in brackets."""
    u, scale = unit(key)
    text = "[" + ", ".join(number(x, scale) for x in v) + "]" if isinstance(v, list) else number(v, scale)
    text += u if isinstance(v, (int, float, list)) and not isinstance(v, bool) else ""
    if interval:
        text += f" [{number(interval[0], scale)}, {number(interval[1], scale)}]"
    return text


def with_intervals(metrics: dict) -> dict:
    """{key: (value, (low, high) or None)}: a key's ", 95 % low" and ", 95 % high" become its interval (the
    key itself, or the one key that extends it: "X, 95 % low" belongs to "X, tokenised BLEU")."""
    bounds, plain = {}, {}
    for k, v in metrics.items():
        m = INTERVAL.fullmatch(k)
        if m:
            bounds.setdefault(m[1], {})[m[2]] = v
        else:
            plain[k] = v
    out = {k: (v, None) for k, v in plain.items()}
    for base, b in bounds.items():
        owners = [base] if base in plain else [k for k in plain if k.startswith(base + ", ")]
        if len(owners) == 1 and {"low", "high"} <= set(b):
            out[owners[0]] = (plain[owners[0]], (b["low"], b["high"]))
        else:  # no single owner: shown as they are
            out.update({f"{base}, 95 % {side}": (x, None) for side, x in b.items()})
    return out


def _natural(text: str) -> list:
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", text)]


def _table(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    return "\n".join(lines + ["| " + " | ".join(r) + " |" for r in rows])


def metric_tables(metrics: dict) -> str:
    """A notebook's metrics as tables: keys "group: measure" whose groups measured the same things become one
    table (a group per row, or per column when there are fewer groups than measures); the rest one list."""
    items = with_intervals(metrics)
    groups: dict[str, dict[str, str]] = {}
    for k in items:
        group, sep, measure = k.partition(": ")
        if sep:
            groups.setdefault(group, {})[measure] = k
    alike: dict[tuple, list[str]] = {}
    for group, measures in groups.items():
        alike.setdefault(tuple(sorted(measures)), []).append(group)
    tables, pivoted = [], set()
    for measures, names in alike.items():
        if len(names) < 2:
            continue
        names = sorted(names, key=_natural)
        measures = list(groups[names[0]])
        cell = {(g, m): value(groups[g][m], *items[groups[g][m]]) for g in names for m in measures}
        pivoted |= {groups[g][m] for g in names for m in measures}
        label = {m: m + (" [95 % interval]" if any(items[groups[g][m]][1] for g in names) else "") for m in measures}
        if len(names) >= len(measures):
            tables.append(_table([""] + [label[m] for m in measures], [[g] + [cell[g, m] for m in measures] for g in names]))
        else:
            tables.append(_table([""] + names, [[label[m]] + [cell[g, m] for g in names] for m in measures]))
    rest = [[k.replace("|", "\\|") + (" [95 % interval]" if items[k][1] else ""), value(k, *items[k])]
            for k in items if k not in pivoted]
    if rest:
        tables.insert(0, _table(["measured", "value"], rest))
    return "\n\n".join(tables)


def load_runs(folder: Path) -> dict[str, dict]:
    """{notebook: its headline run}, smoke runs left out; a run on the other kind of device kept beside it
    (``runs/NN_topic-<kind>.json``) under the key "beside"."""
    runs = {}
    for name in course.unit_names():
        path = folder / f"{name}.json"
        r = json.loads(path.read_text()) if path.is_file() else None
        if r is not None and not r["smoke"]:
            runs[name] = r
            beside = folder / "runs" / f"{name}-{'cpu' if kind(r) == 'gpu' else 'gpu'}.json"
            if beside.is_file():
                r["beside"] = json.loads(beside.read_text())
    return runs


def device(r: dict) -> str:
    hw = r["hardware"]
    return f"CPU, {hw['cores']} cores ({hw['cpu']})" if hw["gpu"].startswith("not measured") else hw["gpu"]


def run_time(r: dict) -> str:
    return f"{r['seconds']:,.0f} s ({r['seconds'] / 60:.1f} min)"


def headline_text(name: str, runs: dict[str, dict]) -> str:
    """The notebook's headline numbers (``HEADLINES``) filled in from ``runs``."""
    def fill(m: re.Match) -> str:
        ref, interval = m[1].removesuffix(" [95 %]"), m[1].endswith(" [95 %]")
        nb, sep, key = ref.partition("/")
        if not sep or nb not in course.unit_names():
            nb, key = name, ref
        if nb not in runs:
            return f"(no reference run of {nb})"
        items = with_intervals(runs[nb]["metrics"])
        if key not in items:
            return f"({key}: not recorded)"
        v, bounds = items[key]
        return value(key, v, bounds if interval else None)
    return re.sub(r"{([^{}]+)}", fill, HEADLINES[name])


def headline(name: str, runs: dict[str, dict]) -> str:
    """The two generated cells that end the notebook's row of README's table: its headline numbers, and the
    hardware and time of its run (and the time of the run on the other kind of device, where one is kept)."""
    if name not in runs:
        return "no reference run recorded yet (`make results`) | "
    r = runs[name]
    beside = ""
    if "beside" in r:  # in short: README stays under its size limit
        b = r["beside"]
        on = f"CPU, {b['hardware']['cores']} cores" if kind(b) == "cpu" else device(b)
        beside = f"; {on}: {b['seconds'] / 60:.1f} min"
    return f"{headline_text(name, runs)} | {device(r)}, {run_time(r)}{beside}"


def beside_table(name: str, r: dict) -> str:
    """The run kept beside the headline run (same notebook and seed, the other kind of device): its numbers and
    the headline run's side by side."""
    b = r["beside"]
    head, other = with_intervals(r["metrics"]), with_intervals(b["metrics"])
    rows = [[k.replace("|", "\\|"), value(k, *head[k]), value(k, *other[k])] for k in head if k in other]
    return (f"The run beside it (`results/runs/{name}-{kind(b)}.json`): {device(b)}, {run_time(b)}, torch {b['torch']}, "
            f"{b['date']}, commit {b['commit']}.\n\n" + _table(["measured", device(r), device(b)], rows))


def docs_block(folder: Path, docs: Path = DOCS) -> str:
    """docs/results.md's generated block: the runs at a glance, then per notebook its run, its metrics as
    tables and its figures (linked relative to ``docs``)."""
    runs = load_runs(folder)
    link = Path(os.path.relpath(folder.resolve(), docs.parent.resolve())).as_posix()
    rows = [[f"[{n}](#{n})" if n in runs else n, device(runs[n]) if n in runs else "no reference run recorded yet (`make results`)",
             run_time(runs[n]) if n in runs else "", runs[n]["date"] if n in runs else "", runs[n]["commit"] if n in runs else ""]
            for n in course.unit_names()]
    parts = [_table(["notebook", "hardware", "run time", "date", "commit"], rows)]
    for name, r in runs.items():
        busy = r.get("load_average_5min_at_end", 0) > r["hardware"]["cores"]
        parts.append(f"## {name}\n\nReference run: {device(r)}, {run_time(r)}, torch {r['torch']}, Python {r['python']}, "
                     f"{r['date']}, commit {r['commit']}"
                     + (f"; the machine was shared with other work (load {r['load_average_5min_at_end']:g}), so times are slower"
                        if busy else "") + ".")
        parts.append(metric_tables(r["metrics"]))
        if "beside" in r:
            parts.append(beside_table(name, r))
        for fig in r["figures"]:
            caption = FIGURES.get(fig, fig)
            parts.append(f"*{caption}*\n\n![{caption}]({link}/{fig})")
    return f"{BEGIN}\n" + "\n\n".join(parts) + f"\n{END}"


def update_docs(folder: Path, docs: Path = DOCS, readme: Path = ROOT / "README.md") -> None:
    """Rewrite docs/results.md's generated block and the generated cells of README's notebook table."""
    text = docs.read_text()
    start, end = text.index(BEGIN), text.index(END) + len(END)
    docs.write_text(text[:start] + docs_block(folder, docs) + text[end:])
    readme.write_text(readme_with_headlines(readme.read_text(), folder))


def readme_with_headlines(text: str, folder: Path) -> str:
    """README with the last two cells of each notebook's row (the row that links the notebook) regenerated."""
    runs = load_runs(folder)
    lines = text.split("\n")
    for i, line in enumerate(lines):
        for name in course.unit_names():
            if line.startswith("| ") and f"](notebooks/{name}/{name}.ipynb)" in line.split(" | ")[1]:
                lines[i] = " | ".join(line.split(" | ")[:3]) + f" | {headline(name, runs)} |"
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", nargs="*", help="run only these notebooks (e.g. 01_rnn_lstm)")
    parser.add_argument("--smoke", action="store_true", help="smoke-size runs (written to build/results-smoke/)")
    parser.add_argument("--out", type=Path, help="output folder (default results/, or build/results-smoke/)")
    parser.add_argument("--ablations", action="store_true",
                        help="also run the comparisons that need a second training on a CPU (SEQCOURSE_ABLATIONS)")
    parser.add_argument("--docs", action="store_true",
                        help="run nothing: rewrite docs/results.md and README's headline cells from results/")
    parser.add_argument("--concurrent", action="store_true",
                        help="run the notebooks at the same time, each in its own process with its share of the cores")
    parser.add_argument("--budget", type=float, default=540,
                        help="--concurrent: seconds after which every run still going is stopped (default 540)")
    parser.add_argument("--notebook-budget", action="append", default=[], metavar="NOTEBOOK=SECONDS",
                        help="--concurrent: a smaller budget for one notebook (repeatable)")
    parser.add_argument("--logs", type=Path, default=ROOT / "build" / "results-logs",
                        help="--concurrent: folder of each notebook's output (default build/results-logs/)")
    parser.add_argument("--take", type=Path, metavar="FOLDER",
                        help="run nothing: move the runs in FOLDER (results/ as the GPU machine wrote it) that results/ "
                             "does not hold yet into results/, then rewrite docs/results.md and README's headline cells")
    parser.add_argument("--stage", type=Path, help=argparse.SUPPRESS)  # --concurrent's worker: one notebook, as it is
    args = parser.parse_args(argv)
    if args.take:
        print("taken into results/:", ", ".join(take(args.take, ROOT / "results")) or "none")
    if args.docs or args.take:
        update_docs(ROOT / "results")
        return 0
    if args.stage:
        run(course.master_path(args.only[0]), args.stage, args.smoke, args.ablations)
        return 0
    out = args.out or (ROOT / "build" / "results-smoke" if args.smoke else ROOT / "results")
    names = [n for n in course.unit_names() if not args.only or n in args.only]
    if args.concurrent:
        budgets = {k: float(v) for k, _, v in (b.partition("=") for b in args.notebook_budget)}
        failed = int(not all(run_concurrently(names, out, args.smoke, args.ablations, args.budget, budgets, args.logs).values()))
    else:
        for name in names:
            r = staged_run(course.master_path(name), out, args.smoke, args.ablations)
            print(f"{r['notebook']}: {r['seconds']:.0f} s, {len(r['figures'])} figures, {r['metrics']}", flush=True)
        failed = 0
    if not args.smoke and args.out is None:
        update_docs(out)
    return failed


if __name__ == "__main__":
    sys.exit(main())
