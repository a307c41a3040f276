"""Stand-ins that checks hand to student code keep every promise the notebook makes about the real objects.

Hidden checks often give the student's code a stand-in instead of the real object: an encoder whose final
state is known, a model with given logits, a reference decoder so that one answer does not depend on another.
A stand-in that breaks the interface the notebook documents (a bare tensor where the text promises
``(h, c)``, a model without parameters so that ``next(model.parameters()).device`` raises, a decoder without
the attributes of the real one, float64 where the real model gives float32) makes correct answers written in
another style fail.

This test finds every source that the master's public test cells and the unit's checks module pass to ``define``,
``sandbox.define`` or ``sandbox.swap`` or name with ``nb.standin`` (resolved statically: string constants, names
bound to them in the cell, the function or the module, ``+``, and the definitions of standins.py; in every unit),
executes it next to the master's own graded code (as ``define`` does in the student's kernel), and runs
every stand-in it defines through the interface the notebook documents for the role it plays (the spec's comment
block says which), comparing with the real class: signatures (a call the real method takes, by position or by
name, must work), return structure, shapes, dtypes, state structure, parameters, attributes, in training and eval
mode, with a batch of one (and values, for reference classes named ``_Ref*``, with the real class's weights
loaded). A class without a forward of its own that other stand-ins derive from is a base, not a stand-in; module
classes made inside a function are reached through the spec's factories. Each role's check must accept the
notebook's own objects of that role, so that it asks no more than the notebook promises. A swapped-in
definition must take every call the real one takes (constructor and forward, for a class, and keep its
attributes), or have its type, for data.
No training: a few seconds per notebook. A notebook with stand-ins is covered by adding an interface spec to
``SPECS``.
"""

from __future__ import annotations

import ast
import inspect
import re
import types
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Callable

import pytest
import torch
import torch.nn as nn

from conftest import ROOT, resolve_string as _resolve
from course import check_cells, master_namespace, master_path, unit_names
from grader.checks import Unit


@dataclass
class Definition:
    cell: int | str    # index of the public test cell in the master, or checks.CASE of the checks module
    question: str
    kind: str          # "define" or "swap"
    name: str
    source: str


def _calls(node: ast.AST) -> str | None:
    """'define' for define(...)/sandbox.define(...), 'standin' for nb.standin(...), 'swap' for
    sandbox.swap(...) (also as nb.sandbox), else None."""
    if not isinstance(node, ast.Call):
        return None
    f = node.func
    if isinstance(f, ast.Name) and f.id == "define":
        return "define"
    if not isinstance(f, ast.Attribute):
        return None
    owner = f.value
    if isinstance(owner, ast.Name) and owner.id == "nb" and f.attr == "standin":
        return f.attr
    if isinstance(owner, ast.Attribute) and owner.attr == "sandbox" and isinstance(owner.value, ast.Name) and owner.value.id == "nb":
        owner = ast.Name("sandbox")
    if isinstance(owner, ast.Name) and owner.id == "sandbox" and f.attr in ("define", "swap"):
        return f.attr
    return None


def master_test_cells(notebook: str) -> list[tuple[int, str, str]]:
    """(index among the test cells, question, source) of every public test cell of a master (hidden ones are calls
    into checks.py, read separately)."""
    return [(i, q, src) for i, (q, hidden, src) in enumerate(check_cells(master_path(notebook))) if not hidden]


def _scan(body: list[ast.stmt], strings: dict[str, str], cell: int | str, question: str, standins: Unit,
          found: list[Definition]) -> None:
    strings = dict(strings)
    for stmt in body:   # top-level string assignments, in order (a name may be rebound)
        for node in ast.walk(stmt):
            kind = _calls(node)
            if kind:
                name = _resolve(node.args[0], strings) if node.args else None
                arg = node.args[1] if len(node.args) > 1 else None
                if kind == "standin" or (isinstance(arg, ast.Call) and getattr(arg.func, "id", None) == "standin"):
                    # with the stand-ins it needs (its bases), as Notebook.standin sends it and the build writes it
                    key = name if kind == "standin" else _resolve(arg.args[0], strings)
                    source = "".join(standins.definitions[n] for n in standins.requires(key)) if key in standins.definitions else None
                else:
                    source = _resolve(arg, strings) if arg is not None else None
                found.append(Definition(cell, question, "swap" if kind == "swap" else "define", name or "?", source or ""))
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            value = _resolve(stmt.value, strings)
            if value is not None:
                strings[stmt.targets[0].id] = value


def definitions(notebook: str) -> list[Definition]:
    """Every define/standin/swap of the master's public test cells and of the unit's checks module (its cases and
    helpers), with its source resolved (a test fails on one that cannot be resolved statically: it could not be
    checked). A case's question is its function's name without the case number."""
    unit = ROOT / "units" / notebook
    standins = Unit(types.ModuleType("unused"), (unit / "standins.py").read_text())
    found: list[Definition] = []
    for index, question, text in master_test_cells(notebook):
        _scan(ast.parse(text).body, {}, index, question, standins, found)
    module = ast.parse((unit / "checks.py").read_text())
    strings: dict[str, str] = {}
    for stmt in module.body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            value = _resolve(stmt.value, strings)
            if value is not None:
                strings[stmt.targets[0].id] = value
    for stmt in module.body:
        if isinstance(stmt, ast.FunctionDef):
            _scan(stmt.body, strings, f"checks.{stmt.name}", re.sub(r"_\d+$", "", stmt.name), standins, found)
    return found


notebook_namespace = lru_cache(maxsize=None)(master_namespace)


def execute(notebook: str, d: Definition) -> tuple[dict, dict]:
    """(namespace before, namespace after) executing a definition's source next to the master's code."""
    before = notebook_namespace(notebook)
    env = dict(before)
    exec(compile(d.source, f"<{notebook} cell {d.cell}: {d.name}>", "exec"), env)
    return before, env


