"""Did the candidate get worse than the baseline? Two runs compared contender by contender, case by case.

A comparison pairs contenders (:func:`pair_contenders`), keeps the cases both runs asked the same question
on (same dataset and case id, and the same input and expected answer), averages each contender's samples
per case, and for ``score``, every metric, ``errors``, ``cost`` and ``time`` reports base, candidate, the
difference and its 95% paired interval and p-value, from the same test as ``evalcore significance``
(:func:`evalcore.analysis.stats.paired.paired_differences`). Per case it lists what flipped: the cases whose
primary score dropped or rose, and the errors that appeared or vanished.

Everything here is pure: runs in, a :class:`Comparison` out; the CLI and the app render it. It works on
the results' plain columns (:mod:`evalcore.storage.frames`), not on results frames: comparing two stored
runs never loads pandas, which would cost a fresh ``evalcore compare`` process more than the comparison.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from evalcore.analysis.decisions.flips import Flip, column, flips
from evalcore.analysis.stats.paired import ALPHA, SCORE_TEST, paired_differences
from evalcore.analysis.stats.paired_f1 import CASE_SWAP, label_counts, paired_macro_f1
from evalcore.analysis.stats.power import cases_to_decide
from evalcore.core.errors import EvalcoreError
from evalcore.core.metric_set import MetricSet
from evalcore.core.records import AGGREGATE_CASE, AGGREGATE_ONLY, Case, Metric, Run
from evalcore.storage.frames import ResultColumns, frame_columns
from evalcore.storage.history import StoredRun, columns_of, header_of

if TYPE_CHECKING:
    import pandas as pd

#: Names compared besides the declared metrics, and whether higher is better for each.
USAGE_DIRECTIONS = {"errors": False, "cost": False, "time": False}
#: Where cost and time are among a result's numbers.
USAGE_NUMBERS = {"cost": "cost_usd", "time": "latency_s"}


class CompareError(EvalcoreError):
    """Two runs cannot be compared as asked (no pair, nothing shared, a changed suite under ``strict``)."""


@dataclass
class Change:
    """One name's change from base to candidate over the shared cases of a pair."""

    name: str
    higher_is_better: bool
    base: float
    candidate: float
    diff: float
    lo: float
    hi: float
    p_value: float
    n: int
    method: str
    #: Where the two sides agree on every case, where the interval comes from
    #: (:data:`evalcore.analysis.stats.paired.AGREE_BOUND`, :data:`evalcore.analysis.stats.paired_f1.AGREE_PSEUDO`),
    #: or why
    #: there is none (:data:`evalcore.analysis.stats.paired.AGREE_UNBOUNDED`), else empty.
    note: str = ""
    #: Within noise: about how many more shared cases would decide a difference of this size (80% power at
    #: α = 0.05, :func:`evalcore.analysis.stats.power.cases_to_decide`); None otherwise, or with no per-case values.
    more_cases: int | None = None

    @property
    def verdict(self) -> str:
        """``regression``, ``improvement``, ``within noise`` or ``no data``."""
        if self.n == 0 or np.isnan(self.diff):
            return "no data"
        if not self.p_value < ALPHA or self.diff == 0:
            return "within noise"
        better = self.diff > 0 if self.higher_is_better else self.diff < 0
        return "improvement" if better else "regression"

    @property
    def relative(self) -> float:
        """``diff / base``: NaN when the base is 0 or unknown."""
        return self.diff / self.base if self.base and not np.isnan(self.base) else float("nan")


@dataclass
class PairComparison:
    """One base contender against one candidate contender."""

    base: str
    candidate: str
    cases: int
    changes: list[Change]
    flips: list[Flip]
    #: The (dataset, case) of the candidate contender known to be flaky in the store's history
    #: (:func:`evalcore.analysis.decisions.flaky.mark_flaky`): their flips are noise as likely as a change.
    flaky: frozenset[tuple[str, str]] = frozenset()

    def flaky_flips(self) -> list[Flip]:
        """The flips on cases known to be flaky."""
        return [f for f in self.flips if (f.dataset, f.case) in self.flaky]

    def change(self, name: str) -> Change | None:
        return next((c for c in self.changes if c.name == name), None)


