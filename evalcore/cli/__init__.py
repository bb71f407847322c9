"""The ``evalcore`` command: the parser (:mod:`~evalcore.cli.parser`), the arguments and helpers the
commands share (:mod:`~evalcore.cli._shared`), and one module per command group: :mod:`~evalcore.cli.cases`
(cases), :mod:`~evalcore.cli.planning` (verify, plan), :mod:`~evalcore.cli.suite` (run),
:mod:`~evalcore.cli.history` (runs, export, import, merge, delete; with
:mod:`~evalcore.cli.imports` for reading other tools' files),
:mod:`~evalcore.cli.ranking` (leaderboard, weights, significance), :mod:`~evalcore.cli.decide` (compare, gate,
baseline) and :mod:`~evalcore.cli.agreement` (agreement). May import everything."""

from evalcore.cli.parser import COMMANDS, build_parser, main

__all__ = ["COMMANDS", "build_parser", "main"]