def stand_in_classes(before: dict, after: dict) -> list[type]:
    """Module classes a source defines (bound to a new name, or inside a tuple bound to one)."""
    seen, out = set(), []
    for key, value in after.items():
        if key in before and before[key] is value:
            continue
        for v in value if isinstance(value, tuple) else (value,):
            if isinstance(v, type) and issubclass(v, nn.Module) and v not in seen:
                seen.add(v)
                out.append(v)
    return out


def module_classes_in(source: str) -> set[str]:
    """Names of the module classes a source defines, at any depth (also inside a function): classes whose bases
    include a ``...Module`` or another of them."""
    classes = [n for n in ast.walk(ast.parse(source)) if isinstance(n, ast.ClassDef)]
    names: set[str] = set()
    while True:
        new = {c.name for c in classes if c.name not in names and any(
            (b.attr if isinstance(b, ast.Attribute) else getattr(b, "id", "")) in names | {"Module"} for b in c.bases)}
        if not new:
            return names
        names |= new


# -- shared helpers: signatures, tensors, modes ------------------------------------------------------

def _call_problems(new: Callable, real: Callable, optional: bool = True) -> list[str]:
    """The calls of ``real`` that ``new`` would refuse: each parameter of the real one (its optional ones too, unless
    ``optional`` is False) must be accepted at the same position and by the same name, and be optional where the
    real one's is; ``new``'s other parameters must be optional."""
    P = inspect.Parameter
    try:
        mine, theirs = inspect.signature(new).parameters, inspect.signature(real).parameters
    except (TypeError, ValueError):
        return []
    var_pos = any(p.kind is P.VAR_POSITIONAL for p in mine.values())
    var_kw = any(p.kind is P.VAR_KEYWORD for p in mine.values())
    positional = [p for p in mine.values() if p.kind in (P.POSITIONAL_ONLY, P.POSITIONAL_OR_KEYWORD)]
    problems, used = [], set()
    for i, r in enumerate(theirs.values()):
        if r.kind in (P.VAR_POSITIONAL, P.VAR_KEYWORD):
            if not (var_pos if r.kind is P.VAR_POSITIONAL else var_kw):
                problems.append(f"it takes no {r}")
            continue
        if not optional and r.default is not P.empty:
            continue
        n = None
        if r.kind in (P.POSITIONAL_ONLY, P.POSITIONAL_OR_KEYWORD):
            n = positional[i] if i < len(positional) else None
            if n is None and not var_pos:
                problems.append(f"it takes no argument {i} ({r.name})")
            elif n is not None and r.kind is P.POSITIONAL_OR_KEYWORD and (n.name != r.name or n.kind is P.POSITIONAL_ONLY) and not var_kw:
                problems.append(f"argument {i} is named {n.name!r}, not {r.name!r} (a call with {r.name}=... fails)")
        else:
            n = mine.get(r.name)
            if (n is None or n.kind is P.POSITIONAL_ONLY) and not var_kw:
                problems.append(f"it takes no keyword {r.name!r}")
        if n is not None:
            used.add(n.name)
            if r.default is not P.empty and n.default is P.empty and n.kind not in (P.VAR_POSITIONAL, P.VAR_KEYWORD):
                problems.append(f"{n.name} is required, the real one's {r.name} is optional")
    problems += [f"it requires {p.name}, which the real one does not take" for p in mine.values()
                 if p.name not in used and p.default is P.empty and p.kind not in (P.VAR_POSITIONAL, P.VAR_KEYWORD)]
    return problems


def _check_signature(obj: object, real: type, method: str, what: str, optional: bool = True) -> None:
    """obj's method accepts every call of the real class's (``optional=False``: of its required parameters only)."""
    mine = getattr(type(obj), method, None)
    assert callable(mine), f"{what} has no method {method}, as the real {real.__name__} has"
    problems = _call_problems(mine, getattr(real, method), optional)
    assert not problems, f"{what}.{method} refuses calls that the real {real.__name__}.{method} takes: {'; '.join(problems)}"


def _check_parameters(obj: nn.Module, what: str) -> None:
    p = next(obj.parameters(), None)
    assert p is not None, f"{what} has no parameters (next(model.parameters()) raises StopIteration), the real one has"
    assert isinstance(p.device, torch.device)


def _check_tensor(t: object, shape: tuple, what: str, dtype: torch.dtype | None = torch.float32) -> None:
    assert isinstance(t, torch.Tensor), f"{what} must be a tensor, got {type(t).__name__}"
    assert tuple(t.shape) == tuple(shape), f"{what} must have the shape {tuple(shape)}, got {tuple(t.shape)}"
    assert dtype is None or t.dtype == dtype, f"{what} must be {dtype}, as the real one's, got {t.dtype}"


def _modes(model: nn.Module):
    """Puts the model in training mode, then in eval mode, yielding the mode's name each time."""
    for mode in ("train", "eval"):
        getattr(model, mode)()
        yield mode


def _structure(x: object) -> object:
    """Nested types, shapes and dtypes, to compare what two calls return."""
    if isinstance(x, torch.Tensor):
        return "tensor", tuple(x.shape), x.dtype
    if isinstance(x, (tuple, list)):
        return type(x).__name__, tuple(_structure(v) for v in x)
    return type(x).__name__


def _init_params(cls: type) -> list[inspect.Parameter]:
    return list(inspect.signature(cls.__init__).parameters.values())[1:]


def _forward_params(cls: type) -> list[str]:
    return list(inspect.signature(cls.forward).parameters)[1:] if "forward" in dir(cls) else []


def _build(cls: type, **values) -> nn.Module:
    """cls built with each required constructor argument taken by name from ``values``."""
    P = inspect.Parameter
    required = [p for p in _init_params(cls) if p.default is P.empty and p.kind not in (P.VAR_POSITIONAL, P.VAR_KEYWORD)]
    missing = [p.name for p in required if p.name not in values]
    assert not missing, f"cannot build {cls.__name__}: no value for its argument(s) {missing} (add them to the spec's construct)"
    return cls(*[values[p.name] for p in required if p.kind is not P.KEYWORD_ONLY],
               **{p.name: values[p.name] for p in required if p.kind is P.KEYWORD_ONLY})


