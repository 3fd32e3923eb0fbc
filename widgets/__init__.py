"""Jupyter widgets for minitape: `TapeView` steps through a recorded tape, forwards and backwards."""

from widgets.layout import GraphvizNotFoundError
from widgets.steps import StepModel, build

__all__ = ["TapeView", "GraphvizNotFoundError", "StepModel", "build"]


def __getattr__(name: str):
    if name == "TapeView":  # imported lazily: the step model and layout work without anywidget installed
        from widgets.tapeview import TapeView

        return TapeView
    raise AttributeError(f"module 'widgets' has no attribute {name!r}")
