"""evalcore.scoring._base: what a scorer raises is named by scorer and case."""

import asyncio

import pytest

from evalcore.core.errors import CallFailed, EvalcoreError
from evalcore.core.records import Case
from evalcore.scoring._base import scorer_failures

CASE = Case(dataset="shop", id="c/001", variant="default", input="x", expected=None)


def test_a_scorer_error_names_the_scorer_and_the_case_and_keeps_the_cause():
    with pytest.raises(EvalcoreError, match=r"^scorer fields failed on shop/c/001: KeyError: 'name'$") as caught:
        with scorer_failures("fields", CASE):
            raise KeyError("name")
    assert isinstance(caught.value.__cause__, KeyError)


def test_an_evalcore_error_or_a_cancellation_goes_through_as_it_is():
    failed = CallFailed("model", "no verdict")
    with pytest.raises(CallFailed) as caught, scorer_failures("judge", CASE):
        raise failed
    assert caught.value is failed
    with pytest.raises(asyncio.CancelledError), scorer_failures("judge", CASE):
        raise asyncio.CancelledError


def test_nothing_raised_is_nothing_raised():
    with scorer_failures("fields", CASE):
        value = 1
    assert value == 1
