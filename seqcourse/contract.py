"""The contract every call into a student's code keeps unless its question says otherwise, checked on every call
(runs in the sandbox beside grader/runner.py, which installs it before the notebook runs and wraps the notebook's own
functions and classes once its cells have run; in the student's own kernel, seqcourse/checking.py runs the public
checks' calls under its variants, :func:`varied`).

The outermost call into the notebook's code (a check's call, or a stand-in's) records what it broke:
- the caller's arguments changed: a tensor's values, shape, dtype or requires_grad; a list, tuple or dict's
  items; a module's parameters, buffers (their values; a large module's version counters), training flags,
  gradients (``.grad``, a tensor's too; a trainable parameter without one gets zeros for the call, so that
  clearing shows) or requires_grad flags (``self`` too, for a method or a module's call, except its buffers: a module may own a cache);
- a module's plain settings changed (a dropout's ``p``, a norm's ``eps``: every public number, string or flag of
  torch's own layers among its submodules);
- a global setting of torch left changed (gradient mode, inference mode, default dtype, deterministic algorithms,
  anomaly detection, the thread count);
- a global random generator reseeded or a saved state of it restored (Python's ``random``, NumPy's, torch's):
  draws must continue the caller's random state, not restart it. A call given its own seed (an integer argument
  named like one) may seed a global generator for its own draws if it leaves every global state as it found it.
The trusted side asks after every hidden case (op ``contract``, grader/checks.py) and fails the case unless
the question declares the change (``MAY_CHANGE`` in its checks module). Generators passed in may advance.
``train()`` called inside a call on a module it was given counts even where it changes nothing (the module came
in training mode; :func:`_watch_train`). The calls themselves are recorded too (op ``calls``): which function got
which of the caller's modules in which mode, so that a test can see that every function given a model is given
one in training mode somewhere, where an ``eval()`` left inside the call would show, and that every question's
hidden cases call its code through this contract at all.
Nothing here is trusted (student code shares this process); it makes honest bugs visible, it is no defence.
"""

from __future__ import annotations

import contextlib
import copy
import functools
import inspect
import os
import random
import signal
import sys
import threading
import time
import warnings
import weakref

import torch

BROKEN: list[dict] = []  # since the last reset: {"function": ..., "argument": ..., "what": ...}
_given: list[tuple[str, torch.nn.Module]] = []  # the outermost call's (argument, module) pairs, while it runs
_evaluated = False  # whether the outermost call has switched one of them to evaluation mode
_current = ""  # the outermost call's function
_reseeded: list[str] | None = None  # while a call given its own seed or generator runs: its reseeds, judged at its end
CALLS: list[dict] = []  # since the last reset: {"function": ..., "argument": ..., "training": ...} (modules given), and
# {..., "variant": ...} for each variant a call ran under to a verdict
_depth = 0
_MARK = "__course_contract__"
_variants: frozenset = frozenset()  # the variants the running check runs its calls again under (op "seed", :data:`VARIANTS`)
_varying = False  # while a call runs again under a variant: nothing it does is recorded


def in_cell(filename: str) -> bool:
    """Whether code comes from a notebook cell (IPython's name for a cell's code, and ipykernel's: Jupyter, Colab)."""
    return "ipython-input" in filename or f"{os.sep}ipykernel_" in filename


def is_notebook_code(obj) -> bool:
    """A function (or a class with a method) written in one of the notebook's cells, decorated or not (a
    ``@torch.no_grad()`` function is torch's wrapper around the notebook's)."""
    if inspect.isfunction(obj):
        try:
            obj = inspect.unwrap(obj)
        except ValueError:  # a cycle of __wrapped__
            return False
        return inspect.isfunction(obj) and in_cell(obj.__code__.co_filename)
    if isinstance(obj, type):
        return any(is_notebook_code(v) for v in vars(obj).values() if inspect.isfunction(v))
    return False


GRADIENTS = "its gradients (.grad: a backward() or zero_grad() inside the call?)"
CLONE_LIMIT = 2**20  # elements: a tensor argument up to this size is compared by value, larger ones by version


def _states(tensors) -> list:
    """Named tensors (a module's parameters, buffers or gradients): copies of their values while they are small together (a write through
    ``.data`` bumps no version counter), else version counters (every other in-place change bumps them: views and
    ``.detach()`` share them)."""
    tensors = list(tensors)
    small = sum(t.numel() for _, t in tensors) <= CLONE_LIMIT
    return [(k, t.detach().clone() if small else t._version, tuple(t.shape)) for k, t in tensors]


def _grads(tensors) -> list:
    """The gradients that leaf tensors hold (a non-leaf holds none)."""
    return [(k, t.grad) for k, t in tensors if t.is_leaf and t.grad is not None]


def _same_states(before: list, tensors) -> bool:
    now = list(tensors)
    return len(now) == len(before) and all(
        k == k0 and tuple(t.shape) == shape and (_same(t.detach(), state) if isinstance(state, torch.Tensor) else t._version == state)
        for (k, t), (k0, state, shape) in zip(now, before))


PLAIN = (bool, int, float, str, type(None))


def _settings(module: torch.nn.Module) -> list:
    """The plain settings of torch's own layers among a module's submodules: (path, attribute, value) for every public
    number, string or flag (``p``, ``eps``, ``padding_idx``). The notebook's own classes are left out: their plain
    attributes may hold state of their own (a cache's position, the last value seen)."""
    found = []
    for path, m in module.named_modules():
        if not type(m).__module__.startswith("torch."):
            continue
        for attr, v in vars(m).items():
            if not attr.startswith("_") and attr != "training" and \
                    (isinstance(v, PLAIN) or isinstance(v, tuple) and all(isinstance(x, PLAIN) for x in v)):
                found.append((path, attr, v))
    return found


def _same_settings(before: list, module: torch.nn.Module) -> str | None:
    """The first setting of ``before`` that ``module`` no longer holds, as "path.attr: old -> new"."""
    modules = dict(module.named_modules())
    for path, attr, v in before:
        now = getattr(modules.get(path), attr, v)
        if type(now) is not type(v) or now != v and not (v != v and now != now):
            return f"{path + '.' if path else ''}{attr}: {v!r} -> {now!r}"
    return None


