"""How a batch run is set (``evalcore run --batch``, ``docs/batch.md``): what its settings record, read back by a
resume. The batches themselves are :mod:`evalcore.execution.batching`'s."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

#: The run setting of a batch run: ``{"poll_s": …, "sent": [{"id", "contender", "slots", "usd", "sent_at",
#: "ended"}]}``; absent for a run without batches.
SETTING = "batch"


@dataclass(frozen=True)
class BatchSettings:
    """How a batch run polls (``--batch``, ``--batch-poll``)."""

    #: Seconds between two polls of a batch.
    poll_s: float = 30.0


def batch_record(settings: BatchSettings | None) -> dict[str, Any]:
    """What a new run's settings record of its batches: nothing for a run without them."""
    return {} if settings is None else {SETTING: {"poll_s": settings.poll_s, "sent": []}}


def recorded_batch(settings: dict[str, Any]) -> BatchSettings | None:
    """A stored run's batch settings (a resume polls and sends as the run did); None for a run without batches."""
    found = settings.get(SETTING)
    return BatchSettings(float(found.get("poll_s", 30.0))) if isinstance(found, dict) else None
