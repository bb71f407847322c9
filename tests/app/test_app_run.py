"""pages/run.py under AppTest: the plan, launching in the background, progress, viewer mode, bad input."""

from __future__ import annotations

from tests.app.test_app_shared import open_page, seed, texts, unescaped
from tests.suites import skill_suite, write_suite

PAGE = "pages/run.py"


def metric(at, label: str) -> str:
    return next(m.value for m in at.metric if m.label == label)


def open_intake():
    """The Run page on the bundled intake suite (with no run stored it opens on the first listed, agent)."""
    at = open_page(PAGE)
    return at.selectbox[0].select("suites/intake").run()


def test_the_plan_of_the_demo_suite_counts_results_cost_and_refusals(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path)
    at = open_intake()
    assert not at.exception and not at.error
    assert metric(at, "Results") == "576"
    assert unescaped(metric(at, "Estimated cost")).startswith("$0")
    assert metric(at, "Refused") == "1"
    assert len(at.dataframe[0].value) == 12
    assert "does not take reasoning_effort" in at.dataframe[1].value["reason"].iloc[0]


def test_choosing_datasets_and_contenders_changes_the_plan(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path)
    at = open_intake()
    at.multiselect[0].select("roofing").run()
    at.multiselect[1].select("fake/oracle · t=0").select("fake/sloppy").run()
    at.number_input[0].set_value(2).run()
    assert metric(at, "Results") == str(2 * 16 * 2)


def test_launching_runs_in_the_background_and_ends_with_a_leaderboard(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path)
    at = open_intake()
    at.multiselect[1].select("fake/oracle · t=0").select("fake/flaky").run()
    at.number_input[2].set_value(2).run()  # two cases per dataset: 12 calls
    next(b for b in at.button if b.label == "Launch").click().run()
    from pages._loaders import jobs

    job = jobs()[at.session_state["job"]]
    job.join(timeout=30)
    at.run()
    assert job.status == "completed", job.error
    assert "The run is complete." in texts(at)
    assert [p.value for p in at.progress] == [100, 100]
    assert len(at.dataframe[0].value) == 2  # the leaderboard of the finished run
    assert any(b.label == "Open the leaderboard" for b in at.button)


def test_a_missing_suite_folder_is_explained_not_a_traceback(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path)
    monkeypatch.setenv("EVALCORE_SUITE_ROOTS", str(tmp_path))
    at = open_page(PAGE)
    at.selectbox[0].select("another folder…").run()
    at.text_input[0].input(str(tmp_path / "nowhere")).run()
    assert not at.exception
    assert "nowhere: no evalcore.yaml here" in texts(at)


def test_a_missing_api_key_is_named_and_launch_is_disabled(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path)
    monkeypatch.setenv("EVALCORE_SUITE_ROOTS", str(tmp_path))
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    suite = write_suite(tmp_path / "suite", {"lineup": [{"model": "openai/gpt-4o-mini"}]})
    at = open_page(PAGE)
    at.selectbox[0].select("another folder…").run()
    at.text_input[0].input(str(suite)).run()
    assert not at.exception
    assert "openai/gpt-4o-mini needs OPENAI_API_KEY" in texts(at)
    assert next(b for b in at.button if b.label == "Launch").disabled


def test_viewer_mode_refuses_to_launch(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path, viewer=True)
    at = open_page(PAGE)
    assert "turned off" in texts(at)
    assert not at.button and not at.dataframe


class _Working:
    """A run in progress as the progress panel sees it (alive until told otherwise)."""

    def __init__(self, run) -> None:  # noqa: ANN001
        from evalcore.execution.runner import ContenderProgress, Progress
        from evalcore.explorer.jobs import progress_rows

        self.run, self.alive, self.status, self.error = run, True, "running", None
        self.progress, self.message = None, ""  # RunJob's: no budget cap, no stop reason
        self._rows = progress_rows(Progress(run.info.id, {c.id: ContenderProgress(9, 9) for c in run.contenders}))

    def rows(self):  # noqa: ANN201
        return self._rows

    def cancel(self) -> None:
        self.alive = False


def test_the_leaderboard_so_far_is_read_again_only_when_old_enough(monkeypatch, tmp_path):
    """Polled twice a second, the panel re-reads a million results at most every couple of seconds."""
    import pages._loaders
    from evalcore.storage.store import Store
    from tests.app.test_app_shared import demo_run

    run = demo_run()
    seed(monkeypatch, tmp_path, run)
    reads = []
    load = Store.load_results_frame
    monkeypatch.setattr(Store, "load_results_frame", lambda self, run_id: reads.append(run_id) or load(self, run_id))
    job = _Working(run)
    pages._loaders.jobs()[run.info.id] = job
    try:
        at = open_page(PAGE, job=run.info.id)
        assert not at.exception
        assert "Leaderboard so far (36 results)" in texts(at) and len(at.dataframe[0].value) == 4
        at.run()
        assert reads == [run.info.id]  # the same leaderboard, drawn again
        kept = at.session_state["so_far"]
        at.session_state["so_far"] = (kept[0], kept[1] - pages._loaders.SO_FAR_EVERY_S - 60, *kept[2:])  # aged
        at.run()
        assert reads == [run.info.id] * 2
        job.alive, job.status = False, "completed"
        at.run()
        assert len(reads) == 3 and "The run is complete." in texts(at)  # a finished run's is read afresh
    finally:
        pages._loaders.jobs().pop(run.info.id, None)


