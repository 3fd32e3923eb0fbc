# Sourced by lessons.sh and test.sh after system_packages.sh: ensure_venv EXTRA makes .venv and installs this repository into it, editable,
# with the optional dependencies [EXTRA]. pip runs only when pyproject.toml changed since the last install (a stamp
# in .venv remembers it); while it runs, a line every 10 s says how long it has taken and what pip is doing, and its
# whole output is shown when it fails.
# Then (every time: it is quick) .venv gets the lessons' Jupyter set-up from scripts/jupyter/: `lesson_tools`
# importable from any folder (a .pth file and a link to notebooks/lesson_tools, so a kernel in my-lessons/ or
# anywhere finds it without PYTHONPATH), the pre-save hook that refuses to write over the repository's lessons
# (lesson_tools.workspace), and JupyterLab's news off (no "get Jupyter news?" pop-up over the first lesson).

_make_venv() {
    python3 -m venv .venv >/dev/null 2>&1 && return 0
    rm -rf .venv
    # Debian and Ubuntu ship Python without venv: it comes in the package python3-venv
    if [ "${MINITAPE_SKIP_SYSTEM_PACKAGES:-0}" != 1 ] && _install_with_apt python3-venv &&
        python3 -m venv .venv >/dev/null 2>&1; then
        return 0
    fi
    rm -rf .venv
    {
        echo "Could not make a virtual environment with: python3 -m venv .venv"
        command -v python3 >/dev/null 2>&1 || echo "There is no python3: install Python 3.10 or newer."
        echo "On Debian/Ubuntu, install venv with: sudo apt-get install python3-venv"
    } >&2
    return 1
}

# pip with its output in the file $1; a line every 10 s (on stderr) says for how long, and what pip is doing.
_pip_with_progress() {
    local log="$1" pid elapsed=0 doing
    shift
    .venv/bin/python -m pip "$@" >>"$log" 2>&1 &
    pid=$!
    # a background job ignores Ctrl+C: stop pip with the script, or it would go on writing into .venv
    trap 'kill "$pid" 2>/dev/null; exit 130' INT TERM
    while kill -0 "$pid" 2>/dev/null; do
        sleep 1
        elapsed=$((elapsed + 1))
        if [ $((elapsed % 10)) = 0 ]; then
            doing="$(grep -E '^ *(Collecting|Downloading|Building|Installing|Obtaining|Preparing)' "$log" | tail -n 1)"
            case "$doing" in # pip's last word for a minute or more: the list of every package, on one line
                "Installing collected packages: "*)
                    doing="installing the $(($(tr -cd , <<<"$doing" | wc -c) + 1)) packages it collected" ;;
            esac
            echo "    pip, ${elapsed} s: ${doing:-starting}" | cut -c 1-118 >&2
        fi
    done
    trap - INT TERM
    wait "$pid"
}

# The lessons' Jupyter set-up, into .venv (see the top of this file).
install_lesson_workspace() {
    local site
    site="$(.venv/bin/python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')" || return 1
    mkdir -p .venv/minitape-lessons .venv/etc/jupyter .venv/share/jupyter/lab/settings
    ln -sfn "$PWD/notebooks/lesson_tools" .venv/minitape-lessons/lesson_tools
    echo "$PWD/.venv/minitape-lessons" >"$site/minitape-lessons.pth"
    # the server's own config file (its .d folder only enables extensions), merged into what may be there already
    .venv/bin/python -c '
import json, pathlib, sys
ours, theirs = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
config = json.loads(theirs.read_text()) if theirs.exists() else {}
for section, values in json.loads(ours.read_text()).items():
    config.setdefault(section, {}).update(values)
theirs.write_text(json.dumps(config, indent=4) + "\n")
' scripts/jupyter/jupyter_server_config.json .venv/etc/jupyter/jupyter_server_config.json
    cp scripts/jupyter/overrides.json .venv/share/jupyter/lab/settings/overrides.json
}

ensure_venv() {
    local extra="$1" stamp=".venv/.minitape-$1-installed" want log
    if [ ! -x .venv/bin/python ]; then
        _make_venv || return 1
    fi
    want="$(cksum <pyproject.toml)"
    if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
        echo "Installing minitape[$extra] and its dependencies into .venv with pip (the first time: a few minutes)..." >&2
        log="$(mktemp)"
        if ! { _pip_with_progress "$log" install --upgrade pip && _pip_with_progress "$log" install -e ".[$extra]"; }; then
            cat "$log" >&2
            rm -f "$log"
            echo "pip could not install minitape[$extra] into .venv (its output is above)." >&2
            return 1
        fi
        echo "$want" >"$stamp"
        rm -f "$log"
    fi
    install_lesson_workspace
}
