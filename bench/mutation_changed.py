"""Mutation testing of the functions the last commit(s) changed, for CI (``.ci/run``).

Usage: python bench/mutation_changed.py [--base REF] [--time-cap SECONDS] [--dry-run]

The base is ``--base``, else ``$MUTATION_BASE``, else ``HEAD~1`` (for a merge commit: its first parent, so the
whole merged branch). Only files of :data:`TARGETS` count; in each, only the functions (and methods) whose lines
changed are mutated, each mutant against its module's tests only, by ``bench/mutation.sh``. A file or test path
is a glob (``**/`` spans folders), so a module keeps its tests when it moves into a sub-package.

Exit status: 1 when a checked mutant of a changed function survives (the tests passed, or none of the module's
tests runs it) and it is not listed in ``bench/mutation-equivalent.txt``: the change added code no test pins.
Mutants the time cap left unchecked are reported, never failed on: the cap keeps CI within minutes. 0 otherwise,
including when no listed file changed or the base is unknown (a shallow clone).
"""

from __future__ import annotations

import argparse
import ast
import fnmatch
import os
import re
import subprocess
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from mutation_score import KILLED, read_equivalent, read_results

ROOT = Path(__file__).resolve().parents[1]

#: The modules where a bug changes what a user decides, each with the tests that pin it (globs).
TARGETS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("evalcore/execution/resume.py", ("tests/execution/test_resume*.py",)),
    ("evalcore/execution/budget.py", ("tests/execution/test_budget*.py", "tests/execution/test_judge_guard.py")),
    ("evalcore/models/breaker.py", ("tests/models/test_breaker.py",)),
    ("evalcore/runfile/fast.py", ("tests/runfile/test_runfile_fast.py", "tests/runfile/test_runfile_trace.py")),
    ("evalcore/runfile/read.py", ("tests/runfile/test_runfile.py", "tests/runfile/test_runfile_fast.py")),
    ("evalcore/runfile/_structs.py", ("tests/runfile/test_runfile_structs.py", "tests/runfile/test_runfile_fast.py")),
    (
        "evalcore/scoring/scorers.py",
        ("tests/scoring/test_scorers.py", "tests/scoring/test_scorer_set.py", "tests/scoring/test_tool_call_scorer.py"),
    ),
    ("evalcore/scoring/tool_calls.py", ("tests/scoring/test_tool_call_*.py",)),
    (
        "evalcore/analysis/**/intervals.py",
        ("tests/analysis/**/test_intervals.py", "tests/analysis/**/test_coverage.py"),
    ),
    (
        "evalcore/analysis/**/resampling.py",
        (
            "tests/analysis/**/test_resampling.py",
            "tests/analysis/**/test_significance.py",
            "tests/analysis/**/test_aggregate_metrics.py",
            "tests/analysis/**/test_repeats.py",
        ),
    ),
    ("evalcore/analysis/**/ppi.py", ("tests/analysis/**/test_ppi.py",)),
    ("evalcore/analysis/**/racing.py", ("tests/analysis/**/test_racing*.py",)),
    (
        "evalcore/analysis/**/gate.py",
        (
            "tests/analysis/**/test_compare.py",
            "tests/analysis/**/test_guardrails.py",
            "tests/analysis/**/test_outcomes.py",
            "tests/analysis/**/test_gate_*.py",
        ),
    ),
    ("evalcore/analysis/**/leaderboard.py", ("tests/analysis/**/test_leaderboard*.py",)),
)


@dataclass
class Target:
    """A changed file of :data:`TARGETS`: its path now, the mutant globs of its changed functions, its tests."""

    path: str
    mutants: list[str]
    tests: list[str]


def glob_regex(pattern: str) -> re.Pattern[str]:
    """A path glob as a regex: ``**/`` is any folders (or none), ``*`` and ``?`` stay within one name."""
    parts = re.split(r"(\*\*/|\*|\?)", pattern)
    table = {"**/": "(?:[^/]+/)*", "*": "[^/]*", "?": "[^/]"}
    return re.compile("".join(table.get(p, re.escape(p)) for p in parts) + r"\Z")


def matching(pattern: str, paths: Iterable[str]) -> list[str]:
    """The paths ``pattern`` matches, sorted."""
    regex = glob_regex(pattern)
    return sorted(p for p in paths if regex.match(p))


def git(*args: str, root: Path) -> str:
    return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=True).stdout


def changed_lines(diff: str) -> dict[str, set[int]]:
    """``{path: line numbers}`` of the new side of a ``git diff -U0`` (a deletion marks the lines around it)."""
    found: dict[str, set[int]] = {}
    path = None
    for line in diff.splitlines():
        if line.startswith("+++ "):
            path = line[6:] if line.startswith("+++ b/") else None
        elif line.startswith("@@") and path is not None:
            match = re.match(r"@@ -\S+ \+(\d+)(?:,(\d+))? @@", line)
            if match:
                start, count = int(match[1]), int(match[2] or 1)
                lines = range(start, start + count) if count else range(start, start + 2)
                found.setdefault(path, set()).update(lines)
    return found


