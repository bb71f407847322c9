"""Offline fakes for conversations: a simulated user (``fake/user``) and support bots that fail in known ways.

They speak a small protocol, so a conversation suite runs without keys. The user tells a fact as ``My <key> is
<value>.`` (a value is one word: ``4417``, ``ann@example.com``); a bot asks for one as ``Could you tell me your
<key>?`` and, once it knows every fact the case needs, confirms with ``Confirmed: <key> <value>, ….``

==============================  ======================================================================
``fake/user``                   plays the case's ``user``; its persona picks how it behaves: *cooperative*
                                (the default), *vague then precise* (a vague first message and a vague first
                                answer to each question), *changes their mind* (a fact given as ``[first,
                                final]`` is told as ``first``, then changed once the bot confirms), *gives up
                                after two bad replies* (a reply that asks again for a fact it gave, or that
                                neither asks for a missing fact nor confirms them all, is bad)
``fake/helpdesk``               answers well: asks for each missing fact, confirms them all
``fake/helpdesk-forgets``       remembers only the user's last message: asks again for earlier facts
``fake/helpdesk-unconfirmed``   gathers every fact and never confirms
==============================  ======================================================================

The user ends the conversation with ``[DONE]`` once the bot confirms every fact at its final value, or
``[GIVE UP]``. Which facts a bot needs it reads from the case (a fake answers from the case): the simulated user's
``facts``, or the facts a script's user messages tell. Everything is deterministic: a run repeats exactly.
"""

from __future__ import annotations

import asyncio
import re
from typing import Any

from evalcore.core.conversation import DONE_MARK, GIVE_UP_MARK, SCRIPTED, final_value, kind_of, turns_of, user_of
from evalcore.core.errors import CallFailed
from evalcore.core.images import message_text
from evalcore.core.records import Usage
from evalcore.models.fakes import latency_scale
from evalcore.models.types import NameProblem, Reply, Request

USER = "fake/user"
GOOD, FORGETS, UNCONFIRMED = "fake/helpdesk", "fake/helpdesk-forgets", "fake/helpdesk-unconfirmed"
#: Each fake's (latency in seconds, USD per input token, USD per output token).
PRICES: dict[str, tuple[float, float, float]] = {
    USER: (0.3, 1.0e-7, 4.0e-7),
    GOOD: (0.8, 1.0e-6, 4.0e-6),
    FORGETS: (0.5, 5.0e-7, 2.0e-6),
    UNCONFIRMED: (0.5, 5.0e-7, 2.0e-6),
}
MODELS = frozenset(PRICES)
COOPERATIVE, VAGUE, CHANGES, GIVES_UP = "cooperative", "vague then precise", "changes their mind", "gives up"
_FACT = re.compile(r"\bmy ([a-z][a-z ]*?) is (\S+?)\.?(?=\s|$)", re.IGNORECASE)
_ASK = "Could you tell me your {}?"
_CONFIRMED = "Confirmed:"


def behaviour(persona: str) -> str:
    """How ``fake/user`` plays a persona: the first of its behaviours the text names, else cooperative."""
    text = persona.casefold().replace("-", " ")
    for name in (VAGUE, CHANGES, GIVES_UP):
        if name.split(" then ")[0] in text:
            return name
    return COOPERATIVE


def told_facts(messages: list[str]) -> dict[str, str]:
    """The facts told in ``messages`` (``My <key> is <value>.``), a later value of a key replacing an earlier one."""
    facts: dict[str, str] = {}
    for text in messages:
        for key, value in _FACT.findall(text):
            facts[key.casefold()] = value
    return facts


def _final(value: Any) -> str:
    return str(final_value(value))