GLOBALS = {  # torch's global settings a call must leave as it found them
    "gradient mode (torch.set_grad_enabled; use a `with torch.no_grad():` block)": torch.is_grad_enabled,
    "inference mode": torch.is_inference_mode_enabled,
    "default dtype (torch.set_default_dtype)": torch.get_default_dtype,
    "deterministic algorithms (torch.use_deterministic_algorithms)": torch.are_deterministic_algorithms_enabled,
    "anomaly detection (torch.autograd.set_detect_anomaly)": torch.is_anomaly_enabled,
    "thread count (torch.set_num_threads)": torch.get_num_threads,
}


def _globals() -> dict:
    return {label: get() for label, get in GLOBALS.items()}


_SETTERS = {  # how :func:`restore_globals` sets each back (inference mode only lasts a `with` block)
    "gradient mode (torch.set_grad_enabled; use a `with torch.no_grad():` block)": torch.set_grad_enabled,
    "default dtype (torch.set_default_dtype)": torch.set_default_dtype,
    "deterministic algorithms (torch.use_deterministic_algorithms)": torch.use_deterministic_algorithms,
    "anomaly detection (torch.autograd.set_detect_anomaly)": torch.autograd.set_detect_anomaly,
    "thread count (torch.set_num_threads)": torch.set_num_threads,
}
_INITIAL: dict = {}  # the settings when the notebook started (install)


def restore_globals() -> None:
    """Before every check: torch's global settings as they were when the notebook started, so that one call that
    left one changed (seen by the check that made it) does not change what the next check's calls start from."""
    for label, value in _INITIAL.items():
        if label in _SETTERS and GLOBALS[label]() != value:
            _SETTERS[label](value)


def _same_random_states(a: tuple, b: tuple) -> bool:
    """Whether two of :func:`_saved_random`'s states are the same."""
    numpy = [None if state is None else (state[0], state[1].tobytes(), *state[2:]) for state in (a[2], b[2])]
    return torch.equal(a[0], b[0]) and a[1] == b[1] and numpy[0] == numpy[1]


def _seeded(named) -> bool:
    """Whether a call is given its own seed (an integer argument named like one). One given a generator instead
    draws from it: seeding a global generator there is still a reseed."""
    return any("seed" in arg.lower() and isinstance(v, int) and not isinstance(v, bool) for arg, v in named)


def _zero_gradients(modules) -> list:
    """A caller's trainable parameters that hold no gradient get a zero one for the call (put back after it, if
    untouched), so that clearing the caller's gradients inside a call (``model.zero_grad()`` in a loss) shows as a
    change, whatever gradients the check's model happened to hold; accumulating into zeros gives the same values."""
    zeros = []
    for module in modules:
        for p in module.parameters():
            if p.requires_grad and p.is_leaf and p.grad is None:
                p.grad = torch.zeros_like(p)
                zeros.append((p, p.grad))
    return zeros


def _snapshot(value, depth: int = 0):
    """What the comparison after the call needs of ``value`` (None: not compared)."""
    if depth > 4:
        return None
    if isinstance(value, torch.Tensor):
        small = value.numel() <= CLONE_LIMIT
        return ("tensor", value.detach().clone() if small else None, value.requires_grad, value._version, tuple(value.shape),
                _states(_grads([("", value)])))
    if isinstance(value, torch.nn.Module):
        return ("module", _states(value.named_parameters()), _states(value.named_buffers()),
                [m.training for m in value.modules()], [p.requires_grad for p in value.parameters()],
                _states(_grads(value.named_parameters())), _settings(value))
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, len(value), [_snapshot(v, depth + 1) for v in value], [id(v) for v in value])
    if isinstance(value, dict):
        return ("dict", list(value), [_snapshot(v, depth + 1) for v in value.values()], [id(v) for v in value.values()])
    return None


def _same(a: torch.Tensor, b: torch.Tensor) -> bool:
    if a.shape != b.shape or a.dtype != b.dtype or a.device != b.device:
        return False
    return bool(((a == b) | (a.isnan() & b.isnan()) if a.is_floating_point() or a.is_complex() else a == b).all())


def _changes(before, value, buffers: bool = True) -> list[str]:
    """How ``value`` differs from its snapshot ``before``: short phrases, empty when unchanged."""
    if before is None:
        return []
    kind = before[0]
    if kind == "tensor":
        if not isinstance(value, torch.Tensor):
            return ["replaced"]
        if value.requires_grad != before[2]:
            return ["its requires_grad"]
        if before[1] is not None and not _same(value.detach(), before[1]) or \
                before[1] is None and (value._version, tuple(value.shape)) != before[3:5]:
            return ["its values (changed in place)"]
        return [] if _same_states(before[5], _grads([("", value)])) else [GRADIENTS]
    if kind == "module":
        found = []
        if not _same_states(before[1], value.named_parameters()):
            found.append("its parameters")
        if buffers and not _same_states(before[2], value.named_buffers()):
            found.append("its buffers")
        modes = [m.training for m in value.modules()]
        if modes != before[3]:
            was = "training" if before[3][0] else "evaluation"
            found.append(f"its mode (train()/eval(): it was in {was} mode)")
        if [p.requires_grad for p in value.parameters()] != before[4]:
            found.append("its parameters' requires_grad")
        if not _same_states(before[5], _grads(value.named_parameters())):
            found.append(GRADIENTS)
        changed = _same_settings(before[6], value)
        if changed:
            found.append(f"its settings ({changed})")
        return found
    items = list(value.values()) if kind == "dict" and isinstance(value, dict) else value
    if kind == "dict" and (not isinstance(value, dict) or list(value) != before[1]) or \
            kind != "dict" and (not isinstance(value, (list, tuple)) or len(value) != before[1]) or \
            [id(v) for v in items] != before[3]:
        return ["its items (added, removed or replaced)"]
    return [c for b, v in zip(before[2], items) for c in _changes(b, v)]


_recorded = 0  # every record, also one already in BROKEN: whether a call broke the contract


def _record(function: str, argument: str, what: str) -> None:
    global _recorded
    _recorded += 1
    entry = {"function": function, "argument": argument, "what": what}
    if entry not in BROKEN and len(BROKEN) < 20:
        BROKEN.append(entry)


