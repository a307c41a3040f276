"""Multi30k (German-English), CoLA and WordNet download, verification and loading, and the synthetic
number-words task.

The raw files come from each dataset's public repository, pinned to one commit, and every
file is checked against its sha256 before it is used. Downloads are written to a temporary
file and moved into place only once verified, so an interrupted or corrupt transfer never
leaves a file behind.

Where the files come from, in order:
1. ``data_dir`` (default: ``$SEQCOURSE_DATA_DIR``, else the repository's ``data/`` folder),
   if a verified copy is already there;
2. ``mirror`` (default: ``$SEQCOURSE_DATA_MIRROR``): a local folder or an http(s)/file URL
   for offline machines and classrooms. It may hold the files themselves, or one subfolder per
   dataset (``multi30k/``, ``cola/``), so one mirror serves every dataset; a CoLA file may also
   be there gzip-compressed (``in_domain_train.tsv.gz``), as it is verified after decompression;
3. the public source (``MULTI30K_URL``, ``COLA_URL``, ``WORDNET_URL``).

WordNet is read from Debian's ``wordnet-base`` files (``/usr/share/wordnet``) where they are installed;
elsewhere from Princeton's tarball, fetched as above.
"""

from __future__ import annotations

import gzip
import hashlib
import os
import random
import re
import shutil
import tarfile
import tempfile
import urllib.error
import urllib.request
from dataclasses import dataclass
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

COLA_COMMIT = "dd095d3646ed05a315280aaa8ed4ec84ba435b3e"
COLA_URL = (f"https://raw.githubusercontent.com/nyu-mll/CoLA-baselines/{COLA_COMMIT}"
            "/acceptability_corpus/cola_public/raw/")

# sha256 of each raw .tsv file as published at COLA_COMMIT (the files GitHub serves, uncompressed).
COLA_SHA256 = {
    "in_domain_train.tsv": "f320a10f92d3bce6b29152fde322a362eac39238e50d8de0c8815457fdf4fc12",
    "in_domain_dev.tsv": "77176f6a03faa5a1c4f23c69971fc1bff565931112fb65af47b2d6e24b7f42f7",
    "out_of_domain_dev.tsv": "201b9c57b2a20f1282242eec0ed8995729e3be19c29a46c047b3727338836c05",
}
COLA_SPLITS = {"train": "in_domain_train", "in_domain_dev": "in_domain_dev", "out_of_domain_dev": "out_of_domain_dev"}

WORDNET_URL = "https://wordnetcode.princeton.edu/3.0/"
# sha256 of Princeton's WordNet-3.0.tar.bz2, as pinned by Homebrew's formula (homebrew-core, Formula/w/wordnet.rb)
# and Arch's AUR PKGBUILD for wordnet. Princeton serves the same release as WordNet-3.0.tar.gz too; no recipe we
# could read pins that one, so the course fetches the .tar.bz2.
WORDNET_SHA256 = {"WordNet-3.0.tar.bz2": "6c492d0c7b4a40e7674d088191d3aa11f373bb1da60762e098b8ee2dda96ef22"}
WORDNET_TARBALL = "WordNet-3.0.tar.bz2"
WORDNET_FILES = ("data.noun", "data.verb", "data.adj", "data.adv")   # one file per part of speech, read in this order
DEBIAN_WORDNET = Path("/usr/share/wordnet")                          # where Debian's wordnet-base installs them


@dataclass(frozen=True)
class _Source:
    """One downloadable dataset: its name in messages, its subfolder in a mirror, where its files are
    published, their checksums, and whether a mirror may hold them gzip-compressed."""

    title: str
    folder: str
    url: str
    sha256: dict
    gz_in_mirror: bool = False


SOURCES = {
    "multi30k": _Source("Multi30k", "multi30k", MULTI30K_URL, SHA256),
    "cola": _Source("CoLA", "cola", COLA_URL, COLA_SHA256, gz_in_mirror=True),
    "wordnet": _Source("WordNet", "wordnet", WORDNET_URL, WORDNET_SHA256),
}


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


def _join(base: str, *parts: str) -> str:
    if "://" in base:
        return base.rstrip("/") + "/" + "/".join(parts)
    return str(Path(base, *parts))


def _candidates(name: str, mirror: str | os.PathLike | None, src: _Source) -> list[tuple[str, bool]]:
    """Where to look for file ``name``, in order: (location, gzip-compressed)."""
    if mirror is None:
        return [(src.url + name, False)]
    mirror = str(mirror)
    found = []
    for folder in ((), (src.folder,)):  # the mirror's top level, then its subfolder for this dataset
        found.append((_join(mirror, *folder, name), False))
        if src.gz_in_mirror:
            found.append((_join(mirror, *folder, name + ".gz"), True))
    return found


