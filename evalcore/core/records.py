"""Plain records passed between the engine's parts.

These are the in-memory shapes of what a run file holds (see ``docs/run-file.md``
and ``evalcore.runfile.read``). Validation happens at the edges (suite files, run
files); inside, the engine passes these dataclasses around (and :class:`Usage`, a struct).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

import msgspec

ResultStatus = Literal["scored", "error"]
RunStatus = Literal["running", "completed", "interrupted", "failed"]
#: In this order for good: the store keeps each result's kind as its index here (new kinds go last).
ERROR_KINDS: tuple[str, ...] = (
    "model",
    "transport",
    "timeout",
    "rate_limit",
    "auth",
    "bad_request",
    "other",
    "replay",
    "judge",
    "no_trace",
)

#: Names a metric may not take: they are leaderboard columns.
RESERVED_NAMES = frozenset(
    {"score", "errors", "cost", "time", "input_tokens", "output_tokens", "cases", "scored", "wscore"}
)

#: The case metadata key that marks a case standing for a benchmark's reported aggregate score, not an item
#: (an imported record with no per-item results): the leaderboard ranks it but draws no interval, P(best) or
#: paired statistic from it.
AGGREGATE_ONLY = "aggregate_only"
#: The id of such a case (one per benchmark): a reader finds them without reading every case's metadata.
AGGREGATE_CASE = "aggregate"

#: Short names of settings in contender ids and labels (``fake/oracle · t=0``); others keep their own name.
SHORT_NAMES = {"reasoning_effort": "effort", "temperature": "t"}


@dataclass(frozen=True)
class Metric:
    """One number a scorer reports per result, in [0, 1] or None (does not apply)."""

    name: str
    description: str
    higher_is_better: bool = True
    primary: bool = False


@dataclass
class Case:
    """One input with its expected answer."""

    dataset: str
    id: str
    variant: str
    input: str | dict[str, Any]
    expected: Any
    metadata: dict[str, Any] = field(default_factory=dict)
    #: Where the case was read from, for error messages; not part of the run file.
    source: str | None = None
    #: The pixels of the images its input refers to, by ``sha256`` (see :mod:`evalcore.core.images`); read from
    #: the suite, not part of the run file, which keeps only the references.
    images: dict[str, bytes] = field(default_factory=dict, compare=False, repr=False)

    @property
    def key(self) -> tuple[str, str]:
        return (self.dataset, self.id)


@dataclass(frozen=True)
class Contender:
    """A model with one combination of settings."""

    id: str
    model: str
    settings: dict[str, Any] = field(default_factory=dict, hash=False)
    #: Where to send requests (local servers); not part of the run file.
    api_base: str | None = field(default=None, compare=False)
    #: Suite prices per token, overriding litellm's map: {input_cost_per_token, output_cost_per_token}.
    prices: dict[str, float] | None = field(default=None, compare=False, hash=False)
    #: The ``litellm.Router`` arguments whose deployments answer ``model`` (a model group's name), from the
    #: lineup entry's ``router:``; not part of the run file.
    router: dict[str, Any] | None = field(default=None, compare=False, hash=False)


@dataclass(frozen=True)
class Refusal:
    """A lineup entry the suite cannot ask, left out by name."""

    model: str
    settings: dict[str, Any]
    reason: str

    @property
    def text(self) -> str:
        """``fake/oracle reasoning_effort=low: fake/oracle does not take reasoning_effort`` (the settings only
        when the entry has some)."""
        named = " ".join([self.model, *(f"{k}={v}" for k, v in self.settings.items())])
        return f"{named}: {self.reason}"


class Usage(msgspec.Struct, gc=False):
    """What one call used: tokens in and out, and its cost in USD; None where not known.

    A struct, not a dataclass, so that it can be left out of the garbage collector (msgspec's ``gc=False``):
    it holds three numbers and refers to no other object, so it is never part of a reference cycle, and a run
    holds one per result, which the collector would otherwise walk again and again while a big run is read.
    """

    input_tokens: int | None = None
    output_tokens: int | None = None
    cost_usd: float | None = None


@dataclass
class ErrorInfo:
    kind: str
    message: str


@dataclass
class Result:
    """One contender's answer to one case, for one sample."""

    contender: str
    dataset: str
    case: str
    sample: int
    status: ResultStatus
    score: float | None
    metrics: dict[str, float | None] = field(default_factory=dict)
    output: Any = None
    raw: str | None = None
    error: ErrorInfo | None = None
    diagnostics: dict[str, Any] = field(default_factory=dict)
    usage: Usage = field(default_factory=Usage)
    latency_s: float | None = None
    attempts: int = 1
    started_at: str | None = None
    #: An agent's steps (``docs/run-file.md``, "trace"); None when the adapter gave no trace.
    trace: list[dict[str, Any]] | None = None

    @property
    def key(self) -> tuple[str, str, str, int]:
        return (self.contender, self.dataset, self.case, self.sample)


@dataclass
class RunInfo:
    id: str
    suite: str
    created_at: str
    finished_at: str | None = None
    status: RunStatus = "running"
    weights: dict[str, float] = field(default_factory=dict)
    settings: dict[str, Any] = field(default_factory=dict)
    provenance: dict[str, Any] = field(default_factory=dict)


#: A pairwise verdict's final outcome, from contender ``a``'s side; None when the judge gave no verdict.
PairOutcome = Literal["win", "loss", "tie", "inconsistent"]


@dataclass
class PairVerdict:
    """Two contenders' answers to one case judged side by side, once in each order (``pairwise:`` of a suite).

    Attributes:
        dataset: the case's dataset.
        case: the case's id.
        sample: which repetition (``a``'s and ``b``'s answers of the same sample are compared).
        a: the contender shown first in the first order.
        b: the other contender.
        outcome: ``win`` (``a`` better in both orders), ``loss``, ``tie`` (both orders say tie), ``inconsistent``
            (the orders disagree); None when ``error`` is set.
        judge: the judge model.
        orders: each order's verdict in contender terms (``"a"``, ``"b"`` or ``"tie"``): ``a`` shown first,
            then ``b`` shown first; None for an order that gave no verdict.
        calls: every judge call: ``order`` (``"ab"``/``"ba"``), ``messages``, ``key``, ``raw``, ``choice`` (as the
            judge said it: ``"A"``, ``"B"`` or ``"tie"``), ``reasoning``, tokens, ``cost_usd``, ``latency_s``,
            ``attempts`` (and ``error`` when the reply was no verdict).
        error: kind ``judge`` when a call failed or a reply was no verdict.
        cost_usd: the judge calls' total cost (None when any is unknown).
        latency_s: the judge calls' total time.
    """

    dataset: str
    case: str
    sample: int
    a: str
    b: str
    outcome: PairOutcome | None
    judge: str
    orders: list[str | None] = field(default_factory=list)
    calls: list[dict[str, Any]] = field(default_factory=list)
    error: ErrorInfo | None = None
    cost_usd: float | None = None
    latency_s: float = 0.0

    @property
    def key(self) -> tuple[str, str, int, str, str]:
        return (self.dataset, self.case, self.sample, self.a, self.b)


#: A person's verdict on two replies: ``a`` better, ``b`` better, a tie, or both bad.
PAIR_VERDICTS: tuple[str, ...] = ("a", "b", "tie", "both_bad")
#: The run setting recorded by a suite's ``weighted_score.rank_by: corrected``, and that value: the leaderboard
#: ranks the judged metric by the judge's score corrected by people (:mod:`evalcore.analysis.people.corrected`).
RANK_BY, CORRECTED = "rank_by", "corrected"
#: How the bundled demo's made-up raters are named (``demo/rater-1``): no person's name may start with it.
DEMO_RATER = "demo/"


@dataclass
class Rating:
    """A person's rating of one reply (``b`` None) or of two replies to the same case, made blind.

    Attributes:
        dataset: the case's dataset.
        case: the case's id.
        sample: which repetition.
        a: the contender rated, or the first of the pair (in the run's contender order, whichever side it was
            shown on).
        b: the other contender of a pair; None for a single reply.
        rater: who rated: a signed-in address or a name (``demo/…`` marks the bundled demo's made-up raters).
        verdict: a pair's ``a``, ``b``, ``tie`` or ``both_bad`` (:data:`PAIR_VERDICTS`); a single reply's
            ``pass``/``fail``, a label, or its score on the judged metric's 0..1 scale as text (``0.75``).
        scores: a single reply's rating on each judge dimension, on the judge's scale (empty otherwise).
        comment: what the rater wrote, if anything.
        created_at: when it was stored (UTC, ISO 8601).
        random: the item came to the rater in a random draw (False when the queue put the judges'
            disagreements first): a judge score is corrected by people only with randomly drawn items.
    """

    dataset: str
    case: str
    sample: int
    a: str
    b: str | None
    rater: str
    verdict: str
    scores: dict[str, float] = field(default_factory=dict)
    comment: str = ""
    created_at: str = ""
    random: bool = True

    @property
    def key(self) -> tuple[str, str, int, str, str, str]:
        """What makes a rating unique: a rater's later rating of the same item replaces the earlier one."""
        return (self.dataset, self.case, self.sample, self.a, self.b or "", self.rater)


@dataclass
class Run:
    """A whole run: what a run file holds."""

    info: RunInfo
    metrics: list[Metric]
    contenders: list[Contender]
    cases: list[Case]
    results: list[Result]
    refused: list[Refusal] = field(default_factory=list)
    #: Pairwise verdicts (a suite's ``pairwise:`` judge); the run file's optional ``pairwise`` key.
    pairwise: list[PairVerdict] = field(default_factory=list)
    #: People's ratings of its replies (the Rate page, ``evalcore ratings import``); the run file's ``ratings`` key.
    ratings: list[Rating] = field(default_factory=list)