def _arguments(fn, args, kwargs) -> list[tuple[str, object]]:
    """(name, value) of every argument of a call, by the function's own parameter names where it has them."""
    try:
        bound = inspect.signature(fn).bind_partial(*args, **kwargs)
        named = []
        for name, value in bound.arguments.items():
            kind = inspect.signature(fn).parameters[name].kind
            if kind is inspect.Parameter.VAR_POSITIONAL:
                named += [(f"{name}[{i}]", v) for i, v in enumerate(value)]
            elif kind is inspect.Parameter.VAR_KEYWORD:
                named += list(value.items())
            else:
                named.append((name, value))
        return named
    except (TypeError, ValueError):
        return [(f"argument {i + 1}", v) for i, v in enumerate(args)] + list(kwargs.items())


VARIANTS = {  # a call that kept the contract runs again under each, on copies of what it was given (its check's variants);
    # the first that goes wrong names the bug: fresh first, since the other copies carry what the call left on a module
    "fresh": "called on a fresh copy of the module with the same weights, after calls with other inputs and weights",
    "contiguity": "given non-contiguous copies of its tensors (the same values in another memory order)",
    "float64": "given its tensors and modules in float64",
    "device": "given everything on a GPU (the course's stand-in where there is none)",
    "eval": "given its modules in evaluation mode",
    "frozen": "given its modules with every other trainable parameter frozen and gradients already present",
    "single": "given the first row of its batch alone (a batch of one)",
}
VARIANT_SLOWEST_S = 1.0  # a call that took longer does not run again
VARIANT_CALLS = 3        # per check, the calls of one function that run again (a test model's training loop calls it often),
# and any call whose arguments are None where theirs were not, or the other way (another branch: 06 q6's top_p)
VARIANT_BUDGET_S = 5.0   # per check, the time its calls may spend running again
_varied: dict[str, int] = {}  # since the check began: function -> its calls that ran again
_kinds: set = set()  # since the check began: (function, which of its arguments were None) of the calls that ran again
_spent = 0.0  # since the check began: seconds spent running calls again
VARIANT_LIMIT_S = 10.0   # the longest one variant may run (at least 20 times the call's own time below it); then no verdict
_PRISTINE: dict[int, tuple] = {}  # id(module) -> (a weak reference to it, a copy made before its first call)


class _VariantTimeout(BaseException):
    pass


NO_VERDICT = "no verdict"  # a variant that cannot run for a call (what it was given, its time)


def _pristine(module, wanted: bool):
    """A module's call: the copy of the module made before its first call in the check (on its first call, made now)."""
    if not wanted or not isinstance(module, torch.nn.Module):
        return None
    entry = _PRISTINE.get(id(module))
    if entry is not None and entry[0]() is module:
        return entry[1]
    try:
        pristine = _deepcopy(module)
    except Exception:  # noqa: BLE001 - a module that cannot be copied runs no such variant
        pristine = None
    if len(_PRISTINE) > 256:
        _PRISTINE.clear()
    _PRISTINE[id(module)] = (weakref.ref(module), pristine)
    return pristine


def _flat(value, depth: int = 0) -> list:
    """Every tensor a call returned, in order (tuples, lists and dicts opened)."""
    if isinstance(value, torch.Tensor):
        return [value]
    if depth < 4 and isinstance(value, (list, tuple, dict)):
        return [t for v in (value.values() if isinstance(value, dict) else value) for t in _flat(v, depth + 1)]
    return []


def _holds(value, kind, depth: int = 0) -> bool:
    if isinstance(value, kind):
        return True
    return depth < 4 and isinstance(value, (list, tuple, dict)) and \
        any(_holds(v, kind, depth + 1) for v in (value.values() if isinstance(value, dict) else value))


def _reordered(t: torch.Tensor) -> torch.Tensor:
    """The same values as ``t`` in another memory order, the last dimension's elements still adjacent (stride 1), as
    in a tensor whose leading dimensions were transposed: the leading dimensions in reverse order (a 2-d tensor: every
    other row of a buffer; a 1-d one: every other element). Merging dimensions with ``.view`` fails on it; splitting
    the last one, and ``torch.view_as_complex``, work, as on such a tensor."""
    if t.dim() >= 3:
        dims = list(range(t.dim() - 1))[::-1] + [t.dim() - 1]
        return t.permute(dims).contiguous().permute(dims)
    if t.numel() > 1:
        buffer = t.new_empty(2 * t.size(0), *t.shape[1:])
        buffer[::2] = t
        return buffer[::2]
    return t.clone()


def _copied(value, memo: dict, tensor):
    """``value`` for a call under a variant: tensors through ``tensor``, modules, optimizers, generators and the
    notebook's own objects deep-copied (sharing kept through ``memo``), containers rebuilt, anything else as it is."""
    if id(value) in memo:
        return memo[id(value)]
    if isinstance(value, torch.Tensor):
        out = tensor(value.detach())
        if value.requires_grad and out.is_floating_point():
            out.requires_grad_()
    elif isinstance(value, (torch.nn.Module, torch.optim.Optimizer, torch.Generator)) or \
            not isinstance(value, type) and is_notebook_code(type(value)):
        out = _deepcopy(value, memo)
    elif isinstance(value, (list, tuple)):
        items = [_copied(v, memo, tensor) for v in value]
        out = type(value)(*items) if hasattr(value, "_fields") else type(value)(items)
    elif type(value) is dict:
        out = {k: _copied(v, memo, tensor) for k, v in value.items()}
    else:
        return value
    memo[id(value)] = out
    return out


def _deepcopy(value, memo: dict | None = None):
    """``copy.deepcopy``, tensors of a graph a module keeps on itself (the attention weights of its last call) copied
    detached (deepcopy refuses them)."""
    memo = {} if memo is None else memo
    for m in value.modules() if isinstance(value, torch.nn.Module) else ():
        for v in vars(m).values():
            for t in _flat(v):
                if not t.is_leaf and id(t) not in memo:
                    memo[id(t)] = t.detach().clone()
    return copy.deepcopy(value, memo)


def _saved_random() -> tuple:
    """Every global generator's state (NumPy's where the notebook imported it)."""
    numpy = sys.modules.get("numpy")
    return torch.get_rng_state(), random.getstate(), None if numpy is None else numpy.random.get_state()


def _load_random(saved: tuple) -> None:
    torch.set_rng_state(saved[0])
    random.setstate(saved[1])
    if saved[2] is not None:
        sys.modules["numpy"].random.set_state(saved[2])


