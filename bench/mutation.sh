#!/usr/bin/env bash
# Mutation score for chosen modules against chosen tests, with mutmut 3.
#
# Usage: bench/mutation.sh "evalcore/models/breaker.py evalcore/execution/budget.py" \
#            "tests/models/test_breaker.py tests/execution/test_budget.py"
#
# mutmut is not a project dependency: it lives in a scratch virtualenv (MUTMUT_VENV,
# default /tmp/mutvenv) that also sees the project's packages through a .pth file.
# The run happens in a throwaway copy of the committed tree, so nothing here touches
# the worktree. Mutants listed in bench/mutation-equivalent.txt (one name per line,
# "# why" after it) are equivalent to the original code: they are reported apart and
# left out of the score.
#
# MUTANTS (space-separated mutmut name globs, e.g. "evalcore.execution.budget.x_usd_text__mutmut_*") limits
# the run to those mutants; MUTATION_TIME_CAP (seconds) stops it there, keeping what was checked
# (bench/mutation_changed.py, which CI runs, sets both).
set -euo pipefail

files=${1:?"first argument: space-separated source files to mutate"}
tests=${2:?"second argument: space-separated test files to run against them"}
children=${MUTMUT_CHILDREN:-1}
mutants=${MUTANTS:-}
cap=${MUTATION_TIME_CAP:-0}
venv=${MUTMUT_VENV:-/tmp/mutvenv}
root=$(git rev-parse --show-toplevel)
project_python=${PROJECT_PYTHON:-$root/.venv/bin/python}
[ -x "$project_python" ] || project_python=/work/main/.venv/bin/python

if [ ! -x "$venv/bin/mutmut" ]; then
    "$project_python" -m venv "$venv"
    site=$("$project_python" -c 'import site; print(site.getsitepackages()[0])')
    echo "$site" >"$("$venv/bin/python" -c 'import site; print(site.getsitepackages()[0])')/project.pth"
    # Pinned: the names in bench/mutation-equivalent.txt follow this version's numbering of mutants.
    "$venv/bin/pip" install -q --disable-pip-version-check 'mutmut==3.8.1'
fi

work=$(mktemp -d /tmp/mutation-XXXXXX)
git -C "$root" archive HEAD | tar -x -C "$work"
cd "$work"
{
    echo
    echo "[tool.mutmut]"
    echo 'source_paths = ["evalcore/"]'
    echo 'also_copy = ["data/", "docs/", "bench/", "pages/", "app.py", "README.md", ".streamlit/"]'
    printf 'only_mutate = ['; printf '"%s", ' $files; echo ']'
    printf 'pytest_add_cli_args_test_selection = ['; printf '"%s", ' $tests; echo ']'
    echo 'pytest_add_cli_args = ["-q", "-p", "no:cacheprovider", "-x"]'
} >>pyproject.toml

export LITELLM_LOCAL_MODEL_COST_MAP=True EVALCORE_FAKE_LATENCY_SCALE=0
# SIGINT on the cap: mutmut stops its workers and keeps every result it has.
# shellcheck disable=SC2086  # MUTANTS is a list of globs, split on purpose (set -f keeps them unexpanded)
set -f
timeout -s INT "$cap" "$venv/bin/mutmut" run --max-children "$children" $mutants >run.log 2>&1 || true
set +f
"$venv/bin/mutmut" results --all true >results.txt 2>&1 || true
"$venv/bin/python" "$root/bench/mutation_score.py" results.txt "$root/bench/mutation-equivalent.txt" $files
echo "work folder: $work"
