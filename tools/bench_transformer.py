"""Training throughput of notebook 04's from-scratch Transformer against torch.nn.Transformer of the same
size, in one run, on the same Multi30k batches.

    python tools/bench_transformer.py [--batches 40] [--rounds 3] [--device cpu|cuda]

Both models get the same embeddings, sinusoidal positions, tied output projection, loss (label-smoothed,
from the master), dropouts (on embeddings and sublayer outputs only) and optimiser; only the
encoder-decoder stack differs: the master's reference solution (pre-LN, units/04_transformer/04_transformer.ipynb) or
nn.Transformer(norm_first=True). Rounds alternate between the
two models so that both see the same machine state. Prints target tokens per second and the ratio.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
import warnings
from pathlib import Path

import torch
import torch.nn as nn

sys.path.insert(0, str(Path(__file__).resolve().parent))
from course import master_namespace  # noqa: E402

import seqcourse  # noqa: E402


def torch_transformer(ns: dict, src_vocab: int, tgt_vocab: int, d_model=256, n_heads=8, n_layers=3, d_ff=512, dropout=0.1):
    """The master's Transformer with its encoder and decoder layers replaced by nn.Transformer's."""

    class TorchStack(ns["Transformer"]):
        def __init__(self):
            super().__init__(src_vocab, tgt_vocab, d_model, n_heads, n_layers, d_ff, dropout)
            del self.encoder, self.decoder, self.enc_norm, self.dec_norm
            self.stack = nn.Transformer(d_model, n_heads, n_layers, n_layers, d_ff, dropout, batch_first=True, norm_first=True)
            for layer in [*self.stack.encoder.layers, *self.stack.decoder.layers]:   # the same dropouts as ours:
                layer.dropout = nn.Identity()                                         # none inside the FFN,
                for attn in (layer.self_attn, getattr(layer, "multihead_attn", None)):
                    if attn is not None:
                        attn.dropout = 0.0                                            # none on attention weights

        def forward(self, src, tgt_in):
            pad = src == ns["PAD_ID"]
            causal = torch.ones(tgt_in.size(1), tgt_in.size(1), dtype=torch.bool, device=src.device).triu(1)
            y = self.stack(self.embed(self.src_embed, src), self.embed(self.tgt_embed, tgt_in), tgt_mask=causal,
                           src_key_padding_mask=pad, memory_key_padding_mask=pad, tgt_is_causal=True)
            return self.out(y)

    return TorchStack()


def tokens_per_second(model, loss_fn, batches, device) -> float:
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-4, betas=(0.9, 0.98), eps=1e-9)
    model.train()
    if device.type == "cuda":
        torch.cuda.synchronize()
    start, count = time.perf_counter(), 0
    for batch in batches:
        loss, n = loss_fn(model, seqcourse.to_device(batch, device))
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        count += n
    if device.type == "cuda":
        torch.cuda.synchronize()
    return count / (time.perf_counter() - start)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--batches", type=int, default=40, help="timed batches per round and model")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--device", default=None)
    args = parser.parse_args(argv)
    warnings.filterwarnings("ignore", message="enable_nested_tensor")   # nn.Transformer with norm_first=True
    device = seqcourse.get_device(args.device)
    ns = master_namespace("04_transformer")
    _, de_vocab, en_vocab, pairs = seqcourse.translation_data(
        seqcourse.load_multi30k(), "de", "en", seqcourse.tokenizer("de"), seqcourse.tokenizer("en"), min_freq=2)
    batches = list(seqcourse.BucketBatches(pairs["train"], 128, seed=0))[:args.batches + 3]
    seqcourse.seed_everything(0)
    models = {"from scratch (notebook 04)": ns["Transformer"](len(de_vocab), len(en_vocab)).to(device),
              "torch.nn.Transformer": torch_transformer(ns, len(de_vocab), len(en_vocab)).to(device)}
    sizes = {name: sum(p.numel() for p in m.parameters()) for name, m in models.items()}
    assert len(set(sizes.values())) == 1, f"the two models differ in size: {sizes}"
    print(f"{next(iter(sizes.values())) / 1e6:.2f} M parameters each, {device}, {torch.get_num_threads()} threads, "
          f"torch {torch.__version__}")
    rates = {name: [] for name in models}
    for name, model in models.items():
        tokens_per_second(model, ns["transformer_loss"], batches[:3], device)          # warm-up
    for _ in range(args.rounds):
        for name, model in models.items():
            rates[name].append(tokens_per_second(model, ns["transformer_loss"], batches[3:], device))
    for name, r in rates.items():
        print(f"{name:28} {statistics.median(r):8,.0f} target tokens/s (rounds: {', '.join(f'{x:,.0f}' for x in r)})")
    ours, theirs = (statistics.median(r) for r in rates.values())
    print(f"ratio from scratch / nn.Transformer: {ours / theirs:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
