"""Report formats: what ``evalcore report --format NAME`` writes, looked up by name in a registry.

A format is a :class:`Reporter`. evalcore's own, ``html`` and ``markdown``, are registered under the
entry-point group :data:`GROUP` in its ``pyproject.toml``, and a package adds its own format the same way::

    [project.entry-points."evalcore.reporters"]
    pdf = "my_package.reports:PDF"

where ``PDF = Reporter(render=render_pdf, suffix="pdf")`` and ``render_pdf(run, options)`` returns the
file's bytes (or text). Installed, ``evalcore report RUN --format pdf`` writes ``report.pdf``. The lookup is
:func:`evalcore.scoring.plugins.find_plugin`, the one scorers and adapters are found through.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from evalcore.scoring.plugins import find_plugin, plugin_names

if TYPE_CHECKING:
    from evalcore.core.records import Run
    from evalcore.explorer.report import ReportOptions
    from evalcore.storage.history import StoredRun

#: The entry-point group report formats are registered under.
GROUP = "evalcore.reporters"


@dataclass(frozen=True)
class Reporter:
    """A report format.

    Attributes:
        render: ``render(run, options)``: the report of a run (read from a file, or a
            :class:`~evalcore.storage.history.StoredRun`) under :class:`~evalcore.explorer.report.ReportOptions`
            (weights, filters, caps), as text or bytes.
        suffix: the file name's ending without ``-o`` (``report.<suffix>``), and in the example of an error.
        stdout: without ``-o``, write to standard output (a text format one pipes on) instead of a file.
    """

    render: Callable[[Run | StoredRun, ReportOptions], str | bytes]
    suffix: str
    stdout: bool = False


def _html(run: Run | StoredRun, options: ReportOptions) -> str:
    from evalcore.explorer.report import build_report

    return build_report(run, options, "html")


def _markdown(run: Run | StoredRun, options: ReportOptions) -> str:
    from evalcore.explorer.report import build_report

    return build_report(run, options, "markdown")


#: One self-contained HTML file with live weight sliders.
HTML = Reporter(render=_html, suffix="html")
#: The banner and tables as Markdown, for a README or a pull request.
MARKDOWN = Reporter(render=_markdown, suffix="md", stdout=True)
#: evalcore's own formats, by name (also registered under :data:`GROUP` in its ``pyproject.toml``).
BUILT_IN = {"html": HTML, "markdown": MARKDOWN}


def reporter_names() -> list[str]:
    """Every report format there is: evalcore's own and those installed packages register."""
    return plugin_names(GROUP, BUILT_IN)


def find_reporter(name: str) -> Reporter:
    """The report format called ``name``.

    Raises:
        ConfigError: no format has that name (the message lists the known ones), its package cannot be
            imported, or what it registers is not a :class:`Reporter`.
    """
    from evalcore.core.errors import ConfigError

    found: Any = find_plugin(name, GROUP, BUILT_IN, "report format")
    if not isinstance(found, Reporter):
        raise ConfigError(
            f"report format {name!r} ({type(found).__name__}) is not an evalcore.explorer.reporters.Reporter; "
            "register Reporter(render=..., suffix=...)"
        )
    return found