@dataclass
class Comparison:
    """Two runs compared: what was compared, what was left out and why, and each pair's changes."""

    base_run: str
    candidate_run: str
    metrics: list[Metric]
    pairs: list[PairComparison]
    shared_cases: int
    left_out_cases: int
    changed_datasets: list[str] = field(default_factory=list)
    suite_changed: bool = False
    unpaired_base: list[str] = field(default_factory=list)
    """Contenders of the base run only, not compared."""
    unpaired_candidate: list[str] = field(default_factory=list)
    """Contenders of the candidate run only, not compared."""
    unpaired_shared: list[str] = field(default_factory=list)
    """Contenders both runs have that no pair compares (another pair was asked for, or the runs are one run)."""
    aggregates: list[str] = field(default_factory=list)
    """The aggregate metrics compared (macro-F1 of a classification scorer), after the declared ones."""

    @property
    def names(self) -> list[str]:
        """The compared names: ``score`` (the primary metric), the other metrics, the aggregate metrics,
        ``errors``, ``cost``, ``time``."""
        return ["score", *(m.name for m in self.metrics if not m.primary), *self.aggregates, *USAGE_DIRECTIONS]


def pair_contenders(
    base: Sequence[str], candidate: Sequence[str], explicit: Mapping[str, str] | None = None
) -> list[tuple[str, str]]:
    """Which base contender is compared with which candidate contender.

    ``explicit`` (``--pair BASE=CAND``) pairs are used alone when given; else contenders with the same
    id pair up, and when each run has exactly one contender they pair whatever their ids.

    Raises:
        CompareError: an explicit pair names a contender its run does not have, or nothing pairs.
    """
    if explicit:
        for b, c in explicit.items():
            if b not in base:
                raise CompareError(f"--pair {b}={c}: the base run has no contender {b!r}; it has {_listed(base)}")
            if c not in candidate:
                raise CompareError(
                    f"--pair {b}={c}: the candidate run has no contender {c!r}; it has {_listed(candidate)}"
                )
        return list(explicit.items())
    pairs = [(b, b) for b in base if b in set(candidate)]
    if not pairs and len(base) == 1 and len(candidate) == 1:
        pairs = [(base[0], candidate[0])]
    if not pairs:
        raise CompareError(
            f"no contender of the base run ({_listed(base)}) is in the candidate run ({_listed(candidate)}); "
            "pair them with --pair BASE_ID=CANDIDATE_ID"
        )
    return pairs


def split_pair(item: str, base: Sequence[str], candidate: Sequence[str]) -> tuple[str, str]:
    """``BASE_ID=CANDIDATE_ID`` split where both sides name a contender (ids may hold ``=`` themselves: ``t=0``).

    Raises:
        CompareError: no split names a base contender on the left and a candidate contender on the right.
    """
    splits = [(item[:i].strip(), item[i + 1 :].strip()) for i, ch in enumerate(item) if ch == "="]
    for b, c in splits:
        if b in base and c in candidate:
            return b, c
    raise CompareError(
        f"--pair {item!r}: write BASE_ID=CANDIDATE_ID with ids of the two runs; the base run has {_listed(base)}; "
        f"the candidate run has {_listed(candidate)}"
    )


def _listed(ids: Sequence[str]) -> str:
    return ", ".join(ids) if ids else "none"


