"""WordNet's example sentences and definitions: the data files' format, Debian's files, Princeton's tarball over HTTP
from a mirror on 127.0.0.1, and a corrupt download."""

from __future__ import annotations

import hashlib
import io
import tarfile
from pathlib import Path

import pytest

from conftest import serve
from seqcourse import DataError
from seqcourse import data
from seqcourse.data import WORDNET_FILES, WORDNET_TARBALL, load_wordnet, split_gloss

LICENCE = ("  1 This software and database is being provided to you, the LICENSEE, by  \n"
           "  2 Princeton University under the following license.  By obtaining, using  \n"
           "  3   \n")
# synset lines as in WordNet 3.0's data files (wndb(5)); the pointers are shortened, the glosses are WordNet's
FILES = {
    "data.noun": LICENCE + (
        "00001740 03 n 01 entity 0 003 ~ 00001930 n 0000 | that which is perceived or known or inferred to have its "
        "own distinct existence (living or nonliving)  \n"
        "03044934 06 n 01 clipboard 0 001 @ 03094503 n 0000 | a small writing board with a clip at the top for "
        "holding papers; \"he came in with a clipboard\"  \n"),
    "data.verb": LICENCE + (
        "00001740 29 v 04 breathe 0 take_a_breath 0 002 $ 00001740 v 0000 | draw air into, and expel out of, the "
        "lungs; \"I can breathe better when the air is clean\"; \"The patient is respiring\"  \n"),
    "data.adj": LICENCE + (
        "01318584 00 a 01 nascent 0 000 | being born or beginning; \"the nascent chicks\"; \"a nascent "
        "insurgency\"  \n"
        "01740892 00 s 01 delicate 0 000 | set down according to a plan:\"a carefully laid table\"; \"I can "
        "breathe better when the air is clean\"  \n"),
    "data.adv": LICENCE + (
        "00002621 02 r 02 barely 0 hardly 0 000 | only a very short time before; \"they could barely hear the "
        "speaker\"; \"would have scarce arrived before she would have found some excuse to leave\"- W.B.Yeats  \n"
        "00015471 02 r 01 okay 0 000 | \"she'll do okay on her own\"  \n"),
}
EXAMPLES = ["he came in with a clipboard", "I can breathe better when the air is clean", "The patient is respiring",
            "the nascent chicks", "a nascent insurgency", "a carefully laid table", "they could barely hear the speaker",
            "would have scarce arrived before she would have found some excuse to leave", "she'll do okay on her own"]
DEFINITIONS = ["that which is perceived or known or inferred to have its own distinct existence (living or nonliving)",
               "a small writing board with a clip at the top for holding papers",
               "draw air into, and expel out of, the lungs", "being born or beginning",
               "set down according to a plan", "only a very short time before"]


