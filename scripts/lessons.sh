#!/usr/bin/env bash
# Open the lessons in JupyterLab, on your own copies in my-lessons/ (git-ignored), so the repository stays clean.
#
#   bash scripts/lessons.sh                  # set up, then open JupyterLab at my-lessons/00_start_here.ipynb
#   bash scripts/lessons.sh --reset 03       # put lesson 03 back as it was (your copy is kept in my-lessons/backups/)
#   bash scripts/lessons.sh --setup-only     # do everything but start JupyterLab; print the URL and the command
#   bash scripts/lessons.sh --no-browser     # any other option goes to `jupyter lab`
#
# What it does, each step skipped when already done:
#   1. installs Graphviz (the visualizer's `dot`) with apt-get (as root, or with sudo when it needs no password) or
#      brew; when it cannot, it says what to install and goes on (optional: without dot the tape pictures are laid
#      out by Graphviz's WebAssembly build, which the widgets extra installs);
#   2. makes .venv and installs this repository into it with the lessons' extras (pip, quiet; again only when
#      pyproject.toml changes);
#   3. copies each notebooks/NN_*.ipynb to my-lessons/ unless your copy is already there (a lesson added by
#      `git pull` is copied on the next run; your own copies are never overwritten, except by --reset);
#   4. starts JupyterLab with the repository's root as its root directory (so minitape/ is there to read) and
#      prints the URL to open.
# Environment: MINITAPE_SKIP_SYSTEM_PACKAGES=1 installs no system package (it only checks);
#   MINITAPE_PYTHON=/path/to/python uses that Python's environment instead of .venv, and installs nothing into it
#   (it must have minitape[notebooks] installed); MINITAPE_PORT picks the port (default: the first free from 8888).
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
# shellcheck source=scripts/system_packages.sh
source scripts/system_packages.sh
# shellcheck source=scripts/venv.sh
source scripts/venv.sh

usage() { sed -n '2,7p' "$0" | sed 's/^# \{0,1\}//'; }

setup_only=0
resets=()
jupyter_args=()
while [ "$#" -gt 0 ]; do
    case "$1" in
        --setup-only | --dry-run) setup_only=1 ;;
        --reset)
            [ "$#" -ge 2 ] || { echo "--reset needs a lesson number, e.g. --reset 03" >&2; exit 2; }
            resets+=("$2")
            shift
            ;;
        --reset=*) resets+=("${1#--reset=}") ;;
        -h | --help) usage; exit 0 ;;
        *) jupyter_args+=("$1") ;;
    esac
    shift
done

# 1. System packages: optional, the tape pictures use Graphviz's WebAssembly build without dot, so go on either way.
ensure_programs "optional: without it the tape visualizer uses Graphviz's WebAssembly build from pip" dot || true

# 2. The Python environment.
if [ -n "${MINITAPE_PYTHON:-}" ]; then
    python="$MINITAPE_PYTHON"
else
    ensure_venv notebooks
    python="$root/.venv/bin/python"
fi

# 3. The student's copies. The originals stay untouched, so autosave never modifies a tracked file.
mkdir -p my-lessons
lessons=(notebooks/[0-9][0-9]_*.ipynb)
for lesson in "${lessons[@]}"; do
    [ -e "my-lessons/${lesson##*/}" ] || cp "$lesson" my-lessons/
done
landing=00_start_here.ipynb
for number in ${resets[@]+"${resets[@]}"}; do
    case "$number" in
        [0-9]) number="0$number" ;;
        [0-9][0-9]) ;;
        *) echo "--reset takes a lesson number such as 03, not '$number'" >&2; exit 2 ;;
    esac
    matches=(notebooks/"$number"_*.ipynb)
    if [ ! -e "${matches[0]}" ]; then
        echo "--reset $number: no lesson notebooks/${number}_*.ipynb; the lessons are:" >&2
        printf '    %s\n' "${lessons[@]##*/}" >&2
        exit 2
    fi
    name="${matches[0]##*/}"
    if ! cmp -s "${matches[0]}" "my-lessons/$name"; then
        mkdir -p my-lessons/backups
        backup="my-lessons/backups/${name%.ipynb}-$(date +%Y%m%d-%H%M%S).ipynb"
        mv "my-lessons/$name" "$backup"
        echo "Your copy of $name is now $backup."
    fi
    cp "${matches[0]}" "my-lessons/$name"
    echo "Reset my-lessons/$name to the original. If it is open in JupyterLab, reload it there (File > Reload)."
    landing="$name"
done

# 4. JupyterLab. Kernels start in my-lessons/, so they find lesson_tools (notebooks/lesson_tools) on PYTHONPATH.
export PYTHONPATH="$root/notebooks${PYTHONPATH:+:$PYTHONPATH}"
: "${JUPYTER_TOKEN:=$("$python" -c 'import secrets; print(secrets.token_hex(24))')}"
export JUPYTER_TOKEN  # from the environment, not the command line, so that `ps` does not show it
port="${MINITAPE_PORT:-}"
if [ -z "$port" ]; then
    port="$("$python" -c '
import socket
for port in range(8888, 8988):
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            continue
        print(port)
        break
')"
fi
path="lab/tree/my-lessons/$landing"
command=("$python" -m jupyter lab "--ServerApp.root_dir=$root"
    --ContentsManager.pre_save_hook=minitape.widgets.export.pre_save_hook "--ServerApp.port=$port" --ServerApp.port_retries=0
    "--LabApp.default_url=/$path")
[ "$(id -u)" = 0 ] && command+=(--allow-root) # JupyterLab refuses root unless told (containers, Binder-like boxes)
command+=(${jupyter_args[@]+"${jupyter_args[@]}"})

url="http://127.0.0.1:$port/$path?token=$JUPYTER_TOKEN"
case " ${jupyter_args[*]-} " in
    *" --port"* | *" --ServerApp.port"* | *" --ip"* | *" --ServerApp.ip"* | *"base_url"*)
        url="the URL that JupyterLab prints below (your options change its address)" ;;
esac
echo "Your lessons are in my-lessons/ (git-ignored). Open: $url"
if [ "$setup_only" = 1 ]; then
    printf 'Setup done. JupyterLab would start with: PYTHONPATH=%q JUPYTER_TOKEN=%q' "$PYTHONPATH" "$JUPYTER_TOKEN"
    printf ' %q' "${command[@]}"
    printf '\n'
    exit 0
fi
exec "${command[@]}"