@contextlib.contextmanager
def _limited(seconds: float):
    """Run for at most ``seconds`` (:class:`_VariantTimeout`), inside whatever time limit the request has (it keeps what
    it had left); no limit outside the main thread, nor where there are no interval timers (Windows)."""
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "setitimer"):
        yield
        return
    left = signal.getitimer(signal.ITIMER_REAL)[0]
    if left and left < seconds + 5:  # the check's own time comes first
        raise _VariantTimeout

    def ring(signum, frame):
        raise _VariantTimeout

    handler, start = signal.signal(signal.SIGALRM, ring), time.perf_counter()
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, handler)
        if left:
            signal.setitimer(signal.ITIMER_REAL, max(left - (time.perf_counter() - start), 1e-3))


def _stateful(module: torch.nn.Module, pristine: torch.nn.Module, before: dict) -> bool:
    """Whether the call replaced a tensor the module held as constructed (a key/value cache it was built with and
    extends on every call: state by design, not a stale value)."""
    built = dict(pristine.named_modules())
    for path, m in module.named_modules():
        for attr, v in vars(m).items():
            if (path, attr) in before and before[(path, attr)] != id(v) and \
                    _holds(vars(built.get(path, torch.nn.Module())).get(attr), torch.Tensor):
                return True
    return False


def _attributes(module) -> dict:
    """{(submodule path, attribute): id} of the plain tensor-holding attributes of a module and its submodules."""
    if not isinstance(module, torch.nn.Module):
        return {}
    return {(path, attr): id(v) for path, m in module.named_modules() for attr, v in vars(m).items()
            if not attr.startswith("_") and _holds(v, torch.Tensor)}


def _other(t: torch.Tensor, shorter: bool = False) -> torch.Tensor:
    """Other inputs for a call before the one compared (:data:`VARIANTS` ``fresh``): floating values halved and
    shifted (-inf stays -inf), integer tensors of two or more dimensions rolled by one along the first (other rows),
    the rest as they are (flags, lengths, positions); ``shorter``: every tensor of two or more dimensions one shorter
    along the second (a sequence's positions, batch-first), where it has two or more."""
    if shorter and t.dim() >= 2 and t.size(1) > 1:
        t = t[:, :-1]
    if t.is_floating_point():
        return t * 0.5 + 0.25
    if t.dim() >= 2 and t.dtype != torch.bool:
        return t.roll(1, 0)
    return t.clone()


@contextlib.contextmanager
def _dropout_watched(modules: list, seen: list):
    """While ``modules`` are all in evaluation mode, dropout asked for anyway (``F.dropout(x, p)``, whose ``training``
    defaults to True; ``scaled_dot_product_attention``'s ``dropout_p``) is noted in ``seen``."""
    F = torch.nn.functional
    dropout, sdpa, native = F.dropout, F.scaled_dot_product_attention, torch.dropout

    def evaluating() -> bool:
        return not any(m.training for g in modules for m in g.modules())

    def functional(input, p=0.5, training=True, inplace=False):
        if training and p > 0 and evaluating():
            seen.append("F.dropout(x, p) drops whatever the mode (its training= defaults to True): pass "
                        "training=self.training, or use an nn.Dropout")
        return dropout(input, p, training, inplace)

    def attention(*args, **kwargs):
        if (kwargs.get("dropout_p") or (args[4] if len(args) > 4 else 0)) and evaluating():
            seen.append("scaled_dot_product_attention got dropout_p > 0: pass dropout_p=self.p if self.training else 0.0")
        return sdpa(*args, **kwargs)

    def torch_dropout(input, p, train):
        if train and p > 0 and evaluating():
            seen.append("torch.dropout(x, p, True) drops whatever the mode: pass train=self.training")
        return native(input, p, train)

    F.dropout, F.scaled_dot_product_attention, torch.dropout = functional, attention, torch_dropout
    try:
        yield
    finally:
        F.dropout, F.scaled_dot_product_attention, torch.dropout = dropout, sdpa, native


