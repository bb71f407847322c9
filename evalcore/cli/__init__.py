"""The ``evalcore`` command: the parser and one module per command group. May import everything."""

from evalcore.cli.commands import COMMANDS, build_parser, main

__all__ = ["COMMANDS", "build_parser", "main"]
