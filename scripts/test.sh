#!/usr/bin/env bash
# Run the whole test suite: lint, unit tests, notebooks (nbval), browser tests and the Binder test.
#
#   bash scripts/test.sh                         # everything
#   bash scripts/test.sh -m "not binder" -x      # options after the command go to pytest
#
# First, each step skipped when already done: installs Graphviz (`dot`) and Chromium with its fonts (Debian/Ubuntu:
# apt-get as root, or with sudo when it needs no password; macOS: brew installs Graphviz, and the browser tests,
# which use Debian's Chromium, are skipped); when a program is missing and cannot be installed, it stops and says
# what to install. Then it makes .venv and installs this repository with the test extras (pip, quiet; again only
# when pyproject.toml changes).
# Environment: MINITAPE_SKIP_SYSTEM_PACKAGES=1 installs no system package (it only checks).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/system_packages.sh
source scripts/system_packages.sh
# shellcheck source=scripts/venv.sh
source scripts/venv.sh

programs=(dot chromium)
[ "$(uname -s)" = Darwin ] && programs=(dot)
ensure_programs "the visualizer's tests need Graphviz's dot, the browser tests Chromium" "${programs[@]}" || exit 1

ensure_venv test
.venv/bin/python -m ruff check .
.venv/bin/python -m ruff format --check .
paths=(tests)
[ -d notebooks ] && paths+=(notebooks)
exec .venv/bin/python -m pytest --nbval --nbval-sanitize-with notebooks/sanitize.cfg "${paths[@]}" "$@"
