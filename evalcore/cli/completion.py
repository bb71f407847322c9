"""``evalcore completion bash|zsh|fish``: a shell completion script, written from the parsers so it follows them.

The script completes command names, each command's options and the values of options with a fixed set of
choices (``--format table|json``) or a known set of names (:data:`VALUES`: ``--status``, ``--tracker``); anything
else completes file names. zsh runs the bash script through its ``bashcompinit``; fish gets its own
``complete`` lines.
"""

from __future__ import annotations

import argparse
import shlex
from collections.abc import Callable

#: The shells a script is written for.
SHELLS = ("bash", "zsh", "fish")


def _run_statuses() -> list[str]:
    from evalcore.cli.history import run_statuses

    return run_statuses()


def _tracker_names() -> list[str]:
    from evalcore.trackers.registry import available_trackers

    return available_trackers()


#: Options whose values are a known set of names that argparse does not check (a registry's, or checked with a
#: message of evalcore's own), by option string: what completes them.
VALUES: dict[str, Callable[[], list[str]]] = {"--status": _run_statuses, "--tracker": _tracker_names}

_FUNCTION = """\
_evalcore() {{
    local cur="${{COMP_WORDS[COMP_CWORD]}}" prev="${{COMP_WORDS[COMP_CWORD-1]}}" opts=""
    if [[ $COMP_CWORD -eq 1 ]]; then
        COMPREPLY=($(compgen -W {commands} -- "$cur"))
        return
    fi
    case "${{COMP_WORDS[1]}} $prev" in
{choices}
    esac
    case "${{COMP_WORDS[1]}}" in
{options}
    esac
    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$opts" -- "$cur"))
    else
        COMPREPLY=($(compgen -f -- "$cur"))
    fi
}}
complete -o filenames -F _evalcore evalcore
"""


def completion_script(shell: str, parser: argparse.ArgumentParser, commands: dict[str, argparse.ArgumentParser]) -> str:
    """The completion script for ``shell`` of the ``evalcore`` parser and its commands' own (by name).

    Raises:
        ValueError: a shell not in :data:`SHELLS`.
    """
    if shell not in SHELLS:
        raise ValueError(f"no completion for {shell!r}; give one of {', '.join(SHELLS)}")
    if shell == "fish":
        return _fish_script(parser, commands)
    top = [*commands, *_options(parser)]
    choices, options = [], []
    for name, command in commands.items():
        options.append(f"        {name}) opts={shlex.quote(' '.join(_options(command)))} ;;")
        for action in _actions(command):
            values = _values(action)
            if not (action.option_strings and values):
                continue
            words = shlex.quote(" ".join(values))
            for flag in action.option_strings:
                choices.append(f'        "{name} {flag}") COMPREPLY=($(compgen -W {words} -- "$cur")); return ;;')
    script = _FUNCTION.format(
        commands=shlex.quote(" ".join(top)), choices="\n".join(choices), options="\n".join(options)
    )
    if shell == "zsh":
        script = "autoload -U +X bashcompinit && bashcompinit\n" + script
    return f'# evalcore {shell} completion: eval "$(evalcore completion {shell})"\n{script}'


def _fish_script(parser: argparse.ArgumentParser, commands: dict[str, argparse.ArgumentParser]) -> str:
    """fish's ``complete`` lines: the commands (with their summaries) until one is typed, then its options; an
    option's value is one of its words (:func:`_values`), else a file name."""
    lines = [
        "# evalcore fish completion: evalcore completion fish > ~/.config/fish/completions/evalcore.fish",
        "complete -c evalcore -f -n __fish_use_subcommand -l help -s h -d 'show help'",
    ]
    for name, command in commands.items():
        about = f" -d {shlex.quote(command.description)}" if command.description else ""
        lines.append(f"complete -c evalcore -n __fish_use_subcommand -f -a {shlex.quote(name)}{about}")
    for name, command in commands.items():
        seen = shlex.quote(f"__fish_seen_subcommand_from {name}")
        for action in _actions(command):
            flags = [_fish_flag(flag) for flag in action.option_strings]
            if not flags:
                continue
            line = f"complete -c evalcore -n {seen} {' '.join(flags)}"
            values = _values(action)
            if values:
                line += f" -x -a {shlex.quote(' '.join(values))}"
            elif action.nargs != 0:
                line += " -r"
            lines.append(line)
    return "\n".join(lines) + "\n"


def _fish_flag(flag: str) -> str:
    """``--status`` as fish's ``-l status``, ``-o`` as ``-s o``."""
    return f"-l {flag[2:]}" if flag.startswith("--") else f"-s {flag[1:]}"


def _values(action: argparse.Action) -> list[str]:
    """The words an option's value completes to: its choices, else its :data:`VALUES`; none: a file name."""
    if action.choices:
        return [str(c) for c in action.choices]
    for flag in action.option_strings:
        if flag in VALUES:
            return VALUES[flag]()
    return []


def _options(parser: argparse.ArgumentParser) -> list[str]:
    """Every option string of a parser, ``-h`` and ``--help`` included."""
    return [flag for action in _actions(parser) for flag in action.option_strings]


def _actions(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    """The parser's arguments. argparse has no public list of them; ``_actions`` is the attribute every
    completion tool reads (argcomplete, shtab), and ``tests/cli/test_cli_completion.py`` fails loudly if it goes."""
    return list(parser._actions)  # noqa: SLF001


def add_completion(p: argparse.ArgumentParser) -> None:
    p.add_argument("shell", choices=SHELLS, help="the shell to complete in")


#: The command's summary and example (the parser, which it completes, adds the command: see ``parser.py``).
SUMMARY = "print a shell completion script for commands, options and their choices (bash, zsh or fish)"
EXAMPLE = (
    'eval "$(evalcore completion bash)"   # ~/.bashrc (zsh: ~/.zshrc; '
    "fish: evalcore completion fish > ~/.config/fish/completions/evalcore.fish)"
)
