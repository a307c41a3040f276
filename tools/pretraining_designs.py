"""Which pretraining design makes notebook 07's pretrained encoder beat the one trained from scratch (issue 45)?

Two steps, so that the expensive one runs where there is a GPU and nothing but torch:

    python tools/pretraining_designs.py prepare build/designs [--smoke]
    python tools/pretraining_designs.py run build/designs/bundle.pt --out build/designs/results.json \\
        [--budget-s 450] [--workers 16] [--smoke]

``prepare`` (needs the course's environment: spaCy, datasets, the data) runs notebook 07's data cell (section 8)
and tokenises WordNet's example sentences and definitions (``seqcourse.data.load_wordnet``) with the notebook's
tokeniser; it writes ``bundle.pt``: every sentence as token ids, one vocabulary per corpus built as the notebook
builds its own (words seen twice), CoLA's splits with their labels.

``run`` needs torch and this repository only. Every worker process executes the notebook's own code from the
master (``units/07_bert_cola/07_bert_cola.ipynb``: its graded cells, which hold the reference solutions, and the
functions and settings of its other cells), so the designs train the encoder, MLM head, masking, loss, classifier,
``fit`` and bootstrap the notebook runs. Designs, each compared with training from scratch on the same
vocabulary: the pretraining corpus (captions + CoLA as now; + WordNet's examples; + WordNet's definitions too), the
pretraining length (1x and 4x the optimiser steps of the notebook's CPU run, whatever the corpus), and the
fine-tuning recipe (the notebook's; the encoder's learning rate a third of the head's; half the epochs). Each at
10 %, 30 % and 100 % of CoLA's training labels with the notebook's seeds, scored on both dev sets; 95 % intervals
by the notebook's paired bootstrap over dev sentences (the same resamples for every design). A pretraining run
also records the held-out MLM loss (the notebook's), and the MLM loss and top-1 accuracy on 2,000 WordNet example
sentences that no corpus contains.

Runs go to a pool of processes (one torch thread each; all on the GPU where there is one). The results file is
rewritten after every finished run; at ``--budget-s`` the pool is stopped and the file says which runs did not
finish. ``--smoke``: the notebook's smoke sizes (SEQCOURSE_SMOKE=1), for a check in minutes on a CPU.

Measured at 5be5ba7: the full sweep (6 pretrainings, 216 classifiers) took 432 s on one NVIDIA H200 with 16 workers
(16 CPU cores, torch 2.11.0+cu130, bf16 autocast); the smoke run 101 s on 2 CPU workers.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import json
import multiprocessing
import os
import platform
import sys
import tempfile
import time
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
MASTER = ROOT / "units" / "07_bert_cola" / "07_bert_cola.ipynb"
CONSTANTS = {"CPU_CONFIG", "CONFIG", "MAX_LEN", "PRETRAIN_EPOCHS", "PRETRAIN_BATCH", "SEEDS", "FINETUNE_EPOCHS",
             "FINETUNE_BATCH", "FINETUNE_LR", "DEV_SPLITS", "N_RESAMPLES", "ARMS", "LABEL_SHARES"}
CORPORA = {  # name -> the sources it joins, in this order
    "captions+CoLA": ("captions", "cola_train"),
    "+WordNet examples": ("captions", "cola_train", "wordnet_examples"),
    "+WordNet examples+definitions": ("captions", "cola_train", "wordnet_examples", "wordnet_definitions"),
}
LENGTHS = (1, 4)          # pretraining optimiser steps, in multiples of the notebook's CPU run on captions+CoLA
RECIPES = {               # fine-tuning: (epochs as a share of the notebook's, encoder lr / head lr)
    "notebook": (1.0, 1.0),
    "encoder lr / 3": (1.0, 1 / 3),
    "half the epochs": (0.5, 1.0),
}
SCRATCH_RECIPES = ("notebook", "half the epochs")   # a lower rate for a random encoder is no recipe anyone uses
N_PROBE = 2000            # WordNet example sentences kept out of every corpus: the MLM probe


# --- the notebook's code --------------------------------------------------------------------------------------

def _code_cells(master: Path) -> list[tuple[str, bool]]:
    """(source, tagged otter_ignore) of the master's code cells outside its test blocks."""
    cells, in_tests = [], False
    for cell in json.loads(master.read_text(encoding="utf-8"))["cells"]:
        source = "".join(cell["source"])
        if cell["cell_type"] == "raw":
            in_tests = {"# BEGIN TESTS": True, "# END TESTS": False}.get(source.strip(), in_tests)
        elif cell["cell_type"] == "code" and not in_tests:
            cells.append((source, "otter_ignore" in cell.get("metadata", {}).get("tags", [])))
    return cells


