#!/usr/bin/env bash
# Run the whole test suite: lint, unit tests, notebooks (nbval) and browser tests.
# Sets up .venv with the test extras first (idempotent). System packages needed:
# graphviz (the `dot` layout program) and chromium (browser tests), see README.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x .venv/bin/python ]; then
    python3 -m venv .venv
fi
.venv/bin/python -m pip install --quiet --upgrade pip
.venv/bin/python -m pip install --quiet -e ".[test]"
.venv/bin/python -m ruff check .
.venv/bin/python -m ruff format --check .
paths=(tests)
[ -d notebooks ] && paths+=(notebooks)
exec .venv/bin/python -m pytest --nbval --nbval-sanitize-with notebooks/sanitize.cfg "${paths[@]}" "$@"
