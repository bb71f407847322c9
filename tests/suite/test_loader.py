import json

import pytest

from evalcore.core.errors import ConfigError
from evalcore.suite.loader import load_suite
from tests.suites import write_suite


def test_loads_cases_with_variant_and_numbered_ids(tmp_path):
    suite = load_suite(write_suite(tmp_path / "s"))
    cases = suite.datasets["shop"].cases
    assert [(c.id, c.variant) for c in cases] == [
        ("complete/001", "complete"),
        ("complete/002", "complete"),
        ("vague/001", "vague"),
    ]
    assert cases[0].metadata == {"difficulty": "easy"}
    assert suite.suite_hash.startswith("sha256:")
    assert set(suite.dataset_hashes) == {"shop"}


def test_a_folder_named_like_a_word_is_the_variant_and_the_id(tmp_path):
    blank = dict.fromkeys(["name", "kind", "count", "amount", "urgent", "tags"])
    root = write_suite(tmp_path / "s", cases={"noisy": ("text", blank)})
    case = load_suite(root).cases[0]
    assert (case.id, case.variant) == ("noisy", "noisy")


def test_unknown_key_is_an_error_with_its_line(tmp_path):
    root = write_suite(tmp_path / "s", config={"weigthed_score": {}})
    with pytest.raises(ConfigError, match=r"evalcore.yaml: line \d+: weigthed_score: unknown key"):
        load_suite(root)


def test_typo_in_a_lineup_setting_key_is_named(tmp_path):
    root = write_suite(tmp_path / "s", config={"lineup": [{"model": "fake/oracle", "setings": {}}]})
    with pytest.raises(ConfigError, match=r"lineup.0.setings: unknown key"):
        load_suite(root)


def test_malformed_yaml_names_the_line(tmp_path):
    root = write_suite(tmp_path / "s")
    (root / "evalcore.yaml").write_text("suite: x\nlineup: [\n  - a: b\n")
    with pytest.raises(ConfigError, match=r"evalcore.yaml: line \d+: not valid YAML"):
        load_suite(root)


def test_enum_value_not_in_the_list_names_file_field_and_values(tmp_path):
    root = write_suite(tmp_path / "s")
    path = root / "datasets/shop/cases/complete/001/expected.json"
    data = json.loads(path.read_text())
    data["kind"] = "d"
    path.write_text(json.dumps(data))
    with pytest.raises(ConfigError, match=r"complete/001/expected.json: kind: 'd' is not one of \['a', 'b', 'c'\]"):
        load_suite(root)


def test_missing_expected_json_is_named(tmp_path):
    root = write_suite(tmp_path / "s")
    (root / "datasets/shop/cases/complete/002/expected.json").unlink()
    with pytest.raises(ConfigError, match=r"complete/002/expected.json: missing"):
        load_suite(root)


def test_expected_must_list_every_field(tmp_path):
    root = write_suite(tmp_path / "s")
    path = root / "datasets/shop/cases/vague/001/expected.json"
    path.write_text(json.dumps({"name": None}))
    with pytest.raises(ConfigError, match=r"vague/001/expected.json: kind: missing. Every field appears"):
        load_suite(root)


def test_empty_input_is_an_error(tmp_path):
    root = write_suite(tmp_path / "s")
    (root / "datasets/shop/cases/vague/001/input.txt").write_text("  \n")
    with pytest.raises(ConfigError, match=r"input.txt: the input is empty"):
        load_suite(root)


def test_invalid_json_in_expected_names_the_line(tmp_path):
    root = write_suite(tmp_path / "s")
    (root / "datasets/shop/cases/vague/001/expected.json").write_text('{\n "name": nul\n}')
    with pytest.raises(ConfigError, match=r"expected.json: line 2, column \d+: not valid JSON"):
        load_suite(root)


def test_enum_field_without_values_is_refused(tmp_path):
    root = write_suite(tmp_path / "s", config={"fields": {"kind": {"type": "enum"}}})
    with pytest.raises(ConfigError, match=r"fields.kind: type enum needs `values"):
        load_suite(root)


def test_dataset_can_hold_cases_jsonl(tmp_path):
    root = write_suite(tmp_path / "s", config={"adapter": "chat", "scorer": "exact", "fields": None}, cases={})
    folder = root / "datasets" / "qa"
    folder.mkdir(parents=True)
    (folder / "cases.jsonl").write_text(
        '{"id": "q1", "variant": "easy", "input": "2+2?", "expected": "4"}\n'
        '{"id": "q2", "input": "capital of France?", "expected": "Paris", "metadata": {"topic": "geo"}}\n'
    )
    cases = load_suite(root).cases
    assert [(c.id, c.variant, c.expected) for c in cases] == [("q1", "easy", "4"), ("q2", "default", "Paris")]