def _attributes(m: nn.Module) -> set[str]:
    """What code may read on a module: its public instance attributes, parameters, buffers and children."""
    return ({k for k in vars(m) if not k.startswith("_") and k != "training"}
            | set(m._parameters) | set(m._buffers) | set(m._modules))


def _children(real: nn.Module) -> dict[str, type]:
    return {n: type(m) for n, m in real.named_children()}


def _check_attributes(obj: nn.Module, real: nn.Module, what: str) -> None:
    """The real object's children (torch layers: of the same type; the notebook's own classes: any module, checked
    through their own role) and parameters."""
    for name, kind in _children(real).items():
        kind = kind if kind.__module__.startswith("torch.") else nn.Module
        assert isinstance(getattr(obj, name, None), kind), f"{what}: no attribute {name} of type {kind.__name__}, as the real class has"
    _check_parameters(obj, what)


def _ids(low: int, high: int, *shape: int) -> torch.Tensor:
    return torch.randint(low, max(low + 1, high), shape)


def _check_logits_model(model: nn.Module, real: type, C: int, what: str) -> None:
    """A language model called as model(ids (B, T) long) -> logits (B, T, C) float32, differentiable; parameters."""
    _check_signature(model, real, "forward", what)
    _check_parameters(model, what)
    for mode in _modes(model):
        for B, T in ((3, 5), (1, 1)):
            logits = model(_ids(4, C, B, T))
            _check_tensor(logits, (B, T, C), f"{what} ({mode}, B = {B}, T = {T}): the logits")
            assert logits.requires_grad, f"{what}: the logits carry no gradient (the real model's do: the loss is differentiable)"


# -- notebook 01: the interface its text documents ------------------------------------------------
#
# RNN(input_size, hidden_size) and LSTM(input_size, hidden_size), the `layer` of early_gradient_norm (q5: "forward(x)
#   -> (outputs (B, T, H), final state)", "both return the hidden states first"): forward(x (B, T, I)) -> (outputs
#   (B, T, H), h_T (B, H)) for the RNN, (outputs, (h_T, c_T)) each (B, H) for the LSTM; outputs[:, -1] is h_T; the
#   gradient reaches x; parameters (whose requires_grad, like the training mode, early_gradient_norm must leave alone).
# LSTMLanguageModel(vocab_size, emb_size, hidden_size), the `model` of lm_loss (q7): forward(tokens (B, T) long,
#   state=None) -> (logits (B, T, C) float32, (h_T, c_T) each (B, H)), and the returned state can be passed back in;
#   parameters.
# Swapped in (q2, q4, q6): RNNCell, LSTMCell, LSTM with the notebook's constructor, forward and attributes.

I_01, H_01, C_01 = 3, 5, 9


def _roles_01(cls: type) -> str | None:
    init = [p.name for p in _init_params(cls)]
    return "lm" if "vocab_size" in init else "layer" if "input_size" in init else None


def _construct_01(cls: type, role: str, ns: dict) -> list[nn.Module]:
    kinds = ("rnn", "lstm") if "kind" in [p.name for p in _init_params(cls)] else (None,)
    return [_build(cls, kind=k, input_size=I_01, hidden_size=H_01, emb_size=4, vocab_size=C_01) for k in kinds]


def _check_layer_01(layer: nn.Module, ns: dict, what: str) -> None:
    _check_signature(layer, ns["RNN"], "forward", what, optional=False)
    _check_parameters(layer, what)
    for mode in _modes(layer):
        for B, T in ((3, 4), (1, 1)):
            x = torch.randn(B, T, I_01, requires_grad=True)
            with torch.no_grad():
                wants = {_structure(ns[c](I_01, H_01)(x)) for c in ("RNN", "LSTM")}
            res = layer(x)
            assert _structure(res) in wants, f"{what} ({mode}, B = {B}, T = {T}): forward(x) must return what the notebook's RNN or LSTM returns, (outputs (B, T, H), h_T (B, H)) or (outputs, (h_T, c_T)); got {_structure(res)}"
            out, state = res
            assert torch.allclose(out[:, -1], state if isinstance(state, torch.Tensor) else state[0]), f"{what}: outputs[:, -1] must be h_T (the hidden states first)"
            (g,) = torch.autograd.grad(out[:, -1].sum(), x, allow_unused=True)
            assert g is not None, f"{what}: no gradient reaches x (the real layers are differentiable)"


def _check_lm_01(model: nn.Module, ns: dict, what: str) -> None:
    _check_signature(model, ns["LSTMLanguageModel"], "forward", what)
    _check_parameters(model, what)
    for mode in _modes(model):
        for B, T in ((3, 4), (1, 1)):
            tokens = _ids(1, C_01, B, T)
            res = model(tokens)
            assert isinstance(res, tuple) and len(res) == 2, f"{what} ({mode}): forward must return (logits, (h_T, c_T))"
            logits, state = res
            _check_tensor(logits, (B, T, C_01), f"{what} ({mode}, B = {B}): the logits")
            assert type(state) is tuple and len(state) == 2 and all(isinstance(s, torch.Tensor) and s.dim() == 2 and s.size(0) == B for s in state), \
                f"{what} ({mode}, B = {B}): the state must be (h_T, c_T), each (B, H), as the real model returns, got {_structure(state)}"
            again = model(tokens, state)
            _check_tensor(again[0], (B, T, C_01), f"{what} ({mode}, B = {B}): the logits from a given state")


def _real_01(ns: dict) -> dict[str, list[nn.Module]]:
    return {"layer": [ns["RNN"](I_01, H_01), ns["LSTM"](I_01, H_01)], "lm": [ns["LSTMLanguageModel"](C_01, 4, H_01)]}


