"""The fake judges' replies (``fake/judge`` and its kin, :mod:`evalcore.models.fakes`): a verdict read off the
evalcore judge prompt (:mod:`evalcore.scoring.judge_prompt`) or the pairwise prompt
(:mod:`evalcore.scoring.pairwise_prompt`), from the overlap of words between the answer and the reference.
"""

from __future__ import annotations

import json
import random
import re
from typing import Any, Protocol

from evalcore.core.images import message_text
from evalcore.models import fake_learner
from evalcore.models.types import Request


class JudgeSpec(Protocol):
    """What a fake judge's reply depends on (:class:`evalcore.models.fakes.FakeSpec` has it)."""

    @property
    def judge(self) -> float:
        """The power its overlap is raised to: the higher, the harsher."""

    @property
    def garble(self) -> float:
        """How often its reply is not a verdict."""

    @property
    def first_bias(self) -> float:
        """How often a pairwise judge prefers the first answer shown."""

    @property
    def learns(self) -> bool:
        """It follows people's verdict of a few-shot example alike (:mod:`evalcore.models.fake_learner`)."""


_ANSWER = re.compile(r"<answer>\n?(.*?)\n?</answer>", re.DOTALL)
_REFERENCE = re.compile(r"<reference>\n?(.*?)\n?</reference>", re.DOTALL)
_QUESTION = re.compile(r"^## Question\n(.*?)\n\n## ", re.DOTALL | re.MULTILINE)
_ASKED = re.compile(r"^Score each of these dimensions from (\S+) to (\S+): (.+)\.$", re.MULTILINE)
_WORD = re.compile(r"[a-z0-9$%]+(?:[.'][a-z0-9]+)*")
_COMMON = frozenset("the a an and or of to in on for is are be we you your our it this that with at by as can".split())
_GROUNDED = ("grounded", "faithful", "faithfulness", "accurate", "accuracy", "supported")
_TONE = ("tone", "politeness", "polite", "style", "clarity", "clear", "fluency")


def verdict(spec: JudgeSpec, request: Request, rng: random.Random) -> str:
    """A fake judge's reply to the judge prompt: a JSON verdict, or (as often as it garbles) a sentence.

    The scores come from word overlap between the answer and the reference, so a better answer gets a better
    verdict, deterministically; the judge's ``judge`` power makes it harsher, and a little seeded noise per judge
    and case makes two judges of a panel disagree a little.
    """
    prompt = "\n".join(message_text(m.get("content")) for m in request.messages)
    if _PAIR.search(prompt):
        return pair_verdict(spec, request, prompt)
    if spec.learns and fake_learner.REWRITE in prompt:
        return fake_learner.rewritten_rubric(prompt)
    asked = _ASKED.search(prompt)
    answer = _ANSWER.search(prompt)
    if asked is None or answer is None:
        return "I can only grade answers given in the evalcore judge prompt."
    lo, hi = float(asked[1]), float(asked[2])
    dimensions = [d.strip() for d in asked[3].split(",")]
    said, wanted = _words(answer[1]), _words(_reference_text(request, prompt))
    shared = len(said & wanted)
    covered = shared / len(wanted) if wanted else float(not said)
    backed = shared / len(said) if said else 0.0
    enough = min(1.0, len(said) / max(1.0, 0.5 * len(wanted))) if said else 0.0
    taught = fake_learner.learned(prompt, request.case) if spec.learns else None
    covered, backed, enough = (covered, backed, enough) if taught is None else (taught, taught, taught)
    scores: dict[str, Any] = {}
    for d in dimensions:
        raw = backed if d in _GROUNDED else enough if d in _TONE else covered
        value = max(0.0, min(1.0, raw**spec.judge + rng.uniform(-0.04, 0.04)))
        given = lo + value * (hi - lo)
        scores[d] = round(given) if lo.is_integer() and hi.is_integer() and hi - lo > 1 else round(given, 2)
    if rng.random() < spec.garble:
        first = dimensions[0]
        return f"The answer covers about {round(covered * 100)}% of the reference: {first} {scores[first]}."
    scores["reasoning"] = (
        f"The answer covers {round(covered * 100)}% of the reference's points; "
        f"{round((1 - backed) * 100)}% of what it says is not in the reference."
    )
    return json.dumps(scores)


def _reference_text(request: Request, prompt: str) -> str:
    """The prompt's reference, else the case's expected answer, else (a traced call has none) the question."""
    reference = _REFERENCE.search(prompt)
    if reference:
        return reference[1]
    expected = request.case.expected if request.case is not None else ""
    if expected is None:
        question = _QUESTION.search(prompt)
        return question[1] if question else ""
    return expected if isinstance(expected, str) else json.dumps(expected)


_PAIR = re.compile(r"<answer_a>\n?(.*?)\n?</answer_a>.*<answer_b>\n?(.*?)\n?</answer_b>", re.DOTALL)


def pair_verdict(spec: JudgeSpec, request: Request, prompt: str) -> str:
    """A fake judge's reply to the pairwise prompt: the answer whose words match the reference better wins.

    Drawn from the prompt as well as the case, so the two orders of one comparison draw apart: a judge
    with a ``first_bias`` then sometimes picks A in one order and the same answer as B in the other.
    """
    first, second = _PAIR.search(prompt).groups()  # type: ignore[union-attr]  # searched by the caller
    ref_text = _reference_text(request, prompt)
    case = request.case
    where = [case.dataset, case.id] if case is not None else []
    rng = random.Random(json.dumps([request.contender.model, prompt, *where, request.sample]))
    if rng.random() < spec.garble:
        return "Answer A reads better to me."
    quality = [_overlap(_words(text), _words(ref_text)) for text in (first, second)]
    winner = "A" if quality[0] > quality[1] + 0.05 else "B" if quality[1] > quality[0] + 0.05 else "tie"
    if rng.random() < spec.first_bias:
        winner = "A"
    reasoning = f"Answer A matches the reference at {quality[0]:.0%}, answer B at {quality[1]:.0%}."
    return json.dumps({"winner": winner, "reasoning": reasoning})


def _overlap(said: set[str], wanted: set[str]) -> float:
    """F1 of the words an answer shares with the reference."""
    shared = len(said & wanted)
    return 2 * shared / (len(said) + len(wanted)) if said or wanted else 1.0


def _words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if w not in _COMMON}
