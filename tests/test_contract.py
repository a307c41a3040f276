"""The call contract (seqcourse/contract.py) that every call a hidden check makes into the notebook's own code keeps:
the caller's arguments unchanged, modules left in their mode, global random generators not reseeded, unless the
question declares otherwise (MAY_CHANGE in its checks module). In process on a small notebook, then through the
grading path on notebook 01, whose checks have no case of their own for any of the three bugs."""

from __future__ import annotations

import dataclasses
import importlib.util
import random
import sys

import pytest
import torch

from conftest import ROOT
from course import master_path
from grader import checks

from seqcourse import contract  # runs beside grader/runner.py in the sandbox, and in the student's kernel

@pytest.fixture(scope="module")
def notebook():
    from IPython.core.interactiveshell import InteractiveShell

    contract.install()
    shell = InteractiveShell.instance()
    shell.run_cell('''
import random
import torch, torch.nn as nn
def clean(x, cfg, gen):
    return x * 2 + torch.rand(x.shape, generator=gen)
def in_place(x, cfg, gen):
    x.mul_(2); return x
def through_view(batch):
    batch[0][:, 1:][batch[0][:, 1:] == 0] = -100; return batch
def pops(x, cfg, gen):
    cfg.pop("a"); return x
def reseeds(x, cfg, gen):
    random.seed(0); return x
def forks(x, cfg, gen):
    with torch.random.fork_rng():  # restores the global state on exit: every call draws the same noise
        return x + torch.rand(x.shape)
class Model(nn.Module):
    def __init__(self, cfg):
        super().__init__(); self.lin = nn.Linear(3, 3)
    def forward(self, x):
        return self.lin(x)
def loss_eval(model, x):
    model.eval(); return model(x).sum()
def step(model, x):
    with torch.no_grad():
        model.lin.weight.add_(1.0)
    return model(x)
def through_data(model, x):
    model.lin.weight.data[0, 0] = 5.0  # bumps no version counter
    return model(x)
def loss_backward(model, x):
    loss = model(x).sum()
    loss.backward()  # the caller's optimiser step would now use this call's gradients too
    return loss.detach()
def clears(model, x):
    model.zero_grad()  # the caller's gradients, which it may be accumulating, are gone
    return model(x).detach()
def slope(x):
    (x * 2).sum().backward()  # on the caller's x, not on a copy
    return x.grad.clone()
def polite(model, x):
    was = model.training
    model.eval()
    with torch.no_grad():
        y = model(x)
    model.train(was)
    return y
def evaluate(model, x):
    model.train()  # a no-op in training mode: seen only when the caller's model is in evaluation mode
    return model(x).sum()
def evaluate_then_train(model, x):
    model.eval()
    with torch.no_grad():
        y = model(x)
    model.train()  # back to training whatever the caller's mode was
    return y
def polite_if(model, x):
    was = model.training
    model.eval()
    y = model(x)
    if was:
        model.train()
    return y
class Cached(nn.Module):
    def __init__(self):
        super().__init__(); self.lin = nn.Linear(3, 3); self.drop = nn.Dropout(0.1); self.eps = 1e-5; self.pos = 0
    def forward(self, x):
        self.pos += x.shape[0]  # the notebook's own class may keep state: a cache's position,
        self.eps = float(x.sum())  # a value it saw (only torch's layers' settings are compared)
        return self.drop(self.lin(x))
def no_dropout(model, x):
    model.drop.p = 0.0  # instead of leaving eval() to the caller
    return model(x)
def wider_eps(model, x):
    model.eps = 1e-3
    return model(x)
def decode(model, x):
    torch.set_grad_enabled(False)  # instead of a `with torch.no_grad():` block, which ends by itself
    return model(x)
@torch.no_grad()
def decorated(x, cfg, gen):
    x.mul_(2); return x
def decode_no_grad(model, x):
    with torch.no_grad():
        return model(x)
def in_float64(x):
    torch.set_default_dtype(torch.float64)
    return x + torch.zeros(x.shape)
def noise(x, seed):
    state = random.getstate()  # the caller's stream untouched: its own seed, then the caller's state back
    random.seed(seed)
    y = x + random.random()
    random.setstate(state)
    return y
def noise_left(x, seed):
    random.seed(seed)
    return x + random.random()
def noise_forked(x, seed):
    with torch.random.fork_rng():
        torch.manual_seed(seed)
        return x + torch.rand(x.shape)
def rows_flat(x, w):
    B, T, D = x.shape
    return (x.view(B * T, D) @ w).view(B, T, -1)  # merges the caller's dimensions: needs contiguous memory
def rows_any(x, w):
    B, T, D = x.shape
    return (x.reshape(B * T, D) @ w).reshape(B, T, -1)
def running_sum(x):
    out = torch.zeros(x.shape)  # float32 and on the CPU whatever x is
    for t in range(x.shape[1]):
        out[:, t] = x[:, : t + 1].sum(1)
    return out
def running_sum_like(x):
    return x.cumsum(1)
def cast_sum(x):
    return x.cumsum(1).float()  # float32 whatever x is: no autograd graph shows it where x needs no gradient
def from_numbers(x):
    return torch.tensor([float(v) for v in x.sum(1).tolist()])  # float32 from Python numbers: made apart from x
def dropped(x):
    return torch.nn.functional.dropout(x, 0.5) + x.new_zeros(x.shape)  # draws: every variant from the same state
class Keys(nn.Module):
    def __init__(self):
        super().__init__(); self.W_k = nn.Linear(3, 2); self.keys = None
    def forward(self, k):
        if self.keys is None:
            self.keys = self.W_k(k)  # kept from the first call: stale for other keys or weights
        return self.keys
class KeysOfLength(Keys):
    def forward(self, k):
        if self.keys is None or self.keys.shape[:-1] != k.shape[:-1]:
            self.keys = self.W_k(k)  # kept for any keys of its length: stale for other keys or weights of that length
        return self.keys
class Drops(nn.Module):
    def __init__(self, p):
        super().__init__(); self.lin = nn.Linear(3, 3); self.p = p
    def forward(self, x):
        return torch.nn.functional.dropout(self.lin(x), self.p)  # training= defaults to True: drops in eval mode too
class DropsInMode(Drops):
    def forward(self, x):
        return torch.nn.functional.dropout(self.lin(x), self.p, self.training)
class AttentionDrops(Drops):
    def forward(self, x):
        q = self.lin(x)
        return torch.nn.functional.scaled_dot_product_attention(q, q, q, dropout_p=self.p)
def decode_reads_mode(model, x):
    was = model.training  # read, then ignored: the caller's model always comes back in training mode
    model.eval()
    with torch.no_grad():
        y = model(x)
    model.train()
    return y
def unfreezes(model, x):
    for p in model.parameters():
        p.requires_grad_(True)
    return model(x)
def zeroes(model, x):
    for p in model.parameters():
        if p.grad is not None:
            p.grad.zero_()  # zeros for zeros: only a caller's own gradients show it
    return model(x)
def scores_over_batch(x):
    return torch.softmax(x.sum(-1), dim=0)  # over dim 0, the batch: each row depends on the others
def scores_over_time(x):
    return torch.softmax(x.sum(-1), dim=-1)
def last_squeezed(x):
    return x[:, -1:].squeeze()  # (B, 1, D) -> (B, D), but (D,) for a batch of one
class Memory(nn.Module):
    def __init__(self, past):
        super().__init__(); self.past = past  # built with a state it extends on every call: state by design
    def forward(self, x):
        self.past = torch.cat([self.past, x]); return self.past.sum(0)
''')
    contract.wrap_namespace(shell.user_ns)
    contract.take()
    yield shell.user_ns
    shell.reset()