def _fetch_first(candidates: list[tuple[str, bool]], dest: Path, timeout: float) -> tuple[str, bool]:
    """Fetch the first candidate that exists into ``dest``; returns it. A local file that is missing or an
    http 404 moves on to the next candidate; any other failure (offline, interrupted) raises at once."""
    for location, gz in candidates:
        if "://" not in location and not Path(location).is_file():
            continue
        try:
            _fetch(location, dest, timeout)
        except urllib.error.HTTPError as exc:
            if exc.code == 404 and (location, gz) != candidates[-1]:
                continue
            raise
        return location, gz
    raise FileNotFoundError("not found at " + " or ".join(location for location, _ in candidates))


def fetch_file(name: str, data_dir: str | os.PathLike | None = None,
               mirror: str | os.PathLike | None = None, timeout: float = 60.0, dataset: str = "multi30k") -> Path:
    """Return the path of a verified copy of file ``name`` of ``dataset`` ("multi30k": e.g.
    ``"train.de.gz"``; "cola": e.g. ``"in_domain_dev.tsv"``), downloading it into ``data_dir`` first
    if needed.

    A cached copy whose checksum does not match is replaced. A download that fails, stops
    early or does not match the checksum leaves nothing behind and raises ``DataError``.
    """
    if dataset not in SOURCES:
        raise DataError(f"unknown dataset {dataset!r}; known datasets: {', '.join(SOURCES)}")
    src = SOURCES[dataset]
    if name not in src.sha256:
        raise DataError(f"unknown {src.title} file {name!r}; known files: {', '.join(src.sha256)}")
    data_dir = Path(data_dir) if data_dir is not None else default_data_dir()
    if mirror is None:
        mirror = os.environ.get("SEQCOURSE_DATA_MIRROR") or None
    target = data_dir / name
    expected = src.sha256[name]
    if target.is_file() and _sha256(target) == expected:
        return target

    candidates = _candidates(name, mirror, src)
    data_dir.mkdir(parents=True, exist_ok=True)
    tmps = []
    for suffix in (".part", ".gz.part"):
        fd, tmp_name = tempfile.mkstemp(prefix=f".{name}.", suffix=suffix, dir=data_dir)
        os.close(fd)
        tmps.append(Path(tmp_name))
    tmp, tmp_gz = tmps
    source = candidates[0][0]
    try:
        try:
            source, gz = _fetch_first(candidates, tmp_gz, timeout)
        except Exception as exc:  # network errors, missing mirror files, early end of transfer
            raise DataError(
                f"could not get {name} from {source}: {exc}.\n"
                f"Without internet access here: download {src.url + name} where you have it and copy the file "
                f"into {data_dir} (on Colab, upload it there in the Files pane), or set the environment variable "
                f"SEQCOURSE_DATA_MIRROR to a folder or URL that holds the {src.title} files (or a subfolder "
                f"{src.folder}/ with them). Every file is checked against its sha256 before it is used."
            ) from exc
        if gz:
            try:
                with gzip.open(tmp_gz, "rb") as f, open(tmp, "wb") as out:
                    shutil.copyfileobj(f, out)
            except (OSError, EOFError) as exc:  # not gzip, or cut short
                raise DataError(f"{name} from {source} is corrupt: it does not decompress ({exc}).\n"
                                "Nothing was saved. Fetch it again from " + src.url + name) from exc
        else:
            os.replace(tmp_gz, tmp)
        got = _sha256(tmp)
        if got != expected:
            raise DataError(
                f"{name} from {source} is corrupt: sha256 {got}, expected {expected}.\n"
                "Nothing was saved. Try again; if it persists, the source or mirror holds a "
                "different file: fetch it from " + src.url + name
            )
        os.replace(tmp, target)
    finally:
        for t in tmps:
            t.unlink(missing_ok=True)
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


def read_cola(path: str | os.PathLike) -> dict[str, list]:
    """The rows of a raw CoLA file (tab-separated: source code, label, the author's mark, sentence; no
    header) as columns ``sentence`` (str), ``label`` (int: 1 acceptable, 0 unacceptable), ``source``."""
    columns = {"sentence": [], "label": [], "source": []}
    with open(path, encoding="utf-8") as f:
        for i, line in enumerate(f, 1):
            parts = line.rstrip("\n").split("\t", 3)
            if len(parts) != 4 or parts[1] not in ("0", "1"):
                raise DataError(f"{path}, line {i}: not a CoLA row (source, label 0/1, mark, sentence)")
            columns["source"].append(parts[0])
            columns["label"].append(int(parts[1]))
            columns["sentence"].append(parts[3])
    return columns


def load_cola(splits=tuple(COLA_SPLITS), data_dir=None, mirror=None, limit: int | None = None):
    """CoLA, the Corpus of Linguistic Acceptability (Warstadt et al., 2019), as a ``datasets.DatasetDict``
    with columns ``sentence`` (str), ``label`` (int: 1 acceptable, 0 unacceptable) and ``source`` (the
    publication the sentence comes from).

    splits: ``train`` (in-domain training set, 8,551 sentences), ``in_domain_dev`` (527) and
    ``out_of_domain_dev`` (516; sentences from publications not in the training set). The test sets are
    not public. limit: keep only the first ``limit`` rows of every split (smoke runs).
    Built from the local files only: no Hugging Face hub access.
    """
    from datasets import Dataset, DatasetDict

    out = {}
    for split in splits:
        if split not in COLA_SPLITS:
            raise DataError(f"unknown CoLA split {split!r}; known splits: {', '.join(COLA_SPLITS)}")
        columns = read_cola(fetch_file(f"{COLA_SPLITS[split]}.tsv", data_dir, mirror, dataset="cola"))
        out[split] = Dataset.from_dict({k: v[:limit] for k, v in columns.items()})
    return DatasetDict(out)


