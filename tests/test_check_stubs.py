"""Stand-ins that checks hand to student code keep every promise the notebook makes about the real objects.

Hidden checks often give the student's code a stand-in instead of the real object: an encoder whose final
state is known, a model with given logits, a reference decoder so that one answer does not depend on another.
A stand-in that breaks the interface the notebook documents (a bare tensor where the text promises
``(h, c)``, a model without parameters so that ``next(model.parameters()).device`` raises, a decoder without
the attributes of the real one) makes correct answers written in another style fail.

This test finds every source that the master's test cells pass to ``define``, ``sandbox.define`` or
``sandbox.swap`` (resolved statically: string constants, names bound to them in the cell, and ``+``),
executes it next to the master's own graded code (as ``define`` does in the student's kernel), and runs
every stand-in it defines through the documented interface, comparing with the real class: types, state
structure, shapes, parameters, attributes (and values, for reference classes named ``_Ref*``, with the real
class's weights loaded). A class without a forward of its own that other stand-ins derive from is a base, not
a stand-in. A swapped-in definition must keep the real one's signature (or type, for data).
No training: a few seconds per notebook. A notebook is covered by adding an interface spec to ``SPECS``.
"""

from __future__ import annotations

import ast
import inspect
import json
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Callable

import pytest
import torch
import torch.nn as nn

from conftest import ROOT
from course import graded_cells


@dataclass
class Definition:
    cell: int          # index of the test cell in the master
    question: str
    kind: str          # "define" or "swap"
    name: str
    source: str


def _resolve(node: ast.AST, strings: dict[str, str]) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.Name):
        return strings.get(node.id)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _resolve(node.left, strings), _resolve(node.right, strings)
        return None if left is None or right is None else left + right
    return None


def _calls(node: ast.AST) -> str | None:
    """'define' for define(...)/sandbox.define(...), 'swap' for sandbox.swap(...), else None."""
    if not isinstance(node, ast.Call):
        return None
    f = node.func
    if isinstance(f, ast.Name) and f.id == "define":
        return "define"
    if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id == "sandbox" and f.attr in ("define", "swap"):
        return f.attr
    return None


def master_test_cells(notebook: str) -> list[tuple[int, str, str]]:
    """(cell index, question, source) of every test cell of a master."""
    cells = json.loads((ROOT / "solutions" / f"{notebook}.ipynb").read_text())["cells"]
    found, question, in_tests = [], "", False
    for i, cell in enumerate(cells):
        text = "".join(cell["source"])
        if cell["cell_type"] == "raw":
            first = text.strip().splitlines()[0].strip() if text.strip() else ""
            if first == "# BEGIN QUESTION":
                question = next(l.split(":", 1)[1].strip() for l in text.splitlines() if l.startswith("name:"))
            in_tests = {"# BEGIN TESTS": True, "# END TESTS": False}.get(first, in_tests)
        elif cell["cell_type"] == "code" and in_tests:
            found.append((i, question, text))
    return found


def definitions(notebook: str) -> list[Definition]:
    """Every define/swap of the master's test cells, with its source resolved (a test fails on one that
    cannot be resolved statically: it could not be checked)."""
    found = []
    for index, question, text in master_test_cells(notebook):
        tree = ast.parse(text)
        strings: dict[str, str] = {}
        for stmt in tree.body:   # top-level string assignments, in order (a name may be rebound)
            for node in ast.walk(stmt):
                kind = _calls(node)
                if kind:
                    name = _resolve(node.args[0], strings) if node.args else None
                    source = _resolve(node.args[1], strings) if len(node.args) > 1 else None
                    found.append(Definition(index, question, kind, name or "?", source if source is not None else ""))
            if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
                value = _resolve(stmt.value, strings)
                if value is not None:
                    strings[stmt.targets[0].id] = value
    return found


@lru_cache(maxsize=None)
def notebook_namespace(notebook: str) -> dict:
    """The master's graded code executed (what the notebook's namespace holds when checks run)."""
    env: dict = {"__name__": f"master_{notebook}"}
    for _, _, source in graded_cells(ROOT / "solutions" / f"{notebook}.ipynb"):
        exec(compile(source, f"<{notebook}>", "exec"), env)
    return env


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

def _children(real: nn.Module) -> dict[str, type]:
    return {n: type(m) for n, m in real.named_children()}


def _check_attributes(obj: nn.Module, real: nn.Module, what: str) -> None:
    """The real object's children (torch layers: of the same type; the notebook's own classes: any module, checked
    through their own role) and parameters."""
    for name, kind in _children(real).items():
        kind = kind if kind.__module__.startswith("torch.") else nn.Module
        assert isinstance(getattr(obj, name, None), kind), f"{what}: no attribute {name} of type {kind.__name__}, as the real class has"
    assert next(obj.parameters(), None) is not None, f"{what} has no parameters (next(model.parameters()) raises StopIteration)"


def _ids(low: int, high: int, *shape: int) -> torch.Tensor:
    return torch.randint(low, max(low + 1, high), shape)


