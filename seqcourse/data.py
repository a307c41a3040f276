"""Multi30k (German-English) download, verification and loading, and the synthetic
number-words task.

The raw files come from the public Multi30k repository, pinned to one commit, and every
file is checked against its sha256 before it is used. Downloads are written to a temporary
file and moved into place only once verified, so an interrupted or corrupt transfer never
leaves a file behind.

Where the files come from, in order:
1. ``data_dir`` (default: ``$SEQCOURSE_DATA_DIR``, else the repository's ``data/`` folder),
   if a verified copy is already there;
2. ``mirror`` (default: ``$SEQCOURSE_DATA_MIRROR``): a local folder or an http(s)/file URL
   holding the same file names, for offline machines and classrooms;
3. the public source, ``MULTI30K_URL``.
"""

from __future__ import annotations

import gzip
import hashlib
import os
import random
import shutil
import tempfile
import urllib.error
import urllib.request
from pathlib import Path

MULTI30K_COMMIT = "a3d2e0d26b56f3846f66a952536ffed4e401d05a"
MULTI30K_URL = f"https://raw.githubusercontent.com/multi30k/dataset/{MULTI30K_COMMIT}/data/task1/raw/"

# sha256 of each .gz file as published at MULTI30K_COMMIT.
SHA256 = {
    "train.de.gz": "726e39b2fa9eb9ffb6dc763fb35a179f80fae06ffc5d28b6ace5faa883de28a6",
    "train.en.gz": "d79cfa999dd4c51d2cb42499b6796d5a882c3a8a961923c25a898c90f8bbd56f",
    "val.de.gz": "f0cba2f995189cf5770f29a8a9a537a3ad3f51657ad873405082ff6863a5e75a",
    "val.en.gz": "14f7d25ddd868909a9213e361768460edcacdd6ab9d1e77b92560dc10c10dc28",
    "test_2016_flickr.de.gz": "9204244e408ccb38d2a55cfcd344df15005fc42a07a6e55ca6c52b6ababb8cc8",
    "test_2016_flickr.en.gz": "611d361c6334bc7246101d48097c13cf5c4413c5befc793cc629934359d532d9",
    "test_2017_flickr.de.gz": "a2c89666db00c495cd8513b9d708d5a3acc205d7de312ef2bf5fb7ebc1540aee",
    "test_2017_flickr.en.gz": "76a444ee25172e72695cddb13ae4a3bda59430617be88e0bb46b60504f054074",
    "test_2017_mscoco.de.gz": "799e4854c25d601cb6cb6be29eabe5667734c61ace2f495e03e429031a0bc338",
    "test_2017_mscoco.en.gz": "aab300bfb4427697987e02cd0aacd44bfe8aa50456231b6474c08038bbed2b58",
    "test_2018_flickr.de.gz": "ddd0130c7d97482dc5197a02141dae8dd79f20f03586c480d675c09a32daf608",
    "test_2018_flickr.en.gz": "ef4f4844037d4c5dea75c9a8ed5fd78905967a26f67c255e230cc9780032654d",
}

# Split name used by the course -> file stem in the Multi30k repository.
SPLITS = {
    "train": "train",
    "validation": "val",
    "test": "test_2016_flickr",
    "test_2017": "test_2017_flickr",
    "test_2017_mscoco": "test_2017_mscoco",
    "test_2018": "test_2018_flickr",
}
DEFAULT_SPLITS = ("train", "validation", "test")


class DataError(RuntimeError):
    """A data file could not be obtained or failed verification. The message says what to do."""


def default_data_dir() -> Path:
    """``$SEQCOURSE_DATA_DIR`` if set; else the repository's ``data/`` folder (an editable
    install); else ``~/.cache/seqcourse``."""
    if os.environ.get("SEQCOURSE_DATA_DIR"):
        return Path(os.environ["SEQCOURSE_DATA_DIR"])
    repo_data = Path(__file__).resolve().parents[1] / "data"
    if (repo_data / "README.md").is_file():
        return repo_data
    return Path.home() / ".cache" / "seqcourse"


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _fetch(source: str, dest: Path, timeout: float) -> None:
    """Copy a local path or a URL to ``dest`` (a temporary file). Raises OSError or
    urllib errors; an early end of an http transfer raises http.client.IncompleteRead."""
    if "://" not in source:
        shutil.copyfile(source, dest)
        return
    with urllib.request.urlopen(source, timeout=timeout) as response, open(dest, "wb") as out:
        expected = response.headers.get("Content-Length")
        n = 0
        for block in iter(lambda: response.read(1 << 16), b""):
            out.write(block)
            n += len(block)
        if expected is not None and n != int(expected):
            raise OSError(f"transfer ended after {n} of {expected} bytes")


def _source_for(name: str, mirror: str | os.PathLike | None) -> str:
    if mirror is None:
        return MULTI30K_URL + name
    mirror = str(mirror)
    if "://" in mirror:
        return mirror.rstrip("/") + "/" + name
    return str(Path(mirror) / name)