# -- notebook 02: the interface its text documents ------------------------------------------------
#
# Encoder(vocab_size, emb_size, hidden_size, num_layers, dropout): children embedding (nn.Embedding), dropout
#   (nn.Dropout), rnn (nn.LSTM, batch_first); forward(src (B, S) long, src_len (B,)) -> (outputs (B, S, H),
#   (h, c)), h and c (L, B, H).
# Decoder(...): the same children and out (nn.Linear H -> V); forward(token (B,) long, (h, c)) -> (logits (B, V),
#   (h, c)) of the shapes it was given.
# Seq2Seq(encoder, decoder): children encoder, decoder (each as above); parameters (the notebook's translate uses
#   next(model.parameters()).device); forward(src, src_len, tgt (B, T), teacher_forcing) -> logits (B, T-1, V);
#   model.encoder's state feeds model.decoder (greedy decoding).

def _check_encoder(enc: nn.Module, ns: dict, what: str) -> None:
    real = ns["Encoder"](10, 4, 6, 2)
    _check_attributes(enc, real, what)
    _check_signature(enc, ns["Encoder"], "forward", what)
    assert enc.rnn.batch_first, f"{what}: rnn must be batch_first, as the real encoder's"
    H, L, V = enc.rnn.hidden_size, enc.rnn.num_layers, enc.embedding.num_embeddings
    for B, lengths in ((3, [5, 3, 4]), (1, [4])):
        src = _ids(4, V, B, 5)
        for b, n in enumerate(lengths):
            src[b, n:] = ns["PAD_ID"]
        res = enc(src, torch.tensor(lengths))
        assert isinstance(res, tuple) and len(res) == 2, f"{what}: forward must return (outputs, (h, c))"
        out, state = res
        assert type(state) is tuple and len(state) == 2, f"{what}: the state must be a tuple (h, c), got {type(state).__name__}"
        assert isinstance(out, torch.Tensor) and out.dtype == torch.float32 and tuple(out.shape) == (B, 5, H), f"{what}: outputs must be (B, S, H) float"
        for s in state:
            assert isinstance(s, torch.Tensor) and s.dtype == torch.float32 and tuple(s.shape) == (L, B, H), f"{what}: h and c must be (L, B, H) = {(L, B, H)}, got {tuple(s.shape)}"


def _check_decoder(dec: nn.Module, ns: dict, what: str) -> None:
    real = ns["Decoder"](9, 4, 6, 2)
    _check_attributes(dec, real, what)
    _check_signature(dec, ns["Decoder"], "forward", what)
    assert dec.rnn.batch_first, f"{what}: rnn must be batch_first, as the real decoder's"
    H, L, V = dec.rnn.hidden_size, dec.rnn.num_layers, dec.embedding.num_embeddings
    assert dec.out.out_features == V and dec.out.in_features == H, f"{what}: out must map H -> V (the embedding's vocabulary)"
    for B in (3, 1):
        state = (torch.zeros(L, B, H), torch.zeros(L, B, H))
        res = dec(_ids(2, V, B), state)
        assert isinstance(res, tuple) and len(res) == 2, f"{what}: forward must return (logits, (h, c))"
        logits, new = res
        assert isinstance(logits, torch.Tensor) and logits.dtype == torch.float32 and tuple(logits.shape) == (B, V), f"{what}: logits must be (B, V) = {(B, V)}"
        assert type(new) is tuple and len(new) == 2, f"{what}: the new state must be a tuple (h, c), got {type(new).__name__}"
        assert all(isinstance(s, torch.Tensor) and tuple(s.shape) == (L, B, H) for s in new), f"{what}: h and c must keep the shape (L, B, H)"


def _check_model(model: nn.Module, ns: dict, what: str) -> None:
    real = ns["Seq2Seq"](ns["Encoder"](10, 4, 6), ns["Decoder"](9, 4, 6))
    _check_attributes(model, real, what)
    _check_signature(model, ns["Seq2Seq"], "forward", what)
    _check_encoder(model.encoder, ns, f"{what}.encoder")
    _check_decoder(model.decoder, ns, f"{what}.decoder")
    V_src, V = model.encoder.embedding.num_embeddings, model.decoder.embedding.num_embeddings
    B, S, T = getattr(model, "batch_shape", (2, 4, 5))
    src, src_len, tgt = _ids(4, V_src, B, S), torch.full((B,), S), _ids(4, V, B, T)
    tgt[:, 0] = ns["SOS_ID"]
    for mode in _modes(model):
        logits = model(src, src_len, tgt, 1.0)
        assert isinstance(logits, torch.Tensor) and tuple(logits.shape) == (B, T - 1, V), f"{what} ({mode}): forward must give (B, T-1, V) logits"
    _, state = model.encoder(src, src_len)   # greedy decoding: the encoder's state feeds the decoder
    logits, _ = model.decoder(torch.full((B,), ns["SOS_ID"]), state)
    assert tuple(logits.shape) == (B, V)


def _roles_02(cls: type) -> str | None:
    name = cls.__name__
    if name.endswith("Encoder"):
        return "encoder"
    if name.endswith("Decoder"):
        return "decoder"
    if [p.name for p in _init_params(cls)][:2] == ["encoder", "decoder"] or hasattr(cls, "encoder") or name.endswith(("Stub", "Model", "Logits")):
        return "model"
    return None


def _construct_02(cls: type, role: str, ns: dict) -> nn.Module:
    """A stand-in built as its check builds it: no arguments, the real class's, or (model) from stand-ins."""
    if role == "model" and "logits" in inspect.signature(cls.__init__).parameters:
        m = cls(torch.randn(2, 4, 9))
        m.batch_shape = (2, 3, 5)
        return m
    for args in ((), (10, 4, 6, 2) if role == "encoder" else (9, 4, 6, 2) if role == "decoder" else
                 (ns["Encoder"](10, 4, 6), ns["Decoder"](9, 4, 6))):
        try:
            return cls(*args)
        except TypeError:
            continue
    raise AssertionError(f"cannot build {cls.__name__} with no arguments or the real class's arguments")


