"""Did the candidate get worse than the baseline? Two runs compared contender by contender, case by case.

A comparison pairs contenders (:func:`pair_contenders`), keeps the cases both runs asked the same question
on (same dataset and case id, and the same input and expected answer), averages each contender's samples
per case, and for ``score``, every metric, ``errors``, ``cost`` and ``time`` reports base, candidate, the
difference and its 95% paired interval and p-value, from the same test as ``evalcore significance``
(:func:`evalcore.analysis.paired.paired_differences`). Per case it lists what flipped: the cases whose
primary score dropped or rose, and the errors that appeared or vanished.

Everything here is pure: runs in, a :class:`Comparison` out; the CLI and the app render it. It works on
the results' plain columns (:mod:`evalcore.storage.frames`), not on results frames: comparing two stored
runs never loads pandas, which would cost a fresh ``evalcore compare`` process more than the comparison.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from evalcore.analysis.paired import ALPHA, paired_differences
from evalcore.analysis.paired_f1 import CASE_SWAP, label_counts, paired_macro_f1
from evalcore.core.aggregates import aggregate_metrics
from evalcore.core.errors import EvalcoreError
from evalcore.core.records import Case, Metric, Run
from evalcore.storage.frames import ResultColumns, frame_columns, read_columns, run_columns
from evalcore.storage.history import StoredRun, header_of

if TYPE_CHECKING:
    import pandas as pd

#: Names compared besides the declared metrics, and whether higher is better for each.
USAGE_DIRECTIONS = {"errors": False, "cost": False, "time": False}
#: Where cost and time are among a result's numbers.
USAGE_NUMBERS = {"cost": "cost_usd", "time": "latency_s"}
#: A per-case score change smaller than this is float noise, not a flip.
FLIP_TOLERANCE = 1e-9


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
    #: (:data:`evalcore.analysis.paired.AGREE_BOUND`, :data:`evalcore.analysis.paired_f1.AGREE_PSEUDO`), or why
    #: there is none (:data:`evalcore.analysis.paired.AGREE_UNBOUNDED`), else empty.
    note: str = ""

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


@dataclass(slots=True)
class Flip:
    """A case whose outcome changed: ``kind`` is ``worse``, ``better``, ``error appeared`` or ``error vanished``."""

    dataset: str
    case: str
    kind: str
    base_score: float
    candidate_score: float


@dataclass
class PairComparison:
    """One base contender against one candidate contender."""

    base: str
    candidate: str
    cases: int
    changes: list[Change]
    flips: list[Flip]
    #: The (dataset, case) of the candidate contender known to be flaky in the store's history
    #: (:func:`evalcore.analysis.flaky.mark_flaky`): their flips are noise as likely as a change.
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
        frames: the two runs' results, as results frames (:func:`evalcore.analysis.runs.frame_of`) or
            columns (:func:`columns_of`), when the caller holds them already (an app caches them); none:
            read here as columns.

    Raises:
        CompareError: nothing to compare, no pair, or (``strict``) a changed suite or dataset.
    """
    base_head, cand_head = header_of(base), header_of(candidate)
    metrics = _shared_metrics(base_head, cand_head)
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
    if not shared:
        raise CompareError("the two runs share no case (same dataset, case id, input and expected answer)")
    base_ids, cand_ids = [c.id for c in base_head.contenders], [c.id for c in cand_head.contenders]
    if pairs is not None and not isinstance(pairs, Mapping):
        pairs = dict(split_pair(item, base_ids, cand_ids) for item in pairs)
    chosen = pair_contenders(base_ids, cand_ids, pairs)
    keys = sorted(shared)
    base_rows, cand_rows = _case_row(base_columns, keys), _case_row(cand_columns, keys)
    base_values = _case_values(base_columns, base_rows, metrics, len(keys), {b for b, _ in chosen})
    cand_values = _case_values(cand_columns, cand_rows, metrics, len(keys), {c for _, c in chosen})
    compared = _compare_pairs(chosen, base_values, cand_values, metrics, keys, B=B, seed=seed)
    aggregates = aggregate_metrics(metrics)
    for pair in compared:
        changes = [
            _aggregate_change(a.name, pair, (base_columns, base_rows), (cand_columns, cand_rows), len(keys), B, seed)
            for a in aggregates
        ]
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
        aggregates=[a.name for a in aggregates],
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


