"""People's ratings as files: the ``ratings`` JSON Lines of ``evalcore ratings import/export`` (``docs/judges.md``).

One rating a line, a JSON object: the run it belongs to, the item (``dataset``, ``case``, ``sample`` and either
``contender``, for one reply, or ``a`` and ``b``, for two), the ``rater``, the ``verdict``, and optionally the
``scores`` per judge dimension, a ``comment``, the ``time`` it was made and ``random`` (false when the rater's
queue put the judges' disagreements first). :class:`RatingEntry` is the one definition of a rating on disk:
the run file's optional ``ratings`` key (schema version 3, ``docs/run-file.md``) holds the same entries without
``run``, and :func:`ratings_problems` is that key's rules that cross sections.
"""

from __future__ import annotations

import json
import math
from collections.abc import Container, Iterable, Iterator
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from evalcore.core import records
from evalcore.core.errors import RunFileError
from evalcore.runfile._refs import Problem, References

#: The run file's top-level key.
KEY = "ratings"
Loc = tuple[str | int, ...]
_ENCODE = json.JSONEncoder(ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode
#: A rating of each judge dimension: 1 to 5, mapped to 0..1 as the judge's scale is.
SCALE = (1, 5)
#: The largest sample number a store can keep (SQLite's and PostgreSQL's 64-bit integers).
MAX_SAMPLE = 2**63 - 1
#: A single reply's verdict written as a number is a score on the judge's 0..1 scale.
VALUE_RANGE = (0.0, 1.0)
#: The errors whose message does not already quote the bad value.
_QUOTED = {"less_than_equal", "greater_than_equal", "finite_number"}
_Score = Annotated[float, Field(ge=SCALE[0], le=SCALE[1])]


class RatingEntry(BaseModel):
    """A person's rating of one reply, or of two replies to the same case."""

    model_config = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False)

    dataset: str
    """The case's dataset."""
    case: str
    """The case's id."""
    sample: int = Field(default=0, ge=0, le=MAX_SAMPLE)
    """Which repetition."""
    contender: str | None = None
    """The contender whose reply was rated (one reply); absent for a pair."""
    a: str | None = None
    """The first contender of a pair (whichever side it was shown on)."""
    b: str | None = None
    """The other contender of a pair."""
    rater: str = Field(min_length=1)
    """Who rated: a signed-in address or a name; ``demo/…`` marks made-up demo raters."""
    verdict: str = Field(min_length=1)
    """A pair's ``a``, ``b``, ``tie`` or ``both_bad``; one reply's ``pass``, ``fail``, a label or a 0..1 score."""
    scores: dict[str, _Score] = Field(default_factory=dict)
    """One reply's rating on each judge dimension, 1 to 5."""
    comment: str = ""
    """What the rater wrote."""
    time: str = ""
    """When it was made (UTC, ISO 8601)."""
    random: bool = True
    """False when the item was drawn out of random order (the judges' disagreements first)."""

    @field_validator("verdict")
    @classmethod
    def _on_scale(cls, verdict: str) -> str:
        problem = verdict_problem(verdict)
        if problem is not None:
            raise ValueError(problem)
        return verdict

    @model_validator(mode="after")
    def _one_item(self) -> RatingEntry:
        pair = self.a is not None or self.b is not None
        if pair == (self.contender is not None) or (pair and (self.a is None or self.b is None)):
            raise ValueError("give either contender (one reply) or a and b (two replies)")
        if pair and self.a == self.b:
            raise ValueError(f"a and b are the same contender {self.a!r}")
        if pair and self.verdict not in records.PAIR_VERDICTS:
            raise ValueError(f"verdict {self.verdict!r} of a pair is not one of {list(records.PAIR_VERDICTS)}")
        return self


def verdict_problem(verdict: str) -> str | None:
    """Why a verdict written as a number cannot stand (None when it can, or is a word): a number is a score on
    the judge's 0..1 scale, so NaN, infinities and anything outside it would outweigh every other rating."""
    try:
        value = float(verdict)
    except ValueError:
        return None
    low, high = VALUE_RANGE
    if not math.isfinite(value) or not low <= value <= high:
        return f"verdict {verdict!r} is not a score from {low:g} to {high:g} (nor pass, fail or a label)"
    return None


