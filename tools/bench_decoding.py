"""Notebook 08, section 10, at the real size: question 8's conversion and the key/value cache on a decoder of
SmolLM2-135M's shape (30 blocks of width 576, 9 query and 3 key/value heads, SwiGLU 1,536, vocabulary 49,152,
RoPE base 100,000, epsilon 1e-5, tied), with random weights (the published ones cannot be downloaded everywhere).

    python tools/bench_decoding.py [--new 40] [--rounds 3] [--device cpu|cuda] [--out results/08_modern_decoder-decoding.json]

A random checkpoint under Hugging Face's Llama names goes through the master's own llama_decoder (its reference
solution, units/08_modern_decoder); where transformers is installed, LlamaForCausalLM with the same weights gives the
logits to compare with. Then greedy decoding of --new tokens after a 7-token prompt, with the cache (the model's
extend, one token per step) and without it (the whole sequence at every step), alternating, --rounds times each;
the median tokens per second of each and whether both chose the same tokens are written to --out.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
from course import master_namespace  # noqa: E402
from results import commit, hardware  # noqa: E402

import seqcourse  # noqa: E402
from seqcourse.testing import standin  # noqa: E402

SMOLLM2_135M = {"vocab_size": 49152, "hidden_size": 576, "intermediate_size": 1536, "num_hidden_layers": 30,
                "num_attention_heads": 9, "num_key_value_heads": 3, "rms_norm_eps": 1e-5, "rope_theta": 100000.0,
                "tie_word_embeddings": True, "hidden_act": "silu", "max_position_embeddings": 8192}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--new", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--out", type=Path, default=ROOT / "results" / "08_modern_decoder-decoding.json")
    args = parser.parse_args()
    ns = master_namespace("08_modern_decoder")
    exec(standin("_tiny_llama", ROOT / "units" / "08_modern_decoder" / "standins.py"), ns)
    config = SMOLLM2_135M
    seqcourse.seed_everything(0)
    hf = ns["_tiny_llama"](0, config["hidden_size"], config["num_hidden_layers"], config["num_attention_heads"],
                           config["num_key_value_heads"], config["intermediate_size"], config["vocab_size"])
    start = time.perf_counter()
    model = ns["llama_decoder"](hf, config).to(args.device)
    found = {"conversion seconds": time.perf_counter() - start, "parameters": sum(p.numel() for p in model.parameters())}
    prompt = torch.randint(0, config["vocab_size"], (1, 7), generator=torch.Generator().manual_seed(0)).to(args.device)
    try:
        from transformers import LlamaConfig, LlamaForCausalLM
    except ImportError:
        found["largest logit difference from LlamaForCausalLM"] = "not measured (transformers not installed)"
    else:
        reference = LlamaForCausalLM(LlamaConfig(**config)).eval()
        reference.load_state_dict({**hf, "lm_head.weight": hf["model.embed_tokens.weight"]})
        with torch.no_grad():
            want = reference.to(args.device)(prompt).logits.cpu()
            gap = (model(prompt).cpu() - want).abs().max()
        found["largest logit difference from LlamaForCausalLM"] = float(gap)
        found["largest logit of LlamaForCausalLM (absolute value)"] = float(want.abs().max())
        del reference
    ns["greedy"](model, prompt, 2, True)                                    # warm-up
    times = {"with the cache": [], "without it": []}
    tokens = {}
    for _ in range(args.rounds):
        for name, cache in (("with the cache", True), ("without it", False)):
            tokens[name], seconds = ns["greedy"](model, prompt, args.new, cache)
            times[name].append(seconds)
    for name, runs in times.items():
        found[f"greedy decoding {name}: tokens per s"] = args.new / statistics.median(runs)
    found["the same tokens with and without the cache"] = torch.equal(tokens["with the cache"], tokens["without it"])
    result = {"made by": "tools/bench_decoding.py", "shape": "SmolLM2-135M (random weights)", "config": config,
              "prompt tokens": prompt.size(1), "new tokens": args.new, "rounds": args.rounds, "device": args.device,
              "threads": torch.get_num_threads(), "metrics": found, "hardware": hardware(), "torch": torch.__version__,
              "python": sys.version.split()[0], "commit": commit(), "date": time.strftime("%Y-%m-%d")}
    args.out.write_text(json.dumps(result, indent=1) + "\n")
    print(json.dumps(found, indent=1))


if __name__ == "__main__":
    main()
