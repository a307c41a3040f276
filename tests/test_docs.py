"""The documentation: README stays a front door (under 12 KB), every relative link in README and docs/
resolves, and the generated parts (docs/results.md's block, README's headline cells) are exactly what
tools/results.py writes from the committed results/."""

from __future__ import annotations

import re

import pytest

import results
from conftest import ROOT

README_LIMIT = 12 * 1024
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")


def test_readme_stays_under_its_size_limit():
    size = len((ROOT / "README.md").read_bytes())
    assert size < README_LIMIT, f"README.md is {size:,} bytes, over {README_LIMIT:,}: move detail into docs/"


def _anchors(text: str) -> set[str]:
    """GitHub's anchors of a page's headings (lowercase, punctuation dropped, spaces to hyphens)."""
    return {re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-")
            for h in re.findall(r"^#+ (.*)$", text, re.M)}


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_relative_link_resolves(page):
    text = page.read_text()
    broken = []
    for target in LINK.findall(text):
        if re.match(r"[a-z]+:", target):  # http(s), mailto: not checked here
            continue
        path, _, anchor = target.partition("#")
        file = (page.parent / path).resolve() if path else page
        if not file.exists() or ROOT.resolve() not in [file, *file.parents]:
            broken.append(target)
        elif anchor and file.suffix == ".md" and anchor not in _anchors(file.read_text()):
            broken.append(target)
    assert not broken, f"{page.name}: links to nothing: {broken}"


def test_results_page_and_readme_headlines_are_generated_from_the_results_files():
    docs, readme = (ROOT / "docs" / "results.md").read_text(), (ROOT / "README.md").read_text()
    assert results.docs_block(ROOT / "results") in docs, \
        "docs/results.md is stale: run `.venv/bin/python tools/results.py --docs`"
    assert results.readme_with_headlines(readme, ROOT / "results") == readme, \
        "README's headline cells are stale: run `.venv/bin/python tools/results.py --docs`"
    runs = results.load_runs(ROOT / "results")
    for name in runs:
        assert results.headline(name, runs) in readme, f"README's table has no row for {name}"


def test_results_tables_give_units_and_intervals():
    text = results.metric_tables({"a: training seconds": 12.345, "b: training seconds": 3.0, "test PPL": 24.44,
                                  "x: exact match": 0.992, "d, tokenised BLEU": -0.83, "d, 95 % low": -1.9,
                                  "d, 95 % high": 0.2, "sig": "case:mixed|tok:13a"})
    assert "| a | 12.3 s |" in text and "| b | 3.00 s |" in text, text
    assert "| d, tokenised BLEU [95 % interval] | -0.83 [-1.90, 0.2] |" in text, text
    assert "| x: exact match | 99.2 % |" in text and "| test PPL | 24.4 |" in text, text
    assert "case:mixed\\|tok:13a" in text, "a pipe inside a value must not split the table's cell"
