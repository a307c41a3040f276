"""Notebook 08's class challenge, scored on the trusted side: a student's own model on a leaderboard.

The submission carries a safetensors file written by ``seqcourse.challenge.save`` (inside the ``grader.export()``
zip, or uploaded beside the notebook). This module reads it itself (:func:`read_checkpoint`: the 8-byte header
length, the JSON header, the raw tensors; nothing in the file is ever executed or unpickled), counts its numbers
(every stored tensor once) against ``seqcourse.challenge.MAX_PARAMETERS`` and checks its metadata. Only then does
the notebook's sandbox see anything: the notebook's own class (``model_class``, default ``ModernDecoder``) is built
there from the saved configuration and loaded with ``load_state_dict(strict=True)``. The held-out text (Multi30k's
``test_2018_flickr`` English, which no notebook uses, or an instructor's private file named in course.yml) is
tokenized here as notebook 06 prepares every split, in a child process (:func:`held_out`: the tokenizer is learned
from the training captions, as the notebook learns it), and sent in batches; the sandbox returns logits and this side
computes the loss with the course's own ``next_token_nll`` and notebook 06's perplexity per word. The first batch, and
a random quarter of the others, is first sent with its rows' tails replaced by random tokens (from a random position
on): a model whose logits before that position change with the tail looks ahead, and gets no entry. A call that runs
past :data:`CALL_LIMIT_S` stops the entry (the sandbox interrupts it, or is killed): the model is too slow to evaluate.
Everything here runs after the notebook's questions were scored and costs only the challenge's entry.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import secrets
import struct
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

import torch

from seqcourse import challenge as rules
from seqcourse.data import SPLITS, default_data_dir

from .remote import RemoteError, SandboxError
from .submission import SUFFIXES, settings, student_key

SUFFIX = ".safetensors"
MAX_HEADER = 2**20                                  # bytes of a safetensors header
MAX_FILE = 4 * rules.MAX_PARAMETERS + MAX_HEADER    # float32 at the parameter limit, and its header
DTYPES = {"F32": torch.float32, "F16": torch.float16, "BF16": torch.bfloat16}
BATCH = 8               # held-out sentences per call: as fast as 16 here, with half the memory (docs/instructors.md)
CALL_LIMIT_S = 30       # one call of the model (a batch)
TOTAL_S = 150           # the whole evaluation, and never past what the grading has left less MARGIN_S
MARGIN_S = 20
CAUSAL_TOL = 1e-4       # largest change of a logit before the cut, relative to the largest logit
PROBED = 0.25           # share of batches sent first with their tails replaced (the first batch always)
PREPARE_S = 90          # the child process that tokenizes the held-out text (8 s here), within the grading's budget
MULTI30K = f"Multi30k {SPLITS[rules.HELD_OUT]} (English)"  # the held-out text's name, in messages
# The course's reference entry on Multi30k's held-out text, a labelled row of the class's board: 08's challenge cell as
# given (seed 0, one CPU thread, 625 s of training; validation perplexity per word 23.00), scored by `make grade`.
REFERENCE = {"perplexity": 36.557, "parameters": 1_047_424, "tokens_seen": 2_590_590}


class Refused(Exception):
    """A checkpoint or model that gets no entry; the message says why."""


# -- the file ----------------------------------------------------------------------------------------------------
def find_checkpoint(submitted: Path) -> tuple[bytes | None, str]:
    """(the bytes of the submission's checkpoint, its name), or (None, why there is none). In an exported zip: its
    one member ending in .safetensors; else the newest such file beside the submitted file, in a folder holding one
    student's notebooks only (Gradescope's upload, or one folder of its Export Submissions)."""
    if submitted.suffix.lower() == ".zip":
        try:
            with zipfile.ZipFile(submitted) as z:
                found = [i for i in z.infolist() if i.filename.lower().endswith(SUFFIX) and "__MACOSX" not in i.filename]
                if len(found) > 1:
                    return None, f"{len(found)} {SUFFIX} files in {submitted.name}: keep one"
                if found and found[0].file_size > MAX_FILE:
                    raise Refused(_too_large(found[0].file_size))
                if found:
                    with z.open(found[0]) as f:
                        return f.read(MAX_FILE + 1), found[0].filename
        except (zipfile.BadZipFile, OSError, EOFError, RuntimeError, NotImplementedError) as e:
            return None, f"{submitted.name} could not be read ({type(e).__name__})"
    here = list(submitted.parent.iterdir()) if submitted.parent.is_dir() else []
    notebooks = {student_key(p) for p in here if p.suffix.lower() in SUFFIXES}
    found = sorted((p for p in here if p.suffix.lower() == SUFFIX and p.is_file()), key=lambda p: p.stat().st_mtime)
    if not found:
        return None, f"no {SUFFIX} file was submitted (beside {submitted.name}" + (" or in it)" if submitted.suffix.lower() == ".zip" else ")")
    if len(notebooks) > 1:  # a class folder holding several students' notebooks: whose file is it?
        return None, (f"{submitted.parent.name}/ holds other students' notebooks too, so its {SUFFIX} file cannot be "
                      "told apart: give each student a folder of their own")
    if found[-1].stat().st_size > MAX_FILE:
        raise Refused(_too_large(found[-1].stat().st_size))
    return found[-1].read_bytes()[:MAX_FILE + 1], found[-1].name


def _too_large(n: int) -> str:
    return (f"the checkpoint has {n:,} bytes, more than the {MAX_FILE:,} a model within the limit of "
            f"{rules.MAX_PARAMETERS:,} parameters needs in float32")


def read_checkpoint(data: bytes) -> tuple[dict[str, torch.Tensor], dict[str, str]]:
    """(tensors, metadata) of a safetensors file, parsed here field by field; :class:`Refused` naming what is wrong."""
    if len(data) > MAX_FILE:
        raise Refused(_too_large(len(data)))
    if data[:2] == b"PK":
        raise Refused("the checkpoint is a zip archive (what torch.save writes), not a safetensors file: save it with "
                      "seqcourse.challenge.save")
    if data[:1] == b"\x80":
        raise Refused("the checkpoint is a pickle, not a safetensors file (a pickle can run code when it is loaded: the "
                      "grader never loads one): save it with seqcourse.challenge.save")
    if len(data) < 8:
        raise Refused("the checkpoint is not a safetensors file (it is shorter than its header)")
    (n,) = struct.unpack("<Q", data[:8])
    if n > MAX_HEADER or 8 + n > len(data):
        raise Refused("the checkpoint is not a safetensors file (its header length is impossible): is it corrupt?")
    try:
        header = json.loads(data[8:8 + n])
    except (ValueError, RecursionError):
        raise Refused("the checkpoint is not a safetensors file (its header is not JSON): is it corrupt?") from None
    if type(header) is not dict:
        raise Refused("the checkpoint's header is not a JSON object")
    meta = header.pop("__metadata__", None)
    if type(meta) is not dict or not all(type(k) is str and type(v) is str for k, v in meta.items()):
        raise Refused("the checkpoint has no metadata (was it saved with seqcourse.challenge.save?)")
    for name, info in header.items():
        if type(info) is not dict or info.get("dtype") not in DTYPES or type(info.get("shape")) is not list or \
                not all(type(s) is int and s >= 0 for s in info["shape"]) or type(info.get("data_offsets")) is not list \
                or len(info["data_offsets"]) != 2 or not all(type(o) is int for o in info["data_offsets"]):
            raise Refused(f"the checkpoint's tensor {name[:80]!r} is malformed or not float32, float16 or bfloat16")
    body, tensors, end = data[8 + n:], {}, 0
    for name, info in sorted(header.items(), key=lambda kv: kv[1]["data_offsets"]):  # the tensors' bytes, in order
        begin, stop = info["data_offsets"]
        dtype = DTYPES[info["dtype"]]
        numel = math.prod(info["shape"])
        if begin != end or stop - begin != numel * torch.empty((), dtype=dtype).element_size() or stop > len(body):
            raise Refused(f"the checkpoint's tensor {name[:80]!r} does not match its bytes: is the file corrupt or cut short?")
        end = stop
        tensors[name] = torch.frombuffer(bytearray(body[begin:stop]), dtype=dtype).reshape(info["shape"]) if numel else \
            torch.empty(info["shape"], dtype=dtype)
    if end != len(body):
        raise Refused("the checkpoint has bytes after its last tensor: is it corrupt?")
    return tensors, meta


def entry_facts(tensors: dict[str, torch.Tensor], meta: dict[str, str], tokenizer: str) -> dict:
    """What the metadata says, checked: class name, configuration, aliases, training tokens; the parameters counted
    here (every stored tensor once) within the limit and the tokenizer the course's."""
    if meta.get("format") != rules.FORMAT:
        raise Refused(f"the checkpoint's metadata has format {meta.get('format')!r}, not {rules.FORMAT!r}: save it with "
                      "seqcourse.challenge.save")
    try:
        config, aliases = json.loads(meta["config"]), json.loads(meta.get("aliases", "{}"))
        tokens = int(meta["tokens_seen"])
    except (KeyError, ValueError, TypeError) as e:
        raise Refused(f"the checkpoint's metadata is incomplete or malformed ({type(e).__name__}: {str(e)[:80]})") from None
    cls = meta.get("model_class", "")
    if type(config) is not dict or type(aliases) is not dict or not cls.isidentifier() or tokens < 0 or \
            not all(type(k) is str and v in tensors for k, v in aliases.items()):
        raise Refused("the checkpoint's metadata is malformed (model_class, config, aliases or tokens_seen)")
    n = sum(t.numel() for t in tensors.values())
    if n > rules.MAX_PARAMETERS:
        raise Refused(f"the model has {n:,} parameters, more than the challenge's {rules.MAX_PARAMETERS:,}")
    if tokens > rules.MAX_TRAINING_TOKENS:
        raise Refused(f"the checkpoint records {tokens:,} training tokens, more than the challenge's "
                      f"{rules.MAX_TRAINING_TOKENS:,}")
    if meta.get("tokenizer") != tokenizer:
        raise Refused("the model was trained with another tokenizer than the course's (seqcourse.gpt.multi30k_subwords() "
                      f"with its defaults: {rules.VOCAB_SIZE:,} subwords learned on all of Multi30k's training captions)")
    return {"model_class": cls, "config": config, "aliases": aliases, "tokens_seen": tokens, "parameters": n}


