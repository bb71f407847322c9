#!/usr/bin/env bash
# Install evalcore with its test tools into .venv (in the project folder) and run every check and test,
# browser tests included. Usage: bash tests/run.sh [pytest args]
set -euo pipefail
cd "$(dirname "$0")/.."
export PIP_DISABLE_PIP_VERSION_CHECK=1
[ -x .venv/bin/python ] || python3 -m venv .venv
.venv/bin/python -m pip install -q -e '.[test]'
if [ -n "$(ls tests/browser 2>/dev/null)" ] && ! command -v chromium >/dev/null; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium fonts-dejavu-core
fi
# The report's JavaScript ranking is tested against the Python one under node: here it must run, not skip.
if ! command -v node >/dev/null; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs
fi
export EVALCORE_REQUIRE_NODE=1
# The store's tests also run on PostgreSQL: a throwaway server the tests start from Debian's binaries.
if ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql
fi
export EVALCORE_REQUIRE_POSTGRES=1
.venv/bin/python -m ruff check .
.venv/bin/python -m ruff format --check .
.venv/bin/python -m mypy evalcore
.venv/bin/python -m pytest "$@"
