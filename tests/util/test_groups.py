"""The exception a user is told about when a task group fails."""

from __future__ import annotations

from evalcore._util.groups import first_leaf


def test_the_first_leaf_of_nested_groups_is_the_first_exception_they_hold():
    inner = ConnectionRefusedError("refused")
    group = ExceptionGroup("outer", [ExceptionGroup("inner", [inner, ValueError("later")]), KeyError("k")])
    assert first_leaf(group) is inner


def test_an_exception_that_is_not_a_group_is_its_own_leaf():
    error = TimeoutError("late")
    assert first_leaf(error) is error
