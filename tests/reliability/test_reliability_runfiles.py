"""Bad run files, made by mutating valid ones: every mutant is refused with a RunFileError that lists its
problems, or (when the mutation left it valid) accepted cleanly; never another exception, and a refused
file stores nothing.

The mutations: truncation, wrong types, missing keys, unknown keys, NaN and Infinity, huge numbers,
deep nesting, 100,000-character strings, invalid UTF-8 (and lone surrogates), gzip of any of these, a
truncated gzip stream, and gzip bombs. The per-kind tallies go to the log (``-s`` shows them).
"""

from __future__ import annotations

import collections
import gzip
import json
import sqlite3
import zlib
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evalcore.cli import main
from evalcore.core.errors import RunFileError, StoreError
from evalcore.runfile.read import read_run_file
from evalcore.runfile.uploads import MAX_UPLOAD_BYTES, read_upload
from evalcore.runfile.write import dump_run
from evalcore.storage.store import Store
from tests.factories import make_run, valid_runs

BASES = [dump_run(make_run(1, 1, with_errors=False)), dump_run(make_run(2, 3)), dump_run(make_run(3, 4, samples=2))]
#: How each mutation kind ended, over the whole session: kind -> Counter(outcome).
TALLY: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
TABLES = ("runs", "contenders", "cases", "results")
_OTHER_TYPES = (0, -1, 1.5, "x", "", True, False, None, [], {}, [1, "a"], {"k": "v"})


# --- mutations --------------------------------------------------------------------------------------


def paths(node: Any, here: tuple = ()) -> list[tuple]:
    """Every path to a value in a JSON tree (the root excluded)."""
    found = []
    items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
    for key, child in items:
        found.append((*here, key))
        found.extend(paths(child, (*here, key)))
    return found


def replace(tree: Any, path: tuple, value: Any) -> None:
    parent = tree
    for key in path[:-1]:
        parent = parent[key]
    parent[path[-1]] = value


def parent_objects(tree: Any) -> list[tuple]:
    """Paths of every object in the tree, the root's included."""
    return [()] + [p for p in paths(tree) if isinstance(_at(tree, p), dict)]


def _at(tree: Any, path: tuple) -> Any:
    for key in path:
        tree = tree[key]
    return tree


MARK = "\u0000MUTANT\u0000"  # a placeholder string the text-level mutations swap for raw JSON


KINDS = (
    "truncate",
    "wrong_type",
    "missing_key",
    "unknown_key",
    "nan_inf",
    "huge_number",
    "deep_nesting",
    "long_string",
    "invalid_utf8",
    "lone_surrogate",
)


@st.composite
def mutants(
    draw: st.DrawFn, bases: st.SearchStrategy[bytes] | None = None, kinds: tuple[str, ...] = KINDS
) -> tuple[str, bytes]:
    """(kind, bytes) of a mutated run file; ``bases`` are the valid files to start from (default BASES)."""
    base = draw(st.sampled_from(BASES) if bases is None else bases)
    kind = draw(st.sampled_from(kinds))
    if kind == "truncate":
        data = base[: draw(st.integers(0, len(base.rstrip()) - 1))]  # cut at least one byte that is not a blank
    elif kind == "invalid_utf8":
        at = draw(st.integers(0, len(base)))
        bad = draw(st.sampled_from([b"\xff", b"\xc3\x28", b"\xed\xa0\x80", b"\xf0\x28\x8c\x28", b"\x80", b"\xfe\xff"]))
        data = base[:at] + bad + base[at:]
    else:
        tree = json.loads(base)
        raw = _mutate_tree(draw, kind, tree)
        text = json.dumps(tree, ensure_ascii=False)
        data = (text.replace(json.dumps(MARK), raw, 1) if raw is not None else text).encode()
    if draw(st.booleans()):
        data = gzip.compress(data, compresslevel=1)
        if draw(st.integers(0, 4)) == 0:
            kind, data = f"{kind}+gzip_truncated", data[: draw(st.integers(2, max(2, len(data) - 1)))]
        else:
            kind = f"{kind}+gzip"
    return kind, data