# -- the held-out text, tokenized in a child process (its memory is freed before the sandbox needs room) -----------
def held_out(config: dict, source: Path) -> dict:
    """{ids: <sos> ... <eos> per sentence, n_words, tokenizer, text}: the held-out text (``config``: grading.json's
    ``challenge``) as notebook 06 prepares a split, cached in the data folder by the text's sha256."""
    private = config.get("heldout")
    if private and source.is_dir():
        text = (source / private).read_bytes()
    elif private:
        with zipfile.ZipFile(source) as z:
            text = z.read(private)
    else:
        text = None
    code = b"".join(p.read_bytes() for p in (Path(rules.__file__), Path(rules.__file__).with_name("gpt.py"), Path(__file__)))
    key = hashlib.sha256((text or rules.HELD_OUT.encode()) + code).hexdigest()[:16]  # the text and how it is tokenized
    cache = default_data_dir() / f"challenge-{key}.json"
    if not cache.is_file():
        with tempfile.TemporaryDirectory() as tmp:
            lines = Path(tmp) / "lines.txt"
            if text is not None:
                lines.write_bytes(text)
            out = Path(tmp) / "out.json"
            proc = subprocess.run([sys.executable, "-m", "grader.challenge", str(lines if text is not None else ""), str(out)],
                                  capture_output=True, text=True, timeout=PREPARE_S, cwd=Path(__file__).resolve().parents[1])
            if proc.returncode != 0:
                raise RuntimeError(f"the held-out text could not be prepared: {proc.stderr.strip()[-300:]}")
            cache.parent.mkdir(parents=True, exist_ok=True)
            partial = cache.with_suffix(f".{os.getpid()}.part")  # beside the cache: os.replace is atomic there
            partial.write_bytes(out.read_bytes())
            os.replace(partial, cache)
    return json.loads(cache.read_text())