def _skill_page(monkeypatch, tmp_path, race=None):
    seed(monkeypatch, tmp_path)
    monkeypatch.setenv("EVALCORE_SUITE_ROOTS", str(tmp_path))
    suite = skill_suite(tmp_path / "skill", race=race)
    at = open_page(PAGE)
    at.selectbox[0].select("another folder…").run()
    at.text_input[0].input(str(suite)).run()
    return at


def test_the_adaptive_switch_is_off_unless_the_suite_asks_for_a_race(monkeypatch, tmp_path):
    at = _skill_page(monkeypatch, tmp_path)
    assert not at.exception
    assert at.toggle[0].label == "Adaptive: stop contenders that cannot win" and not at.toggle[0].value
    assert "Adaptive: at most" not in texts(at)


def test_turning_the_switch_on_offers_confidence_and_margin_and_says_the_calls_are_a_ceiling(monkeypatch, tmp_path):
    at = _skill_page(monkeypatch, tmp_path)
    at.toggle[0].set_value(True).run()
    inputs = {n.label: n.value for n in at.number_input}
    assert inputs["Confidence"] == 0.95 and inputs["Margin (points, 0: none)"] == 0.0
    assert "Adaptive: at most 144 calls" in texts(at)


def test_a_race_of_one_contender_is_refused_before_launch(monkeypatch, tmp_path):
    at = _skill_page(monkeypatch, tmp_path)
    at.toggle[0].set_value(True).run()
    at.multiselect[1].select("fake/skill · skill=0.9").run()
    assert "the lineup needs at least two" in texts(at)
    assert next(b for b in at.button if b.label == "Launch").disabled


def test_a_suite_that_asks_for_a_race_starts_with_the_switch_on_and_its_settings(monkeypatch, tmp_path):
    at = _skill_page(monkeypatch, tmp_path, race={"confidence": 0.9, "margin": 2})
    inputs = {n.label: n.value for n in at.number_input}
    assert at.toggle[0].value and inputs["Confidence"] == 0.9 and inputs["Margin (points, 0: none)"] == 2.0


def test_launching_an_adaptive_run_shows_the_race_and_its_stops(monkeypatch, tmp_path):
    at = _skill_page(monkeypatch, tmp_path, race={"seed": 1})  # the suite's seed: the same race every time
    assert at.toggle[0].value
    next(b for b in at.button if b.label == "Launch").click().run()
    from pages._loaders import jobs

    job = jobs()[at.session_state["job"]]
    job.join(timeout=60)
    at.run()
    assert job.status == "completed", job.error
    said = unescaped(texts(at))
    # seed 1 stops skill=0.3 mid-race; skill=0.6 answers every case (the last round stops nobody)
    assert "Race: 2 of 3 still in" in said and "calls saved (the cases ran out)" in said
    bars = [unescaped(p.proto.text) for p in at.progress]
    assert sum("stopped after" in bar for bar in bars) == 1
    marks = at.dataframe[0].value["mark"]
    assert sum("stopped after" in m for m in marks) == 1


def test_the_page_opens_on_the_suite_of_the_run_being_looked_at(monkeypatch, tmp_path):
    from evalcore.runfile.read import read_run_file

    seed(monkeypatch, tmp_path, read_run_file("data/runs/support-demo.json"))
    at = open_page(PAGE)
    assert at.selectbox[0].value == "suites/support"


def _agent_suite_picked(monkeypatch, tmp_path):  # noqa: ANN001, ANN202
    """The Run page with a one-contender agent suite picked from another folder; the page and the suite's folder."""
    from tests.agents import agent_suite

    seed(monkeypatch, tmp_path)
    monkeypatch.setenv("EVALCORE_SUITE_ROOTS", str(tmp_path))
    root = agent_suite(tmp_path / "agent", [{"model": "fake/agent"}])
    at = open_page(PAGE)
    at.selectbox[0].select("another folder…").run()
    at.text_input[0].input(str(root)).run()
    assert not at.exception
    return at, root


def test_the_plan_of_an_agent_suite_says_its_model_calls_are_a_lower_bound_as_the_cli_does(monkeypatch, tmp_path):
    from evalcore.execution.estimate import calls_text, estimate_plan_cost
    from evalcore.execution.plan import make_plan
    from evalcore.suite.loader import load_suite

    at, root = _agent_suite_picked(monkeypatch, tmp_path)
    shown = unescaped(texts(at))
    assert f"Model calls: {calls_text(estimate_plan_cost(make_plan(load_suite(root))))}" in shown
    assert "at least 3: an agent makes one call per step, up to max_steps = 6" in shown
    assert unescaped(metric(at, "Estimated cost")).startswith("≥ $")


def test_the_plans_card_of_an_agent_suite_counts_results_not_model_calls(monkeypatch, tmp_path):
    from evalcore.execution.plan import make_plan
    from evalcore.suite.loader import load_suite

    at, root = _agent_suite_picked(monkeypatch, tmp_path)
    # An agent's case makes one model call per step: the card counts the results, the caption the calls.
    assert metric(at, "Results") == str(make_plan(load_suite(root)).calls)
    assert "Calls" not in [m.label for m in at.metric]
    assert "Model calls: at least" in unescaped(texts(at))
