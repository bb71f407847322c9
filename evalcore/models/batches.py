"""Providers' batch APIs (``evalcore run --batch``, ``docs/batch.md``): send many requests at once, collect later.

A :class:`BatchClient` sends one contender's requests as one batch (:meth:`~BatchClient.submit`, which returns
the batch's id), tells its state (:meth:`~BatchClient.state`) and reads its replies
(:meth:`~BatchClient.replies`): each request's :class:`~evalcore.models.types.Reply` priced at the batch price,
or the :class:`~evalcore.core.errors.CallFailed` of a request the batch answered with an error or not at all.
:func:`evalcore.models.registry.batch_client` picks the client of a model id: :class:`FakeBatchClient` for the
``fake/`` models, else litellm's batch API (:mod:`evalcore.models.llm_batch`).

The fake client keeps nothing: a batch's id holds when it was sent, so a new process (``run --resume``) reads
the same batch; it is answered :data:`FAKE_TURNAROUND_VARIABLE` seconds after it was sent by the fake models
themselves.
"""

from __future__ import annotations

import os
import time
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol

from evalcore.core.errors import CallFailed
from evalcore.core.records import Contender, Usage
from evalcore.models.types import Reply, Request

#: A batch's price as a share of the interactive price when neither the suite nor litellm gives one: the
#: discount OpenAI's and Anthropic's batch APIs both state.
BATCH_SHARE = 0.5
#: Seconds a fake model's batch takes to be answered (default 0: at its first poll).
FAKE_TURNAROUND_VARIABLE = "EVALCORE_FAKE_BATCH_S"
#: A batch's states that end it; anything else (validating, in_progress, finalizing …) is still running.
DONE, FAILED, EXPIRED, CANCELLED = "completed", "failed", "expired", "cancelled"
ENDED = frozenset({DONE, FAILED, EXPIRED, CANCELLED})

Prices = tuple[float, float]
Answers = dict[str, Reply | CallFailed]


@dataclass(frozen=True)
class BatchState:
    """Where a batch is: its provider's ``status``, why it failed, and its requests done of all."""

    status: str
    reason: str | None = None
    done: int = 0
    total: int = 0
    #: A failed or expired batch's file of the replies it finished before it ended (they are paid), if any.
    has_output: bool = True

    @property
    def ended(self) -> bool:
        """The batch will not change any more."""
        return self.status in ENDED


class BatchClient(Protocol):
    """A provider's batch API for one kind of model id."""

    async def submit(self, contender: Contender, requests: Mapping[str, Request]) -> str:
        """Send ``requests`` (by custom id) as one batch; its id.

        Raises:
            CallFailed: the batch was not accepted (nothing was sent, nothing is paid).
        """

    async def state(self, contender: Contender, batch_id: str) -> BatchState:
        """The batch's state now (raises :class:`CallFailed` when it cannot be read)."""

    async def replies(
        self, contender: Contender, batch_id: str, requests: Mapping[str, Request], prices: Prices | None
    ) -> Answers:
        """The reply (priced at ``prices``) or error of each request the batch answered, by custom id."""


def priced(usage: Usage, prices: Prices | None) -> Usage:
    """``usage`` with its cost at ``prices`` (USD per input and output token); unknown without prices or tokens."""
    if prices is None or usage.input_tokens is None or usage.output_tokens is None:
        return Usage(usage.input_tokens, usage.output_tokens, None)
    return Usage(
        usage.input_tokens, usage.output_tokens, usage.input_tokens * prices[0] + usage.output_tokens * prices[1]
    )


def batch_prices(contender: Contender, interactive: Prices | None, listed: Prices | None = None) -> Prices | None:
    """A contender's USD per token through its batch API: the suite's ``input_cost_per_token_batches`` /
    ``output_cost_per_token_batches``, else litellm's batch price for the model (``listed``), else
    :data:`BATCH_SHARE` of ``interactive``; None when no price is known."""
    given = contender.prices or {}
    if "input_cost_per_token_batches" in given or "output_cost_per_token_batches" in given:
        fallback = interactive or (0.0, 0.0)
        return (
            float(given.get("input_cost_per_token_batches", fallback[0] * BATCH_SHARE)),
            float(given.get("output_cost_per_token_batches", fallback[1] * BATCH_SHARE)),
        )
    if listed is not None and not contender.prices:
        return listed
    return None if interactive is None else (interactive[0] * BATCH_SHARE, interactive[1] * BATCH_SHARE)


class FakeBatchClient:
    """The ``fake/`` models' batch API, in this process and stateless (see the module)."""

    async def submit(self, contender: Contender, requests: Mapping[str, Request]) -> str:
        return f"fakebatch-{time.time():.3f}-{uuid.uuid4().hex[:8]}"

    async def state(self, contender: Contender, batch_id: str) -> BatchState:
        sent = _sent_at(batch_id)
        if sent is None:
            raise CallFailed("bad_request", f"{batch_id!r} is not a fake batch's id")
        turnaround = float(os.environ.get(FAKE_TURNAROUND_VARIABLE) or 0.0)
        return BatchState(DONE if time.time() >= sent + turnaround else "in_progress")

    async def replies(
        self, contender: Contender, batch_id: str, requests: Mapping[str, Request], prices: Prices | None
    ) -> Answers:
        from evalcore.models.fakes import FakeProvider

        fake, answers = FakeProvider(), Answers()
        for custom_id, request in requests.items():
            try:
                reply = await fake.complete(request)
            except CallFailed as failed:
                answers[custom_id] = failed
                continue
            reply.usage, reply.latency_s = priced(reply.usage, prices), 0.0
            answers[custom_id] = reply
        return answers


def _sent_at(batch_id: str) -> float | None:
    parts = batch_id.split("-")
    try:
        return float(parts[1]) if len(parts) == 3 and parts[0] == "fakebatch" else None
    except ValueError:
        return None
