"""Prompt templates in a suite's ``prompts/``: loading, rendering, errors with file and line, the lineup's
prompt dimension."""

from __future__ import annotations

import pytest

from evalcore.core.errors import ConfigError
from evalcore.core.records import Contender
from evalcore.models.llm import UNSENT_SETTINGS
from evalcore.suite.config import SuiteModel
from evalcore.suite.lineup import Overrides, expand_lineup, split_refused
from evalcore.suite.loader import load_suite
from evalcore.suite.prompts import PROMPT_SETTING, check_prompt_names, load_prompts, prompts_used
from tests.suites import write_suite


def _prompts(tmp_path, **files):
    folder = tmp_path / "prompts"
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (folder / name.replace("__", ".")).write_text(text)
    return load_prompts(tmp_path)


def test_a_text_prompt_is_one_user_message_rendered_from_the_case(tmp_path):
    prompts = _prompts(tmp_path, short__txt="Fields: {{ schema }}\nText: {{ input }} ({{ metadata.lang }})\n")
    messages = prompts["short"].render({"input": "hello", "schema": "a, b", "metadata": {"lang": "en"}})
    assert messages == [{"role": "user", "content": "Fields: a, b\nText: hello (en)"}]


def test_a_markdown_prompt_is_a_text_prompt(tmp_path):
    prompts = _prompts(tmp_path, notes__md="# Task\n{{ instructions }}")
    assert prompts["notes"].render({"instructions": "Be brief."}) == [{"role": "user", "content": "# Task\nBe brief."}]


def test_a_yaml_prompt_is_a_list_of_chat_messages(tmp_path):
    text = (
        "- role: system\n  content: |-\n    {{ instructions }}\n\n    {{ schema }}\n"
        "- role: user\n  content: '{{ input }}'\n"
    )
    prompts = _prompts(tmp_path, chat__yaml=text)
    messages = prompts["chat"].render({"instructions": "Read.", "schema": "S", "input": "hi"})
    assert messages == [{"role": "system", "content": "Read.\n\nS"}, {"role": "user", "content": "hi"}]


def test_an_object_input_prints_as_json_and_its_keys_are_reachable(tmp_path):
    prompts = _prompts(tmp_path, obj__txt="{{ input }}|{{ input.city }}")
    (message,) = prompts["obj"].render({"input": {"city": "Oslo", "n": 2}})
    assert message["content"] == '{\n "city": "Oslo",\n "n": 2\n}|Oslo'


def test_the_record_keeps_the_file_text_and_its_hash(tmp_path):
    prompts = _prompts(tmp_path, a__txt="{{ input }}\n")
    assert prompts["a"].text == "{{ input }}\n"
    assert prompts["a"].sha256.startswith("sha256:") and len(prompts["a"].sha256) == 71
    assert prompts["a"].path == tmp_path / "prompts" / "a.txt"


def test_no_prompts_folder_means_no_prompts(tmp_path):
    assert load_prompts(tmp_path) == {}


def test_an_undefined_name_is_an_error_naming_the_file_and_line(tmp_path):
    prompts = _prompts(tmp_path, typo__txt="Line one.\nText: {{ inptu }}\n")
    with pytest.raises(ConfigError, match=r"prompts/typo\.txt: line 2: undefined: 'inptu' is undefined"):
        prompts["typo"].render({"input": "x"})


def test_a_missing_metadata_key_is_an_error_not_an_empty_string(tmp_path):
    prompts = _prompts(tmp_path, meta__txt="{{ input }}\n\n{{ metadata.region }}")
    with pytest.raises(ConfigError, match=r"meta\.txt: line 3: undefined: 'dict object' has no attribute 'region'"):
        prompts["meta"].render({"input": "x", "metadata": {}})


def test_an_error_in_a_yaml_message_names_the_line_of_the_file(tmp_path):
    text = "- role: system\n  content: |\n    Read.\n    {{ nope }}\n- role: user\n  content: '{{ input }}'\n"
    prompts = _prompts(tmp_path, chat__yaml=text)
    with pytest.raises(ConfigError, match=r"chat\.yaml: line 4: undefined: 'nope' is undefined"):
        prompts["chat"].render({"input": "x"})


def test_a_syntax_error_fails_loading_with_file_and_line(tmp_path):
    with pytest.raises(ConfigError, match=r"prompts/bad\.txt: line 3: template syntax error"):
        _prompts(tmp_path, bad__txt="one\ntwo\n{% if %}\n")


def test_the_sandbox_refuses_reaching_into_python(tmp_path):
    prompts = _prompts(tmp_path, evil__txt="{{ input.__class__.__mro__ }}")
    with pytest.raises(ConfigError, match=r"evil\.txt: line 1: SecurityError"):
        prompts["evil"].render({"input": "x"})


