"""Reference runs (``make results``): execute each master notebook in full on this machine's device and keep
what it measured, so that every number README quotes comes from a file.

Per notebook NN_topic, into ``results/`` (or ``--out``):

- ``NN_topic.json``: the headline numbers the notebook recorded (``seqcourse.record``), wall time,
  hardware (CPU model and cores, GPU or "not measured"), torch and Python versions, commit, date, smoke;
- ``NN_topic-<figure>.png``: the figures it saved (``seqcourse.save_figure``);
- ``html/NN_topic.html``: the executed master, for TAs grading written questions that cite a figure.
  It contains the solutions: it never goes to the public repository (``dist/public/``).

Hidden checks are left out (they run only on the grader's side). ``--readme`` rewrites README's results
block from the JSON files (a test fails when they disagree).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
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

# the figures README shows under its results table (each only once its reference run has saved it)
README_FIGURES = {"04_transformer-multi30k-heads-cross-attention.png": "notebook 04: cross-attention of every head of the Transformer on one test sentence",
                  "04_transformer-multi30k-training.png": "notebook 04: training and validation loss of the Transformer on Multi30k",
                  "03_attention-bleu-against-beam-size.png": "notebook 03: BLEU and translation length against beam size and length penalty α",
                "05_subwords-subwords-against-words.png": "notebook 05: tokenised BLEU of the subword model minus notebook 04's word-level model on three Multi30k test sets, all sentences, those with a German word seen fewer than twice in training, and the others (95 % paired bootstrap intervals over sentences; one training run per model)",
                "06_gpt-loss-against-time.png": "notebook 06: validation loss per word against training time, LSTM and GPT on two CPU cores",
                "07_bert_cola-learning-curve.png": "notebook 07: CoLA in-domain dev MCC against the share of training labels, trained from scratch and pretrained (mean over 3 seeds, 95 % bootstrap intervals over dev sentences)",
                "07_bert_cola-mcc-by-seed.png": "notebook 07: CoLA dev MCC per seed, trained from scratch and pretrained with masked language modelling (bars: the mean over seeds and its 95 % bootstrap interval over dev sentences)",
                "08_modern_decoder-loss-against-time.png": "notebook 08: validation loss per word against training time, 06's GPT and the modern decoder (RMSNorm, RoPE, SwiGLU, grouped-query attention) on two CPU cores",
                "08_modern_decoder-attention-kernels.png": "notebook 08: causal attention, 4 heads of width 32, 4 sequences: tokens per second and memory at the peak of one call against sequence length, for the course's own attention, F.scaled_dot_product_attention in float32 and bf16 autocast, and the own attention through torch.compile"}
BEGIN, END = "<!-- results:begin (tools/results.py --readme writes this block) -->", "<!-- results:end -->"


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


def _value(v) -> str:
    if isinstance(v, list):
        return "[" + ", ".join(map(_value, v)) + "]"
    return f"{v:,.3g}" if isinstance(v, float) else str(v)


def readme_block(folder: Path) -> str:
    """README's results block, made from the JSON files in ``folder``."""
    rows = []
    for path in sorted(folder.glob("[0-9][0-9]_*.json")):
        if path.name.endswith(".metrics.json"):  # a run in progress (or one that failed)
            continue
        r = json.loads(path.read_text())
        if r["smoke"]:
            continue
        metrics = "; ".join(f"{k} {_value(v)}" for k, v in r["metrics"].items())
        device = r["hardware"]["gpu"] if not r["hardware"]["gpu"].startswith("not measured") else \
            f"CPU only, {r['hardware']['cores']} cores ({r['hardware']['cpu']})"
        busy = r.get("load_average_5min_at_end", 0) > r["hardware"]["cores"]
        device += f"; shared with other work (load {r['load_average_5min_at_end']:g}), so times are slower" if busy else ""
        rows.append(f"| {r['notebook']} | {metrics} | {r['seconds'] / 60:.1f} min | {device}; torch {r['torch']} | "
                    f"{r['date']}, {r['commit']} |")
    if not rows:
        rows = ["| (no reference run recorded yet: `make results`) | | | | |"]
    head = "| notebook | measured (seed 0) | run time | hardware | date, commit |\n|---|---|---|---|---|"
    devices = ["", "The kind of machine of each notebook's reference run (results/ keeps one run per notebook, and a run "
               "on the other kind replaces it; \"not measured\": no run of that kind is kept):", "", "| notebook | CPU | GPU |", "|---|---|---|"]
    for name in course.unit_names():
        path = folder / f"{name}.json"
        r = json.loads(path.read_text()) if path.is_file() else None
        cpu = gpu = "not measured"
        if r is not None and not r["smoke"]:
            where = f"{r['seconds'] / 60:.1f} min ({r['date']}, {r['commit']})"
            if r["hardware"]["gpu"].startswith("not measured"):
                cpu = f"{r['hardware']['cores']} cores: {where}"
            else:
                gpu = f"{r['hardware']['gpu']}: {where}"
        devices.append(f"| {name} | {cpu} | {gpu} |")
    rows += devices
    figures = [f"\n{caption}:\n\n![{caption}]({folder.name}/{name})" for name, caption in README_FIGURES.items()
               if (folder / name).is_file()]
    return f"{BEGIN}\n{head}\n" + "\n".join(rows) + "\n" + "\n".join(figures) + f"\n{END}"


def update_readme(readme: Path, folder: Path) -> None:
    text = readme.read_text()
    start, end = text.index(BEGIN), text.index(END) + len(END)
    readme.write_text(text[:start] + readme_block(folder) + text[end:])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", nargs="*", help="run only these notebooks (e.g. 01_rnn_lstm)")
    parser.add_argument("--smoke", action="store_true", help="smoke-size runs (written to build/results-smoke/)")
    parser.add_argument("--out", type=Path, help="output folder (default results/, or build/results-smoke/)")
    parser.add_argument("--ablations", action="store_true",
                        help="also run the comparisons that need a second training on a CPU (SEQCOURSE_ABLATIONS)")
    parser.add_argument("--readme", action="store_true", help="only rewrite README's results block from results/")
    args = parser.parse_args(argv)
    if args.readme:
        update_readme(ROOT / "README.md", ROOT / "results")
        return 0
    out = args.out or (ROOT / "build" / "results-smoke" if args.smoke else ROOT / "results")
    masters = [course.master_path(n) for n in course.unit_names()]
    for master in masters:
        if args.only and master.stem not in args.only:
            continue
        r = run(master, out, args.smoke, args.ablations)
        print(f"{r['notebook']}: {r['seconds']:.0f} s, {len(r['figures'])} figures, {r['metrics']}", flush=True)
    if not args.smoke and args.out is None:
        update_readme(ROOT / "README.md", out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