def _assigned(node) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}


def notebook_namespace(master: Path = MASTER) -> dict:
    """Notebook 07's code, executed: its graded cells whole (imports, the encoder, the reference solutions), and
    from the cells that train and plot only their functions, classes and the settings in CONSTANTS. The settings are
    those of a CPU run (the notebook picks a larger model and more epochs on a GPU); ``DEVICE`` is then the
    machine's."""
    ns: dict = {"__name__": "notebook07"}
    device = None
    for source, ignored in _code_cells(master):
        tree = ast.parse(source)
        if ignored:
            keep = [n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))
                    or (isinstance(n, (ast.Assign, ast.If)) and _assigned(n) and _assigned(n) <= CONSTANTS)]
            tree = ast.Module(body=keep, type_ignores=[])
        exec(compile(tree, str(master), "exec"), ns)
        if device is None and "DEVICE" in ns:
            device, ns["DEVICE"] = ns["DEVICE"], torch.device("cpu")    # the CPU settings, then the machine
    ns["DEVICE"] = device
    return ns


# --- prepare ----------------------------------------------------------------------------------------------------

def prepare(outdir: Path, smoke: bool) -> Path:
    from seqcourse import Vocab
    from seqcourse.data import load_wordnet

    ns = notebook_namespace()
    data_cell = next(s for s, _ in _code_cells(MASTER) if "pretrain_text = " in s and "load_cola" in s)
    exec(compile(data_cell, str(MASTER), "exec"), ns)              # section 8: CoLA, captions, the vocabulary
    tokenize = ns["tokenize"]
    start = time.perf_counter()
    examples, definitions = load_wordnet("examples"), load_wordnet("definitions")
    if smoke:
        examples, definitions = examples[:1500], definitions[:1500]
    probe_share = 0.1 if smoke else N_PROBE / len(examples)
    order = torch.randperm(len(examples), generator=torch.Generator().manual_seed(0)).tolist()
    n_probe = round(probe_share * len(examples))
    probe = sorted(order[:n_probe])
    kept = sorted(order[n_probe:])
    tokens = {
        "captions": ns["caption_tokens"],
        "cola_train": ns["cola_tokens"]["train"],
        "wordnet_examples": [tokenize(examples[i]) for i in kept],
        "wordnet_definitions": [tokenize(s) for s in definitions],
        "wordnet_probe": [tokenize(examples[i]) for i in probe],
        "in_domain_dev": ns["cola_tokens"]["in_domain_dev"],
        "out_of_domain_dev": ns["cola_tokens"]["out_of_domain_dev"],
    }
    print(f"WordNet tokenised in {time.perf_counter() - start:.0f} s")
    vocabs = {}
    for name, sources in CORPORA.items():
        words = Vocab.build([t for s in sources for t in tokens[s]], min_freq=2)
        vocabs[name] = words.itos[:4] + ["[cls]", "[mask]"] + words.itos[4:]     # as the notebook's section 8
    assert vocabs["captions+CoLA"] == ns["vocab"].itos, "the first corpus must give the notebook's own vocabulary"
    types = list(dict.fromkeys(t for itos in vocabs.values() for t in itos))   # every corpus' words, specials first
    index = {t: i for i, t in enumerate(types)}
    assert len(types) <= 2 ** 16, "token ids are stored as uint16"

    def pack(sentences):
        ids = [index.get(t, ns["UNK_ID"]) for s in sentences for t in s]
        return {"ids": torch.tensor(ids, dtype=torch.int32).to(torch.uint16), "lengths": torch.tensor([len(s) for s in sentences], dtype=torch.int32)}

    bundle = {
        "meta": {"smoke": smoke, "master_sha256": hashlib.sha256(MASTER.read_bytes()).hexdigest(),
                 "wordnet": "seqcourse.data.load_wordnet: distinct example sentences and definitions",
                 "wordnet_probe": f"{len(probe)} WordNet example sentences, in no corpus",
                 "sentences": {k: len(v) for k, v in tokens.items()},
                 "tokens": {k: sum(map(len, v)) for k, v in tokens.items()}},
        "types": types,
        "vocabs": {k: torch.tensor([index[t] for t in itos], dtype=torch.int32) for k, itos in vocabs.items()},
        "sources": {k: pack(v) for k, v in tokens.items()},
        "labels": {split: torch.tensor(ns["cola"][split]["label"], dtype=torch.int8) for split in ns["cola"]},
    }
    outdir.mkdir(parents=True, exist_ok=True)
    path = outdir / "bundle.pt"
    torch.save(bundle, path)
    print(json.dumps(bundle["meta"], indent=1))
    print({k: len(v) for k, v in vocabs.items()}, f"{path}: {path.stat().st_size / 1e6:.1f} MB")
    return path


