"""Figures shared by the notebooks: training curves and attention heatmaps."""

from __future__ import annotations

import math

import matplotlib.pyplot as plt
import torch


def plot_history(history: dict, ax=None, title: str = "Training"):
    """Per-step training loss with per-epoch validation loss on top (from ``fit``'s history)."""
    ax = ax or plt.subplots(figsize=(6, 3.5))[1]
    steps = history["step_loss"]
    ax.plot(range(1, len(steps) + 1), steps, lw=0.8, alpha=0.7, label="train (per step)")
    if history.get("val_loss"):
        per_epoch = len(steps) / len(history["val_loss"])
        xs = [round(per_epoch * (e + 1)) for e in range(len(history["val_loss"]))]
        ax.plot(xs, history["val_loss"], "o-", label="validation (per epoch)")
    ax.set(xlabel="step", ylabel="cross-entropy (nats/token)", title=title)
    ax.legend()
    return ax


def plot_attention(weights, src_tokens, tgt_tokens, heads: int | None = None, title: str = "", cols: int = 4,
                   labels: list[str] | None = None):
    """Heatmap of attention weights, target tokens down the side, source tokens along the top.

    weights: (T_tgt, T_src) for one map, or (n_heads, T_tgt, T_src) for a grid of heads.
    heads: show only the first ``heads`` heads of a grid. labels: one title per map (default "head i").
    """
    w = torch.as_tensor(weights).detach().float().cpu()
    if w.dim() == 2:
        w = w.unsqueeze(0)
    if heads is not None:
        w = w[:heads]
    n = w.shape[0]
    ncols = min(cols, n)
    nrows = math.ceil(n / ncols)
    cell = 0.35 * min(1.0, 4 / ncols)     # inches per token; wide grids get smaller maps
    fig, axes = plt.subplots(nrows, ncols, squeeze=False,
                             figsize=(cell * len(src_tokens) * ncols + 1.5, cell * len(tgt_tokens) * nrows + 1.2))
    for h, ax in enumerate(axes.flat):
        if h >= n:
            ax.axis("off")
            continue
        ax.imshow(w[h, :len(tgt_tokens), :len(src_tokens)].numpy(), cmap="viridis", vmin=0, vmax=1)
        ax.set_xticks(range(len(src_tokens)), src_tokens, rotation=90)
        ax.set_yticks(range(len(tgt_tokens)), tgt_tokens)
        if labels or n > 1:
            ax.set_title(labels[h] if labels else f"head {h}", fontsize=9)
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    return fig
