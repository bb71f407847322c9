"""The Rate page's engine: a rater's queue of blind items, what the browser may see of one, and the rating.

A queue is drawn per run, rater and mode: every item a contender (pairwise: two contenders) answered, dealt out
round-robin over the contenders (pairs) so each gets its share, in an order seeded by the run, the rater and the
deployment's secret (:mod:`evalcore.explorer.blinding`), so the same rater finds the same queue again and resumes
where they stopped (``12 of 40``). Optionally the judges' disagreements come first (a pairwise judge's
``inconsistent`` verdicts, the panel's ``judge_disagreement``), or the replies a judge panel flagged for review
(its ``judge_flagged``, with ``disagreement_threshold``): those ratings are marked ``random=False`` and never
correct the judge's score.

A base and a candidate run are rated in a run of their own (:func:`base_candidate_run`): each paired contender's
replies from both runs, named ``X · base`` and ``X · candidate``, so people's verdicts on them are ordinary pair
ratings that the People panel and ``evalcore ratings`` read like any other.

Blinding is the server's: a :class:`QueueItem` knows the contenders and stays in the session; the page shows
only its :class:`BlindView` (the case and the replies as ``A``/``B``; a conversation whole, as a chat with no
tokens, costs or scores), and the names once the rater's queue is done (:mod:`evalcore.explorer.blinding`). Nothing
here imports streamlit.
"""

from __future__ import annotations

import dataclasses
import hashlib
import hmac
import itertools
import json
import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from evalcore.analysis.decisions.compare import pair_contenders
from evalcore.analysis.people import human
from evalcore.core.conversation import SIMULATED, kind_of, user_of
from evalcore.core.records import DEMO_RATER, Metric, Rating, Result, Run
from evalcore.explorer.transcript import ChatMessage, chat_of
from evalcore.runfile.ratings import SCALE, checked
from evalcore.scoring.judge import FLAGGED_DESCRIPTION

Mode = Literal["pairwise", "single"]
#: Items in a queue unless the rater asks for another size.
QUEUE_SIZE = 40
#: A pair's verdicts as the page's buttons say them, in the order of the shown sides.
SIDE_VERDICTS = {"A": "A better", "B": "B better", "tie": "Tie", "both_bad": "Both bad"}
#: How a base-and-candidate run names each run's contender: ``fake/oracle · base``.
BASE, CANDIDATE = " · base", " · candidate"
#: How a base-and-candidate run's id begins.
RUN_PREFIX = "rate-"


@dataclass(frozen=True)
class QueueItem:
    """One item of a rater's queue: a case's replies by one or two contenders, in the order shown (A, then B).

    Attributes:
        dataset, case, sample: which answer(s).
        shown: the contenders in the order shown; ``shown[0]`` is A.
        random: drawn in random order (not put first as a disagreement).
    """

    dataset: str
    case: str
    sample: int
    shown: tuple[str, ...]
    random: bool = True


@dataclass(frozen=True)
class BlindView:
    """What the browser sees of an item: the case and the replies, never who wrote them.

    Attributes:
        input: the case's input; of a conversation, the simulated user's goal (empty for a script: its turns are
            in the chats).
        expected: the case's expected answer (a conversation's expected final state).
        replies: each shown contender's reply, A first.
        chats: of a conversation, each shown contender's whole conversation, A first, as a blind chat (what was
            said, no tokens, costs or scores: :func:`~evalcore.explorer.transcript.chat_of`); empty otherwise.
    """

    input: str
    expected: str
    replies: tuple[str, ...]
    chats: tuple[tuple[ChatMessage, ...], ...] = ()


def rater_problem(rater: str) -> str | None:
    """Why ratings cannot be stored under this name (None when they can): the bundled demo's made-up raters'
    prefix marks ratings no person made."""
    if rater.startswith(DEMO_RATER):
        return f"{rater!r}: names starting with {DEMO_RATER!r} mark the demo's made-up raters; type your own name."
    return None


#: How a name typed on the Rate page is stored: marked, so it never equals nor passes for a signed-in address.
UNVERIFIED = " (unverified)"


def typed_name_problem(name: str) -> str | None:
    """Why a typed name cannot rate (None when it can): an address is a signed-in identity, never typed."""
    if "@" in name:
        return f"{name!r}: a typed name cannot be an e-mail address; sign in to rate under your address."
    return None


def typed_rater(name: str) -> str:
    """The rater a typed name stores ratings under: ``ana (unverified)``."""
    return name + UNVERIFIED


def rater_seed(run_id: str, rater: str, mode: Mode, secret: str = "") -> int:
    """The queue's seed: the same run, rater, mode and secret draw the same queue; without the secret, nobody
    can compute it from the run id and the rater's name."""
    message = f"{run_id}\n{rater}\n{mode}".encode()
    if not secret:  # the bundled demo's made-up ratings are drawn this way, and stay as they were written
        return int(hashlib.sha256(message).hexdigest()[:12], 16)
    return int(hmac.new(secret.encode(), message, hashlib.sha256).hexdigest()[:12], 16)