# --- run: the work of one process ------------------------------------------------------------------------------

_W: dict = {}   # per worker: the notebook's namespace, the bundle, the data of each corpus


def _init_worker(bundle_path: str, tmpdir: str) -> None:
    torch.set_num_threads(1)
    _W["ns"] = notebook_namespace()
    _W["bundle"] = torch.load(bundle_path, weights_only=True)
    _W["tmpdir"] = Path(tmpdir)
    _W["corpus"] = {}


def _sentences(source: dict) -> list[list[int]]:
    ids = source["ids"].long().tolist()
    out, at = [], 0
    for n in source["lengths"].tolist():
        out.append(ids[at:at + n])
        at += n
    return out


def corpus_data(name: str) -> dict:
    """Everything the notebook builds from its text for corpus ``name``, with that corpus' vocabulary: the MLM
    training and held-out sentences (section 9's split), CoLA's examples (section 8) and the WordNet probe."""
    if name in _W["corpus"]:
        return _W["corpus"][name]
    ns, bundle = _W["ns"], _W["bundle"]
    vocab = bundle["vocabs"][name].long()
    lookup = torch.full((len(bundle["types"]),), ns["UNK_ID"], dtype=torch.long)
    lookup[vocab] = torch.arange(len(vocab))

    def encode(source):      # the notebook's encode: [CLS] w_1 ... w_n, unknown words <unk>
        return [[ns["CLS_ID"]] + lookup[torch.tensor(s, dtype=torch.long)].tolist() for s in _sentences(bundle["sources"][source])]

    text = [s for source in CORPORA[name] for s in encode(source)]
    held_out, max_len = len(text) // 10, ns["MAX_LEN"]
    order = torch.randperm(len(text), generator=torch.Generator().manual_seed(0)).tolist()
    cola_data = {split: [(ids, [int(y)]) for ids, y in zip(encode(split if split != "train" else "cola_train"),
                                                         bundle["labels"][split].tolist())]
                 for split in bundle["labels"]}
    data = {
        "vocab_size": len(vocab),
        "mlm_train": [text[i] for i in order[held_out:] if len(text[i]) <= max_len],
        "mlm_val": [text[i] for i in order[:held_out] if len(text[i]) <= max_len],
        "probe": [s for s in encode("wordnet_probe") if len(s) <= max_len],
        "cola_data": cola_data,
        "cola_train": [ex for ex in cola_data["train"] if len(ex[0]) <= max_len],
        "sentences": len(text), "words": sum(len(s) - 1 for s in text),
        "unknown": {split: sum(i == ns["UNK_ID"] for ids, _ in cola_data[split] for i in ids[1:])
                    / max(1, sum(len(ids) - 1 for ids, _ in cola_data[split])) for split in cola_data},
    }
    _W["corpus"][name] = data
    return data