def _verdict(variant: str, fn, args, kwargs, outs: list, pristine, before: dict, limit: float, drawn: dict,
             single: list | None) -> str | None:
    """What goes wrong when the call runs again under ``variant``: None where nothing does, :data:`NO_VERDICT` where the
    variant cannot run here. ``drawn``: id -> state of the generators the call was given, as it started; ``single``:
    the call's tensors of one or more dimensions where a batch of one may be cut from them, else None (:func:`_single`)."""
    fake = contextlib.nullcontext()
    if variant == "single":
        return _single(fn, args, kwargs, outs, limit, single) if single else NO_VERDICT
    if variant == "fresh":
        module = args[0] if args else None
        if pristine is None or _stateful(module, pristine, before):
            return NO_VERDICT
        copy_ = _deepcopy(pristine)
        first = next(iter(module.parameters()), None)
        if first is not None:  # where the caller moved the module since (a buffer not in its state_dict moves too)
            copy_.to(device=first.device, dtype=first.dtype if first.is_floating_point() else None)
        copy_.load_state_dict({k: v.clone() for k, v in module.state_dict().items()}, assign=True)
        for a, b in zip(copy_.modules(), module.modules()):
            a.training = b.training
        memo = {id(module): copy_}
        tensor = torch.Tensor.clone
    elif variant == "contiguity":
        memo, tensor = {}, _reordered
    elif variant in ("eval", "frozen"):
        if not _holds((args, kwargs), torch.nn.Module):
            return NO_VERDICT
        memo, tensor = {}, torch.Tensor.clone
    else:
        if _holds((args, kwargs), torch.optim.Optimizer):  # an optimizer's state keeps the caller's dtype and device
            return NO_VERDICT
        if any(_double(m) for m in _modules((args, kwargs))):  # a check's own test model makes its tensors as it was written to
            return NO_VERDICT
        if any(t.device.type != "cpu" for t in _flat(list(args) + list(kwargs.values())) +
               [p for m in _modules((args, kwargs)) for p in m.parameters()]):  # a check's own device case
            return NO_VERDICT
        memo = {}
        if variant == "float64":
            if not any(t.is_floating_point() for t in _flat(list(args) + list(kwargs.values()))) and \
                    not _holds((args, kwargs), torch.nn.Module):
                return NO_VERDICT
            tensor = lambda t: t.double() if t.is_floating_point() else t.clone()  # noqa: E731
        else:
            try:
                from seqcourse import fakecuda
            except ImportError:
                return NO_VERDICT
            fake = fakecuda.on_fake_cuda() if not torch.cuda.is_available() else contextlib.nullcontext()
            tensor = lambda t: t.to("cuda")  # noqa: E731
            if torch.cuda.is_available():  # a generator given is one of the GPU there (its draws: no verdict on values)
                memo.update({id(g): torch.Generator("cuda").manual_seed(g.initial_seed())
                             for g in _modules((args, kwargs), torch.Generator)})
    seen: list = []
    with fake:
        vargs, vkwargs = _copied((tuple(args), dict(kwargs)), memo, tensor)
        for key, state in drawn.items():  # a generator given draws as it did in the call, not from where the call left it
            if key in memo and memo[key].device.type == "cpu":
                memo[key].set_state(state)
                if variant == "device":  # the fake GPU's: it draws only for tensors made there, as CUDA's
                    fakecuda.cuda_generator(memo[key])
        given = list({id(m): m for m in _modules((vargs, vkwargs))}.values())
        for m in {id(m): m for m in memo.values() if isinstance(m, torch.nn.Module)}.values():
            if variant == "float64":
                m.double()
            elif variant == "device":
                m.to("cuda")
        watch = contextlib.nullcontext()
        if variant == "eval":
            for m in given:
                m.eval()
            watch = _dropout_watched(given, seen)
        elif variant == "frozen":
            trainable = list({id(p): p for m in given for p in m.parameters() if p.requires_grad and p.is_leaf}.values())
            if not trainable:
                return NO_VERDICT
            draws = torch.Generator().manual_seed(1)
            for i, p in enumerate(trainable):
                p.requires_grad_(i % 2 == 0)
                p.grad = torch.randn(p.shape, generator=draws, dtype=p.dtype).to(p.device) if i % 2 == 0 else None
            flags = [(p, p.requires_grad, None if p.grad is None else p.grad.clone()) for p in trainable]
        elif variant == "fresh":
            problem = _warm_up(fn, copy_, (vargs, vkwargs), memo, limit)
            if problem:
                return problem
        try:
            with _limited(limit), watch:
                got = _flat(fn(*vargs, **vkwargs))
        except _VariantTimeout:
            return NO_VERDICT
        except Exception as e:  # noqa: BLE001 - the answer's error under the variant
            text = _error_text(e)
            if variant == "device":
                if not any(s in str(e) for s in fakecuda.DEVICE_ERRORS) or "lengths" in str(e) or "batch_sizes" in str(e):
                    return NO_VERDICT  # another error (or a packed sequence's lengths): the fake device cannot tell
                if "generator" in str(e):
                    return (f"raised {text}: a random draw made without device= used the GPU's generator for the CPU "
                            "(draw on the input's device: torch.rand(..., generator=generator, device=x.device))")
                return (f"raised {text}: a tensor made without device= stayed on the CPU, or one kept on the module from "
                        "an earlier call (make new tensors on the input's device: x.new_zeros(...), torch.zeros(..., "
                        "device=x.device), or a registered buffer)")
            if variant == "contiguity":
                how = (".view needs contiguous memory: use .reshape (or .contiguous() first)" if "view" in str(e)
                       else "your code assumes contiguous memory")
                return f"raised {text}: {how}"
            if variant == "float64":
                return (f"raised {text}: a tensor made in float32 whatever the input's dtype (torch.zeros(...) or "
                        "torch.tensor(...) without dtype=, .float(), or one kept on the module from an earlier call) met "
                        "float64 ones: make new tensors like the input (x.new_zeros(...), torch.zeros(..., dtype=x.dtype))")
            if variant == "fresh":
                return f"raised {text} after those calls: {_KEPT}"
            return f"raised {text}, which it did not as called otherwise"
        if variant != "device" and (len(got) != len(outs) or any(a.shape != b.shape for a, b in zip(got, outs))):  # the fake
            # device's shapes are not all CUDA's (a 1-d input of a linear layer): there, only its device rules count
            return f"returned other shapes than it does without those earlier calls: {_KEPT}" if variant == "fresh" else \
                "returned other shapes (or another number of tensors) than it does otherwise"
        if seen:
            return f"applied dropout: {seen[0]}"
        if variant == "eval" and any(m.training for g in given for m in g.modules()):
            return ("handed its module back in training mode: a train() whatever the mode it was given (keep the "
                    "caller's mode: was = model.training ... model.train(was))")
        if variant == "frozen":
            for p, wanted, grad in flags:
                if p.requires_grad != wanted:
                    return ("changed requires_grad: frozen parameters made trainable (requires_grad_(True) or "
                            "requires_grad = True for every parameter?)" if not wanted else "froze parameters")
                if (grad is None) != (p.grad is None) or grad is not None and not _same(p.grad, grad):
                    return ("changed the gradients its parameters already held (zero_grad(), or a backward() that adds "
                            "to them, inside the call?)")
        for a, b in zip(got, outs):
            if variant == "float64" and b.dtype == torch.float32 and b.grad_fn is not None and a.dtype != torch.float64:
                return _FLOAT32.format(a.dtype)
            if variant == "device" and b.grad_fn is not None and a.device.type != "cuda":
                return ("returned a result on the CPU: a tensor made without device= (preallocated with torch.zeros or "
                        "torch.empty, say) took it; make it on the input's device (x.new_zeros(...))")
            if variant == "fresh" and (a.dtype != b.dtype or not _close(a.detach(), b.detach())):
                return f"returned other values than it does without those earlier calls: {_KEPT}"
            if variant == "frozen" and (a.dtype != b.dtype or not _close(a.detach(), b.detach())):
                return "returned other values: requires_grad decides what trains, never what a forward computes"
    if variant == "float64" and _derived_float32(fn, args, kwargs, [i for i, (a, b) in enumerate(zip(got, outs)) if
                                                                    a.dtype == b.dtype == torch.float32 and b.grad_fn is None], limit):
        return _FLOAT32.format(torch.float32)
    return None


_FLOAT32 = ("returned {} for float64 inputs: a tensor made or cast in float32 whatever the input's dtype (torch.zeros "
            "or torch.empty without dtype=, .float()) set the result's dtype: make it like the input (x.new_zeros(...))")


