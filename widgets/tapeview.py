"""`TapeView`: the Jupyter widget that animates a tape's forward and backward passes step by step."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

import anywidget
import traitlets

from . import export, lifetime, steps
from .formatting import resolve
from .scene import scene as build_scene

PNG_MAX_NODES = 500  # above this, `dot -Tpng` takes about a second and the PNG weighs half a megabyte


class TapeView(anywidget.AnyWidget):
    """Step through the recorded tape of `target` (d target / d sources), forwards then backwards.

    Create it from a persistent tape, or before `tape.gradient` releases a one-shot tape's records.
    `sources` is what `tape.gradient` takes (one tensor or variable, or a list); by default every variable
    and watched tensor the tape saw. The view closes when the cell that made it runs again. `rankdir` is Graphviz's
    direction: "LR" (left to right), "TB" (top to bottom), or "auto" (LR unless the graph gets too wide).
    `collapse` draws name scopes as one box each: True for every top-level scope, or a list of scope
    paths (e.g. ["sequential/dense"]); in the browser, clicking a scope's frame folds it too.
    `lang` is the language of every word the view shows: "en" or "ko" (default: `set_language`'s, "en").
    """

    # Strings, not Paths: anywidget keeps every widget whose _esm or _css is a Path in a registry (to reload
    # it when the file changes), so a closed view would never be freed with its scene and values.
    _esm = export.script()
    _css = export.style()
    scene = traitlets.Dict().tag(sync=True)
    step = traitlets.Int(0).tag(sync=True)
    folded = traitlets.List().tag(sync=True)  # scope paths folded by a click in the browser

    def __init__(
        self,
        tape: Any,
        target: Any,
        sources: Any = None,
        rankdir: str = "auto",
        collapse: Any = None,
        lang: str | None = None,
        **kwargs: Any,
    ) -> None:
        if rankdir not in ("auto", "LR", "TB", "RL", "BT"):
            raise ValueError(f'TapeView: rankdir must be "auto", "LR", "TB", "RL" or "BT", not {rankdir!r}')
        self.model = steps.build(tape, target, sources)
        self._collapse, self._rankdir, self.lang = collapse, rankdir, resolve(lang)
        self._png: bytes | None = None
        super().__init__(scene=build_scene(self.model, rankdir, collapse, self.lang), **kwargs)
        self.observe(self._refold, names="folded")
        lifetime.adopt(self)  # closed when its cell runs again: ipywidgets would keep it (and its values) forever

    def _refold(self, change: Any) -> None:
        """A scope folded or unfolded in the browser: lay the graph out again, the folded scopes as small boxes."""
        self.scene = build_scene(self.model, self._rankdir, list(change["new"]) or False, self.lang)

    @property
    def n_steps(self) -> int:
        return len(self.scene["events"])

    def to_svg(self, step: int | None = None) -> str:
        """The graph at `step` as an SVG string; by default the step the view shows now (-1: the last)."""
        return export.to_svg(self.scene, self.step if step is None else step)

    def save_html(self, path: str | Path, title: str | None = None) -> Path:
        """Write one self-contained HTML file that animates offline (for slides and course websites)."""
        return export.save_html(self.scene, path, title)

    def to_png(self) -> bytes:
        """The graph after the last step as PNG bytes (Graphviz draws it): the picture an untrusted notebook shows."""
        if self._png is None:
            self._png = export.to_png(self.model, self.scene, self._collapse)
        return self._png

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        # Pictures next to the widget, for wherever the widget cannot run: GitHub and nbviewer show the SVG;
        # JupyterLab and Notebook 7 show the PNG in a notebook that is not trusted yet (they never render
        # SVG there), and after `export.drop_dead_widget_views` removed a saved view whose model is gone.
        data = super()._repr_mimebundle_(**kwargs)
        if isinstance(data, tuple):
            data, metadata = data
        else:
            metadata = {}
        data = dict(data or {})
        metadata = dict(metadata or {})
        data["image/svg+xml"] = export.to_svg(self.scene, -1, fit_width=True)
        data["text/plain"] = repr(self)
        if len(self.model.nodes) <= PNG_MAX_NODES:
            data["image/png"] = base64.b64encode(self.to_png()).decode("ascii")
        else:  # a second layout of a big graph costs seconds and the PNG megabytes: say so instead
            data["text/plain"] += f" (no PNG picture above {PNG_MAX_NODES} nodes: run the cell to see the graph)"
        return data, metadata

    def __repr__(self) -> str:
        return f"<TapeView: {len(self.model.nodes)} nodes, {self.n_steps} steps>"
