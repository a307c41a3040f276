"""Notebook 08's class challenge (grader/challenge.py, seqcourse/challenge.py): the reference solution's own model class
in a sandbox, scored on the held-out text as the notebook evaluates; every bad checkpoint costs only the entry."""

import io
import json
import math
import os
import pickle
import shutil
import sys
import zipfile
from pathlib import Path

import pytest
import torch

from grader import challenge
from grader.grade import Graded
from grader.gradescope import gradescope
from grader.sandbox import Sandbox
from seqcourse import challenge as rules

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import course  # noqa: E402

NB = "08_modern_decoder"
SIZE = dict(d_model=32, n_heads=4, n_kv_heads=2, n_layers=1)  # smoke size
# models a student might submit, defined in the notebook after its own cells
STUDENT = '''
class LooksAhead(ModernDecoder):
    def forward(self, ids):
        ahead = torch.roll(ids, -1, dims=1)                                # the next input: the target
        return super().forward(ids) + 5 * F.one_hot(ahead, self.tok_emb.num_embeddings)


class TiedHead(ModernDecoder):                                         # an output layer sharing the embedding
    def __init__(self, **config):
        super().__init__(**config, tied=False)
        self.lm_head.weight = self.tok_emb.weight


class Slow(ModernDecoder):
    def forward(self, ids):
        time.sleep(60)
        return super().forward(ids)
'''


@pytest.fixture(scope="module")
def setup(multi30k_env, tmp_path_factory):
    """(the course's data as notebook 06 builds it, the grader's held-out text, a sandbox with the 08 solution's cells,
    the master's namespace, a folder for files)."""
    saved = {k: os.environ.get(k) for k in multi30k_env}
    os.environ.update(multi30k_env)
    from seqcourse.gpt import multi30k_subwords

    try:
        data = multi30k_subwords(vocab_size=rules.VOCAB_SIZE)
        heldout = challenge.held_out({}, ROOT)
        ns = course.master_namespace(NB)
        cells = [src for _, _, src in course.graded_cells(course.master_path(NB))] + [STUDENT]
        with Sandbox({"seqcourse": ROOT / "seqcourse"}, timeout=600) as sb:
            assert sb.run(cells) == []
            yield data, heldout, sb, ns, tmp_path_factory.mktemp("challenge")
    finally:
        for k, v in saved.items():
            os.environ.pop(k) if v is None else os.environ.__setitem__(k, v)


def _model(ns, data, seed=0, cls="ModernDecoder", **size):
    torch.manual_seed(seed)
    config = dict(vocab_size=data.V, **SIZE, d_hidden=ns["swiglu_width"](32, 128))
    config.update(size)
    return ns[cls](**config), config


def _saved(folder: Path, model, config, data, name="challenge.safetensors", **kw) -> Path:
    return rules.save(model, folder / name, config=config, tokens_seen=kw.pop("tokens_seen", 431_765),
                      tokenizer=data.bpe, **kw)


def _score(setup, file: Path) -> dict:
    _, heldout, sb, _, _ = setup
    prepared = challenge.prepare(setup[4] / "source", file)
    return challenge.score(sb, prepared) if "refused" not in prepared else {"entry": None, "message": prepared["refused"]}


@pytest.fixture(scope="module", autouse=True)
def source(setup):
    """An autograder folder whose grading.json turns the challenge on (points 1), with Multi30k's held-out text."""
    folder = setup[4] / "source"
    folder.mkdir()
    (folder / "grading.json").write_text(json.dumps({"challenge": {"points": 1, "heldout": None}}))


def test_the_graders_held_out_text_is_test_2018_tokenized_as_notebook_06_does(setup):
    data, heldout = setup[0], setup[1]
    from seqcourse.data import load_multi30k
    from seqcourse.text import tokenizer

    known, tokenize = {w for s in data.words["train"] for w in s}, tokenizer("en")
    words = [[w if w in known else "<unk>" for w in tokenize(s)] for s in load_multi30k(("test_2018",))["test_2018"]["en"]]
    assert heldout["ids"] == [data.encode(s) for s in words] and len(words) == 1071
    assert heldout["n_words"] == sum(len(s) + 1 for s in words) and heldout["tokenizer"] == rules.tokenizer_id(data.bpe)