def _prepare(lines_file: str, out: str) -> None:
    from seqcourse.data import fetch_file, read_lines
    from seqcourse.gpt import multi30k_subwords
    from seqcourse.text import tokenizer

    data = multi30k_subwords(vocab_size=rules.VOCAB_SIZE)
    if lines_file:
        lines, text = [s.strip() for s in Path(lines_file).read_text().splitlines() if s.strip()], "a private text"
    else:
        lines, text = read_lines(fetch_file(f"{SPLITS[rules.HELD_OUT]}.en.gz")), MULTI30K
    known, tokenize = {w for s in data.words["train"] for w in s}, tokenizer("en")
    words = [[w if w in known else "<unk>" for w in tokenize(line)] for line in lines]
    Path(out).write_text(json.dumps({"ids": [data.encode(s) for s in words], "n_words": sum(len(s) + 1 for s in words),
                                     "tokenizer": rules.tokenizer_id(data.bpe), "text": text}))


# -- scoring in the sandbox --------------------------------------------------------------------------------------
BUILD = '''
def _challenge_build(model_class, config, tensors, aliases):
    """The notebook's own class built from the saved configuration, holding the saved weights (strict)."""
    if not isinstance(globals().get(model_class), type):
        raise NameError(f"no class {model_class} is defined by the notebook's graded cells: define it in a cell that is "
                        "not a training cell (a cell copied from one keeps its otter_ignore tag, which the grader skips)")
    model = globals()[model_class](**config)
    want = model.state_dict()
    tensors = dict(tensors, **{name: tensors[first] for name, first in aliases.items()})
    missing = [k for k in want if k not in tensors]
    unexpected = [k for k in tensors if k not in want]
    wrong = [f"{k} {tuple(tensors[k].shape)} in the file, {tuple(want[k].shape)} in the model" for k in want
             if k in tensors and tensors[k].shape != want[k].shape]
    if missing or unexpected or wrong:
        said = [f"{what}: {', '.join(names[:4])}{' ...' if len(names) > 4 else ''}" for what, names in
                (("missing", missing), ("unexpected", unexpected), ("wrong shape", wrong)) if names]
        raise ValueError("the weights do not fit " + model_class + "(**config): " + "; ".join(said))
    model.load_state_dict({k: v.to(want[k].dtype) for k, v in tensors.items()}, strict=True)
    return model.eval()


def _challenge_logits(model, ids):
    import torch
    with torch.no_grad():
        return model(ids)
'''


