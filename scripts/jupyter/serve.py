"""Start a Jupyter server and, once it answers, print the address that opens the lessons, token included.

    python scripts/jupyter/serve.py PATH -- python -m jupyter lab --ServerApp.port=8888 ...

scripts/lessons.sh runs this with the venv's Python. Jupyter makes its own token, so the lines it prints itself show
the real one too (a token it is given, it prints as "?token=..."); this script reads the token from the server's
runtime file (jpserver-PID.json), checks that the server answers with it, and prints the URL of PATH as the last
line: it stays readable under the server's start-up log. It then waits for the server, and stops it when stopped.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from jupyter_core.paths import jupyter_runtime_dir

WAIT_S = 180  # a first start on a slow, shared machine (JupyterLab's assets, the extensions) takes a minute or two


def server_info(pid: int) -> dict | None:
    """The runtime file the server with this pid writes when it listens: url, token, port, root_dir."""
    path = Path(jupyter_runtime_dir()) / f"jpserver-{pid}.json"
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):  # not written yet, or half written
        return None


def answers(info: dict) -> bool:
    url = info["url"].rstrip("/") + "/api/status?token=" + info.get("token", "")
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return response.status == 200
    except OSError:
        return False


def wait_until_ready(server: subprocess.Popen) -> dict | None:
    """The server's info once it answers; None when it exited or did not answer within WAIT_S."""
    deadline = time.monotonic() + WAIT_S
    while server.poll() is None and time.monotonic() < deadline:
        info = server_info(server.pid)
        if info is not None and answers(info):
            return info
        time.sleep(0.5)
    return None


def lesson_url(info: dict, path: str) -> str:
    url = info["url"].rstrip("/") + "/" + path.lstrip("/")
    return f"{url}?token={info['token']}" if info.get("token") else url


def main(argv: list[str]) -> int:
    if len(argv) < 3 or argv[1] != "--":
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    path, command = argv[0], argv[2:]
    start = time.monotonic()
    server = subprocess.Popen(command)
    # Ctrl+C reaches the server from the terminal (it asks to confirm): this script only waits for it to end. Set
    # after the start: an ignored signal stays ignored in a child.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, lambda *_: server.terminate())
    info = wait_until_ready(server)
    if info is not None:
        print(
            f"\nJupyter is ready (it took {time.monotonic() - start:.0f} s). Keep this window open while you work;"
            f" Ctrl+C here, twice, stops it.\nYour lessons: {lesson_url(info, path)}",
            flush=True,
        )
    elif server.poll() is None:
        print(f"Jupyter did not answer within {WAIT_S} s: see its messages above.", file=sys.stderr, flush=True)
    return server.wait()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
