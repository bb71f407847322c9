"""Run history and sharing: run summaries, the default run, seeding, viewer mode and the address bar."""

from __future__ import annotations

from pathlib import Path

import pytest

from evalcore.analysis.tables.view import Filters, ViewState
from evalcore.core.metric_set import MetricSet
from evalcore.explorer.access import Policy
from evalcore.explorer.sharing import (
    bundled_suites,
    decode_query,
    default_run,
    encode_query,
    open_app_store,
    run_label,
    run_summaries,
    seed_store_from_bundled,
    usable_weights,
    winner_of,
)
from evalcore.runfile.write import write_run_file
from tests.factories import make_run

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def run():
    return make_run(n_contenders=4, n_cases=9)


class MemoryStore:
    """The few Store methods the explorer calls, in memory."""

    def __init__(self, *runs):
        self.runs = {r.info.id: r for r in runs}

    def list_runs(self):
        return [
            {
                "id": r.info.id,
                "suite": r.info.suite,
                "created_at": r.info.created_at,
                "status": r.info.status,
                "contenders": len(r.contenders),
                "cases": len(r.cases),
                "results": len(r.results),
                "errors": sum(x.status == "error" for x in r.results),
                "cost_usd": 0.01,
            }
            for r in self.runs.values()
        ]

    def load_run(self, run_id, *, results=True):
        return self.runs[run_id]

    def load_results_frame(self, run_id):
        from evalcore.storage.frames import results_frame

        return results_frame(self.runs[run_id])

    def load_summary(self, run_id, kind):
        return None  # no summaries kept: the winner comes from the frame

    def import_run(self, run, replace=False):
        self.runs[run.info.id] = run


# --- the address bar -----------------------------------------------------------------------------


def test_query_string_round_trips_run_filters_and_weights():
    state = ViewState(
        run="r1",
        filters=Filters(datasets=["tax", "roof"], contenders=["fake/oracle · t=0"], metadata={"difficulty": ["hard"]}),
        weights={"score": 0.6, "cost": -0.25},
    )
    params = encode_query(state)
    assert params["w"] == "score:0.6,cost:-0.25"
    assert decode_query(params) == state


def test_an_empty_view_has_an_empty_query_string():
    assert encode_query(ViewState()) == {}
    assert decode_query({}) == ViewState()


def test_all_weights_zero_survive_the_query_string():
    assert decode_query(encode_query(ViewState(weights={}))).weights == {}


def test_a_malformed_weight_in_the_address_is_skipped():
    assert decode_query({"w": "score:0.5,cost:lots,:1,time"}).weights == {"score": 0.5}


def test_usable_weights_drop_names_this_run_cannot_weight(run):
    assert usable_weights({"score": 1, "latency": 2}, MetricSet.of(run.metrics)) == {"score": 1}
    assert usable_weights(None, MetricSet.of(run.metrics)) is None


def test_a_weight_on_the_primary_metric_is_a_weight_on_the_score(run):
    primary = next(m.name for m in run.metrics if m.primary)
    assert usable_weights({primary: 0.85, "cost": -0.05}, MetricSet.of(run.metrics)) == {"score": 0.85, "cost": -0.05}
    assert usable_weights({primary: 0.25, "score": 0.5}, MetricSet.of(run.metrics)) == {"score": 0.75}


# --- runs and the store --------------------------------------------------------------------------


def test_run_summaries_are_newest_first_with_winner_and_cost():
    old, new = make_run(2, 3, run_id="old"), make_run(3, 3, run_id="new")
    new.info.created_at = "2027-01-01T00:00:00.000Z"
    table = run_summaries(MemoryStore(old, new))
    assert list(table["id"]) == ["new", "old"]
    assert table["winner"].iloc[0] in {c.id for c in new.contenders}
    assert table["cost"].iloc[0] == 0.01


def test_a_runs_winner_from_its_summary_is_its_winner_from_the_results(tmp_path):
    from evalcore.analysis.tables.summaries import write_summary
    from evalcore.storage.store import Store

    runs = [make_run(4, 6, run_id=f"r{i}") for i in range(3)]
    runs[1].info.weights = {"cost": -1.0}
    runs[2].info.weights = {"nonsense": 1.0}  # not usable: the winner under no weights
    with Store(tmp_path / "s.db") as store:
        for run in runs:
            store.import_run(run)
        from_frames = run_summaries(store)
        for run in runs:
            write_summary(store, run.info.id)
        assert run_summaries(store).equals(from_frames)
    assert list(from_frames.sort_values("id")["winner"]) == [winner_of(r) for r in runs]


