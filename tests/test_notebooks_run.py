"""Every master notebook executes top to bottom in a real kernel, in smoke mode (tiny data, one epoch),
training cells and public checks included (hidden checks run only on the grader's side: tests/test_mutants.py)."""

from __future__ import annotations

import shutil

import nbformat
import pytest
from nbclient import NotebookClient

import course
from conftest import ROOT, paste_answers, serve

MASTERS = [course.master_path(n) for n in course.unit_names()]

# notebook 07's optional section (transformers, never run by default: it needs the Hugging Face hub) fine-tunes a
# tiny, randomly initialised BERT with a word-level WordPiece vocabulary made here, offline
HF_TINY_BERT = '''
import transformers
from tokenizers import Tokenizer, models, normalizers, pre_tokenizers

_words = sorted({w for s in cola["train"]["sentence"] for w in tokenize(s)})
_wp = Tokenizer(models.WordPiece({w: i for i, w in enumerate(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"] + _words)},
                                 unk_token="[UNK]"))
_wp.normalizer = normalizers.BertNormalizer(lowercase=True)
_wp.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
_tok = transformers.PreTrainedTokenizerFast(tokenizer_object=_wp, pad_token="[PAD]", unk_token="[UNK]",
                                            cls_token="[CLS]", sep_token="[SEP]", mask_token="[MASK]")
_config = transformers.BertConfig(vocab_size=len(_tok), hidden_size=32, num_hidden_layers=1, num_attention_heads=2,
                                  intermediate_size=64, max_position_embeddings=128, num_labels=2)
_scores = hf_fine_tune(transformers.BertForSequenceClassification(_config), _tok, epochs=1)
assert set(_scores) == {"in_domain_dev", "out_of_domain_dev"} and all(-1 <= v <= 1 for v in _scores.values()), _scores
print("tiny random BERT:", _scores)
'''


@pytest.mark.parametrize("master", MASTERS, ids=lambda p: p.stem)
def test_master_runs_top_to_bottom_in_smoke_mode(master, course_data_env, tmp_path, monkeypatch):
    for key, value in {**course_data_env, "SEQCOURSE_SMOKE": "1"}.items():
        monkeypatch.setenv(key, value)
    monkeypatch.delenv("MPLBACKEND", raising=False)  # the kernel's inline backend records the figures
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")   # nothing is fetched from the Hugging Face hub: fail at once, no retries
    nb = course.runnable_master(master.stem)
    if master.stem == "07_bert_cola":   # its optional section's code, offline
        nb.cells.append(nbformat.v4.new_code_cell(HF_TINY_BERT))
    NotebookClient(nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}).execute()
    if master.stem == "07_bert_cola":
        assert "tiny random BERT:" in nb.cells[-1].outputs[0].text
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", []) if o.output_type == "error"]
    assert not errors
    images = sum("image/png" in o.get("data", {}) for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", []))
    assert images >= 2, "the figures were not drawn"


@pytest.mark.parametrize("master", MASTERS, ids=lambda p: p.stem)
def test_student_notebook_with_answers_pasted_passes_its_checks_and_exports(master, course_data_env, tmp_path, monkeypatch):
    """The student flow: open the released notebook (public tests beside it), fill the TODO cells, run
    everything; every grader.check passes and grader.export writes the submission zip."""
    name = master.stem
    for key, value in {**course_data_env, "SEQCOURSE_SMOKE": "1"}.items():
        monkeypatch.setenv(key, value)
    monkeypatch.delenv("MPLBACKEND", raising=False)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")   # as above: the cells that download from the hub fail at once
    folder = tmp_path / name
    shutil.copytree(ROOT / "notebooks" / name, folder)
    nb = nbformat.read(folder / f"{name}.ipynb", as_version=4)
    answers = paste_answers(nb, master)
    assert answers >= 6
    nbformat.write(nb, folder / f"{name}.ipynb")
    NotebookClient(nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(folder)}}).execute()

    checks = [c for c in nb.cells if c.cell_type == "code" and c.source.startswith("grader.check(")]
    assert len(checks) == answers
    for cell in checks:
        text = "".join(o.get("data", {}).get("text/plain", "") for o in cell.outputs)
        assert "All test cases passed" in text, f"{cell.source}: {text}"
    assert list(folder.glob(f"{name}_*.zip")), "grader.export() wrote no submission zip"


