"""The results of calls that gave no reply: a call that failed after its retries, and a case the budget cap
stopped midway. Both are stored; neither is ever a score."""

from __future__ import annotations

from evalcore.core.errors import CallFailed
from evalcore.core.records import Case, ErrorInfo, Result, Usage
from evalcore.models.metering import UNFINISHED_PREFIX, OverBudget, current_ticket


def failed_result(contender: str, case: Case, sample: int, failure: CallFailed, started_at: str) -> Result:
    """A call that gave no usable reply: an error of the failure's kind, with its attempts and latency."""
    error = ErrorInfo(failure.kind, failure.message)
    latency, attempts = failure.latency_s, failure.attempts
    return _error_result(contender, case, sample, error, started_at, attempts=attempts, latency_s=latency)


def unfinished_result(contender: str, case: Case, sample: int, refused: OverBudget, started_at: str) -> Result:
    """A case the cap stopped midway (a later call of it, an agent's step, was refused): an error whose message
    begins with :data:`~evalcore.models.metering.UNFINISHED_PREFIX`, which a resume calls again, holding what
    the case's calls cost and their attempts (its ticket's), never a score."""
    ticket = current_ticket()
    message = f"{UNFINISHED_PREFIX}{refused.message}; this case is called again by evalcore run --resume"
    usage = Usage(cost_usd=ticket.spent if ticket is not None else 0.0)
    attempts = ticket.attempts if ticket is not None else 0
    error = ErrorInfo("other", message)
    return _error_result(contender, case, sample, error, started_at, attempts=attempts, usage=usage)


def _error_result(
    contender: str,
    case: Case,
    sample: int,
    error: ErrorInfo,
    started_at: str,
    *,
    attempts: int,
    latency_s: float | None = None,
    usage: Usage | None = None,
) -> Result:
    """An unscored result of ``case`` for ``contender``: ``error``, with what its calls took and cost."""
    return Result(
        contender,
        case.dataset,
        case.id,
        sample,
        "error",
        None,
        error=error,
        usage=usage or Usage(),
        latency_s=latency_s,
        attempts=attempts,
        started_at=started_at,
    )