def test_run_summaries_of_an_empty_store_is_an_empty_table():
    assert run_summaries(MemoryStore()).empty


def test_a_run_without_a_winner_shows_a_dash_in_the_history():
    run = make_run(1, 2, run_id="only-errors")
    for result in run.results:
        result.status, result.score, result.metrics = "error", None, {}
    table = run_summaries(MemoryStore(run))
    assert table["winner"].iloc[0] == "–"
    assert table["created"].iloc[0] == "2026-11-29 18:04:05"


def test_run_label_names_suite_date_status_and_short_id():
    info = {"id": "3f2c9a1b-aaaa", "suite": "intake", "created_at": "2026-11-29T18:04:05.123Z", "status": "completed"}
    assert run_label(info) == "intake · 2026-11-29 18:04 · completed · 3f2c9a1b"


def test_the_default_run_is_the_newest_completed_one():
    infos = [
        {"id": "new", "status": "interrupted"},
        {"id": "done", "status": "completed"},
        {"id": "old", "status": "completed"},
    ]
    assert default_run(infos) == "done"
    assert default_run(infos[:1]) == "new"
    assert default_run([]) is None


def test_seeding_imports_every_bundled_run_file_into_an_empty_store(tmp_path):
    write_run_file(make_run(run_id="a"), tmp_path / "a.json")
    write_run_file(make_run(run_id="b"), tmp_path / "b.json.gz")
    (tmp_path / "notes.txt").write_text("not a run")
    store = MemoryStore()
    assert seed_store_from_bundled(store, tmp_path) == ["a", "b"]
    assert sorted(store.runs) == ["a", "b"]


def test_seeding_skips_a_bad_file_and_keeps_the_others(tmp_path):
    (tmp_path / "a.json").write_text('{"format": "nope"}')
    write_run_file(make_run(run_id="b"), tmp_path / "b.json")
    assert seed_store_from_bundled(MemoryStore(), tmp_path) == ["b"]


def test_seeding_leaves_a_store_with_runs_alone(tmp_path):
    write_run_file(make_run(run_id="a"), tmp_path / "a.json")
    store = MemoryStore(make_run(run_id="mine"))
    assert seed_store_from_bundled(store, tmp_path) == []
    assert list(store.runs) == ["mine"]


def test_seeding_from_a_missing_folder_does_nothing(tmp_path):
    assert seed_store_from_bundled(MemoryStore(), tmp_path / "nowhere") == []


def test_bundled_suites_include_the_demo():
    assert "intake" in bundled_suites(REPO / "data" / "suites")
    assert bundled_suites(REPO / "nowhere") == {}


@pytest.mark.parametrize(
    ("env", "secret", "expected"),
    [
        ({}, None, False),
        ({"EVALCORE_VIEWER": "1"}, None, True),
        ({"EVALCORE_VIEWER": "true"}, None, True),
        ({"EVALCORE_VIEWER": "0"}, None, False),
        ({}, True, True),
        ({"EVALCORE_VIEWER": "1"}, "no", False),
    ],
)
def test_viewer_mode_from_environment_or_secret(env, secret, expected):
    secrets = {} if secret is None else {"EVALCORE_VIEWER": secret}
    assert Policy.from_settings(secrets, env).viewer is expected


def test_an_upload_is_new_the_same_as_the_stored_run_or_a_different_run_with_its_id(tmp_path):
    from evalcore.explorer.sharing import DIFFERENT, NEW, SAME, stored_as
    from evalcore.storage.store import Store

    store = Store(tmp_path / "evalcore.db")
    run = make_run(2, 3, run_id="run-a")
    assert stored_as(store, run) == NEW
    store.import_run(run)
    assert stored_as(store, make_run(2, 3, run_id="run-a")) == SAME
    assert stored_as(store, make_run(3, 3, run_id="run-a")) == DIFFERENT


