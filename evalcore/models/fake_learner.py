"""``fake/judge-learner``: a fake judge whose verdicts improve, deterministically, with few-shot examples.

It grades as ``fake/judge`` does (word overlap with the reference), so it makes that judge's mistakes: an answer
that repeats the reference's words and adds a promise the policy never made passes. Shown examples people graded
(the block :func:`~evalcore.scoring.judge_prompt.examples_text` writes), it looks for the example whose question
is most like the one it judges (the share of their words in common, Jaccard's index) and, when that share is at
least :data:`ALIKE`, gives the people's verdict of that example instead of its own: it learns the kind of item
it got wrong, and only that kind. So the gain ``evalcore judge align`` measures with it is a real measurement of
the pipeline (examples chosen from the right folds, shown in the prompt, read back), not a number put in.

Asked to rewrite a rubric (:func:`~evalcore.scoring.judge_prompt.rubric_messages`), it adds a line per example,
``People fail answers to questions like: <question>`` (or ``pass``), which it reads back as it reads examples.

To replay a real judge (:func:`learned`), a case may carry that judge's recorded verdict in its metadata
(``judge_verdict: pass`` or ``fail``): the learner then gives it where no example alike overrides it, so the
gain measured on real human labels is that of the examples alone.
"""

from __future__ import annotations

import json
import re
from typing import Any

#: What a rubric rewrite prompt says (:data:`~evalcore.scoring.judge_prompt.REWRITE_HEADING`).
REWRITE = "## Rewrite the rubric"
#: The case metadata key of a replayed judge's verdict.
REPLAYED = "judge_verdict"
#: The least share of words two questions have in common for the learner to grade one like the other.
ALIKE = 0.5
_EXAMPLE = re.compile(r"<example>\nQuestion: (.*?)\nAnswer: .*?\nPeople's verdict: (\S+)\n</example>", re.DOTALL)
_RULE = re.compile(r"^People's verdict: (pass|fail) for questions like: (.*)$", re.MULTILINE)
_QUESTION = re.compile(r"^## Question\n(.*?)\n\n## ", re.DOTALL | re.MULTILINE)
_WORD = re.compile(r"[a-z0-9]+")


def _words(text: str) -> set[str]:
    return set(_WORD.findall(text.lower()))


def taught_verdict(prompt: str) -> float | None:
    """1.0 (pass) or 0.0 (fail): the people's verdict of the example most like the judged question, when one is
    alike enough; None when the prompt shows no example alike (then the learner grades as ``fake/judge``)."""
    asked = _QUESTION.search(prompt)
    if asked is None:
        return None
    question = _words(asked[1])
    best, verdict = 0.0, None
    shown = [(e[1], e[2]) for e in _EXAMPLE.finditer(prompt)] + [(r[2], r[1]) for r in _RULE.finditer(prompt)]
    for text, said in shown:
        words = _words(text)
        alike = len(question & words) / len(question | words) if question | words else 0.0
        if alike > best:
            best, verdict = alike, said
    if verdict is None or best < ALIKE:
        return None
    return 1.0 if verdict == "pass" else 0.0


def learned(prompt: str, case: Any) -> float | None:
    """The learner's verdict where it does not grade by word overlap: an example alike (:func:`taught_verdict`),
    else the replayed verdict its case carries (metadata ``judge_verdict``); None when neither."""
    taught = taught_verdict(prompt)
    if taught is not None:
        return taught
    replayed = getattr(case, "metadata", {}).get(REPLAYED) if case is not None else None
    return None if replayed not in ("pass", "fail") else float(replayed == "pass")


def rewritten_rubric(prompt: str) -> str:
    """The learner's reply to a rubric rewrite: the rubric with a rule per example people graded."""
    rubric = prompt.split("## Rubric\n", 1)[-1].split("\n\n## ", 1)[0].strip()
    shown = _EXAMPLE.finditer(prompt)
    rules = [f"People's verdict: {e[2]} for questions like: {' '.join(e[1].split())}" for e in shown]
    return json.dumps({"rubric": "\n".join([rubric, *rules])})