def _same_values_02(cls: type, role: str, ns: dict) -> None:
    """A reference class (named _Ref*) given the real class's weights computes what the real class computes."""
    torch.manual_seed(0)
    src, src_len = torch.tensor([[2, 5, 6, 3, 0], [2, 7, 3, 0, 0]]), torch.tensor([4, 3])
    tgt = torch.tensor([[2, 5, 6, 7, 3], [2, 4, 3, 0, 0]])
    if role == "encoder":
        real, ref = ns["Encoder"](10, 4, 6, 2), cls(10, 4, 6, 2)
        ref.load_state_dict(real.state_dict())
        got, want = ref.eval()(src, src_len), real.eval()(src, src_len)
        pairs = [(got[0], want[0]), (got[1][0], want[1][0]), (got[1][1], want[1][1])]
    elif role == "decoder":
        real, ref = ns["Decoder"](9, 4, 6, 2), cls(9, 4, 6, 2)
        ref.load_state_dict(real.state_dict())
        state = (torch.randn(2, 2, 6), torch.randn(2, 2, 6))
        got, want = ref.eval()(tgt[:, 1], state), real.eval()(tgt[:, 1], state)
        pairs = [(got[0], want[0]), (got[1][0], want[1][0]), (got[1][1], want[1][1])]
    else:
        real = ns["Seq2Seq"](ns["Encoder"](10, 4, 6), ns["Decoder"](9, 4, 6))
        ref = cls(ns["Encoder"](10, 4, 6), ns["Decoder"](9, 4, 6))
        ref.load_state_dict(real.state_dict())
        pairs = [(ref.eval()(src, src_len, tgt, 1.0), real.eval()(src, src_len, tgt, 1.0))]
    for g, w in pairs:
        assert torch.allclose(g, w, atol=1e-6), f"{cls.__name__} with the real {role}'s weights computes something else"


def _real_02(ns: dict) -> dict[str, list[nn.Module]]:
    return {"encoder": [ns["Encoder"](10, 4, 6, 2)], "decoder": [ns["Decoder"](9, 4, 6, 2)],
            "model": [ns["Seq2Seq"](ns["Encoder"](10, 4, 6), ns["Decoder"](9, 4, 6))]}


# -- notebook 03: the interface its text documents ------------------------------------------------
#
# DotScore() / GeneralScore(d_q, d_k) / AdditiveScore(d_q, d_k, d_a), the `score` of attention (q4) and the decoder's
#   self.score (q5): a module called as score(query (B, d_q), keys (B, S, d_k)) (forward's names: query, keys) ->
#   raw scores (B, S) float32, leaving query and keys as they were; DotScore has no parameters, so none are promised.
# Seq2SeqAttention, the `model` of beam_search (q7) and seqcourse.greedy_search / translate, through the decoding
#   interface of section 5: start(src (B, S) long, src_len (B,)) -> state, a dict of tensors, each with the batch
#   first; step(tokens (N,) long, state) -> (log_probs (N, C), the new state: a dict of tensors with N rows).
#   log_probs are log-probabilities in float32, as the real model's (F.log_softmax of float32 logits): a search may
#   write them into tensors it made itself (index_put, scatter, masked_scatter want the same dtype). A search
#   repeats, drops and reorders rows of every state tensor with index_select(0, rows), and step on the selected rows
#   gives the selected rows of log_probs. Parameters (translate reads next(model.parameters()).device); train()/eval().

C_03, D_03 = 8, 4


def _roles_03(cls: type) -> str | None:
    if callable(getattr(cls, "start", None)) and callable(getattr(cls, "step", None)):
        return "search"
    return "score" if len(_forward_params(cls)) == 2 else None


def _construct_03(cls: type, role: str, ns: dict) -> list[nn.Module]:
    if "scores" in [p.name for p in _init_params(cls)]:   # a score that returns given scores: checked at their shapes
        built = []
        for B, S in ((3, 5), (1, 1)):
            built.append(cls(torch.randn(B, S)))
            built[-1].batch_shape = (B, S)
        return built
    SOS, EOS = ns["SOS_ID"], ns["EOS_ID"]
    return [_build(cls, batch=4, vocab=C_03, seed=0, rows={SOS: {4: 2.0, EOS: 1.0}, 4: {5: 1.0, EOS: 0.5}})]


def _check_score_03(score: nn.Module, ns: dict, what: str) -> None:
    _check_signature(score, ns["DotScore"], "forward", what)
    shapes = [score.batch_shape] if hasattr(score, "batch_shape") else [(3, 5), (1, 1)]
    for mode in _modes(score):
        for B, S in shapes:
            query, keys = torch.randn(B, D_03), torch.randn(B, S, D_03)
            q0, k0 = query.clone(), keys.clone()
            _check_tensor(score(query, keys), (B, S), f"{what} ({mode}, B = {B}, S = {S}): the scores")
            assert torch.equal(query, q0) and torch.equal(keys, k0), f"{what}: the score changed the query or the keys in place"


def _src_03(ns: dict, lengths: list[int]) -> tuple[torch.Tensor, torch.Tensor]:
    """src (B, S) whose first token tells the sentences apart (as the notebook's checks make it), padded; lengths."""
    src = torch.full((len(lengths), max(lengths)), 5, dtype=torch.long)
    src[:, 0] = torch.arange(len(lengths))
    for b, n in enumerate(lengths):
        src[b, n:] = ns["PAD_ID"]
    return src, torch.tensor(lengths)


def _check_state_03(state: object, N: int, what: str) -> None:
    assert isinstance(state, dict), f"{what} must be a dict of tensors, got {type(state).__name__}"
    bad = [k for k, v in state.items() if not (isinstance(v, torch.Tensor) and v.dim() >= 1 and v.size(0) == N)]
    assert not bad, f"{what}: every tensor of the state must have the batch first ({N} rows); {bad} do not"


