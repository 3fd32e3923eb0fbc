# Sourced by lessons.sh and test.sh: make sure the system programs they need are on PATH, installing them
# where that can be done without asking anything:
#   Debian/Ubuntu: apt-get as root, or `sudo -n apt-get` when sudo works without a password;
#   macOS: brew.
# Otherwise it prints exactly what to install. Programs already on PATH are left alone (no apt-get update).
# MINITAPE_SKIP_SYSTEM_PACKAGES=1 skips installing: the programs are only checked.

# The Debian/Ubuntu packages that provide a program (fonts: Chromium draws no text without one).
_apt_packages_for() {
    case "$1" in
        dot) echo graphviz ;;
        chromium) echo chromium fonts-dejavu-core ;;
    esac
}

# The Homebrew formulae that provide a program; none for Chromium: the browser tests use Debian's.
_brew_packages_for() {
    case "$1" in
        dot) echo graphviz ;;
    esac
}

_missing_programs() {
    local program
    for program in "$@"; do
        command -v "$program" >/dev/null 2>&1 || echo "$program"
    done
}

# Prints the command that runs apt-get as root without a prompt ("" when root), or fails when there is none.
_apt_runner() {
    command -v apt-get >/dev/null 2>&1 || return 1
    if [ "$(id -u)" = 0 ]; then
        echo ""
    elif command -v sudo >/dev/null 2>&1 && sudo -n true >/dev/null 2>&1; then
        echo "sudo -n"
    else
        return 1
    fi
}

_install_with_apt() {
    local runner log
    runner="$(_apt_runner)" || return 1
    log="$(mktemp)"
    echo "Installing system packages with apt-get: $*" >&2
    # $runner is "" or "sudo -n": left unquoted on purpose so that "" adds no word
    if $runner env DEBIAN_FRONTEND=noninteractive apt-get update -qq >"$log" 2>&1 &&
        $runner env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >>"$log" 2>&1; then
        rm -f "$log"
        return 0
    fi
    echo "apt-get failed:" >&2
    tail -n 20 "$log" >&2
    rm -f "$log"
    return 1
}

_install_with_brew() {
    [ "$(uname -s)" = Darwin ] && command -v brew >/dev/null 2>&1 || return 1
    echo "Installing with Homebrew: $*" >&2
    brew install --quiet "$@" >&2
}

# Sets the arrays missing, apt and brew: the programs not on PATH and the packages that provide them.
_find_missing() {
    local program
    missing=() apt=() brew=()
    # read, not mapfile: macOS ships bash 3.2
    while read -r program; do [ -n "$program" ] && missing+=("$program"); done < <(_missing_programs "$@")
    for program in ${missing[@]+"${missing[@]}"}; do
        # word splitting on purpose: one program can need several packages
        # shellcheck disable=SC2207
        apt+=($(_apt_packages_for "$program"))
        # shellcheck disable=SC2207
        brew+=($(_brew_packages_for "$program"))
    done
}

# ensure_programs WHY PROGRAM...: returns 0 when every PROGRAM is on PATH (after installing what it could),
# else prints what to install (WHY says what needs them) and returns 1.
ensure_programs() {
    local why="$1" missing apt brew
    shift
    _find_missing "$@"
    [ "${#missing[@]}" = 0 ] && return 0
    if [ "${MINITAPE_SKIP_SYSTEM_PACKAGES:-0}" != 1 ]; then
        _install_with_apt "${apt[@]}" || { [ "${#brew[@]}" != 0 ] && _install_with_brew "${brew[@]}"; } || true
        _find_missing "$@"
        [ "${#missing[@]}" = 0 ] && return 0
    fi
    {
        echo "Missing program(s): ${missing[*]} ($why)."
        echo "Install them, then run this script again:"
        echo "    Debian/Ubuntu:  sudo apt-get update && sudo apt-get install ${apt[*]}"
        if [ "${#brew[@]}" != 0 ]; then
            echo "    macOS:          brew install ${brew[*]}"
        fi
    } >&2
    return 1
}
