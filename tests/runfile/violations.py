"""Run files with one rule broken: each row a minimal valid run file (:func:`valid`) and one change that breaks
exactly one rule of the spec (``/work/shared/spec/run-file-v1.md``, ``docs/run-file.md``), with the path and
the words the refusal names. Read by the full reader's tests and by the fast path's differential test."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from evalcore.runfile.write import run_to_dict
from tests.factories import make_run
from tests.runfile.test_runfile_pairwise import with_verdicts
from tests.runfile.test_runfile_ratings import with_ratings


def valid() -> dict[str, Any]:
    """A minimal valid run file's tree: two contenders, three cases, one failed result."""
    return run_to_dict(make_run())


def first_error(d: dict[str, Any]) -> int:
    return next(i for i, r in enumerate(d["results"]) if r["status"] == "error")


Mutation = Callable[[dict[str, Any]], None]


def set_at(path: str, value: Any) -> Mutation:
    """A mutation that sets ``a.0.b`` to ``value`` (``@error`` stands for the first error result)."""

    def mutate(d: dict[str, Any]) -> None:
        parts: list[Any] = [first_error(d) if p == "@error" else int(p) if p.isdigit() else p for p in path.split(".")]
        node = d
        for part in parts[:-1]:
            node = node[part]
        node[parts[-1]] = value

    return mutate


def both(*mutations: Mutation) -> Mutation:
    def mutate(d: dict[str, Any]) -> None:
        for m in mutations:
            m(d)

    return mutate


def duplicate_case(d: dict[str, Any]) -> None:
    """A second copy of the first case, at the end: no result names it, so no other rule is broken."""
    d["cases"].append(copy.deepcopy(d["cases"][0]))


def duplicate_result(d: dict[str, Any]) -> None:
    d["results"].append(copy.deepcopy(d["results"][0]))


def duplicate_last_result(d: dict[str, Any]) -> None:
    """A second copy of the last result: the duplicate check must know where each result is, not only the first."""
    d["results"].append(copy.deepcopy(d["results"][-1]))


def add_metric(name: str) -> Mutation:
    """A new metric at the end, named ``name``: no result gives it a value, which is allowed."""

    def mutate(d: dict[str, Any]) -> None:
        d["metrics"].append({"name": name, "description": "An extra.", "higher_is_better": True, "primary": False})

    return mutate


def add_contender(contender_id: str) -> Mutation:
    """A copy of the first contender at the end, with id ``contender_id``: it has no results, which is allowed."""

    def mutate(d: dict[str, Any]) -> None:
        d["contenders"].append(dict(copy.deepcopy(d["contenders"][0]), id=contender_id))

    return mutate


def on_ratings(mutation: Mutation) -> Mutation:
    """``mutation`` applied to a minimal valid file of schema version 3 (people's ratings) instead."""

    def mutate(d: dict[str, Any]) -> None:
        d.clear()
        d.update(run_to_dict(with_ratings(make_run(3, 4))))
        mutation(d)

    return mutate


def on_verdicts(mutation: Mutation) -> Mutation:
    """``mutation`` applied to a minimal valid file of schema version 2 (pairwise verdicts) instead."""

    def mutate(d: dict[str, Any]) -> None:
        d.clear()
        d.update(run_to_dict(with_verdicts(make_run(3, 4))))
        mutation(d)

    return mutate


def drop(path: str) -> Mutation:
    def mutate(d: dict[str, Any]) -> None:
        *head, last = path.split(".")
        node = d
        for part in head:
            node = node[int(part) if part.isdigit() else part]
        del node[last]

    return mutate