def rating_queue(
    run: Run,
    rater: str,
    mode: Mode,
    *,
    size: int = QUEUE_SIZE,
    disagreements_first: bool = False,
    flagged_first: bool = False,
    samples_first: bool = False,
    pairs: Sequence[tuple[str, str]] | None = None,
    secret: str = "",
) -> list[QueueItem]:
    """The rater's queue: up to ``size`` items, each contender (pair) getting its share in turn.

    Args:
        run: a run with its results (the replies).
        rater: who rates (seeds the order and the sides).
        mode: ``pairwise`` (two replies to the same case) or ``single`` (one reply).
        size: items in the queue.
        disagreements_first: put the items the judges disagreed on first (marked ``random=False``).
        flagged_first: put the items with a reply a judge panel flagged first (:func:`flagged_metrics`; marked
            ``random=False``).
        samples_first: put the items of cases whose samples disagree first (a case a contender got right on one
            try and wrong on another, :func:`~evalcore.explorer.samples.disagreeing_cases`; a pair when either
            contender's samples do; marked ``random=False``).
        pairs: in ``pairwise`` mode, only these pairs of contenders (a base-and-candidate run's); every pair
            when None.
        secret: the deployment's secret (:func:`~evalcore.explorer.blinding.rate_secret`), so the order and the
            sides cannot be computed from the run id and the rater's name; the page always passes it.
    """
    rng = random.Random(rater_seed(run.info.id, rater, mode, secret))
    answered = _answered(run)
    order = [c.id for c in run.contenders]
    groups: list[tuple[str, ...]] = (
        [tuple(p) for p in (pairs if pairs is not None else itertools.combinations(order, 2))]
        if mode == "pairwise"
        else [(c,) for c in order]
    )
    pools: list[list[tuple[str, str, int]]] = []
    for group in groups:
        keys = sorted(set.intersection(*(answered.get(c, set()) for c in group)))
        rng.shuffle(keys)
        pools.append(keys)
    hot = _disagreements(run, mode) if disagreements_first else set()
    hot |= _flagged(run, groups) if flagged_first else set()
    hot |= _samples_disagree(run, pools, groups) if samples_first else set()
    queue: list[QueueItem] = []
    for round_keys in itertools.zip_longest(*pools):
        for group, key in zip(groups, round_keys, strict=True):
            if key is not None:
                shown = tuple(rng.sample(group, len(group)))
                queue.append(QueueItem(key[0], key[1], key[2], shown, (key, group) not in hot))
    if hot:
        queue.sort(key=lambda item: item.random)  # stable: disagreements first, each part in its drawn order
    return queue[:size]


def _answered(run: Run) -> dict[str, set[tuple[str, str, int]]]:
    answered: dict[str, set[tuple[str, str, int]]] = {}
    for r in run.results:
        if r.status == "scored":
            answered.setdefault(r.contender, set()).add((r.dataset, r.case, r.sample))
    return answered


def _disagreements(run: Run, mode: Mode) -> set[tuple[tuple[str, str, int], tuple[str, ...]]]:
    """Items the judges disagreed on: inconsistent pairwise verdicts, replies with a judge panel's spread."""
    if mode == "pairwise":
        out = set()
        for v in run.pairwise:
            if v.outcome == "inconsistent":
                order = [c.id for c in run.contenders]
                group = tuple(sorted((v.a, v.b), key=order.index))
                out.add(((v.dataset, v.case, v.sample), group))
        return out
    return {
        ((r.dataset, r.case, r.sample), (r.contender,))
        for r in run.results
        if (r.metrics.get("judge_disagreement") or 0) > 0
    }


def has_samples(run: Run) -> bool:
    """Whether a case of the run was tried more than once (what :func:`rating_queue`'s ``samples_first`` needs)."""
    return any(r.sample > 0 for r in run.results)


def _samples_disagree(
    run: Run, pools: Sequence[Sequence[tuple[str, str, int]]], groups: Sequence[tuple[str, ...]]
) -> set[tuple[tuple[str, str, int], tuple[str, ...]]]:
    """The items of a case whose samples disagree for a contender of the item's group."""
    from evalcore.explorer.samples import disagreeing_cases

    split = disagreeing_cases(run.results)
    return {
        (key, group)
        for keys, group in zip(pools, groups, strict=True)
        for key in keys
        if any((contender, key[0], key[1]) in split for contender in group)
    }


def flagged_metrics(metrics: Sequence[Metric]) -> list[str]:
    """The metrics that flag a reply for review (a judge panel's ``judge_flagged``, renamed or not)."""
    return [m.name for m in metrics if m.description == FLAGGED_DESCRIPTION]


def _flagged(run: Run, groups: Sequence[tuple[str, ...]]) -> set[tuple[tuple[str, str, int], tuple[str, ...]]]:
    """Items with a reply a judge panel flagged: a pair when either of its replies is."""
    names = flagged_metrics(run.metrics)
    flagged = {
        ((r.dataset, r.case, r.sample), r.contender)
        for r in run.results
        if any((r.metrics.get(name) or 0) > 0 for name in names)
    }
    keys = {key for key, _ in flagged}
    return {(key, group) for key in keys for group in groups if any((key, contender) in flagged for contender in group)}