def wordnet_glosses(lines) -> list[str]:
    """The glosses of a WordNet ``data.*`` file given as its lines, in file order (wndb(5): every synset is one
    line, its gloss the text after " | "; the licence lines at the top start with two spaces)."""
    glosses = []
    for i, line in enumerate(lines, 1):
        if line.startswith("  ") or not line.strip():
            continue
        if " | " not in line:
            raise DataError(f"line {i} is not a WordNet synset line (no ' | ' before a gloss): {line[:60]!r}")
        glosses.append(line.split(" | ", 1)[1].strip())
    return glosses


_QUOTED = re.compile(r'"([^"]*)"')


def split_gloss(gloss: str) -> tuple[str, list[str]]:
    """(definition, examples) of one gloss. The examples are its double-quoted parts ("he rode horseback to
    town"), stripped, where they hold a letter (an unbalanced quote can enclose a bare "; "); the definition is the text before the first quote, without the separator that follows it
    (usually "; "), or "" when the gloss starts with an example."""
    examples = [e.strip() for e in _QUOTED.findall(gloss)]
    definition = gloss.split('"', 1)[0].strip().rstrip(";,:").strip()
    return definition, [e for e in examples if any(c.isalpha() for c in e)]


def _wordnet_lines(dict_dir, data_dir, mirror, timeout):
    """{file name: its lines} of WORDNET_FILES: from ``dict_dir`` (default: Debian's, where all four files are
    installed), else from Princeton's tarball (fetched, sha256-checked and kept like the other datasets)."""
    folder = Path(dict_dir) if dict_dir is not None else DEBIAN_WORDNET
    if all((folder / name).is_file() for name in WORDNET_FILES):
        return {name: (folder / name).read_text(encoding="utf-8").splitlines() for name in WORDNET_FILES}
    if dict_dir is not None:
        missing = [name for name in WORDNET_FILES if not (folder / name).is_file()]
        raise DataError(f"{folder} lacks WordNet's {', '.join(missing)}; pass a folder holding all of "
                        f"{', '.join(WORDNET_FILES)}, or dict_dir=None to use Princeton's tarball")
    tarball = fetch_file(WORDNET_TARBALL, data_dir, mirror, timeout, dataset="wordnet")
    found = {}
    try:
        with tarfile.open(tarball, "r:bz2") as tar:
            for member in tar:
                name = member.name.rsplit("/", 1)[-1]
                if member.isfile() and member.name.endswith("/dict/" + name) and name in WORDNET_FILES:
                    found[name] = tar.extractfile(member).read().decode("utf-8").splitlines()
    except (tarfile.TarError, OSError, EOFError, UnicodeDecodeError) as exc:
        raise DataError(f"{tarball} passed its checksum but cannot be read ({exc})") from exc
    if len(found) < len(WORDNET_FILES):
        raise DataError(f"{tarball} has no dict/{', dict/'.join(sorted(set(WORDNET_FILES) - set(found)))}")
    return found


def load_wordnet(part: str = "examples", dict_dir=None, data_dir=None, mirror=None, timeout: float = 60.0) -> list[str]:
    """WordNet 3.0's example sentences (``part="examples"``) or definitions (``part="definitions"``), distinct,
    in the order of first appearance (nouns, verbs, adjectives, adverbs; within a file, synsets in file order).

    Read from ``dict_dir`` if given (a folder with ``data.noun``, ``data.verb``, ``data.adj``, ``data.adv``),
    else from Debian's ``wordnet-base`` files where they are installed (``/usr/share/wordnet``), else from
    Princeton's WordNet-3.0 tarball, downloaded once into ``data_dir`` and checked against its sha256 (``mirror``
    and ``$SEQCOURSE_DATA_MIRROR`` as for the other datasets; a mirror may keep it in a subfolder ``wordnet/``).
    Debian's files are regenerated from WordNet's sources and differ from the tarball's in whitespace and a few
    quotation marks (data/README.md).
    """
    if part not in ("examples", "definitions"):
        raise DataError(f"part must be 'examples' or 'definitions', got {part!r}")
    lines = _wordnet_lines(dict_dir, data_dir, mirror, timeout)
    seen = {}
    for name in WORDNET_FILES:
        for gloss in wordnet_glosses(lines[name]):
            definition, examples = split_gloss(gloss)
            for text in (examples if part == "examples" else [definition] if definition else []):
                seen.setdefault(text, None)
    return list(seen)


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