RULES: list[tuple[str, Mutation, str, str]] = [
    ("no primary", set_at("metrics.0.primary", False), "metrics", "no metric is primary"),
    ("two primaries", set_at("metrics.1.primary", True), "metrics.1.primary", "exactly one metric may be primary"),
    ("metric pattern", add_metric("ExactMatch"), "metrics.4.name", "String should match pattern"),
    ("reserved metric", add_metric("cost"), "metrics.4.name", "'cost' is reserved"),
    ("duplicate metric", add_metric("exact_match"), "metrics.4.name", "duplicate 'exact_match'"),
    ("duplicate contender", add_contender("fake/perfect · t=0.0"), "contenders.2.id", "duplicate"),
    ("duplicate case", duplicate_case, "cases.3.id", "duplicate ('tax_preparation', 'complete/000')"),
    ("duplicate result", duplicate_result, "results.6", "duplicate result"),
    ("duplicate last result", duplicate_last_result, "results.6", "already at results.5"),
    ("unknown contender", set_at("results.0.contender", "fake/nobody"), "results.0.contender", "not a contenders[].id"),
    ("unknown case", set_at("results.0.case", "vague/999"), "results.0.case", "is not a (dataset, id) in cases[]"),
    ("error with score", set_at("results.@error.score", 0.5), "results.3.score", "must be null when status is 'error'"),
    (
        "scored without score",
        both(set_at("results.0.score", None), set_at("results.0.metrics.field_accuracy", None)),
        "results.0.score",
        "must be a number in [0, 1]",
    ),
    ("error with metrics", set_at("results.@error.metrics", {"exact_match": 0.0}), "results.3.metrics", "must be {}"),
    ("error without error", set_at("results.@error.error", None), "results.3.error", "must be {kind, message}"),
    ("error of kind model", set_at("results.@error.error.kind", "model"), "results.3.error.kind", "are scored"),
    (
        "scored call failure",
        set_at("results.0.error", {"kind": "timeout", "message": "slow"}),
        "results.0.error.kind",
        "status must be 'error'",
    ),
    ("undeclared metric", set_at("results.0.metrics.f1", 0.5), "results.0.metrics.f1", "'f1' is not a declared metric"),
    (
        "metric above 1",
        set_at("results.0.metrics.exact_match", 1.5),
        "results.0.metrics.exact_match",
        "less than or equal to 1",
    ),
    (
        "score below 0",
        both(set_at("results.0.score", -0.1), drop("results.0.metrics.field_accuracy")),
        "results.0.score",
        "greater than or equal to 0",
    ),
    ("score not primary", set_at("results.1.score", 0.0), "results.1.score", "differs from the primary metric"),
    (
        "unknown error kind",
        set_at("results.@error.error.kind", "boom"),
        "results.3.error.kind",
        "Input should be 'model'",
    ),
    ("zero attempts", set_at("results.0.attempts", 0), "results.0.attempts", "greater than or equal to 1"),
    ("negative latency", set_at("results.0.latency_s", -1.0), "results.0.latency_s", "greater than or equal to 0"),
    ("negative sample", set_at("results.0.sample", -1), "results.0.sample", "greater than or equal to 0"),
    ("bool as integer", set_at("results.0.attempts", True), "results.0.attempts", "valid integer"),
    ("string as number", set_at("results.0.usage.cost_usd", "0.1"), "results.0.usage.cost_usd", "valid number"),
    ("timestamp with space", set_at("run.created_at", "2026-11-29 18:04:05Z"), "run.created_at", "not an RFC 3339 UTC"),
    ("timestamp not UTC", set_at("run.created_at", "2026-11-29T18:04:05+02:00"), "run.created_at", "RFC 3339 UTC"),
    ("impossible date", set_at("results.0.started_at", "2026-02-30T00:00:00Z"), "results.0.started_at", "RFC 3339"),
    (
        "finished while running",
        set_at("run.status", "running"),
        "run.finished_at",
        "must be null while the run is 'running'",
    ),
    ("unweightable name", set_at("run.weights.input_tokens", 1.0), "run.weights.input_tokens", "cannot be weighted"),
    ("unknown run status", set_at("run.status", "done"), "run.status", "Input should be 'running'"),
    ("provenance without tool", drop("run.provenance.tool"), "run.provenance.tool", "required key is missing"),
    ("missing key", drop("results.0.raw"), "results.0.raw", "required key is missing"),
    ("run id a relative path", set_at("run.id", "../../x"), "run.id", "'../../x' is not a run id"),
    ("run id an absolute path", set_at("run.id", "/tmp/x"), "run.id", "'/tmp/x' is not a run id"),
    ("empty contender id", add_contender(""), "contenders.2.id", "at least 1 character"),
    ("number as input", set_at("cases.0.input", 3), "cases.0.input", "should be a string or an object"),
    ("unknown top-level key", set_at("comment", "hi"), "comment", "unknown key; allowed keys: format, schema_version"),
    ("unknown nested key", set_at("results.0.usage.tokens", 3), "results.0.usage.tokens", "unknown key; allowed keys"),
    (
        "refused without reason",
        lambda d: d["refused"].append({"model": "x", "settings": {}}),
        "refused.1.reason",
        "required key",
    ),
    ("verdicts in schema version 1", set_at("pairwise", []), "pairwise", "unknown key; allowed keys"),
    ("ratings in schema version 1", set_at("ratings", []), "ratings", "unknown key; allowed keys"),
    ("trace in schema version 1", set_at("results.0.trace", None), "results.0.trace", "unknown key; allowed keys"),
    ("unknown case key", set_at("cases.0.extra", 1), "cases.0.extra", "unknown key; allowed keys: dataset, id"),
    ("case without input", drop("cases.0.input"), "cases.0.input", "required key is missing"),
    ("negative tokens", set_at("results.0.usage.input_tokens", -1), "results.0.usage.input_tokens", "greater than or"),
    ("weight as text", set_at("run.weights.exact_match", "1"), "run.weights.exact_match", "valid number"),
    ("description as number", set_at("metrics.0.description", 3), "metrics.0.description", "valid string"),
    (
        "verdict of an unknown contender",
        on_verdicts(set_at("pairwise.0.b", "fake/nobody")),
        "pairwise.0.b",
        "'fake/nobody' is not a contenders[].id",
    ),
    (
        "verdict with an outcome and an error",
        on_verdicts(set_at("pairwise.1.outcome", "tie")),
        "pairwise.1.outcome",
        "give an outcome, or null with an error",
    ),
    (
        "duplicate verdict",
        on_verdicts(lambda d: d["pairwise"].append(dict(d["pairwise"][0]))),
        "pairwise.2",
        "duplicate comparison: already at pairwise.0",
    ),
    (
        "rating of an unknown case",
        on_ratings(set_at("ratings.2.case", "vague/999")),
        "ratings.2.case",
        "is not a (dataset, id) in cases[]",
    ),
    (
        "rating of an unanswered sample",
        on_ratings(set_at("ratings.2.sample", 7)),
        "ratings.2.sample",
        "has no reply by",
    ),
    (
        "duplicate rating",
        on_ratings(lambda d: d["ratings"].append(dict(d["ratings"][2]))),
        "ratings.3",
        "duplicate rating: already at ratings.2",
    ),
    (
        "unknown verdict outcome",
        on_verdicts(set_at("pairwise.0.outcome", "draw")),
        "pairwise.0.outcome",
        "Input should",
    ),
]
