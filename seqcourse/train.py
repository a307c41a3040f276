"""Device and seeding helpers, and one training loop for every notebook.

A notebook supplies ``loss_fn(model, batch) -> (mean_loss, n_tokens)``: the mean loss over the
batch's counted (non-pad) tokens and how many there were. The loop handles devices, progress
bars, gradient clipping, mixed precision on CUDA, the history used for the plots, and checkpoints:
with ``checkpoint=path`` a run that stops (a Colab runtime that disconnects) resumes where it stopped
when the same cell runs again, and the best model by validation loss is kept. A checkpoint records what it
was made from (model, code, optimiser, schedule, data): after a change to any of them (a bug fixed, a smoke
run followed by a full one) training starts over and says why, and the old files are kept aside.
"""

from __future__ import annotations

import copy
import dis
import hashlib
import math
import os
import random
import sys
import sysconfig
import time
import types
from contextlib import nullcontext
from pathlib import Path

import torch
from torch.optim.swa_utils import AveragedModel
from tqdm.auto import tqdm

SMOKE = os.environ.get("SEQCOURSE_SMOKE", "") not in ("", "0")
"""True when $SEQCOURSE_SMOKE is set: notebooks shrink data and epochs (CI runs them top to bottom)."""
if SMOKE:
    # smoke runs are tiny and share their machine with other jobs (a test suite): one thread each is far
    # faster than threads fighting over the cores
    torch.set_num_threads(1)
ABLATIONS = os.environ.get("SEQCOURSE_ABLATIONS", "") not in ("", "0")
"""True when $SEQCOURSE_ABLATIONS is set: notebooks also run the comparisons that cost a second training (and so
run by default only on a GPU) on a CPU (``make results ABLATIONS=1``)."""


def get_device(prefer: str | None = None) -> torch.device:
    """``prefer`` if given, else CUDA when available, else the CPU."""
    if prefer:
        return torch.device(prefer)
    return torch.device("cuda" if torch.cuda.is_available() else "cpu")


def seed_everything(seed: int) -> None:
    """Seed Python, NumPy (if installed) and torch (CPU and CUDA)."""
    random.seed(seed)
    torch.manual_seed(seed)
    try:
        import numpy as np

        np.random.seed(seed)
    except ImportError:
        pass


def to_device(batch, device):
    """Move a tensor, or nested tuples/lists of tensors, to ``device``."""
    if isinstance(batch, torch.Tensor):
        return batch.to(device, non_blocking=True)
    if isinstance(batch, (tuple, list)):
        return type(batch)(to_device(b, device) for b in batch)
    return batch


def _autocast(device: torch.device, amp: bool):
    if not (amp and device.type == "cuda"):
        return nullcontext(), None
    if torch.cuda.is_bf16_supported():
        return torch.autocast("cuda", dtype=torch.bfloat16), None
    return torch.autocast("cuda", dtype=torch.float16), torch.amp.GradScaler("cuda")


@torch.no_grad()
def evaluate(model, loss_fn, batches, device=None) -> float:
    """Mean loss per counted token over ``batches`` (model in eval mode, no gradients)."""
    device = device or next(model.parameters()).device
    model.eval()
    total, count = 0.0, 0
    for batch in batches:
        loss, n = loss_fn(model, to_device(batch, device))
        total += float(loss) * int(n)
        count += int(n)
    return total / max(count, 1)


def perplexity(mean_loss: float) -> float:
    """exp(mean cross-entropy per token, in nats)."""
    return math.exp(mean_loss)