def prepare(source: Path, submitted: Path | None) -> dict | None:
    """What the challenge needs before the sandbox starts (None when this autograder has no challenge): the
    checkpoint read and checked, and the held-out text tokenized (only for a submission with a checkpoint), or why
    there is no entry."""
    config = settings(source).get("challenge")
    if config is None:
        return None
    out = {"points": float(config.get("points", 0)), "name": ""}
    try:
        data, out["name"] = find_checkpoint(submitted) if submitted is not None else (None, "no submission")
        if data is None:
            out["refused"] = f"No challenge entry: {out['name']}."
            return out
        tensors, meta = read_checkpoint(data)
        heldout = held_out(config, source)
        out.update(entry_facts(tensors, meta, heldout["tokenizer"]), tensors=tensors, heldout=heldout)
    except Refused as e:
        out["refused"] = f"No challenge entry ({out['name'] or 'checkpoint'}): {e}"
    except Exception as e:  # noqa: BLE001 - data that could not be fetched: it costs only the entry
        out["refused"] = f"No challenge entry: the grader could not prepare it ({type(e).__name__}: {str(e)[:200]})"
    return out


def _call(sb, logits_fn, model, ids: torch.Tensor, deadline: float) -> torch.Tensor:
    """The model's logits for ids (B, T) (under torch.no_grad, in the sandbox) within the call limit; checked here."""
    limit = max(1.0, min(CALL_LIMIT_S, deadline - time.perf_counter()))
    try:
        logits = sb.value("call", id=object.__getattribute__(logits_fn, "_id"), args=sb.send((model, ids)),
                          kwargs=sb.send({}), timeout=limit)
    except RemoteError as e:
        if e.kind == "TimeLimit":
            raise Refused(f"the model was stopped: one batch of {ids.size(0)} sentences took more than {limit:.0f} s "
                          "(too slow to evaluate)") from None
        raise Refused(f"the model raised {e.kind}: {e.message[:200]}") from None
    except SandboxError as e:
        raise Refused(f"the model was stopped ({e}): too slow to evaluate, or it ended its process") from None
    want = (ids.size(0), ids.size(1))
    if type(logits) is not torch.Tensor or not logits.is_floating_point() or logits.dim() != 3 or \
            tuple(logits.shape[:2]) != want:
        raise Refused(f"the model must return logits (B, T, C) for ids (B, T) = {want}, got "
                      f"{tuple(logits.shape) if type(logits) is torch.Tensor else type(logits).__name__}")
    logits = logits.float()
    if not torch.isfinite(logits).all():
        raise Refused("the model returned logits that are not finite (nan or inf)")
    return logits


