#!/usr/bin/env bash
# Open the lessons in JupyterLab, on your own copies in my-lessons/ (git-ignored), so the repository stays clean.
#
#   bash scripts/lessons.sh                  # set up, then open JupyterLab at my-lessons/00_start_here.ipynb
#   bash scripts/lessons.sh --reset 03       # put lesson 03 back as it was (your copy is kept in my-lessons/backups/)
#   bash scripts/lessons.sh --setup-only     # do everything but start JupyterLab; print the command
#   bash scripts/lessons.sh --no-browser     # any other option goes to `jupyter lab`
#
# What it does, each step skipped when already done, each announced with the time it took:
#   1. installs Graphviz (the visualizer's `dot`) with apt-get (as root, or with sudo when it needs no password) or
#      brew; when it cannot, it says what to install and goes on (optional: without dot the tape pictures are laid
#      out by Graphviz's WebAssembly build, which the widgets extra installs);
#   2. makes .venv and installs this repository into it with the lessons' extras, JupyterLab and Notebook 7 (pip,
#      again only when pyproject.toml changes; a line every 10 s says what it is doing), and the lessons' Jupyter
#      set-up (scripts/venv.sh: lesson_tools importable, the repository's lessons protected from saves, no news);
#   3. copies each notebooks/NN_*.ipynb to my-lessons/ unless your copy is already there (a lesson added by
#      `git pull` is copied on the next run; your own copies are never overwritten, except by --reset);
#   4. starts JupyterLab on 127.0.0.1 with the repository's root as its root directory (so minitape/ is there to
#      read) and, once it answers, prints the URL to open, with its token, as the last line.
# Environment: MINITAPE_SKIP_SYSTEM_PACKAGES=1 installs no system package (it only checks);
#   MINITAPE_PYTHON=/path/to/python uses that Python's environment instead of .venv, and installs nothing into it
#   (it must have minitape[notebooks] installed; lesson_tools then comes from PYTHONPATH); MINITAPE_PORT picks the
#   port (default: the first free from 8888).
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

step_start=$SECONDS
step() { # announce step $1 of 4, named $2
    step_start=$SECONDS
    echo "[$1/4] $2"
}
step_done() { echo "      $1 ($((SECONDS - step_start)) s)"; }

# 1. System packages: optional, the tape pictures use Graphviz's WebAssembly build without dot, so go on either way.
step 1 "Graphviz (dot), optional: without it the tape pictures use Graphviz's WebAssembly build from pip"
if ensure_programs "optional: without it the tape visualizer uses Graphviz's WebAssembly build from pip" dot; then
    step_done "there"
else
    step_done "missing: the tape pictures use the WebAssembly build instead"
fi

# 2. The Python environment.
step 2 "the Python environment: minitape, JupyterLab, Notebook 7 and the lessons' tools"
if [ -n "${MINITAPE_PYTHON:-}" ]; then
    python="$MINITAPE_PYTHON"
    # a Python of your own: nothing is installed into it, so its kernels find lesson_tools on PYTHONPATH
    export PYTHONPATH="$root/notebooks${PYTHONPATH:+:$PYTHONPATH}"
    step_done "using $python as it is"
else
    ensure_venv notebooks
    python="$root/.venv/bin/python"
    step_done ".venv is ready"
fi

# 3. The student's copies. The originals stay untouched, so autosave never modifies a tracked file.
step 3 "your copies of the lessons, in my-lessons/"
copied=0
mkdir -p my-lessons
lessons=(notebooks/[0-9][0-9]_*.ipynb)
for lesson in "${lessons[@]}"; do
    [ -e "my-lessons/${lesson##*/}" ] || { cp "$lesson" my-lessons/ && copied=$((copied + 1)); }
done
step_done "$copied copied, ${#lessons[@]} lessons in all"
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

# 4. JupyterLab. Its kernels start in my-lessons/ and import lesson_tools from .venv (scripts/venv.sh puts it there).
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
# Jupyter makes its own token and prints it in its own lines; scripts/jupyter/serve.py prints it again, last.
command=("$python" -m jupyter lab "--ServerApp.root_dir=$root" --ServerApp.ip=127.0.0.1 "--ServerApp.port=$port"
    --ServerApp.port_retries=0 --ServerApp.log_level=WARN --ContentsManager.pre_save_hook=lesson_tools.workspace.pre_save_hook
    "--LabApp.default_url=/$path")
[ "$(id -u)" = 0 ] && command+=(--allow-root) # JupyterLab refuses root unless told (containers, Binder-like boxes)
command+=(${jupyter_args[@]+"${jupyter_args[@]}"})

url="http://127.0.0.1:$port/$path"
case " ${jupyter_args[*]-} " in
    *" --port"* | *" --ServerApp.port"* | *" --ip"* | *" --ServerApp.ip"* | *"base_url"*)
        url="the URL that JupyterLab prints below (your options change its address)" ;;
esac
if [ "$setup_only" = 1 ]; then
    echo "Setup done. Your lessons are in my-lessons/ (git-ignored); JupyterLab would open $url"
    printf 'with the command:'
    [ -n "${MINITAPE_PYTHON:-}" ] && printf ' PYTHONPATH=%q' "$PYTHONPATH"
    printf ' %q' "${command[@]}"
    printf '\n'
    exit 0
fi
step 4 "JupyterLab, at $url (the address with its token follows when it is ready)"
exec "$python" scripts/jupyter/serve.py "$path" -- "${command[@]}"
