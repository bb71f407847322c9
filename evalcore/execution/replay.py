"""Replaying a stored run: finding it, and the provider that answers a plan's calls from it.

``evalcore run SUITE --replay RUN_OR_FILE`` (or ``RunOptions(replay=open_replay(...))``) answers every call
with the raw reply the stored run holds for the same contender id, dataset, case id and sample
(:class:`~evalcore.models.replay.ReplayProvider`): a past run scored again by a new scorer, or parsed again
by a new adapter, with no network and no API key. A call it has no usable reply for is an error of kind
``replay``, never a made-up answer:

- the stored run has no result for that key (a contender or a sample it did not run);
- its stored call failed (there is no reply to replay);
- the case's input differs from the stored run's (its reply answers another question);
- the contender's settings, or the text of its prompt, differ from the stored run's (its replies were
  asked otherwise).

The new run records ``replay_of: <run id>`` in its settings and provenance (and ``replay_file`` when the
run came from a file, so ``evalcore run --resume`` finds it again).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from evalcore.core.errors import ConfigError, StoreError
from evalcore.core.records import Contender, Result, Run
from evalcore.execution.plan import Plan, Replay
from evalcore.models.replay import Key, ReplayProvider, StoredAnswer, StoredFailure
from evalcore.models.types import Reply
from evalcore.runfile.read import read_run_file
from evalcore.scoring.adapters import Parsed
from evalcore.storage.store import Store
from evalcore.suite.prompts import PROMPT_SETTING

#: The most of a stored error message a replay error quotes.
QUOTED_CHARS = 200


def open_replay(ref: str, store: Store | None = None) -> Replay:
    """The stored run ``ref`` names: a run file's path, else a run id (or unique prefix of one) in ``store``.

    Raises:
        RunFileError: the file is not a valid run file.
        ConfigError: ``ref`` is neither a file nor a stored run.
    """
    path = Path(ref)
    if path.is_file():
        return Replay(read_run_file(path), file=str(path.resolve()))
    if store is None:
        raise ConfigError(f"--replay {ref!r}: no such run file")
    try:
        return Replay(store.load_run(store.resolve_run_id(ref)))
    except StoreError as exc:
        raise ConfigError(f"--replay {ref!r}: no such run file, and {exc}") from None


def stored_replay(settings: dict[str, Any], store: Store) -> Replay | None:
    """The run a stored run replayed (its settings' ``replay_of``), for resuming it; None for a run of models.

    Raises:
        ConfigError: the replayed run is neither in the store nor at the file it came from.
    """
    run_id = settings.get("replay_of")
    if run_id is None:
        return None
    file = settings.get("replay_file")
    try:
        return Replay(store.load_run(run_id), file=file)
    except StoreError:
        if file and Path(file).is_file() and (replay := open_replay(file)).run.info.id == run_id:
            return replay
    raise ConfigError(
        f"this run replays run {run_id}, which is neither in {store.path}"
        + (f" nor in {file}" if file else "")
        + ": import it (evalcore import FILE) to resume"
    )


def replay_provider(plan: Plan) -> ReplayProvider:
    """The provider that answers the plan's calls from its replay's stored run.

    Raises:
        ValueError: the plan replays nothing.
    """
    if plan.replay is None:
        raise ValueError("the plan replays no run")
    run = plan.replay.run
    answers: dict[Key, StoredAnswer | StoredFailure | str] = {}
    changed = _changed_cases(plan, run)
    for result in run.results:
        answers[result.key] = changed.get((result.dataset, result.case)) or _answer(result)
    return ReplayProvider(f"run {run.info.id}", answers, _unavailable(plan, run))


def _answer(result: Result) -> StoredAnswer | StoredFailure | str:
    """The stored reply of a result, or why it has none."""
    where = f"{result.contender} on {result.dataset}/{result.case}, sample {result.sample}"
    judged = result.error is not None and result.error.kind == "judge"  # the model replied; its judge did not
    if result.status == "error" and not (judged and result.raw is not None):
        error = result.error
        why = f"{error.kind}: {error.message[:QUOTED_CHARS]}" if error else "no reason stored"
        failed = f"the stored call of {where} failed ({why}): there is no reply to replay"
        return StoredFailure(failed, result.latency_s, result.attempts)
    if result.raw is None:
        return f"the stored result of {where} holds no raw reply"
    return StoredAnswer(result.raw, result.usage, result.latency_s, result.attempts, result.trace)


def with_stored_trace(parsed: Parsed, reply: Reply) -> Parsed:
    """What the adapter read of a reply, with the trace a replay handed back with it (a stored agent's steps,
    or a traced agent's tool spans): the adapter reads the text alone, and a scorer of the path needs the steps."""
    return parsed if reply.trace is None or parsed.trace is not None else replace(parsed, trace=reply.trace)


def _changed_cases(plan: Plan, run: Run) -> dict[tuple[str, str], str]:
    """Why each case whose input differs from the stored run's has no stored answer."""
    stored = {case.key: case.input for case in run.cases}
    return {
        case.key: f"case {case.dataset}/{case.id} has another input than in that run: its replies answer another"
        " question"
        for case in plan.cases
        if case.key in stored and stored[case.key] != case.input
    }


def unanswerable(plan: Plan) -> dict[str, str]:
    """The contenders of a replaying plan whose calls the stored run cannot answer at all, with why (every call
    of theirs will be a ``replay`` error); {} when the plan replays nothing."""
    return _unavailable(plan, plan.replay.run) if plan.replay else {}


def _unavailable(plan: Plan, run: Run) -> dict[str, str]:
    """Why each contender of the plan the stored run cannot answer at all cannot be answered."""
    stored = {c.id: c for c in run.contenders}
    prompts = run.info.provenance.get("prompts") or {}
    found: dict[str, str] = {}
    for contender in plan.contenders:
        why = _unavailable_because(contender, stored.get(contender.id), prompts, plan)
        if why:
            found[contender.id] = why
    return found


def _unavailable_because(
    contender: Contender, stored: Contender | None, prompts: dict[str, Any], plan: Plan
) -> str | None:
    if stored is None:
        names = ", ".join(sorted(c.id for c in plan.replay.run.contenders)[:6]) if plan.replay else ""
        return f"it holds no result of {contender.id} (its contenders: {names or 'none'})"
    if stored.settings != contender.settings:
        return (
            f"the settings of {contender.id} differ from that run's ({_settings(contender.settings)} now, "
            f"{_settings(stored.settings)} then): its replies were asked otherwise"
        )
    name = contender.settings.get(PROMPT_SETTING)
    if not isinstance(name, str) or name not in plan.suite.prompts:
        return None
    was, prompt = prompts.get(name), plan.suite.prompts[name]
    if isinstance(was, dict) and was.get("sha256") not in (None, prompt.sha256):
        return f"prompt {name!r} changed since that run ({prompt.path.name}): its replies were asked with another text"
    return None


def _settings(settings: dict[str, Any]) -> str:
    return ", ".join(f"{k}={v}" for k, v in sorted(settings.items())) or "none"
