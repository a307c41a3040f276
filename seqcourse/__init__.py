"""Plumbing shared by the course notebooks: data, tokenisation, vocabularies, batching, the training
loop, greedy decoding, metrics and plots. It never holds an answer to an exercise."""

import warnings
from pathlib import Path

# grader.export(run_tests=True) checks the notebook in a helper kernel and re-raises that kernel's stderr
# as a RuntimeWarning; when all it says is Jupyter's note that the local kernel talks over TCP without
# encryption, it only alarms students.
warnings.filterwarnings("ignore", message=r"\s*\[IPKernelApp\] WARNING \| Kernel is running over TCP without "
                        r"encryption[^\n]*\s*\Z", category=RuntimeWarning)

from .data import DataError, load_cola, load_multi30k, load_wordnet, number_to_words, number_words_task
from .metrics import bleu, bleu_by_length, exact_match, paired_bootstrap, tokenized_bleu
from .plots import plot_attention, plot_history
from .results import record, save_figure
from .text import BucketBatches, Vocab, pad_batch, tokenizer, translation_data
from .train import (ABLATIONS, SMOKE, average_checkpoints, best_weights, epoch_weights, evaluate, fit, get_device, perplexity,
                    seed_everything, to_device)

__all__ = [
    "DataError", "load_cola", "load_multi30k", "load_wordnet", "number_to_words", "number_words_task",
    "bleu", "bleu_by_length", "exact_match", "paired_bootstrap", "tokenized_bleu", "plot_attention", "plot_history", "record", "save_figure",
    "BucketBatches", "Vocab", "pad_batch", "tokenizer", "translation_data",
    "ABLATIONS", "SMOKE", "average_checkpoints", "best_weights", "epoch_weights", "evaluate", "fit", "get_device", "perplexity", "seed_everything", "to_device",
]

# search.py answers notebook 02's exercises, so the package that notebook 02's students get lacks it (make course
# publishes it with notebook 03, tools/course.py: helper_package)
if (Path(__file__).parent / "search.py").is_file():
    from .search import greedy_search, translate

    __all__ += ["greedy_search", "translate"]