def _derived_float32(fn, args, kwargs, suspects: list, limit: float) -> bool:
    """``float64``'s second look at results that stayed float32 without an autograd graph (``suspects``: their
    places): the call once more, its floating tensors in float64 and requiring gradients; whether one of those results
    now comes from them through autograd yet is float32 (a ``.float()`` took it). Results made apart from the inputs
    (a list of Python numbers turned into a tensor) have no graph then either: no verdict on them."""
    if not suspects:
        return False
    vargs, vkwargs = _copied((tuple(args), dict(kwargs)), {}, lambda t: t.double().requires_grad_() if t.is_floating_point()
                             else t.clone())
    for m in _modules((vargs, vkwargs)):
        m.double()
    try:
        with _limited(limit), warnings.catch_warnings():  # what asking for gradients warns of is not the student's
            warnings.simplefilter("ignore")
            got = _flat(fn(*vargs, **vkwargs))
    except (_VariantTimeout, Exception):  # noqa: BLE001 - gradients it may rightly refuse (.numpy()): no verdict
        return False
    return any(i < len(got) and got[i].dtype == torch.float32 and got[i].grad_fn is not None for i in suspects)


_KEPT = ("something kept from one call (for other sizes, contents or weights) was used again; compute it in the call, "
         "or rebuild it when what it depends on changes")


def _error_text(e: Exception) -> str:
    """An error a call raised under a variant, in one short line."""
    return f"{type(e).__name__}: {str(e).splitlines()[0][:160].rstrip('.') if str(e) else ''}"


def _single(fn, args, kwargs, outs: list, limit: float, given: list) -> str | None:
    """``single``: the call given the first row of every tensor it was given (tensors batch-first: every tensor
    argument has the same first size B > 1, and so has every result of one or more dimensions) must return the first
    row of what it returned for the batch, in as many dimensions (0-dimensional results, batch statistics, are not
    compared; results of other sizes past the first, padding to the longest row, give no verdict)."""
    rows = given[0].size(0)
    if rows < 2 or any(t.size(0) != rows for t in given) or not any(t.dim() >= 2 for t in given) or \
            not any(t.dim() >= 1 for t in outs) or any(t.dim() >= 1 and t.size(0) != rows for t in outs) or \
            _holds_sized(list(args) + list(kwargs.values()), rows):
        return NO_VERDICT
    vargs, vkwargs = _copied((tuple(args), dict(kwargs)), {}, lambda t: t[:1].clone() if t.dim() >= 1 else t.clone())
    try:
        with _limited(limit):
            got = _flat(fn(*vargs, **vkwargs))
    except _VariantTimeout:
        return NO_VERDICT
    except Exception as e:  # noqa: BLE001 - the answer's error for a batch of one
        return f"raised {_error_text(e)}, which it does not for the whole batch"
    if len(got) != len(outs):
        return "returned another number of tensors than for the whole batch"
    pairs = [(a, b) for a, b in zip(got, outs) if b.dim() >= 1]
    if any(a.dim() != b.dim() for a, b in pairs):
        return ("returned a result of other dimensions: never squeeze() without a dimension, it drops the batch's when "
                "that is 1 (name the one you mean: .squeeze(-1))")
    if any(a.shape[1:] != b.shape[1:] or a.size(0) != 1 for a, b in pairs):
        return NO_VERDICT
    if any(a.dtype != b.dtype or not _close(a.detach(), b[:1].detach()) for a, b in pairs):
        return ("returned for the first row alone other values than for that row in the batch: one row's result must "
                "not depend on the others (a softmax, sum or mean over dim 0, the batch's?)")
    return None


def _rows_kept(given: list) -> set:
    """Before a call: the first sizes of the tensors that the modules and notebook objects among ``given`` keep outside
    their parameters (a check's test module returning fixed scores for a batch, a memory set for one): a batch of one
    cannot be cut from those."""
    sizes = set()
    for value in given:
        for m in value.modules() if isinstance(value, torch.nn.Module) else [value] if is_notebook_code(type(value)) else []:
            sizes |= {t.size(0) for k, v in vars(m).items() if k not in ("_parameters", "_modules") for t in _flat(v)
                      if t.dim() >= 1}  # buffers too
    return sizes


def _holds_sized(value, rows: int, depth: int = 0) -> bool:
    """Whether a list or tuple of ``rows`` items is among what a call was given (per-row values outside tensors, such as
    a list of lengths: a batch of one cannot be cut from them)."""
    if isinstance(value, (list, tuple)) and len(value) == rows and depth:
        return True
    return depth < 4 and isinstance(value, (list, tuple, dict)) and \
        any(_holds_sized(v, rows, depth + 1) for v in (value.values() if isinstance(value, dict) else value))


def _warm_up(fn, module: torch.nn.Module, given: tuple, memo: dict, limit: float) -> str | None:
    """Before ``fresh``'s call: two calls on other inputs (:func:`_other`: one position shorter, then of the same sizes:
    a value kept for one size, and one kept for any input of its size, both show) with other weights (halved), the
    same modules and notebook objects otherwise (generators and optimisers copied again), then the weights, buffers
    and random state put back; None, or :data:`NO_VERDICT` where neither runs (or time ran out)."""
    kept = {id(v): v for v in memo.values() if isinstance(v, torch.nn.Module) or is_notebook_code(type(v))}
    state = {k: v.clone() for k, v in module.state_dict().items()}
    random_state = _saved_random()
    with torch.no_grad():
        for p in module.parameters():
            if p.is_floating_point():
                p.mul_(0.5)
    try:
        ran = False
        for shorter in (True, False):
            other = _copied(given, dict(kept), lambda t: _other(t, shorter))
            try:
                with _limited(limit):
                    fn(*other[0], **other[1])
                ran = True
            except _VariantTimeout:
                return NO_VERDICT
            except Exception:  # noqa: BLE001 - other inputs it may rightly refuse (or a value kept from the first call)
                pass
        if not ran:
            return NO_VERDICT
    finally:
        _load_random(random_state)
        module.load_state_dict(state)
    return None


def _modules(value, kind=torch.nn.Module, depth: int = 0) -> list:
    """The modules (or other objects of ``kind``) among what a call was given (in containers too)."""
    if isinstance(value, kind):
        return [value]
    if depth < 4 and isinstance(value, (list, tuple, dict)):
        return [m for v in (value.values() if isinstance(value, dict) else value) for m in _modules(v, kind, depth + 1)]
    return []


def _double(module: torch.nn.Module) -> bool:
    """Whether a module is (or holds) one of a check's own test models, a class the grader defined under a private name
    (runner.py's op ``define``; the course's references for the notebook's own names are not test models), that does
    not declare ``follows_inputs = True`` (it makes every tensor on its inputs' or weights' device and dtype)."""
    return any(not getattr(type(m), "follows_inputs", False) and
               getattr(getattr(f, "__code__", None), "co_filename", "").startswith("<grader:_")
               for m in module.modules() for cls in type(m).__mro__ for f in vars(cls).values())