def _mutate_tree(draw: st.DrawFn, kind: str, tree: Any) -> str | None:
    """Mutate ``tree`` in place; returns raw JSON text that replaces ``MARK`` (for what json.dumps cannot write)."""
    if kind == "missing_key":
        parent = draw(st.sampled_from([p for p in parent_objects(tree) if _at(tree, p)]))
        del _at(tree, parent)[draw(st.sampled_from(sorted(_at(tree, parent))))]
        return None
    if kind == "unknown_key":
        parent = draw(st.sampled_from(parent_objects(tree)))
        _at(tree, parent)[draw(st.sampled_from(["extra", "Status", "scores", "id ", "", "__proto__"]))] = 1
        return None
    path = draw(st.sampled_from(paths(tree)))
    if kind == "wrong_type":
        old = _at(tree, path)
        replace(tree, path, draw(st.sampled_from([v for v in _OTHER_TYPES if type(v) is not type(old)])))
        return None
    replace(tree, path, MARK)
    if kind == "nan_inf":
        return draw(st.sampled_from(["NaN", "Infinity", "-Infinity", "[NaN]", '{"a": Infinity}']))
    if kind == "huge_number":
        return draw(
            st.sampled_from(
                [
                    "1e400",
                    "-1e400",
                    str(10**400),
                    str(2**63),
                    str(2**64),
                    "-" + str(2**63 + 1),
                    "1e-400",
                    "123456789012345678901234567890.5",
                ]
            )
        )
    if kind == "deep_nesting":
        depth = draw(st.sampled_from([50, 500, 5_000, 100_000]))
        return "[" * depth + "]" * depth if draw(st.booleans()) else '{"a":' * depth + "1" + "}" * depth
    if kind == "long_string":
        return json.dumps(draw(st.sampled_from(["x", "é", "<script>", "\\", "\n"])) * 100_000)
    if kind == "lone_surrogate":
        return draw(st.sampled_from(['"\\ud800"', '"a\\udfff"', '{"\\ud83d": 1}']))
    raise AssertionError(kind)


# --- the check every mutant goes through ------------------------------------------------------------


def counts(store: Store) -> tuple[int, ...]:
    return tuple(store.conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in TABLES)


def read_and_store(data: bytes, store: Store) -> str:
    """Read ``data`` as a run file and, when it is valid, store it; returns the outcome.

    Any exception but RunFileError / StoreError fails the test; a refusal must leave the store as it was.
    """
    before = counts(store)
    try:
        run = read_run_file(data, name="mutant.json")
    except RunFileError as exc:
        assert exc.problems and all(isinstance(p, str) and p.strip() for p in exc.problems)
        assert str(exc).startswith("mutant.json: ")
        assert counts(store) == before
        return "refused"
    try:
        store.import_run(run, replace=True)
    except StoreError:
        assert counts(store) == before
        return "refused by the store"
    dump_run(store.load_run(run.info.id))  # what was accepted can be exported again
    return "accepted"


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Store:
    return Store(tmp_path_factory.mktemp("mutants") / "mutants.db")


@pytest.mark.parametrize("kind", KINDS)
@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.function_scoped_fixture],
)
@given(data=st.data())
def test_a_mutated_run_file_is_refused_with_its_problems_or_accepted_whole(kind, data, store):
    _, mutant = data.draw(mutants(kinds=(kind,)))
    TALLY[kind][read_and_store(mutant, store)] += 1


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.function_scoped_fixture],
)
@given(mutant=mutants(bases=valid_runs().map(dump_run)))
def test_a_mutation_of_any_valid_run_is_refused_or_accepted_whole(mutant, store):
    kind, data = mutant
    TALLY[kind.split("+")[0]][read_and_store(data, store)] += 1


@pytest.mark.parametrize("kind", KINDS)
def test_each_kind_of_mutation_was_tried_and_the_tally_is_logged(kind):
    """Runs after the property tests (file order): each kind was tried at least 40 times; a file that
    lost its end, or holds NaN, invalid UTF-8 or a lone surrogate, is never accepted."""
    if not TALLY:
        pytest.skip("the tally comes from the property tests above; run them in the same session")
    tally = TALLY[kind]
    print(f"\nRELIABILITY mutants {kind}: {dict(tally)}")
    assert sum(tally.values()) >= 40
    if kind in ("truncate", "nan_inf", "invalid_utf8", "lone_surrogate"):
        assert set(tally) == {"refused"}, tally