def _check_encoder(enc: nn.Module, ns: dict, what: str) -> None:
    real = ns["Encoder"](10, 4, 6, 2)
    _check_attributes(enc, real, what)
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
    assert isinstance(next(model.parameters()).device, torch.device)
    _check_encoder(model.encoder, ns, f"{what}.encoder")
    _check_decoder(model.decoder, ns, f"{what}.decoder")
    V_src, V = model.encoder.embedding.num_embeddings, model.decoder.embedding.num_embeddings
    B, S, T = getattr(model, "batch_shape", (2, 4, 5))
    src, src_len, tgt = _ids(4, V_src, B, S), torch.full((B,), S), _ids(4, V, B, T)
    tgt[:, 0] = ns["SOS_ID"]
    for mode in (model.train, model.eval):
        mode()
        logits = model(src, src_len, tgt, 1.0)
        assert isinstance(logits, torch.Tensor) and tuple(logits.shape) == (B, T - 1, V), f"{what}: forward must give (B, T-1, V) logits"
    _, state = model.encoder(src, src_len)   # greedy decoding: the encoder's state feeds the decoder
    logits, _ = model.decoder(torch.full((B,), ns["SOS_ID"]), state)
    assert tuple(logits.shape) == (B, V)


def _roles_02(cls: type) -> str | None:
    name = cls.__name__
    if name.endswith("Encoder"):
        return "encoder"
    if name.endswith("Decoder"):
        return "decoder"
    try:
        params = list(inspect.signature(cls.__init__).parameters)
    except (TypeError, ValueError):
        params = []
    if params[1:3] == ["encoder", "decoder"] or hasattr(cls, "encoder") or name.endswith(("Stub", "Model", "Logits")):
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


@dataclass
class Spec:
    role: Callable[[type], str | None]
    construct: Callable[[type, str, dict], nn.Module]
    check: dict[str, Callable[[nn.Module, dict, str], None]]
    same_values: Callable[[type, str, dict], None]
    questions: set[str] = field(default_factory=set)   # questions whose checks must define stand-ins


SPECS = {
    "02_seq2seq": Spec(_roles_02, _construct_02, {"encoder": _check_encoder, "decoder": _check_decoder, "model": _check_model},
                       _same_values_02, {"q3_seq2seq", "q4_loss", "q5_greedy", "q6_translate"}),
}
DEFINITIONS = {nb: definitions(nb) for nb in SPECS}


@pytest.mark.parametrize("nb", sorted(SPECS))
def test_every_define_is_resolved_statically(nb):
    unresolved = [f"cell {d.cell} ({d.question}): {d.kind} {d.name}" for d in DEFINITIONS[nb] if not d.source or d.name == "?"]
    assert not unresolved, "sources that this test cannot read (pass string constants, or names bound to them):\n" + "\n".join(unresolved)
    assert SPECS[nb].questions <= {d.question for d in DEFINITIONS[nb]}


@pytest.mark.parametrize("nb, d", [(nb, d) for nb in sorted(SPECS) for d in DEFINITIONS[nb] if d.kind == "define"],
                         ids=lambda v: v if isinstance(v, str) else f"cell{v.cell}-{v.question}-{v.name}")
def test_stand_ins_keep_the_documented_interface(nb, d):
    spec = SPECS[nb]
    before, after = execute(nb, d)
    assert d.name in after, f"the source does not bind {d.name}"
    torch.manual_seed(0)
    classes = stand_in_classes(before, after)
    for cls in classes:
        if "forward" not in vars(cls) and any(c is not cls and issubclass(c, cls) for c in classes):
            continue   # a base that stand-ins derive from (the real class's layers), not a stand-in itself
        role = spec.role(cls)
        assert role in spec.check, f"{cls.__name__} (cell {d.cell}): a stand-in whose role this test does not know; add it to the spec"
        obj = spec.construct(cls, role, before)
        spec.check[role](obj, before, f"{cls.__name__} (cell {d.cell}, {d.question})")
        if cls.__name__.startswith("_Ref"):
            spec.same_values(cls, role, before)


@pytest.mark.parametrize("nb, d", [(nb, d) for nb in sorted(SPECS) for d in DEFINITIONS[nb] if d.kind == "swap"]
                         or [pytest.param(None, None, marks=pytest.mark.skip(reason="no sandbox.swap in these notebooks"))],
                         ids=lambda v: v if isinstance(v, str) else f"cell{v.cell}-{v.question}-{v.name}" if v else "none")
def test_swapped_definitions_keep_the_real_signature(nb, d):
    before, after = execute(nb, d)
    real, swapped = before[d.name], after[d.name]
    if callable(real):
        assert list(inspect.signature(swapped).parameters) == list(inspect.signature(real).parameters), \
            f"{d.name} swapped in cell {d.cell} takes other arguments than the notebook's"
    else:
        assert type(swapped) is type(real), f"{d.name} swapped in cell {d.cell} is a {type(swapped).__name__}, the notebook's a {type(real).__name__}"