class FakeChatProvider:
    """Answers ``fake/user`` and the ``fake/helpdesk*`` bots."""

    def name_problem(self, model: str, api_base: str | None) -> NameProblem | None:
        return None

    def refusal(self, model: str, settings: dict[str, Any]) -> str | None:
        wrong = sorted(set(settings) - {"temperature", "max_tokens", "top_p", "seed"})
        return f"{model} does not take {wrong[0]}" if wrong else None

    def missing_keys(self, model: str, api_base: str | None) -> list[str]:
        return []

    def takes_images(self, model: str) -> bool:
        return False

    async def complete(self, request: Request) -> Reply:
        model, case = request.contender.model, request.case
        if model not in PRICES or case is None or kind_of(case) is None:
            raise CallFailed("bad_request", f"{model} answers only the turns of a conversation case")
        latency = PRICES[model][0] * latency_scale()
        await asyncio.sleep(latency)
        said = [(m["role"], message_text(m.get("content"))) for m in request.messages if m["role"] != "system"]
        text = _user_says(case, said) if model == USER else _bot_says(model, _needed(case), said)
        return Reply(text=text, usage=_usage(model, request, text), latency_s=latency)


def _needed(case: Any) -> list[str]:
    """The facts a bot must gather for the case, in the order it asks for them."""
    if kind_of(case) == SCRIPTED:
        return list(told_facts([t.user for t in turns_of(case)]))
    return [k.casefold() for k in user_of(case).facts]


def _bot_says(model: str, needed: list[str], said: list[tuple[str, str]]) -> str:
    users = [text for role, text in said if role == "user"]
    known = told_facts(users[-1:] if model == FORGETS else users)
    missing = [k for k in needed if k not in known]
    if missing:
        return _ASK.format(missing[0])
    if model == UNCONFIRMED:
        return "Thank you, I am looking into it."
    return f"{_CONFIRMED} " + ", ".join(f"{k} {known[k]}" for k in needed) + ". Your request is done."


def _user_says(case: Any, said: list[tuple[str, str]]) -> str:
    """The simulated user's next message; its own messages are the ``assistant`` turns of what it is sent."""
    user = user_of(case)
    how = behaviour(user.persona)
    facts = {k.casefold(): v for k, v in user.facts.items()}
    mine = [text for role, text in said if role == "assistant"]
    bots = [text for role, text in said if role == "user"]
    if not mine:
        return "I have a problem with something I bought." if how == VAGUE else user.goal
    last = bots[-1] if bots else ""
    changing = how == CHANGES and not any("changed my mind" in m for m in mine)
    if how == GIVES_UP and sum(_bad(b, facts, mine[: i + 1]) for i, b in enumerate(bots)) >= 2:
        return f"This is not helping. Goodbye. {GIVE_UP_MARK}"
    if last.startswith(_CONFIRMED):
        if changing and any(isinstance(v, list) for v in facts.values()):
            key = next(k for k, v in facts.items() if isinstance(v, list))
            return f"Sorry, I changed my mind: my {key} is {_final(facts[key])}."
        if all(_final(v) in last for v in facts.values()):
            return f"Thank you, that is everything. {DONE_MARK}"
    asked = next((k for k in facts if f"your {k}" in last.casefold()), None)
    if asked is None:
        return f"Can you please confirm my request? {user.goal}"
    if how == VAGUE and sum(f"your {asked}" in b.casefold() for b in bots) == 1:
        return "I am not sure, it is somewhere on the receipt."
    value = facts[asked]
    first = value[0] if how == CHANGES and isinstance(value, list) and value else _final(value)
    return f"My {asked} is {first if changing else _final(value)}."


def _bad(reply: str, facts: dict[str, Any], mine: list[str]) -> bool:
    """A bot reply the user counts as bad: it asks again for a fact the user told, or it neither asks for a fact
    nor confirms."""
    told = told_facts(mine)
    asked = next((k for k in facts if f"your {k}" in reply.casefold()), None)
    if asked is not None:
        return asked in told
    return not reply.startswith(_CONFIRMED)


def _usage(model: str, request: Request, text: str) -> Usage:
    _, per_in, per_out = PRICES[model]
    words = sum(len(message_text(m.get("content")).split()) for m in request.messages)
    input_tokens, output_tokens = int(words * 1.35) + 12, max(1, len(text) // 4)
    return Usage(input_tokens, output_tokens, round(input_tokens * per_in + output_tokens * per_out, 12))
