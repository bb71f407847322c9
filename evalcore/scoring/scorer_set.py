"""Several scorers as one: a suite's ``scorers:`` list, scored in order, their metrics side by side.

Naming rule: each metric keeps its own name unless two scorers of the suite declare that name; then every
scorer that declares it reports it as ``<scorer>_<metric>``, ``<scorer>`` being the entry's ``id`` (default:
the scorer's name). Exactly one metric is primary: the primary metric of the entry with ``primary: true``, or
of the first entry. Diagnostics go under each scorer's id, those with nothing to say left out. An entry with
``expected: KEY`` compares with that key of the case's expected answer (an object), not the whole answer: the
``trajectory`` scorer reads a case's ``actions`` while another scores the final answer at ``answer``.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from evalcore.core.errors import CallFailed, ConfigError, EvalcoreError
from evalcore.core.records import Case, Metric
from evalcore.scoring._base import Scored, scorer_failures
from evalcore.scoring.adapters import Context, Parsed

NAME = re.compile(r"^[a-z][a-z0-9_]*$")


@dataclass
class _Member:
    id: str
    scorer: Any
    #: The scorer's own metric name → the suite's.
    names: dict[str, str]
    primary: str
    #: The key of the expected answer this scorer compares with; None: the whole answer.
    expected: str | None = None


class ScorerSet:
    """Scorers run one after another on each reply; it has the :class:`~evalcore.scoring.scorers.Scorer` shape."""

    def __init__(self, members: Sequence[tuple[str, Any]], primary_index: int = 0, expected: Sequence[str | None] = ()):
        """Args:
        members: (id, scorer) in the suite's order; ids are unique.
        primary_index: the member whose primary metric is the suite's.
        expected: per member, the key of the expected answer it compares with (None or left out: the whole).
        """
        counts = Counter(m.name for _, scorer in members for m in scorer.metrics)
        self.members: list[_Member] = []
        self.metrics: list[Metric] = []
        for i, (sid, scorer) in enumerate(members):
            names = {m.name: f"{sid}_{m.name}" if counts[m.name] > 1 else m.name for m in scorer.metrics}
            own_primary = next(m.name for m in scorer.metrics if m.primary)
            key = expected[i] if i < len(expected) else None
            self.members.append(_Member(sid, scorer, names, names[own_primary], key))
            for m in scorer.metrics:
                self.metrics.append(replace(m, name=names[m.name], primary=m.primary and i == primary_index))
        self.name = " + ".join(sid for sid, _ in members)
        # Only a set with a scorer that asks a model (an LLM judge) takes the runner's async path.
        if any(callable(getattr(m.scorer, "ascore", None)) for m in self.members):
            self.ascore = self._ascore

    def score(self, case: Case, parsed: Parsed, context: Context) -> Scored:
        metrics: dict[str, float | None] = {}
        diagnostics: dict[str, Any] = {}
        for member in self.members:
            self._gather(member, self._score_one(member, case, parsed, context), metrics, diagnostics, case)
        return Scored(metrics, diagnostics)

    async def _ascore(self, case: Case, parsed: Parsed, context: Context, client: Any) -> Scored:
        """:meth:`score`, awaiting the members that ask a model (``ascore``) with the run's client.

        Raises:
            CallFailed: a member's model gave no answer (a judge's ``JudgeFailed``); its diagnostics then hold
                every member's so far, under their ids.
        """
        metrics: dict[str, float | None] = {}
        diagnostics: dict[str, Any] = {}
        for member in self.members:
            ascore = getattr(member.scorer, "ascore", None)
            if ascore is None:
                self._gather(member, self._score_one(member, case, parsed, context), metrics, diagnostics, case)
                continue
            try:
                with scorer_failures(member.id, case):
                    scored = await ascore(_case_for(member, case), parsed, context, client)
            except CallFailed as exc:
                own = getattr(exc, "diagnostics", None)
                exc.diagnostics = diagnostics | ({member.id: own} if own else {})  # type: ignore[attr-defined]
                raise
            self._gather(member, scored, metrics, diagnostics, case)
        return Scored(metrics, diagnostics)

    @property
    def judge_models(self) -> list[Any]:
        """The judge models of every member that asks one (``LlmJudge.judge_models``), in the suite's order."""
        return [j for m in self.members for j in getattr(m.scorer, "judge_models", [])]

    def use_cache(self, records: Any) -> None:
        """Hand stored judge verdicts to the members that reuse them (see ``LlmJudge.use_cache``)."""
        for member in self.members:
            if callable(getattr(member.scorer, "use_cache", None)):
                member.scorer.use_cache(records)

    @staticmethod
    def _score_one(member: _Member, case: Case, parsed: Parsed, context: Context) -> Scored:
        with scorer_failures(member.id, case):
            return member.scorer.score(_case_for(member, case), parsed, context)

    @staticmethod
    def _gather(
        member: _Member, scored: Scored, metrics: dict[str, float | None], diagnostics: dict[str, Any], case: Case
    ) -> None:
        """Add a member's metrics (under the suite's names) and diagnostics (under its id) to the set's."""
        for own, value in scored.metrics.items():
            if own in member.names:
                metrics[member.names[own]] = value
        if metrics.get(member.primary) is None:
            raise EvalcoreError(
                f"scorer {member.id} gave no {member.primary} for {case.dataset}/{case.id}; "
                "its primary metric must always have a value"
            )
        if scored.diagnostics:
            diagnostics[member.id] = scored.diagnostics

    def perfect_trace(self, case: Case) -> list[dict[str, Any]] | None:
        """The trace of a right reply, from the first member that scores one (``trajectory``); None without one."""
        for member in self.members:
            perfect = getattr(member.scorer, "perfect_trace", None)
            if perfect is not None:
                return perfect(_case_for(member, case))  # type: ignore[no-any-return]
        return None

    def check_case(self, case: Case) -> str | None:
        """The first scorer's complaint about the case's expected answer (see each scorer's ``check_case``)."""
        for member in self.members:
            wanted = member.expected
            if wanted is not None and (not isinstance(case.expected, dict) or wanted not in case.expected):
                return _no_key(member)
            check = getattr(member.scorer, "check_case", None)
            problem = check(_case_for(member, case)) if check is not None else None
            if problem is not None:
                return f"scorer {member.id}: {problem}"
        return None