def evaluate(sb, logits_fn, model, heldout: dict, deadline: float, seed: int | None = None) -> float:
    """Perplexity per word of ``model`` (a Remote) on the held-out ids, probing causality first (module docstring) where
    ``seed`` (default: a new one each time, so that no model can know which batches are probed) says."""
    from seqcourse.gpt import PAD_ID, next_token_nll
    from seqcourse.text import BucketBatches

    g = torch.Generator().manual_seed(secrets.randbits(63) if seed is None else seed)
    total = 0.0
    for i, (ids, lengths) in enumerate(BucketBatches(heldout["ids"], BATCH, shuffle=False)):
        if time.perf_counter() > deadline:
            raise Refused("the evaluation ran out of time (too slow to evaluate)")
        inputs = ids[:, :-1]
        cut = (torch.rand(len(lengths), generator=g) * (lengths - 1)).long()  # per row: the first input replaced
        tail = torch.arange(inputs.size(1)) >= cut[:, None]
        noise = torch.randint(4, rules.VOCAB_SIZE, inputs.shape, generator=g)
        probed = i == 0 or float(torch.rand((), generator=g)) < PROBED
        if probed:  # before the real batch, so the model cannot have seen the real tails
            probe = _call(sb, logits_fn, model, torch.where(tail, noise, inputs), deadline)
        logits = _call(sb, logits_fn, model, inputs, deadline)
        if probed and probe.shape != logits.shape:
            raise Refused("the model's logits changed shape between two calls of the same shape")
        if probed and (~tail).any():
            before = ~tail
            scale = max(1.0, float(logits.abs().max()))
            if float((probe - logits).abs()[before].max()) > CAUSAL_TOL * scale:
                raise Refused("the model looks ahead: its logits at a position changed when only later tokens "
                              "changed (a causal model's cannot, unless it is not deterministic in eval mode)")
        total += float(next_token_nll(lambda _: logits, ids, PAD_ID).double().sum())
    return math.exp(total / heldout["n_words"])


