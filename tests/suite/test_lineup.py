import pytest
from hypothesis import given
from hypothesis import strategies as st

from evalcore.core.errors import ConfigError
from evalcore.core.records import Contender
from evalcore.suite.config import SuiteModel
from evalcore.suite.lineup import Overrides, contender_id, expand_lineup, name_problems, split_refused


def _config(lineup, **extra):
    return SuiteModel.model_validate({"suite": "s", "lineup": lineup, **extra})


def test_settings_lists_multiply_into_contenders():
    config = _config(
        [{"model": "openai/gpt-4o-mini", "settings": {"temperature": [0, 0.7], "reasoning_effort": ["low", "high"]}}]
    )
    ids = [c.id for c in expand_lineup(config)]
    assert ids == [
        "openai/gpt-4o-mini · t=0 · effort=low",
        "openai/gpt-4o-mini · t=0 · effort=high",
        "openai/gpt-4o-mini · t=0.7 · effort=low",
        "openai/gpt-4o-mini · t=0.7 · effort=high",
    ]


def test_defaults_are_sent_but_not_part_of_the_id():
    config = _config(
        [{"model": "fake/oracle", "settings": {"temperature": 0.2}}], defaults={"temperature": 0, "max_tokens": 300}
    )
    (contender,) = expand_lineup(config)
    assert contender.id == "fake/oracle · t=0.2"
    assert contender.settings == {"temperature": 0.2, "max_tokens": 300}


def test_command_line_models_and_settings_beat_the_file():
    config = _config([{"model": "fake/oracle", "settings": {"temperature": [0, 1]}}])
    overrides = Overrides(models=["openai/gpt-4o-mini"], settings={"reasoning_effort": ["low", "high"]})
    ids = [c.id for c in expand_lineup(config, overrides)]
    assert ids == ["openai/gpt-4o-mini · effort=low", "openai/gpt-4o-mini · effort=high"]


def test_command_line_settings_apply_to_every_file_entry():
    config = _config([{"model": "fake/oracle", "settings": {"temperature": [0, 1]}}])
    ids = [c.id for c in expand_lineup(config, Overrides(settings={"temperature": [0.5]}))]
    assert ids == ["fake/oracle · t=0.5"]


def test_a_repeated_contender_is_a_configuration_error():
    config = _config([{"model": "fake/oracle"}, {"model": "fake/oracle"}])
    with pytest.raises(ConfigError, match="appears twice"):
        expand_lineup(config)


def test_suite_prices_and_api_base_reach_real_models_only():
    config = _config(
        [{"model": "openai/llama"}, {"model": "fake/oracle"}],
        api_base="http://127.0.0.1:9/v1",
        prices={"openai/llama": {"input_cost_per_token": 1e-6, "output_cost_per_token": 2e-6}},
    )
    real, fake = expand_lineup(config)
    assert real.api_base == "http://127.0.0.1:9/v1" and fake.api_base is None
    assert real.prices == {"input_cost_per_token": 1e-6, "output_cost_per_token": 2e-6}


def test_a_setting_a_fake_does_not_take_is_refused_by_name():
    config = _config(
        [
            {"model": "fake/oracle", "settings": {"reasoning_effort": "high"}},
            {"model": "fake/guesser", "settings": {"reasoning_effort": "high"}},
        ]
    )
    kept, refused = split_refused(expand_lineup(config))
    assert [c.id for c in kept] == ["fake/guesser · effort=high"]
    assert refused[0].model == "fake/oracle"
    assert refused[0].reason == "fake/oracle does not take reasoning_effort"


def test_an_unknown_fake_is_refused_with_the_list_of_fakes():
    _, refused = split_refused(expand_lineup(_config([{"model": "fake/nope"}])))
    assert "fake/oracle" in refused[0].reason


def test_contender_id_shows_booleans_in_lowercase():
    assert contender_id("m", {"stream": True}) == "m · stream=true"


@given(
    st.dictionaries(
        st.sampled_from(["seed", "top_k", "presence_penalty", "frequency_penalty"]),
        st.lists(st.integers(0, 9), min_size=1, max_size=3, unique=True),
        max_size=4,
    )
)
def test_matrix_expansion_gives_the_product_of_list_lengths(settings):
    config = _config([{"model": "fake/oracle", "settings": settings}])
    expected = 1
    for values in settings.values():
        expected *= len(values)
    contenders = expand_lineup(config)
    assert len(contenders) == expected
    assert len({c.id for c in contenders}) == expected


def test_an_application_endpoint_or_a_model_sent_to_an_api_base_is_never_questioned_by_name():
    contenders = [
        Contender(id="http/app", model="http/app"),
        Contender(id="openai/local", model="openai/anything-at-all", api_base="http://127.0.0.1:8000/v1"),
        Contender(id="ollama", model="ollama_chat/llama3", api_base="http://127.0.0.1:11434"),
    ]
    assert name_problems(contenders) == {}
