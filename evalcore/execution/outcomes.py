"""The results of calls that gave no reply: a call that failed after its retries, and a case the budget cap
stopped midway. Both are stored; neither is ever a score."""

from __future__ import annotations

from evalcore.core.errors import CallFailed
from evalcore.core.records import Case, ErrorInfo, Result, Usage
from evalcore.models.metering import UNFINISHED_PREFIX, OverBudget, current_ticket


def failed_result(contender: str, case: Case, sample: int, failure: CallFailed, started_at: str) -> Result:
    """A call that gave no usable reply: an error of the failure's kind, with its attempts and latency."""
    return Result(
        contender,
        case.dataset,
        case.id,
        sample,
        "error",
        None,
        error=ErrorInfo(failure.kind, failure.message),
        latency_s=failure.latency_s,
        attempts=failure.attempts,
        started_at=started_at,
    )


def unfinished_result(contender: str, case: Case, sample: int, refused: OverBudget, started_at: str) -> Result:
    """A case the cap stopped midway (a later call of it, an agent's step, was refused): an error whose message
    begins with :data:`~evalcore.models.metering.UNFINISHED_PREFIX`, which a resume calls again, holding what
    the case's calls cost and their attempts (its ticket's), never a score."""
    ticket = current_ticket()
    message = f"{UNFINISHED_PREFIX}{refused.message}; this case is called again by evalcore run --resume"
    return Result(
        contender,
        case.dataset,
        case.id,
        sample,
        "error",
        None,
        error=ErrorInfo("other", message),
        usage=Usage(cost_usd=ticket.spent if ticket is not None else 0.0),
        attempts=ticket.attempts if ticket is not None else 0,
        started_at=started_at,
    )