def test_the_gradescope_entry_scores_the_notebooks_own_model_and_leaves_its_questions_alone(course_build, setup):
    """08's own autograder zip, run as on Gradescope (python -m grader --gradescope) on its solution with a checkpoint:
    every question graded, without an error, a visible test "Challenge" worth the zip's 0 points, and the leaderboard's
    perplexity is the notebook's own evaluation of the same weights on the same text. (tests/test_course.py grades
    the same solution, with the challenge on and no checkpoint, at full marks.)"""
    from grader.checks import questions

    data, heldout, _, ns, folder = setup
    built, base = course_build[NB], folder / "gradescope"
    with zipfile.ZipFile(built.autograder_zip) as z:
        z.extractall(base / "source")
    (base / "submission").mkdir()
    shutil.copy(built.solution_nb, base / "submission" / f"{NB}.ipynb")
    model, config = _model(ns, data)
    with torch.no_grad():                                # weights other than the initial ones: a scaled embedding
        model.tok_emb.weight.mul_(3)
    _saved(base / "submission", model, config, data)
    gradescope(base)
    results = json.loads((base / "results" / "results.json").read_text())
    from seqcourse.gpt import total_nll

    own = math.exp(total_nll(model, heldout["ids"]) / heldout["n_words"])    # as notebook 08 evaluates
    board = {e["name"]: e for e in results["leaderboard"]}
    assert board["Perplexity per word"]["value"] == pytest.approx(own, rel=1e-5)
    assert board["Perplexity per word"]["order"] == "asc"
    assert board["Parameters"]["value"] == sum(p.numel() for p in model.parameters())
    assert board["Training tokens"]["value"] == 431_765
    (test,) = [t for t in results["tests"] if t["name"] == "Challenge"]
    assert test["visibility"] == "visible" and "perplexity per word" in test["output"], test
    graded = [t["name"].split(" (")[0] for t in results["tests"] if t["name"] != "Challenge"]
    assert set(graded) == {q.name for q in questions(built.autograder_zip)} and test["max_score"] == 0
    assert "not graded" not in json.dumps(results["tests"]) and "Grading note" not in results["output"], results["output"]


class _RunsCode:
    """Unpickled, it would create the file ``path``."""

    def __init__(self, path: str):
        self.path = path

    def __reduce__(self):
        return (open, (self.path, "w"))


def test_bad_checkpoints_get_no_entry_and_say_why(setup, capsys):
    data, _, _, ns, folder = setup
    marker = folder / "pwned"
    model, config = _model(ns, data)
    good = _saved(folder, model, config, data, "good.safetensors").read_bytes()
    cases = {"pickle": pickle.dumps({"tok_emb.weight": _RunsCode(str(marker))}), "corrupt": good[:8] + b"x" * 12 + good[20:],
             "cut short": good[:-100]}
    buffer = io.BytesIO()
    torch.save(model.state_dict(), buffer)
    cases["torch.save"] = buffer.getvalue()
    cases["oversized"] = b"\x00" * (challenge.MAX_FILE + 1)
    want = {"pickle": "a pickle", "corrupt": "not JSON", "cut short": "cut short", "torch.save": "zip archive",
            "oversized": "more than the"}
    for name, data_ in cases.items():
        (folder / "bad").mkdir(exist_ok=True)
        for old in (folder / "bad").iterdir():
            old.unlink()
        (folder / "bad" / "challenge.safetensors").write_bytes(data_)
        result = _score(setup, folder / "bad" / "nb.ipynb")
        assert result["entry"] is None and want[name] in result["message"], (name, result["message"])
    assert not marker.exists()
    assert "no .safetensors file" in _score(setup, folder / "empty" / "nb.ipynb")["message"]

    bigger, big_config = _model(ns, data, d_model=240, d_hidden=640, n_layers=3)
    bigger.half()                                        # 2.9 M numbers in a file no larger than 1.5 M in float32
    assert "more than the challenge's 1,500,000" in _score(setup, _saved(folder, bigger, big_config, data, "big.safetensors"))["message"]
    capsys.readouterr()
    wrong = _saved(folder, model, {**config, "n_layers": 2}, data, "wrong.safetensors")
    assert "THE GRADER WILL NOT RANK IT: ModernDecoder(**config) does not build this model" in capsys.readouterr().out
    assert "missing: blocks.1." in _score(setup, wrong)["message"]
    over = _saved(folder, model, config, data, "over.safetensors", tokens_seen=rules.MAX_TRAINING_TOKENS + 1)
    assert "training tokens" in _score(setup, over)["message"]