def checked(rating: records.Rating) -> records.Rating:
    """``rating`` once it passes the one definition of a rating (:class:`RatingEntry`), as the page stores it.

    Raises:
        RunFileError: what breaks the rules, field by field.
    """
    try:
        return rating_of(RatingEntry.model_validate(entry_data(rating)))
    except ValidationError as exc:
        raise RunFileError(f"rating of {rating.dataset}/{rating.case}: {'; '.join(_problems(exc))}") from None


class RatingLine(RatingEntry):
    """A line of a ratings file: a rating and the run it belongs to."""

    run: str = Field(min_length=1)
    """The run's id."""


def rating_of(entry: RatingEntry) -> records.Rating:
    """The record of a file's entry."""
    a, b = (entry.a, entry.b) if entry.contender is None else (entry.contender, None)
    assert a is not None
    return records.Rating(
        entry.dataset, entry.case, entry.sample, a, b, entry.rater, entry.verdict, dict(entry.scores),
        entry.comment, entry.time, entry.random,
    )  # fmt: skip


def entry_data(rating: records.Rating) -> dict[str, Any]:
    """A rating as a file's entry: ``contender`` for one reply, ``a`` and ``b`` for two; empty fields left out."""
    item = {"contender": rating.a} if rating.b is None else {"a": rating.a, "b": rating.b}
    data: dict[str, Any] = {"dataset": rating.dataset, "case": rating.case, "sample": rating.sample, **item}
    data |= {"rater": rating.rater, "verdict": rating.verdict}
    if rating.scores:  # floats as they read back, so a file written again is the same bytes
        data["scores"] = {k: float(v) for k, v in rating.scores.items()}
    if rating.comment:
        data["comment"] = rating.comment
    data["time"] = rating.created_at
    if not rating.random:
        data["random"] = False
    return data


def ratings_of(items: Any) -> list[records.Rating]:
    """The records of a run file tree's ``ratings`` list (validated here).

    Raises:
        pydantic.ValidationError: an entry breaks its model.
    """
    return [rating_of(RatingEntry.model_validate(x)) for x in items]


def ratings_problems(
    data: dict[str, Any], answered: Container[tuple[Any, Any, Any, Any]] | None = None
) -> Iterator[tuple[Loc, str]]:
    """The rules of a run file's ``ratings`` entries that cross sections, as ``(location, message)``: each names
    a contender, a case and a sample of the file's results, and a rater rates an item once.

    ``answered``: the results' (contender, dataset, case, sample) keys, when the caller has them; read from
    ``data["results"]`` otherwise.
    """
    items = data.get(KEY)
    if not isinstance(items, list):
        return
    refs = References.of(data)
    if answered is None:
        answered = result_keys(data.get("results"))
    seen: dict[tuple, int] = {}
    for i, r in enumerate(items):
        if not isinstance(r, dict):
            continue
        yield from refs.sides_problems(KEY, i, r, ("contender", "a", "b"))
        yield from refs.case_problems(KEY, i, r)
        yield from _sample_problems(i, r, refs, answered)
        key = (
            r.get("dataset"),
            r.get("case"),
            r.get("sample", 0),
            r.get("contender") or r.get("a"),
            r.get("b") or "",
            r.get("rater"),
        )
        if all(isinstance(x, str | int) for x in key):
            if key in seen:
                yield (KEY, i), f"duplicate rating: already at {KEY}.{seen[key]}"
            seen.setdefault(key, i)


def result_keys(results: Any) -> set[tuple[Any, Any, Any, Any]]:
    """The (contender, dataset, case, sample) of a run file's ``results`` entries."""
    if not isinstance(results, list):
        return set()
    return {
        (x.get("contender"), x.get("dataset"), x.get("case"), x.get("sample")) for x in results if isinstance(x, dict)
    }