@pytest.mark.parametrize("name, what", [("clean", None), ("in_place", "x: its values"), ("decorated", "x: its values"), ("pops", "cfg: its items"),
                                        ("reseeds", "reseeded Python's random generator"),
                                        ("forks", "reseeded torch's global random generator (torch.set_rng_state")])
def test_calls_record_what_they_change(notebook, name, what):
    notebook[name](torch.ones(3), {"a": 1}, torch.Generator().manual_seed(0))  # the generator may advance
    found = [f"{b['argument']}: {b['what']}" if b["argument"] else b["what"] for b in contract.take()]
    assert (found == []) if what is None else (len(found) == 1 and found[0].startswith(what)), found


def test_a_view_of_the_callers_batch_modes_and_weights_are_seen(notebook):
    notebook["through_view"]((torch.zeros(2, 4, dtype=torch.long), torch.tensor([4, 4])))
    assert [b["what"] for b in contract.take()] == ["its values (changed in place)"]
    model = notebook["Model"]({})
    notebook["loss_eval"](model, torch.ones(3))
    assert [b["what"] for b in contract.take()] == ["its mode (train()/eval(): it was in training mode)"]
    model.train()
    notebook["step"](model, torch.ones(3))
    assert [(b["function"], b["what"]) for b in contract.take()] == [("step", "its parameters")]
    notebook["through_data"](model, torch.ones(3))
    assert [(b["function"], b["what"]) for b in contract.take()] == [("through_data", "its parameters")]
    model(torch.ones(3))  # a module's own call that changes nothing
    assert contract.take() == []


