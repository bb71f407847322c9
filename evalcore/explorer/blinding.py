"""What keeps the Rate page blind: the deployment's secret that seeds each rater's queue and sides, and when the
contenders behind a rated item are named.

- **The secret.** A rater's queue and which reply is A are drawn from the run, the rater and this secret, so
  nobody who knows a run id and a rater's name can work out the sides. It is ``EVALCORE_RATE_SECRET``
  (the environment, or a top-level secret of ``st.secrets``, which Streamlit exports to it); without one, a
  random secret is created once and kept in the file ``rate-secret`` beside the store (the SQLite file's
  folder). Set the variable where that folder does not last (a redeploy) or several app servers share a
  PostgreSQL store, so a rater's queue stays the same.
- **The reveal.** By default the names are shown only once the rater's queue is done: over a queue of one
  lineup, names after each vote would teach a rater each contender's style and unblind the later votes.
  ``EVALCORE_RATE_REVEAL=each`` names them after every vote instead (a demo).

Nothing here imports streamlit.
"""

from __future__ import annotations

import logging
import os
import secrets
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

from evalcore.core.errors import EvalcoreError
from evalcore.explorer.rating import Mode, QueueItem

logger = logging.getLogger(__name__)

#: The deployment's secret, when the deployer sets it.
SECRET_ENV = "EVALCORE_RATE_SECRET"
#: The file beside the store that keeps the secret created when the variable is not set.
SECRET_FILE = "rate-secret"
#: When names are revealed: ``end`` (the default) or ``each``.
REVEAL_ENV = "EVALCORE_RATE_REVEAL"
Reveal = Literal["end", "each"]
REVEALS: tuple[Reveal, ...] = ("end", "each")


def rate_secret(environ: Mapping[str, str], folder: Path) -> str:
    """The deployment's secret: ``EVALCORE_RATE_SECRET``, else the one kept in ``folder/rate-secret`` (created
    there, readable by its owner only, the first time).

    Raises:
        EvalcoreError: the file can be neither read nor created.
    """
    if environ.get(SECRET_ENV, "").strip():
        return environ[SECRET_ENV].strip()
    path = folder / SECRET_FILE
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        pass
    except OSError as exc:
        raise EvalcoreError(f"{path}: cannot keep the Rate page's secret there ({exc}); set {SECRET_ENV}") from exc
    else:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(secrets.token_hex(32))
        logger.info("created the Rate page's secret in %s", path)
    try:
        value = path.read_text(encoding="utf-8").strip()
    except OSError as exc:
        raise EvalcoreError(f"{path}: cannot read the Rate page's secret ({exc}); set {SECRET_ENV}") from exc
    if not value:  # another process is between creating and writing it
        raise EvalcoreError(f"{path}: the Rate page's secret is empty; delete the file or set {SECRET_ENV}")
    return value


def reveal_setting(environ: Mapping[str, str]) -> Reveal:
    """When the page names the contenders: ``EVALCORE_RATE_REVEAL``, ``end`` unless it says ``each``.

    Raises:
        EvalcoreError: the variable holds another word.
    """
    value = environ.get(REVEAL_ENV, "").strip().lower() or "end"
    if value not in REVEALS:
        raise EvalcoreError(f"{REVEAL_ENV}={value!r}: give one of {list(REVEALS)}")
    return value  # type: ignore[return-value]


def reveal(item: QueueItem) -> str:
    """Who wrote the replies of a rated item: ``A was x, B was y``, or ``the reply was x's`` for one reply."""
    if len(item.shown) == 1:
        return f"the reply was {item.shown[0]}'s"
    return ", ".join(f"{side} was {who}" for side, who in zip("AB", item.shown, strict=False))


def reveal_rows(queue: Sequence[QueueItem], mode: Mode) -> list[dict[str, Any]]:
    """The queue's items with who wrote what, one row each, for the page to show once the queue is done."""
    sides = ("A", "B") if mode == "pairwise" else ("reply",)
    return [
        {"case": f"{i.dataset}/{i.case}", "sample": i.sample, **dict(zip(sides, i.shown, strict=False))} for i in queue
    ]
