"""Settings given on the command line are checked before anything is planned or called."""

import pytest

from evalcore.cli import main
from tests.suites import write_suite


@pytest.fixture
def suite(tmp_path):
    return str(write_suite(tmp_path / "suite"))


@pytest.mark.parametrize(
    ("flags", "said"),
    [
        (["-t", "hot"], "error: -t/--temperature: 'hot' is not a number from 0 to 2"),
        (["-t", "0,2.5"], "error: -t/--temperature: 2.5 is not a number from 0 to 2"),
        (["--set", "top_p=2"], "error: --set top_p: 2 is not a number from 0 to 1"),
        (["--set", "max_tokens=lots"], "error: --set max_tokens: 'lots' is not a whole number of at least 1"),
        (["--samples", "0"], "error: --samples: 0 is not a whole number of at least 1"),
    ],
)
def test_a_setting_flag_out_of_its_range_exits_2_naming_the_flag(capsys, suite, flags, said):
    code = main(["plan", suite, "-m", "fake/oracle", *flags])
    err = capsys.readouterr().err
    assert code == 2
    assert err.startswith(said)
    assert err.count("\n") == 1


def test_reasoning_effort_on_a_model_without_reasoning_is_refused_by_name(capsys, suite):
    main(["plan", suite, "-m", "openai/gpt-4o-mini,fake/oracle", "-e", "high"])
    out = capsys.readouterr().out
    assert "refused: openai/gpt-4o-mini reasoning_effort=high: openai/gpt-4o-mini does not take reasoning_effort" in out