def function_spans(source: str) -> list[tuple[str, int, int]]:
    """mutmut's name of each top-level function and method (``x_f``, ``xǁClassǁm``) with its first and last line."""
    spans = []
    for node in ast.parse(source).body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            spans.append((f"x_{node.name}", node))
        elif isinstance(node, ast.ClassDef):
            spans += [
                (f"xǁ{node.name}ǁ{item.name}", item)
                for item in node.body
                if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef)
            ]
    return [
        (name, min([n.lineno, *(d.lineno for d in n.decorator_list)]), n.end_lineno or n.lineno) for name, n in spans
    ]


def changed_targets(root: Path, base: str) -> list[Target]:
    """The files of :data:`TARGETS` changed between ``base`` and HEAD, with the mutants of their changed functions."""
    tracked = git("ls-files", root=root).splitlines()
    # base...HEAD: what HEAD changed since it left base, not what base gained meanwhile.
    lines = changed_lines(git("diff", "-U0", "-M", f"{base}...HEAD", "--", "evalcore", root=root))
    found = []
    for source_glob, test_globs in TARGETS:
        for path in matching(source_glob, lines):
            module = path.removesuffix(".py").replace("/", ".")
            spans = function_spans(git("show", f"HEAD:{path}", root=root))
            names = [name for name, first, last in spans if any(first <= n <= last for n in lines[path])]
            tests = sorted({t for g in test_globs for t in matching(g, tracked)})
            found.append(Target(path, [f"{module}.{name}__mutmut_*" for name in names], tests))
    return found


def verdict(results_text: str, equivalent: set[str], mutant_globs: list[str]) -> tuple[list[str], int, int]:
    """The surviving non-equivalent mutants of ``mutant_globs``, how many were killed, how many were not checked."""
    survivors, killed, unchecked = [], 0, 0
    for name, status in sorted(read_results(results_text).items()):
        if not any(fnmatch.fnmatchcase(name, g) for g in mutant_globs) or name in equivalent:
            continue
        if status in KILLED:
            killed += 1
        elif status in {"survived", "no tests"}:
            survivors.append(f"{name}: {status}")
        else:
            unchecked += 1
    return survivors, killed, unchecked


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", default=os.environ.get("MUTATION_BASE", "HEAD~1"), help="the commit to diff against")
    parser.add_argument("--time-cap", type=int, default=int(os.environ.get("MUTATION_TIME_CAP", "300")))
    parser.add_argument("--dry-run", action="store_true", help="print what would be mutated, and run nothing")
    parser.add_argument("--root", type=Path, default=ROOT, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    root = args.root.resolve()
    try:
        git("rev-parse", "--verify", "--quiet", f"{args.base}^{{commit}}", root=root)
    except subprocess.CalledProcessError:
        print(f"mutation: base {args.base!r} is not a commit here (a shallow clone?); nothing checked")
        return 0
    targets = [t for t in changed_targets(root, args.base) if t.mutants]
    if not targets:
        print(f"mutation: no function of a listed module changed since {args.base}; nothing to check")
        return 0
    for t in targets:
        print(f"mutation: {t.path}: {' '.join(t.mutants)} against {' '.join(t.tests) or '(no tests found)'}")
    if args.dry_run:
        return 0
    return run(root, targets, args.time_cap)


def run(root: Path, targets: list[Target], time_cap: int) -> int:
    """Mutate every target's changed functions within ``time_cap`` seconds (shared), print the verdict."""
    mutants = [m for t in targets for m in t.mutants]
    env = {**os.environ, "MUTANTS": " ".join(mutants), "MUTATION_TIME_CAP": str(time_cap)}
    files = " ".join(t.path for t in targets)
    tests = " ".join(sorted({test for t in targets for test in t.tests}))
    done = subprocess.run(
        ["bash", "bench/mutation.sh", files, tests], cwd=root, env=env, capture_output=True, text=True
    )
    work = re.search(r"^work folder: (.+)$", done.stdout, flags=re.MULTILINE)
    if done.returncode != 0 or work is None:
        print(done.stdout, done.stderr, sep="", end="")
        print("mutation: bench/mutation.sh failed (above)")
        return 1
    results = (Path(work[1]) / "results.txt").read_text()
    survivors, killed, unchecked = verdict(results, read_equivalent(root / "bench/mutation-equivalent.txt"), mutants)
    checked = killed + len(survivors)
    score = f"{100 * killed / checked:.1f}%" if checked else "-"
    print(f"mutation of the changed functions: {killed} killed, {len(survivors)} survived, {unchecked} not checked")
    print(f"  score {score} (equivalents left out); mutmut's log and results: {work[1]}")
    if not checked and unchecked:
        print("  nothing was checked: the end of mutmut's log (run.log) says why")
    if unchecked:
        print(f"  {unchecked} not checked within the time cap of {time_cap} s (MUTATION_TIME_CAP): reported only")
    if survivors:
        print("Surviving mutants of changed code: add a test that kills each (`mutmut show NAME` in the work folder")
        print("prints it), or list it in bench/mutation-equivalent.txt with why no test can:")
        print("\n".join(f"  {s}" for s in survivors))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