class Steps:
    """The first ``n`` batches of successive epochs of ``batches``: one fit epoch of exactly ``n`` optimiser steps,
    the same batches as ``fit`` over whole epochs gives when ``n`` is a multiple of an epoch."""

    def __init__(self, batches, n: int):
        self.batches, self.n = batches, n

    def __len__(self) -> int:
        return self.n

    def __iter__(self):
        done = 0
        while True:
            for batch in self.batches:
                if done == self.n:
                    return
                done += 1
                yield batch


def base_steps() -> int:
    """The optimiser steps of the notebook's CPU pretraining: PRETRAIN_EPOCHS epochs on captions + CoLA."""
    ns = _W["ns"]
    per_epoch = 3 if ns["SMOKE"] else len(ns["BucketBatches"](corpus_data("captions+CoLA")["mlm_train"], ns["PRETRAIN_BATCH"]))
    return ns["PRETRAIN_EPOCHS"] * per_epoch


@torch.no_grad()
def probe_accuracy(model, sentences, vocab_size: int) -> float:
    """Top-1 accuracy of the MLM at the positions the notebook's masking chooses (its validation generator)."""
    ns = _W["ns"]
    model.eval()
    right = total = 0
    for ids, _ in ns["BucketBatches"](sentences, 256, shuffle=False):
        ids = ids.to(ns["DEVICE"])
        inputs, labels = ns["mask_tokens"](ids, vocab_size, torch.Generator(device=ns["DEVICE"]).manual_seed(12345))
        chosen = labels != ns["IGNORE"]
        right += int((model(inputs).argmax(-1)[chosen] == labels[chosen]).sum())
        total += int(chosen.sum())
    return right / max(total, 1)


def pretrain(corpus: str, length: int) -> dict:
    """Section 9 of the notebook on ``corpus`` for ``length`` x the notebook's CPU steps; the weights go to a file."""
    ns = _W["ns"]
    data = corpus_data(corpus)
    steps = length * base_steps()
    batches = ns["BucketBatches"](data["mlm_train"], ns["PRETRAIN_BATCH"], seed=0)
    ns["seqcourse"].seed_everything(0)
    model = ns["MLMModel"](ns["Encoder"](data["vocab_size"], max_len=ns["MAX_LEN"], **ns["CONFIG"])).to(ns["DEVICE"])
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.01)
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, ns["linear_warmup"](steps))
    start = time.perf_counter()
    history = ns["fit"](model, ns["make_mlm_loss"](data["vocab_size"], seed=0), Steps(batches, steps), optimizer, 1,
                        val_batches=ns["BucketBatches"](data["mlm_val"], 256, shuffle=False), scheduler=scheduler,
                        progress=False)
    seconds = time.perf_counter() - start
    probe = ns["BucketBatches"](data["probe"], 256, shuffle=False)
    dev = ns["BucketBatches"]([ids for ids, _ in data["cola_data"]["in_domain_dev"]], 256, shuffle=False)
    loss_fn = ns["make_mlm_loss"](data["vocab_size"], seed=0)
    torch.save({k: v.cpu() for k, v in model.state_dict().items()}, _W["tmpdir"] / f"{corpus}-{length}x.pt")
    return {"steps": steps, "epochs of this corpus": steps / len(batches), "seconds": seconds,
            "held-out MLM loss": history["val_loss"][-1],
            "WordNet probe MLM loss": ns["evaluate"](model, loss_fn, probe),
            "WordNet probe top-1 accuracy": probe_accuracy(model, data["probe"], data["vocab_size"]),
            "CoLA in-domain dev MLM loss": ns["evaluate"](model, loss_fn, dev),
            "corpus sentences": data["sentences"], "corpus words": data["words"], "vocabulary": data["vocab_size"],
            "MLM training sentences": len(data["mlm_train"]), "probe sentences": len(data["probe"]),
            "CoLA unknown-word share": data["unknown"]}