COLAB_STANDIN = '''"""Stand-in for Colab's google.colab (tests only): importing it makes the IPython shell look like
Colab's to Otter, whose Colab checks read the shell's class name. An IPython startup file imports it
when the kernel starts, as Colab's own kernel does."""
from IPython import get_ipython

_shell = get_ipython()
if _shell is not None and not type(_shell).__module__.startswith("google.colab"):
    _shell.__class__ = type("Shell", (type(_shell),), {"__module__": "google.colab._shell"})
'''


def test_student_notebook_alone_on_colab_downloads_public_files_and_passes_its_checks(course_build, multi30k_env, tmp_path, monkeypatch):
    """A released notebook alone in an empty folder, a stand-in google.colab, the public repository served
    from 127.0.0.1 and no package index: its first cell fetches the helper package and the public tests,
    and every grader.check passes once the answers are pasted in."""
    name = MASTERS[0].stem
    public = tmp_path / "public"
    config = course.load_config()
    course.publish(course_build[name].student_dir.parent, public, config)
    url, server = serve(public)
    script = public / "colab_setup.py"
    script.write_text(script.read_text().replace(config["raw_url"], url))
    standin = tmp_path / "standin"
    (standin / "google" / "colab").mkdir(parents=True)
    (standin / "google" / "colab" / "__init__.py").write_text(COLAB_STANDIN)
    startup = tmp_path / "ipython" / "profile_default" / "startup"
    startup.mkdir(parents=True)
    (startup / "00-colab.py").write_text("import google.colab\n")
    for key, value in {**multi30k_env, "SEQCOURSE_SMOKE": "1", "PIP_NO_INDEX": "1", "PYTHONPATH": str(standin),
                       "IPYTHONDIR": str(tmp_path / "ipython")}.items():
        monkeypatch.setenv(key, value)
    monkeypatch.delenv("MPLBACKEND", raising=False)

    nb = nbformat.read(course_build[name].student_dir / f"{name}.ipynb", as_version=4)
    setup = nb.cells[1]
    assert "otter_ignore" in setup.metadata["tags"] and config["raw_url"] in setup.source
    setup.source = setup.source.replace(config["raw_url"], url)
    answers = paste_answers(nb, MASTERS[0])
    nb.cells.append(nbformat.v4.new_code_cell("import seqcourse\nprint(seqcourse.__file__)"))
    content = tmp_path / "content"
    content.mkdir()
    try:
        NotebookClient(nb, timeout=600, kernel_name="python3", allow_errors=True,
                       resources={"metadata": {"path": str(content)}}).execute()
    finally:
        server.shutdown()

    errors = [(c.source, o.evalue) for c in nb.cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"]
    assert len(errors) == 1 and "grader.export(" in errors[0][0], errors  # the notebook tells Colab users so
    assert "not compatible with Google Colab" in errors[0][1]
    checks = [c for c in nb.cells if c.cell_type == "code" and c.source.startswith("grader.check(")]
    assert len(checks) == answers
    for cell in checks:
        text = "".join(o.get("data", {}).get("text/plain", "") for o in cell.outputs)
        assert "All test cases passed" in text, f"{cell.source}: {text}"
    assert str(content / "seqcourse") in nb.cells[-1].outputs[0].text, "the helper package did not come from the download"
    assert (content / f"{name}.ipynb").is_file()
    fetched = sorted(p.name for p in (content / "tests").iterdir())
    assert fetched == sorted(p.name for p in (course_build[name].student_dir / "tests").iterdir())
    assert not any("'hidden': True" in (content / "tests" / f).read_text() for f in fetched)
