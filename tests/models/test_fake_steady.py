"""``fake/steady``: right on every case but the hard ones, the same on every sample."""

from __future__ import annotations

import asyncio

from evalcore.core.records import Case, Contender
from evalcore.models.fakes import FakeProvider
from evalcore.models.types import Request


def _answer(difficulty: str, sample: int) -> str:
    case = Case("d", f"{difficulty}/1", difficulty, "What is 2 + 2?", "4", {"difficulty": difficulty})
    request = Request(
        contender=Contender("fake/steady", "fake/steady", {"temperature": 1.0}),
        messages=[{"role": "user", "content": "What is 2 + 2?"}],
        case=case,
        sample=sample,
        max_attempts=1,
        backoff_s=0,
    )
    return asyncio.run(FakeProvider().complete(request)).text


def test_fake_steady_is_right_on_an_easy_case_and_wrong_on_a_hard_one_on_every_sample():
    assert {_answer("easy", s) for s in range(10)} == {"4"}
    assert "4" not in {_answer("hard", s) for s in range(10)}