def fetch_file(name: str, data_dir: str | os.PathLike | None = None,
               mirror: str | os.PathLike | None = None, timeout: float = 60.0) -> Path:
    """Return the path of a verified copy of Multi30k file ``name`` (e.g. ``"train.de.gz"``),
    downloading it into ``data_dir`` first if needed.

    A cached copy whose checksum does not match is replaced. A download that fails, stops
    early or does not match the checksum leaves nothing behind and raises ``DataError``.
    """
    if name not in SHA256:
        raise DataError(f"unknown Multi30k file {name!r}; known files: {', '.join(SHA256)}")
    data_dir = Path(data_dir) if data_dir is not None else default_data_dir()
    if mirror is None:
        mirror = os.environ.get("SEQCOURSE_DATA_MIRROR") or None
    target = data_dir / name
    if target.is_file() and _sha256(target) == SHA256[name]:
        return target

    source = _source_for(name, mirror)
    data_dir.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{name}.", suffix=".part", dir=data_dir)
    os.close(fd)
    tmp = Path(tmp_name)
    try:
        try:
            _fetch(source, tmp, timeout)
        except Exception as exc:  # network errors, missing mirror files, early end of transfer
            raise DataError(
                f"could not get {name} from {source}: {exc}.\n"
                "If this machine is offline, set SEQCOURSE_DATA_MIRROR to a folder or URL that holds "
                f"the Multi30k files, or copy {name} into {data_dir} (see data/README.md)."
            ) from exc
        got = _sha256(tmp)
        if got != SHA256[name]:
            raise DataError(
                f"{name} from {source} is corrupt: sha256 {got}, expected {SHA256[name]}.\n"
                "Nothing was saved. Try again; if it persists, the source or mirror holds a "
                "different file: fetch it from " + MULTI30K_URL + name
            )
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)
    return target


def read_lines(path: str | os.PathLike) -> list[str]:
    """Lines of a gzip-compressed UTF-8 text file, without their newlines."""
    with gzip.open(path, "rt", encoding="utf-8") as f:
        return [line.rstrip("\n") for line in f]


def load_multi30k(splits=DEFAULT_SPLITS, data_dir=None, mirror=None, limit: int | None = None):
    """Multi30k German-English as a ``datasets.DatasetDict`` with columns ``de`` and ``en``.

    splits: names from ``SPLITS`` (default train / validation / test = test_2016_flickr).
    limit: keep only the first ``limit`` pairs of every split (smoke runs).
    Built from the local files only: no Hugging Face hub access.
    """
    from datasets import Dataset, DatasetDict

    out = {}
    for split in splits:
        if split not in SPLITS:
            raise DataError(f"unknown split {split!r}; known splits: {', '.join(SPLITS)}")
        columns = {}
        for lang in ("de", "en"):
            columns[lang] = read_lines(fetch_file(f"{SPLITS[split]}.{lang}.gz", data_dir, mirror))[:limit]
        if len(columns["de"]) != len(columns["en"]):
            raise DataError(f"{split}: {len(columns['de'])} German lines but {len(columns['en'])} English")
        out[split] = Dataset.from_dict(columns)
    return DatasetDict(out)


# --- number words -> digits -------------------------------------------------------------

_ONES = "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen " \
        "fifteen sixteen seventeen eighteen nineteen".split()
_TENS = "_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()


def _below_thousand(n: int) -> list[str]:
    words = []
    hundreds, rest = divmod(n, 100)
    if hundreds:
        words += [_ONES[hundreds], "hundred"]
        if rest:
            words.append("and")
    if rest >= 20:
        tens, ones = divmod(rest, 10)
        words.append(_TENS[tens])
        if ones:
            words.append(_ONES[ones])
    elif rest or not hundreds:
        words.append(_ONES[rest])
    return words


def number_to_words(n: int) -> str:
    """British English words for 0 <= n < 1,000,000: 312 -> 'three hundred and twelve'."""
    if not 0 <= n < 1_000_000:
        raise ValueError(f"n must be in [0, 1000000), got {n}")
    thousands, rest = divmod(n, 1000)
    words = []
    if thousands:
        words += _below_thousand(thousands) + ["thousand"]
        if rest and rest < 100:
            words.append("and")
    if rest or not thousands:
        words += _below_thousand(rest)
    return " ".join(words)


def number_words_task(n_train: int = 20000, n_val: int = 1000, n_test: int = 1000,
                      max_value: int = 999_999, seed: int = 0):
    """The synthetic translation task "number words -> digits" as a ``datasets.DatasetDict``
    with columns ``src`` ("three hundred and twelve") and ``tgt`` ("3 1 2").

    Numbers are drawn without replacement from [0, max_value], so the splits are disjoint;
    the same arguments always give the same splits.
    """
    from datasets import Dataset, DatasetDict

    total = n_train + n_val + n_test
    if total > max_value + 1:
        raise ValueError(f"{total} distinct numbers requested but only {max_value + 1} exist")
    numbers = random.Random(seed).sample(range(max_value + 1), total)
    cuts = {"train": numbers[:n_train], "validation": numbers[n_train:n_train + n_val],
            "test": numbers[n_train + n_val:]}
    return DatasetDict({
        split: Dataset.from_dict({"src": [number_to_words(n) for n in ns],
                                  "tgt": [" ".join(str(n)) for n in ns]})
        for split, ns in cuts.items()
    })