def test_cases_jsonl_with_an_unknown_key_names_the_line(tmp_path):
    root = write_suite(tmp_path / "s", config={"adapter": "chat", "scorer": "exact", "fields": None}, cases={})
    folder = root / "datasets" / "qa"
    folder.mkdir(parents=True)
    (folder / "cases.jsonl").write_text('{"id": "q1", "input": "x", "expected": "y", "expcted": 1}\n')
    with pytest.raises(ConfigError, match=r"cases.jsonl: line 1: expcted: unknown key"):
        load_suite(root)


def test_dataset_can_hold_one_yaml_file_per_case(tmp_path):
    root = write_suite(tmp_path / "s", config={"adapter": "chat", "scorer": "contains", "fields": None}, cases={})
    folder = root / "datasets" / "qa" / "cases"
    folder.mkdir(parents=True)
    (folder / "capital.yaml").write_text("variant: geo\ninput: capital of France?\nexpected: Paris\n")
    case = load_suite(root).cases[0]
    assert (case.id, case.variant, case.expected) == ("capital", "geo", "Paris")


def test_per_dataset_fields_replace_the_suite_fields(tmp_path):
    root = write_suite(
        tmp_path / "s",
        config={
            "fields": None,
            "datasets": {"shop": {"instructions": "Shop only.", "fields": {"name": {"type": "string"}}}},
        },
        cases={"a/001": ("Ann", {"name": "Ann"})},
    )
    suite = load_suite(root)
    assert [f.name for f in suite.datasets["shop"].fields] == ["name"]
    assert suite.datasets["shop"].instructions == "Shop only."


def test_a_folder_without_evalcore_yaml_says_what_a_suite_is(tmp_path):
    with pytest.raises(ConfigError, match="no evalcore.yaml here"):
        load_suite(tmp_path)


def test_a_misspelt_key_is_told_the_key_it_was_likely_meant_to_be(tmp_path):
    root = write_suite(tmp_path / "s")
    config = root / "evalcore.yaml"
    config.write_text(config.read_text().replace("adapter:", "instructuons: Be brief.\nadapter:", 1))
    with pytest.raises(ConfigError, match=r"line \d+: instructuons: unknown key; did you mean `instructions`\?"):
        load_suite(root)


def test_a_misspelt_key_inside_a_block_is_told_a_key_of_that_block(tmp_path):
    root = write_suite(tmp_path / "s", config={"run": {"max_atempts": 2}})
    with pytest.raises(ConfigError, match=r"run\.max_atempts: unknown key; did you mean `max_attempts`\?"):
        load_suite(root)


def test_rank_by_takes_judge_or_corrected_and_names_them_when_wrong(tmp_path):
    asks = load_suite(write_suite(tmp_path / "asks", {"weighted_score": {"weights": {}, "rank_by": "corrected"}}))
    assert asks.config.weighted_score.rank_by == "corrected"
    wrong = write_suite(tmp_path / "wrong", {"weighted_score": {"weights": {}, "rank_by": "people"}})
    with pytest.raises(ConfigError, match=r"weighted_score.rank_by: .*'judge' or 'corrected'"):
        load_suite(wrong)


def _line_holding(root, text):
    lines = (root / "evalcore.yaml").read_text().splitlines()
    return next(i for i, line in enumerate(lines, 1) if text in line)


@pytest.mark.parametrize(
    ("settings", "said"),
    [
        ({"temperature": "hot"}, "settings.temperature: 'hot' is not a number from 0 to 2"),
        ({"temperature": [0, 3]}, "settings.temperature: 3 is not a number from 0 to 2"),
        ({"top_p": 1.5}, "settings.top_p: 1.5 is not a number from 0 to 1"),
        ({"max_tokens": 0}, "settings.max_tokens: 0 is not a whole number of at least 1"),
        ({"max_tokens": True}, "settings.max_tokens: True is not a whole number of at least 1"),
    ],
)
def test_a_lineup_setting_out_of_its_range_is_an_error_with_its_file_and_line(tmp_path, settings, said):
    root = write_suite(
        tmp_path / "s", config={"lineup": [{"model": "fake/guesser"}, {"model": "fake/oracle", "settings": settings}]}
    )
    line = _line_holding(root, next(iter(settings)))
    with pytest.raises(ConfigError) as raised:
        load_suite(root)
    assert str(raised.value) == f"{root / 'evalcore.yaml'}: line {line}: lineup.1.{said}"


def test_a_default_out_of_its_range_is_an_error_with_its_file_and_line(tmp_path):
    root = write_suite(tmp_path / "s", config={"defaults": {"top_p": -0.1}})
    line = _line_holding(root, "top_p")
    with pytest.raises(ConfigError) as raised:
        load_suite(root)
    said = "defaults.top_p: -0.1 is not a number from 0 to 1"
    assert str(raised.value) == f"{root / 'evalcore.yaml'}: line {line}: {said}"