def finetune(ns: dict, model, examples, seed: int, recipe: str, cola_data: dict) -> dict:
    """The notebook's train_classifier (section 10) with the recipe's epochs and the encoder's own learning rate;
    with the notebook's recipe the same training. Returns {dev split: (predictions, labels)}."""
    epoch_share, encoder_share = RECIPES[recipe]
    epochs = max(1, round(epoch_share * ns["FINETUNE_EPOCHS"]))
    batches = ns["BucketBatches"](examples, ns["FINETUNE_BATCH"], seed=seed)
    if ns["SMOKE"]:
        batches = list(batches)[:3]
    encoder = list(model.encoder.parameters())
    head = [p for p in model.parameters() if all(p is not q for q in encoder)]
    optimizer = torch.optim.AdamW([{"params": encoder, "lr": encoder_share * ns["FINETUNE_LR"]}, {"params": head}],
                                  lr=ns["FINETUNE_LR"], weight_decay=0.01)
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, ns["linear_warmup"](epochs * len(batches)))
    ns["fit"](model, ns["classification_loss"], batches, optimizer, epochs, scheduler=scheduler, progress=False)
    return {split: ns["predict"](model, cola_data[split]) for split in ns["DEV_SPLITS"]}


def labelled(data: dict, share: float, seed: int) -> list:
    """The notebook's learning-curve subset (section 10): all of CoLA's training set, or a seed's own share."""
    if share == 1.0:
        return data["cola_train"]
    picked = torch.randperm(len(data["cola_train"]), generator=torch.Generator().manual_seed(100 + seed))
    return [data["cola_train"][i] for i in picked[: round(share * len(data["cola_train"]))].tolist()]


def classify(corpus: str, start: str, recipe: str, seed: int, share: float) -> dict:
    """One classifier: from scratch (``start`` "scratch") or from the pretraining ``start`` ("1x", ...)."""
    ns = _W["ns"]
    data = corpus_data(corpus)
    if start == "scratch":
        ns["seqcourse"].seed_everything(seed)
        model = ns["SentenceClassifier"](ns["Encoder"](data["vocab_size"], max_len=ns["MAX_LEN"], **ns["CONFIG"]), 2, "cls")
    else:
        mlm = ns["MLMModel"](ns["Encoder"](data["vocab_size"], max_len=ns["MAX_LEN"], **ns["CONFIG"]))
        mlm.load_state_dict(torch.load(_W["tmpdir"] / f"{corpus}-{start}.pt", weights_only=True))
        ns["seqcourse"].seed_everything(seed)
        model = ns["classifier_from_pretrained"](mlm, 2, "cls")
    begin = time.perf_counter()
    outputs = finetune(ns, model.to(ns["DEVICE"]), labelled(data, share, seed), seed, recipe, data["cola_data"])
    return {"seconds": time.perf_counter() - begin,
            **{split: "".join(map(str, pred.tolist())) for split, (pred, _) in outputs.items()}}


def same_as_notebook() -> bool:
    """The notebook's own train_classifier and ``finetune`` with its recipe give the same predictions (from scratch,
    seed 0, 10 % of the labels, corpus captions + CoLA)."""
    ns, data = _W["ns"], corpus_data("captions+CoLA")
    ns.update(cola_train=data["cola_train"], cola_data=data["cola_data"], vocab=range(data["vocab_size"]))
    subset = labelled(data, 0.1, 0)
    runs = []
    for mine in (False, True):
        ns["seqcourse"].seed_everything(0)
        model = ns["make_classifier"]("from scratch").to(ns["DEVICE"])
        outputs = finetune(ns, model, subset, 0, "notebook", data["cola_data"]) if mine else ns["train_classifier"](model, 0, subset)[0]
        runs.append([pred for pred, _ in outputs.values()])
    return all(bool((a == b).all()) for a, b in zip(*runs))


def _task(kind: str, args: tuple):
    return {"pretrain": pretrain, "classify": classify, "check": same_as_notebook}[kind](*args)


