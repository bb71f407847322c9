"""Hand-built runs for tests: deterministic, valid by the run-file spec, general enough to reuse."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from hypothesis import strategies as st

from evalcore.core import records

FAKE_MODELS = ("fake/perfect", "fake/guesser", "fake/lazy", "fake/flaky", "fake/garbler")
DATASETS = ("tax_preparation", "roofing", "immigration_law")
VARIANTS = ("complete", "partial", "vague", "noisy")
CREATED_AT = datetime(2026, 11, 29, 18, 4, 5, 123000, tzinfo=UTC)

METRICS = [
    records.Metric("field_accuracy", "Mean per-field correctness.", higher_is_better=True, primary=True),
    records.Metric("exact_match", "Every field is right.", higher_is_better=True),
    records.Metric("restraint", "Share of the fields left open that stay null.", higher_is_better=True),
    records.Metric("hallucinated_rate", "Share of the open fields given a value.", higher_is_better=False),
]


def timestamp(seconds: float = 0.0) -> str:
    """An RFC 3339 UTC timestamp ``seconds`` after the factory's fixed start."""
    moment = CREATED_AT + timedelta(seconds=seconds)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def make_contender(i: int) -> records.Contender:
    """The ``i``-th contender: a fake model, with a temperature that makes the id unique."""
    model = FAKE_MODELS[i % len(FAKE_MODELS)]
    temperature = round(0.5 * (i // len(FAKE_MODELS)), 1)
    settings = {"temperature": temperature, "max_tokens": 256}
    return records.Contender(id=f"{model} · t={temperature}", model=model, settings=settings)


def make_case(j: int) -> records.Case:
    """The ``j``-th case: datasets and variants cycle; every fourth input is an object."""
    dataset, variant = DATASETS[j % len(DATASETS)], VARIANTS[(j // len(DATASETS)) % len(VARIANTS)]
    text = f"Hi, I'm Client {j} and I need help with my {dataset.replace('_', ' ')}."
    metadata: dict[str, Any] = {"words": 12 + j}
    if j % 2 == 0:
        metadata["difficulty"] = ("easy", "medium", "hard")[j % 3]
    return records.Case(
        dataset=dataset,
        id=f"{variant}/{j:03d}",
        variant=variant,
        input={"subject": f"Case {j}", "body": text} if j % 4 == 3 else text,
        expected={"client_name": f"Client {j}", "dependents": j % 3 or None},
        metadata=metadata,
    )


def make_result(contender: records.Contender, ci: int, case: records.Case, j: int, sample: int) -> records.Result:
    """A scored result whose numbers follow from the indexes."""
    value = ((ci * 7 + j * 3 + sample * 5) % 9) / 8
    metrics: dict[str, float | None] = {
        "field_accuracy": value,
        "exact_match": 1.0 if value == 1.0 else 0.0,
        "restraint": None if j % 3 == 2 else 1.0 - value / 2,
        "hallucinated_rate": value / 4,
    }
    output = {"client_name": f"Client {j}" if value >= 0.5 else None, "dependents": j % 3 or None}
    usage = records.Usage(input_tokens=100 + 10 * j, output_tokens=20 + ci, cost_usd=(ci + 1) * (150 + 10 * j) * 1e-6)
    return records.Result(
        contender=contender.id,
        dataset=case.dataset,
        case=case.id,
        sample=sample,
        status="scored",
        score=value,
        metrics=metrics,
        output=output,
        raw=f'{{"client_name": "{output["client_name"]}"}}',
        diagnostics={} if value == 1.0 else {"client_name": {"want": f"Client {j}", "got": output["client_name"]}},
        usage=usage,
        latency_s=0.25 + 0.1 * ci + 0.01 * j,
        attempts=1,
        started_at=timestamp(ci + j + sample),
    )


def failed(result: records.Result, kind: str = "transport") -> records.Result:
    """``result`` turned into a call that failed after its retries (status ``error``)."""
    result.status, result.score, result.metrics = "error", None, {}
    result.output, result.raw, result.diagnostics = None, None, {}
    result.error = records.ErrorInfo(kind, f"{kind}: gave up after 3 attempts")
    result.usage, result.attempts, result.latency_s = records.Usage(), 3, 30.0
    return result


def unusable(result: records.Result) -> records.Result:
    """``result`` turned into an unusable reply: scored 0 with error kind ``model``."""
    result.score = 0.0
    result.metrics = {"field_accuracy": 0.0, "exact_match": 0.0, "restraint": None, "hallucinated_rate": 0.0}
    result.output, result.raw = None, "Sure! Here is the JSON you asked for"
    result.error = records.ErrorInfo("model", "reply is not valid JSON")
    return result


def make_run(
    n_contenders: int = 2,
    n_cases: int = 3,
    samples: int = 1,
    with_errors: bool = True,
    *,
    run_id: str = "run-0001",
    suite: str = "intake",
    status: records.RunStatus = "completed",
) -> records.Run:
    """A complete, valid run: every contender × case × sample has a result.

    With ``with_errors``, the last contender's first result failed (status ``error``, kind
    ``transport``) and its second (when there is one) is an unusable reply (kind ``model``, scored 0).
    Case metadata: ``words`` on every case, ``difficulty`` on even cases only.
    """
    contenders = [make_contender(i) for i in range(n_contenders)]
    cases = [make_case(j) for j in range(n_cases)]
    results = [
        make_result(c, ci, case, j, s)
        for ci, c in enumerate(contenders)
        for j, case in enumerate(cases)
        for s in range(samples)
    ]
    if with_errors and results:
        last = (n_contenders - 1) * n_cases * samples
        failed(results[last])
        if last + 1 < len(results):
            unusable(results[last + 1])
    return records.Run(
        info=make_info(run_id, suite, status, samples, cases),
        metrics=list(METRICS),
        contenders=contenders,
        cases=cases,
        results=results,
        refused=[records.Refusal("fake/embedder", {"temperature": 0.2}, "fake/embedder is not a chat model")],
    )


def make_info(
    run_id: str, suite: str, status: records.RunStatus, samples: int, cases: list[records.Case]
) -> records.RunInfo:
    """A run header with full provenance."""
    datasets = sorted({c.dataset for c in cases})
    return records.RunInfo(
        id=run_id,
        suite=suite,
        created_at=timestamp(),
        finished_at=timestamp(300) if status in ("completed", "failed") else None,
        status=status,
        weights={"score": 1.0, "cost": -0.5, "errors": 1.0},
        settings={"parallelism": 4, "samples": samples, "selection": {"datasets": None}, "flags": []},
        provenance={
            "tool": {"name": "evalcore", "version": "0.1.0"},
            "suite_hash": "sha256:5be1c0de",
            "dataset_hashes": {d: f"sha256:{d}" for d in datasets},
            "revision": None,
        },
    )


BINARY_METRICS = [records.Metric("field_accuracy", "Mean per-field correctness.", primary=True)]


def binary_run(
    run_id: str,
    outcomes: dict[str, list[int | None]],
    *,
    dataset_hash: str = "sha256:tax",
    expected_of: dict[int, object] | None = None,
    cost: float = 0.001,
) -> records.Run:
    """A run with one 0/1 metric: one result per contender × case, 1 right, 0 wrong, None a failed call.

    Scores are countable by hand; ``dataset_hash`` and ``expected_of`` (case index → expected answer) make
    a run whose dataset changed.
    """
    n = len(next(iter(outcomes.values())))
    cases = [
        records.Case("tax", f"c/{j:03d}", "c", f"input {j}", (expected_of or {}).get(j, {"answer": j}))
        for j in range(n)
    ]
    contenders = [records.Contender(cid, cid.split(" ")[0]) for cid in outcomes]
    results = []
    for cid, values in outcomes.items():
        for j, value in enumerate(values):
            if value is None:
                results.append(
                    records.Result(
                        cid, "tax", f"c/{j:03d}", 0, "error", None,
                        error=records.ErrorInfo("transport", "cannot connect to http://127.0.0.1:9/v1"),
                        latency_s=0.01,
                    )
                )  # fmt: skip
                continue
            results.append(
                records.Result(
                    cid, "tax", f"c/{j:03d}", 0, "scored", float(value), {"field_accuracy": float(value)},
                    output={"answer": j if value else -1},
                    diagnostics={} if value else {"answer": {"want": j, "got": -1}},
                    usage=records.Usage(100, 20, cost), latency_s=0.5,
                )
            )  # fmt: skip
    info = make_info(run_id, "intake", "completed", 1, cases)
    info.weights = {}
    info.provenance["dataset_hashes"] = {"tax": dataset_hash}
    return records.Run(info, list(BINARY_METRICS), contenders, cases, results)


# --- hypothesis strategies -----------------------------------------------------------------------

_scalars = (
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=8)
)
_json = st.recursive(
    _scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
    max_leaves=6,
)
_objects = st.dictionaries(st.text(max_size=6), _json, max_size=3)
_names = st.text(min_size=1, max_size=10)
_run_ids = st.from_regex(r"[A-Za-z0-9][A-Za-z0-9._:+@=-]{0,11}", fullmatch=True)
_unit = st.floats(min_value=0.0, max_value=1.0)
_counts = st.integers(min_value=0, max_value=2**63 - 1)
_metric_names = st.from_regex(r"[a-z][a-z0-9_]{0,7}", fullmatch=True).filter(lambda n: n not in records.RESERVED_NAMES)


@st.composite
def _timestamps(draw: st.DrawFn) -> str:
    moment = draw(
        st.datetimes(min_value=datetime(1970, 1, 1), max_value=datetime(9999, 12, 31), timezones=st.just(UTC))
    )
    spec = draw(st.sampled_from(["seconds", "milliseconds", "microseconds"]))
    return moment.isoformat(timespec=spec).replace("+00:00", draw(st.sampled_from(["Z", "+00:00"])))


@st.composite
def _results(draw: st.DrawFn, key: tuple[str, str, str, int], metrics: list[records.Metric]) -> records.Result:
    contender, dataset, case, sample = key
    usage = records.Usage(
        draw(_counts | st.none()),
        draw(_counts | st.none()),
        draw(st.floats(min_value=0, allow_infinity=False) | st.none()),
    )
    common = dict(
        output=draw(_json),
        raw=draw(st.text(max_size=20) | st.none()),
        diagnostics=draw(_objects),
        usage=usage,
        latency_s=draw(st.floats(min_value=0, allow_infinity=False) | st.none()),
        attempts=draw(st.integers(min_value=1, max_value=2**63 - 1)),
        started_at=draw(_timestamps() | st.none()),
    )
    if draw(st.booleans()):
        kind = draw(st.sampled_from([k for k in records.ERROR_KINDS if k != "model"]))
        error = records.ErrorInfo(kind, draw(st.text(max_size=20)))
        return records.Result(contender, dataset, case, sample, "error", None, {}, error=error, **common)
    values = draw(st.dictionaries(st.sampled_from([m.name for m in metrics]), _unit | st.none(), max_size=len(metrics)))
    score = draw(_unit)
    primary = next(m.name for m in metrics if m.primary)
    if primary in values:
        values[primary] = score
    error = draw(st.none() | st.builds(records.ErrorInfo, st.just("model"), st.text(max_size=10)))
    return records.Result(contender, dataset, case, sample, "scored", score, values, error=error, **common)


@st.composite
def valid_runs(draw: st.DrawFn) -> records.Run:
    """Hypothesis strategy: any run the run-file spec allows (small, with free-form JSON everywhere)."""
    names = draw(st.lists(_metric_names, min_size=1, max_size=4, unique=True))
    primary = draw(st.integers(0, len(names) - 1))
    metrics = [
        records.Metric(n, draw(st.text(max_size=20)), draw(st.booleans()), i == primary) for i, n in enumerate(names)
    ]
    contenders = [
        records.Contender(cid, draw(_names), draw(_objects))
        for cid in draw(st.lists(_names, min_size=1, max_size=3, unique=True))
    ]
    cases = [
        records.Case(
            d, cid, draw(st.text(max_size=8)), draw(st.text(max_size=20) | _objects), draw(_json), draw(_objects)
        )
        for d, cid in draw(st.lists(st.tuples(_names, _names), min_size=1, max_size=3, unique=True))
    ]
    keys = st.tuples(
        st.sampled_from([c.id for c in contenders]), st.sampled_from([c.key for c in cases]), st.integers(0, 3)
    )
    results = [draw(_results((c, *k, s), metrics)) for c, k, s in draw(st.lists(keys, max_size=6, unique=True))]
    status = draw(st.sampled_from(["running", "completed", "interrupted", "failed"]))
    info = records.RunInfo(
        id=draw(_run_ids),
        suite=draw(st.text(max_size=10)),
        created_at=draw(_timestamps()),
        finished_at=None if status in ("running", "interrupted") else draw(_timestamps() | st.none()),
        status=status,
        weights=draw(
            st.dictionaries(
                st.sampled_from(["score", "errors", "cost", "time", *names]),
                st.floats(allow_nan=False, allow_infinity=False),
            )
        ),
        settings=draw(_objects),
        provenance={
            # Free-form keys first: one named "name" or "version" must not replace the required strings.
            "tool": {**draw(_objects), "name": draw(st.text(max_size=8)), "version": draw(st.text(max_size=8))},
            "suite_hash": draw(st.text(max_size=8)),
            "dataset_hashes": draw(st.dictionaries(st.text(max_size=6), st.text(max_size=6), max_size=2)),
            "revision": draw(st.text(max_size=8) | st.none()),
        },
    )
    refused = [
        records.Refusal(draw(_names), draw(_objects), draw(st.text(max_size=20)))
        for _ in range(draw(st.integers(0, 2)))
    ]
    return records.Run(info, metrics, contenders, cases, results, refused)


def judged_run(n_cases: int = 4, run_id: str = "run-0001") -> records.Run:
    """A run with pairwise verdicts: of its three contenders c0 beats c1 on every case, c0 and c2 tie, and
    c1 and c2 disagree with the order (``inconsistent``)."""
    run = make_run(3, n_cases, run_id=run_id)
    c0, c1, c2 = (c.id for c in run.contenders)
    outcomes = {(c0, c1): "win", (c0, c2): "tie", (c1, c2): "inconsistent"}
    run.pairwise = [
        records.PairVerdict(case.dataset, case.id, 0, a, b, outcome, "fake/judge", ["a", "a"], [], None, 0.001, 1.0)
        for (a, b), outcome in outcomes.items()
        for case in run.cases
    ]
    return run


def cut_run(run_id: str = "run-cut") -> records.Run:
    """A run cut short: 12 contenders × 48 cases (576 results expected), 300 held; the last 5 contenders have none."""
    run = make_run(n_contenders=12, n_cases=48, with_errors=False, run_id=run_id)
    first_seven = {c.id for c in run.contenders[:7]}
    run.results = [r for r in run.results if r.contender in first_seven][:300]
    return run


def rated_run(run_id: str = "run-0001") -> records.Run:
    """:func:`judged_run` with a judged metric and people's ratings, numbers easy to work out by hand.

    Pairs: ``ana`` and ``ben`` both say c0 beats c1 on the 4 cases; on c0 against c2 ``ana`` says tie 4 times,
    ``ben`` says c0 on the first case and tie on the rest. The judge's ``judge_score`` is 1 on every result;
    ``ana`` rated c0's replies to the first two cases, pass and fail.
    """
    run = judged_run(4, run_id)
    c0, c1, c2 = (c.id for c in run.contenders)
    run.metrics.append(records.Metric("judge_score", "judge: mean of the dimensions"))
    for r in run.results:
        if r.status == "scored":
            r.metrics["judge_score"] = 1.0
    pairs = [(c0, c1, "a", "a")] * 4 + [(c0, c2, "tie", "tie")] * 4
    ratings = []
    for j, (a, b, ana, ben) in enumerate(pairs):
        case = run.cases[j % 4]
        ben = "a" if j == 4 else ben
        for rater, verdict in (("ana", ana), ("ben", ben)):
            ratings.append(records.Rating(case.dataset, case.id, 0, a, b, rater, verdict, created_at=timestamp(j)))
    for case, verdict in zip(run.cases[:2], ("pass", "fail"), strict=True):
        ratings.append(records.Rating(case.dataset, case.id, 0, c0, None, "ana", verdict, created_at=timestamp(9)))
    run.ratings = ratings
    return run


def corrected_run(run_id: str = "run-corrected") -> records.Run:
    """:func:`rated_run` asking to rank by the judge's score corrected by people, every contender rated: people
    also pass c1's and c2's reply to the second case, so c0's corrected ``judge_score`` is
    1 + mean(1 - 1, 0 - 1) = 0.5 and it ranks last."""
    run = rated_run(run_id)
    run.info.settings[records.RANK_BY] = records.CORRECTED
    run.info.weights = {"judge_score": 1.0}
    case = run.cases[1]
    run.ratings += [records.Rating(case.dataset, case.id, 0, c.id, None, "ana", "pass") for c in run.contenders[1:]]
    return run


def flagged_run(run_id: str = "run-flagged") -> records.Run:
    """:func:`judged_run` whose judge panel flagged c1's replies to the last two cases for review (``judge_flagged``
    1 there, 0 on every other scored result)."""
    from evalcore.scoring.judge import FLAGGED_DESCRIPTION

    run = judged_run(4, run_id)
    c1 = run.contenders[1].id
    run.metrics.append(records.Metric("judge_flagged", FLAGGED_DESCRIPTION, higher_is_better=False))
    late = {c.id for c in run.cases[2:]}
    for r in run.results:
        if r.status == "scored":
            r.metrics["judge_flagged"] = 1.0 if r.contender == c1 and r.case in late else 0.0
    return run


def two_judges_run(run_id: str = "run-two-judges", n_cases: int = 200, rated: int = 60, seed: int = 0) -> records.Run:
    """A run judged by a judge and its aligned version, rated by people on randomly drawn replies (seeded).

    People's verdict of each reply is a coin with P(pass) = 0.6; ``llm_judge_judge_score`` agrees with it on 70%
    of replies, ``aligned_judge_score`` on 95%. ``ana`` rates ``rated`` replies of each contender.
    """
    import numpy as np

    run = make_run(2, n_cases, with_errors=False, run_id=run_id)
    rng = np.random.default_rng(seed)
    names = ("llm_judge_judge_score", "aligned_judge_score")
    run.metrics += [records.Metric(n, "judge: mean of the dimensions") for n in names]
    ratings = []
    for contender in run.contenders:
        mine = [r for r in run.results if r.contender == contender.id]
        truth = rng.random(len(mine)) < 0.6
        for r, passed, a, b in zip(mine, truth, rng.random(len(mine)), rng.random(len(mine)), strict=True):
            r.metrics[names[0]] = float(passed if a < 0.70 else not passed)
            r.metrics[names[1]] = float(passed if b < 0.95 else not passed)
        for k in rng.choice(len(mine), rated, replace=False):
            r, verdict = mine[k], "pass" if truth[k] else "fail"
            ratings.append(records.Rating(r.dataset, r.case, r.sample, r.contender, None, "ana", verdict))
    run.ratings = ratings
    return run