def compare(
    base: Run | StoredRun,
    candidate: Run | StoredRun,
    pairs: Mapping[str, str] | Sequence[str] | None = None,
    *,
    strict: bool = False,
    B: int = 1000,  # noqa: N803 (the bootstrap's usual name)
    seed: int = 0,
    frames: tuple[pd.DataFrame | ResultColumns, pd.DataFrame | ResultColumns] | None = None,
) -> Comparison:
    """Compare a candidate run with a base run (see the module docstring).

    Args:
        base, candidate: runs read from files, or stored runs.
        pairs: explicit base → candidate contender pairs, or ``BASE_ID=CANDIDATE_ID`` texts; none: by id
            (or the only two).
        strict: refuse when the suite or a dataset changed instead of comparing the shared cases.
        B, seed: resamples and seed of the paired interval and test.
        frames: the two runs' results, as results frames (:func:`evalcore.analysis.tables.runs.frame_of`) or
            columns (:func:`~evalcore.storage.history.columns_of`), when the caller holds them already (an app
            caches them); none: read here as columns.

    Raises:
        CompareError: nothing to compare, no pair, or (``strict``) a changed suite or dataset.
    """
    base_head, cand_head = header_of(base), header_of(candidate)
    metric_set = MetricSet.of(_shared_metrics(base_head, cand_head))
    metrics = list(metric_set.declared)
    changed, suite_changed = changed_datasets(base_head, cand_head)
    if strict and (changed or suite_changed):
        what = f"datasets changed: {', '.join(changed)}" if changed else "the suite file changed"
        raise CompareError(f"the two runs did not ask the same questions ({what}); --strict refuses to compare them")
    if frames is not None:
        base_columns, cand_columns = (f if isinstance(f, ResultColumns) else frame_columns(f) for f in frames)
    else:
        base_columns, cand_columns = columns_of(base), columns_of(candidate)
    base_keys, cand_keys = _keys(base_columns), _keys(cand_columns)
    all_cases = base_keys | cand_keys
    shared = _asked_alike(base, candidate, base_keys & cand_keys, changed)
    reported = _reported(base, shared)
    if shared and reported == shared:
        raise CompareError(
            "the two runs share only reported aggregate scores (imported records with no per-item results): a "
            "paired comparison needs each case's result; import the records with their per-item samples files"
        )
    shared -= reported
    if not shared:
        raise CompareError("the two runs share no case (same dataset, case id, input and expected answer)")
    base_ids, cand_ids = [c.id for c in base_head.contenders], [c.id for c in cand_head.contenders]
    if pairs is not None and not isinstance(pairs, Mapping):
        pairs = dict(split_pair(item, base_ids, cand_ids) for item in pairs)
    chosen = pair_contenders(base_ids, cand_ids, pairs)
    keys = sorted(shared)
    base_rows, cand_rows = _case_row(base_columns, keys), _case_row(cand_columns, keys)
    names = _directions(metrics)
    base_values = _case_values(base_columns, base_rows, metrics, len(keys), [b for b, _ in chosen], names)
    cand_values = _case_values(cand_columns, cand_rows, metrics, len(keys), [c for _, c in chosen], names)
    aggregates = metric_set.aggregates
    sides = (base_columns, base_rows), (cand_columns, cand_rows)
    labels = [[_pair_labels(a.name, b, c, *sides, len(keys)) for a in aggregates] for b, c in chosen]
    # What follows needs one value per case, not the results: a big run's columns are let go here.
    del base_columns, cand_columns, base_rows, cand_rows, frames, sides
    compared = _compare_pairs(chosen, base_values, cand_values, names, keys, B=B, seed=seed)
    for pair, counts in zip(compared, labels, strict=True):
        changes = [_aggregate_change(a.name, two, B, seed) for a, two in zip(aggregates, counts, strict=True)]
        at = next(i for i, c in enumerate(pair.changes) if c.name == "errors")
        pair.changes[at:at] = changes
    return Comparison(
        base_run=base_head.info.id,
        candidate_run=cand_head.info.id,
        metrics=metrics,
        pairs=compared,
        shared_cases=len(shared),
        left_out_cases=len(all_cases) - len(shared),
        changed_datasets=changed,
        suite_changed=suite_changed,
        **_unpaired([c.id for c in base_head.contenders], [c.id for c in cand_head.contenders], chosen),
        aggregates=[a.name for a in metric_set.aggregates],
    )


def _unpaired(base: list[str], candidate: list[str], chosen: Sequence[tuple[str, str]]) -> dict[str, list[str]]:
    """The contenders no pair compares: of one run only, and of both runs (:class:`Comparison`'s ``unpaired_*``)."""
    paired_base, paired_candidate = {b for b, _ in chosen}, {c for _, c in chosen}
    return {
        "unpaired_base": [i for i in base if i not in paired_base and i not in candidate],
        "unpaired_candidate": [i for i in candidate if i not in paired_candidate and i not in base],
        "unpaired_shared": [i for i in base if i in candidate and i not in paired_base and i not in paired_candidate],
    }


def _shared_metrics(base: Run, candidate: Run) -> list[Metric]:
    """The candidate's metrics that the base also declares (by name and direction)."""
    known = {(m.name, m.higher_is_better) for m in base.metrics}
    return [m for m in candidate.metrics if (m.name, m.higher_is_better) in known]


def changed_datasets(base: Run, candidate: Run) -> tuple[list[str], bool]:
    """Datasets whose content hash differs (or that only one run has), and whether the suite file changed."""
    b = base.info.provenance.get("dataset_hashes") or {}
    c = candidate.info.provenance.get("dataset_hashes") or {}
    changed = sorted(name for name in set(b) | set(c) if b.get(name) != c.get(name))
    suite_changed = base.info.provenance.get("suite_hash") != candidate.info.provenance.get("suite_hash")
    return changed, suite_changed


def _keys(columns: ResultColumns) -> set[tuple[str, str]]:
    """(dataset, case id) of every case the run has a result for."""
    return {columns.cases[i] for i in np.unique(columns.case).tolist()}