def done_items(queue: Sequence[QueueItem], ratings: Sequence[Rating], rater: str) -> set[QueueItem]:
    """The queue's items this rater has already rated."""
    rated = {(r.dataset, r.case, r.sample, frozenset((r.a, r.b or r.a))) for r in ratings if r.rater == rater}
    return {i for i in queue if (i.dataset, i.case, i.sample, frozenset(i.shown)) in rated}


def blind_view(run: Run, item: QueueItem) -> BlindView:
    """The case's input and expected answer and the replies in the order shown, with no contender named."""
    case = next(c for c in run.cases if (c.dataset, c.id) == (item.dataset, item.case))
    key = (item.dataset, item.case, item.sample)
    replies = {r.contender: r for r in run.results if (r.dataset, r.case, r.sample) == key}
    shown = tuple(_reply(replies[c]) for c in item.shown)
    kind = kind_of(case)
    chats = tuple(tuple(chat_of(replies[c], blind=True) or ()) for c in item.shown) if kind else ()
    if not chats or not all(chats):  # a conversation stored without its transcript shows as a case and a reply
        return BlindView(_text(case.input), _text(case.expected), shown)
    goal = user_of(case).goal if kind == SIMULATED else ""
    return BlindView(goal, _text(case.expected), shown, chats)


def _text(value: Any) -> str:
    if value is None:
        return ""
    return value if isinstance(value, str) else json.dumps(value, indent=2, ensure_ascii=False)


def _reply(result: Result) -> str:
    return _text(result.output) or (result.raw or "")


def pair_rating(item: QueueItem, side: str, rater: str, order: Sequence[str], comment: str = "") -> Rating:
    """The rating of a pair from the side the rater chose (``A``, ``B``, ``tie`` or ``both_bad``), in contender
    terms: ``a`` is the pair's first contender in the run's contender ``order``, whichever side it was shown on.

    Raises:
        RunFileError: the rating breaks the rules of a rating (:class:`~evalcore.runfile.ratings.RatingEntry`).
    """
    a, b = sorted(item.shown, key=list(order).index)
    chosen = {"A": item.shown[0], "B": item.shown[1]}.get(side)
    verdict = side if chosen is None else ("a" if chosen == a else "b")
    return checked(
        Rating(item.dataset, item.case, item.sample, a, b, rater, verdict, comment=comment, random=item.random)
    )


def single_rating(item: QueueItem, rater: str, verdict: str, scores: dict[str, float], comment: str = "") -> Rating:
    """The rating of one reply: ``pass``/``fail``, or its dimension ``scores`` (1..5) with their 0..1 mean as the
    verdict.

    Raises:
        RunFileError: a score off the 1..5 scale, or a verdict no rating may have
            (:class:`~evalcore.runfile.ratings.RatingEntry`).
    """
    if scores:
        low, high = SCALE
        verdict = f"{sum((v - low) / (high - low) for v in scores.values()) / len(scores):.4g}"
    return checked(Rating(
        item.dataset, item.case, item.sample, item.shown[0], None, rater, verdict, dict(scores), comment,
        random=item.random,
    ))  # fmt: skip


def judge_dimensions(run: Run) -> list[str]:
    """The LLM judge's dimensions (metrics described ``judge: NAME, 0..1``), which a single reply is rated on."""
    return human.judge_dimensions(run)


def base_candidate_run(base: Run, candidate: Run) -> tuple[Run, list[tuple[str, str]]]:
    """The run in which a base run's replies are rated against a candidate run's, and its pairs to rate.

    The contenders that pair up (:func:`~evalcore.analysis.decisions.compare.pair_contenders`: the same id, or each
    run's
    only one), each run's named ``X · base`` or ``X · candidate``, over the cases both runs have: a merged run
    (:func:`~evalcore.runfile.merge.merge_runs`) whose id is the same for the same two runs, which holds the
    ratings. The runs' own verdicts and ratings are left out: they name the runs' own contenders.

    Raises:
        CompareError: no contender pairs up.
        EvalcoreError: the same run twice, or no case in common.
    """
    from evalcore.runfile.merge import merge_runs

    paired = pair_contenders([c.id for c in base.contenders], [c.id for c in candidate.contenders])
    sides = [_tagged(base, [b for b, _ in paired], BASE), _tagged(candidate, [c for _, c in paired], CANDIDATE)]
    digest = hashlib.sha256(f"{base.info.id}\n{candidate.info.id}".encode()).hexdigest()[:16]
    merged = merge_runs(sides, run_id=RUN_PREFIX + digest).run
    pairs = [(b + BASE, c + CANDIDATE) for b, c in paired]
    return merged, pairs


def _tagged(run: Run, keep: Sequence[str], tag: str) -> Run:
    """``run`` with only the contenders ``keep``, each named with ``tag``, and no verdicts or ratings."""
    contenders = [dataclasses.replace(c, id=c.id + tag) for c in run.contenders if c.id in keep]
    results = [dataclasses.replace(r, contender=r.contender + tag) for r in run.results if r.contender in keep]
    return dataclasses.replace(run, contenders=contenders, results=results, pairwise=[], ratings=[])
