"""Repeat metrics: leaderboard columns a run with several samples per case has, from how each case's samples agree.

A run of ``samples: n`` answers each case n times. Besides the mean of every value, it then has, for the score
and for each declared metric whose values are 0 or 1 and where higher is better, for each k from 1 to n:

- ``pass@k`` (``pass@k_<metric>``): the chance that at least one of k tries passes, the unbiased estimator of
  Chen et al. 2021 ("Evaluating Large Language Models Trained on Code", eq. 1): ``1 − C(n−c, k) / C(n, k)`` per
  case, c of its n samples passing;
- ``pass^k`` (``pass^k_<metric>``): the chance that all k tries pass, as τ-bench defines it (Yao et al. 2024,
  "τ-bench: A Benchmark for Tool-Agent-User Interaction in Real-World Domains"): ``C(c, k) / C(n, k)`` per case;

and on the score, ``consistency``: the share of cases whose samples all agree (every sample the same value).

Each is a value per case; a leaderboard row's value is their mean over the row's cases, so whole cases are what
a resample draws, as for any metric. The names exist whenever the run took that many samples (a suite's weights
and gate may name them before a run); a case's value is null when it has fewer than k scored samples or (pass@k,
pass^k) a value that is neither 0 nor 1, so a metric that is never 0/1 has a null column.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from evalcore.core.records import Metric

#: What a user reads about repeats in ``evalcore leaderboard --help`` and ``evalcore plan``: one text, both places.
REPEATS_HELP = (
    "A run with several samples of each case (samples: k in the suite, or --samples) also has pass@k (the "
    "chance that at least one of k tries passes), pass^k (that all k pass) and consistency (the share of cases "
    "whose samples all agree), each with its interval from resampling whole cases. More samples or more cases? "
    "For the score's interval, more cases: for the same number of extra calls they narrow it at least as much, "
    "since how the cases differ shrinks only with more cases; more samples sharpen pass^k and consistency. Under "
    "the table a line says how much of the top row's score variance comes from its samples disagreeing."
)
#: The kinds of repeat metric.
PASS_AT, PASS_ALL, CONSISTENCY = "pass@", "pass^", "consistency"


@dataclass(frozen=True)
class RepeatMetric(Metric):
    """A metric computed per case from its samples (never from one result), averaged over cases.

    Its value is in [0, 1], higher is better; weightable and gateable like any metric.
    """

    #: :data:`PASS_AT`, :data:`PASS_ALL` or :data:`CONSISTENCY`.
    kind: str = PASS_ALL
    #: How many tries (1 for consistency).
    k: int = 1
    #: The value it reads from each result: ``score`` or a declared metric's name.
    source: str = "score"


def repeat_name(kind: str, k: int, source: str = "score") -> str:
    """The column name: ``pass^3`` on the score, ``pass^3_correct`` on the metric ``correct``."""
    if kind == CONSISTENCY:
        return kind if source == "score" else f"{kind}_{source}"
    base = f"{kind}{k}"
    return base if source == "score" else f"{base}_{source}"


def repeat_metrics(metrics: Sequence[Metric], samples: int) -> list[RepeatMetric]:
    """The repeat metrics of a run that took ``samples`` samples of each case with these declared metrics.

    None for one sample. Else ``pass@1..n``, ``pass^1..n`` and ``consistency`` on the score, then
    ``pass@k_<m>`` and ``pass^k_<m>`` for each declared metric ``m`` where higher is better but the primary one
    (the score is it); a name a declared metric already has is left out (the declared metric keeps it).
    """
    if samples < 2:
        return []
    declared = {m.name for m in metrics}
    # A metric whose 1 is bad (``hallucinated_rate``) has no pass: its tries never "pass" by being 1.
    # The primary metric is the score: its repeat metrics are the score's, named once.
    sources = ["score", *(m.name for m in metrics if m.higher_is_better and not m.primary)]
    sources = [s for s in sources if not any(isinstance(m, RepeatMetric) and m.name == s for m in metrics)]
    found = []
    for source in sources:
        what = "the score" if source == "score" else f"{source!r}"
        for kind in (PASS_AT, PASS_ALL):
            for k in range(1, samples + 1):
                chance = "at least one" if kind == PASS_AT else "all"
                ref = "Chen et al. 2021" if kind == PASS_AT else "τ-bench, Yao et al. 2024"
                text = f"Chance that {chance} of {k} tries pass on {what} (0/1 values), per case ({ref})."
                found.append(RepeatMetric(repeat_name(kind, k, source), text, True, False, kind, k, source))
        if source == "score":
            text = "Share of cases whose samples all agree on the score."
            found.append(RepeatMetric(CONSISTENCY, text, True, False, CONSISTENCY, 1, "score"))
    return [m for m in found if m.name not in declared]
