"""The contract every call into a student's code keeps unless its question says otherwise, checked on every call
(runs in the sandbox beside runner.py, which installs it before the notebook runs and wraps the notebook's own
functions and classes once its cells have run).

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

import functools
import inspect
import random
import sys

import torch

BROKEN: list[dict] = []  # since the last reset: {"function": ..., "argument": ..., "what": ...}
_given: list[tuple[str, torch.nn.Module]] = []  # the outermost call's (argument, module) pairs, while it runs
_evaluated = False  # whether the outermost call has switched one of them to evaluation mode
_current = ""  # the outermost call's function
_reseeded: list[str] | None = None  # while a call given its own seed or generator runs: its reseeds, judged at its end
CALLS: list[dict] = []  # since the last reset: {"function": ..., "argument": ..., "training": ...} (modules given)
_depth = 0
_MARK = "__course_contract__"


def is_notebook_code(obj) -> bool:
    """A function (or a class with a method) written in one of the notebook's cells, decorated or not (a
    ``@torch.no_grad()`` function is torch's wrapper around the notebook's)."""
    if inspect.isfunction(obj):
        try:
            obj = inspect.unwrap(obj)
        except ValueError:  # a cycle of __wrapped__
            return False
        return inspect.isfunction(obj) and "ipython-input" in obj.__code__.co_filename
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


def _random_states() -> tuple:
    """Every global generator's state (NumPy's where the notebook imported it)."""
    numpy = sys.modules.get("numpy")
    state = numpy.random.get_state() if numpy is not None else None
    return (torch.get_rng_state(), random.getstate(),
            None if state is None else (state[0], state[1].tobytes(), *state[2:]))


def _same_random_states(a: tuple, b: tuple) -> bool:
    return torch.equal(a[0], b[0]) and a[1:] == b[1:]


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


def _record(function: str, argument: str, what: str) -> None:
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
            _reseeded, states = [], _random_states()
        _current, _given[:] = name, [(a, v) for a, v in named if isinstance(v, torch.nn.Module) and not (owner is not None and a == "self")]
        for arg, module in _given or [(None, None)]:  # a call given no module is recorded too: it kept the contract
            entry = {"function": name, "argument": arg, "training": None if module is None else module.training}
            if entry not in CALLS and len(CALLS) < 50:
                CALLS.append(entry)
        _depth += 1
        try:
            return fn(*args, **kwargs)
        finally:
            _depth -= 1
            _given.clear()
            _evaluated = False
            if _reseeded is not None:
                if _reseeded and not _same_random_states(states, _random_states()):
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

    setattr(call, _MARK, True)
    return call


def wrap_class(cls: type) -> None:
    """The notebook's class: its instances' calls (a module's forward), constructor and public methods, checked."""
    if vars(cls).get(_MARK):
        return
    for attr, value in list(vars(cls).items()):
        if inspect.isfunction(value) and is_notebook_code(value) and (attr == "__init__" or not attr.startswith("_")):
            setattr(cls, attr, checked(value, f"{cls.__name__}.{attr}", cls))
    if callable(getattr(cls, "__call__", None)) and issubclass(cls, torch.nn.Module):
        setattr(cls, "__call__", checked(torch.nn.Module.__call__, cls.__name__, cls, like=getattr(cls, "forward", None)))
    setattr(cls, _MARK, True)


def wrap_namespace(ns: dict) -> None:
    """Every function and class the notebook's cells defined, checked (stand-ins and imports are not)."""
    for name, value in list(ns.items()):
        if name.startswith("_") or not is_notebook_code(value):
            continue
        if isinstance(value, type):
            wrap_class(value)
        elif inspect.isfunction(value):
            ns[name] = checked(value, name)


def _reseeds(module, attr: str, label: str) -> None:
    original = getattr(module, attr)

    @functools.wraps(original)
    def seed(*args, **kwargs):
        if _depth:
            frame = inspect.currentframe().f_back
            where = frame.f_code.co_name if frame is not None and "ipython-input" in frame.f_code.co_filename else "your code"
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
        if "ipython-input" in frame.f_code.co_filename and "training" in frame.f_code.co_names:
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


def take(record: list | None = None) -> list[dict]:
    """What was broken (or, given ``CALLS``, what was called) since the last call, and a fresh record."""
    record = BROKEN if record is None else record
    found = list(record)
    record.clear()
    return found
