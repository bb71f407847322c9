"""The mutation score per module from ``mutmut results --all true`` (see bench/mutation.sh).

Usage: python bench/mutation_score.py RESULTS_TXT EQUIVALENT_TXT [FILE ...]

A mutant is killed when a test failed on it (a timeout counts: the tests noticed); it survives when the
tests passed or when no selected test runs its code ("no tests"). Mutants named in EQUIVALENT_TXT (one per
line, ``# why`` after it) behave exactly like the original code: no test can kill them, so they are left
out of the score and listed apart. Prints a markdown table, then every survivor by name (``mutmut show
NAME`` in the work folder prints its diff).
"""

from __future__ import annotations

import sys
from collections import Counter, defaultdict
from pathlib import Path

KILLED = {"killed", "timeout"}


def read_results(text: str) -> dict[str, str]:
    """``{mutant name: status}`` from mutmut's ``name: status`` lines."""
    found = {}
    for line in text.splitlines():
        name, sep, status = line.strip().rpartition(": ")
        if sep and "__mutmut_" in name:
            found[name] = status.strip()
    return found


def read_equivalent(path: Path) -> set[str]:
    """The mutant names listed in ``path`` (blank lines and ``#`` comments skipped)."""
    if not path.exists():
        return set()
    return {n for line in path.read_text().splitlines() if (n := line.split("#", 1)[0].strip())}


def module_of(mutant: str) -> str:
    """``evalcore.models.breaker`` of ``evalcore.models.breaker.xǁBreakerǁrecord__mutmut_3``."""
    return mutant.split(".x_", 1)[0].split(".xǁ", 1)[0]


def main(argv: list[str]) -> int:
    results = read_results(Path(argv[1]).read_text())
    equivalent = read_equivalent(Path(argv[2]))
    wanted = {f.removesuffix(".py").replace("/", ".") for f in argv[3:]}
    counts: dict[str, Counter[str]] = defaultdict(Counter)
    survivors = []
    for name, status in sorted(results.items()):
        module = module_of(name)
        if wanted and module not in wanted:
            continue
        if name in equivalent:
            counts[module]["equivalent"] += 1
        elif status in KILLED:
            counts[module]["killed"] += 1
        else:
            counts[module][status] += 1
            survivors.append(f"{name}: {status}")
    print("| module | mutants | killed | survived | no tests | equivalent | score |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for module, c in sorted(counts.items()):
        scored = sum(c.values()) - c["equivalent"]
        score = f"{100 * c['killed'] / scored:.1f}%" if scored else "-"
        row = [sum(c.values()), c["killed"], c["survived"], c["no tests"], c["equivalent"]]
        print(f"| {module} | " + " | ".join(map(str, row)) + f" | {score} |")
    others = sum(c[s] for c in counts.values() for s in c if s not in {"killed", "survived", "no tests", "equivalent"})
    if others:
        print(f"\n{others} mutants neither killed nor survived (not checked, suspicious, skipped): see below")
    print("\nSurvivors:")
    print("\n".join(survivors) or "(none)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
