import logging
import warnings

from evalcore.cli import parser


def _warns(args):
    with warnings.catch_warnings():
        warnings.simplefilter("always")
        warnings.warn("a dependency's deprecation", UserWarning, stacklevel=1)
    logging.getLogger("LiteLLM").warning("a dependency's log line")
    return 0


def test_a_commands_dependency_warnings_go_to_the_stores_folder_with_one_line_saying_where(
    capsys, tmp_path, monkeypatch
):
    monkeypatch.setitem(parser.COMMANDS, "warns", (parser.history.add_runs, _warns, "warn", "evalcore warns"))
    db = tmp_path / "store" / "evalcore.db"
    assert parser.main(["warns", "--db", str(db)]) == 0
    err = capsys.readouterr().err
    log = tmp_path / "store" / "evalcore-warnings.log"
    assert err == f"2 warnings of dependencies (litellm, pydantic …) written to {log}\n"
    assert "a dependency's deprecation" in log.read_text() and "a dependency's log line" in log.read_text()
