"""Jupyter widgets for minitape: `TapeView` steps through a recorded tape, forwards and backwards.

    from minitape.widgets import TapeView
    with mt.GradientTape(persistent=True) as tape:   # or: make the view before tape.gradient
        f = 3 * w1**2 + 2 * w1 * w2
    view = TapeView(tape, f)             # sources default to every variable and watched tensor
    view                                  # play, step, scrub, arrow keys; click a node for its numbers
    view.to_svg(-1)                       # a static picture of any step (default: the one on screen)
    view.save_html("tape.html")           # one offline file for slides and course pages
    TapeView(tape, loss, collapse=True)   # big tapes: each top-level name scope drawn as one box
    TapeView(tape, f, lang="ko")          # every word in Korean; mt.widgets.set_language("ko") for all views

`steps.build` is the pure-Python model the widget animates (tested without a browser);
`layout.layout` is the one function that runs Graphviz: the system's `dot` when it is on PATH, else Graphviz
compiled to WebAssembly, in this process; `layout_backend()` says which ($MINITAPE_GRAPHVIZ=system|wasm forces one).
"""

from .formatting import get_language, set_language
from .layout import GraphvizNotFoundError, LayoutTimeoutError, layout_backend
from .steps import StepModel, build

__all__ = [
    "TapeView",
    "GraphvizNotFoundError",
    "LayoutTimeoutError",
    "StepModel",
    "build",
    "get_language",
    "layout_backend",
    "set_language",
]


def __getattr__(name: str):
    if name == "TapeView":  # imported lazily: the step model and layout work without anywidget installed
        from .tapeview import TapeView

        return TapeView
    raise AttributeError(f"module 'minitape.widgets' has no attribute {name!r}")
