"""Multi30k and CoLA download and verification through the real HTTP path, and the synthetic task."""

from __future__ import annotations

import http.server
import time
from pathlib import Path

import pytest

from conftest import serve
from seqcourse import DataError, load_cola, load_multi30k, number_to_words, number_words_task
from seqcourse.data import COLA_SHA256, MULTI30K_URL, SHA256, _sha256, fetch_file


def test_download_from_http_mirror_verifies_and_loads(mirror_url, tmp_path):
    ds = load_multi30k(data_dir=tmp_path, mirror=mirror_url)
    assert {k: len(v) for k, v in ds.items()} == {"train": 29000, "validation": 1014, "test": 1000}
    assert ds["train"][0]["en"].startswith("Two young, White males are outside")
    for name in ("train.de.gz", "train.en.gz", "val.de.gz", "val.en.gz",
                 "test_2016_flickr.de.gz", "test_2016_flickr.en.gz"):
        assert _sha256(tmp_path / name) == SHA256[name]
    assert not list(tmp_path.glob("*.part")), "temporary files left behind"


def test_folder_mirror_and_optional_splits(mirror_dir, tmp_path):
    ds = load_multi30k(["test_2017", "test_2018"], data_dir=tmp_path, mirror=mirror_dir)
    assert len(ds["test_2017"]) == 1000 and len(ds["test_2018"]) == 1071


def test_cached_files_are_used_without_any_source(mirror_dir, tmp_path):
    fetch_file("val.en.gz", tmp_path, mirror_dir)
    # an unreachable mirror is never contacted when a verified copy exists
    assert fetch_file("val.en.gz", tmp_path, "http://127.0.0.1:9/").is_file()


def test_corrupt_transfer_is_rejected_and_nothing_is_kept(mirror_dir, tmp_path):
    bad = tmp_path / "bad_mirror"
    bad.mkdir()
    data = bytearray((mirror_dir / "val.en.gz").read_bytes())
    data[100] ^= 0xFF
    (bad / "val.en.gz").write_bytes(bytes(data))
    url, server = serve(bad)
    target = tmp_path / "data"
    try:
        with pytest.raises(DataError, match=r"val\.en\.gz .* is corrupt: sha256"):
            fetch_file("val.en.gz", target, url)
    finally:
        server.shutdown()
    assert list(target.iterdir()) == []