def test_a_model_that_looks_ahead_or_is_too_slow_gets_no_entry(setup, monkeypatch):
    data, _, _, ns, folder = setup
    ns = dict(ns)
    exec(STUDENT, ns)
    ahead, config = _model(ns, data, cls="LooksAhead")
    assert "looks ahead" in _score(setup, _saved(folder, ahead, config, data, "ahead.safetensors", model_class="LooksAhead"))["message"]
    monkeypatch.setattr(challenge, "CALL_LIMIT_S", 2)
    slow = _saved(folder, ahead, config, data, "slow.safetensors", model_class="Slow")
    message = _score(setup, slow)["message"]
    assert "too slow to evaluate" in message, message


def test_a_tied_weight_is_stored_and_counted_once_and_loads_under_both_names(setup):
    data, _, sb, ns, folder = setup
    ns = dict(ns)
    exec(STUDENT, ns)
    tied, config = _model(ns, data, cls="TiedHead")
    prepared = challenge.prepare(folder / "source", _saved(folder, tied, config, data, "tied.safetensors", model_class="TiedHead"))
    assert prepared["aliases"] == {"lm_head.weight": "tok_emb.weight"}
    assert prepared["parameters"] == sum(p.numel() for p in tied.parameters())    # parameters() counts it once too
    build = sb.define("_challenge_build", challenge.BUILD)
    remote = build("TiedHead", config, prepared["tensors"], prepared["aliases"])
    assert torch.equal(remote.lm_head.weight, tied.tok_emb.weight)


def test_the_checkpoint_is_found_in_an_exported_zip(setup):
    data, _, _, ns, folder = setup
    model, config = _model(ns, data)
    file = _saved(folder, model, config, data, "in-zip.safetensors")
    with zipfile.ZipFile(folder / "export.zip", "w") as z:
        z.writestr("08_modern_decoder.ipynb", "{}")
        z.write(file, "challenge.safetensors")
    found, name = challenge.find_checkpoint(folder / "export.zip")
    assert found == file.read_bytes() and name == "challenge.safetensors"
    flat = folder / "flat"                               # a class folder: whose checkpoint would it be?
    flat.mkdir()
    for f in ("alice.ipynb", "bob.ipynb", "challenge.safetensors"):
        (flat / f).write_bytes(b"{}")
    assert "other students' notebooks" in challenge.find_checkpoint(flat / "alice.ipynb")[1]


def test_the_class_board_ranks_entries_and_lists_the_others(tmp_path):
    entry = {"perplexity": 21.5, "parameters": 1_047_424, "tokens_seen": 2_590_590, "text": challenge.MULTI30K}
    rows = [Graded("b.ipynb", challenge={"points": 0, "entry": entry, "message": "b"}),
            Graded("a.ipynb", challenge={"points": 0, "entry": dict(entry, perplexity=20.1), "message": "a"}),
            Graded("c.ipynb", challenge={"points": 0, "entry": None, "message": "No challenge entry: c"}), Graded("d.ipynb")]
    challenge.write_board(tmp_path / "board.csv", rows)
    lines = (tmp_path / "board.csv").read_text().splitlines()
    assert [line.split(",")[:3] for line in lines[1:]] == [["1", "a.ipynb", "20.100"], ["2", "b.ipynb", "21.500"],
                                                           ["reference", "the course's: 08's challenge cell as given",
                                                            "36.557"], ["", "c.ipynb", ""]]
    assert (tmp_path / "board.png").stat().st_size > 0


def test_a_private_held_out_text_comes_from_the_zip_and_is_tokenized_the_same_way(setup, tmp_path):
    from seqcourse.data import fetch_file, read_lines

    lines = read_lines(fetch_file("test_2018_flickr.en.gz"))[:40]
    with zipfile.ZipFile(tmp_path / "08-autograder.zip", "w") as z:
        z.writestr("challenge/heldout.txt", "\n".join(lines) + "\n\n")
    private = challenge.held_out({"heldout": "challenge/heldout.txt"}, tmp_path / "08-autograder.zip")
    assert private["ids"] == setup[1]["ids"][:40] and private["text"] == "a private text"
    assert course.challenge_heldout({"challenge": {"heldout": str(tmp_path / "08-autograder.zip")}}).is_file()
    with pytest.raises(SystemExit, match="is not a file"):
        course.challenge_heldout({"challenge": {"heldout": str(tmp_path / "missing.txt")}})