def columns_of(run: Run | StoredRun) -> ResultColumns:
    """A run's results as columns (:mod:`evalcore.storage.frames`), read from the store for a stored run."""
    return read_columns(run.store, run.id) if isinstance(run, StoredRun) else run_columns(run)


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


def _case_values(
    columns: ResultColumns, case_row: np.ndarray, metrics: Sequence[Metric], n_cases: int, contenders: set[str]
) -> dict[str, dict[str, np.ndarray]]:
    """Per contender and name, one value per compared case (``case_row``: each case's row among the
    ``n_cases`` compared, :func:`_case_row`): the mean over the case's samples (NaN when none).

    Scores and metrics count for scored results only (NaN on an error, whatever it holds), as in a
    leaderboard; ``errors`` is 1 for an error and 0 for a scored result.
    """
    # Each result's row in the table (-1: a case not compared), then sums and counts by bincount.
    row = case_row[columns.case] if len(columns) else columns.case
    scored = ~columns.is_error
    values = {"errors": columns.is_error.astype(float)}
    for name, source in {"score": "score", **{m.name: f"m_{m.name}" for m in metrics}}.items():
        values[name] = np.where(scored, columns.numbers.get(source, np.nan), np.nan)
    for name, source in USAGE_NUMBERS.items():
        values[name] = columns.numbers[source]
    code_of = {c: i for i, c in enumerate(columns.contenders)}
    tables = {}
    for contender in contenders:
        mine = (columns.contender == code_of.get(contender, -2)) & (row >= 0)
        at = row[mine]
        table = {}
        for name, value in values.items():
            value = value[mine]
            known = ~np.isnan(value)
            sums = np.bincount(at, weights=np.where(known, value, 0.0), minlength=n_cases)
            counts = np.bincount(at, weights=known.astype(float), minlength=n_cases)
            with np.errstate(invalid="ignore", divide="ignore"):
                table[name] = np.where(counts > 0, sums / counts, np.nan)
        tables[contender] = table
    return tables


def _case_row(columns: ResultColumns, keys: Sequence[tuple[str, str]]) -> np.ndarray:
    """For each case of ``columns``, its row among the compared ``keys`` (-1: not compared)."""
    position = {key: i for i, key in enumerate(keys)}
    return np.asarray([position.get(key, -1) for key in columns.cases], dtype=np.int64)


def _aggregate_change(
    name: str,
    pair: PairComparison,
    base: tuple[ResultColumns, np.ndarray],
    candidate: tuple[ResultColumns, np.ndarray],
    n_cases: int,
    B: int,  # noqa: N803
    seed: int,
) -> Change:
    """An aggregate metric's change for one pair (:func:`evalcore.analysis.paired_f1.paired_macro_f1`); no data
    when either run lacks its labels. ``base`` and ``candidate``: each run's results and case rows
    (:func:`_case_row`)."""
    theirs = [base[0].labels.get(name), candidate[0].labels.get(name)]
    names = sorted({n for labels in theirs if labels is not None for n in labels.names})
    counts = [
        label_counts(columns, name, contender, rows, n_cases, names)
        for (columns, rows), contender in ((base, pair.base), (candidate, pair.candidate))
    ]
    if counts[0] is None or counts[1] is None:
        nan = float("nan")
        return Change(name, True, nan, nan, nan, nan, nan, nan, 0, CASE_SWAP)
    test = paired_macro_f1(counts[0], counts[1], B=B, seed=seed)
    return Change(
        name=name,
        higher_is_better=True,
        base=test["base"],
        candidate=test["candidate"],
        diff=test["mean_diff"],
        lo=test["lo"],
        hi=test["hi"],
        p_value=test["p_value"],
        n=test["n"],
        method=test["method"],
        note=test["note"],
    )


