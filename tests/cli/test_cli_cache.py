"""``evalcore run --cache`` and ``evalcore cache stats|clear`` through a real process: a second cached run calls
nothing and says what it paid beside what it would have; the cache is listed per model, and cleared."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.cli.process import evalcore as run
from tests.suites import write_suite

ENV = {"EVALCORE_FAKE_LATENCY_SCALE": "0"}


def evalcore(*argv: object) -> subprocess.CompletedProcess[str]:
    return run(*argv, env=ENV)


def test_a_second_cached_run_says_what_it_paid_and_what_it_would_have(tmp_path: Path, tmp_db: Path) -> None:
    suite = write_suite(tmp_path / "suite")
    first = evalcore("run", suite, "--db", tmp_db, "--quiet", "--cache")
    assert first.returncode == 0, first.stderr
    assert "reply cache: 0 replies reused ($0.000000 not paid), 9 stored" in first.stderr
    assert "what this decision paid" not in first.stdout
    second = evalcore("run", suite, "--db", tmp_db, "--quiet", "--cache")
    assert "reply cache: 9 replies reused" in second.stderr and "0 stored" in second.stderr
    table = second.stdout.split("what this decision paid, and what its calls would have cost without the cache")[1]
    row = next(line for line in table.splitlines() if line.startswith("fake/oracle · t=0 "))
    results, reused, paid, listed = row.split()[-4:]
    assert (results, reused, paid) == ("3", "3", "$0.000000") and float(listed[1:]) > 0


def test_the_cache_is_listed_per_model_and_cleared(tmp_path: Path, tmp_db: Path) -> None:
    suite = write_suite(tmp_path / "suite")
    evalcore("run", suite, "--db", tmp_db, "--quiet", "--cache")
    evalcore("run", suite, "--db", tmp_db, "--quiet", "--cache")
    stats = evalcore("cache", "stats", "--db", tmp_db)
    assert stats.returncode == 0, stats.stderr
    rows = {line.split()[0]: line.split()[1:3] for line in stats.stdout.splitlines()[2:]}
    assert rows == {"fake/guesser": ["3", "3"], "fake/oracle": ["6", "6"]}  # replies, reused
    cleared = evalcore("cache", "clear", "--model", "fake/oracle", "--db", tmp_db)
    assert cleared.returncode == 0 and "deleted 6 cached replies" in cleared.stderr
    assert "deleted 3 cached replies" in evalcore("cache", "clear", "--db", tmp_db).stderr
    assert "is empty" in evalcore("cache", "stats", "--db", tmp_db).stdout


def test_a_bad_max_age_is_refused_with_the_forms_it_takes(tmp_path: Path, tmp_db: Path) -> None:
    done = evalcore("run", write_suite(tmp_path / "suite"), "--db", tmp_db, "--cache-max-age", "soon")
    assert done.returncode == 2 and "'soon' is not an age" in done.stderr and "7d" in done.stderr
