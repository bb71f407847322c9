"""``docs/cli.md`` is what the parsers print: a flag added without regenerating it fails here."""

from __future__ import annotations

from pathlib import Path

from evalcore.cli.parser import COMMANDS
from evalcore.cli.reference import REGENERATE, cli_reference

DOC = Path(__file__).resolve().parents[2] / "docs" / "cli.md"


def test_the_cli_reference_is_what_the_parsers_print():
    assert DOC.read_text() == cli_reference(), f"docs/cli.md is out of date with the parsers: run `{REGENERATE}`"


def test_the_cli_reference_has_a_section_per_command():
    text = DOC.read_text()
    assert [name for name in COMMANDS if f"\n## evalcore {name}\n" not in text] == []