def _close(a: torch.Tensor, b: torch.Tensor) -> bool:
    if a.is_floating_point() or a.is_complex():
        return bool(torch.isclose(a, b, rtol=1e-5, atol=1e-6, equal_nan=True).all())
    return bool((a == b).all())


def _vary(name: str, fn, args, kwargs, result, random_before: tuple, seconds: float, pristine, before: dict,
          drawn: dict, kept: set) -> None:
    """Run a call that kept the contract again under each of the check's variants, on copies of what it was given,
    each from the random state the call started from; record the first that goes wrong. Nothing the runs do is
    recorded or kept: the random state and torch's global settings are those the call left."""
    global _varying, _depth, _spent
    kind = (name, tuple(v is None for v in args), tuple(sorted((k, v is None) for k, v in kwargs.items())))
    if seconds > VARIANT_SLOWEST_S or fn.__name__ == "__init__" or _spent >= VARIANT_BUDGET_S or \
            _varied.get(name, 0) >= VARIANT_CALLS and kind in _kinds:
        return
    _varied[name] = _varied.get(name, 0) + 1
    _kinds.add(kind)
    start = time.perf_counter()
    outs, after, settings = _flat(result), _saved_random(), _globals()
    drew = bool(drawn) or not _same_random_states(random_before, after)
    given = [t for t in _flat(list(args) + list(kwargs.values())) if t.dim() >= 1]
    single = given if not drew and given and given[0].size(0) not in kept else None
    limit = min(VARIANT_LIMIT_S, max(1.0, 20 * seconds))
    _varying, _depth = True, _depth + 1
    try:
        for variant in VARIANTS:
            if variant not in _variants:
                continue
            _load_random(random_before)
            try:
                problem = _verdict(variant, fn, args, kwargs, outs, pristine, before, limit, drawn, single)
            except _VariantTimeout:
                break
            except Exception:  # noqa: BLE001 - copying what the call was given failed: no verdict
                problem = NO_VERDICT
            if problem is NO_VERDICT:
                continue
            entry = {"function": name, "argument": None, "training": None, "variant": variant}  # it ran: for the tests
            if entry not in CALLS and len(CALLS) < 100:
                CALLS.append(entry)
            if problem:
                _record(name, "", f"{VARIANTS[variant]}, it {problem}")
                break
    finally:
        _load_random(after)
        for label, value in settings.items():
            if label in _SETTERS and GLOBALS[label]() != value:
                _SETTERS[label](value)
        _varying, _depth, _spent = False, _depth - 1, _spent + time.perf_counter() - start


def checked(fn, name: str, owner=None, like=None):
    """``fn`` (a function, or a method of the notebook's class ``owner``) recording what its outermost call breaks;
    ``like``: the function whose parameter names the arguments have (a module's forward, for its call)."""
    if getattr(fn, _MARK, False):
        return fn

    @functools.wraps(fn)
    def call(*args, **kwargs):
        global _depth, _evaluated, _current, _reseeded
        if _depth:
            return fn(*args, **kwargs)
        named = _arguments(like or fn, args, kwargs)
        if fn.__name__ == "__init__":  # the new object itself is not the caller's
            named = [(arg, v) for arg, v in named if arg != "self"]
        zeros = _zero_gradients(v for a, v in named if isinstance(v, torch.nn.Module) and not (owner is not None and a == "self"))
        before = [(arg, v, _snapshot(v)) for arg, v in named]
        settings = _globals()
        if _seeded(named):  # it may seed a global generator for its own draws if it restores every state
            _reseeded, states = [], _saved_random()
        _current, _given[:] = name, [(a, v) for a, v in named if isinstance(v, torch.nn.Module) and not (owner is not None and a == "self")]
        for arg, module in _given or [(None, None)]:  # a call given no module is recorded too: it kept the contract
            entry = {"function": name, "argument": arg, "training": None if module is None else module.training}
            if entry not in CALLS and len(CALLS) < 100:
                CALLS.append(entry)
        vary = bool(_variants) and not _varying
        if vary:
            recorded, random_before, start = _recorded, _saved_random(), time.perf_counter()
            pristine = _pristine(args[0], "fresh" in _variants) if owner is not None and like is not None and args else None
            held = _attributes(args[0]) if pristine is not None else {}
            drawn = {id(g): g.get_state() for g in _modules((args, kwargs), torch.Generator)}
            kept = _rows_kept(list(args) + list(kwargs.values())) if "single" in _variants and fn.__name__ != "__init__" else set()
        _depth += 1
        try:
            result = fn(*args, **kwargs)
        finally:
            _depth -= 1
            _given.clear()
            _evaluated = False
            if _reseeded is not None:
                if _reseeded and not _same_random_states(states, _saved_random()):
                    for what in _reseeded:
                        _record(name, "", what + ", and did not set it back to the state it found")
                _reseeded = None
            for label, was in settings.items():
                now = GLOBALS[label]()
                if now != was:
                    _record(name, "", f"changed a global setting of torch: {label}, {was} before the call, {now} after")
            for arg, value, snap in before:
                is_self = owner is not None and arg == "self"
                for what in _changes(snap, value, buffers=not is_self):
                    _record(name, "self" if is_self else arg, what)
            for p, zero in zeros:  # untouched: handed back as the caller had it, without a gradient
                if p.grad is zero and not bool(zero.any()):
                    p.grad = None
        if vary and _recorded == recorded:  # a call that broke the contract already fails its check
            _vary(name, fn, args, kwargs, result, random_before, time.perf_counter() - start, pristine, held, drawn, kept)
        return result

    setattr(call, _MARK, True)
    return call


def wrap_class(cls: type, undo: list | None = None) -> None:
    """The notebook's class: its instances' calls (a module's forward), constructor and public methods, checked;
    ``undo`` collects what puts the class back."""
    if vars(cls).get(_MARK):
        return
    for attr, value in list(vars(cls).items()):
        if inspect.isfunction(value) and is_notebook_code(value) and (attr == "__init__" or not attr.startswith("_")):
            _set(cls, attr, checked(value, f"{cls.__name__}.{attr}", cls), undo)
    if callable(getattr(cls, "__call__", None)) and issubclass(cls, torch.nn.Module):
        _set(cls, "__call__", checked(torch.nn.Module.__call__, cls.__name__, cls, like=getattr(cls, "forward", None)), undo)
    _set(cls, _MARK, True, undo)


