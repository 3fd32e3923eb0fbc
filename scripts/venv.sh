# Sourced by lessons.sh and test.sh after system_packages.sh: ensure_venv EXTRA makes .venv and installs this repository into it, editable,
# with the optional dependencies [EXTRA]. pip runs only when pyproject.toml changed since the last install (a stamp
# in .venv remembers it), and its output is shown only when it fails.

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

ensure_venv() {
    local extra="$1" stamp=".venv/.minitape-$1-installed" want log
    if [ ! -x .venv/bin/python ]; then
        _make_venv || return 1
    fi
    want="$(cksum <pyproject.toml)"
    if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
        return 0
    fi
    echo "Installing minitape[$extra] and its dependencies into .venv (pip)..." >&2
    log="$(mktemp)"
    if .venv/bin/python -m pip install --quiet --upgrade pip >"$log" 2>&1 &&
        .venv/bin/python -m pip install --quiet -e ".[$extra]" >>"$log" 2>&1; then
        echo "$want" >"$stamp"
        rm -f "$log"
        return 0
    fi
    cat "$log" >&2
    rm -f "$log"
    echo "pip could not install minitape[$extra] into .venv (its output is above)." >&2
    return 1
}