def _check_search_03(model: nn.Module, ns: dict, what: str) -> None:
    real = ns["Seq2SeqAttention"]
    for method in ("start", "step"):
        _check_signature(model, real, method, what)
    _check_parameters(model, what)
    K = 2
    with torch.no_grad():
        for mode in _modes(model):
            for lengths in ([2, 4, 3], [3]):
                B, N = len(lengths), K * len(lengths)
                state = model.start(*_src_03(ns, lengths))
                _check_state_03(state, B, f"{what}.start ({mode}, B = {B})")
                rows = torch.arange(B).repeat_interleave(K)                 # each sentence K times, as a beam does
                state, tokens = {k: v.index_select(0, rows) for k, v in state.items()}, torch.full((N,), ns["SOS_ID"])
                for _ in range(2):
                    res = model.step(tokens, state)
                    assert isinstance(res, tuple) and len(res) == 2, f"{what}.step must return (log_probs, state)"
                    log_probs, new = res
                    _check_tensor(log_probs, (N, C_03), f"{what}.step ({mode}, N = {N}): log_probs")
                    assert torch.allclose(log_probs.double().logsumexp(-1), torch.zeros(N, dtype=torch.float64), atol=1e-4), \
                        f"{what}.step: log_probs must be log-probabilities (each row's logsumexp 0)"
                    _check_state_03(new, N, f"{what}.step ({mode}, N = {N})")
                    order = torch.arange(N).flip(0)[:max(1, N - 1)]          # rows reordered and one dropped, as a search does
                    again, _ = model.step(tokens[order], {k: v.index_select(0, order) for k, v in state.items()})
                    assert torch.allclose(again, log_probs[order], atol=1e-5), f"{what}.step on reordered (or dropped) state rows must give those rows of log_probs"
                    state, tokens = new, log_probs.argmax(-1)


def _real_03(ns: dict) -> dict[str, list[nn.Module]]:
    return {"score": [ns["DotScore"](), ns["DotScore"](scaled=True), ns["GeneralScore"](D_03, D_03), ns["AdditiveScore"](D_03, D_03, 6)],
            "search": [ns["Seq2SeqAttention"](ns["Encoder"](10, 4, 3, 6), ns["AttentionDecoder"](C_03, 4, 6, 6, ns["DotScore"]()))]}


# -- notebook 04: the interface its text documents ------------------------------------------------
#
# MultiHeadAttention(d_model, n_heads), the self_attn and cross_attn that EncoderLayer and DecoderLayer call (q5, q6)
#   and the `attn` of cached_self_attention (q9, which uses attn.W_q, W_k, W_v, W_o, split_heads, merge_heads and
#   stores attn.weights): h = n_h, d_k = d_model / n_h; W_q, W_k, W_v, W_o nn.Linear(d_model, d_model) with biases;
#   split_heads (B, n, d_model) -> (B, n_h, n, d_k) and merge_heads back; forward(query (B, T, d_model), key and value
#   (B, S, d_model), mask=None: bool, broadcastable to (B, n_h, T, S), (B, 1, 1, S) padding or (T, T) causal) ->
#   (B, T, d_model), after which self.weights holds the weights (B, n_h, T, S); parameters.
# FeedForward(d_model, d_ff), DecoderLayer's ff (q6): linear1 nn.Linear(d_model, d_ff), linear2 nn.Linear(d_ff,
#   d_model); forward(x (B, n, d_model)) -> (B, n, d_model).
# _Ref* stand-ins compute what the notebook's classes compute, with the same parameter names.

D_04, H_04, F_04 = 12, 3, 24


def _roles_04(cls: type) -> str | None:
    if "d_ff" in [p.name for p in _init_params(cls)]:
        return "ff"
    return "mha" if hasattr(cls, "split_heads") or len(_forward_params(cls)) >= 3 else None


def _construct_04(cls: type, role: str, ns: dict) -> list[nn.Module]:
    return [_build(cls, d=D_04, d_model=D_04, h=H_04, n_heads=H_04, d_ff=F_04)]