def _set(cls: type, attr: str, value, undo: list | None) -> None:
    if undo is not None:
        old = vars(cls).get(attr, _MISSING)
        undo.append(lambda: delattr(cls, attr) if old is _MISSING else setattr(cls, attr, old))
    setattr(cls, attr, value)


_MISSING = object()


def wrap_namespace(ns: dict, undo: list | None = None) -> None:
    """Every function and class the notebook's cells defined, checked (stand-ins and imports are not); ``undo``
    collects what puts its classes back (``ns`` itself keeps the wrapped functions)."""
    for name, value in list(ns.items()):
        if name.startswith("_") or not is_notebook_code(value):
            continue
        if isinstance(value, type):
            wrap_class(value, undo)
        elif inspect.isfunction(value):
            ns[name] = checked(value, name)


@contextlib.contextmanager
def varied(env: dict, variants=tuple(VARIANTS)):
    """In the student's own kernel (seqcourse/checking.py), while one public check runs in ``env`` (its copy of the
    notebook's namespace): the notebook's functions and classes in ``env`` wrapped, their calls run again under
    ``variants`` as the grader runs them; yields a list that holds, after the block, the variants that went wrong
    (:func:`variant_problems` words them). The classes are put back after; only the variants are kept, not the rest
    of the contract (the grader's public checks keep only them too)."""
    undo: list = []
    wrap_namespace(env, undo)
    vary(variants)
    take()
    found: list = []
    try:
        yield found
    finally:
        found += variant_problems(take())
        take(CALLS)
        vary(())
        for put_back in reversed(undo):
            put_back()


def variant_problems(broken) -> list[dict]:
    """The records of ``broken`` (what :func:`take` returned, or the sandbox's answer to op ``contract``) that are
    variants gone wrong."""
    return [b for b in broken if isinstance(b, dict) and str(b.get("what", "")).startswith(tuple(VARIANTS.values()))] \
        if isinstance(broken, list) else []


def variant_message(record: dict) -> str:
    """What a student reads about a call that went wrong under a variant (the grader's checks and ``grader.check``)."""
    return f"{str(record.get('function', ''))[:120]}, {str(record.get('what', ''))[:600]}"


def _reseeds(module, attr: str, label: str) -> None:
    original = getattr(module, attr)

    @functools.wraps(original)
    def seed(*args, **kwargs):
        if _depth and not _varying:
            frame = inspect.currentframe().f_back
            where = frame.f_code.co_name if frame is not None and in_cell(frame.f_code.co_filename) else "your code"
            if _reseeded is not None:
                _reseeded.append(f"reseeded {label}")
            else:
                _record(where, "", f"reseeded {label}")
        return original(*args, **kwargs)

    setattr(module, attr, seed)


def _reads_training(frame) -> bool:
    """Whether the notebook's code on the stack from ``frame`` out reads a ``.training`` flag (``was =
    model.training``): a bare ``train()`` after its own ``eval()`` is then taken as restoring the mode it found."""
    while frame is not None:
        if in_cell(frame.f_code.co_filename) and "training" in frame.f_code.co_names:
            return True
        frame = frame.f_back
    return False


def _watch_train() -> None:
    """``Module.train(True)`` called inside a call on a module it was given that is already in training mode, before
    anything switched it to evaluation mode, changes nothing here; given a model in evaluation mode it would switch
    dropout on (e.g. ``model.train()`` inside a loss that evaluation also calls). So does a bare ``train()`` after the
    call's own ``eval()`` in code that never reads ``.training`` (``model.eval(); ...; model.train()``: given a model in
    evaluation mode it hands it back in training mode). Recorded as such; ``eval()``, and ``train(was)`` (or
    ``if was: model.train()``) restoring a mode the call itself changed, are not."""
    original = torch.nn.Module.train
    unset = object()

    @functools.wraps(original)
    def train(self, mode: bool = unset):
        global _evaluated
        bare, mode = mode is unset, True if mode is unset else mode
        if _depth and _given:
            arg = next((a for a, m in _given if any(s is self for s in m.modules())), None)
            if arg is not None and not mode and self.training:
                _evaluated = True
            elif arg is not None and mode is True and (not _evaluated and all(m.training for m in self.modules()) or
                                                       _evaluated and bare and not _reads_training(inspect.currentframe().f_back)):
                _record(_current, arg, "called train() on it")
        return original(self, mode)

    torch.nn.Module.train = train


def install() -> None:
    """Before the notebook runs: the global seeding functions record a call from inside the notebook's code, and
    so does ``train()`` on a module a call was given (:func:`_watch_train`); torch's global settings are noted, for
    :func:`restore_globals`."""
    _INITIAL.update(_globals())
    _watch_train()
    _reseeds(torch, "manual_seed", "torch's global random generator (torch.manual_seed)")
    _reseeds(torch.random, "manual_seed", "torch's global random generator (torch.manual_seed)")
    _reseeds(torch, "seed", "torch's global random generator (torch.seed)")
    _reseeds(random, "seed", "Python's random generator (random.seed)")
    # a saved state restored inside the call (torch.random.fork_rng does it on exit): every call draws the same
    restored = "torch's global random generator (torch.set_rng_state: a saved state restored, e.g. by torch.random.fork_rng)"
    _reseeds(torch, "set_rng_state", restored)
    _reseeds(torch.random, "set_rng_state", restored)
    _reseeds(random, "setstate", "Python's random generator (random.setstate: a saved state restored)")
    try:
        import numpy
    except ImportError:
        return
    _reseeds(numpy.random, "seed", "NumPy's global random generator (np.random.seed)")
    _reseeds(numpy.random, "set_state", "NumPy's global random generator (np.random.set_state: a saved state restored)")


def vary(variants) -> None:
    """The variants the next check's calls run again under (op ``seed``: a hidden check's, less its question's
    opt-outs; none for a public check)."""
    global _variants, _spent
    _variants = frozenset(v for v in variants if v in VARIANTS)
    _PRISTINE.clear()
    _varied.clear()
    _kinds.clear()
    _spent = 0.0


def take(record: list | None = None) -> list[dict]:
    """What was broken (or, given ``CALLS``, what was called) since the last call, and a fresh record."""
    record = BROKEN if record is None else record
    found = list(record)
    record.clear()
    return found