# --- run: the pool and the results ------------------------------------------------------------------------------

def _tasks(seeds, shares) -> tuple[list, dict]:
    """Pretraining tasks, and the classifier tasks that wait for each (key None: none), in priority order."""
    pretraining = [("pretrain", (corpus, length)) for length in LENGTHS for corpus in CORPORA]
    waiting: dict = {None: []}
    for length in LENGTHS:
        for corpus in CORPORA:
            waiting[(corpus, length)] = [("classify", (corpus, f"{length}x", recipe, seed, share))
                                         for recipe in RECIPES for share in shares for seed in seeds]
    waiting[None] = [("classify", (corpus, "scratch", recipe, seed, share))
                     for recipe in SCRATCH_RECIPES for corpus in CORPORA for share in shares for seed in seeds]
    return pretraining, waiting


def summarise(ns: dict, runs: dict, labels: dict, seeds, shares) -> list[dict]:
    """Paired 95 % intervals (the notebook's paired_intervals) of pretrained minus from scratch for every design
    whose runs are all done: same corpus, from scratch with the notebook's recipe, and for "half the epochs" also
    from scratch with half the epochs. Every comparison of one share and dev set draws the same resamples."""
    found = []
    for (corpus, start, recipe) in sorted({k[:3] for k in runs if k[1] != "scratch"}):
        for scratch_recipe in dict.fromkeys(("notebook", recipe if recipe in SCRATCH_RECIPES else "notebook")):
            for share in shares:
                for split in ns["DEV_SPLITS"]:
                    arms = {"from scratch": (corpus, "scratch", scratch_recipe), "pretrained": (corpus, start, recipe)}
                    preds = {arm: [runs.get((*key, seed, share), {}).get(split) for seed in seeds] for arm, key in arms.items()}
                    if any(p is None for ps in preds.values() for p in ps):
                        continue
                    preds = {arm: [torch.tensor([int(c) for c in p]) for p in ps] for arm, ps in preds.items()}
                    result = ns["paired_intervals"](preds, labels[split], torch.Generator().manual_seed(0))
                    low, high = result[ns["ARMS"][2]][1:]
                    found.append({"corpus": corpus, "pretraining": start, "recipe": recipe,
                                  "from scratch recipe": scratch_recipe, "labels": share, "dev set": split,
                                  **{arm: [round(v, 4) for v in result[arm]] for arm in ns["ARMS"]},
                                  "difference": "above 0" if low > 0 else "below 0" if high < 0 else "contains 0"})
    return found