def test_a_question_may_declare_what_it_changes():
    broken = [{"function": "translate", "argument": "model", "what": "its mode (train()/eval(): it was in training mode)"}]
    assert "translate changed the caller's model" in checks.contract_broken(broken)
    assert checks.contract_broken(broken, ("translate.model",)) is None
    assert checks.contract_broken(broken, ("translate",)) is None
    assert checks.contract_broken(broken, ("greedy.model",)) is not None


def _mutants():
    spec = importlib.util.spec_from_file_location("mutants_01", ROOT / "units" / "01_rnn_lstm" / "mutants.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return [m for m in module.MUTANTS if m.name.startswith(("padding marked -100", "model switched", "global generator reseeded"))]


def test_the_harness_rejects_bugs_no_check_of_their_question_was_written_for(course_build):
    from mutation import MasterNotebook

    mutants = _mutants()
    assert len(mutants) == 3
    m = MasterNotebook(master_path("01_rnn_lstm"), course_build["01_rnn_lstm"].autograder_zip)
    try:
        for mutant in mutants:
            test = m.run(mutant.question, m.mutate(mutant))
            failed = [r for r in test.results if not r.passed]
            assert failed and all(r.case.hidden for r in failed), f"{mutant.name}: only hidden cases keep the contract"
            assert any(mutant.message in r.message for r in failed), (mutant.name, [r.message for r in failed])
            # without the contract (everything declared) no case names the bug: none was written for it
            everything = {mutant.question: ("lm_loss", "forward")}
            loose = dataclasses.replace(m.unit, checks=type(sys)("loose"))
            loose.checks.__dict__.update(m.unit.checks.__dict__, MAY_CHANGE=everything)
            m.unit, unit = loose, m.unit
            try:
                assert not any(mutant.message in r.message for r in m.run(mutant.question, m.mutate(mutant)).results), mutant.name
            finally:
                m.unit = unit
    finally:
        m.close()


def test_train_inside_a_call_is_seen_in_either_mode_and_calls_record_the_modes(notebook):
    model = notebook["Model"]({})
    contract.take(contract.CALLS)
    notebook["evaluate"](model, torch.ones(3))  # training mode in, training mode out: train() is a no-op here
    assert [b["what"] for b in contract.take()] == ["called train() on it"]
    assert "evaluate called train() on the caller's model" in checks.contract_broken([{"function": "evaluate", "argument": "model", "what": "called train() on it"}])
    model.eval()
    notebook["evaluate"](model, torch.ones(3))
    assert [b["what"] for b in contract.take()] == ["its mode (train()/eval(): it was in evaluation mode)"]
    assert contract.take(contract.CALLS) == [{"function": "evaluate", "argument": "model", "training": True},
                                             {"function": "evaluate", "argument": "model", "training": False}]
    for mode in (True, False):  # restoring the mode the call found is no change
        notebook["polite"](model.train(mode), torch.ones(3))
        assert contract.take() == [] and model.training is mode


def test_gradients_left_on_the_callers_model_or_tensor_are_seen_unless_declared(notebook):
    model = notebook["Model"]({})
    notebook["loss_backward"](model, torch.ones(3))
    assert [b["what"] for b in contract.take()] == [contract.GRADIENTS]
    notebook["loss_backward"](model, torch.ones(3))  # gradients there before, accumulated into
    broken = contract.take()
    assert [b["what"] for b in broken] == [contract.GRADIENTS]
    assert "loss_backward changed the caller's model: its gradients" in checks.contract_broken(broken)
    assert checks.contract_broken(broken, ("loss_backward.model.grad",)) is None
    assert checks.contract_broken(broken, ("loss_backward.model.train()",)) is not None
    assert checks.contract_broken([{"function": "loss_backward", "argument": "model", "what": "its parameters"}],
                                  ("loss_backward.model.grad",)) is not None  # only its gradients are declared
    x = torch.ones(3, requires_grad=True)
    notebook["slope"](x)
    assert [(b["argument"], b["what"]) for b in contract.take()] == [("x", contract.GRADIENTS)]


@pytest.mark.parametrize("name, what", [
    ("no_dropout", "its settings (drop.p: 0.1 -> 0.0)"), ("wider_eps", None),
    ("decode", "changed a global setting of torch: gradient mode"), ("decode_no_grad", None)])
def test_a_modules_settings_and_torchs_global_settings_are_seen(notebook, name, what):
    model = notebook["Cached"]()
    try:
        notebook[name](model, torch.ones(2, 3))
    finally:
        torch.set_grad_enabled(True)
    found = [b["what"] for b in contract.take()]
    assert (found == []) if what is None else (len(found) == 1 and found[0].startswith(what)), found
    if what:
        assert name in checks.contract_broken(contract.take() or [{"function": name, "argument": "model" if "its" in what else "",
                                                                    "what": found[0]}])
    model(torch.ones(2, 3))  # the notebook's own integer state (a cache position) may change
    assert contract.take() == []


def test_the_default_dtype_left_changed_is_seen(notebook):
    try:
        notebook["in_float64"](torch.ones(2))
    finally:
        torch.set_default_dtype(torch.float32)
    assert [b["what"] for b in contract.take()] == [
        "changed a global setting of torch: default dtype (torch.set_default_dtype), torch.float32 before the call, torch.float64 after"]


@pytest.mark.parametrize("name, extra, what", [
    ("noise", 3, None), ("noise_forked", 3, None),
    ("noise_left", 3, "reseeded Python's random generator (random.seed), and did not set it back")])
def test_a_call_given_its_own_seed_may_seed_globally_if_it_restores_the_state(notebook, name, extra, what):
    before = random.getstate(), torch.get_rng_state()
    notebook[name](torch.ones(2), extra)
    found = [b["what"] for b in contract.take()]
    assert (found == []) if what is None else (len(found) == 1 and found[0].startswith(what)), found
    if what is None:
        assert random.getstate() == before[0] and torch.equal(torch.get_rng_state(), before[1])



def test_a_bare_train_after_the_calls_own_eval_is_seen_unless_the_code_reads_the_mode(notebook):
    model = notebook["Model"]({})
    notebook["evaluate_then_train"](model, torch.ones(3))  # training mode in and out: the same as train(was) here
    assert [b["what"] for b in contract.take()] == ["called train() on it"]
    for mode in (True, False):
        notebook["polite_if"](model.train(mode), torch.ones(3))
        assert contract.take() == [] and model.training is mode


def test_gradients_cleared_inside_a_call_are_seen_even_where_the_model_held_none(notebook):
    model = notebook["Model"]({})
    notebook["clears"](model, torch.ones(3))  # the model held no gradients: the call is given zeros to clear
    assert [b["what"] for b in contract.take()] == [contract.GRADIENTS]
    assert all(p.grad is None for p in model.parameters())
    notebook["clean"](torch.ones(3), {}, torch.Generator())
    model(torch.ones(3))  # a call that leaves them alone hands them back as they were: none
    assert contract.take() == [] and all(p.grad is None for p in model.parameters())


@pytest.mark.parametrize("name, variant, what", [
    ("rows_flat", "contiguity", ".view needs contiguous memory"), ("rows_any", None, None),
    ("running_sum", "float64", "returned torch.float32"), ("running_sum", "device", "on the CPU"),
    ("running_sum_like", None, None), ("dropped", None, None)])
def test_calls_run_again_under_variants(notebook, name, variant, what):
    args = (torch.randn(2, 3, 4, requires_grad=True),) + ((torch.randn(4, 5),) if name.startswith("rows") else ())
    contract.vary([variant] if variant else contract.VARIANTS)
    try:
        state = torch.get_rng_state()
        got = notebook[name](*args)
        found = contract.take()
        assert torch.equal(torch.get_rng_state(), state) or name == "dropped"
        if name == "dropped":  # the variants' own draws left no trace: the caller's stream continues from the call
            torch.set_rng_state(state)
            assert torch.equal(torch.nn.functional.dropout(args[0], 0.5) + 0, got)
    finally:
        contract.vary(())
    assert (found == []) if what is None else (len(found) == 1 and contract.VARIANTS[variant] in found[0]["what"]
                                                and what in found[0]["what"]), found


def test_a_result_cast_to_float32_shows_where_the_inputs_need_no_gradient(notebook):
    contract.vary(["float64"])
    try:
        notebook["cast_sum"](torch.randn(2, 3))
        found = contract.take()
        notebook["from_numbers"](torch.randn(2, 3))  # no verdict: nothing ties it to the input's dtype
        assert contract.take() == []
    finally:
        contract.vary(())
    assert len(found) == 1 and "returned torch.float32 for float64 inputs" in found[0]["what"], found


def test_a_module_is_compared_with_a_fresh_copy_called_once_on_other_inputs_and_weights(notebook):
    contract.vary(["fresh"])
    try:
        keys = notebook["Keys"]()
        keys(torch.randn(4, 3))  # a first call too: the fresh copy's earlier call had other keys and weights
        found = contract.take()
        assert len(found) == 1 and "used again" in found[0]["what"], found
        keys(torch.randn(4, 3))
        assert len(contract.take()) == 1
        notebook["KeysOfLength"]()(torch.randn(2, 4, 3))  # rebuilt for the shorter earlier call, kept for the other
        found = contract.take()
        assert len(found) == 1 and "used again" in found[0]["what"], found
        model = notebook["Model"]({})
        model(torch.randn(4, 3))
        model(torch.randn(4, 3))
        assert contract.take() == []
        memory = notebook["Memory"](torch.zeros(1, 3))
        memory(torch.ones(2, 3))
        memory(torch.ones(2, 3))  # differs from a fresh copy by design: the state it was built with, extended
        assert contract.take() == []
    finally:
        contract.vary(())


@pytest.mark.parametrize("call, variant, what", [
    ("Drops", "eval", "F.dropout(x, p) drops whatever the mode"), ("DropsInMode", "eval", None),
    ("AttentionDrops", "eval", "dropout_p > 0"), ("decode_reads_mode", "eval", "back in training mode"),
    ("polite", "eval", None), ("unfreezes", "frozen", "frozen parameters made trainable"),
    ("zeroes", "frozen", "changed the gradients"), ("Model", "frozen", None), ("Drops", "frozen", None),
    ("scores_over_batch", "single", "must not depend on the others"), ("scores_over_time", "single", None),
    ("last_squeezed", "single", "never squeeze() without a dimension"), ("Model", "single", None)])
def test_calls_run_again_in_evaluation_mode_partly_frozen_and_on_a_batch_of_one(notebook, call, variant, what):
    """Given in training mode with every parameter trainable and no gradient, these calls change nothing the caller
    sees (dropout drops, as it should; requires_grad_(True) and zeroing zeros change nothing), and on a batch of three
    rows their results look right: the variants show them."""
    contract.vary([variant])
    try:
        if call.startswith(("scores", "last")):
            notebook[call](torch.randn(3, 4, 5))
        elif call[0].isupper():
            notebook[call](0.1)(torch.randn(2, 4, 3)) if call != "Model" else notebook[call]({})(torch.randn(2, 3))
        else:
            notebook[call](notebook["Model"]({}), torch.randn(2, 3))
        found = contract.take()
    finally:
        contract.vary(())
    assert (found == []) if what is None else (len(found) == 1 and contract.VARIANTS[variant] in found[0]["what"]
                                                and what in found[0]["what"]), found


def test_variant_failures_read_as_one_message():
    broken = [{"function": "rows_flat", "argument": "", "what": contract.VARIANTS["contiguity"] + ", it raised RuntimeError: view"}]
    assert checks.contract_broken(broken).startswith("rows_flat, given non-contiguous copies of its tensors")
