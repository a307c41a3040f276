"""Notebook 08's question 8 rests on two references of its own: the hidden checks' Llama forward pass
(``checks._llama_logits``, Hugging Face's layout in float64) and the logits typed into the public check. Both are
checked here against ``transformers``' ``LlamaForCausalLM`` itself, offline, on tiny random configurations."""

from __future__ import annotations

import importlib.util
import json
import re

import pytest
import torch

from conftest import ROOT

UNIT = ROOT / "units" / "08_modern_decoder"
transformers = pytest.importorskip("transformers")


def _load(name: str):
    spec = importlib.util.spec_from_file_location(f"unit08_{name}", UNIT / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


checks, standins = _load("checks"), _load("standins")


@pytest.mark.parametrize("tied, n_h, n_kv, base, eps, drop", [
    (True, 4, 2, 500.0, 1e-3, ()),                                                   # grouped, tied
    (False, 6, 3, 100000.0, 1e-5, ()),                                               # SmolLM2's base and epsilon, untied
    (False, 4, 1, 10000.0, 0.05, ("num_key_value_heads", "rms_norm_eps", "rope_parameters", "tie_word_embeddings")),
])
def test_the_checks_reference_is_llama_for_causal_lm(tied, n_h, n_kv, base, eps, drop):
    torch.manual_seed(0)
    config = transformers.LlamaConfig(vocab_size=23, hidden_size=8 * n_h, intermediate_size=40, num_hidden_layers=3,
                                      num_attention_heads=n_h, num_key_value_heads=n_kv if not drop else n_h, rope_theta=base,
                                      rms_norm_eps=eps if not drop else 1e-6, tie_word_embeddings=tied)
    model = transformers.LlamaForCausalLM(config).eval()
    with torch.no_grad():
        for p in model.parameters():
            p.normal_(0, 0.3)
    ids = torch.randint(0, 23, (2, 9))
    as_dict = {k: v for k, v in config.to_dict().items() if k not in drop}        # a configuration without the keys: defaults
    with torch.no_grad():
        want = model(ids).logits.double()
    assert (checks._llama_logits(model.state_dict(), as_dict, ids) - want).abs().max() < 1e-5


def test_the_public_checks_logits_are_hugging_faces():
    master = json.loads((UNIT / "08_modern_decoder.ipynb").read_text())
    public = next("".join(c["source"]) for c in master["cells"] if "_want_last = torch.tensor(" in "".join(c["source"]))
    typed = {name: torch.tensor(json.loads(values)) for name, values in re.findall(r"(_want\w*) = torch\.tensor\((\[[^\]]*\])\)", public)}
    ids = torch.tensor([[3, 1, 4, 1, 5, 9, 2, 6]])
    configs = {name: eval(re.search(rf"{name} = (\{{.*?\}})\n", public, re.S).group(1)) for name in ("_cfg", "_cfg2")}
    first = checks._llama_logits(standins._tiny_llama(0, 32, 11, 4, 2, 24, 11), configs["_cfg"], ids)
    second = checks._llama_logits(standins._tiny_llama(1, 16, 2, 2, 1, 20, 11, prefix="", lm_head=True), configs["_cfg2"], ids)
    assert set(typed) == {"_want_0", "_want_last", "_want2"}
    for name, computed in (("_want_0", first[0, :, 0]), ("_want_last", first[0, -1]), ("_want2", second[0, -1])):
        assert torch.allclose(typed[name].double(), computed, atol=1e-4), f"{name} is not what LlamaForCausalLM computes"
