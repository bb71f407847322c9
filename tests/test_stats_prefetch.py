"""Resamples drawn ahead (evalcore.stats.prefetch_counts) are the ones resample would draw, claimed once."""

from __future__ import annotations

import numpy as np
import pytest

from evalcore import explorer, stats
from evalcore.frames import results_frame
from evalcore.stats import _count_blocks, _draw_blocks, prefetch_counts, resample
from tests.factories import METRICS, make_run


@pytest.fixture(autouse=True)
def _no_leftovers() -> None:
    stats._prefetched.clear()
    yield
    stats._prefetched.clear()


def _claimed(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    claims: list[bool] = []
    take = stats._take_prefetched

    def spy(*args: int) -> object:
        got = take(*args)
        claims.append(got is not None)
        return got

    monkeypatch.setattr(stats, "_take_prefetched", spy)
    return claims


@pytest.mark.parametrize("n_cases", [1, 7, 300, 70_000])
def test_drawn_blocks_are_the_count_blocks(n_cases: int) -> None:
    B = 260 if n_cases < 1000 else 3  # noqa: N806
    want = [b.copy() for b in _count_blocks(np.zeros(n_cases, dtype=np.int64), B, np.random.default_rng(5))]
    got = _draw_blocks(n_cases, B, 5)
    assert [b.dtype for b in got] == [np.uint16 if n_cases < 2**16 else np.uint32] * len(want)
    np.testing.assert_array_equal(np.concatenate(got).astype(np.float64), np.concatenate(want))


def test_a_prefetched_resample_is_the_drawn_one_bit_for_bit(monkeypatch: pytest.MonkeyPatch) -> None:
    frame = results_frame(make_run(4, 9, samples=2))
    want = resample(frame, METRICS, B=300, seed=4)
    claims = _claimed(monkeypatch)
    prefetch_counts(9, B=300, seed=4)
    got = resample(frame, METRICS, B=300, seed=4)
    assert claims == [True]
    assert list(got.tables) == list(want.tables)
    for name in want.tables:
        np.testing.assert_array_equal(got.tables[name], want.tables[name])
    again = resample(frame, METRICS, B=300, seed=4)  # claimed once: drawn again, the same
    assert claims == [True, False]
    np.testing.assert_array_equal(again.tables["score"], want.tables["score"])


def test_a_prefetch_for_other_arguments_is_left_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    frame = results_frame(make_run(3, 6))
    claims = _claimed(monkeypatch)
    for n, B, seed in [(7, 200, 0), (6, 100, 0), (6, 200, 1)]:  # noqa: N806
        prefetch_counts(n, B=B, seed=seed)
    resample(frame, METRICS, B=200, seed=0)
    assert claims == [False]
    assert len(stats._prefetched) == stats._PREFETCH_KEEP  # the oldest was dropped


def test_a_stratified_resample_never_takes_plain_draws(monkeypatch: pytest.MonkeyPatch) -> None:
    frame = results_frame(make_run(3, 8))  # datasets cycle: several strata
    calls = _claimed(monkeypatch)
    prefetch_counts(8, B=100, seed=0)
    resample(frame, METRICS, average="macro", B=100, seed=0)
    assert calls == []  # several strata: nothing to look up


def test_a_failed_prefetch_fails_the_resample_that_claims_it(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args: int) -> list[np.ndarray]:
        raise MemoryError("no room")

    monkeypatch.setattr(stats, "_draw_blocks", broken)
    prefetch_counts(6, B=50, seed=0)
    with pytest.raises(MemoryError, match="no room"):
        resample(results_frame(make_run(3, 6)), METRICS, B=50, seed=0)


def test_the_explorer_prefetches_what_its_view_draws(monkeypatch: pytest.MonkeyPatch) -> None:
    frame = results_frame(make_run(4, 9))
    want = explorer.prepare_view(frame, METRICS)
    claims = _claimed(monkeypatch)
    explorer.prefetch(9)
    got = explorer.prepare_view(frame, METRICS)
    assert claims[0] is True
    np.testing.assert_array_equal(got.overall.resampled[0][1].tables["score"],
                                  want.overall.resampled[0][1].tables["score"])


def test_nothing_is_drawn_for_no_cases_or_no_resamples() -> None:
    prefetch_counts(0)
    prefetch_counts(5, B=0)
    assert not stats._prefetched