def test_a_template_cannot_change_the_case_it_reads(tmp_path):
    metadata = {"tags": ["a"]}
    prompts = _prompts(tmp_path, mut__txt="{{ metadata.tags.append('b') }}")
    with pytest.raises(ConfigError, match="SecurityError"):
        prompts["mut"].render({"metadata": metadata})
    assert metadata == {"tags": ["a"]}


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("role: user\ncontent: hi\n", "a .yaml prompt is a list of messages"),
        ("- role: user\n", "line 1: a message has exactly `role:` and `content:`"),
        ("- role: user\n  content: hi\n- role: robot\n  content: hi\n", "line 3: role 'robot' is not one of"),
        ("- role: user\n  content: [a]\n", "line 1: a message has exactly"),
        ("- role: user\n  content: 'hi\n", "not valid YAML"),
    ],
)
def test_a_malformed_yaml_prompt_says_what_is_wrong_and_where(tmp_path, text, problem):
    with pytest.raises(ConfigError, match=problem):
        _prompts(tmp_path, p__yaml=text)


def test_other_files_and_repeated_names_are_errors(tmp_path):
    with pytest.raises(ConfigError, match=r"notes\.json: not a prompt"):
        _prompts(tmp_path, notes__json="{}")
    (tmp_path / "prompts" / "notes.json").unlink()
    with pytest.raises(ConfigError, match="a second prompt named 'a'"):
        _prompts(tmp_path, a__txt="x", a__md="y")


def test_a_name_that_cannot_be_given_to_p_is_refused(tmp_path):
    with pytest.raises(ConfigError, match="cannot name a prompt"):
        _prompts(tmp_path, **{"a,b__txt": "x"})


def test_load_suite_reads_its_prompts(tmp_path):
    root = write_suite(tmp_path / "s")
    (root / "prompts").mkdir()
    (root / "prompts" / "terse.txt").write_text("{{ input }}")
    assert list(load_suite(root).prompts) == ["terse"]


# --- the lineup's prompt dimension ---------------------------------------------------------------------


def _config(lineup, **extra):
    return SuiteModel.model_validate({"suite": "s", "lineup": lineup, **extra})


def test_a_prompt_list_multiplies_and_leads_the_contender_id():
    config = _config([{"model": "fake/oracle", "prompt": ["v1", "v2"], "settings": {"temperature": [0, 1]}}])
    contenders = expand_lineup(config)
    assert [c.id for c in contenders] == [
        "fake/oracle · prompt=v1 · t=0",
        "fake/oracle · prompt=v1 · t=1",
        "fake/oracle · prompt=v2 · t=0",
        "fake/oracle · prompt=v2 · t=1",
    ]
    assert contenders[0].settings == {"prompt": "v1", "temperature": 0}


def test_a_prompt_under_settings_works_like_any_list_setting():
    config = _config([{"model": "fake/oracle", "settings": {"temperature": 0, "prompt": ["a", "b"]}}])
    assert [c.id for c in expand_lineup(config)] == ["fake/oracle · prompt=a · t=0", "fake/oracle · prompt=b · t=0"]


def test_a_prompt_given_twice_in_one_entry_is_an_error():
    config = _config([{"model": "fake/oracle", "prompt": "a", "settings": {"prompt": "b"}}])
    with pytest.raises(ConfigError, match="the prompt is given twice"):
        expand_lineup(config)


def test_the_command_line_prompts_beat_the_lineup_and_keep_other_settings():
    config = _config([{"model": "fake/oracle", "prompt": "v1", "settings": {"temperature": 0.2}}])
    contenders = expand_lineup(config, Overrides(settings={"prompt": ["v2", "v3"]}))
    assert [c.id for c in contenders] == ["fake/oracle · prompt=v2 · t=0.2", "fake/oracle · prompt=v3 · t=0.2"]


def test_a_lineup_without_prompts_keeps_its_ids():
    config = _config([{"model": "fake/oracle", "settings": {"temperature": [0, 1]}}])
    assert [c.id for c in expand_lineup(config)] == ["fake/oracle · t=0", "fake/oracle · t=1"]


def test_the_prompt_is_not_a_setting_the_model_is_asked_about():
    # fake models refuse every setting they do not take: a prompt must not reach them.
    (contender,) = expand_lineup(_config([{"model": "fake/oracle", "prompt": "v1"}]))
    kept, refused = split_refused([contender])
    assert kept == [contender] and refused == []
    assert PROMPT_SETTING in UNSENT_SETTINGS


def test_an_unknown_prompt_is_an_error_listing_the_known_ones(tmp_path):
    prompts = _prompts(tmp_path, default__yaml="- {role: user, content: x}\n", terse__txt="x")
    contender = Contender("fake/oracle · prompt=v9", "fake/oracle", {"prompt": "v9"})
    with pytest.raises(ConfigError, match=r"prompt 'v9': no such prompt in .*prompts\. Prompts: default, terse"):
        check_prompt_names([contender], prompts, tmp_path)
    with pytest.raises(ConfigError, match="the suite has no prompts"):
        check_prompt_names([contender], {}, tmp_path)


def test_prompts_used_lists_each_name_once_in_lineup_order():
    contenders = [
        Contender("a", "fake/oracle", {"prompt": "terse"}),
        Contender("b", "fake/oracle", {}),
        Contender("c", "fake/guesser", {"prompt": "default"}),
        Contender("d", "fake/guesser", {"prompt": "terse"}),
    ]
    assert prompts_used(contenders) == ["terse", "default"]
