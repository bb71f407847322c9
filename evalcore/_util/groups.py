"""Exception groups (what a task group raises): the one exception a user is told about."""

from __future__ import annotations


def first_leaf(exc: BaseException) -> BaseException:
    """The first exception an exception group holds, however deeply nested (``exc`` itself when not a group)."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc
