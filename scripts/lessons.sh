#!/usr/bin/env bash
# Set up .venv with everything the lessons need and open them in JupyterLab.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v dot >/dev/null; then
    echo "Graphviz's 'dot' program is missing: the tape visualizer needs it." >&2
    echo "Install it with: sudo apt-get install graphviz   (macOS: brew install graphviz)" >&2
fi
if [ ! -x .venv/bin/python ]; then
    python3 -m venv .venv
fi
.venv/bin/python -m pip install --quiet --upgrade pip
.venv/bin/python -m pip install --quiet -e ".[notebooks]"
extra=()
[ "$(id -u)" = 0 ] && extra+=(--allow-root)  # JupyterLab refuses root unless told (containers, Binder-like boxes)
exec .venv/bin/jupyter lab "${extra[@]}" notebooks/00_start_here.ipynb "$@"