def test_a_unique_prefix_of_four_or_more_characters_resolves_to_its_run():
    from evalcore.explorer.sharing import resolve_ref

    refs = ["3e8bd3ea-1", "3e8bffff-2", "upload:abc"]
    assert resolve_ref("3e8bd3", refs) == "3e8bd3ea-1"
    assert resolve_ref("3e8b", refs) == "3e8b"  # two runs start so: left as given
    assert resolve_ref("3e8", refs) == "3e8"  # too short
    assert resolve_ref("3e8bffff-2", refs) == "3e8bffff-2" and resolve_ref(None, refs) is None


def test_the_default_comparison_stays_within_the_newest_runs_suite() -> None:
    from evalcore.explorer.sharing import default_comparison

    def info(run_id: str, suite: str) -> dict:
        return {"id": run_id, "suite": suite, "status": "completed"}

    demo = [info("support-1", "support"), info("intake-1", "intake")]  # newest first, as the bundled demo
    assert default_comparison(demo, {}) == ("support-1", "support-1")  # two suites share no case
    history = [info("intake-3", "intake"), info("support-1", "support"), info("intake-2", "intake")]
    assert default_comparison(history, {}) == ("intake-2", "intake-3")
    history.append(info("intake-1", "intake"))
    assert default_comparison(history, {"intake": "intake-1"}) == ("intake-1", "intake-3")
    assert default_comparison(history[:1], {}) is None


def test_a_run_ranked_by_the_corrected_score_has_its_leaderboards_winner_in_the_history_and_trend(tmp_path):
    from evalcore.analysis.tables.banner import flagged
    from evalcore.analysis.tables.runs import rank_run
    from evalcore.core.records import CORRECTED, RANK_BY, Rating
    from evalcore.explorer.sharing import run_trend, trend_of
    from evalcore.storage.store import Store
    from tests.factories import rated_run

    run = rated_run("run-corrected")
    run.info.settings[RANK_BY] = CORRECTED
    run.info.weights = {"judge_score": 1.0}
    judges_own = winner_of(run)
    # People fail the replies of the judge's own winner and pass everyone else's: the corrected winner differs.
    run.ratings = [
        Rating(case.dataset, case.id, 0, c.id, None, "ana", "fail" if c.id == judges_own else "pass")
        for case in run.cases[:2]
        for c in run.contenders
    ]
    winner = flagged(rank_run(run, run.info.weights, ci=False), "best")
    assert winner != judges_own and winner_of(run) == winner
    with Store(tmp_path / "s.db") as store:
        store.import_run(run)
        assert list(run_summaries(store)["winner"]) == [winner]
        assert list(trend_of(run_trend(store, run.info.suite))["contender"]) == [winner]


def test_the_app_creates_the_default_store_of_a_fresh_install(tmp_path, monkeypatch):
    (tmp_path / "pyproject.toml").touch()
    monkeypatch.chdir(tmp_path)
    with open_app_store("data/evalcore.db") as store:
        assert store.list_runs() == []
    assert (tmp_path / "data" / "evalcore.db").is_file()


def test_the_app_serves_the_store_the_commands_use_from_the_projects_root(tmp_path, monkeypatch):
    from evalcore.storage.store import default_db_path

    (tmp_path / "pyproject.toml").touch()
    (tmp_path / "suites").mkdir()
    monkeypatch.delenv("EVALCORE_DB", raising=False)
    monkeypatch.chdir(tmp_path / "suites")
    from_a_subfolder = default_db_path()
    monkeypatch.chdir(tmp_path)
    with open_app_store(str(default_db_path())) as store:
        assert Path(store.path) == from_a_subfolder == tmp_path / "data" / "evalcore.db"


def test_the_app_refuses_a_named_store_file_that_does_not_exist_and_creates_nothing(tmp_path):
    from evalcore.core.errors import StoreMissing

    named = tmp_path / "typo" / "evalcre.db"
    with pytest.raises(StoreMissing, match=f"no store at {named} \\(EVALCORE_DB, else the .*evalcore import FILE"):
        open_app_store(str(named))
    assert list(tmp_path.iterdir()) == []


def test_the_app_opens_a_named_store_that_exists(tmp_path):
    from evalcore.storage.store import Store

    with Store(tmp_path / "team.db") as store:
        store.import_run(make_run(run_id="kept"))
    with open_app_store(str(tmp_path / "team.db")) as store:
        assert [r["id"] for r in store.list_runs()] == ["kept"]