def _compare_pairs(
    chosen: Sequence[tuple[str, str]],
    base_values: Mapping[str, Mapping[str, np.ndarray]],
    cand_values: Mapping[str, Mapping[str, np.ndarray]],
    metrics: Sequence[Metric],
    keys: Sequence[tuple[str, str]],
    *,
    B: int,  # noqa: N803
    seed: int,
) -> list[PairComparison]:
    """Every pair's changes from one set of resamples and sign flips (the pairs share the cases)."""
    # The primary metric is the score: compared once, as ``score``.
    directions = {"score": True, **{m.name: m.higher_is_better for m in metrics if not m.primary}, **USAGE_DIRECTIONS}
    columns = [(b, c, name) for b, c in chosen for name in directions]
    base_matrix = np.column_stack([_column(base_values[b], name) for b, _, name in columns])
    cand_matrix = np.column_stack([_column(cand_values[c], name) for _, c, name in columns])
    # Cost and time have no upper bound; scores, metrics and errors lie in [0, 1].
    bounded = np.array([name not in USAGE_NUMBERS for _, _, name in columns])
    tests = iter(paired_differences(cand_matrix, base_matrix, B=B, seed=seed, bounded=bounded))
    compared = []
    for b, c in chosen:
        changes = []
        for name, higher in directions.items():
            test = next(tests)
            base_col, cand_col = _column(base_values[b], name), _column(cand_values[c], name)
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
        ran = ~np.isnan(_column(base_values[b], "errors")) & ~np.isnan(_column(cand_values[c], "errors"))
        compared.append(PairComparison(b, c, int(ran.sum()), changes, flips(base_values[b], cand_values[c], keys)))
    return compared


def _column(table: Mapping[str, np.ndarray], name: str) -> np.ndarray:
    if name in table:
        return table[name]
    return np.full(len(next(iter(table.values()))), np.nan)


def _mean(values: np.ndarray) -> float:
    return float(values.mean()) if len(values) else float("nan")


def flips(
    base: Mapping[str, np.ndarray], cand: Mapping[str, np.ndarray], keys: Sequence[tuple[str, str]]
) -> list[Flip]:
    """The shared cases (of ``keys``, one value per case in each column) whose outcome changed, regressions first.

    Order: scores that dropped (largest drop first), errors that appeared, scores that rose (largest rise
    first), errors that vanished; ties by dataset and case id. A case counts only when both contenders
    ran it.
    """
    b_score, c_score = _column(base, "score"), _column(cand, "score")
    b_err, c_err = _column(base, "errors"), _column(cand, "errors")
    ran = ~np.isnan(b_err) & ~np.isnan(c_err)
    diff = c_score - b_score
    kinds = {
        "worse": ran & (diff < -FLIP_TOLERANCE),
        "error appeared": ran & (c_err > 0) & (b_err == 0),
        "better": ran & (diff > FLIP_TOLERANCE),
        "error vanished": ran & (b_err > 0) & (c_err == 0),
    }
    parts, kinds_of = [], []
    for kind, mask in kinds.items():
        rows = np.flatnonzero(mask)
        parts.append(rows[np.lexsort((rows, -np.abs(np.nan_to_num(diff[rows]))))])
        kinds_of += [kind] * len(rows)
    rows = np.concatenate(parts)
    scores = zip(b_score[rows].tolist(), c_score[rows].tolist(), strict=True)
    return [Flip(*keys[row], kind, b, s) for row, kind, (b, s) in zip(rows.tolist(), kinds_of, scores, strict=True)]