def run(bundle_path: Path, out: Path, budget_s: float, workers: int) -> dict:
    start = time.perf_counter()
    ns = notebook_namespace()
    bundle = torch.load(bundle_path, weights_only=True)
    if bundle["meta"]["smoke"] != bool(ns["SMOKE"]):
        raise SystemExit("run a smoke bundle with --smoke, and a full bundle without")
    labels = {split: bundle["labels"][split].long() for split in ns["DEV_SPLITS"]}
    seeds, shares = list(ns["SEEDS"]), list(ns["LABEL_SHARES"])
    pretraining, waiting = _tasks(seeds, shares)
    ready = pretraining + waiting.pop(None)
    if ns["SMOKE"]:
        ready.insert(0, ("check", ()))
    device = ns["DEVICE"]
    report = {"made by": "tools/pretraining_designs.py run", "bundle": bundle["meta"],
              "device": torch.cuda.get_device_name(0) if device.type == "cuda" else platform.processor() or "cpu",
              "torch": torch.__version__, "python": platform.python_version(), "workers": workers, "budget_s": budget_s,
              "notebook settings": {k: ns[k] for k in sorted(CONSTANTS) if k != "CPU_CONFIG"},
              "mixed precision": "bf16 autocast (fit's default on a GPU)" if device.type == "cuda" else "none (CPU)",
              "designs": {"corpora": CORPORA, "lengths (x the notebook's CPU pretraining steps)": LENGTHS,
                          "recipes (epochs share, encoder lr share)": RECIPES, "from scratch recipes": SCRATCH_RECIPES},
              "pretraining": {}, "runs": [], "comparisons": []}
    runs: dict = {}
    total = len(ready) + sum(map(len, waiting.values()))

    def write(finished: bool, pending) -> None:
        report.update(finished=finished, wall_s=round(time.perf_counter() - start, 1),
                      done=f"{total - len(pending)} of {total} tasks",
                      unfinished=[f"{kind} {args}" for kind, args in pending],
                      comparisons=summarise(ns, runs, labels, seeds, shares))
        tmp = out.with_suffix(".part")
        tmp.write_text(json.dumps(report, indent=1))
        os.replace(tmp, out)

    out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="designs-") as tmpdir:
        pool = multiprocessing.get_context("spawn").Pool(workers, _init_worker, (str(bundle_path), tmpdir))
        flying: dict = {}
        try:
            while ready or flying:
                while ready and len(flying) < workers:
                    task = ready.pop(0)
                    flying[task] = (pool.apply_async(_task, task), time.perf_counter())
                time.sleep(0.2)
                if time.perf_counter() - start > budget_s:
                    print(f"budget of {budget_s:.0f} s spent: stopping", flush=True)
                    break
                for task in [t for t, (r, _) in flying.items() if r.ready()]:
                    result, began = flying.pop(task)
                    kind, args = task
                    value = result.get()         # a failure in a worker stops the sweep with its traceback
                    if kind == "check":
                        report["same as the notebook's train_classifier"] = value
                        print(f"finetune = notebook's train_classifier: {value}", flush=True)
                        if not value:
                            raise SystemExit("finetune no longer trains as the notebook does")
                    elif kind == "pretrain":
                        report["pretraining"][f"{args[0]}, {args[1]}x"] = value
                        ready[:0] = waiting.pop(args)                 # its classifiers go first
                    else:
                        runs[args] = value
                        report["runs"].append({"corpus": args[0], "start": args[1], "recipe": args[2], "seed": args[3],
                                               "labels": args[4], **value})
                    print(f"{time.perf_counter() - start:6.0f} s  {kind} {args}: {time.perf_counter() - began:.0f} s",
                          flush=True)
                    write(False, ready + list(flying) + [t for ts in waiting.values() for t in ts])
        finally:
            pool.terminate()
            pool.join()
        pending = ready + list(flying) + [t for ts in waiting.values() for t in ts]
        write(not pending, pending)
    return report


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="step", required=True)
    p = sub.add_parser("prepare", help="tokenised corpora, vocabularies and CoLA into OUTDIR/bundle.pt")
    p.add_argument("outdir", type=Path)
    p.add_argument("--smoke", action="store_true")
    r = sub.add_parser("run", help="train and compare every design; results to --out")
    r.add_argument("bundle", type=Path)
    r.add_argument("--out", type=Path, required=True)
    r.add_argument("--budget-s", type=float, default=450.0, help="wall-clock seconds before the pool is stopped")
    r.add_argument("--workers", type=int, default=min(16, os.cpu_count() or 1))
    r.add_argument("--smoke", action="store_true")
    args = parser.parse_args(argv)
    if args.smoke:
        os.environ["SEQCOURSE_SMOKE"] = "1"         # before seqcourse is imported; inherited by the workers
    if args.step == "prepare":
        prepare(args.outdir, args.smoke)
    else:
        report = run(args.bundle, args.out, args.budget_s, args.workers)
        print(f"{report['done']} in {report['wall_s']:.0f} s; {len(report['comparisons'])} comparisons in {args.out}")
        for c in report["comparisons"]:
            if c["dev set"] == "in_domain_dev":
                d = next(v for k, v in c.items() if "minus" in k)
                print("{corpus:<30} {pretraining:<4} {recipe:<16} vs {from scratch recipe:<16} {labels:>4.0%}: "
                      "{d[0]:+.3f} [{d[1]:+.3f}, {d[2]:+.3f}] {difference}".format(d=d, **c))


if __name__ == "__main__":
    main()
