#!/usr/bin/env bash
# Run the whole test suite: lint, unit tests, notebooks (nbval), browser tests and the Binder test.
#
#   bash scripts/test.sh                         # everything
#   bash scripts/test.sh -m "not binder" -x      # options after the command go to pytest (one run, as they say)
#
# Everything runs as two jobs at once: the Binder test (marker `binder`: it builds a venv with pip, then runs the
# lessons in it) on its own, and the rest spread over one pytest-xdist worker per core (MINITAPE_TEST_WORKERS sets
# their number; a notebook's cells stay together in one worker, which runs them in order in one kernel).
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
workers=(-n "${MINITAPE_TEST_WORKERS:-auto}" --dist loadfile)
nbval=(--nbval --nbval-sanitize-with notebooks/sanitize.cfg)
if [ "$#" -gt 0 ]; then
    exec .venv/bin/python -m pytest "${workers[@]}" "${nbval[@]}" "${paths[@]}" "$@"
fi
start=$SECONDS
mkdir -p test-artifacts
binder_log=test-artifacts/binder-test.log
.venv/bin/python -m pytest -q -p no:cacheprovider -m binder tests/repo/test_binder_env.py >"$binder_log" 2>&1 &
binder=$!
status=0
main_log=test-artifacts/main-tests.log
.venv/bin/python -m pytest "${workers[@]}" "${nbval[@]}" -m "not binder" "${paths[@]}" | tee "$main_log" || status=$?
echo "The Binder test, which ran alongside (its output is in $binder_log):"
if wait "$binder"; then
    tail -n 1 "$binder_log"
else
    [ "$status" = 0 ] && status=1
    cat "$binder_log"
fi
echo "scripts/test.sh: $((SECONDS - start)) s of tests, $([ "$status" = 0 ] && echo passed || echo FAILED). The main suite:"
tail -n 1 "$main_log"  # pytest's own closing line comes last
exit "$status"