def _save(obj, path: Path) -> None:
    """torch.save through a temporary file, so that an interrupted save never leaves a broken file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    torch.save(obj, tmp)
    os.replace(tmp, path)


def epoch_weights(checkpoint, epoch: int) -> Path:
    """Where ``fit(..., checkpoint=path, keep_last=k)`` keeps the weights after ``epoch``."""
    path = Path(checkpoint)
    return path.with_name(f"{path.stem}.epoch{epoch}{path.suffix}")


def best_weights(checkpoint) -> Path:
    """Where ``fit(..., checkpoint=path)`` keeps the weights of the epoch with the best validation loss."""
    path = Path(checkpoint)
    return path.with_name(f"{path.stem}.best{path.suffix}")


def average_checkpoints(model: torch.nn.Module, paths) -> dict:
    """The element-wise mean of the weights saved in ``paths`` (state dicts of ``model``'s architecture), as a
    state dict: ``torch.optim.swa_utils.AveragedModel`` keeps a running mean of the parameters and buffers while
    the checkpoints are loaded one after the other into a copy of ``model`` on the CPU (``model`` itself is left
    as it is). Averaging the weights of the last few epochs, as the Transformer paper does, smooths out the noise
    of the final updates."""
    paths = list(paths)
    if not paths:
        raise ValueError("average_checkpoints needs at least one file")
    work = copy.deepcopy(model).cpu()
    averaged = AveragedModel(work, device=torch.device("cpu"), use_buffers=True)
    for path in paths:
        work.load_state_dict(torch.load(path, map_location="cpu", weights_only=True))
        averaged.update_parameters(work)
    return averaged.module.state_dict()


_LIBRARIES = tuple(str(Path(p).resolve()) for p in {sysconfig.get_paths()[k] for k in ("stdlib", "purelib", "platlib")})


def _ours(obj) -> bool:
    """Whether ``obj`` (a function or class) comes from the notebook or the course rather than a library."""
    name = getattr(obj, "__module__", None) or ""
    path = getattr(sys.modules.get(name), "__file__", None)
    return name == "__main__" or (name in sys.modules and (path is None or not str(Path(path).resolve()).startswith(_LIBRARIES)))


def code_fingerprint(*objs) -> str:
    """A hash of the code that ``objs`` (functions, classes, objects, modules) run: the bytecode, constants and
    default arguments of every function and method defined in the notebook or the course, of the functions and
    classes they call by global name, of their closures, and the values of the numbers and strings they read
    from globals. Editing a comment changes nothing; fixing a line of code, or a constant it reads, does.
    Library code (torch's own layers) is left out: ``repr(model)`` covers its configuration."""
    h, seen = hashlib.sha256(), set()

    def add(*parts) -> None:
        h.update(repr(parts).encode())

    def code(c: types.CodeType) -> None:
        add(c.co_name, c.co_code, c.co_names, c.co_varnames)
        for const in c.co_consts:
            code(const) if isinstance(const, types.CodeType) else add(sorted(map(repr, const)) if isinstance(const, frozenset) else const)

    def visit(obj) -> None:
        if isinstance(obj, (bool, int, float, str, type(None))):
            return add(obj)
        if isinstance(obj, (list, tuple)):
            return [visit(v) for v in obj] and None if len(obj) <= 64 else add(type(obj).__name__, len(obj))
        if id(obj) in seen:
            return
        seen.add(id(obj))
        if isinstance(obj, (staticmethod, classmethod, types.MethodType)):
            return visit(obj.__func__)
        if isinstance(obj, property):
            obj = obj.fget
        if isinstance(obj, types.FunctionType):
            if not _ours(obj):
                return add(obj.__module__, obj.__qualname__)
            code(obj.__code__)
            for value in [*(obj.__defaults__ or ()), *(obj.__kwdefaults__ or {}).values()]:
                visit(value)
            for cell in obj.__closure__ or ():
                try:
                    visit(cell.cell_contents)
                except ValueError:  # an empty cell
                    pass
            loaded = {i.argval for i in dis.get_instructions(obj.__code__) if i.opname == "LOAD_GLOBAL"}
            for name in sorted(loaded & obj.__globals__.keys()):
                add(name)
                visit(obj.__globals__[name])
        elif isinstance(obj, type):
            if not _ours(obj):
                return add(obj.__module__, obj.__qualname__)
            for base in obj.__mro__:
                if _ours(base):
                    for name, value in sorted(vars(base).items()):
                        if not name.startswith("__") or name in ("__init__", "__call__"):
                            add(name)
                            visit(value)
        elif isinstance(obj, torch.nn.Module):
            for module in obj.modules():
                visit(type(module))
        elif not isinstance(obj, (types.ModuleType, torch.Tensor)) and callable(obj):
            visit(type(obj))

    for obj in objs:
        visit(obj)
    return h.hexdigest()[:16]


def _fingerprint(model, loss_fn, gradient_fn, train_batches, val_batches, optimizer, scheduler) -> dict:
    """What a training run is made from, part by part (a checkpoint of another run must not be resumed).
    Only settings, shapes and code count, never where a run has got to (weights, step counts, the learning
    rate a schedule has reached, the batch order): a run interrupted in this kernel resumes too."""
    names = {id(p): n for n, p in model.named_parameters()}
    groups = [{**{k: v for k, v in sorted(g.items()) if k not in ("params", "lr" if "initial_lr" in g else "")},
               "params": [names.get(id(p), "?") for p in g["params"]]} for g in optimizer.param_groups]
    progress = ("last_epoch", "_step_count", "_last_lr", "_get_lr_called_within_step", "optimizer")
    size = lambda obj: len(obj) if hasattr(obj, "__len__") else None  # noqa: E731
    return {
        "model (its configuration or parameter shapes)": repr(model) + repr([(k, tuple(v.shape), str(v.dtype)) for k, v in model.state_dict().items()]),
        "code of the model, the loss or the gradients": code_fingerprint(model, loss_fn, gradient_fn),
        "optimiser": type(optimizer).__name__ + repr(groups),
        "schedule": "none" if scheduler is None else type(scheduler).__name__ + code_fingerprint(scheduler, *[v for k, v in sorted(vars(scheduler).items()) if k not in progress]),
        "data": repr((type(train_batches).__name__, size(train_batches), type(val_batches).__name__, size(val_batches))),
    }


def _set_aside(checkpoint) -> Path | None:
    """Rename a checkpoint and the weights kept beside it (``best_weights``, ``epoch_weights``) to
    ``NAME-old...``, replacing older ones of that name. Returns the new path of the checkpoint (None when there
    was nothing to move)."""
    path = Path(checkpoint)
    old = path.with_name(f"{path.stem}-old{path.suffix}")
    siblings = [path, best_weights(path), *path.parent.glob(f"{path.stem}.epoch*{path.suffix}")]
    if not any(p.is_file() for p in siblings):
        return None
    for stale in [old, best_weights(old), *path.parent.glob(f"{old.stem}.epoch*{path.suffix}")]:
        stale.unlink(missing_ok=True)
    for p in siblings:
        if p.is_file():
            os.replace(p, p.with_name(f"{path.stem}-old{p.name[len(path.stem):]}"))
    return old


def fit(model, loss_fn, train_batches, optimizer, epochs: int, val_batches=None, clip: float | None = 1.0,
        device=None, amp: bool = True, scheduler=None, progress: bool = True, checkpoint=None,
        keep_last: int = 0, gradient_fn=None) -> dict:
    """Train ``model`` for ``epochs`` passes over ``train_batches``.

    clip: max gradient norm (None: no clipping). amp: mixed precision on CUDA (bf16 where the GPU
    supports it, else fp16 with loss scaling); ignored on the CPU. scheduler: stepped after every
    optimiser step. Returns a history dict: per step ``step_loss``; per epoch ``train_loss``,
    ``val_loss``, ``val_ppl``, ``seconds`` and ``tokens_per_s``.

    checkpoint: a file path. After every epoch the whole training state (model, optimiser, scheduler,
    loss scaler, batch order, random state, history) is saved there, with what the run is made from: the
    model's configuration and parameter shapes, the code of the model, ``loss_fn`` and ``gradient_fn``
    (:func:`code_fingerprint`), the optimiser's settings and parameter groups, the schedule, and the size and
    state of the batches. If the file exists when ``fit`` starts and was made from the same, training resumes
    after the last saved epoch (asking for more epochs continues it). Otherwise ``fit`` says what changed and
    starts over, after renaming the old files to ``NAME-old...`` (nothing is deleted). With
    ``val_batches`` the weights of the best epoch by validation loss go to ``best_weights(checkpoint)``,
    and with ``keep_last=k`` those of the last k epochs to ``epoch_weights(checkpoint, epoch)`` (for
    ``average_checkpoints``). The model holds the last epoch's weights when ``fit`` returns.

    gradient_fn: ``gradient_fn(model, batch) -> (mean_loss, n_tokens)`` computes the gradients itself (e.g.
    accumulated over the micro-batches that ``batch`` holds) instead of one ``loss_fn`` and ``backward``;
    ``fit`` then clips and steps as usual (``loss_fn`` still serves the validation). Not with fp16 loss
    scaling: on a GPU without bf16 pass ``amp=False``.
    """
    device = device or next(model.parameters()).device
    autocast, scaler = _autocast(torch.device(device), amp)
    if gradient_fn is not None and scaler is not None:
        raise ValueError("gradient_fn does not work with fp16 loss scaling (this GPU has no bf16): pass amp=False")
    history = {k: [] for k in ("step_loss", "train_loss", "val_loss", "val_ppl", "seconds", "tokens_per_s")}
    parts = {"model": model, "optimizer": optimizer, "scheduler": scheduler, "scaler": scaler,
             "batches": train_batches if hasattr(train_batches, "load_state_dict") else None}
    done = 0
    made_from = _fingerprint(model, loss_fn, gradient_fn, train_batches, val_batches, optimizer, scheduler)
    state = torch.load(checkpoint, map_location="cpu", weights_only=False) if checkpoint is not None and Path(checkpoint).is_file() else None
    if checkpoint is not None and (state is None or state.get("made_from") != made_from):
        changed = [k for k in made_from if k not in (state.get("made_from") or {}) or state["made_from"][k] != made_from[k]] if state else []
        old = _set_aside(checkpoint)
        if state is not None:
            print(f"not resuming from {checkpoint}: it was made with another {', '.join(changed) or 'version of fit'}; "
                  f"starting over (its files are now {old.name} and beside it)")
        state = None
    if state is not None:
        for name, part in parts.items():
            if part is not None and state.get(name) is not None:
                part.load_state_dict(state[name])
        torch.set_rng_state(state["rng"])
        if torch.cuda.is_available() and state.get("cuda_rng") is not None:
            torch.cuda.set_rng_state_all(state["cuda_rng"])
        history, done = state["history"], state["epoch"]
        if progress:
            print(f"resuming from {checkpoint} after epoch {done} of {epochs}")
    for epoch in range(done + 1, epochs + 1):
        model.train()
        start, total, count = time.perf_counter(), 0.0, 0
        bar = tqdm(train_batches, desc=f"epoch {epoch}/{epochs}", disable=not progress, leave=False)
        for batch in bar:
            if gradient_fn is not None:
                optimizer.zero_grad(set_to_none=True)
                with autocast:
                    loss, n = gradient_fn(model, to_device(batch, device))
            else:
                with autocast:
                    loss, n = loss_fn(model, to_device(batch, device))
                optimizer.zero_grad(set_to_none=True)
                if scaler:
                    scaler.scale(loss).backward()
                    scaler.unscale_(optimizer)
                else:
                    loss.backward()
            if clip:
                torch.nn.utils.clip_grad_norm_(model.parameters(), clip)
            if scaler:
                scaler.step(optimizer)
                scaler.update()
            else:
                optimizer.step()
            if scheduler:
                scheduler.step()
            step_loss = float(loss.detach()) if isinstance(loss, torch.Tensor) else float(loss)
            history["step_loss"].append(step_loss)
            total += step_loss * int(n)
            count += int(n)
            bar.set_postfix(loss=f"{step_loss:.3f}")
        seconds = time.perf_counter() - start
        history["train_loss"].append(total / max(count, 1))
        history["seconds"].append(seconds)
        history["tokens_per_s"].append(count / seconds)
        line = f"epoch {epoch}: train loss {history['train_loss'][-1]:.3f}"
        if val_batches is not None:
            val = evaluate(model, loss_fn, val_batches, device)
            history["val_loss"].append(val)
            history["val_ppl"].append(perplexity(val))
            line += f", val loss {val:.3f}, val PPL {perplexity(val):.1f}"
        if progress:
            print(f"{line} ({seconds:.0f} s, {count / seconds:,.0f} tokens/s)")
        if checkpoint is not None:
            _save_epoch(checkpoint, epoch, keep_last, parts, history, made_from)
    return history


def _save_epoch(checkpoint, epoch: int, keep_last: int, parts: dict, history: dict, made_from: dict) -> None:
    weights = {k: v.detach().cpu() for k, v in parts["model"].state_dict().items()}
    if history["val_loss"] and history["val_loss"][-1] <= min(history["val_loss"]):
        _save(weights, best_weights(checkpoint))
    if keep_last:
        _save(weights, epoch_weights(checkpoint, epoch))
        epoch_weights(checkpoint, epoch - keep_last).unlink(missing_ok=True)
    state = {name: None if part is None else part.state_dict() for name, part in parts.items()}
    state.update(epoch=epoch, history=history, made_from=made_from, rng=torch.get_rng_state(),
                 cuda_rng=torch.cuda.get_rng_state_all() if torch.cuda.is_available() else None)
    _save(state, Path(checkpoint))
