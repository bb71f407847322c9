"""``bench/mutation_changed.py``, the CI step that mutates the functions the last commit changed (dry runs)."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "bench" / "mutation_changed.py"

BEFORE = """def kept(x):
    return x + 1


def edited(x):
    return x * 2


class Plan:
    def cost(self, n):
        n = max(n, 0)
        return n - 1

    def size(self):
        return 3
"""


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, check=True).stdout


def _commit(repo: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(text)
    _git(repo, "add", "-A")
    _git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "change")


def _repo(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q")
    _commit(repo, {"evalcore/execution/resume.py": BEFORE, "tests/execution/test_resume.py": "", "README.md": "a"})
    return repo


def _dry_run(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, str(SCRIPT), "--root", str(repo), "--dry-run", *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=60)


def test_only_the_changed_function_and_method_of_a_listed_module_are_mutated_against_its_tests(tmp_path):
    repo = _repo(tmp_path)
    _commit(repo, {"evalcore/execution/resume.py": BEFORE.replace("x * 2", "x * 3").replace("n - 1", "n - 2")})
    done = _dry_run(repo)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "mutation: evalcore/execution/resume.py: evalcore.execution.resume.x_edited__mutmut_* "
        "evalcore.execution.resume.xǁPlanǁcost__mutmut_* against tests/execution/test_resume.py"
    ]


def test_a_line_deleted_from_a_function_marks_that_function(tmp_path):
    repo = _repo(tmp_path)
    _commit(repo, {"evalcore/execution/resume.py": BEFORE.replace("        n = max(n, 0)\n", "")})
    assert (
        _dry_run(repo).stdout.split(": ")[2]
        == "evalcore.execution.resume.xǁPlanǁcost__mutmut_* against tests/execution/test_resume.py\n"
    )


def test_no_listed_file_changed_checks_nothing_and_passes(tmp_path):
    repo = _repo(tmp_path)
    _commit(repo, {"README.md": "b", "evalcore/other.py": "def f():\n    return 1\n"})
    done = _dry_run(repo)
    assert (done.returncode, done.stdout) == (
        0,
        "mutation: no function of a listed module changed since HEAD~1; nothing to check\n",
    )


def test_a_base_that_is_not_a_commit_here_checks_nothing_and_passes(tmp_path):
    done = _dry_run(_repo(tmp_path), "--base", "0" * 40)
    assert done.returncode == 0
    assert "is not a commit here" in done.stdout


def test_an_analysis_module_moved_into_a_sub_package_is_found_with_its_moved_tests(tmp_path):
    repo = _repo(tmp_path)
    base = _git(repo, "rev-parse", "HEAD").strip()
    _commit(
        repo,
        {
            "evalcore/analysis/stats/intervals.py": "def interval(x):\n    return x\n",
            "tests/analysis/stats/test_intervals.py": "",
        },
    )
    done = _dry_run(repo, "--base", base)
    assert done.stdout.splitlines() == [
        "mutation: evalcore/analysis/stats/intervals.py: evalcore.analysis.stats.intervals.x_interval__mutmut_* "
        "against tests/analysis/stats/test_intervals.py"
    ]


def test_the_verdict_names_only_surviving_non_equivalent_mutants_of_the_changed_functions(monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT / "bench"))
    from mutation_changed import verdict

    results = """
    evalcore.execution.resume.x_edited__mutmut_1: killed
    evalcore.execution.resume.x_edited__mutmut_2: survived
    evalcore.execution.resume.x_edited__mutmut_3: no tests
    evalcore.execution.resume.x_edited__mutmut_4: survived
    evalcore.execution.resume.x_edited__mutmut_5: not checked
    evalcore.execution.resume.x_edited__mutmut_6: timeout
    evalcore.execution.resume.x_kept__mutmut_1: survived
    """
    equivalent = {"evalcore.execution.resume.x_edited__mutmut_4"}
    assert verdict(results, equivalent, ["evalcore.execution.resume.x_edited__mutmut_*"]) == (
        [
            "evalcore.execution.resume.x_edited__mutmut_2: survived",
            "evalcore.execution.resume.x_edited__mutmut_3: no tests",
        ],
        2,
        1,
    )
