"""What an LLM judge cost: its tokens, dollars and time per contender, apart from the contenders' own.

A judged result keeps the judge's usage in ``diagnostics["judge"]`` (:mod:`evalcore.scoring.judge`), never in
its ``usage``: the leaderboard's ``cost`` and ``time`` columns stay what the contender cost, and these totals
say what judging it cost on top (a judged run costs more than its contenders).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from evalcore.analysis.scores.formats import format_cost, format_seconds
from evalcore.core.records import Metric, Result
from evalcore.scoring.judge import judge_records


@dataclass
class JudgeCost:
    """What judging one contender's results cost.

    Attributes:
        contender: the contender id ("total" for the whole run).
        judged: results with a judge record (verdicts and failed judgings).
        calls: judge calls made (reused verdicts not counted).
        reused: verdicts reused from the run rescored (``--judge-cache``).
        attempts: judge calls made, retries included.
        cost_usd: total judge cost; None when a call's cost is unknown.
        latency_s: total judge time (the sum of the calls' latencies).
    """

    contender: str
    judged: int = 0
    calls: int = 0
    reused: int = 0
    attempts: int = 0
    cost_usd: float | None = 0.0
    latency_s: float = 0.0

    def add(self, record: dict[str, Any]) -> None:
        """Count one result's judge record."""
        self.calls += int(record.get("calls") or 0)
        self.reused += int(record.get("cached") or 0)
        self.attempts += int(record.get("attempts") or 0)
        cost = record.get("cost_usd")
        self.cost_usd = None if cost is None or self.cost_usd is None else self.cost_usd + cost
        self.latency_s += float(record.get("latency_s") or 0.0)

    @property
    def cost_per_case(self) -> float | None:
        """Judge cost per judged result."""
        return None if self.cost_usd is None or not self.judged else self.cost_usd / self.judged

    @property
    def time_per_case(self) -> float | None:
        """Judge time per judged result."""
        return self.latency_s / self.judged if self.judged else None


def is_judged(metrics: Iterable[Metric]) -> bool:
    """Whether a run's metrics include an LLM judge's (its ``judge_score``, maybe prefixed)."""
    return any(m.name == "judge_score" or m.name.endswith("_judge_score") for m in metrics)


def judge_costs(results: Iterable[Result]) -> list[JudgeCost]:
    """Judge cost per contender (in the order they first appear), then the total; [] when nothing was judged."""
    per: dict[str, JudgeCost] = {}
    total = JudgeCost("total")
    for result in results:
        records = judge_records(result.diagnostics)
        if not records:
            continue
        mine = per.setdefault(result.contender, JudgeCost(result.contender))
        mine.judged += 1
        total.judged += 1
        for record in records:
            mine.add(record)
            total.add(record)
    return [*per.values(), total] if per else []


def judge_cost_rows(costs: list[JudgeCost]) -> tuple[list[list[str]], list[str]]:
    """The rows and header of the judge-cost table the CLI prints under a judged run's leaderboard."""
    header = ["contender", "judge cost", "judge time", "judge calls", "attempts"]
    rows = []
    for c in costs:
        calls = f"{c.calls}" + (f" ({c.reused} reused)" if c.reused else "")
        rows.append(
            [
                c.contender,
                _per_case(c.cost_per_case, format_cost),
                _per_case(c.time_per_case, format_seconds),
                calls,
                str(c.attempts),
            ]
        )
    return rows, header


def _per_case(value: float | None, fmt: Any) -> str:
    return "–" if value is None else f"{fmt(value)}/case"
