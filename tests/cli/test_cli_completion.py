import shutil
import subprocess

import pytest

from evalcore.cli import main

pytestmark = pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")


def _complete(script: str, *words: str) -> list[str]:
    """What bash offers for the command line ``words`` (the last one being typed)."""
    quoted = " ".join(f"'{w}'" for w in words)
    program = (
        f'{script}\nCOMP_WORDS=({quoted}); COMP_CWORD={len(words) - 1}; _evalcore; printf "%s\\n" "${{COMPREPLY[@]}}"'
    )
    done = subprocess.run(["bash", "--norc", "-c", program], capture_output=True, text=True, check=True)
    return done.stdout.split()


@pytest.fixture(scope="module")
def bash_script():
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["completion", "bash"]) == 0
    return out.getvalue()


def test_bash_completes_command_names(bash_script):
    assert _complete(bash_script, "evalcore", "ru") == ["run", "runs"]


def test_bash_completes_a_commands_options(bash_script):
    assert _complete(bash_script, "evalcore", "runs", "--s") == ["--suite", "--status", "--since"]


def test_bash_completes_the_choices_of_an_option(bash_script):
    assert _complete(bash_script, "evalcore", "leaderboard", "RUN", "--by", "") == ["dataset", "variant"]


def test_zsh_runs_the_same_completion_through_bashcompinit(capsys, bash_script):
    assert main(["completion", "zsh"]) == 0
    script = capsys.readouterr().out
    assert "bashcompinit" in script and "complete -o filenames -F _evalcore evalcore" in script


def test_bash_completes_the_run_statuses_for_status(bash_script):
    assert _complete(bash_script, "evalcore", "runs", "--status", "") == [
        "running",
        "completed",
        "interrupted",
        "failed",
        "cancelled",
    ]


def test_bash_completes_the_tracker_names_for_tracker(bash_script):
    from evalcore.trackers.registry import available_trackers

    offered = _complete(bash_script, "evalcore", "run", "--tracker", "")
    assert offered == available_trackers() and {"otel", "mlflow", "outbox"} <= set(offered)


def test_fish_completes_commands_options_and_their_values(capsys):
    assert main(["completion", "fish"]) == 0
    script = capsys.readouterr().out.splitlines()
    assert "complete -c evalcore -n __fish_use_subcommand -f -a run -d " in "\n".join(script)
    assert (
        "complete -c evalcore -n '__fish_seen_subcommand_from runs' -l status -x -a "
        "'running completed interrupted failed cancelled'"
    ) in script
    assert any(
        line.startswith("complete -c evalcore -n '__fish_seen_subcommand_from run' -l tracker -x -a ")
        for line in script
    )
    assert "complete -c evalcore -n '__fish_seen_subcommand_from runs' -l since -r" in script
    assert "complete -c evalcore -n '__fish_seen_subcommand_from import' -l quiet" in script
