import io
import logging
import warnings

from evalcore._util.deplog import LOG_NAME, adopt, dependency_log, said_where


def test_dependency_warnings_go_to_the_file_and_evalcores_own_to_stderr(tmp_path, capsys):
    with dependency_log(tmp_path / "data") as log:
        with warnings.catch_warnings():
            warnings.simplefilter("always")
            warnings.warn("field name shadows an attribute", UserWarning, stacklevel=1)
        logging.getLogger("httpx").warning("retrying")
        logging.getLogger("evalcore.execution").warning("a contender stopped")
    written = (tmp_path / "data" / LOG_NAME).read_text()
    assert "field name shadows an attribute" in written and "retrying" in written
    assert "a contender stopped" not in written
    assert capsys.readouterr().err == "WARNING evalcore.execution: a contender stopped\n"
    assert said_where(log) == f"2 warnings of dependencies (litellm, pydantic …) written to {log.path}"


def test_no_file_and_no_line_when_no_dependency_warns(tmp_path):
    with dependency_log(tmp_path) as log:
        logging.getLogger("evalcore").warning("ours")
    assert not (tmp_path / LOG_NAME).exists() and said_where(log) is None


def test_a_logger_with_a_handler_of_its_own_is_adopted_into_the_file(tmp_path):
    own = io.StringIO()
    logger = logging.getLogger("LiteLLM-test-double")
    logger.addHandler(logging.StreamHandler(own))
    with dependency_log(tmp_path) as log:
        adopt(["LiteLLM-test-double"])
        logger.warning("cost map unavailable")
    assert own.getvalue() == "" and log.count == 1
    assert "cost map unavailable" in (tmp_path / LOG_NAME).read_text()


def test_everything_is_put_back_when_the_command_ends(tmp_path):
    root = logging.getLogger()
    handlers, showwarning = list(root.handlers), warnings.showwarning
    with dependency_log(tmp_path):
        pass
    assert root.handlers == handlers and warnings.showwarning is showwarning