# --- named cases ------------------------------------------------------------------------------------


def bomb(decompressed_mb: int) -> bytes:
    """A gzip stream of ``decompressed_mb`` members of 1 MiB of spaces each: a few KB that inflate to N MiB."""
    member = gzip.compress(b" " * (1 << 20), compresslevel=9)
    return member * decompressed_mb


def test_a_gzip_bomb_stops_at_the_cap_with_a_clear_problem():
    data = bomb(64)
    assert len(data) < 100_000
    with pytest.raises(RunFileError) as caught:
        read_run_file(data, name="bomb.json.gz", max_bytes=16 << 20)
    assert caught.value.problems == ["(file): decompressed size exceeds the limit of 16,777,216 bytes"]


def test_an_upload_bomb_stops_at_the_upload_cap():
    with pytest.raises(RunFileError) as caught:
        read_upload(bomb(300))  # 300 MiB once inflated: more than the 256 MiB an upload may hold
    assert "decompressed size exceeds the limit of 268,435,456 bytes" in caught.value.problems[0]


def test_an_upload_over_the_size_limit_is_refused_before_it_is_read(monkeypatch):
    import evalcore.runfile.read

    def never(*args: object, **kwargs: object) -> None:
        raise AssertionError("a too-large upload was parsed")

    monkeypatch.setattr(evalcore.runfile.read, "read_run_file", never)
    with pytest.raises(RunFileError) as caught:
        read_upload(b" " * (MAX_UPLOAD_BYTES + 1))
    assert caught.value.problems == [
        "(file): 52,428,801 bytes, over the upload limit of 52,428,800 bytes (50 MB); "
        "import it on the command line instead: evalcore import FILE"
    ]


def test_the_upload_limit_matches_the_servers():
    config = (Path(__file__).resolve().parents[2] / ".streamlit" / "config.toml").read_text()
    assert f"maxUploadSize = {MAX_UPLOAD_BYTES >> 20}\n" in config


def test_a_truncated_gzip_stream_is_refused():
    data = gzip.compress(BASES[1])
    for cut in (2, 10, len(data) // 2, len(data) - 4):
        with pytest.raises(RunFileError) as caught:
            read_run_file(data[:cut])
        assert caught.value.problems


def test_a_raw_deflate_or_zlib_stream_is_not_mistaken_for_gzip():
    with pytest.raises(RunFileError, match="invalid JSON|invalid UTF-8"):
        read_run_file(zlib.compress(BASES[1]))


@pytest.mark.parametrize("literal", ["NaN", "Infinity", "-Infinity"])
def test_nan_and_infinity_are_refused_where_they_are(literal):
    tree = json.loads(BASES[1])
    tree["results"][1]["latency_s"] = MARK
    data = json.dumps(tree).replace(json.dumps(MARK), literal).encode()
    with pytest.raises(RunFileError) as caught:
        read_run_file(data)
    assert any(p.startswith("results.1.latency_s: ") for p in caught.value.problems), caught.value.problems


def test_a_failing_replace_leaves_the_stored_run_as_it_was(tmp_path):
    store = Store(tmp_path / "s.db")
    good = make_run(2, 3, run_id="r")
    store.import_run(good)
    before = counts(store)
    broken = make_run(2, 3, run_id="r")
    broken.results[0].contender = "nobody"  # a dangling reference the store refuses
    with pytest.raises(StoreError, match="unknown contender"):
        store.import_run(broken, replace=True)
    assert counts(store) == before
    assert dump_run(store.load_run("r")) == dump_run(good)


@pytest.mark.parametrize(
    "data", [b"", b"{", b"\xff\xfe", b"[]", b'{"format": "evalcore.run", "schema_version": 2}', gzip.compress(b"{")]
)
def test_cli_import_of_a_bad_file_exits_2_lists_problems_and_stores_nothing(tmp_path, capsys, data):
    path = tmp_path / "bad.json"
    path.write_bytes(data)
    db = tmp_path / "cli.db"
    assert main(["import", str(path), "--db", str(db)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {path}: ") and "\n  " in err  # the message, then one problem per line
    if db.exists():
        with sqlite3.connect(db) as conn:
            assert conn.execute("SELECT count(*) FROM runs").fetchone()[0] == 0
