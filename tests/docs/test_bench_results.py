"""``bench/RESULTS.md`` holds the current figures only (their history is in git), and every link into it lands."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "bench" / "RESULTS.md"


def _anchors(markdown: str) -> set[str]:
    """GitHub's anchors of the headings: lower case, punctuation dropped, spaces as dashes."""
    headings = re.findall(r"^#+ (.+)$", markdown, flags=re.MULTILINE)
    return {re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-") for h in headings}


def test_the_benchmark_results_stay_within_30_kb():
    assert RESULTS.stat().st_size <= 30_000


def test_every_link_into_the_benchmark_results_names_a_heading_it_has():
    anchors = _anchors(RESULTS.read_text())
    linking = [ROOT / "README.md", ROOT / "bench" / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    wrong = [
        f"{path.relative_to(ROOT)}: #{anchor}"
        for path in linking
        for anchor in re.findall(r"RESULTS\.md#([\w\-]+)", path.read_text())
        if anchor not in anchors
    ]
    assert wrong == []
