"""The CLI reference, ``docs/cli.md``, written from the parsers themselves so it cannot drift from them.

Regenerate it after changing a command or a flag::

    python -m evalcore.cli.reference > docs/cli.md

``tests/cli/test_cli_reference.py`` fails while the file and the parsers differ.
"""

from __future__ import annotations

import sys

from evalcore.cli.parser import COMMANDS, build_parsers

#: Help text wraps here, whatever the terminal, so the file is the same on every machine.
WIDTH = 100
REGENERATE = "python -m evalcore.cli.reference > docs/cli.md"

INTRO = f"""\
# Command-line reference

Every `evalcore` command and its options, as `--help` prints them. Every command that touches the store
takes `--db PATH` (default `$EVALCORE_DB`, else `data/evalcore.db`); a user error (a bad flag, an unknown
run id, a broken suite) exits with code 2 and one line on stderr. Warnings of dependencies (litellm,
pydantic) go to `evalcore-warnings.log` in the store's folder instead of the terminal, and one line at the
end says how many and where.

<!-- Generated from evalcore/cli/parser.py by `{REGENERATE}`: edit the parsers, not this file. -->
"""


def cli_reference() -> str:
    """``docs/cli.md``: the top-level help, a table of the commands, then each command's help."""
    parser, commands = build_parsers(width=WIDTH)
    parts = [INTRO, "| command | what it does |", "| --- | --- |"]
    parts += [f"| [`evalcore {name}`](#evalcore-{name}) | {_cell(COMMANDS[name][2])} |" for name in commands]
    parts += ["", "## evalcore", "", "```text", parser.format_help().rstrip(), "```"]
    for name, command in commands.items():
        parts += ["", f"## evalcore {name}", "", "```text", command.format_help().rstrip(), "```"]
    return "\n".join(parts) + "\n"


def _cell(summary: str) -> str:
    return summary.replace("%%", "%").replace("|", "\\|")


if __name__ == "__main__":
    sys.stdout.write(cli_reference())
