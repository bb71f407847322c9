"""Every ``bash`` and ``python`` block in README.md and docs/*.md runs, so the docs cannot drift from the code.

Each document runs in a fresh folder holding a copy of the bundled ``data/`` and ``docs/examples/``, with
its own store and the fake models at zero latency. Every document starts from a store holding the bundled
runs, as the app seeds an empty store when it first opens (so a page may name them by id, and the README's
tour runs as a newcomer who opened the app first meets it); its blocks run in order, so a later block sees an
earlier block's runs and files. A bash line must be an ``evalcore`` command (run in this process, ``>`` and
``>>`` honoured) and exit 0. A block that cannot run here (a real API key, a server that runs until stopped,
an install) is preceded by a visible ``<!-- skip: why -->`` line, and :data:`SKIPPED` counts them, so a new
skip is a decision.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest

from evalcore.cli import main

ROOT = Path(__file__).resolve().parents[2]
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
RUNNABLE = ("bash", "python")
FENCE = re.compile(r"^```(\w*)\s*$")
SKIP = re.compile(r"^<!--\s*skip:\s*(.+?)\s*-->$")
#: Blocks marked ``<!-- skip: … -->``, per document.
SKIPPED = {
    "README.md": 3,
    "importing.md": 1,
    "reliability.md": 1,
    "sharing.md": 3,
    "suites.md": 1,
    "trackers.md": 2,
}


@dataclass
class Block:
    """One fenced block of a document: where it starts, its language, its text, and why it is skipped, if it is."""

    path: Path
    line: int
    lang: str
    text: str
    skip: str | None

    @property
    def where(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}"


def blocks_of(path: Path) -> list[Block]:
    """Every fenced block of ``path`` in a runnable language, in order."""
    lines = path.read_text().splitlines()
    found, i = [], 0
    while i < len(lines):
        fence = FENCE.match(lines[i])
        if not fence:
            i += 1
            continue
        start = i
        i += 1
        while not lines[i].startswith("```"):
            i += 1
        before = next((line for line in reversed(lines[:start]) if line.strip()), "")
        skip = SKIP.match(before.strip())
        if fence.group(1) in RUNNABLE:
            text = "\n".join(lines[start + 1 : i])
            found.append(Block(path, start + 1, fence.group(1), text, skip.group(1) if skip else None))
        i += 1
    return found


def commands_of(block: Block) -> list[str]:
    """The block's command lines, continuations (``\\``) joined, blank and comment-only lines left out."""
    joined = block.text.replace("\\\n", " ")
    return [line for line in joined.splitlines() if shlex.split(line, comments=True)]


@pytest.fixture
def workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    shutil.copytree(ROOT / "data", tmp_path / "data", ignore=shutil.ignore_patterns("*.db", "*.db-*"))
    shutil.copytree(ROOT / "docs" / "examples", tmp_path / "docs" / "examples")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("EVALCORE_DB", str(tmp_path / "data" / "evalcore.db"))
    monkeypatch.setenv("EVALCORE_FAKE_LATENCY_SCALE", "0")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(tmp_path / "summary.md"))
    monkeypatch.setenv("GITHUB_SHA", "0123456789abcdef")
    for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    return tmp_path


def _seed_bundled_runs() -> None:
    """The store as the app leaves it once opened: seeded with the bundled runs."""
    from evalcore.explorer.sharing import seed_store_from_bundled
    from evalcore.storage.store import Store

    with Store() as store:
        assert seed_store_from_bundled(store, "data/runs")


def _run_bash(block: Block, capsys: pytest.CaptureFixture[str]) -> None:
    for line in commands_of(block):
        words = [os.path.expandvars(w) for w in shlex.split(line, comments=True)]
        redirect = None
        if len(words) > 2 and words[-2] in (">", ">>"):
            redirect, words = (words[-2], Path(words[-1])), words[:-2]
        assert words[0] == "evalcore", (
            f"{block.where}: `{line.strip()}` is not an evalcore command this test can run; "
            "mark its block <!-- skip: why --> if it cannot run offline"
        )
        capsys.readouterr()
        try:
            code = main(words[1:])
        except SystemExit as exc:  # argparse: a bad flag or --help
            code = exc.code if isinstance(exc.code, int) else 2
        out, err = capsys.readouterr()
        assert code == 0, f"{block.where}: `{line.strip()}` exited {code}:\n{err[-2000:]}"
        if redirect:
            with redirect[1].open("a" if redirect[0] == ">>" else "w") as f:
                f.write(out)


def _run_python(block: Block) -> None:
    exec(compile(block.text, block.where, "exec"), {"__name__": "__doc_example__"})


@pytest.mark.parametrize("path", DOCUMENTS, ids=lambda p: p.name)
def test_every_code_block_of_a_document_runs(path: Path, workspace: Path, capsys: pytest.CaptureFixture[str]):
    _seed_bundled_runs()  # the README's tour runs after the app has opened (and seeded) the store
    for block in blocks_of(path):
        if block.skip:
            continue
        if block.lang == "bash":
            _run_bash(block, capsys)
        else:
            _run_python(block)


def test_the_skipped_blocks_are_the_counted_ones():
    skipped = {path.name: n for path in DOCUMENTS if (n := sum(1 for b in blocks_of(path) if b.skip is not None))}
    assert skipped == SKIPPED, "a block was marked <!-- skip: … --> or unmarked: update SKIPPED on purpose"


def test_a_block_is_found_with_its_line_and_skip_reason(tmp_path: Path):
    doc = tmp_path / "doc.md"
    doc.write_text(
        "# t\n\n<!-- skip: needs OPENAI_API_KEY -->\n```bash\nevalcore run x\n```\n\n```text\nout\n```\n"
        "```python\nprint(1)\n```\n"
    )
    found = [(b.line, b.lang, b.text, b.skip) for b in blocks_of(doc)]
    assert found == [(4, "bash", "evalcore run x", "needs OPENAI_API_KEY"), (11, "python", "print(1)", None)]


#: The README's words on ``evalcore plan``: contenders x cases = calls, the estimate, its range, the refusals.
PLAN_SAID = re.compile(
    r"(\d+) contenders x (\d+) cases = (\d+) calls, ~\$([\d.]+) \(\$([\d.]+)–\$([\d.]+)\), (\d+) refused"
)


def test_the_readme_plan_line_says_what_the_command_prints(workspace: Path, capsys: pytest.CaptureFixture[str]):
    _seed_bundled_runs()
    line = next(c for b in blocks_of(ROOT / "README.md") for c in commands_of(b) if c.startswith("evalcore plan"))
    said = PLAN_SAID.search(line)
    assert said, f"README.md: `{line}` no longer says '… contenders x … cases = … calls, ~$… ($…–$…), … refused'"
    capsys.readouterr()
    assert main(shlex.split(line, comments=True)[1:]) == 0
    printed = capsys.readouterr().out
    counts = re.search(r"(\d+) results: (\d+) contenders x (\d+) cases", printed)
    cost = re.search(r"estimated cost: \$([\d.]+) \(range \$([\d.]+)–\$([\d.]+)", printed)
    assert counts and cost, printed
    cents = [f"{float(v):.2f}" for v in cost.groups()]
    refused = sum(row.startswith("refused: ") for row in printed.splitlines())
    assert said.groups() == (counts[2], counts[3], counts[1], *cents, str(refused)), printed
