"""Run file entries written from records by the models' fields: key order, floats, open models' extra keys."""

from __future__ import annotations

from evalcore.runfile.models import ResultEntry
from evalcore.runfile.write import run_to_dict
from tests.factories import make_run


def test_an_entry_is_written_with_its_models_keys_in_order_and_its_numbers_as_floats() -> None:
    run = make_run(1, 1, with_errors=False)
    result = run.results[0]
    result.latency_s, result.usage.cost_usd = 2, 1
    entry = run_to_dict(run)["results"][0]
    assert list(entry) == list(ResultEntry.model_fields)
    assert entry["latency_s"] == 2.0 and type(entry["latency_s"]) is float
    assert type(entry["usage"]["cost_usd"]) is float


def test_provenance_keeps_its_models_keys_first_and_any_other_after() -> None:
    run = make_run()
    run.info.provenance = {"extra": 1, "revision": None, "tool": {"version": "1", "name": "x"}, "suite_hash": "h"}
    provenance = run_to_dict(run)["run"]["provenance"]
    assert list(provenance) == ["tool", "suite_hash", "revision", "extra"]
    assert list(provenance["tool"]) == ["name", "version"]
