"""pages/run.py under AppTest: the budget cap field, a capped run's spend in the progress panel, and a model
with no known price refused under a cap."""

from __future__ import annotations

from evalcore.core.records import Contender
from evalcore.storage.store import Store
from tests.app.test_app_shared import open_page, seed, texts, unescaped

PAGE = "pages/run.py"
FIELD = "Budget cap (USD, 0: none)"


def field(at):  # noqa: ANN001, ANN201
    return next(n for n in at.number_input if n.label == FIELD)


def test_the_budget_cap_field_starts_at_none_and_a_capped_run_stops_at_the_cap(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path)
    at = open_page(PAGE)
    assert field(at).value == 0.0  # the bundled suite sets no cap
    at.multiselect[1].select("fake/oracle · t=0").select("fake/sloppy").run()
    field(at).set_value(0.002).run()
    assert not at.exception and not at.error
    next(b for b in at.button if b.label == "Launch").click().run()
    from pages._loaders import jobs

    job = jobs()[at.session_state["job"]]
    job.join(timeout=60)
    at.run()
    assert job.status == "interrupted", job.error
    shown = unescaped(texts(at))
    assert "Spent $" in shown and "of the $0.002 budget cap" in shown
    assert "budget cap reached: spent $" in shown
    stored = Store(tmp_path / "evalcore.db").load_run(job.run_id)
    assert stored.info.settings["max_cost_usd"] == 0.002
    assert stored.info.settings["stopped_by"] == "budget"
    assert 0 < len(stored.results) < 2 * 48
    assert sum(r.usage.cost_usd or 0.0 for r in stored.results) <= 0.002 + 32 * 0.002  # one batch of calls at most


def test_a_model_with_no_known_price_under_a_cap_is_named_and_launch_is_disabled(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path)
    from evalcore.execution import plan as plans

    make_plan = plans.make_plan

    def with_an_unpriced_model(suite, options=None):  # noqa: ANN001, ANN202
        plan = make_plan(suite, options)
        plan.contenders = [*plan.contenders[:1], Contender(id="openai/unpriced", model="openai/unpriced")]
        plan.missing_keys = {}
        return plan

    monkeypatch.setattr(plans, "make_plan", with_an_unpriced_model)
    at = open_page(PAGE)
    launch = next(b for b in at.button if b.label == "Launch")
    assert not launch.disabled and not at.error  # no cap: an unknown price only makes the estimate unknown
    field(at).set_value(1.0).run()
    assert "no price is known for openai/unpriced" in unescaped(texts(at))
    assert next(b for b in at.button if b.label == "Launch").disabled