def _asked_alike(
    base: Run | StoredRun, candidate: Run | StoredRun, keys: set[tuple[str, str]], changed: list[str]
) -> set[tuple[str, str]]:
    """The cases of ``keys`` both runs asked with the same input and expected answer.

    Where both runs record a dataset's hash and it is the same, its cases are alike without a look; the
    cases of a changed dataset, or of one without a recorded hash, are compared one by one.
    """
    hashes = [header_of(r).info.provenance.get("dataset_hashes") or {} for r in (base, candidate)]
    suspect = {k for k in keys if k[0] in changed or k[0] not in hashes[0] or k[0] not in hashes[1]}
    if not suspect:
        return keys
    theirs = [[c for c in cases_of(r) if c.key in suspect] for r in (base, candidate)]
    return (keys - suspect) | shared_cases(*theirs)


def _reported(run: Run | StoredRun, keys: set[tuple[str, str]]) -> set[tuple[str, str]]:
    """The keys that are reported aggregates (:data:`~evalcore.core.records.AGGREGATE_ONLY`): no case to pair.
    Their id is :data:`~evalcore.core.records.AGGREGATE_CASE`, so a run without one has its cases left unread."""
    if not any(case == AGGREGATE_CASE for _, case in keys):
        return set()
    return {c.key for c in cases_of(run) if c.key in keys and c.metadata.get(AGGREGATE_ONLY)}


def cases_of(run: Run | StoredRun) -> list[Case]:
    """A run's cases (read from the store for a stored run: its header holds none)."""
    return run.store.load_cases(run.id) if isinstance(run, StoredRun) else run.cases


def shared_cases(base: Sequence[Case], candidate: Sequence[Case]) -> set[tuple[str, str]]:
    """(dataset, case id) of the cases both runs hold with the same input and expected answer."""
    theirs = {c.key: c for c in candidate}
    return {
        c.key
        for c in base
        if c.key in theirs and theirs[c.key].input == c.input and theirs[c.key].expected == c.expected
    }


#: One side's per-case values: a (cases, pairs x names) matrix and its columns by contender and name.
SideValues = tuple[np.ndarray, dict[str, dict[str, np.ndarray]]]


def _directions(metrics: Sequence[Metric]) -> dict[str, bool]:
    """The names a pair is compared on, in order, and whether higher is better for each; the primary metric
    is the score, compared once, as ``score``."""
    return {"score": True, **{m.name: m.higher_is_better for m in metrics if not m.primary}, **USAGE_DIRECTIONS}


def _case_values(
    columns: ResultColumns,
    case_row: np.ndarray,
    metrics: Sequence[Metric],
    n_cases: int,
    contenders: Sequence[str],
    names: Mapping[str, bool],
) -> SideValues:
    """One side of the compared pairs (``contenders``: this side's contender of each pair, in order): per
    contender and name, one value per compared case (``case_row``: each case's row among the ``n_cases``
    compared, :func:`_case_row`), the mean over the case's samples (NaN when none).

    Scores and metrics count for scored results only (NaN on an error, whatever it holds), as in a
    leaderboard; ``errors`` is 1 for an error and 0 for a scored result. Written straight into the matrix the
    paired tests read, a contender at a time: no name's values are copied for a whole run.
    """
    # Each result's row in the table (-1: a case not compared), then sums and counts by bincount.
    row = case_row[columns.case] if len(columns) else columns.case
    sources = {"score": "score", **{m.name: f"m_{m.name}" for m in metrics}, **USAGE_NUMBERS}
    # A contender's results in the order the run holds them (a stable sort): the sums add up in that order.
    order = np.argsort(columns.contender, kind="stable")
    ordered = columns.contender[order]
    code_of = {c: i for i, c in enumerate(columns.contenders)}
    matrix = np.empty((n_cases, len(contenders) * len(names)))
    tables: dict[str, dict[str, np.ndarray]] = {}
    for k, contender in enumerate(contenders):
        at = k * len(names)
        code = code_of.get(contender, -2)
        mine = order[np.searchsorted(ordered, code, "left") : np.searchsorted(ordered, code, "right")]
        mine = mine[row[mine] >= 0]
        rows, failed = row[mine], columns.is_error[mine]
        block = np.empty((n_cases, len(names)))  # a contender's columns side by side, then copied in row by row
        for j, name in enumerate(names):
            if name == "errors":
                value = failed.astype(float)
            elif name in USAGE_NUMBERS:
                value = columns.numbers[sources[name]][mine]
            else:
                numbers = columns.numbers.get(sources[name])
                value = np.where(~failed, np.nan if numbers is None else numbers[mine], np.nan)
            known = ~np.isnan(value)
            sums = np.bincount(rows, weights=np.where(known, value, 0.0), minlength=n_cases)
            counts = np.bincount(rows, weights=known.astype(float), minlength=n_cases)
            with np.errstate(invalid="ignore", divide="ignore"):
                block[:, j] = np.where(counts > 0, sums / counts, np.nan)
        matrix[:, at : at + len(names)] = block
        tables[contender] = {name: matrix[:, at + j] for j, name in enumerate(names)}
    return matrix, tables


