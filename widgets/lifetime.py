"""Views a notebook can no longer show are closed, so the kernel frees them with their scene and values.

ipywidgets keeps every open widget in its registry (that is how the front end's messages reach it)
until `close()`, referenced or not. Running a cell again replaces that cell's output, so the views it
made before can never be shown there again: `adopt` remembers which cell made a view, and when that
cell runs again its earlier views are closed. A student re-running a cell fifty times keeps one view.
"""

from __future__ import annotations

import weakref
from typing import Any

_views: dict[str, weakref.WeakSet] = {}  # cell -> the views it made (weakly: a freed view drops out)
_state: dict[str, Any] = {"cell": None, "shell": None}


def _shell() -> Any:
    try:
        from IPython import get_ipython
    except ImportError:  # not in IPython: nothing re-runs cells
        return None
    return get_ipython()


def _key(cell_id: Any, raw: Any) -> str | None:
    """A cell: its id where the front end sends one (JupyterLab, Notebook 7), else its text."""
    return str(cell_id) if cell_id else (str(raw) if raw else None)


def _before_cell(info: Any) -> None:
    key = _key(getattr(info, "cell_id", None), getattr(info, "raw_cell", None))
    _state["cell"] = key
    for view in list(_views.pop(key, ())):
        view.close()


def _running_cell(shell: Any) -> str | None:
    """The cell running now, for the first view made in the cell that installed the hook."""
    if _state["cell"] is not None:
        return _state["cell"]
    parent = getattr(getattr(shell, "kernel", None), "get_parent", lambda: {})() or {}
    raw = shell.history_manager.input_hist_raw[-1] if shell.history_manager.input_hist_raw else None
    return _key(parent.get("metadata", {}).get("cellId"), raw)


def adopt(view: Any) -> None:
    """Close `view` when the cell that made it runs again (inside IPython; elsewhere nothing happens)."""
    shell = _shell()
    if shell is None:
        return
    if _state["shell"] is not shell:
        shell.events.register("pre_run_cell", _before_cell)
        _state["shell"], _state["cell"] = shell, None
    key = _running_cell(shell)
    if key is not None:
        _views.setdefault(key, weakref.WeakSet()).add(view)