class _Truncating(http.server.SimpleHTTPRequestHandler):
    """Announces the full length, sends half the file, then closes the connection."""

    def log_message(self, *args):
        pass

    def do_GET(self):
        path = Path(self.directory) / self.path.lstrip("/")
        if not path.is_file():
            self.send_error(404)
            return
        body = path.read_bytes()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body[: len(body) // 2])
        self.wfile.flush()
        self.close_connection = True


def test_interrupted_transfer_is_rejected_and_nothing_is_kept(mirror_dir, tmp_path):
    url, server = serve(mirror_dir, _Truncating)
    target = tmp_path / "data"
    try:
        with pytest.raises(DataError, match=r"could not get val\.de\.gz"):
            fetch_file("val.de.gz", target, url, timeout=10)
    finally:
        server.shutdown()
    assert list(target.iterdir()) == []


def test_offline_with_nothing_cached_says_what_to_do(tmp_path):
    with pytest.raises(DataError) as info:
        fetch_file("train.en.gz", tmp_path, "http://127.0.0.1:9/")
    msg = str(info.value)
    assert "train.en.gz" in msg and "SEQCOURSE_DATA_MIRROR" in msg
    # what to do, in the message itself: a student on Colab has no data/README.md
    assert MULTI30K_URL + "train.en.gz" in msg and str(tmp_path) in msg and "README" not in msg
    assert not any(tmp_path.iterdir())


def test_corrupt_cached_file_is_replaced(mirror_dir, tmp_path):
    (tmp_path / "val.de.gz").write_bytes(b"not gzip")
    path = fetch_file("val.de.gz", tmp_path, mirror_dir)
    assert _sha256(path) == SHA256["val.de.gz"]


def test_missing_mirror_file_and_unknown_names(tmp_path):
    with pytest.raises(DataError, match="could not get val.de.gz"):
        fetch_file("val.de.gz", tmp_path / "data", tmp_path)  # empty folder as mirror
    with pytest.raises(DataError, match="unknown Multi30k file"):
        fetch_file("train.fr.gz", tmp_path)
    with pytest.raises(DataError, match="unknown split"):
        load_multi30k(["dev"], data_dir=tmp_path)


def test_environment_variables_select_folder_and_mirror(mirror_dir, tmp_path, monkeypatch):
    monkeypatch.setenv("SEQCOURSE_DATA_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("SEQCOURSE_DATA_MIRROR", str(mirror_dir))
    assert fetch_file("val.en.gz") == tmp_path / "cache" / "val.en.gz"


def test_cola_from_http_mirror_is_decompressed_verified_and_loaded(cola_url, tmp_path):
    """The shared mirror holds CoLA's files gzip-compressed; the course keeps and verifies the raw .tsv."""
    ds = load_cola(data_dir=tmp_path, mirror=cola_url)
    assert {k: len(v) for k, v in ds.items()} == {"train": 8551, "in_domain_dev": 527, "out_of_domain_dev": 516}
    assert [sum(ds[s]["label"]) for s in ds] == [6023, 365, 354]
    row = ds["train"][0]
    assert row == {"sentence": "Our friends won't buy this analysis, let alone the next one we propose.", "label": 1,
                   "source": "gj04"}
    for name in COLA_SHA256:
        assert _sha256(tmp_path / name) == COLA_SHA256[name]
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(COLA_SHA256), "temporary files left behind"


def test_one_mirror_with_a_subfolder_per_dataset_serves_both(mirror_dir, cola_dir, tmp_path):
    both = tmp_path / "mirror"
    (both / "multi30k").mkdir(parents=True)
    (both / "cola").mkdir()
    for name in ("val.de.gz", "val.en.gz"):
        (both / "multi30k" / name).write_bytes((mirror_dir / name).read_bytes())
    (both / "cola" / "in_domain_dev.tsv.gz").write_bytes((cola_dir / "in_domain_dev.tsv.gz").read_bytes())
    url, server = serve(both)
    try:
        assert len(load_multi30k(["validation"], data_dir=tmp_path / "a", mirror=url)["validation"]) == 1014
        assert len(load_cola(["in_domain_dev"], data_dir=tmp_path / "a", mirror=url)["in_domain_dev"]) == 527
    finally:
        server.shutdown()
    assert len(load_cola(["in_domain_dev"], data_dir=tmp_path / "b", mirror=both, limit=7)["in_domain_dev"]) == 7


def test_cola_uncompressed_in_the_mirror_as_github_serves_it(cola_dir, tmp_path):
    import gzip

    flat = tmp_path / "flat"
    flat.mkdir()
    (flat / "out_of_domain_dev.tsv").write_bytes(gzip.decompress((cola_dir / "out_of_domain_dev.tsv.gz").read_bytes()))
    path = fetch_file("out_of_domain_dev.tsv", tmp_path / "data", flat, dataset="cola")
    assert _sha256(path) == COLA_SHA256["out_of_domain_dev.tsv"]


@pytest.mark.parametrize("damage", ["a changed byte", "not gzip"])
def test_corrupt_cola_file_is_rejected_and_nothing_is_kept(cola_dir, tmp_path, damage):
    import gzip

    bad = tmp_path / "bad_mirror"
    bad.mkdir()
    if damage == "a changed byte":  # a valid gzip file whose content differs
        raw = bytearray(gzip.decompress((cola_dir / "in_domain_dev.tsv.gz").read_bytes()))
        raw[100] ^= 0x01
        (bad / "in_domain_dev.tsv.gz").write_bytes(gzip.compress(bytes(raw)))
    else:
        (bad / "in_domain_dev.tsv.gz").write_bytes((cola_dir / "in_domain_dev.tsv.gz").read_bytes()[:-40])
    url, server = serve(bad)
    target = tmp_path / "data"
    try:
        with pytest.raises(DataError, match=r"in_domain_dev\.tsv .* is corrupt"):
            load_cola(["in_domain_dev"], data_dir=target, mirror=url)
    finally:
        server.shutdown()
    assert list(target.iterdir()) == []


def test_interrupted_cola_transfer_is_rejected_and_nothing_is_kept(cola_dir, tmp_path):
    url, server = serve(cola_dir, _Truncating)
    target = tmp_path / "data"
    try:
        with pytest.raises(DataError, match=r"could not get in_domain_train\.tsv"):
            fetch_file("in_domain_train.tsv", target, url, timeout=10, dataset="cola")
    finally:
        server.shutdown()
    assert list(target.iterdir()) == []


def test_cola_offline_with_nothing_cached_says_what_to_do(tmp_path, monkeypatch):
    monkeypatch.setenv("SEQCOURSE_DATA_MIRROR", "http://127.0.0.1:9/")
    with pytest.raises(DataError) as info:
        load_cola(["train"], data_dir=tmp_path)
    msg = str(info.value)
    assert "in_domain_train.tsv" in msg and "SEQCOURSE_DATA_MIRROR" in msg and "CoLA" in msg and "cola/" in msg
    assert not any(tmp_path.iterdir())


def test_cola_cached_files_need_no_source_and_bad_names_are_refused(cola_dir, tmp_path):
    load_cola(["in_domain_dev"], data_dir=tmp_path, mirror=cola_dir)
    assert len(load_cola(["in_domain_dev"], data_dir=tmp_path, mirror="http://127.0.0.1:9/")["in_domain_dev"]) == 527
    with pytest.raises(DataError, match="unknown CoLA split"):
        load_cola(["test"], data_dir=tmp_path)
    with pytest.raises(DataError, match="unknown CoLA file"):
        fetch_file("in_domain_test.tsv", tmp_path, dataset="cola")
    with pytest.raises(DataError, match="unknown dataset"):
        fetch_file("train.tsv", tmp_path, dataset="sst2")
    (tmp_path / "in_domain_dev.tsv").write_text("not\ta cola row\n")   # a corrupt cached copy is replaced
    assert len(load_cola(["in_domain_dev"], data_dir=tmp_path, mirror=cola_dir)["in_domain_dev"]) == 527


@pytest.mark.parametrize("n, words", [
    (0, "zero"), (7, "seven"), (15, "fifteen"), (40, "forty"), (312, "three hundred and twelve"),
    (1000, "one thousand"), (1005, "one thousand and five"),
    (21_340, "twenty one thousand three hundred and forty"),
    (100_012, "one hundred thousand and twelve"),
    (999_999, "nine hundred and ninety nine thousand nine hundred and ninety nine"),
])
def test_number_words(n, words):
    assert number_to_words(n) == words


def test_number_task_is_deterministic_disjoint_and_fast():
    start = time.perf_counter()
    a = number_words_task(seed=3)
    elapsed = time.perf_counter() - start
    b = number_words_task(seed=3)
    assert elapsed < 1.0
    assert a["train"]["src"] == b["train"]["src"]
    assert {k: len(v) for k, v in a.items()} == {"train": 20000, "validation": 1000, "test": 1000}
    splits = [set(a[s]["tgt"]) for s in ("train", "validation", "test")]
    assert not (splits[0] & splits[1] or splits[0] & splits[2] or splits[1] & splits[2])
    row = a["test"][0]
    assert number_to_words(int(row["tgt"].replace(" ", ""))) == row["src"]
    with pytest.raises(ValueError):
        number_words_task(n_train=10, n_val=0, n_test=0, max_value=5)