def _case_row(columns: ResultColumns, keys: Sequence[tuple[str, str]]) -> np.ndarray:
    """For each case of ``columns``, its row among the compared ``keys`` (-1: not compared)."""
    position = {key: i for i, key in enumerate(keys)}
    return np.asarray([position.get(key, -1) for key in columns.cases], dtype=np.int64)


def _pair_labels(
    name: str,
    base_contender: str,
    cand_contender: str,
    base: tuple[ResultColumns, np.ndarray],
    candidate: tuple[ResultColumns, np.ndarray],
    n_cases: int,
) -> tuple[Any, Any]:
    """An aggregate metric's label counts of one pair, base and candidate
    (:func:`evalcore.analysis.stats.paired_f1.label_counts`; None for a run that lacks its labels). ``base`` and
    ``candidate``: each run's results and case rows (:func:`_case_row`)."""
    theirs = [base[0].labels.get(name), candidate[0].labels.get(name)]
    names = sorted({n for labels in theirs if labels is not None for n in labels.names})
    base_counts, cand_counts = (
        label_counts(columns, name, contender, rows, n_cases, names)
        for (columns, rows), contender in ((base, base_contender), (candidate, cand_contender))
    )
    return base_counts, cand_counts


def _aggregate_change(name: str, counts: tuple[Any, Any], B: int, seed: int) -> Change:  # noqa: N803
    """An aggregate metric's change for one pair (:func:`evalcore.analysis.stats.paired_f1.paired_macro_f1`) from its
    label counts (:func:`_pair_labels`); no data when either run lacks its labels."""
    if counts[0] is None or counts[1] is None:
        nan = float("nan")
        return Change(name, True, nan, nan, nan, nan, nan, nan, 0, CASE_SWAP)
    test = paired_macro_f1(counts[0], counts[1], B=B, seed=seed)
    fields = ("base", "candidate", "mean_diff", "lo", "hi", "p_value", "n", "method", "note")
    return Change(name, True, *(test[f] for f in fields))


def _compare_pairs(
    chosen: Sequence[tuple[str, str]],
    base_values: SideValues,
    cand_values: SideValues,
    directions: Mapping[str, bool],
    keys: Sequence[tuple[str, str]],
    *,
    B: int,  # noqa: N803
    seed: int,
) -> list[PairComparison]:
    """Every pair's changes from one set of resamples and sign flips (the pairs share the cases)."""
    (base_matrix, base_tables), (cand_matrix, cand_tables) = base_values, cand_values
    # Cost and time have no upper bound; scores, metrics and errors lie in [0, 1].
    bounded = np.array([name not in USAGE_NUMBERS for _ in chosen for name in directions])
    tests = iter(paired_differences(cand_matrix, base_matrix, B=B, seed=seed, bounded=bounded))
    compared = []
    for b, c in chosen:
        changes = []
        for name, higher in directions.items():
            test = next(tests)
            base_col, cand_col = column(base_tables[b], name), column(cand_tables[c], name)
            both = ~np.isnan(base_col) & ~np.isnan(cand_col)
            changes.append(
                Change(
                    name=name,
                    higher_is_better=higher,
                    base=_mean(base_col[both]),
                    candidate=_mean(cand_col[both]),
                    diff=float(test["mean_diff"]),
                    lo=float(test["lo"]),
                    hi=float(test["hi"]),
                    p_value=float(test["p_value"]),
                    n=int(test["n"]),
                    method=str(test["method"]),
                    note=str(test["note"]),
                )
            )
            changes[-1].more_cases = _more_cases(changes[-1], cand_col[both] - base_col[both])
        ran = ~np.isnan(column(base_tables[b], "errors")) & ~np.isnan(column(cand_tables[c], "errors"))
        compared.append(PairComparison(b, c, int(ran.sum()), changes, flips(base_tables[b], cand_tables[c], keys)))
    return compared


def _more_cases(change: Change, diffs: np.ndarray) -> int | None:
    """For a change within noise, the cases beyond its ``n`` that would decide a difference of its size."""
    if change.verdict != "within noise":
        return None
    needed = cases_to_decide(diffs, binary=change.method == SCORE_TEST)
    return None if needed is None else max(needed - change.n, 0)


def _mean(values: np.ndarray) -> float:
    return float(values.mean()) if len(values) else float("nan")
