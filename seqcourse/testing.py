"""Helpers for the course's checks, which run in two places: in the student's own kernel
(``grader.check``) and, when grading, on the trusted side while the notebook runs in a sandbox.

A check gets a helper where the student's code runs with ``define``, e.g.
``_grads = define("_grads", "from seqcourse.testing import grads as _grads")``: the helper then calls
the student's code there and answers with plain data (tensors, strings, dicts). A stand-in of the notebook's
own (a toy model) is defined once, in its unit's ``standins.py``: a master's public check says
``define("_Bigram", standin("_Bigram"))``, and the build writes the source in place of ``standin(...)``.
"""

from __future__ import annotations

import ast
import contextlib
import sys
from pathlib import Path

import torch

from seqcourse import fakecuda


def define(name: str, source: str):
    """Execute ``source`` where the notebook's code runs and return what it binds to ``name``.

    A check uses it for stand-ins the student's code must call (a toy model, a reference function): in
    the student's kernel the source runs in the check's namespace; during grading (the check's namespace
    holds the grader's ``sandbox``) it runs inside the sandbox, and the result is a handle to it there.
    """
    env = sys._getframe(1).f_globals
    sandbox = env.get("sandbox")
    if sandbox is not None and hasattr(sandbox, "define"):
        return sandbox.define(name, source)
    exec(compile(source, f"<grader:{name}>", "exec"), env)  # named as the grader names it (seqcourse/contract.py)
    return env[name]


def standin_definitions(source: str) -> dict[str, str]:
    """{name: source} of the top-level definitions of a unit's standins.py (functions, classes, imports and
    assignments), each with the comment lines right above it."""
    found, lines = {}, source.splitlines()
    for node in ast.parse(source).body:
        start = node.lineno - 1
        while start > 0 and lines[start - 1].startswith("#"):
            start -= 1
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names = [node.name]
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names = [(a.asname or a.name).split(".")[0] for a in node.names]
        elif isinstance(node, ast.Assign):
            names = [t.id for t in node.targets if isinstance(t, ast.Name)]
        else:
            names = []
        for name in names:
            found[name] = "\n".join(lines[start:node.end_lineno]) + "\n"
    return found


def standin_requires(definitions: dict[str, str], name: str) -> list[str]:
    """The definitions that ``name``'s needs (its bases, the helpers it calls), each before what needs it, and
    ``name`` last."""
    order: list[str] = []

    def visit(n: str) -> None:
        if n in order:
            return
        used = {x.id for x in ast.walk(ast.parse(definitions[n])) if isinstance(x, ast.Name)}
        for dep in sorted(used & set(definitions) - {n}):
            visit(dep)
        order.append(n)
    visit(name)
    return order


