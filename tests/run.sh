#!/usr/bin/env bash
# Install evalcore with its test tools and run every test (browser tests included).
# Usage: bash tests/run.sh [pytest args]
set -euo pipefail
cd "$(dirname "$0")/.."
export PIP_BREAK_SYSTEM_PACKAGES=1 PIP_DISABLE_PIP_VERSION_CHECK=1
python3 -m pip install -q -e '.[test]'
if [ -n "$(ls tests/browser 2>/dev/null)" ] && ! command -v chromium >/dev/null; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium fonts-dejavu-core
fi
python3 -m ruff check .
python3 -m pytest "$@"