def _sample_problems(
    i: int, r: dict[str, Any], refs: References, answered: Container[tuple[Any, Any, Any, Any]]
) -> Iterator[Problem]:
    """A rating of a reply the run does not have: the contender and the case are the file's, but the sample is
    not among the contender's results to the case."""
    dataset, case, sample = r.get("dataset"), r.get("case"), r.get("sample", 0)
    if not (isinstance(dataset, str) and isinstance(case, str) and type(sample) is int and 0 <= sample <= MAX_SAMPLE):
        return
    if refs.case_problem((), dataset, case) is not None:
        return
    for side in ("contender", "a", "b"):
        who = r.get(side)
        if (
            isinstance(who, str)
            and refs.contender_problem((), who) is None
            and (who, dataset, case, sample) not in answered
        ):
            yield (KEY, i, "sample"), missing_reply(who, dataset, case, sample)
            return


def missing_reply(contender: str, dataset: str, case: str, sample: int) -> str:
    """How a rating of a reply the run does not have is refused."""
    return f"sample {sample} of case {dataset}/{case} has no reply by {contender!r} in the run's results"


def dump_ratings(run_id: str, ratings: Iterable[records.Rating]) -> str:
    """Ratings as JSON Lines, one a line, each with ``run``."""
    return "".join(_ENCODE({"run": run_id, **entry_data(r)}) + "\n" for r in ratings)


def parse_ratings(text: str, source: str) -> dict[str, list[records.Rating]]:
    """The ratings of a JSON Lines text, by run id, in file order (blank lines skipped).

    Raises:
        RunFileError: a line that is not JSON or not a rating, naming the file, the line and the field.
    """
    return {run: [r for _, r in lines] for run, lines in numbered_ratings(text, source).items()}


def numbered_ratings(text: str, source: str) -> dict[str, list[tuple[int, records.Rating]]]:
    """:func:`parse_ratings` with each rating's line number, so a later check can name the line.

    Raises:
        RunFileError: a line that is not JSON or not a rating, naming the file, the line and the field.
    """
    by_run: dict[str, list[tuple[int, records.Rating]]] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            entry = RatingLine.model_validate_json(line)
        except ValidationError as exc:
            raise RunFileError(f"{source}: line {number}: {'; '.join(_problems(exc))}") from None
        by_run.setdefault(entry.run, []).append((number, rating_of(entry)))
    return by_run


def _problems(exc: ValidationError) -> Iterator[str]:
    for error in exc.errors(include_url=False):
        where = ".".join(str(p) for p in error["loc"])
        message = error["msg"].removeprefix("Value error, ")
        if error["type"] in _QUOTED and isinstance(error.get("input"), int | float):
            message += f" (got {error['input']!r})"
        yield f"{where}: {message}" if where else message


def rating_problems(
    ratings: Iterable[tuple[int, records.Rating]],
    contenders: Iterable[str],
    cases: Iterable[tuple[str, str]],
    answered: Container[tuple[str, str, str, int]],
) -> list[str]:
    """What in ``ratings`` (numbered by line) a run does not have: an unknown contender or case, or a sample the
    contender has no reply to, one ``line N: …`` each (at most 5).

    ``answered``: the run's results' (contender, dataset, case, sample) keys.
    """
    known, items = set(contenders), set(cases)
    problems: list[str] = []
    for number, r in ratings:
        sides = [who for who in (r.a, r.b) if who is not None]
        unknown = [who for who in sides if who not in known]
        for who in unknown:
            problems.append(f"line {number}: contender {who!r} is not in the run (it has {', '.join(sorted(known))})")
        if (r.dataset, r.case) not in items:
            problems.append(f"line {number}: case {r.dataset}/{r.case} is not in the run")
        elif not unknown:
            missing = next((who for who in sides if (who, r.dataset, r.case, r.sample) not in answered), None)
            if missing is not None:
                problems.append(f"line {number}: {missing_reply(missing, r.dataset, r.case, r.sample)}")
    return list(dict.fromkeys(problems))[:5]