def standin(name: str, path: str | Path = "standins.py") -> str:
    """The source of the stand-in ``name`` (with the definitions it needs) from a unit's standins.py: what a public
    check of a master passes to ``define``, read from the unit's folder when the master is opened there. The
    course build writes this source into the checks that students get, so their copies never read a file."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"{path} not found: open the master in its unit folder (units/NN_topic/), where "
                                "standins.py is; students' copies of the checks carry the stand-ins' source")
    definitions = standin_definitions(path.read_text())
    return "".join(definitions[n] for n in standin_requires(definitions, name))


def _tensors(obj) -> list:
    """Every tensor in a (nested) tuple, list or dict, in order."""
    if isinstance(obj, torch.Tensor):
        return [obj]
    if isinstance(obj, dict):
        obj = list(obj.values())
    if isinstance(obj, (tuple, list)):
        return [t for v in obj for t in _tensors(v)]
    return []


def _map(obj, fn):
    if isinstance(obj, torch.Tensor):
        return fn(obj)
    if isinstance(obj, (tuple, list)):
        return type(obj)(_map(v, fn) for v in obj)
    if isinstance(obj, dict):
        return {k: _map(v, fn) for k, v in obj.items()}
    return obj


def grads(call, args: tuple, weights: list, module: torch.nn.Module | None = None):
    """Backpropagate sum_i (output_i * weights_i).sum() through ``call(*args)``.

    Floating-point tensors in ``args`` become fresh leaves; outputs are every tensor ``call`` returns, in
    order (nested tuples/lists). Returns None when the outputs carry no gradient at all, else
    ``(parameter_grads, input_grads)``: {name: grad or None} over ``module``'s parameters and the
    gradients of the floating-point inputs, in order (None where none reached an input).
    """
    args = _map(args, lambda t: t.detach().clone().requires_grad_(True) if t.is_floating_point() else t)
    if module is not None:
        module.zero_grad(set_to_none=True)
    outs = _tensors(call(*args))
    loss = sum((o * w).sum() for o, w in zip(outs, weights) if o.is_floating_point())
    if not isinstance(loss, torch.Tensor) or not loss.requires_grad:
        return None
    loss.backward()
    params = {} if module is None else {n: None if p.grad is None else p.grad.detach().clone()
                                        for n, p in module.named_parameters()}
    return params, [a.grad for a in _tensors(args) if a.is_floating_point()]


def on_device(call, args: tuple, module: torch.nn.Module | None = None, tensors: bool = True):
    """Run ``call(*args)`` with ``module`` and every tensor argument on a GPU, or where there is none on the
    course's fake one (seqcourse.fakecuda: values on the CPU, CUDA's device rules). Returns ``(problem,
    result)``. ``problem`` is None when every output tensor is on that device, else what went wrong: a tensor
    created on the CPU regardless of the input's device either makes an operation fail (as it fails on a
    GPU) or leaves an output on the CPU; lengths that sequence packing needs on the CPU were left on the GPU.
    ``result`` is what the call returned, its tensors brought back to the CPU, for the check to compare with
    what it expects (a device check that any answer of the right shape passes would give points for nothing).
    Any other error is the answer's own and propagates; a call that returns no tensor is a problem (with
    ``tensors=False``, for calls that return token lists, only errors count). ``module`` moves: make one for
    this check.
    """
    def back(result):
        return _map(result, lambda t: t.detach().to("cpu"))

    with contextlib.ExitStack() as stack:
        if not torch.cuda.is_available():
            stack.enter_context(fakecuda.on_fake_cuda())
        if module is not None:
            module.to("cuda")
        try:
            result = call(*_map(args, lambda t: t.to("cuda")))
        except (RuntimeError, TypeError, AssertionError) as e:
            text = str(e)
            if any(s in text for s in fakecuda.DEVICE_ERRORS[:1]):
                return (f"{type(e).__name__}: {text.splitlines()[0][:200]}; a tensor made without device= (or not "
                        "registered as a buffer) stayed on the CPU and met the GPU's tensors"), None
            if any(s in text for s in fakecuda.DEVICE_ERRORS):
                return f"{type(e).__name__}: {text.splitlines()[0][:200]}", None
            if not any(s in text for s in fakecuda.CANNOT_TELL):
                raise  # an error of the answer itself (also on the CPU): the check reports it
            # a library call the fake device does not cover: no verdict on devices; the values from the CPU
            if module is not None:
                module.to("cpu")
            return None, back(call(*args))
        outs, result = _tensors(result), back(result)
    if not tensors:
        return None, result
    if not outs:
        return "it returned no tensor", result
    wrong = sorted({str(o.device) for o in outs} - {"cuda:0"})
    return (f"an output is on {', '.join(wrong)}: a tensor made without device= (preallocated with torch.zeros or "
            "torch.empty, say) took the results") if wrong else None, result


def device_problem(call, args: tuple, module: torch.nn.Module | None = None) -> str | None:
    """What goes wrong when ``call(*args)`` runs on a GPU (``on_device``'s problem), or None."""
    return on_device(call, args, module)[0]


def side_effects(call, args: tuple, module: torch.nn.Module | None = None, rng: bool = False) -> list[str]:
    """What ``call(*args)`` changes that it should not: the values of tensor arguments (in place), and of
    ``module``: its parameters' values and ``requires_grad``, its submodules' training mode; with ``rng``,
    the global random state (for calls that must not draw random numbers). Returns descriptions."""
    before_args = [t.detach().clone() for t in _tensors(args)]
    state = {}
    if module is not None:
        state = {"params": {n: (p.detach().clone(), p.requires_grad) for n, p in module.named_parameters()},
                 "modes": {n: m.training for n, m in module.named_modules()}}
    grad_enabled, random_state = torch.is_grad_enabled(), torch.get_rng_state()
    call(*args)
    found = []
    if any(not torch.equal(a, b) for a, b in zip(before_args, _tensors(args))):
        found.append("an argument was changed in place")
    if module is not None:
        for n, p in module.named_parameters():
            value, requires_grad = state["params"].get(n, (None, None))
            if value is None or p.requires_grad != requires_grad:
                found.append(f"requires_grad of {n} changed")
            elif not torch.equal(value, p.detach()):
                found.append(f"the value of {n} changed")
        modes = [n or "the model" for n, m in module.named_modules() if state["modes"].get(n, m.training) != m.training]
        if modes:
            found.append(f"the training mode of {modes[0]} changed (train()/eval() called inside)")
    if torch.is_grad_enabled() != grad_enabled:
        found.append("gradient tracking was switched globally (torch.set_grad_enabled)")
    if rng and not torch.equal(torch.get_rng_state(), random_state):
        found.append("the global random state changed")
    return found


def beam_diagnosis(got, want: list, greedy: list) -> str:
    """The start of a message for a beam search's hypotheses ``got`` (a list per sentence) that differ from ``want``:
    which sentences are right, and the step the pattern points at where one does (``greedy``: greedy search's
    hypotheses on the same batch). Empty when ``got`` is not a list of ``len(want)`` or is right."""
    if not isinstance(got, list) or len(got) != len(want) or got == want:
        return ""
    right = [b for b, (g, w) in enumerate(zip(got, want)) if g == w]

    def named(bs: list) -> str:
        ns = [str(b + 1) for b in bs]
        return f"sentence {ns[0]} is" if len(ns) == 1 else f"sentences {', '.join(ns[:-1])} and {ns[-1]} are"
    wrong = [b for b in range(len(want)) if b not in right]
    text = f"{named(right)} right, {named(wrong)} wrong" if right else "every sentence is wrong"
    if right == [0]:
        text += (": only the first sentence right points at step 5, the state reordered: sentence b's hypotheses are rows "
                 "b * β ... b * β + β - 1, so a candidate from its hypothesis k reads row b * β + k")
    elif got == greedy:
        text += (": these are greedy search's hypotheses, as if the beam held one (step 1: scores start at [0, -inf, ...]; "
                 "β live copies of <sos> grow the same hypothesis)")
    return text + ". "


def float64_problem(got, want, rtol: float = 1e-4, atol: float = 1e-5) -> str | None:
    """How ``got`` (what the code under test returned: a tensor or a number) differs from ``want``, the same quantity
    computed in float64 from the same inputs; None when they agree within ``rtol`` (relative to ``want``) and
    ``atol``. The numerical-range cases of every function of scores, logits or probabilities use it (inputs of
    large magnitude, half precision, long searches): an ``exp`` by hand, the log of a softmax or a product of
    probabilities shows here as inf/NaN where float64 is finite, or as a large difference."""
    want = torch.as_tensor(want, dtype=torch.float64)
    if isinstance(got, (int, float)):
        got = torch.tensor(float(got))
    if not isinstance(got, torch.Tensor) or not got.is_floating_point():
        return f"it returned {got.dtype if isinstance(got, torch.Tensor) else type(got).__name__}, not floating-point values"
    if tuple(got.shape) != tuple(want.shape):
        return f"it returned shape {tuple(got.shape)}, expected {tuple(want.shape)}"
    got = got.detach().to("cpu", torch.float64)
    excess = ((got - want).abs() - atol - rtol * want.abs()).nan_to_num(float("inf"))   # > 0: outside the tolerance
    excess = torch.where(torch.isfinite(want), excess, ((got != want) & ~(got.isnan() & want.isnan())).double())
    if not bool((excess > 0).any()):
        return None
    blown = (excess > 0) & ~torch.isfinite(got)   # inf or NaN first: the overflow, not its consequences
    i = tuple(int(j) for j in (blown.nonzero()[0] if bool(blown.any()) else (excess == excess.max()).nonzero()[0]))
    return f"it returned {float(got[i]):.6g} where float64 gives {float(want[i]):.6g}" + (f" (at {list(i)})" if i else "")


def as_notebook_state(ref: torch.nn.Module, attns: list[tuple[str, str]], grad: bool = False) -> dict:
    """The parameters (or, with ``grad``, their gradients) of a torch reference layer
    (``torch.nn.TransformerEncoderLayer``/``TransformerDecoderLayer``) under the names of notebook 04's layers:
    for each (notebook attention, torch attention) pair of ``attns``, ``in_proj``'s three blocks become W_q, W_k,
    W_v and ``out_proj`` W_o; ``linear1``/``linear2`` go under ``ff.``, the norms keep their names."""
    get = (lambda t: t.grad) if grad else (lambda t: t.detach())
    s = {}
    for mine, theirs in attns:
        a = getattr(ref, theirs)
        for n, Wn, bn in zip("qkv", get(a.in_proj_weight).chunk(3), get(a.in_proj_bias).chunk(3)):
            s[f"{mine}.W_{n}.weight"], s[f"{mine}.W_{n}.bias"] = Wn, bn
        s[f"{mine}.W_o.weight"], s[f"{mine}.W_o.bias"] = get(a.out_proj.weight), get(a.out_proj.bias)
    for n, p in ref.named_parameters():
        if n.startswith(("linear", "norm")):
            s[("ff." if n.startswith("linear") else "") + n] = get(p)
    return s