def _masks_04(B: int, T: int, S: int) -> list[torch.Tensor | None]:
    pad = torch.ones(B, 1, 1, S, dtype=torch.bool)
    pad[0, ..., S // 2 + 1:] = False
    return [None, pad]


def _check_mha_04(attn: nn.Module, ns: dict, what: str) -> None:
    real = ns["MultiHeadAttention"]
    for method in ("forward", "split_heads", "merge_heads"):
        _check_signature(attn, real, method, what)
    assert getattr(attn, "h", None) == H_04 and getattr(attn, "d_k", None) == D_04 // H_04, f"{what}: h and d_k must be n_h and d_model / n_h, as the real class's"
    for name in ("W_q", "W_k", "W_v", "W_o"):
        lin = getattr(attn, name, None)
        assert isinstance(lin, nn.Linear) and (lin.in_features, lin.out_features) == (D_04, D_04) and lin.bias is not None, \
            f"{what}: {name} must be an nn.Linear(d_model, d_model) with a bias, as the real class's"
    _check_parameters(attn, what)
    for mode in _modes(attn):
        for B, T, S in ((2, 4, 5), (1, 1, 3)):
            x, mem = torch.randn(B, T, D_04), torch.randn(B, S, D_04)
            calls = [((x, mem, mem, m), S) for m in _masks_04(B, T, S)] + [((x, x, x, torch.ones(T, T, dtype=torch.bool).tril()), T)]
            for args, n in calls:
                _check_tensor(attn(*args), (B, T, D_04), f"{what} ({mode}, B = {B}, T = {T}): forward")
                w = attn.weights
                _check_tensor(w, (B, H_04, T, n), f"{what} ({mode}): self.weights after forward")
                assert torch.allclose(w.sum(-1), torch.ones(B, H_04, T), atol=1e-5), f"{what}: each row of self.weights must sum to 1"
                if args[3] is not None:
                    assert bool((w.masked_fill(args[3], 0.0) == 0).all()), f"{what}: masked keys must get weight 0"
            heads = attn.split_heads(mem)
            _check_tensor(heads, (B, H_04, S, D_04 // H_04), f"{what}: split_heads")
            assert torch.equal(attn.merge_heads(heads), mem), f"{what}: merge_heads must undo split_heads"


def _check_ff_04(ff: nn.Module, ns: dict, what: str) -> None:
    _check_signature(ff, ns["FeedForward"], "forward", what)
    for name, shape in (("linear1", (D_04, F_04)), ("linear2", (F_04, D_04))):
        lin = getattr(ff, name, None)
        assert isinstance(lin, nn.Linear) and (lin.in_features, lin.out_features) == shape, f"{what}: {name} must be an nn.Linear{shape}, as the real class's"
    for mode in _modes(ff):
        for shape in ((3, 6, D_04), (1, 1, D_04)):
            _check_tensor(ff(torch.randn(*shape)), shape, f"{what} ({mode}): forward")


def _same_values_04(cls: type, role: str, ns: dict) -> None:
    """A reference class (named _Ref*), with the real class's weights under the real names, computes what it computes."""
    torch.manual_seed(0)
    real = ns["MultiHeadAttention"](D_04, H_04) if role == "mha" else ns["FeedForward"](D_04, F_04)
    ref = _construct_04(cls, role, ns)[0]
    ref.load_state_dict(real.state_dict())
    ref.eval()
    real.eval()
    if role == "ff":
        x = torch.randn(2, 5, D_04)
        pairs = [(ref(x), real(x))]
    else:
        x, mem = torch.randn(2, 4, D_04), torch.randn(2, 5, D_04)
        heads = real.split_heads(mem)
        pairs = [(ref.split_heads(mem), heads), (ref.merge_heads(heads), real.merge_heads(heads))]
        for args in [(x, mem, mem, m) for m in _masks_04(2, 4, 5)] + [(x, x, x, torch.ones(4, 4, dtype=torch.bool).tril())]:
            pairs += [(ref(*args), real(*args)), (ref.weights, real.weights)]
    for g, w in pairs:
        assert torch.allclose(g, w, atol=1e-6), f"{cls.__name__} with the real {role}'s weights computes something else"


def _real_04(ns: dict) -> dict[str, list[nn.Module]]:
    return {"mha": [ns["MultiHeadAttention"](D_04, H_04)], "ff": [ns["FeedForward"](D_04, F_04)]}


# -- notebook 06: the interface its text documents ------------------------------------------------
#
# GPT(vocab_size, d_model, ...), the `model` of next_token_nll (q3: "logits (B, T-1, C) from model(ids[:, :-1])",
#   "Differentiable"): forward(ids (B, T) long) -> raw logits (B, T, C) float32 that carry gradient; parameters.
# Block(d_model, n_heads, d_ff, dropout), the items of GPT.blocks that q2's checks replace with stand-ins made by
#   _affine: forward(x (B, T, d_model)) -> (B, T, d_model).
# Swapped in (q2, q8): Block with the notebook's constructor, forward and attributes.

C_06, D_06 = 9, 8


def _roles_06(cls: type) -> str | None:
    if "vocab_size" in [p.name for p in _init_params(cls)]:
        return "lm"
    return "block" if len(_forward_params(cls)) == 1 else None


def _construct_06(cls: type, role: str, ns: dict) -> list[nn.Module]:
    return [_build(cls, vocab_size=C_06, d_model=D_06, n_heads=2, d_ff=16)]


def _check_lm_06(model: nn.Module, ns: dict, what: str) -> None:
    _check_logits_model(model, ns["GPT"], C_06, what)


def _check_block_06(block: nn.Module, ns: dict, what: str) -> None:
    _check_signature(block, ns["Block"], "forward", what)
    for mode in _modes(block):
        for B, T in ((2, 5), (1, 1)):
            _check_tensor(block(torch.randn(B, T, D_06)), (B, T, D_06), f"{what} ({mode}, B = {B}, T = {T}): forward")


def _real_06(ns: dict) -> dict[str, list[nn.Module]]:
    return {"lm": [ns["GPT"](C_06, d_model=D_06, n_heads=2, n_layers=1, d_ff=16, max_len=8)], "block": [ns["Block"](D_06, 2, 16)]}


# -- notebook 07: the interface its text documents ------------------------------------------------
#
# MLMModel(encoder), the `model` of mlm_loss (q5: "model: (B, T) ids -> (B, T, C) logits"): forward(ids (B, T) long)
#   -> logits (B, T, C) float32 that carry gradient (the loss is differentiable); parameters, train()/eval().

C_07 = 20


def _roles_07(cls: type) -> str | None:
    return "mlm" if len(_forward_params(cls)) == 1 else None


def _construct_07(cls: type, role: str, ns: dict) -> list[nn.Module]:
    return [_build(cls, V=C_07, vocab_size=C_07)]


def _check_mlm_07(model: nn.Module, ns: dict, what: str) -> None:
    _check_logits_model(model, ns["MLMModel"], C_07, what)


def _real_07(ns: dict) -> dict[str, list[nn.Module]]:
    return {"mlm": [ns["MLMModel"](ns["Encoder"](C_07, d_model=8, n_heads=2, n_layers=1, d_ff=16, max_len=16))]}


# -- the specs ---------------------------------------------------------------------------------------
#
# 05_subwords has no spec: its checks define helper functions only, no module classes, and swap nothing.

@dataclass
class Spec:
    role: Callable[[type], str | None]                              # a stand-in class's role (None: unknown)
    construct: Callable[[type, str, dict], nn.Module | list[nn.Module]]   # built as its checks build it
    check: dict[str, Callable[[nn.Module, dict, str], None]]        # the documented interface, per role
    real: Callable[[dict], dict[str, list[nn.Module]]]              # the notebook's own objects of each role
    same_values: Callable[[type, str, dict], None] | None = None     # for reference classes (_Ref*)
    questions: set[str] = field(default_factory=set)                 # questions whose checks must define stand-ins
    factories: dict[str, Callable[[Callable], list[nn.Module]]] = field(default_factory=dict)   # defined functions that make stand-ins
    swap_args: dict[str, tuple] = field(default_factory=dict)        # constructor arguments of swapped classes


SPECS = {
    "01_rnn_lstm": Spec(_roles_01, _construct_01, {"layer": _check_layer_01, "lm": _check_lm_01}, _real_01,
                        questions={"q5_early_grad", "q7_lm_loss"},
                        swap_args={"RNNCell": (I_01, H_01), "LSTMCell": (I_01, H_01), "LSTM": (I_01, H_01)}),
    "02_seq2seq": Spec(_roles_02, _construct_02, {"encoder": _check_encoder, "decoder": _check_decoder, "model": _check_model},
                       _real_02, _same_values_02, {"q3_seq2seq", "q4_loss", "q5_greedy", "q6_translate"}),
    "03_attention": Spec(_roles_03, _construct_03, {"score": _check_score_03, "search": _check_search_03}, _real_03,
                         questions={"q4_attention", "q5_decoder", "q7_beam_search"}),
    "04_transformer": Spec(_roles_04, _construct_04, {"mha": _check_mha_04, "ff": _check_ff_04}, _real_04, _same_values_04,
                           {"q5_encoder_layer", "q6_decoder_layer", "q9_kv_cache"}),
    "06_gpt": Spec(_roles_06, _construct_06, {"lm": _check_lm_06, "block": _check_block_06}, _real_06, questions={"q2_gpt", "q3_nll"},
                   factories={"_affine": lambda make: list(make([2.0, -0.5], [torch.zeros(D_06), torch.ones(D_06)]))},
                   swap_args={"Block": (D_06, 2, 16)}),
    "07_bert_cola": Spec(_roles_07, _construct_07, {"mlm": _check_mlm_07}, _real_07, questions={"q5_mlm_loss"}),
    # 08's checks define no stand-in modules; question 8 swaps in reference parts of the decoder
    "08_modern_decoder": Spec(lambda cls: None, lambda cls, role, ns: [], {}, lambda ns: {},
                              swap_args={"RMSNorm": (8,), "SwiGLU": (8, 12), "GroupedQueryAttention": (8, 4, 2)}),
}
MASTERS = unit_names()
DEFINITIONS = {nb: definitions(nb) for nb in MASTERS}


def _id(v: object) -> str:
    return v if isinstance(v, str) else f"cell{v.cell}-{v.question}-{v.name}" if isinstance(v, Definition) else "none"


@pytest.mark.parametrize("nb", MASTERS)
def test_every_define_is_resolved_statically(nb):
    unresolved = [f"cell {d.cell} ({d.question}): {d.kind} {d.name}" for d in DEFINITIONS[nb] if not d.source or d.name == "?"]
    assert not unresolved, "sources that this test cannot read (pass string constants, or names bound to them):\n" + "\n".join(unresolved)
    if nb in SPECS:
        assert SPECS[nb].questions <= {d.question for d in DEFINITIONS[nb]}


@pytest.mark.parametrize("nb, d", [(nb, d) for nb in sorted(SPECS) for d in DEFINITIONS[nb] if d.kind == "define"], ids=_id)
def test_stand_ins_keep_the_documented_interface(nb, d):
    spec = SPECS[nb]
    before, after = execute(nb, d)
    assert d.name in after, f"the source does not bind {d.name}"
    torch.manual_seed(0)
    classes = stand_in_classes(before, after)
    found = [(cls, None) for cls in classes]
    for name, make in spec.factories.items():
        if name in after and after[name] is not before.get(name):
            found += [(type(obj), obj) for obj in make(after[name])]
    for cls, obj in found:
        if obj is None and "forward" not in vars(cls) and any(c is not cls and issubclass(c, cls) for c in classes):
            continue   # a base that stand-ins derive from (the real class's layers), not a stand-in itself
        role = spec.role(cls)
        assert role in spec.check, f"{cls.__name__} (cell {d.cell}): a stand-in whose role this test does not know; add it to the spec"
        built = [obj] if obj is not None else spec.construct(cls, role, before)
        for o in built if isinstance(built, list) else [built]:
            spec.check[role](o, before, f"{cls.__name__} (cell {d.cell}, {d.question})")
        if cls.__name__.startswith("_Ref"):
            assert spec.same_values is not None, f"{cls.__name__}: a reference class; give the spec a same_values"
            spec.same_values(cls, role, before)
    unreached = module_classes_in(d.source) - {cls.__name__ for cls, _ in found}
    assert not unreached, f"cell {d.cell}: {d.name} defines module classes {sorted(unreached)} that this test cannot build (made inside a function?): add a factory to the spec"


@pytest.mark.parametrize("nb, role", [(nb, role) for nb in sorted(SPECS) for role in SPECS[nb].check], ids=_id)
def test_the_checks_accept_the_notebooks_own_objects(nb, role):
    """A check asks no more than the notebook's real objects of that role give."""
    ns = notebook_namespace(nb)
    torch.manual_seed(0)
    objects = SPECS[nb].real(ns)[role]
    assert objects, f"no real object for the role {role}"
    for obj in objects:
        SPECS[nb].check[role](obj, ns, f"the notebook's {type(obj).__name__}")


@pytest.mark.parametrize("nb, d", [(nb, d) for nb in MASTERS for d in DEFINITIONS[nb] if d.kind == "swap"]
                         or [pytest.param(None, None, marks=pytest.mark.skip(reason="no sandbox.swap in these notebooks"))], ids=_id)
def test_swapped_definitions_keep_the_real_signature(nb, d):
    before, after = execute(nb, d)
    real, swapped = before[d.name], after[d.name]
    what = f"{d.name} swapped in cell {d.cell} ({d.question})"
    if isinstance(real, type) and issubclass(real, nn.Module):
        assert isinstance(swapped, type) and issubclass(swapped, nn.Module), f"{what} is not a module class, as the notebook's"
        for method in ("__init__", "forward"):
            problems = _call_problems(getattr(swapped, method), getattr(real, method))
            assert not problems, f"{what}: its {method} refuses calls that the notebook's takes: {'; '.join(problems)}"
        args = SPECS[nb].swap_args.get(d.name) if nb in SPECS else None
        assert args is not None, f"{what}: give the spec's swap_args the arguments to build it"
        torch.manual_seed(0)
        missing = sorted(_attributes(real(*args)) - _attributes(swapped(*args)))
        assert not missing, f"{what} lacks the attributes {missing} of the notebook's {d.name}"
    elif callable(real):
        problems = _call_problems(swapped, real)
        assert not problems, f"{what} refuses calls that the notebook's takes: {'; '.join(problems)}"
    else:
        assert type(swapped) is type(real), f"{what} is a {type(swapped).__name__}, the notebook's a {type(real).__name__}"
