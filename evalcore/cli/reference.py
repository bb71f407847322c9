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
takes `--db PATH` or `--db URL` (`sqlite:///PATH`, `postgresql://USER@HOST/DB` with the password in
`PGPASSWORD` or `~/.pgpass`, never on a command line); a user error (a bad flag, an unknown run id, a broken
suite, a URL scheme no store has) exits with code 2 and one line on stderr.

**Which store, when none is named.** `--db`, else `$EVALCORE_DB`, else the project's store: walking up from
the current folder (from the suite's folder for `plan` and `run`), the first folder holding
`data/evalcore.db`, a `pyproject.toml` or a `.git` keeps it in its `data/evalcore.db`; outside any project,
the per-user store `$XDG_DATA_HOME/evalcore/evalcore.db` (else `~/.local/share/evalcore/evalcore.db`). The
app, started at the project's root, serves the same store; `run` and `import` end with the line `stored in
PATH`. Warnings of dependencies (litellm,
pydantic) go to `evalcore-warnings.log` in the store's folder instead of the terminal, and one line at the
end says how many and where.

<!-- Generated from evalcore/cli/parser.py by `{REGENERATE}`: edit the parsers, not this file. -->
"""

#: How a package adds a report format (:mod:`evalcore.explorer.reporters`): the one part no parser says.
REPORT_FORMATS = """\
## Adding a report format

`evalcore report --format NAME` looks the format up by name: `html` and `markdown` are evalcore's own, and
any installed package may add one under the entry-point group `evalcore.reporters`, as evalcore registers
its own. A format is an `evalcore.explorer.reporters.Reporter`: `render(run, options)` returns the report
as text or bytes (`run` is a run file's run or a stored run; `options` holds `--weights`, the filters and
`--failing-per-contender`), and `suffix` names the file written without `-o` (`report.<suffix>`):

```python
# my_reports.py, in your package
from evalcore.storage.history import header_of
from evalcore.explorer.reporters import Reporter


def render_ids(run, options):
    return "\\n".join(c.id for c in header_of(run).contenders) + "\\n"


IDS = Reporter(render=render_ids, suffix="txt")
```

and in that package's `pyproject.toml`:

```toml
[project.entry-points."evalcore.reporters"]
ids = "my_reports:IDS"
```

Once the package is installed (`pip install -e .`), `evalcore report RUN --format ids` writes `report.txt`.
An unknown name exits with code 2 and lists the formats there are; a package cannot replace `html` or
`markdown`.
"""


def cli_reference() -> str:
    """``docs/cli.md``: the top-level help, a table of the commands, then each command's help."""
    parser, commands = build_parsers(width=WIDTH)
    parts = [INTRO, "| command | what it does |", "| --- | --- |"]
    parts += [f"| [`evalcore {name}`](#evalcore-{name}) | {_cell(COMMANDS[name][2])} |" for name in commands]
    parts += ["", "## evalcore", "", "```text", parser.format_help().rstrip(), "```"]
    for name, command in commands.items():
        parts += ["", f"## evalcore {name}", "", "```text", command.format_help().rstrip(), "```"]
    parts += ["", REPORT_FORMATS.rstrip()]
    return "\n".join(parts) + "\n"


def _cell(summary: str) -> str:
    return summary.replace("%%", "%").replace("|", "\\|")


if __name__ == "__main__":
    sys.stdout.write(cli_reference())
