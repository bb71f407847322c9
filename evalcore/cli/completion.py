"""``evalcore completion bash|zsh``: a shell completion script, written from the parsers so it follows them.

The script completes command names, each command's options and the values of options with a fixed set of
choices (``--format table|json``); anything else completes file names. zsh runs the same script through its
``bashcompinit``.
"""

from __future__ import annotations

import argparse
import shlex

#: The shells a script is written for.
SHELLS = ("bash", "zsh")

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
    top = [*commands, *_options(parser)]
    choices, options = [], []
    for name, command in commands.items():
        options.append(f"        {name}) opts={shlex.quote(' '.join(_options(command)))} ;;")
        for action in _actions(command):
            if not (action.option_strings and action.choices):
                continue
            words = shlex.quote(" ".join(str(c) for c in action.choices or ()))
            for flag in action.option_strings:
                choices.append(f'        "{name} {flag}") COMPREPLY=($(compgen -W {words} -- "$cur")); return ;;')
    script = _FUNCTION.format(
        commands=shlex.quote(" ".join(top)), choices="\n".join(choices), options="\n".join(options)
    )
    if shell == "zsh":
        script = "autoload -U +X bashcompinit && bashcompinit\n" + script
    return f'# evalcore {shell} completion: eval "$(evalcore completion {shell})"\n{script}'


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
SUMMARY = "print a shell completion script for commands, options and their choices (bash or zsh)"
EXAMPLE = 'eval "$(evalcore completion bash)"   # in ~/.bashrc (zsh: completion zsh, in ~/.zshrc)'
