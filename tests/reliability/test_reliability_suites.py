"""Bad suite folders: each mistake is a ConfigError naming the file, the key or line, and the fix.
And no file in a suite, a run file or an upload is ever executed, unpickled or evaluated, except the
Python adapter or scorer the suite's own ``evalcore.yaml`` names.

``tests/suite/test_loader.py`` covers the first cases of each kind; this file adds the rest.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest

import evalcore
from evalcore import analysis, execution, runfile, storage
from evalcore.cli import main
from evalcore.core.errors import ConfigError
from evalcore.execution.plan import make_plan
from evalcore.execution.readiness import check_ready
from evalcore.execution.runner import run_suite
from evalcore.storage.store import Store
from evalcore.suite.loader import load_suite
from tests.suites import write_suite

REPO = Path(__file__).resolve().parents[2]
CHAT = {"adapter": "chat", "scorer": "exact", "fields": None}


def edit_config(old: str, new: str) -> Callable[[Path], None]:
    def change(root: Path) -> None:
        path = root / "evalcore.yaml"
        assert old in path.read_text()
        path.write_text(path.read_text().replace(old, new))

    return change


def edit_expected(case: str, **changes: object) -> Callable[[Path], None]:
    def change(root: Path) -> None:
        path = root / "datasets/shop/cases" / case / "expected.json"
        path.write_text(json.dumps({**json.loads(path.read_text()), **changes}))

    return change


def write(relative: str, text: str | bytes) -> Callable[[Path], None]:
    def change(root: Path) -> None:
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        if relative.endswith("input.json"):
            (path.parent / "input.txt").unlink(missing_ok=True)
        path.write_bytes(text if isinstance(text, bytes) else text.encode())

    return change


# (name, suite config, mutation, the message's pieces: where, what, how to fix)
BROKEN = [
    (
        "malformed YAML: a tab",
        None,
        write("evalcore.yaml", "suite: x\n\tadapter: extract\n"),
        [r"evalcore.yaml: line 2: not valid YAML", r"'\\t'", "Check the indentation"],
    ),
    (
        "malformed YAML: an unclosed list",
        None,
        edit_config("lineup:", "lineup: [\nx:"),
        [r"evalcore.yaml: line \d+: not valid YAML", "Check the indentation"],
    ),
    (
        "a YAML file that is a list",
        None,
        write("evalcore.yaml", "- suite\n- lineup\n"),
        [r"evalcore.yaml: expected a mapping of keys", "suite:, adapter:, lineup:"],
    ),
    ("an empty evalcore.yaml", None, write("evalcore.yaml", ""), [r"evalcore.yaml: expected a mapping of keys"]),
    (
        "unknown key in run:",
        None,
        edit_config("max_attempts: 2", "max_atempts: 2"),
        [r"evalcore.yaml: line \d+: run.max_atempts: unknown key", "Remove it or fix its spelling"],
    ),
    (
        "unknown key in a field",
        None,
        edit_config("type: integer", "type: integer\n    nulable: false"),
        [r"evalcore.yaml: line \d+: fields.count.nulable: unknown key", "fix its spelling"],
    ),
    (
        "wrong type: a word for a number",
        None,
        edit_config("max_attempts: 2", "max_attempts: many"),
        [r"evalcore.yaml: line \d+: run.max_attempts:", "valid integer", "got 'many'"],
    ),
    (
        "wrong type: lineup as a mapping",
        {"lineup": {"model": "fake/oracle"}},
        None,
        [r"evalcore.yaml: line \d+: lineup:", "valid list"],
    ),
    (
        "wrong type: an unknown field type",
        None,
        edit_config("type: integer", "type: int"),
        [r"evalcore.yaml: line \d+: fields.count.type:", "'integer'", "got 'int'"],
    ),
    (
        "a negative timeout",
        {"run": {"timeout_s": -1}},
        None,
        [r"evalcore.yaml: line \d+: run.timeout_s:", "greater than 0", "got -1"],
    ),
    (
        "missing expected.json",
        None,
        lambda r: (r / "datasets/shop/cases/vague/001/expected.json").unlink(),
        [r"vague/001/expected.json: missing", "needs expected.json"],
    ),
    (
        "expected.json: a wrong type",
        None,
        edit_expected("complete/001", count="two"),
        [
            r"complete/001/expected.json: count: 'two' is not an integer",
            "Write an integer or null here, or change fields.count.type",
        ],
    ),
    (
        "expected.json: not an object",
        None,
        write("datasets/shop/cases/complete/001/expected.json", "[1, 2]"),
        [r"complete/001/expected.json: expected answer must be a JSON object"],
    ),
    (
        "expected.json: a key not in the schema",
        None,
        edit_expected("complete/001", colour="red"),
        [r"complete/001/expected.json: colour: not a field of the schema", "Remove it or add the field"],
    ),
    (
        "expected.json: a number that is not finite",
        None,
        write(
            "datasets/shop/cases/complete/002/expected.json",
            '{"name": "Bob", "kind": "b", "count": 1, "amount": Infinity, "urgent": false, "tags": ["z"]}',
        ),
        [r"complete/002/expected.json: amount: inf is not a number", "Write a number or null here"],
    ),
    (
        "enum value not in the list",
        None,
        edit_expected("complete/002", kind="bb"),
        [
            r"complete/002/expected.json: kind: 'bb' is not one of \['a', 'b', 'c'\]",
            "add it to fields.kind.values in evalcore.yaml",
        ],
    ),
    (
        "multi_enum value not in the list",
        None,
        edit_expected("complete/001", tags=["x", "w"]),
        [r"complete/001/expected.json: tags: 'w' is not one of \['x', 'y', 'z'\]", "fields.tags.values"],
    ),
    (
        "an empty input.json",
        None,
        write("datasets/shop/cases/vague/001/input.json", "{}"),
        [r"vague/001/input.json: the input is empty", "Write the text the model should read"],
    ),
    (
        "an input.json that is a list",
        None,
        write("datasets/shop/cases/vague/001/input.json", "[1]"),
        [r"vague/001/input.json: the input must be a JSON string or object"],
    ),
    (
        "an input that is not UTF-8",
        None,
        write("datasets/shop/cases/vague/001/input.txt", b"caf\xe9"),
        [r"vague/001/input.txt: not UTF-8 text \(byte 3\)", "Save it as UTF-8"],
    ),
    (
        "cases.jsonl: an empty input",
        CHAT,
        write("datasets/qa/cases.jsonl", '{"input": "  ", "expected": "x"}\n'),
        [r"cases.jsonl: line 1: input: must be a non-empty string or object"],
    ),
    (
        "cases.jsonl: a line that is not JSON",
        CHAT,
        write("datasets/qa/cases.jsonl", '{"input": "a", "expected": "b"}\n{"input": "a", expected: 1}\n'),
        [r"cases.jsonl: line 2, column \d+: not valid JSON"],
    ),
    (
        "cases.jsonl: no expected",
        CHAT,
        write("datasets/qa/cases.jsonl", '{"input": "a"}\n'),
        [r"cases.jsonl: line 1: expected: required key is missing"],
    ),
    (
        "case YAML: malformed",
        CHAT,
        write("datasets/qa/cases/c1.yaml", "input: [unclosed\nexpected: x\n"),
        [r"c1.yaml: line 2: not valid YAML", "Check the indentation and quoting"],
    ),
    (
        "case YAML: unknown key",
        CHAT,
        write("datasets/qa/cases/c1.yaml", "input: hi\nexpected: x\nexpectd: y\n"),
        [r"c1.yaml: expectd: unknown key", "A case has"],
    ),
    (
        "case YAML: wrong type for input",
        CHAT,
        write("datasets/qa/cases/c1.yaml", "input: [1, 2]\nexpected: x\n"),
        [r"c1.yaml: input: must be a non-empty string or object"],
    ),
    (
        "case YAML: metadata not an object",
        CHAT,
        write("datasets/qa/cases/c1.yaml", "input: hi\nexpected: x\nmetadata: [1]\n"),
        [r"c1.yaml: metadata: must be an object"],
    ),
    (
        "a weight on a name that cannot be weighted",
        {"weighted_score": {"weights": {"scroe": 1}}},
        None,
        [
            r"evalcore.yaml: weighted_score.weights: cannot weight 'scroe'",
            "allowed names are score, errors",
            "Fix the name; no model was called",
        ],
    ),
]


@pytest.mark.parametrize(("name", "config", "mutate", "pieces"), BROKEN, ids=[b[0] for b in BROKEN])
def test_a_broken_suite_names_the_file_the_key_or_line_and_the_fix(tmp_path, name, config, mutate, pieces):
    root = write_suite(tmp_path / "suite", config=config, cases={} if config is CHAT else None)
    if mutate is not None:
        mutate(root)
    with pytest.raises(ConfigError) as caught:
        check_ready(make_plan(load_suite(root)))  # loading, and everything checked before a call
    message = str(caught.value)
    assert message.startswith(str(root)), message  # the full path of the file (or folder) at fault
    for piece in pieces:
        assert re.search(piece, message), f"{piece!r} not in {message!r}"


def test_verify_reports_the_same_errors_offline(tmp_path, capsys):
    root = write_suite(tmp_path / "suite", config={"weighted_score": {"weights": {"scroe": 1}}})
    assert main(["verify", str(root)]) == 2
    assert "weighted_score.weights: cannot weight 'scroe'" in capsys.readouterr().out


def test_a_bad_weight_stops_the_run_before_any_call(tmp_path, capsys):
    root = write_suite(tmp_path / "suite", config={"weighted_score": {"weights": {"input_tokens": -1}}})
    db = tmp_path / "evalcore.db"
    assert main(["run", str(root), "--db", str(db), "--quiet"]) == 2
    assert "cannot weight 'input_tokens'" in capsys.readouterr().err
    assert Store(db).list_runs() == []


# --- nothing user-supplied is executed, unpickled or evaluated -----------------------------------------

#: Calls that run, unpickle or evaluate data. yaml.load / unsafe_load / full_load build arbitrary objects.
DANGEROUS = re.compile(
    r"(?<![.\w])(eval|exec|compile)\s*\(|\bpickle\b|\bmarshal\b|\bshelve\b|\bdill\b|\bjoblib\b"
    r"|yaml\.(load|unsafe_load|full_load|load_all|unsafe_load_all)\s*\(|yaml\.(Unsafe|Full)?Loader\b"
    r"|\bread_pickle\b|\bnumpy\.load\b|\bnp\.load\b|subprocess|os\.system|os\.popen|__import__"
)


def sources() -> dict[str, str]:
    files = [*REPO.glob("evalcore/**/*.py"), *REPO.glob("pages/*.py"), REPO / "app.py"]
    return {str(p.relative_to(REPO)): p.read_text() for p in files}


def test_no_module_executes_unpickles_or_evaluates_anything():
    found = {name: DANGEROUS.findall(text) for name, text in sources().items() if DANGEROUS.search(text)}
    assert found == {}


def test_yaml_is_only_ever_read_with_safe_load():
    calls = {}
    for name, text in sources().items():
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "yaml":
                calls.setdefault(node.attr, set()).add(name)
    assert set(calls) <= {
        "safe_load",
        "safe_dump",
        "YAMLError",
        "compose",
        "MappingNode",
        "SequenceNode",
        "ScalarNode",
    }, calls
    # The suite and its cases, and an aligned judge's examples file (``llm_judge``'s ``examples:``).
    assert calls["safe_load"] == {"evalcore/suite/loader.py", "evalcore/suite/cases.py", "evalcore/scoring/judge.py"}


def test_only_the_suite_code_loader_imports_code_and_only_the_module_the_config_names():
    importers = {
        name
        for name, text in sources().items()
        if re.search(r"exec_module|import_module|spec_from_file_location", text)
    }
    # The packages' lazy re-exports (evalcore/__init__ included, through _util/lazy) import evalcore's own
    # modules, by fixed names.
    assert importers == {"evalcore/suite/code.py", "evalcore/_util/lazy.py"}
    # Fixed dotted names of evalcore's own modules, relative to the package that re-exports them.
    for package in (evalcore, analysis, execution, runfile, storage):
        assert all(all(part.isidentifier() for part in module.split(".")) for module in package._EXPORTS.values())


def test_a_python_tag_in_yaml_is_refused_not_run(tmp_path):
    marker = tmp_path / "pwned"
    root = write_suite(tmp_path / "suite", config=CHAT, cases={})
    (root / "datasets/qa/cases").mkdir(parents=True)
    (root / "datasets/qa/cases/c1.yaml").write_text(
        f"input: !!python/object/apply:os.system ['touch {marker}']\nexpected: x\n"
    )
    with pytest.raises(ConfigError, match=r"c1.yaml: line 1: not valid YAML: could not determine a constructor"):
        load_suite(root)
    (root / "evalcore.yaml").write_text(f"suite: !!python/object/apply:os.system ['touch {marker}']\n")
    with pytest.raises(ConfigError, match=r"evalcore.yaml: line 1: not valid YAML"):
        load_suite(root)
    assert not marker.exists()


def test_python_files_in_a_suite_are_not_run_unless_the_config_names_them(tmp_path, tmp_db):
    marker = tmp_path / "pwned"
    root = write_suite(tmp_path / "suite")
    trap = f"import pathlib\npathlib.Path({str(marker)!r}).write_text('ran')\n"
    for name in (
        "conftest.py",
        "adapters.py",
        "scorers.py",
        "datasets/shop/__init__.py",
        "evalcore.py",
        "datasets/shop/cases/complete/001/input.py",
    ):
        (root / name).write_text(trap)
    (root / "datasets/shop/cases/complete/002/expected.pickle").write_bytes(b"\x80\x04K\x01.")
    (root / "datasets/shop/cases/vague/001/input.txt").write_text("__import__('os').system('touch pwned') {{7*7}}")
    suite = load_suite(root)
    run_id, status = run_suite(make_plan(suite), Store(tmp_db))
    assert status == "completed" and not marker.exists()
    case = next(c for c in suite.cases if c.id == "vague/001")
    assert case.input == "__import__('os').system('touch pwned') {{7*7}}"  # kept as text, never evaluated


def test_a_custom_scorer_named_by_the_config_is_the_one_thing_that_runs(tmp_path, tmp_db):
    marker = tmp_path / "ran"
    root = write_suite(tmp_path / "suite", config={"scorer": "my_scorer:SCORER"})
    (root / "my_scorer.py").write_text(
        "import pathlib\n"
        f"pathlib.Path({str(marker)!r}).write_text('scorer module imported')\n"
        "from evalcore.scoring.scorers import SCORERS\n"
        "SCORER = SCORERS['fields']()\n"
    )
    load_suite(root)
    assert not marker.exists()  # loading a suite runs nothing
    run_suite(make_plan(load_suite(root)), Store(tmp_db))
    assert marker.read_text() == "scorer module imported"
