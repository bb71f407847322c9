"""Every file the tools wrote (and the older layouts) imports as a valid run whose leaderboard gives the counts
the file states in its own summary: passes, failures and errors."""

from __future__ import annotations

import gzip
import json
import zipfile
from pathlib import Path
from typing import Any

import pytest

from evalcore.runfile.importers import read_import
from evalcore.runfile.read import read_run_file
from evalcore.runfile.write import dump_run, run_to_dict
from tests.importing import FIXTURES, INSPECT_FILES, PROMPTFOO_FILES, leaderboard_counts

ALL = PROMPTFOO_FILES + INSPECT_FILES


def _name(path: Path) -> str:
    return str(path.relative_to(FIXTURES))


@pytest.mark.parametrize("path", ALL, ids=_name)
def test_an_imported_file_exports_as_a_valid_run_file_that_reads_back_the_same(path):
    run = read_import(path, imported_at="2026-12-01T00:00:00.000Z")
    again = read_run_file(dump_run(run))
    assert run_to_dict(again) == run_to_dict(run)


@pytest.mark.parametrize("path", PROMPTFOO_FILES, ids=_name)
def test_a_promptfoo_leaderboard_counts_the_passes_failures_and_errors_the_file_states(path):
    stats = _promptfoo_summary(json.loads(path.read_text()))["stats"]
    counts = leaderboard_counts(read_run_file(dump_run(read_import(path))))
    assert counts["passes"] == stats["successes"]
    if "errors" in stats:
        assert (counts["failures"], counts["errors"]) == (stats["failures"], stats["errors"])
    else:  # results version 2 counted an error as a failure
        assert counts["failures"] + counts["errors"] == stats["failures"]


@pytest.mark.parametrize("path", INSPECT_FILES, ids=_name)
def test_an_inspect_leaderboard_counts_the_passes_failures_and_errors_the_log_states(path):
    header, summaries = _inspect_summaries(path)
    run = read_run_file(dump_run(read_import(path)))
    primary = next(m.name for m in run.metrics if m.primary)
    scorer = primary if primary in _scorers(summaries) else None
    cancelled = [s for s in summaries if str(s.get("error") or "").startswith("CancelledError")]
    errors = [s for s in summaries if s.get("error") and s not in cancelled]
    finished = [s for s in summaries if not s.get("error")]
    want = {"errors": len(errors), "scored": len(finished)}
    if scorer is not None:
        values = [s["scores"][scorer]["value"] for s in finished]
        want["passes"] = sum(v in ("C", 1, 1.0, True) for v in values)
        want["failures"] = sum(v in ("I", 0, 0.0, False) for v in values)
    counts = leaderboard_counts(run)
    assert {k: counts[k] for k in want} == want
    results = header.get("results") or {}
    if results.get("completed_samples"):
        assert counts["scored"] == results["completed_samples"]
        assert counts["scored"] + counts["errors"] + len(cancelled) == results["total_samples"]


def test_the_primary_metrics_mean_is_the_accuracy_inspect_reports():
    for path in INSPECT_FILES:
        header, _ = _inspect_summaries(path)
        headline = next(iter((header.get("results") or {}).get("scores") or []), None)
        if not headline or "accuracy" not in headline["metrics"]:
            continue
        run = read_import(path)
        scores = [r.score for r in run.results if r.status == "scored"]
        assert sum(scores) / len(scores) == pytest.approx(headline["metrics"]["accuracy"]["value"]), path


def test_the_same_file_gives_the_same_run_id_and_another_file_another():
    first, again = read_import(PROMPTFOO_FILES[0]), read_import(PROMPTFOO_FILES[0])
    assert first.info.id == again.info.id
    assert first.info.id.startswith("promptfoo-")
    assert len({read_import(p).info.id for p in ALL}) == len(ALL)


def test_a_gzipped_log_is_read_by_its_content_whatever_its_name(tmp_path):
    source = FIXTURES / "inspect" / "capitals-hot.json"
    packed = tmp_path / "log.txt"
    packed.write_bytes(gzip.compress(source.read_bytes()))
    plain, zipped = read_import(source), read_import(packed)
    assert [r.score for r in plain.results] == [r.score for r in zipped.results]
    assert zipped.info.provenance["source"]["file"] == "log.txt"


def _promptfoo_summary(tree: dict[str, Any]) -> dict[str, Any]:
    return tree["results"] if isinstance(tree.get("results"), dict) else tree


def _inspect_summaries(path: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The log's header and its own per-sample summaries (id, epoch, scores, error), read without evalcore."""
    if path.suffix == ".json":
        log = json.loads(path.read_text())  # the standard library reads NaN
        samples = log.get("samples") or []
        return log, [{**s, "error": (s.get("error") or {}).get("message")} for s in samples]
    import zstandard

    from evalcore.runfile.importers._source import ZipArchive

    archive = ZipArchive(path.read_bytes(), path.name, 1 << 30)
    names = archive.names()
    assert all(zipfile.ZipFile(path).getinfo(n).compress_type in (8, 93) for n in names)
    assert zstandard  # the newer logs need it
    header = json.loads(archive.read("header.json" if "header.json" in names else "_journal/start.json"))
    if "summaries.json" in names:
        return header, json.loads(archive.read("summaries.json"))
    journal = sorted(n for n in names if n.startswith("_journal/summaries/"))
    return header, [s for n in journal for s in json.loads(archive.read(n))]


def _scorers(summaries: list[dict[str, Any]]) -> set[str]:
    return {name for s in summaries for name in (s.get("scores") or {})}