def score(sb, prepared: dict) -> dict:
    """The challenge's result for a grading: {"points", "entry": {...} or None, "message"}; never raises. Run after
    the notebook's questions were scored, in the same sandbox."""
    result = {"points": prepared["points"], "entry": None, "message": prepared.get("refused", "")}
    if "refused" in prepared:
        return result
    name, heldout = prepared["name"], prepared["heldout"]
    try:
        deadline = time.perf_counter() + min(TOTAL_S, sb.timeout - sb.seconds - MARGIN_S)
        if deadline - time.perf_counter() < 5:
            raise Refused("no time was left for the evaluation after the notebook's questions")
        try:
            sb.request("seed", seed=0)  # the questions' variants and records off: the evaluation's calls run once
            build = sb.define("_challenge_build", BUILD)
            logits_fn = sb.get_global("_challenge_logits")
            model = build(prepared["model_class"], prepared["config"], prepared["tensors"], prepared["aliases"])
        except RemoteError as e:
            raise Refused(f"building {prepared['model_class']}(**config) with the saved weights failed: {e.kind}: "
                          f"{e.message[:300]}") from None
        ppl = evaluate(sb, logits_fn, model, heldout, deadline)
    except Refused as e:
        result["message"] = f"No challenge entry ({name}): {e}"
        return result
    except Exception as e:  # noqa: BLE001 - the sandbox stopped: it costs only the entry
        result["message"] = f"No challenge entry ({name}): the grader could not evaluate it ({type(e).__name__}: {str(e)[:200]})"
        return result
    result["entry"] = {"perplexity": ppl, "parameters": prepared["parameters"], "tokens_seen": prepared["tokens_seen"],
                       "text": heldout["text"]}
    result["message"] = (f"Challenge entry ({name}): perplexity per word {ppl:.2f} on {heldout['text']} "
                         f"({len(heldout['ids']):,} sentences), {prepared['parameters']:,} parameters (limit "
                         f"{rules.MAX_PARAMETERS:,}), {prepared['tokens_seen']:,} training tokens recorded (limit "
                         f"{rules.MAX_TRAINING_TOKENS:,}).")
    return result


def leaderboard(result: dict) -> list[dict]:
    """Gradescope's ``leaderboard`` entries for a challenge result (empty without an entry)."""
    entry = (result or {}).get("entry")
    if not entry:
        return []
    return [{"name": "Perplexity per word", "value": round(entry["perplexity"], 3), "order": "asc"},
            {"name": "Parameters", "value": entry["parameters"], "order": "asc"},
            {"name": "Training tokens", "value": entry["tokens_seen"], "order": "asc"}]


def write_board(path: Path, rows) -> None:
    """The class's board (``make grade`` of notebook 08): ``path`` (CSV) with one row per submission with an entry, best
    perplexity first, then the course's reference entry (:data:`REFERENCE`, on Multi30k's held-out text only), then
    the submissions without one and why; and beside it (.png) perplexity against parameters."""
    import csv

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    entries = sorted((g for g in rows if g.challenge.get("entry")), key=lambda g: g.challenge["entry"]["perplexity"])
    reference = all(g.challenge["entry"].get("text") == MULTI30K for g in entries)
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["rank", "submission", "perplexity_per_word", "parameters", "training_tokens", "message"])
        for i, g in enumerate(entries, 1):
            e = g.challenge["entry"]
            w.writerow([i, g.submission, f"{e['perplexity']:.3f}", e["parameters"], e["tokens_seen"], g.challenge["message"]])
        if reference:
            w.writerow(["reference", "the course's: 08's challenge cell as given", f"{REFERENCE['perplexity']:.3f}",
                        REFERENCE["parameters"], REFERENCE["tokens_seen"], "not a submission"])
        for g in rows:
            if g.challenge and not g.challenge.get("entry"):
                w.writerow(["", g.submission, "", "", "", g.challenge["message"]])
    fig, ax = plt.subplots(figsize=(6.5, 4))
    ax.scatter([g.challenge["entry"]["parameters"] for g in entries], [g.challenge["entry"]["perplexity"] for g in entries])
    for i, g in enumerate(entries[:10], 1):
        ax.annotate(str(i), (g.challenge["entry"]["parameters"], g.challenge["entry"]["perplexity"]), fontsize=8)
    if reference:
        ax.scatter([REFERENCE["parameters"]], [REFERENCE["perplexity"]], marker="*", s=120, color="C1",
                   label="the course's reference entry")
    ax.axvline(rules.MAX_PARAMETERS, color="grey", ls="--", lw=0.8, label="parameter limit")
    ax.set_yscale("log")
    ax.legend(fontsize=8)
    ax.set(xlabel="parameters", ylabel="perplexity per word (held-out text)",
           title=f"Class challenge: {len(entries)} entries (numbers: ranks in {path.name})")
    fig.savefig(path.with_suffix(".png"), dpi=110, bbox_inches="tight")
    plt.close(fig)


if __name__ == "__main__":
    _prepare(sys.argv[1], sys.argv[2])