def _write_dict(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in FILES.items():
        (folder / name).write_text(text, encoding="utf-8")
    return folder


def _tarball(folder: Path, files: dict = FILES) -> Path:
    """A WordNet-3.0.tar.bz2 laid out as Princeton's (WordNet-3.0/dict/data.*), holding ``files``."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / WORDNET_TARBALL
    with tarfile.open(path, "w:bz2") as tar:
        for name, text in {"README": "WordNet 3.0\n", **files}.items():
            raw = text.encode()
            info = tarfile.TarInfo(("WordNet-3.0/" if name == "README" else "WordNet-3.0/dict/") + name)
            info.size = len(raw)
            tar.addfile(info, io.BytesIO(raw))
    return path


@pytest.fixture
def no_debian(tmp_path, monkeypatch):
    """A machine without Debian's wordnet-base."""
    monkeypatch.setattr(data, "DEBIAN_WORDNET", tmp_path / "no-debian")


def _pin(monkeypatch, tarball: Path) -> None:
    """Pin the test's tarball in place of Princeton's (the real one cannot be fetched offline)."""
    monkeypatch.setitem(data.WORDNET_SHA256, WORDNET_TARBALL, hashlib.sha256(tarball.read_bytes()).hexdigest())


def test_gloss_is_split_into_definition_and_examples():
    assert split_gloss('in a reflex manner; "he answered automatically"') == ("in a reflex manner",
                                                                             ["he answered automatically"])
    assert split_gloss('roll around, "pigs were wallowing in the mud"') == ("roll around",
                                                                           ["pigs were wallowing in the mud"])
    assert split_gloss('"she\'ll do okay"; "held up all right"') == ("", ["she'll do okay", "held up all right"])
    assert split_gloss("a place where ships may ride at anchor") == ("a place where ships may ride at anchor", [])


def test_a_folder_of_data_files_gives_distinct_examples_and_definitions_in_file_order(tmp_path):
    folder = _write_dict(tmp_path / "dict")
    assert load_wordnet(dict_dir=folder, mirror="http://127.0.0.1:9/") == EXAMPLES   # no source contacted
    assert load_wordnet("definitions", dict_dir=folder) == DEFINITIONS
    with pytest.raises(DataError, match="'examples' or 'definitions'"):
        load_wordnet("glosses", dict_dir=folder)
    (folder / "data.adv").unlink()
    with pytest.raises(DataError, match="lacks WordNet's data.adv"):
        load_wordnet(dict_dir=folder)
    (folder / "data.adj").write_text(LICENCE + "01318584 00 a 01 nascent 0 000 being born\n")
    (folder / "data.adv").write_text(FILES["data.adv"])
    with pytest.raises(DataError, match="line 4 is not a WordNet synset line"):
        load_wordnet(dict_dir=folder)


def test_debian_files_are_read_where_installed(tmp_path, monkeypatch):
    monkeypatch.setattr(data, "DEBIAN_WORDNET", _write_dict(tmp_path / "usr-share-wordnet"))
    assert load_wordnet(data_dir=tmp_path / "data", mirror="http://127.0.0.1:9/") == EXAMPLES
    assert not (tmp_path / "data").exists(), "nothing is downloaded where Debian's files are installed"


def test_without_debian_files_the_tarball_comes_from_the_mirror_is_verified_and_kept(tmp_path, monkeypatch, no_debian):
    tarball = _tarball(tmp_path / "mirror" / "wordnet")   # a mirror's subfolder per dataset
    _pin(monkeypatch, tarball)
    url, server = serve(tmp_path / "mirror")
    try:
        assert load_wordnet(data_dir=tmp_path / "data", mirror=url) == EXAMPLES
    finally:
        server.shutdown()
    assert [p.name for p in (tmp_path / "data").iterdir()] == [WORDNET_TARBALL]
    # once kept, no source is needed
    assert load_wordnet("definitions", data_dir=tmp_path / "data", mirror="http://127.0.0.1:9/") == DEFINITIONS


def test_corrupt_download_is_rejected_and_nothing_is_kept(tmp_path, monkeypatch, no_debian):
    tarball = _tarball(tmp_path / "good")
    _pin(monkeypatch, tarball)
    raw = bytearray(tarball.read_bytes())
    raw[len(raw) // 2] ^= 0xFF
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / WORDNET_TARBALL).write_bytes(bytes(raw))
    url, server = serve(tmp_path / "bad")
    try:
        with pytest.raises(DataError, match=r"WordNet-3\.0\.tar\.bz2 from .* is corrupt: sha256"):
            load_wordnet(data_dir=tmp_path / "data", mirror=url)
    finally:
        server.shutdown()
    assert list((tmp_path / "data").iterdir()) == []


def test_offline_without_debian_files_says_what_to_do(tmp_path, no_debian):
    with pytest.raises(DataError) as info:
        load_wordnet(data_dir=tmp_path, mirror="http://127.0.0.1:9/")
    assert "WordNet-3.0.tar.bz2" in str(info.value) and "SEQCOURSE_DATA_MIRROR" in str(info.value)
    assert not any(tmp_path.iterdir())


def test_a_verified_tarball_without_the_data_files_is_refused(tmp_path, monkeypatch, no_debian):
    tarball = _tarball(tmp_path / "mirror", {k: v for k, v in FILES.items() if k != "data.verb"})
    _pin(monkeypatch, tarball)
    with pytest.raises(DataError, match="has no dict/data.verb"):
        load_wordnet(data_dir=tmp_path / "data", mirror=tmp_path / "mirror")


@pytest.mark.skipif(not all((data.DEBIAN_WORDNET / name).is_file() for name in WORDNET_FILES),
                    reason="Debian's wordnet-base is not installed")
def test_debian_wordnet_counts():
    """The counts data/README.md states, from Debian's wordnet-base (1:3.0-37)."""
    examples = load_wordnet()
    assert (len(examples), sum(len(e.split()) for e in examples)) == (48_223, 285_623)
