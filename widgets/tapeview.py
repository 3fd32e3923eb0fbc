"""`TapeView`: the Jupyter widget that animates a tape's forward and backward passes step by step."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anywidget
import traitlets

from . import export, steps
from .scene import scene as build_scene

_HERE = Path(__file__).parent


class TapeView(anywidget.AnyWidget):
    """Step through the recorded tape of `target` (d target / d sources), forwards then backwards.

    Create it from a persistent tape, or before `tape.gradient` releases a one-shot tape's records.
    `sources` defaults to every variable and watched tensor the tape saw. `rankdir` is Graphviz's
    direction: "LR" (left to right), "TB" (top to bottom), or "auto" (LR unless the graph gets too wide).
    `collapse` draws name scopes as one box each: True for every top-level scope, or a list of scope
    paths (e.g. ["sequential/dense"]); in the browser, clicking a scope's frame folds it too.
    """

    _esm = _HERE / "tapeview.js"
    _css = _HERE / "tapeview.css"
    scene = traitlets.Dict().tag(sync=True)
    step = traitlets.Int(0).tag(sync=True)

    def __init__(
        self,
        tape: Any,
        target: Any,
        sources: Any = None,
        rankdir: str = "auto",
        collapse: Any = None,
        **kwargs: Any,
    ) -> None:
        if rankdir not in ("auto", "LR", "TB", "RL", "BT"):
            raise ValueError(f'TapeView: rankdir must be "auto", "LR", "TB", "RL" or "BT", not {rankdir!r}')
        self.model = steps.build(tape, target, sources)
        super().__init__(scene=build_scene(self.model, rankdir, collapse), **kwargs)

    @property
    def n_steps(self) -> int:
        return len(self.scene["events"])

    def to_svg(self, step: int | None = None) -> str:
        """The graph at `step` as an SVG string; by default the step the view shows now (-1: the last)."""
        return export.to_svg(self.scene, self.step if step is None else step)

    def save_html(self, path: str | Path, title: str = "minitape tape view") -> Path:
        """Write one self-contained HTML file that animates offline (for slides and course websites)."""
        return export.save_html(self.scene, path, title)

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        # the SVG next to the widget: GitHub and nbviewer cannot run widgets, they show the picture instead
        data = super()._repr_mimebundle_(**kwargs)
        if isinstance(data, tuple):
            data, metadata = data
        else:
            metadata = {}
        data = dict(data or {})
        data["image/svg+xml"] = self.to_svg(-1)
        data["text/plain"] = repr(self)
        return data, metadata

    def __repr__(self) -> str:
        return f"<TapeView: {len(self.model.nodes)} nodes, {self.n_steps} steps>"