def _case_for(member: _Member, case: Case) -> Case:
    """The case as the member sees it: its expected answer is the member's key of the case's, when it has one.

    Raises:
        ConfigError: the case's expected answer is not an object with that key.
    """
    if member.expected is None:
        return case
    if not isinstance(case.expected, dict) or member.expected not in case.expected:
        raise ConfigError(f"{case.source or f'{case.dataset}/{case.id}'}: {_no_key(member)}")
    return replace(case, expected=case.expected[member.expected])


def _no_key(member: _Member) -> str:
    return (
        f"expected: scorer {member.id} compares with expected.{member.expected}, and the expected answer has no "
        f"key {member.expected!r}; add it, or drop `expected:` from the scorer's entry"
    )


def scorer_id(given: str | None, ref_name: str, scorer: Any) -> str:
    """An entry's id: the ``id`` it gives, else the scorer's name (a custom scorer's ``name``, or its attribute).

    Raises:
        ConfigError: the name cannot be a metric-name prefix; the message says to give ``id``.
    """
    if given is not None:
        return given
    candidates = [ref_name]
    if ":" in ref_name:
        candidates = [str(getattr(scorer, "name", "")), ref_name.rpartition(":")[2].lower()]
    for name in candidates:
        if NAME.match(name):
            return name
    raise ConfigError(
        f"evalcore.yaml: scorers: {ref_name!r} has no usable name to prefix its metrics with; "
        "give the entry an id, e.g. {name: ..., id: my_check}"
    )
